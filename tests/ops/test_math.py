"""Op table for minitorch/ops/math.py: pow, exp, log, sin, cos, tanh (and TanhGrad, its
backward), sqrt, square, abs."""

from __future__ import annotations

import numpy as np
import pytest
from op_harness import OpCase, OpTableTests

import minitorch.ops as F
from minitorch import Function, Variable
from minitorch.ops.math import TanhGrad


def _unary(name, fn, ref, torch_name, domain=(-2.0, 2.0)):
    def torch_fn(x):
        import torch

        return getattr(torch, torch_name)(x)

    return [
        OpCase(f"{name}(3,4)", fn, ref, ((3, 4),), domain, torch_fn=torch_fn),
        OpCase(f"{name}()", fn, ref, ((),), domain, torch_fn=torch_fn),
    ]


CASES = [
    *_unary("exp", F.exp, np.exp, "exp"),
    *_unary("log", F.log, np.log, "log", (0.2, 3.0)),
    *_unary("sin", F.sin, np.sin, "sin"),
    *_unary("cos", F.cos, np.cos, "cos"),
    *_unary("tanh", F.tanh, np.tanh, "tanh"),
    *_unary("sqrt", F.sqrt, np.sqrt, "sqrt", (0.2, 3.0)),
    *_unary("square", F.square, np.square, "square"),
    *_unary("abs", F.abs, np.abs, "abs"),
    OpCase(  # tanh's backward, an op of its own: gy * (1 - y**2)
        "tanh_grad(3,4)",
        lambda y, gy: TanhGrad()(y, gy),
        lambda y, gy: gy * (1 - y**2),
        ((3, 4), (3, 4)),
        (-0.9, 0.9),
        torch_fn=lambda y, gy: __import__("torch").ops.aten.tanh_backward(gy, y),
    ),
    OpCase(
        "pow_var_exponent",
        F.pow,
        np.power,
        ((3, 4), (4,)),
        (0.5, 2.0),
        torch_fn=lambda x0, x1: x0**x1,
    ),
    OpCase(
        "pow_scalar_exponent",
        lambda x: F.pow(x, 3),
        lambda x: x**3,
        ((2, 3),),
        torch_fn=lambda x: x**3,
    ),
    OpCase(
        "rpow_scalar_base",
        lambda x: 2.0**x,
        lambda x: 2.0**x,
        ((3,),),
        torch_fn=lambda x: 2.0**x,
    ),
]


class TestMathTable(OpTableTests):
    cases = CASES


def test_abs_grad_at_zero_is_zero():
    x = Variable(np.array([-1.0, 0.0, 2.0]))
    F.abs(x).sum().backward()
    np.testing.assert_array_equal(x.grad.data, [-1.0, 0.0, 1.0])


# Regression, found in review: at a zero base the formulas gave 0 * inf = NaN; PyTorch gives 0.


def test_pow_to_the_zero_has_zero_gradient_at_zero_base():
    x = Variable(np.array([0.0, 2.0]))
    (x**0.0).sum().backward()
    np.testing.assert_array_equal(x.grad.data, [0.0, 0.0])  # was [nan, 0]


# Regression, found in review: at a zero base the formulas gave 0 * inf = NaN; PyTorch gives 0.
def test_pow_exponent_gradient_at_zero_base_is_zero():
    x0 = Variable(np.array([0.0, 0.0, 2.0]))
    x1 = Variable(np.array([2.0, 0.0, 3.0]))
    F.pow(x0, x1).sum().backward()
    np.testing.assert_allclose(x1.grad.data, [0.0, 0.0, 8.0 * np.log(2.0)])  # was nan, -inf
    np.testing.assert_allclose(x0.grad.data, [0.0, 0.0, 12.0])


# Regression, found in review: at a zero base the formulas gave 0 * inf = NaN; PyTorch gives 0.
def test_zero_to_a_variable_power_matches_torch():
    torch = pytest.importorskip("torch")
    x = Variable(np.array([0.5, 1.0, 2.0]))
    (0.0**x).sum().backward()
    tx = torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64, requires_grad=True)
    (0.0**tx).sum().backward()
    np.testing.assert_array_equal(x.grad.data, tx.grad.numpy())


