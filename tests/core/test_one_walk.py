"""Issue 27, item 4: one graph walk, ``minitorch.core.graph.functions``.

Every walk over a recorded graph in the package uses it; only the engine's counting
pass (which counts edges rather than visiting nodes) walks on its own.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

import minitorch.ops as F
from minitorch import Variable
from minitorch.core.graph import functions

ROOT = Path(__file__).resolve().parents[2]
ALLOWED = {
    ("minitorch/core/graph.py", "functions"),
    ("minitorch/core/backward.py", "count_pending"),
    ("minitorch/core/graph.py", "count_between"),  # autograd.grad's counting pass
    ("minitorch/core/backward.py", "backpropagate"),  # the loop itself (counts down)
}


def _walks(path: Path) -> list[tuple[str, str]]:
    """The functions of ``path`` with a ``while`` loop that follows ``.creator`` links."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef):
            continue
        for loop in ast.walk(fn):
            if isinstance(loop, ast.While) and any(
                isinstance(n, ast.Attribute) and n.attr == "creator" for n in ast.walk(loop)
            ):
                found.append((str(path.relative_to(ROOT)), fn.name))
                break
    return found


def test_only_the_graph_walk_and_the_counting_pass_walk_the_graph() -> None:
    paths = [*sorted((ROOT / "minitorch").rglob("*.py")), ROOT / "tests/ops/op_harness.py"]
    paths.append(ROOT / "notebooks/checks.py")
    walks = {walk for path in paths for walk in _walks(path)}
    assert walks == ALLOWED


def test_functions_visits_each_function_once_outputs_first() -> None:
    x = Variable(np.array([1.0, 2.0]))
    h = F.exp(x)
    y = h * h + h  # h's creator is reached three times
    names = [type(f).__name__ for f in functions(y)]
    assert names == ["Add", "Mul", "Exp"]
    assert [type(f).__name__ for f in functions(y, h)] == ["Add", "Mul", "Exp"]
    assert list(functions(x)) == []


def test_functions_stops_where_asked() -> None:
    x = Variable(np.array(1.0))
    h = F.exp(x)
    y = F.sin(h)
    assert [type(f).__name__ for f in functions(y, stop=lambda v: v is h)] == ["Sin"]


def test_a_chain_of_a_hundred_thousand_ops_needs_no_recursion() -> None:
    y = Variable(np.array(0.0))
    for _ in range(100_000):
        y = y + 1.0
    assert sum(1 for _ in functions(y)) == 100_000
