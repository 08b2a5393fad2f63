"""Every exercise is graded on its own: solved alone it passes, untouched it says so.

For each exercise of every notebook source (``notebooks/src/*.py``, so a new notebook is
covered as soon as it exists), a fresh kernel plays a student who solved only that
exercise (see ``exercise_runner.run_one_exercise``): with the stub the check must say "this
exercise is not done yet"; with the solution it must pass, and pass again when run twice
and after the answer cell is re-run. nbgrader then takes exactly one point for one
mistake. Notebooks 07 onwards are here, 01-06 in ``test_exercises_graded_alone.py``,
so that ``pytest -n 2 --dist loadfile`` runs the halves in parallel.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from exercise_runner import exercise_params, run_one_exercise


@pytest.mark.slow
@pytest.mark.parametrize(("source", "k"), exercise_params(first="07"))
def test_exercise_is_graded_on_its_own(source: Path, k: int) -> None:
    problems = run_one_exercise(source, k)
    assert not problems, "\n".join(problems)
