"""Tests for minitorch/ops/normalization.py: batch_norm and layer_norm.

References are NumPy loops over channels / samples written here; gradients are checked
by central differences and against ``torch.nn.functional`` when PyTorch is installed.
"""

from __future__ import annotations

import numpy as np
import pytest
from op_harness import via_backward

import minitorch.ops as F
from minitorch import Variable, gradcheck, gradgradcheck, no_grad
from minitorch.ops.normalization import Standardize

FWD_TOL = {"rtol": 1e-10, "atol": 1e-12}
FD_TOL = {"atol": 1e-5, "rtol": 1e-4}


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(7)


def batch_norm_loop(x, weight, bias, eps):
    """Training-mode batch norm, one channel at a time; returns y, mean, unbiased var."""
    y = np.empty_like(x)
    means, variances = np.empty(x.shape[1]), np.empty(x.shape[1])
    for c in range(x.shape[1]):
        values = x[:, c]
        mu = values.sum() / values.size
        var = ((values - mu) ** 2).sum() / values.size
        y[:, c] = (values - mu) / np.sqrt(var + eps) * weight[c] + bias[c]
        means[c], variances[c] = mu, var * values.size / (values.size - 1)
    return y, means, variances


def layer_norm_loop(x, k, weight, bias, eps):
    """Layer norm over the last k axes, one sample (leading index) at a time."""
    lead = x.shape[: x.ndim - k]
    y = np.empty_like(x)
    for index in np.ndindex(*lead):
        values = x[index]
        mu = values.sum() / values.size
        var = ((values - mu) ** 2).sum() / values.size
        y[index] = (values - mu) / np.sqrt(var + eps) * weight + bias
    return y


BN_SHAPES = [(5, 3), (4, 3, 2, 2), (3, 2, 4)]
LN_CASES = [((4, 6), (6,)), ((2, 3, 4), (3, 4)), ((2, 2, 2, 3), (3,))]


@pytest.mark.parametrize("shape", BN_SHAPES, ids=str)
def test_batch_norm_training_matches_loop_and_updates_running_stats(rng, shape):
    x = rng.standard_normal(shape) * 3 + 1
    weight, bias = rng.standard_normal(shape[1]), rng.standard_normal(shape[1])
    running_mean, running_var = rng.standard_normal(shape[1]), rng.random(shape[1]) + 0.5
    old_mean, old_var = running_mean.copy(), running_var.copy()
    y = F.batch_norm(Variable(x), running_mean, running_var, weight, bias, True, 0.2, 1e-5)
    expected, batch_mean, batch_var = batch_norm_loop(x, weight, bias, 1e-5)
    np.testing.assert_allclose(y.data, expected, **FWD_TOL)
    np.testing.assert_allclose(running_mean, 0.8 * old_mean + 0.2 * batch_mean, **FWD_TOL)
    np.testing.assert_allclose(running_var, 0.8 * old_var + 0.2 * batch_var, **FWD_TOL)


@pytest.mark.parametrize("shape", BN_SHAPES, ids=str)
def test_batch_norm_eval_uses_running_stats_and_leaves_them(rng, shape):
    x = rng.standard_normal(shape)
    running_mean, running_var = rng.standard_normal(shape[1]), rng.random(shape[1]) + 0.5
    saved = running_mean.copy(), running_var.copy()
    weight, bias = rng.standard_normal(shape[1]), rng.standard_normal(shape[1])
    y = F.batch_norm(Variable(x), running_mean, running_var, weight, bias, training=False)
    expected = np.empty_like(x)
    for c in range(shape[1]):
        scale = weight[c] / np.sqrt(running_var[c] + 1e-5)
        expected[:, c] = (x[:, c] - running_mean[c]) * scale + bias[c]
    np.testing.assert_allclose(y.data, expected, **FWD_TOL)
    np.testing.assert_array_equal(running_mean, saved[0])
    np.testing.assert_array_equal(running_var, saved[1])


@pytest.mark.parametrize("x_shape,normalized_shape", LN_CASES, ids=str)
def test_layer_norm_matches_loop(rng, x_shape, normalized_shape):
    x = rng.standard_normal(x_shape) * 2 - 1
    weight, bias = rng.standard_normal(normalized_shape), rng.standard_normal(normalized_shape)
    y = F.layer_norm(Variable(x), normalized_shape, weight, bias)
    expected = layer_norm_loop(x, len(normalized_shape), weight, bias, 1e-5)
    np.testing.assert_allclose(y.data, expected, **FWD_TOL)


