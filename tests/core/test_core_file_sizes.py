"""Issue 27, item 1: the core's files are split by job and stay small.

``variable.py`` holds the Variable, ``function.py`` the recording; the refusals, the
operand rule and the diagnostics live beside them, and no file of the core grows past
what one reading takes.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[2] / "minitorch" / "core"
LIMITS = {"variable.py": 450, "function.py": 400}


@pytest.mark.parametrize("path", sorted(CORE.glob("*.py")), ids=lambda p: p.name)
def test_no_core_file_is_longer_than_its_limit(path: Path) -> None:
    n_lines = len(path.read_text(encoding="utf-8").splitlines())
    assert n_lines <= LIMITS.get(path.name, 500), f"{path.name} has {n_lines} lines"


def test_the_core_is_split_by_job() -> None:
    names = {p.name for p in CORE.glob("*.py")}
    assert {"variable.py", "function.py", "backward.py", "operands.py", "refusals.py"} <= names
    assert "diagnose.py" in names and "graph.py" in names


def test_what_no_caller_needs_is_gone() -> None:
    source = (CORE / "variable.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    methods = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert "set_creator" not in methods


def test_recording_has_no_per_arity_generation_cases() -> None:
    tree = ast.parse((CORE / "function.py").read_text(encoding="utf-8"))
    record = next(
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "_record"
    )
    assert "len(xs) ==" not in ast.unparse(record)
