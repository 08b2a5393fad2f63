"""Every student notebook runs, top to bottom, until its first exercise stub raises."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

SOURCE_NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("[0-9]*.ipynb"))


@pytest.mark.parametrize("path", SOURCE_NOTEBOOKS, ids=lambda p: p.stem)
def test_student_notebook_runs_until_the_first_exercise(path: Path, student_dir: Path) -> None:
    nb = nbformat.read(student_dir / path.name, as_version=4)
    first = next(
        i
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code" and "raise NotImplementedError()" in c.source
    )
    nb.cells = nb.cells[: first + 2]  # the first exercise and its check cell
    client = NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(student_dir)}}
    )
    with pytest.raises(CellExecutionError) as info:
        client.execute()
    assert info.value.ename == "NotImplementedError"
    raised = [i for i, c in enumerate(nb.cells) for o in c.get("outputs", []) if o.get("ename")]
    assert raised and raised[0] >= first, (
        f"{path.name}: the error came from cell {raised[:1]}, before the first exercise"
    )
