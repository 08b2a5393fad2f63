"""Run a course notebook's code in-process (no kernel) and replay one exercise with a
mistake injected: the fast harness of the mistake catalogue.

Each code cell is compiled under its own file name and registered in ``linecache``, as
IPython does, so a check can quote the student's line. Not a test module itself.
"""

from __future__ import annotations

import contextlib
import linecache
import os
import sys
from dataclasses import dataclass, field
from typing import Any

from exercise_runner import NOTEBOOKS, SOURCES, load_script

# how a check's failure is shown: notebooks/checks.py's render (imported lazily)


@dataclass
class Outcome:
    """What the check cell did: ``error`` is None when it passed."""

    error: BaseException | None
    answer_error: BaseException | None = None
    lines: list[str] = field(default_factory=list)

    @property
    def message(self) -> str:
        return "" if self.error is None else str(self.error)


def _compile(source: str, name: str) -> Any:
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    return compile(source, name, "exec")


@contextlib.contextmanager
def _in_notebooks() -> Any:
    old_cwd, old_path = os.getcwd(), list(sys.path)
    os.chdir(NOTEBOOKS)
    sys.path.insert(0, str(NOTEBOOKS))
    try:
        yield
    finally:
        os.chdir(old_cwd)
        sys.path[:] = old_path


class Notebook:
    """One notebook's cells, run once up to each exercise (solutions everywhere)."""

    def __init__(self, stem: str) -> None:
        import matplotlib

        matplotlib.use("Agg")
        run_notebooks = load_script("run_notebooks")
        self.stem = stem
        self.nb = run_notebooks.build_notebook(SOURCES / f"{stem}.py")
        self.pairs = run_notebooks.exercises(self.nb)
        self.snapshots: list[dict[str, Any]] = []
        namespace: dict[str, Any] = {"__name__": "__main__", "display": lambda *a, **k: None}
        with _in_notebooks():
            import matplotlib.pyplot as plt

            starts = {solution: k for k, (solution, _) in enumerate(self.pairs)}
            for i, cell in enumerate(self.nb.cells):
                if cell.cell_type != "code":
                    continue
                if i in starts:
                    self.snapshots.append(dict(namespace))
                exec(_compile(cell.source, self.cell_name(i)), namespace)  # noqa: S102
                plt.close("all")

    def cell_name(self, i: int) -> str:
        return f"<{self.stem[:2]} cell {i}>"

    def solution(self, k: int) -> str:
        return self.nb.cells[self.pairs[k][0]].source

    def play(self, k: int, answer: str | None) -> Outcome:
        """Run ``answer`` (None: no answer cell at all) then exercise ``k``'s check."""
        render = checks_module().render
        solution, check = self.pairs[k]
        namespace = dict(self.snapshots[k])
        answer_error = None
        with _in_notebooks():
            import matplotlib.pyplot as plt

            if answer is not None:
                try:
                    exec(_compile(answer, self.cell_name(solution)), namespace)  # noqa: S102
                except Exception as err:  # the student's own cell failed; the check runs next
                    answer_error = err
            try:
                exec(_compile(self.nb.cells[check].source, self.cell_name(check)), namespace)  # noqa: S102
            except Exception as err:
                return Outcome(err, answer_error, render(str(err)))
            finally:
                plt.close("all")
        return Outcome(None, answer_error)


_NOTEBOOKS: dict[str, Notebook] = {}


def notebook(stem: str) -> Notebook:
    """The notebook ``stem``, run once per test session."""
    if stem not in _NOTEBOOKS:
        _NOTEBOOKS[stem] = Notebook(stem)
    return _NOTEBOOKS[stem]


def checks_module() -> Any:
    """``notebooks/checks.py`` as the notebooks import it (``import checks``)."""
    with _in_notebooks():
        import checks

    return checks
