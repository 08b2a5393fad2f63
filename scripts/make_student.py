"""Write the student version of the course to ``build/student/``.

For every ``notebooks/NN_*.ipynb`` this keeps the prose and the check cells, and

* replaces each ``### BEGIN SOLUTION`` ... ``### END SOLUTION`` region by
  ``# YOUR CODE HERE`` and ``raise NotImplementedError()`` (at the marker's indentation),
* removes each ``### BEGIN HIDDEN TESTS`` ... ``### END HIDDEN TESTS`` block,
* keeps the stored outputs of the cells before the first exercise, which depend on no
  exercise (so a student sees the pictures and printed results before running a cell),
  and clears the outputs of the first exercise and every cell after it (an exercise, its
  check, or a cell that may use a student's answer); execution counts are cleared,

and copies the helper modules the notebooks import (``notebooks/*.py``, but not nbval's
``conftest.py``, which belongs to the test suite). These are the
rules ``nbgrader generate_assignment`` applies, so a teacher can use either tool.

Usage::

    python scripts/make_student.py [--out build/student]
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
BEGIN_SOLUTION, END_SOLUTION = "### BEGIN SOLUTION", "### END SOLUTION"
BEGIN_HIDDEN, END_HIDDEN = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
STUB = ("# YOUR CODE HERE", "raise NotImplementedError()")
NOT_FOR_STUDENTS = {"conftest.py"}  # nbval's hook for the test suite, not course material


def strip_source(source: str) -> str:
    """Return ``source`` with solutions replaced by stubs and hidden tests removed.

    Raises:
        ValueError: if a BEGIN marker has no matching END marker (or the reverse).
    """
    out: list[str] = []
    inside: str | None = None
    for line in source.splitlines():
        marker = line.strip()
        if inside is None and marker == BEGIN_SOLUTION:
            indent = line[: len(line) - len(line.lstrip())]
            out.extend(indent + stub for stub in STUB)
            inside = END_SOLUTION
        elif inside is None and marker == BEGIN_HIDDEN:
            inside = END_HIDDEN
        elif marker in (END_SOLUTION, END_HIDDEN):
            if marker != inside:
                raise ValueError(f"make_student: {marker!r} without its BEGIN marker")
            inside = None
        elif inside is None:
            out.append(line)
    if inside is not None:
        raise ValueError(f"make_student: missing {inside!r}")
    return "\n".join(out)


def student_notebook(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Return a stripped copy of ``nb``: solutions stubbed, hidden tests removed, and the
    outputs kept only for the cells before the first exercise (see the module docstring)."""
    nb = nbformat.from_dict(nb)
    before_exercises = True
    for cell in nb.cells:
        if BEGIN_SOLUTION in cell.source:
            before_exercises = False
        cell.source = strip_source(cell.source)
        if cell.cell_type == "code":
            if not before_exercises:
                cell.outputs = []
            for output in cell.outputs:
                if "execution_count" in output:
                    output.execution_count = None
            cell.execution_count = None
    return nb


def make_student(out: Path, notebooks: Path = NOTEBOOKS) -> list[Path]:
    """Write every student notebook and helper module into ``out``; return the notebooks."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in sorted(notebooks.glob("[0-9]*.ipynb")):
        nb = student_notebook(nbformat.read(path, as_version=4))
        target = out / path.name
        nbformat.write(nb, target)
        written.append(target)
    # the helper modules, and the small weights a notebook loads (notebook 15's GPT)
    for helper in sorted([*notebooks.glob("*.py"), *notebooks.glob("*.npz")]):
        if helper.name not in NOT_FOR_STUDENTS:
            shutil.copy(helper, out / helper.name)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "student")
    args = parser.parse_args(argv)
    written = make_student(args.out)
    print(f"wrote {len(written)} student notebooks to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