@pytest.mark.parametrize("shape", BN_SHAPES, ids=str)
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_gradcheck(rng, shape, training):
    x, weight, bias = (rng.standard_normal(s) for s in (shape, shape[1], shape[1]))
    stats = rng.standard_normal(shape[1]), rng.random(shape[1]) + 0.5

    def f(x: Variable, weight: Variable, bias: Variable) -> Variable:
        running = stats[0].copy(), stats[1].copy()
        return F.batch_norm(x, running[0], running[1], weight, bias, training)

    assert gradcheck(f, x, weight, bias, **FD_TOL)


@pytest.mark.parametrize("x_shape,normalized_shape", LN_CASES, ids=str)
def test_layer_norm_gradcheck(rng, x_shape, normalized_shape):
    x = rng.standard_normal(x_shape)
    weight, bias = rng.standard_normal(normalized_shape), rng.standard_normal(normalized_shape)
    f = lambda x, w, b: F.layer_norm(x, normalized_shape, w, b)  # noqa: E731
    assert gradcheck(f, x, weight, bias, **FD_TOL)


def test_second_order(rng):
    x = rng.standard_normal((4, 2, 2))
    weight, bias = rng.standard_normal(2), rng.standard_normal(2)
    bn = lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True)  # noqa: E731
    assert gradgradcheck(bn, x, weight, bias, **FD_TOL)
    assert gradgradcheck(lambda x: F.layer_norm(x, (2, 2)), x, **FD_TOL)


@pytest.mark.parametrize(
    "f,shape",
    [
        (lambda x: F.batch_norm(x, None, None, training=True), (4, 3, 2, 2)),
        (lambda x: F.batch_norm(x, None, None, training=True), (6, 2)),
        (lambda x: F.layer_norm(x, (2, 3)), (3, 2, 3)),
    ],
    ids=["bn2d", "bn1d", "ln"],
)
def test_backward_array_equals_backward(rng, monkeypatch, f, shape):
    x = rng.standard_normal(shape)
    gy = rng.standard_normal(shape)

    def grad() -> np.ndarray:
        v = Variable(x.copy())
        (f(v) * gy).sum().backward()
        assert v.grad is not None and v.grad.shape == x.shape
        return v.grad.data

    fast = grad()
    monkeypatch.setattr(Standardize, "backward_array", via_backward)
    np.testing.assert_allclose(fast, grad(), **FWD_TOL)


def test_batch_norm_gradient_of_a_sum_is_zero(rng):
    # sum of a standardised channel is constant, so its gradient vanishes (a closed form)
    x = Variable(rng.standard_normal((8, 3)))
    F.batch_norm(x, None, None, training=True).sum().backward()
    assert x.grad is not None
    np.testing.assert_allclose(x.grad.data, 0.0, atol=1e-12)


def test_running_stats_may_be_variables_and_keep_float32(rng):
    x = Variable(rng.standard_normal((6, 3)).astype(np.float32))
    running_mean, running_var = Variable(np.zeros(3, np.float32)), Variable(np.ones(3, np.float32))
    y = F.batch_norm(x, running_mean, running_var, training=True)
    assert y.dtype == np.float32 and running_mean.dtype == np.float32
    np.testing.assert_allclose(running_mean.data, 0.1 * x.data.mean(axis=0), rtol=1e-5)
    y_eval = F.batch_norm(x, running_mean, running_var, training=False)
    assert y_eval.dtype == np.float32
    with no_grad():
        assert F.layer_norm(x, 3).creator is None


