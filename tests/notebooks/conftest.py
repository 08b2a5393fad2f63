"""Shared helpers for the notebook tests: load the scripts and build the student copy."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
from exercise_runner import load_script


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
