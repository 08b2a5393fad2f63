"""viz.names: the names the stepper gives Variables a user did not name."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch.ops as F
from minitorch import Variable
from viz.graph import walk
from viz.names import MAX_EXPRESSION, derived_names, is_plain


def names_of(*outputs: Variable) -> dict[str, str]:
    """Each Variable's name, keyed by the Variable's own name where it has one."""
    graph = walk(list(outputs))
    names, _ = derived_names(graph)
    return {vn.id: names[vn.id] for vn in graph.variables}


def test_expressions_keep_the_parentheses_their_meaning_needs() -> None:
    a, b, c = (Variable(np.array(v), name=n) for v, n in [(1.0, "a"), (2.0, "b"), (3.0, "c")])
    expressions = [(a + b) * c, a / (b * c), a - (b - c), -(c + b), (a * b) ** c]
    shown = set(names_of(*[e.sum() for e in expressions]).values())  # the sums: y, y2, ...
    assert {"a+b", "(a+b)*c", "b*c", "a/(b*c)", "b-c", "a-(b-c)", "-(c+b)", "a*b"} <= shown
    assert "(a*b)**c" in shown


def test_the_output_is_y_or_loss_and_never_takes_a_users_name() -> None:
    x = Variable(np.array([[0.5, 1.0]]), name="x")
    assert names_of(F.tanh(x).sum())["v3"] == "y"
    loss = F.softmax_cross_entropy(x, np.array([1]))
    assert "loss" in names_of(loss).values()
    y = Variable(np.array(1.0), name="y")
    assert sorted(names_of(y * 2.0).values()) == ["2.0", "out", "y"]  # y2 reads as a y


def test_a_long_or_repeated_expression_is_named_by_its_function_and_count() -> None:
    x = Variable(np.array(0.5), name="x" * MAX_EXPRESSION)  # tanh(...) would be too long
    graph = walk([F.tanh(F.tanh(x)) * 2.0])
    names, counted = derived_names(graph)
    assert {names[i] for i in counted} == {"tanh1"}
    assert "tanh(tanh1)" in names.values()
    z = Variable(np.array(0.5), name="z")
    twice = names_of((z * z) + (z * z))  # two different nodes, one expression
    assert sorted(twice.values()) == ["mul2", "y", "z", "z*z"]
    assert len(set(twice.values())) == len(twice)


@pytest.mark.parametrize(
    "name, plain", [("x", True), ("layers.0.W", True), ("-1.5", True), ("x*2.0", False),
                    ("tanh(x)", False), ("-x", False)],
)  # fmt: skip
def test_is_plain(name: str, plain: bool) -> None:
    assert is_plain(name) is plain
