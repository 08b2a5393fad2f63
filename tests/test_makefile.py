"""The Makefile's recipes, read with ``make -n`` (nothing runs): what a fresh user meets."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="no `make` program")


def dry_run(target: str) -> list[str]:
    """The commands ``make -n TARGET`` would run, one per line."""
    done = subprocess.run(
        ["make", "-n", target], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return done.stdout.splitlines()


def test_lab_passes_allow_root_only_as_root() -> None:
    (line,) = [line for line in dry_run("lab") if "jupyter lab" in line]
    # Jupyter refuses to start as root without --allow-root; evaluate the recipe's shell
    # words with `echo` in place of jupyter to see the flags it would get.
    shown = subprocess.run(
        ["bash", "-c", line.replace(".venv/bin/jupyter", "echo", 1)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert shown[:2] == ["lab", "notebooks"]
    assert ("--allow-root" in shown) == (os.geteuid() == 0)
