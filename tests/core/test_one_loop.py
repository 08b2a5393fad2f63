"""Issue 17: one backward loop for both paths, one gradient-copy rule, the on_step hook.

The same assertions run on the first-order path (``backward_array`` on ndarrays) and on
the ``create_graph`` path (differentiable ``backward`` on Variables), so the two cannot
drift apart again.
"""

from __future__ import annotations

import ast
import inspect
from typing import Any

import numpy as np
import pytest

import minitorch.ops as F
from minitorch import Function, Variable
from minitorch.core import backward as engine
from minitorch.core.backward import run_backward

PATHS = pytest.mark.parametrize("create_graph", [False, True], ids=["first_order", "create_graph"])


def _shares(a: Variable, b: Variable) -> bool:
    return a is b or np.shares_memory(a.data, b.data)


@PATHS
def test_a_plus_b_leaves_two_distinct_gradients(create_graph: bool) -> None:
    # Reported in issue 17: with create_graph=True, (a + b).sum().backward() left
    # a.grad is b.grad, breaking "no two Variables share one gradient".
    a, b = Variable(np.ones(3)), Variable(np.ones(3))
    (a + b).sum().backward(create_graph=create_graph)
    assert a.grad is not None and b.grad is not None
    assert not _shares(a.grad, b.grad)
    np.testing.assert_array_equal(a.grad.data, np.ones(3))
    np.testing.assert_array_equal(b.grad.data, np.ones(3))


@PATHS
def test_retained_and_leaf_gradients_share_nothing(create_graph: bool) -> None:
    a = Variable(np.ones((2, 3)))
    h = a.reshape(6)  # Reshape's gradient is a view of the gradient it receives
    y = h + h
    y.sum().backward(retain_grad=True, create_graph=create_graph)
    grads = [v.grad for v in (a, h, y)]
    assert all(g is not None for g in grads)
    for i, g in enumerate(grads):
        for other in grads[i + 1 :]:
            assert not _shares(g, other)  # type: ignore[arg-type]
        assert g.data.flags.writeable  # type: ignore[union-attr]


@PATHS
def test_gradients_can_be_edited_in_place_without_touching_another(create_graph: bool) -> None:
    a, b = Variable(np.ones(3)), Variable(np.ones(3))
    (a + b).sum().backward(create_graph=create_graph)
    a.grad.data *= 10.0  # type: ignore[union-attr]  # e.g. gradient clipping
    np.testing.assert_array_equal(b.grad.data, np.ones(3))  # type: ignore[union-attr]


def test_the_create_graph_copy_is_differentiable() -> None:
    # a and b receive the same gradient Variable gy * w; b's is the engine's copy of it.
    w = Variable(np.array(2.0))
    a, b = Variable(np.ones(3)), Variable(np.ones(3))
    (w * (a + b)).sum().backward(create_graph=True)
    assert a.grad is not None and b.grad is not None and not _shares(a.grad, b.grad)
    w.grad = None
    (a.grad * b.grad).sum().backward()  # d/dw sum(w * w) over 3 entries = 6 w
    assert w.grad is not None and float(w.grad.data) == pytest.approx(12.0)


@PATHS
def test_on_step_sees_every_function_in_engine_order(create_graph: bool) -> None:
    x = Variable(np.array(3.0), name="x")
    y = F.exp(x * x)
    seen: list[tuple[str, tuple[Any, ...], tuple[Any, ...]]] = []

    def on_step(func: Function, gys: tuple[Any, ...], gxs: tuple[Any, ...]) -> None:
        seen.append((type(func).__name__, gys, gxs))

    run_backward(y, create_graph=create_graph, on_step=on_step)
    assert [name for name, _, _ in seen] == ["Exp", "Mul"]
    kind = Variable if create_graph else (np.ndarray, np.generic)  # 0-d math gives scalars
    (_, gys_exp, gxs_exp), (_, gys_mul, gxs_mul) = seen
    assert all(isinstance(g, kind) for g in gys_exp + gxs_exp + gys_mul + gxs_mul)
    value = np.exp(9.0)
    assert float(np.asarray(getattr(gxs_exp[0], "data", gxs_exp[0]))) == pytest.approx(value)
    assert float(np.asarray(getattr(gys_mul[0], "data", gys_mul[0]))) == pytest.approx(value)
    assert x.grad is not None and float(x.grad.data) == pytest.approx(6.0 * value)


def test_on_step_gets_none_for_an_input_that_needs_no_gradient() -> None:
    x = Variable(np.ones(2))
    steps: list[tuple[Any, ...]] = []
    run_backward((x * 2.0).sum(), on_step=lambda f, gys, gxs: steps.append(gxs))
    assert steps[-1][1] is None  # Mul skips the constant's product


def test_the_engine_has_one_loop_over_ready_functions() -> None:
    tree = ast.parse(inspect.getsource(engine))
    loops = [
        (node.name, loop)
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        for loop in ast.walk(node)
        if isinstance(loop, ast.While)
    ]
    over_ready = [name for name, loop in loops if ast.unparse(loop.test) == "ready"]
    assert over_ready == ["backpropagate"]
    assert not hasattr(engine, "_run_first_order")


def test_the_loop_reads_on_one_screen() -> None:
    # Issue 27: pop, vjp, accumulate, count down in at most 40 code lines (no docstring,
    # comments or blank lines), with no branch on create_graph inside the loop.
    source = inspect.getsource(engine.backpropagate)
    tree = ast.parse(source).body[0]
    assert isinstance(tree, ast.FunctionDef)
    body = tree.body[1:]  # without the docstring
    lines = set()
    for stmt in body:
        for node in ast.walk(stmt):
            if hasattr(node, "lineno"):
                lines.update(range(node.lineno, node.end_lineno + 1))
    code = [
        line
        for i, line in enumerate(source.splitlines(), start=1)
        if i in lines and line.strip() and not line.strip().startswith("#")
    ]
    assert len(code) <= 40, "\n".join(code)
    loop = next(node for node in ast.walk(tree) if isinstance(node, ast.While))
    tests = [n.test for n in ast.walk(loop) if isinstance(n, (ast.If, ast.IfExp, ast.While))]
    assert not [t for t in tests if "create_graph" in ast.unparse(t)]


class OnlyBackward(Function):
    """y = x**3 with only a differentiable backward (the user contract)."""

    def forward(self, x: np.ndarray) -> np.ndarray:
        return x**3

    def backward(self, gy: Variable) -> Variable:
        (x,) = self.inputs
        return 3 * x * x * gy


class OnlyVjp(Function):
    """y = x**3 with the formula written once."""

    def forward(self, x: np.ndarray) -> np.ndarray:
        return x**3

    def vjp(self, xp: Any, xs: tuple[Any], y: Any, gy: Any) -> Any:
        (x,) = xs
        return 3 * x * x * gy


@pytest.mark.parametrize("cls", [OnlyBackward, OnlyVjp])
@PATHS
def test_user_functions_work_on_both_paths(cls: type[Function], create_graph: bool) -> None:
    x = Variable(np.array(2.0))
    cls()(x).backward(create_graph=create_graph)
    assert x.grad is not None and float(x.grad.data) == pytest.approx(12.0)
    assert isinstance(x.grad.creator, Function) == create_graph


def test_a_function_without_any_backward_names_itself() -> None:
    class NoBackward(Function):
        def forward(self, x: np.ndarray) -> np.ndarray:
            return x

    with pytest.raises(NotImplementedError, match="NoBackward.backward is not defined"):
        NoBackward()(Variable(np.ones(2))).sum().backward()
