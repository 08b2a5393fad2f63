"""Run a notebook source in-process, cell by cell, as a student with some exercises solved.

Shared by the notebook tests; not a test module itself. One untouched (student) run per
notebook is cached, with a snapshot of the namespace before each exercise, so replaying
exercise ``k`` — solved, or solved with a mistake injected — costs only the cells from
that exercise to its check. Much cheaper than a kernel per exercise.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import linecache
import os
from collections.abc import Iterator
from typing import Any

from exercise_runner import NOTEBOOKS, load_script

Edit = tuple[str, str]


def _cells(prefix: str) -> list[tuple[str, list[str], str]]:
    run_notebooks = load_script("run_notebooks")
    source = next((NOTEBOOKS / "src").glob(f"{prefix}_*.py"))
    return [c for c in run_notebooks.parse_cells(source.read_text()) if c[0] == "code"]


def _runnable(source: str) -> str:
    return "\n".join(line for line in source.splitlines() if not line.startswith("%"))


@contextlib.contextmanager
def in_notebooks_dir() -> Iterator[None]:
    """cwd = notebooks/ (the data and helper modules), stdout captured."""
    old = os.getcwd()
    os.chdir(NOTEBOOKS)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            yield
    finally:
        os.chdir(old)


_CELLS = itertools.count()


def run_cell(source: str, namespace: dict[str, Any]) -> BaseException | None:
    """Execute one cell; return its exception (a SyntaxError too), or None.

    The cell's source is registered in ``linecache`` under a name of its own, as IPython
    does, so a check quotes the student's line here as it does in Jupyter (and a message
    is as long as the one a student sees).
    """
    code = _runnable(source)
    name = f"<cell {next(_CELLS)}>"
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    try:
        exec(compile(code, name, "exec"), namespace)  # noqa: S102
    except Exception as err:  # the stubs raise by design
        return err
    return None


_RUNS: dict[str, tuple[list[Any], list[int], dict[int, Any], dict[int, Any]]] = {}


def student_run(prefix: str) -> tuple[list[Any], list[int], dict[int, Any], dict[int, Any]]:
    """Run the untouched student version once (cached): cells, exercise cells, a snapshot of
    the namespace before each exercise, and each check cell's error."""
    import matplotlib.pyplot as plt

    make_student = load_script("make_student")
    if prefix not in _RUNS:
        cells = _cells(prefix)
        exercises = [i for i, c in enumerate(cells) if "### BEGIN SOLUTION" in c[2]]
        namespace: dict[str, Any] = {"__name__": "__main__"}
        snapshots: dict[int, dict[str, Any]] = {}
        untouched: dict[int, BaseException | None] = {}
        with in_notebooks_dir():
            for i, (_, tags, source) in enumerate(cells):
                if i in exercises:
                    snapshots[i] = dict(namespace)
                error = run_cell(make_student.strip_source(source), namespace)
                if "check" in tags:
                    untouched[i] = error
                plt.close("all")
        _RUNS[prefix] = (cells, exercises, snapshots, untouched)
    return _RUNS[prefix]


def render(message: str) -> list[str]:
    """The lines a check's failure ``message`` is shown as (``notebooks/checks.py``)."""
    import checks

    return checks.render(message)


def solve_alone(
    prefix: str,
    k: int,
    edit: Edit | list[Edit] | None = None,
    replace: str | None = None,
    past_the_answer: bool = False,
) -> BaseException | None:
    """Exercise k (1-based) solved — with ``edit`` (``(old, new)`` pairs) applied to its
    solution, or the whole cell ``replace``-d — the others untouched: run it and the cells
    up to its check; return the first error (with ``past_the_answer``, the first error after
    the answer cell: a student's cell that fails, then the check run anyway)."""
    import matplotlib.pyplot as plt

    make_student = load_script("make_student")
    cells, exercises, snapshots, _ = student_run(prefix)
    i = exercises[k - 1]
    check = next(j for j in range(i + 1, len(cells)) if "check" in cells[j][1])
    solution = cells[i][2] if replace is None else replace
    edits = [edit] if isinstance(edit, tuple) else list(edit or [])
    for old, new in edits:
        assert old in solution, f"{prefix} exercise {k}: {old!r} not in the solution"
        solution = solution.replace(old, new)
    namespace = dict(snapshots[i])
    steps = [solution] + [make_student.strip_source(c[2]) for c in cells[i + 1 : check + 1]]
    with in_notebooks_dir():
        try:
            for n, step in enumerate(steps):
                error = run_cell(step, namespace)
                if error is not None and not (past_the_answer and n == 0):
                    return error
        finally:
            plt.close("all")
    return None


def run_whole(
    prefix: str, solved: set[int] | None = None, broken: dict[int, str] | None = None
) -> dict[int, tuple[BaseException | None, str]]:
    """Run a whole notebook in-process as a student who solved the exercises ``solved``
    (1-based; all by default) and wrote ``broken[k]`` as exercise k's cell; return, per
    exercise, its check cell's error and printed output."""
    import matplotlib.pyplot as plt

    make_student = load_script("make_student")
    cells = _cells(prefix)
    exercises = [i for i, c in enumerate(cells) if "### BEGIN SOLUTION" in c[2]]
    checks = [
        next(j for j in range(i + 1, len(cells)) if "check" in cells[j][1]) for i in exercises
    ]
    broken = broken or {}
    namespace: dict[str, Any] = {"__name__": "__main__"}
    results: dict[int, tuple[BaseException | None, str]] = {}
    old = os.getcwd()
    os.chdir(NOTEBOOKS)
    try:
        for i, (_, _, source) in enumerate(cells):
            k = exercises.index(i) + 1 if i in exercises else None
            if k is not None and k in broken:
                source = broken[k]
            elif k is not None and solved is not None and k not in solved:
                source = make_student.strip_source(source)
            elif k is None:
                source = make_student.strip_source(source)  # hidden tests out, as released
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                error = run_cell(source, namespace)
            plt.close("all")
            if i in checks:
                results[checks.index(i) + 1] = (error, out.getvalue())
    finally:
        os.chdir(old)
    return results
