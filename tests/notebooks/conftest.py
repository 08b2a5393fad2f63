"""Shared helpers for the notebook tests: load the scripts and build the student copy."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"


def load_script(name: str) -> ModuleType:
    """Import ``scripts/<name>.py`` (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def make_student() -> ModuleType:
    return load_script("make_student")


@pytest.fixture(scope="session")
def run_notebooks() -> ModuleType:
    return load_script("run_notebooks")


@pytest.fixture(scope="session")
def student_dir(tmp_path_factory: pytest.TempPathFactory, make_student: ModuleType) -> Path:
    out = tmp_path_factory.mktemp("student")
    make_student.make_student(out)
    return out
