"""Issue 27, item 2: ``minitorch.func`` calls the engine directly.

The transforms get their gradients as return values (``minitorch.core.grad``): no
``.grad`` is snapshotted, cleared, assigned or restored, and no Function's
``needs_input_grad`` is edited for the duration of a call.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

import minitorch.func as mf
import minitorch.ops as F
from minitorch import Variable

FUNC = Path(mf.__file__).parent
SOURCES = sorted(FUNC.glob("*.py"))


def _assigned_attributes(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            for sub in ast.walk(target):
                if isinstance(sub, ast.Attribute):
                    found.append((node.lineno, sub.attr))
    return found


def test_func_assigns_no_grad() -> None:
    offences = [
        f"{path.name}:{line}"
        for path in SOURCES
        for line, attr in _assigned_attributes(path)
        if attr == "grad"
    ]
    assert offences == []


def test_func_restores_nothing_in_a_finally_block() -> None:
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Try):
                restored = [
                    sub.attr
                    for stmt in node.finalbody
                    for sub in ast.walk(stmt)
                    if isinstance(sub, ast.Attribute) and sub.attr in ("grad", "needs_input_grad")
                ]
                assert restored == [], f"{path.name}:{node.lineno}"


def test_a_transform_leaves_every_grad_and_needs_input_grad_as_it_was() -> None:
    w = Variable(np.array([1.0, -2.0]), name="w")
    w.grad = Variable(np.array([10.0, 10.0]), requires_grad=False)
    before = w.grad
    h = F.tanh(w)
    needs = h.creator.needs_input_grad  # type: ignore[union-attr]
    g = mf.grad(lambda x: (F.sin(x * h)).sum())(np.array([0.5, 0.25]))
    assert w.grad is before and h.grad is None
    np.testing.assert_array_equal(w.grad.data, [10.0, 10.0])
    assert h.creator.needs_input_grad is needs  # type: ignore[union-attr]
    np.testing.assert_allclose(g.data, np.cos(np.array([0.5, 0.25]) * h.data) * h.data)
