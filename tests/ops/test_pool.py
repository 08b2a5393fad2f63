"""Tests for minitorch/ops/pool.py: max_pool2d and avg_pool2d.

References are NumPy loops over every window, written here; gradients are checked by
central differences and against ``torch.nn.functional`` when PyTorch is installed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from op_harness import via_backward

import minitorch.ops as F
from minitorch import Variable, gradcheck, gradgradcheck, no_grad
from minitorch.ops import pool, windows

FWD_TOL = {"rtol": 1e-12, "atol": 1e-12}
FD_TOL = {"atol": 1e-5, "rtol": 1e-4}


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(99)


def _pair(v: Any) -> tuple[int, int]:
    return (v, v) if isinstance(v, int) else tuple(v)


def pool_loop(x, kernel, stride, padding, reduce, fill):
    (kh, kw), (ph, pw) = _pair(kernel), _pair(padding)
    sh, sw = _pair(kernel if stride is None else stride)
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=fill)
    out_h, out_w = (xp.shape[2] - kh) // sh + 1, (xp.shape[3] - kw) // sw + 1
    y = np.empty(x.shape[:2] + (out_h, out_w))
    for n in range(x.shape[0]):
        for c in range(x.shape[1]):
            for i in range(out_h):
                for j in range(out_w):
                    y[n, c, i, j] = reduce(xp[n, c, i * sh : i * sh + kh, j * sw : j * sw + kw])
    return y


# name, x shape, kernel, stride, padding
CASES = [
    ("default_stride", (2, 3, 4, 6), 2, None, 0),
    ("overlapping", (2, 2, 5, 5), 3, 1, 0),
    ("stride2_leftover", (1, 2, 7, 6), 3, 2, 0),
    ("padding", (2, 1, 5, 4), 3, 2, 1),
    ("kernel_equals_input", (2, 3, 4, 4), 4, None, 0),
    ("rectangular", (1, 2, 5, 7), (2, 3), (1, 2), (1, 1)),
]
IDS = [c[0] for c in CASES]
OPS = [
    ("max_pool2d", F.max_pool2d, np.max, -np.inf),
    ("avg_pool2d", F.avg_pool2d, np.mean, 0.0),
]
OP_IDS = [o[0] for o in OPS]


@pytest.mark.parametrize("op_name,op,reduce,fill", OPS, ids=OP_IDS)
@pytest.mark.parametrize("name,shape,kernel,stride,padding", CASES, ids=IDS)
def test_forward_matches_loop(
    rng, op_name, op, reduce, fill, name, shape, kernel, stride, padding
):
    x = rng.standard_normal(shape)
    y = op(Variable(x), kernel, stride, padding)
    np.testing.assert_allclose(
        y.data, pool_loop(x, kernel, stride, padding, reduce, fill), **FWD_TOL
    )


@pytest.mark.parametrize("op_name,op,reduce,fill", OPS, ids=OP_IDS)
@pytest.mark.parametrize("name,shape,kernel,stride,padding", CASES, ids=IDS)
def test_gradcheck(rng, op_name, op, reduce, fill, name, shape, kernel, stride, padding):
    x = rng.standard_normal(shape)  # distinct values: no ties, so max is differentiable
    assert gradcheck(lambda v: op(v, kernel, stride, padding), x, **FD_TOL)


@pytest.mark.parametrize("op_name,op,reduce,fill", OPS, ids=OP_IDS)
def test_second_order(rng, op_name, op, reduce, fill):
    x = rng.standard_normal((1, 2, 5, 5))
    assert gradgradcheck(lambda v: op(v, 3, 2, 1), x, **FD_TOL)


@pytest.mark.parametrize("op_name,op,reduce,fill", OPS, ids=OP_IDS)
@pytest.mark.parametrize("name,shape,kernel,stride,padding", CASES, ids=IDS)
def test_backward_array_equals_backward(
    rng, monkeypatch, op_name, op, reduce, fill, name, shape, kernel, stride, padding
):
    x = rng.standard_normal(shape)
    gy = rng.standard_normal(op(x, kernel, stride, padding).shape)

    def grad() -> np.ndarray:
        v = Variable(x.copy())
        (op(v, kernel, stride, padding) * gy).sum().backward()
        assert v.grad is not None and v.grad.shape == x.shape
        return v.grad.data

    fast = grad()
    for cls in (pool.MaxPool2d, pool.MaxPool2dGrad, windows.Im2col):
        monkeypatch.setattr(cls, "backward_array", via_backward)
    np.testing.assert_allclose(fast, grad(), **FWD_TOL)


def test_max_pool_gradient_goes_to_the_maximum_only():
    x = Variable(np.array([[[[1.0, 5.0], [3.0, 2.0]]]]))
    F.max_pool2d(x, 2).backward()
    assert x.grad is not None
    np.testing.assert_array_equal(x.grad.data, [[[[0.0, 1.0], [0.0, 0.0]]]])


def test_max_pool_overlapping_windows_accumulate_at_a_shared_maximum():
    x = np.zeros((1, 1, 3, 3))
    x[0, 0, 1, 1] = 9.0  # the centre wins all four 2x2 windows
    v = Variable(x)
    F.max_pool2d(v, 2, stride=1).backward()
    assert v.grad is not None
    assert v.grad.data[0, 0, 1, 1] == 4.0 and v.grad.data.sum() == 4.0


def test_max_pool_padding_never_wins_over_negative_values():
    x = -np.ones((1, 1, 2, 2)) - np.arange(4.0).reshape(1, 1, 2, 2)
    y = F.max_pool2d(Variable(x), 3, stride=1, padding=1)
    np.testing.assert_array_equal(y.data, [[[[-1.0, -1.0], [-1.0, -1.0]]]])


def test_avg_pool_counts_padding_as_zero():
    y = F.avg_pool2d(Variable(np.ones((1, 1, 2, 2))), 3, stride=1, padding=1)
    np.testing.assert_allclose(y.data, np.full((1, 1, 2, 2), 4.0 / 9.0))


def test_pooling_is_dezeros_name_for_max_pool2d():
    assert F.pooling is F.max_pool2d


def test_pooling_keeps_float32_and_records_nothing_under_no_grad(rng):
    x = Variable(rng.standard_normal((2, 3, 4, 4)).astype(np.float32))
    for op in (F.max_pool2d, F.avg_pool2d):
        assert op(x, 2).dtype == np.float32
        with no_grad():
            assert op(x, 2).creator is None


@pytest.mark.parametrize("op", [F.max_pool2d, F.avg_pool2d], ids=["max", "avg"])
def test_bad_input_raises_naming_op_and_shapes(op):
    name = op.__name__
    with pytest.raises(ValueError, match=rf"{name}.*\(3, 4, 4\)"):
        op(np.zeros((3, 4, 4)), 2)
    with pytest.raises(ValueError, match=rf"{name}.*\(1, 1, 2, 2\).*smaller"):
        op(np.zeros((1, 1, 2, 2)), 3)
    with pytest.raises(ValueError, match=rf"{name}: padding \(2, 2\)"):
        op(np.zeros((1, 1, 8, 8)), 3, padding=2)
    with pytest.raises(TypeError, match=rf"{name}: kernel_size"):
        op(np.zeros((1, 1, 8, 8)), "3")  # type: ignore[arg-type]


@pytest.mark.parametrize("name,shape,kernel,stride,padding", CASES, ids=IDS)
def test_match_torch(rng, name, shape, kernel, stride, padding):
    torch = pytest.importorskip("torch")
    for ours, theirs in [
        (F.max_pool2d, torch.nn.functional.max_pool2d),
        (F.avg_pool2d, torch.nn.functional.avg_pool2d),
    ]:
        x = rng.standard_normal(shape)
        v, t = Variable(x.copy()), torch.tensor(x, requires_grad=True)
        y, y_t = ours(v, kernel, stride, padding), theirs(t, kernel, stride, padding)
        gy = rng.standard_normal(y.shape)
        (y * gy).sum().backward()
        y_t.backward(torch.tensor(gy))
        np.testing.assert_allclose(y.data, y_t.detach().numpy(), **FWD_TOL)
        assert v.grad is not None and t.grad is not None
        np.testing.assert_allclose(v.grad.data, t.grad.numpy(), rtol=1e-10, atol=1e-12)


# Regression (commit f9ce3c8): a -1 reshape cannot infer an axis of an empty (N = 0) batch.
@pytest.mark.parametrize("fn", [F.max_pool2d, F.avg_pool2d], ids=["max_pool2d", "avg_pool2d"])
def test_pools_accept_an_empty_batch(fn):
    x = Variable(np.zeros((0, 1, 4, 4)))
    y = fn(x, 2)
    assert y.shape == (0, 1, 2, 2)
    y.backward()
    assert x.grad.shape == x.shape
