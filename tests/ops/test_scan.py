"""Op table for minitorch/ops/scan.py: prod, cumsum, cumprod, with zeros along the axis."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis.extra.numpy import array_shapes
from op_harness import OpCase, OpTableTests

import minitorch.ops as F
from minitorch import Variable
from minitorch.gradcheck import gradcheck, gradgradcheck


def _torch():
    import torch

    return torch


def with_zeros(shape, where):
    """Uniform values in [0.5, 2] with exact zeros at the flat positions ``where``."""

    def make(rng):
        x = rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
        x.reshape(-1)[list(where)] = 0.0
        return [x]

    return make


CASES = [
    OpCase("prod_all", F.prod, np.prod, ((3, 4),), (0.5, 1.5), torch_fn=lambda x: x.prod()),
    OpCase(
        "prod_axis1",
        lambda x: F.prod(x, axis=1),
        lambda x: np.prod(x, axis=1),
        ((3, 4),),
        torch_fn=lambda x: x.prod(1),
    ),
    OpCase(
        "prod_axes_keepdims",
        lambda x: F.prod(x, axis=(0, 2), keepdims=True),
        lambda x: np.prod(x, axis=(0, 2), keepdims=True),
        ((2, 3, 2),),
        torch_fn=lambda x: x.prod(2, keepdim=True).prod(0, keepdim=True),
    ),
    OpCase("prod_0d", F.prod, np.prod, ((),), torch_fn=lambda x: x.prod()),
    OpCase(  # row 0: one zero; row 1: two zeros; row 2: none
        "prod_zeros",
        lambda x: F.prod(x, axis=-1),
        lambda x: np.prod(x, axis=-1),
        make=with_zeros((3, 4), [1, 4, 6]),
        torch_fn=lambda x: x.prod(-1),
    ),
    OpCase(
        "cumsum_axis0",
        lambda x: F.cumsum(x, axis=0),
        lambda x: np.cumsum(x, axis=0),
        ((3, 4),),
        torch_fn=lambda x: x.cumsum(0),
    ),
    OpCase(
        "cumsum_flat",
        F.cumsum,
        np.cumsum,
        ((2, 3),),
        torch_fn=lambda x: x.flatten().cumsum(0),
    ),
    OpCase(
        "cumprod_axis_neg1",
        lambda x: F.cumprod(x, axis=-1),
        lambda x: np.cumprod(x, axis=-1),
        ((3, 4),),
        torch_fn=lambda x: x.cumprod(-1),
    ),
    OpCase(
        "cumprod_axis1_3d",
        lambda x: F.cumprod(x, axis=1),
        lambda x: np.cumprod(x, axis=1),
        ((2, 3, 2),),
        torch_fn=lambda x: x.cumprod(1),
    ),
    OpCase(
        "cumprod_zeros",
        lambda x: F.cumprod(x, axis=1),
        lambda x: np.cumprod(x, axis=1),
        make=with_zeros((3, 4), [1, 4, 6, 11]),
        torch_fn=lambda x: x.cumprod(1),
    ),
    OpCase(
        "cumprod_flat_zero_first",
        F.cumprod,
        np.cumprod,
        make=with_zeros((2, 2), [0]),
        torch_fn=lambda x: x.flatten().cumprod(0),
    ),
]


class TestScanTable(OpTableTests):
    cases = CASES


def test_prod_gradient_with_one_zero_is_the_product_of_the_others():
    x = Variable(np.array([[2.0, 0.0, 3.0], [0.0, 5.0, 0.0]]))
    F.prod(x, axis=1).sum().backward()
    # One zero: only that entry moves the product. Two zeros: nothing does.
    np.testing.assert_array_equal(x.grad.data, [[0.0, 6.0, 0.0], [0.0, 0.0, 0.0]])


def test_prod_second_derivative_with_two_zeros_is_not_zero():
    # d2 (x0 x1 x2) / dx0 dx1 = x2: non-zero even though every first derivative is 0.
    x = np.array([0.0, 0.0, 3.0])
    assert gradgradcheck(F.prod, x)


def test_cumprod_gradient_at_zeros_matches_torch():
    torch = pytest.importorskip("torch")
    data = np.array([[1.5, 0.0, 2.0, 0.0, -1.0], [0.0, 2.0, 3.0, 4.0, 5.0]])
    x = Variable(data.copy())
    w = np.arange(10.0).reshape(2, 5)
    (F.cumprod(x, axis=1) * w).sum().backward()
    t = torch.tensor(data, requires_grad=True)
    (t.cumprod(1) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.data, t.grad.numpy(), rtol=1e-12, atol=0)


def test_empty_axis():
    x = Variable(np.ones((2, 0)))
    assert F.prod(x, axis=1).data.tolist() == [1.0, 1.0]
    y = F.cumprod(x, axis=1)
    y.sum().backward()
    assert y.shape == (2, 0) and x.grad.shape == (2, 0)


def test_integer_dtypes_follow_numpy():
    x = np.array([1, 2, 3], dtype=np.int8)
    for op, ref in [(F.prod, np.prod), (F.cumsum, np.cumsum), (F.cumprod, np.cumprod)]:
        assert op(x).dtype == ref(x).dtype


def test_variable_methods():
    x = Variable(np.array([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_array_equal(x.prod(axis=0).data, [3.0, 8.0])
    np.testing.assert_array_equal(x.cumsum(axis=1).data, [[1.0, 3.0], [3.0, 7.0]])
    np.testing.assert_array_equal(x.cumprod().data, [1.0, 2.0, 6.0, 24.0])
    assert x.prod(keepdims=True).shape == (1, 1)


def test_bad_axis_names_the_op():
    with pytest.raises(ValueError, match="cumsum: axis 2 is out of range"):
        F.cumsum(np.ones((2, 3)), axis=2)
    with pytest.raises(TypeError, match="cumprod: axis must be None or an int"):
        F.cumprod(np.ones((2, 3)), axis=(0, 1))
    with pytest.raises(ValueError, match="cumprod: axis 0 is out of range for a 0-d"):
        F.cumprod(np.array(2.0), axis=0)
    with pytest.raises(TypeError, match="prod.*axis="):
        F.prod(np.ones(3), dim=0)


@pytest.mark.parametrize("op", [F.prod, F.cumsum, F.cumprod])
def test_complex_input_is_refused_naming_the_op(op):
    with pytest.raises(TypeError, match=rf"{op.__name__}: complex input"):
        op(np.array([1j, 2.0]))


@settings(max_examples=10, deadline=None)
@given(shape=array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
def test_scan_gradients_on_any_shape_and_axis(shape):
    rng = np.random.default_rng(1)
    x = rng.uniform(-1.5, 1.5, shape)
    x.reshape(-1)[0] = 0.0  # a zero on every shape
    axis = len(shape) - 1
    assert gradcheck(lambda v: F.cumprod(v, axis=axis), x)
    assert gradcheck(lambda v: F.prod(v, axis=0), x)
