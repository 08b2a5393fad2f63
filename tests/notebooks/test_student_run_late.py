"""Every student notebook runs, top to bottom, until its first exercise stub raises.

The notebooks are split over two files (this one: 07 onwards; ``test_student_run.py``:
01-06) so that ``pytest -n 2 --dist loadfile`` runs the halves in parallel.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
LATE = [p for p in sorted(NOTEBOOKS.glob("[0-9]*.ipynb")) if p.name[:2] > "06"]


@pytest.mark.parametrize("path", LATE, ids=lambda p: p.stem)
def test_student_notebook_runs_until_the_first_exercise(
    path: Path, run_until_first_exercise: Callable[[str], None]
) -> None:
    run_until_first_exercise(path.name)
