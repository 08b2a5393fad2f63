"""Op table for minitorch/ops/explog.py: log1p, expm1, exp2, log2, log10, logaddexp,
logaddexp2."""

from __future__ import annotations

import numpy as np
import pytest
from op_harness import OpTableTests
from test_trig import binary_rows, unary_rows

import minitorch.ops as F
from minitorch import Variable

CASES = [
    *unary_rows("log1p", (-0.5, 2.0)),
    *unary_rows("expm1"),
    *unary_rows("exp2"),
    *unary_rows("log2", (0.2, 3.0)),
    *unary_rows("log10", (0.2, 3.0)),
    *binary_rows("logaddexp"),
    *binary_rows("logaddexp2"),
]


class TestExpLogTable(OpTableTests):
    cases = CASES


def test_logaddexp_of_large_inputs_is_finite_with_softmax_gradients():
    x0, x1 = Variable(np.array([1000.0])), Variable(np.array([1000.0 + np.log(3.0)]))
    y = F.logaddexp(x0, x1)
    y.backward()
    np.testing.assert_allclose(y.data, 1000.0 + np.log(4.0), rtol=1e-15)
    np.testing.assert_allclose([x0.grad.data[0], x1.grad.data[0]], [0.25, 0.75], rtol=1e-12)


def test_log1p_and_expm1_keep_the_digits_of_tiny_inputs():
    x = Variable(np.array([1e-17]))
    assert F.log1p(x).data[0] == 1e-17 and F.expm1(x).data[0] == 1e-17


def test_float32_constants_do_not_promote():
    x = Variable(np.array([1.0, 2.0], dtype=np.float32))
    for op in (F.exp2, F.log2, F.log10):
        x.clear_grad()
        op(x).sum().backward()
        assert x.grad.dtype == np.float32


@pytest.mark.parametrize("name", ["log1p", "logaddexp"])
def test_complex_input_is_refused_naming_the_op(name):
    operands = (np.array([1j]),) if name == "log1p" else (np.array([1j]), np.ones(1))
    with pytest.raises(TypeError, match=rf"{name}: complex input"):
        getattr(F, name)(*operands)