# Regression, found in review: at a zero base the formulas gave 0 * inf = NaN; PyTorch gives 0.
@pytest.mark.parametrize("create_graph", [False, True])
def test_pow_zero_base_gradients_agree_on_both_paths(create_graph):
    x0 = Variable(np.array([[0.0], [3.0]]))  # broadcast against the exponent row
    x1 = Variable(np.array([0.0, 1.5, 2.0]))
    F.pow(x0, x1).sum().backward(create_graph=create_graph)
    assert np.isfinite(x0.grad.data).all() and np.isfinite(x1.grad.data).all()
    np.testing.assert_allclose(x0.grad.data[1], 0.0 + 1.5 * 3**0.5 + 2 * 3.0)


# Regression, found in review: at a zero base the formulas gave 0 * inf = NaN; PyTorch gives 0.
def test_pow_second_derivative_of_square_at_zero():
    x = Variable(np.array([0.0, 1.0]))
    y = (x**2.0).sum()
    y.backward(create_graph=True)
    gx = x.grad
    x.clear_grad()
    gx.sum().backward()
    np.testing.assert_allclose(x.grad.data, [2.0, 2.0])


# Regression, found in review: at a zero base the formulas gave 0 * inf = NaN; PyTorch gives 0.
def test_pow_integer_to_negative_power_names_the_problem_not_broadcasting():
    with pytest.raises(ValueError, match="Integers to negative integer powers") as info:
        Variable(np.array([2, 3])) ** -1
    assert "broadcast" not in str(info.value)


# Regression, found in review: at a zero base the formulas gave 0 * inf = NaN; PyTorch gives 0.
def test_pow_shapes_that_do_not_broadcast_still_say_so():
    with pytest.raises(ValueError, match=r"pow: shapes \(2,\) and \(3,\) do not broadcast"):
        F.pow(Variable(np.ones(2)), Variable(np.ones(3)))


# Regression (commit 46ed7ca): the 4th derivative of x**3 at 0 was NaN before the pow fix.
def test_fourth_derivative_of_a_cube_at_zero_is_zero_not_nan():
    x = Variable(np.array([0.0, 1.0]))
    current = x**3
    derivatives = []
    for _ in range(4):  # 3x^2, 6x, 6 (= 6 x**0), 0: the last was 6 * 0 * 0**-1 = NaN
        x.clear_grad()
        current.backward(create_graph=True)
        current = x.grad
        derivatives.append(current.data.copy())
    np.testing.assert_array_equal(derivatives, [[0.0, 3.0], [0.0, 6.0], [6.0, 6.0], [0.0, 0.0]])


def test_tanh_grad_rejects_mismatched_shapes_by_name():
    with pytest.raises(ValueError, match=r"TanhGrad: y has shape \(3,\) but gy has shape \(2,\)"):
        TanhGrad()(Variable(np.zeros(3)), Variable(np.zeros(2)))


def test_fourth_derivative_of_tanh_is_exact_and_builds_a_small_graph():
    # Issue 17 (T5): tanh's backward is one op, so repeated create_graph builds 33
    # Functions for d4/dx4 tanh (56 when the backward was y*y, 1 - ., gy * .).
    made = []
    real_call = Function.__call__

    def counting(self, *xs):
        made.append(type(self).__name__)
        return real_call(self, *xs)

    x = Variable(np.array(1.0))
    g = F.tanh(x)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Function, "__call__", counting)
        for _ in range(4):
            x.grad = None
            g.backward(create_graph=True)
            g = x.grad
    t = np.tanh(1.0)
    np.testing.assert_allclose(g.data, 8 * t * (1 - t**2) * (2 - 3 * t**2), rtol=1e-13)
    assert len(made) <= 33, sorted(made)