@pytest.mark.parametrize(
    "call,error,match",
    [
        (lambda: F.batch_norm(np.zeros(3), None, None, training=True), ValueError, r"\(3,\)"),
        (
            lambda: F.batch_norm(np.zeros((4, 3)), np.zeros(2), np.ones(3)),
            ValueError,
            r"batch_norm: running_mean must have shape \(3,\).*\(4, 3\).*\(2,\)",
        ),
        (
            lambda: F.batch_norm(np.zeros((4, 3)), None, None, np.ones(4), training=True),
            ValueError,
            r"batch_norm: weight",
        ),
        (lambda: F.batch_norm(np.zeros((4, 3)), None, None), ValueError, "running_mean/var"),
        (
            lambda: F.batch_norm(np.zeros((1, 3)), None, None, training=True),
            ValueError,
            "more than 1 value per channel",
        ),
        (
            lambda: F.layer_norm(np.zeros((2, 3)), (4,)),
            ValueError,
            r"layer_norm: x has shape \(3,\) but normalized_shape is \(4,\)",
        ),
        (
            lambda: F.layer_norm(np.zeros((2, 3)), 3, np.ones(2)),
            ValueError,
            r"layer_norm: weight has shape \(2,\)",
        ),
    ],
)
def test_bad_shapes_raise(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("shape", BN_SHAPES, ids=str)
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_matches_torch(rng, shape, training):
    torch = pytest.importorskip("torch")
    arrays = [rng.standard_normal(s) for s in (shape, shape[1], shape[1])]
    stats = [rng.standard_normal(shape[1]), rng.random(shape[1]) + 0.5]
    stats_t = [torch.tensor(s.copy()) for s in stats]
    variables = [Variable(a.copy()) for a in arrays]
    tensors = [torch.tensor(a, requires_grad=True) for a in arrays]
    y = F.batch_norm(variables[0], *stats, *variables[1:], training=training, momentum=0.3)
    y_t = torch.nn.functional.batch_norm(
        tensors[0], *stats_t, *tensors[1:], training=training, momentum=0.3
    )
    gy = rng.standard_normal(shape)
    (y * gy).sum().backward()
    y_t.backward(torch.tensor(gy))
    np.testing.assert_allclose(y.data, y_t.detach().numpy(), rtol=1e-9, atol=1e-10)
    for ours, theirs in zip(stats, stats_t):
        np.testing.assert_allclose(ours, theirs.numpy(), rtol=1e-12)
    for v, t in zip(variables, tensors):
        np.testing.assert_allclose(v.grad.data, t.grad.numpy(), rtol=1e-9, atol=1e-10)  # type: ignore[union-attr]


def test_layer_norm_matches_torch(rng):
    torch = pytest.importorskip("torch")
    arrays = [rng.standard_normal(s) for s in ((3, 4, 5), (4, 5), (4, 5))]
    variables = [Variable(a.copy()) for a in arrays]
    tensors = [torch.tensor(a, requires_grad=True) for a in arrays]
    y = F.layer_norm(variables[0], (4, 5), *variables[1:])
    y_t = torch.nn.functional.layer_norm(tensors[0], (4, 5), *tensors[1:])
    gy = rng.standard_normal(y.shape)
    (y * gy).sum().backward()
    y_t.backward(torch.tensor(gy))
    np.testing.assert_allclose(y.data, y_t.detach().numpy(), rtol=1e-9, atol=1e-10)
    for v, t in zip(variables, tensors):
        np.testing.assert_allclose(v.grad.data, t.grad.numpy(), rtol=1e-9, atol=1e-10)  # type: ignore[union-attr]


def test_constant_channel_gives_zero_output_and_finite_gradients():
    # var = 0: eps keeps 1/sqrt(var + eps) finite, x_hat is exactly 0
    x = Variable(np.full((4, 2, 3), 7.0))
    y = F.batch_norm(x, None, None, np.array([2.0, 3.0]), np.array([0.5, -1.0]), training=True)
    np.testing.assert_allclose(y.data[:, 0], 0.5)
    np.testing.assert_allclose(y.data[:, 1], -1.0)
    (y * np.arange(24.0).reshape(4, 2, 3)).sum().backward()
    assert x.grad is not None and np.isfinite(x.grad.data).all()
    z = F.layer_norm(Variable(np.full((2, 5), -3.0)), 5)
    np.testing.assert_array_equal(z.data, 0.0)


# Regression (commit 9bba397): the running statistics were cast to uint8, so images came out as
# zeros.
def test_batch_norm_evaluation_of_integer_images_is_not_truncated():
    x = np.array([[10, 200], [30, 40]], dtype=np.uint8)
    mean, var = np.array([20.0, 100.0]), np.array([100.0, 4000.0])
    y = F.batch_norm(x, mean, var, eps=0.0)  # gave all zeros: stats were cast to uint8
    np.testing.assert_allclose(y.data, (x - mean) / np.sqrt(var))


# Regression (commit 9bba397): the running statistics were cast to uint8, so images came out as
# zeros.
def test_batch_norm_layer_in_eval_mode_matches_train_mode_statistics_for_integers():
    from minitorch.nn import BatchNorm1d

    x = np.array([[1, 50], [3, 70], [8, 90]], dtype=np.int64)
    bn = BatchNorm1d(2, momentum=1.0, dtype=np.float64)
    bn(x)  # training: running stats := batch stats (unbiased variance)
    y = bn.eval()(x)
    expected = (x - x.mean(axis=0)) / np.sqrt(x.var(axis=0, ddof=1) + 1e-5)
    np.testing.assert_allclose(y.data, expected)
