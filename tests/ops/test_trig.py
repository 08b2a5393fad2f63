"""Op table for minitorch/ops/trig.py: tan, the inverse and hyperbolic functions, arctan2
and hypot (NumPy forward, gradcheck, second order, PyTorch 2.13, float32, broadcasting)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis.extra.numpy import broadcastable_shapes
from op_harness import OpCase, OpTableTests

import minitorch.ops as F
from minitorch import Variable
from minitorch.gradcheck import gradcheck


def torch_op(name):
    """``torch.<name>`` (looked up when called: torch is optional)."""

    def call(*xs):
        import torch

        return getattr(torch, name)(*xs)

    return call


def unary_rows(name, domain=(-2.0, 2.0), torch_name=None):
    """The two rows of a unary op: a matrix and a 0-d input."""
    fn, ref = getattr(F, name), getattr(np, name)
    torch_fn = torch_op(torch_name or name)
    return [
        OpCase(f"{name}(3,4)", fn, ref, ((3, 4),), domain, torch_fn=torch_fn),
        OpCase(f"{name}()", fn, ref, ((),), domain, torch_fn=torch_fn),
    ]


def binary_rows(name, domain=(-2.0, 2.0)):
    """The rows of a binary op: equal shapes, two broadcast pairs and a 0-d operand."""
    fn, ref, torch_fn = getattr(F, name), getattr(np, name), torch_op(name)
    pairs = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1), (1, 3)), ((), (3,))]
    return [OpCase(f"{name}{a}{b}", fn, ref, (a, b), domain, torch_fn=torch_fn) for a, b in pairs]


CASES = [
    *unary_rows("tan", (-1.2, 1.2)),
    *unary_rows("arcsin", (-0.9, 0.9)),
    *unary_rows("arccos", (-0.9, 0.9)),
    *unary_rows("arctan"),
    *unary_rows("sinh"),
    *unary_rows("cosh"),
    *unary_rows("arcsinh"),
    *unary_rows("arccosh", (1.2, 3.0)),
    *unary_rows("arctanh", (-0.9, 0.9)),
    *binary_rows("arctan2", (0.3, 2.0)),
    *binary_rows("hypot", (0.3, 2.0)),
]


class TestTrigTable(OpTableTests):
    cases = CASES


@pytest.mark.parametrize("op", [F.arctan2, F.hypot])
@settings(max_examples=8, deadline=None)
@given(shapes=broadcastable_shapes((2, 3), min_dims=0, max_dims=3, min_side=1, max_side=3))
def test_binary_gradient_has_each_operand_shape_for_any_broadcast(op, shapes):
    rng = np.random.default_rng(0)
    a = rng.uniform(0.5, 2.0, (2, 3))
    b = rng.uniform(0.5, 2.0, shapes)
    assert gradcheck(op, a, b)


@pytest.mark.parametrize("name", ["tan", "arcsin", "sinh", "arctan2", "hypot"])
def test_complex_input_is_refused_naming_the_op(name):
    z = np.array([1 + 1j, 0.5j])
    operands = (z,) if name not in ("arctan2", "hypot") else (z, np.ones(2))
    with pytest.raises(TypeError, match=rf"{name}: complex input \(dtype complex128\)"):
        getattr(F, name)(*operands)


def test_arcsin_gradient_is_exact_near_one():
    x = Variable(np.array([1 - 1e-12]))
    F.arcsin(x).backward()
    # 1/sqrt((1-x)(1+x)); 1 - x**2 would lose the digits of 1e-12 to rounding
    expected = 1 / np.sqrt(1e-12 * (2 - 1e-12))
    np.testing.assert_allclose(x.grad.data, [expected], rtol=1e-4)


def test_binary_shapes_that_do_not_broadcast_say_so():
    with pytest.raises(ValueError, match=r"hypot: shapes \(2,\) and \(3,\) do not broadcast"):
        F.hypot(Variable(np.ones(2)), Variable(np.ones(3)))
