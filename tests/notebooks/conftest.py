"""Shared helpers for the notebook tests: load the scripts and build the student copy."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import nbformat
import pytest
from exercise_runner import load_script
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError


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


@pytest.fixture(scope="session")
def run_until_first_exercise(student_dir: Path) -> Callable[[str], None]:
    """Return a function that runs a student notebook up to its first exercise's check.

    It executes the cells before the first exercise, the exercise and its check cell in a
    fresh ``python3`` kernel, and asserts that the first error is the stub's
    ``NotImplementedError`` raised in the exercise, or the check's ``NotDoneYet`` ("this
    exercise is not done yet") — not anything earlier.
    """

    def run(name: str) -> None:
        nb = nbformat.read(student_dir / name, as_version=4)
        first = next(
            i
            for i, c in enumerate(nb.cells)
            if c.cell_type == "code" and "raise NotImplementedError()" in c.source
        )
        nb.cells = nb.cells[: first + 2]  # the first exercise and its check cell
        client = NotebookClient(
            nb,
            timeout=300,
            startup_timeout=180,
            kernel_name="python3",
            resources={"metadata": {"path": str(student_dir)}},
        )
        with pytest.raises(CellExecutionError) as info:
            client.execute()
        raised = [
            i for i, c in enumerate(nb.cells) for o in c.get("outputs", []) if o.get("ename")
        ]
        assert info.value.ename in ("NotImplementedError", "NotDoneYet"), (
            f"{name}: {info.value.ename} in cell {raised[:1]}: {info.value.evalue}"
        )
        assert raised and raised[0] >= first, (
            f"{name}: the error came from cell {raised[:1]}, before the first exercise"
        )

    return run

