"""Run course notebooks cell by cell in a kernel, as a student (or nbgrader) would.

Shared by the notebook tests; not a test module itself.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

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


SOURCES = NOTEBOOKS / "src"
NOT_DONE = "not done yet"


class Kernel:
    """A fresh ``python3`` kernel started in ``notebooks/``, running one source at a time."""

    def __init__(self, cwd: Path = NOTEBOOKS) -> None:
        # Over Unix sockets: two workers starting kernels side by side can race for a
        # TCP port (scripts/kernels.py).
        self.manager, self.client = load_script("kernels").start_kernel(
            cwd=str(cwd), startup_timeout=180
        )

    def run(self, code: str, timeout: float = 300) -> tuple[str, str]:
        """Execute ``code``; return ``(ename, evalue)``, both ``""`` when it succeeded."""
        error: dict[str, str] = {}

        def hook(msg: dict) -> None:
            if msg["msg_type"] == "error":
                error.update(ename=msg["content"]["ename"], evalue=msg["content"]["evalue"])

        reply = self.client.execute_interactive(code, output_hook=hook, timeout=timeout)
        if reply["content"]["status"] == "error" and not error:
            error.update(ename=reply["content"]["ename"], evalue=reply["content"]["evalue"])
        return error.get("ename", ""), error.get("evalue", "")

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


def source_notebooks(first: str = "00", last: str = "99") -> list[Path]:
    """The percent-format sources ``notebooks/src/NN_*.py`` with ``first <= NN <= last``."""
    return [p for p in sorted(SOURCES.glob("[0-9]*.py")) if first <= p.name[:2] <= last]


def exercise_params(first: str = "00", last: str = "99") -> list[Any]:
    """One pytest param ``(source, k)`` per exercise ``k`` (0-based) of every source."""
    run_notebooks = load_script("run_notebooks")
    params = []
    for source in source_notebooks(first, last):
        nb = run_notebooks.build_notebook(source)
        for k in range(len(run_notebooks.exercises(nb))):
            params.append(pytest.param(source, k, id=f"{source.stem[:2]}-ex{k + 1}"))
    return params


def run_one_exercise(source: Path, k: int) -> list[str]:
    """Play a student who solved only exercise ``k`` of ``source``; return the problems.

    In a fresh kernel, as nbgrader's autograde runs a submission: every cell before the
    exercise runs with the *other* exercises left as their stubs (their cells and checks
    may fail; no other cell may). Then exercise ``k`` is played the way a student plays
    it: the untouched stub, whose check must say "not done yet"; the solution, whose check
    must pass, twice; the solution cell run again and the check a third time (a check
    must give the same verdict however often it runs). For the last exercise the rest of
    the notebook runs too.
    """
    run_notebooks, make_student = load_script("run_notebooks"), load_script("make_student")
    nb = run_notebooks.build_notebook(source)
    pairs = run_notebooks.exercises(nb)
    solution, check = pairs[k]
    others = {i for pair in pairs for i in pair} - {solution, check}
    name, problems = f"{source.stem[:2]} exercise {k + 1}", []
    last = k == len(pairs) - 1
    kernel = Kernel()
    try:
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "code" or (i > check and not last):
                continue
            if i == solution:
                ename, evalue = kernel.run(make_student.strip_source(cell.source))
                if ename not in ("", "NotImplementedError"):  # a stub in a def raises later
                    problems.append(f"{name}: the stub raised {ename}: {evalue[:300]}")
                ename, evalue = kernel.run(nb.cells[check].source)
                if NOT_DONE not in evalue:
                    problems.append(
                        f"{name}: with the untouched stub the check says {ename}: "
                        f"{evalue[:300]!r}, not 'this exercise is not done yet'"
                    )
                for step in ("solution", "check", "check again", "solution again", "check"):
                    code = cell.source if step.startswith("solution") else nb.cells[check].source
                    ename, evalue = kernel.run(code)
                    if ename:
                        problems.append(f"{name}: {step}: {ename}: {evalue[:500]}")
                        break
                continue
            if i == check:
                continue
            code = make_student.strip_source(cell.source) if i in others else cell.source
            ename, evalue = kernel.run(code)
            if (
                ename
                and i not in others
                and "raises-exception" not in cell.metadata.get("tags", [])
            ):
                problems.append(
                    f"{name}: cell {i} failed with the other exercises unsolved: "
                    f"{ename}: {evalue[:300]}"
                )
    finally:
        kernel.close()
    return problems


# Save and restore the kernel's user namespace around an exercise's solution, so that the
# cells after it see the exercise unsolved again (names the solution bound are unbound).
SAVE_NAMESPACE = "__graded_alone_saved__ = dict(globals())"
RESTORE_NAMESPACE = (
    "(lambda g, saved: (g.clear(), g.update(saved)))"
    "(globals(), globals()['__graded_alone_saved__'])"
)


def play_notebook(source: Path, cwd: Path = NOTEBOOKS) -> list[str]:
    """Play, in one kernel, a student who solves each exercise of ``source`` alone.

    The notebook runs top to bottom with every exercise as its stub (as nbgrader's
    autograde runs a submission where only one exercise is done), started in ``cwd`` (the
    student copy's folder, whose helper modules the notebook imports). At each exercise:
    the untouched stub, whose check must say "not done yet"; the solution, whose check
    must pass, twice; the solution cell run again and the check a third time (a check
    must give the same verdict however often it runs). Then the stub is restored (the
    namespace as it was before the solution, and the stub cell run again), so the cells
    after it run with that exercise unsolved, as they would for a student who solved only
    a later one; only the last exercise stays solved for the rest of the notebook. Every
    other cell must run without an error (unless tagged ``raises-exception``).

    One kernel per notebook keeps the cost linear in the course: each cell runs once, an
    exercise's cells and check a few times. What it cannot undo is a solution that
    mutated an object created before it (the stub restored rebinds names, not objects).

    Returns:
        The problems found, one line each (empty when every exercise is graded alone).
    """
    run_notebooks, make_student = load_script("run_notebooks"), load_script("make_student")
    nb = run_notebooks.build_notebook(source)
    pairs = run_notebooks.exercises(nb)
    checks = {check for _, check in pairs}
    problems: list[str] = []
    kernel = Kernel(cwd)
    try:
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "code" or i in checks:
                continue  # a check runs with its exercise
            exercise = next((k for k, (solution, _) in enumerate(pairs) if solution == i), None)
            if exercise is not None:
                problems += _play_exercise(kernel, nb, pairs, exercise, source.stem[:2],
                                           make_student.strip_source)  # fmt: skip
                continue
            ename, evalue = kernel.run(cell.source)
            if ename and "raises-exception" not in cell.metadata.get("tags", []):
                problems.append(
                    f"{source.stem[:2]} cell {i} failed with the other exercises "
                    f"unsolved: {ename}: {evalue[:300]}"
                )
    finally:
        kernel.close()
    return problems


def _play_exercise(
    kernel: Kernel,
    nb: Any,
    pairs: list[tuple[int, int]],
    k: int,
    number: str,
    strip_source: Any,
) -> list[str]:
    """Exercise ``k``: stub → "not done yet"; solution → passes (three checks); restore."""
    (solution, check), last = pairs[k], k == len(pairs) - 1
    name, problems = f"{number} exercise {k + 1}", []
    stub, answer, verdict = (
        strip_source(nb.cells[solution].source),
        nb.cells[solution].source,
        nb.cells[check].source,
    )
    ename, evalue = kernel.run(stub)
    if ename not in ("", "NotImplementedError"):  # a stub in a def raises later
        problems.append(f"{name}: the stub raised {ename}: {evalue[:300]}")
    ename, evalue = kernel.run(verdict)
    if NOT_DONE not in evalue:
        problems.append(
            f"{name}: with the untouched stub the check says {ename}: "
            f"{evalue[:300]!r}, not 'this exercise is not done yet'"
        )
    if not last:
        kernel.run(SAVE_NAMESPACE)
    for step in ("solution", "check", "check again", "solution again", "check"):
        ename, evalue = kernel.run(answer if step.startswith("solution") else verdict)
        if ename:
            problems.append(f"{name}: {step}: {ename}: {evalue[:500]}")
            break
    if not last:
        ename, evalue = kernel.run(RESTORE_NAMESPACE)
        assert not ename, f"{name}: restoring the namespace failed: {ename}: {evalue}"
        kernel.run(stub)
    return problems
