"""Shared fixtures for the documentation tests: the built site and where it lives."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "site"
# Everything the site is built from: when one of these is newer than site/, rebuild.
SOURCES = ("mkdocs.yml", "docs", "minitorch", "viz", "notebooks", "scripts")


def newest_source_mtime() -> float:
    """The latest modification time of any file the site is built from."""
    newest = 0.0
    for name in SOURCES:
        path = ROOT / name
        files = [path] if path.is_file() else (p for p in path.rglob("*") if p.is_file())
        for file in files:
            if "__pycache__" not in file.parts:
                newest = max(newest, file.stat().st_mtime)
    return newest


def build_site(out: Path) -> None:
    """Run ``mkdocs build --strict`` into ``out``; fail the test with mkdocs' output."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        pytest.fail(f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}")


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The built site: ``site/`` from ``make docs`` if it is up to date, else a fresh build."""
    pytest.importorskip("mkdocs", reason="mkdocs is not installed: pip install -e '.[docs]'")
    index = SITE / "index.html"
    if index.exists() and index.stat().st_mtime >= newest_source_mtime():
        yield SITE
        return
    out = tmp_path_factory.mktemp("site")
    build_site(out)
    yield out
