"""viz draws the tangent computation of a ``minitorch.func.jvp`` in its own colour."""

from __future__ import annotations

import re

import numpy as np

import minitorch.func as mf
import minitorch.ops as F
import viz
from minitorch import Variable
from viz import style


def _jvp_graph() -> tuple[Variable, Variable]:
    x, v = Variable(np.array(0.5), name="x"), Variable(np.array(1.0), name="v")
    y, ty = mf.jvp(lambda a: F.sin(a) * a, (x,), (v,))
    y.name, ty.name = "y", "ty"
    return y, ty


def _node_line(dot: str, label: str) -> str:
    return next(line for line in dot.splitlines() if f"<B>{label}</B>" in line)


def _id(dot: str, label: str) -> str:
    return _node_line(dot, label).split()[0]


def test_tangent_ops_edges_and_seed_are_green() -> None:
    dot = viz.to_dot(list(_jvp_graph()))
    seed = _id(dot, "v")
    assert style.TANGENT_VAR in _node_line(dot, "v")
    assert style.TANGENT_OUTPUT in _node_line(dot, "ty")
    seed_edges = [line for line in dot.splitlines() if line.strip().startswith(f"{seed} ->")]
    assert len(seed_edges) == 2  # the product rule uses v twice: sin'(x) v, and v * sin(x)
    assert all(style.TANGENT_EDGE in line for line in seed_edges)
    # The rules' boxes: Mul, Mul, Mul, Add and the Cos of sin's rule.
    green_boxes = [ln for ln in dot.splitlines() if style.TANGENT_FUNC in ln]
    names = sorted(re.search(r"<B>(\w+)</B>", ln).group(1) for ln in green_boxes)
    assert names == ["Add", "Cos", "Mul", "Mul", "Mul"]


def test_primal_graph_keeps_its_colours() -> None:
    dot = viz.to_dot(list(_jvp_graph()))
    sin_line = next(ln for ln in dot.splitlines() if "<B>Sin</B>" in ln)
    assert style.TANGENT_FUNC not in sin_line
    y_line = _node_line(dot, "y")
    assert style.TANGENT_OUTPUT not in y_line and style.TANGENT_VAR not in y_line
    y_id = _id(dot, "y")
    into_y = [ln for ln in dot.splitlines() if ln.strip().endswith(f"-> {y_id}")]
    assert into_y and all(style.TANGENT_EDGE not in ln for ln in into_y)


def test_no_tangent_colours_without_forward_mode() -> None:
    x = Variable(np.array(0.5), name="x")
    dot = viz.to_dot(F.sin(x) * x)
    assert "#238b45" not in dot


def test_constants_of_a_rule_stay_dashed_constants() -> None:
    x, v = Variable(np.array(1.5), name="x"), Variable(np.array(1.0), name="v")
    _, ty = mf.jvp(F.square, (x,), (v,))  # the rule is 2 * x * tx: "2" is a constant
    dot = viz.to_dot(ty)
    constant = next(ln for ln in dot.splitlines() if "<B>2.0</B>" in ln)
    assert style.VAR_STYLE["constant"] in constant and style.TANGENT_VAR not in constant
