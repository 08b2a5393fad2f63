"""Op table for minitorch/ops/math.py: pow, exp, log, sin, cos, tanh, sqrt, square, abs."""

from __future__ import annotations

import numpy as np
from op_harness import OpCase, OpTableTests

import minitorch.ops as F
from minitorch import Variable


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
