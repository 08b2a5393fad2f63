"""pyproject.toml: installing the package prints no setuptools deprecation warning."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

BUILD_METADATA = """\
import tempfile
from setuptools import build_meta
print(build_meta.prepare_metadata_for_build_wheel(tempfile.mkdtemp(dir='.')))
"""


def test_metadata_builds_without_warnings_and_has_the_spdx_license(tmp_path: Path) -> None:
    setuptools = pytest.importorskip("setuptools")
    if int(setuptools.__version__.split(".")[0]) < 77:
        pytest.skip("pyproject.toml needs setuptools>=77 (the SPDX license form)")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, tmp_path / name)
    for package in ("minitorch", "viz"):  # the metadata needs the layout, not the code
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    done = subprocess.run(
        [sys.executable, "-c", BUILD_METADATA],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert "Warning" not in done.stderr, done.stderr  # e.g. `project.license` as a table
    dist_info = next(tmp_path.glob("tmp*/minitorch-*.dist-info"))
    metadata = (dist_info / "METADATA").read_text(encoding="utf-8")
    assert "License-Expression: MIT" in metadata
    assert "License-File: LICENSE" in metadata
