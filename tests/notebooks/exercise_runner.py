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
        from jupyter_client.manager import start_new_kernel

        self.manager, self.client = start_new_kernel(
            kernel_name="python3", cwd=str(cwd), startup_timeout=180
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
            if ename and i not in others and "raises-exception" not in cell.metadata.get(
                "tags", []
            ):
                problems.append(
                    f"{name}: cell {i} failed with the other exercises unsolved: "
                    f"{ename}: {evalue[:300]}"
                )
    finally:
        kernel.close()
    return problems
