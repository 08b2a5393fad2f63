"""Tests for minitorch/ops/windows.py and conv.py: im2col, col2im, conv2d, conv_transpose2d.

References are direct NumPy loops over every output pixel, written here independently of
the im2col code under test; gradients are checked by central differences and, when
PyTorch 2.13 is installed, against ``torch.nn.functional``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from op_harness import via_backward

import minitorch.ops as F
from minitorch import Variable, gradcheck, gradgradcheck, no_grad
from minitorch.ops import conv, windows

FWD_TOL = {"rtol": 1e-10, "atol": 1e-12}
FD_TOL = {"atol": 1e-5, "rtol": 1e-4}
F32_TOL = {"rtol": 1e-5, "atol": 1e-5}


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(1234)


def _pair(v: Any) -> tuple[int, int]:
    return (v, v) if isinstance(v, int) else tuple(v)


def _pad(x: np.ndarray, padding: Any, value: float = 0.0) -> np.ndarray:
    ph, pw = _pair(padding)
    return np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=value)


# -- NumPy loop references -----------------------------------------------------------------
def conv2d_loop(x, W, b, stride, padding):
    (sh, sw), xp = _pair(stride), _pad(x, padding)
    n_img, _, height, width = xp.shape
    c_out, _, kh, kw = W.shape
    y = np.zeros((n_img, c_out, (height - kh) // sh + 1, (width - kw) // sw + 1))
    for n in range(n_img):
        for o in range(c_out):
            for i in range(y.shape[2]):
                for j in range(y.shape[3]):
                    window = xp[n, :, i * sh : i * sh + kh, j * sw : j * sw + kw]
                    y[n, o, i, j] = np.sum(window * W[o]) + (0.0 if b is None else b[o])
    return y


def conv_transpose2d_loop(x, W, b, stride, padding, output_padding=0):
    (sh, sw), (ph, pw), (oph, opw) = _pair(stride), _pair(padding), _pair(output_padding)
    n_img, c_in, height, width = x.shape
    c_out, kh, kw = W.shape[1:]
    full = np.zeros((n_img, c_out, (height - 1) * sh + kh + oph, (width - 1) * sw + kw + opw))
    for n in range(n_img):
        for c in range(c_in):
            for i in range(height):
                for j in range(width):
                    full[n, :, i * sh : i * sh + kh, j * sw : j * sw + kw] += x[n, c, i, j] * W[c]
    out_h, out_w = full.shape[2] - 2 * ph, full.shape[3] - 2 * pw
    y = full[:, :, ph : ph + out_h, pw : pw + out_w]
    return y if b is None else y + b.reshape(1, -1, 1, 1)


def im2col_loop(x, kernel, stride, padding):
    (kh, kw), (sh, sw), xp = _pair(kernel), _pair(stride), _pad(x, padding)
    out_h, out_w = (xp.shape[2] - kh) // sh + 1, (xp.shape[3] - kw) // sw + 1
    cols = []
    for i in range(out_h):
        for j in range(out_w):
            window = xp[:, :, i * sh : i * sh + kh, j * sw : j * sw + kw]
            cols.append(window.reshape(x.shape[0], -1))  # (c, ki, kj) order, as torch's unfold
    return np.stack(cols, axis=-1)


# -- geometry table: name, x shape, W shape (C_out, C_in, KH, KW), stride, padding ---------
CASES = [
    ("basic", (2, 3, 5, 5), (4, 3, 3, 3), 1, 0),
    ("padding", (2, 2, 4, 5), (3, 2, 3, 3), 1, 1),
    ("stride2_leftover", (1, 2, 6, 7), (2, 2, 3, 3), 2, 0),
    ("stride3_padding", (2, 1, 7, 8), (2, 1, 3, 2), 3, 1),
    ("kernel_equals_input", (2, 2, 4, 4), (3, 2, 4, 4), 1, 0),
    ("rectangular", (1, 2, 5, 6), (2, 2, 2, 3), (2, 1), (1, 0)),
    ("one_by_one", (2, 3, 3, 3), (2, 3, 1, 1), 1, 0),
]
IDS = [c[0] for c in CASES]


def _inputs(rng, x_shape, W_shape, bias=True):
    x = rng.standard_normal(x_shape)
    W = rng.standard_normal(W_shape)
    b = rng.standard_normal(W_shape[0]) if bias else None
    return x, W, b


def _transpose_weights(rng, W_shape):
    """A weight for conv_transpose2d: (C_in, C_out, KH, KW), C_in = the x channels."""
    c_out, c_in, kh, kw = W_shape
    return rng.standard_normal((c_in, c_out, kh, kw))


# -- forward -------------------------------------------------------------------------------
@pytest.mark.parametrize("name,x_shape,W_shape,stride,padding", CASES, ids=IDS)
def test_conv2d_forward_matches_loop(rng, name, x_shape, W_shape, stride, padding):
    x, W, b = _inputs(rng, x_shape, W_shape)
    y = F.conv2d(Variable(x), Variable(W), Variable(b), stride=stride, padding=padding)
    np.testing.assert_allclose(y.data, conv2d_loop(x, W, b, stride, padding), **FWD_TOL)


@pytest.mark.parametrize("name,x_shape,W_shape,stride,padding", CASES, ids=IDS)
def test_conv_transpose2d_forward_matches_loop(rng, name, x_shape, W_shape, stride, padding):
    x = rng.standard_normal(x_shape)
    W = _transpose_weights(rng, W_shape)
    b = rng.standard_normal(W.shape[1])
    y = F.conv_transpose2d(Variable(x), Variable(W), Variable(b), stride, padding)
    expected = conv_transpose2d_loop(x, W, b, stride, padding)
    np.testing.assert_allclose(y.data, expected, **FWD_TOL)


def test_conv_transpose2d_output_padding_matches_loop(rng):
    x, W = rng.standard_normal((2, 2, 3, 4)), rng.standard_normal((2, 3, 3, 3))
    y = F.conv_transpose2d(Variable(x), Variable(W), None, stride=2, padding=1, output_padding=1)
    assert y.shape == (2, 3, 6, 8)  # (3 - 1) * 2 - 2 + 3 + 1 = 6
    np.testing.assert_allclose(y.data, conv_transpose2d_loop(x, W, None, 2, 1, 1), **FWD_TOL)


def test_conv2d_output_size_formula():
    # H_out = floor((H + 2p - KH) / s) + 1 for a few hand-computed cases
    assert windows.conv_output_size(32, 3, 1, 1) == 32
    assert windows.conv_output_size(7, 3, 2, 0) == 3
    assert windows.conv_output_size(8, 3, 3, 1) == 3
    y = F.conv2d(Variable(np.zeros((1, 1, 7, 8))), np.zeros((1, 1, 3, 3)), stride=2)
    assert y.shape == (1, 1, 3, 3)


def test_conv2d_keeps_float32(rng):
    x = Variable(rng.standard_normal((2, 3, 5, 5)).astype(np.float32))
    W = Variable(rng.standard_normal((4, 3, 3, 3)).astype(np.float32))
    y = F.conv2d(x, W, padding=1)
    y.backward()
    assert y.dtype == np.float32 and x.grad is not None and W.grad is not None
    assert x.grad.dtype == np.float32 and W.grad.dtype == np.float32
    expected = conv2d_loop(x.data.astype(np.float64), W.data.astype(np.float64), None, 1, 1)
    np.testing.assert_allclose(y.data, expected, **F32_TOL)


# -- gradients -----------------------------------------------------------------------------
def _conv_fn(stride, padding) -> Callable[..., Variable]:
    return lambda x, W, b: F.conv2d(x, W, b, stride, padding)


def _transpose_fn(stride, padding) -> Callable[..., Variable]:
    return lambda x, W, b: F.conv_transpose2d(x, W, b, stride, padding)


@pytest.mark.parametrize("name,x_shape,W_shape,stride,padding", CASES, ids=IDS)
def test_conv2d_gradcheck(rng, name, x_shape, W_shape, stride, padding):
    x, W, b = _inputs(rng, x_shape, W_shape)
    assert gradcheck(_conv_fn(stride, padding), x, W, b, **FD_TOL)


@pytest.mark.parametrize("name,x_shape,W_shape,stride,padding", CASES, ids=IDS)
def test_conv_transpose2d_gradcheck(rng, name, x_shape, W_shape, stride, padding):
    x, W = rng.standard_normal(x_shape), _transpose_weights(rng, W_shape)
    b = rng.standard_normal(W.shape[1])
    assert gradcheck(_transpose_fn(stride, padding), x, W, b, **FD_TOL)


SECOND_ORDER = [
    ("basic", (1, 2, 4, 4), (2, 2, 2, 2), 1, 0),
    ("stride2_padding_leftover", (1, 1, 5, 4), (2, 1, 2, 3), 2, 1),
]


@pytest.mark.parametrize("name,x_shape,W_shape,stride,padding", SECOND_ORDER)
def test_conv2d_second_order(rng, name, x_shape, W_shape, stride, padding):
    x, W, b = _inputs(rng, x_shape, W_shape)
    assert gradgradcheck(_conv_fn(stride, padding), x, W, b, **FD_TOL)


@pytest.mark.parametrize("name,x_shape,W_shape,stride,padding", SECOND_ORDER)
def test_conv_transpose2d_second_order(rng, name, x_shape, W_shape, stride, padding):
    x, W = rng.standard_normal(x_shape), _transpose_weights(rng, W_shape)
    b = rng.standard_normal(W.shape[1])
    assert gradgradcheck(_transpose_fn(stride, padding), x, W, b, **FD_TOL)


def test_conv2d_grad_weight_second_order(rng):
    x, gy = rng.standard_normal((1, 2, 5, 4)), rng.standard_normal((1, 3, 2, 4))
    grad_w = lambda x, gy: conv.Conv2dGradW((2, 3), (2, 1), (0, 1))(x, gy)  # noqa: E731
    assert gradcheck(grad_w, x, gy, **FD_TOL)
    assert gradgradcheck(grad_w, x, gy, **FD_TOL)


CONV_FUNCTIONS = [
    windows.Im2col,
    windows.Col2im,
    conv.Conv2d,
    conv.ConvTranspose2d,
    conv.Conv2dGradW,
]


def _grads(f: Callable[..., Variable], *arrays: np.ndarray) -> list[np.ndarray]:
    variables = [Variable(a.copy()) for a in arrays]
    y = f(*variables)
    y.backward()
    assert all(v.grad is not None for v in variables)
    return [v.grad.data for v in variables]  # type: ignore[union-attr]


@pytest.mark.parametrize("name,x_shape,W_shape,stride,padding", CASES, ids=IDS)
def test_backward_array_equals_backward(rng, monkeypatch, name, x_shape, W_shape, stride, padding):
    x, W, b = _inputs(rng, x_shape, W_shape)
    Wt = _transpose_weights(rng, W_shape)
    cases = [
        (_conv_fn(stride, padding), (x, W, b)),
        (_transpose_fn(stride, padding), (x, Wt, rng.standard_normal(Wt.shape[1]))),
        (lambda v: F.im2col(v, W_shape[2:], stride, padding), (x,)),
    ]
    fast = [_grads(f, *arrays) for f, arrays in cases]
    for cls in CONV_FUNCTIONS:  # force the engine's fallback to the differentiable backward
        monkeypatch.setattr(cls, "backward_array", via_backward)
    slow = [_grads(f, *arrays) for f, arrays in cases]
    for grads_fast, grads_slow, (_, arrays) in zip(fast, slow, cases):
        for g_fast, g_slow, a in zip(grads_fast, grads_slow, arrays):
            assert g_fast.shape == a.shape
            np.testing.assert_allclose(g_fast, g_slow, **FWD_TOL)


def test_conv2d_without_bias_returns_two_gradients(rng):
    x, W = Variable(rng.standard_normal((1, 2, 4, 4))), Variable(rng.standard_normal((3, 2, 3, 3)))
    y = F.conv2d(x, W)
    y.backward()
    assert x.grad is not None and W.grad is not None
    assert x.grad.shape == x.shape and W.grad.shape == W.shape


def test_conv2d_with_constant_input_only_grads_weight(rng):
    W = Variable(rng.standard_normal((3, 2, 3, 3)))
    y = F.conv2d(rng.standard_normal((1, 2, 4, 4)), W)
    y.backward()
    assert W.grad is not None and W.grad.shape == W.shape


def test_conv2d_under_no_grad_records_nothing(rng):
    x, W = Variable(rng.standard_normal((1, 2, 4, 4))), Variable(rng.standard_normal((3, 2, 3, 3)))
    with no_grad():
        y = F.conv2d(x, W, padding=1)
    assert y.creator is None


# -- errors --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: F.conv2d(np.zeros((2, 3, 5)), np.zeros((4, 3, 3, 3))), r"conv2d.*\(2, 3, 5\)"),
        (
            lambda: F.conv2d(np.zeros((2, 3, 5, 5)), np.zeros((4, 2, 3, 3))),
            r"conv2d.*\(4, 2, 3, 3\)",
        ),
        (
            lambda: F.conv2d(np.zeros((1, 3, 5, 5)), np.zeros((4, 3, 3, 3)), np.zeros(3)),
            r"conv2d: bias.*\(4,\)",
        ),
        (lambda: F.conv2d(np.zeros((1, 1, 2, 2)), np.zeros((1, 1, 3, 3))), r"conv2d.*smaller"),
        (lambda: F.conv2d(np.zeros((1, 1, 4, 4)), np.zeros((1, 1, 3, 3)), stride=0), "stride"),
        (lambda: F.conv2d(np.zeros((1, 1, 4, 4)), np.zeros((1, 1, 3, 3)), padding=-1), "padding"),
        (
            lambda: F.conv_transpose2d(np.zeros((1, 2, 3, 3)), np.zeros((3, 2, 3, 3))),
            r"conv_transpose2d.*\(1, 2, 3, 3\).*\(3, 2, 3, 3\)",
        ),
        (
            lambda: F.conv_transpose2d(
                np.zeros((1, 2, 3, 3)), np.zeros((2, 1, 3, 3)), stride=2, output_padding=2
            ),
            "output_padding",
        ),
        (lambda: F.im2col(np.zeros((3, 4, 4)), 2), r"im2col.*\(3, 4, 4\)"),
        (lambda: F.col2im(np.zeros((1, 5, 4)), (3, 3), 2), r"col2im.*\(1, 5, 4\)"),
        (lambda: F.col2im(np.zeros((1, 4, 5)), (3, 3), 2), r"col2im.*5 windows"),
    ],
)
def test_bad_shapes_raise_value_error_naming_op_and_shapes(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_non_integer_stride_raises_type_error():
    with pytest.raises(TypeError, match="conv2d: stride"):
        F.conv2d(np.zeros((1, 1, 4, 4)), np.zeros((1, 1, 3, 3)), stride=1.5)  # type: ignore[arg-type]


# -- PyTorch cross-checks ------------------------------------------------------------------
@pytest.mark.parametrize("name,x_shape,W_shape,stride,padding", CASES, ids=IDS)
def test_conv2d_and_transpose_match_torch(rng, name, x_shape, W_shape, stride, padding):
    torch = pytest.importorskip("torch")
    x, W, b = _inputs(rng, x_shape, W_shape)
    Wt = _transpose_weights(rng, W_shape)
    pairs = [
        (F.conv2d, torch.nn.functional.conv2d, (x, W, b)),
        (F.conv_transpose2d, torch.nn.functional.conv_transpose2d, (x, Wt, b[: Wt.shape[1]])),
    ]
    for ours, theirs, arrays in pairs:
        variables = [Variable(a.copy()) for a in arrays]
        tensors = [torch.tensor(a, requires_grad=True) for a in arrays]
        y = ours(*variables, stride=stride, padding=padding)
        y_t = theirs(*tensors, stride=stride, padding=padding)
        gy = rng.standard_normal(y.shape)
        (y * gy).sum().backward()
        y_t.backward(torch.tensor(gy))
        np.testing.assert_allclose(y.data, y_t.detach().numpy(), **FWD_TOL)
        for v, t in zip(variables, tensors):
            np.testing.assert_allclose(v.grad.data, t.grad.numpy(), **FWD_TOL)  # type: ignore[union-attr]


# Regression (commit f9ce3c8): a -1 reshape cannot infer an axis of an empty batch.
def test_conv2d_weight_gradient_of_an_empty_batch_is_zero():
    W = Variable(np.ones((2, 1, 2, 2)))
    F.conv2d(np.zeros((0, 1, 3, 3)), W).sum().backward()
    np.testing.assert_array_equal(W.grad.data, np.zeros((2, 1, 2, 2)))


# Regression (commit f9ce3c8): "cannot reshape array of size 0 into shape (0,newaxis,...)":
# a -1 reshape cannot infer an axis of an empty (N = 0) batch.
@pytest.mark.parametrize(
    "fn",
    [
        lambda x: F.conv2d(x, np.ones((2, 1, 2, 2)), np.zeros(2), stride=1, padding=1),
        lambda x: F.conv_transpose2d(x, np.ones((1, 2, 2, 2)), None, stride=2),
    ],
    ids=["conv2d", "conv_transpose2d"],
)
def test_conv_ops_accept_an_empty_batch(fn):
    x = Variable(np.zeros((0, 1, 4, 4)))
    y = fn(x)
    assert y.shape == (0,) + fn(Variable(np.zeros((1, 1, 4, 4)))).shape[1:]
    y.backward()
    assert x.grad.shape == x.shape
