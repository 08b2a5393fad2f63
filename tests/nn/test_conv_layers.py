"""Tests for minitorch/nn/conv.py, normalization.py and embedding.py (the layers), and the
digits CNN of examples/models.py.

The ops underneath are tested in tests/ops; here: parameters, shapes, settings passed
through, training/eval behaviour, errors naming the layer, and PyTorch's layers with
copied weights when PyTorch is installed.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.ops as F
from minitorch import Variable, nn

TOL = {"rtol": 1e-5, "atol": 1e-6}


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(5)


def conv2d_windows(x, W, b, stride, padding):
    """conv2d by sliding_window_view + einsum (independent of the im2col code)."""
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    windows = np.lib.stride_tricks.sliding_window_view(xp, W.shape[2:], axis=(2, 3))
    windows = windows[:, :, ::stride, ::stride]
    return np.einsum("nchwij,ocij->nohw", windows, W) + b.reshape(1, -1, 1, 1)


# -- Conv2d ---------------------------------------------------------------------------------
def test_conv2d_parameters_and_forward(rng):
    layer = nn.Conv2d(3, 4, 3, stride=2, padding=1, rng=0, dtype=np.float64)
    assert [(n, p.shape) for n, p in layer.named_parameters()] == [
        ("W", (4, 3, 3, 3)),
        ("b", (4,)),
    ]
    layer.b.data = rng.standard_normal(4)  # type: ignore[union-attr]
    x = rng.standard_normal((2, 3, 7, 6))
    y = layer(x)
    assert y.shape == (2, 4, 4, 3)
    np.testing.assert_allclose(y.data, conv2d_windows(x, layer.W.data, layer.b.data, 2, 1), **TOL)  # type: ignore[union-attr]


def test_conv2d_he_initialisation_and_dtype():
    layer = nn.Conv2d(8, 64, 3, rng=1)
    assert layer.W.dtype == np.float32
    np.testing.assert_allclose(layer.W.data.std(), np.sqrt(2 / (8 * 9)), rtol=0.1)
    assert np.all(layer.b.data == 0)  # type: ignore[union-attr]


def test_conv2d_lazy_in_channels_and_no_bias():
    layer = nn.Conv2d(None, 2, (2, 3), bias=False, rng=0)
    assert layer.W.data is None and layer.b is None
    y = layer(np.ones((1, 5, 4, 4), dtype=np.float32))
    assert layer.W.shape == (2, 5, 2, 3) and y.shape == (1, 2, 3, 2)
    assert [n for n, _ in layer.named_parameters()] == ["W"]


def test_conv2d_gradients_reach_parameters(rng):
    layer = nn.Conv2d(2, 3, 3, padding=1, rng=0)
    layer(rng.standard_normal((2, 2, 4, 4)).astype(np.float32)).sum().backward()
    assert layer.W.grad is not None and layer.W.grad.shape == layer.W.shape
    assert layer.b is not None and layer.b.grad is not None
    np.testing.assert_allclose(layer.b.grad.data, np.full(3, 2 * 16.0))  # sum over N, H, W


@pytest.mark.parametrize(
    "layer,x_shape,match",
    [
        (
            nn.Conv2d(3, 4, 3),
            (2, 2, 5, 5),
            r"Conv2d: expected input of shape \(N, 3, H, W\), got \(2, 2, 5, 5\)",
        ),
        (nn.Conv2d(3, 4, 3), (3, 5, 5), r"Conv2d: .*got \(3, 5, 5\)"),
        (nn.Conv2d(1, 4, 5), (1, 1, 3, 3), r"conv2d: .*\(1, 1, 3, 3\).*smaller"),
        (
            nn.ConvTranspose2d(2, 1, 2),
            (1, 3, 4, 4),
            r"ConvTranspose2d: .*\(N, 2, H, W\).*\(1, 3, 4, 4\)",
        ),
        (nn.MaxPool2d(2), (4, 4), r"MaxPool2d: .*got \(4, 4\)"),
        (nn.AvgPool2d(2), (1, 4, 4), r"AvgPool2d: .*got \(1, 4, 4\)"),
        (nn.Flatten(2, 5), (2, 3, 4), r"Flatten: start_dim=2, end_dim=5 .*\(2, 3, 4\)"),
    ],
    ids=["conv-channels", "conv-rank", "conv-small", "transpose", "maxpool", "avgpool", "flatten"],
)
def test_bad_input_shapes_name_the_layer(layer, x_shape, match):
    with pytest.raises(ValueError, match=match):
        layer(np.zeros(x_shape, dtype=np.float32))


def test_bad_layer_settings_raise():
    with pytest.raises(ValueError, match="Conv2d: out_channels must be positive, got 0"):
        nn.Conv2d(3, 0, 3)
    with pytest.raises(TypeError, match="Conv2d: kernel_size"):
        nn.Conv2d(3, 4, 2.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="ConvTranspose2d: kernel_size must be positive"):
        nn.ConvTranspose2d(3, 4, 0)


# -- ConvTranspose2d, pooling, Flatten --------------------------------------------------------
def test_conv_transpose2d_layer_inverts_shapes_of_a_strided_conv():
    down = nn.Conv2d(1, 4, 3, stride=2, padding=1, rng=0)
    up = nn.ConvTranspose2d(4, 1, 3, stride=2, padding=1, output_padding=1, rng=0)
    x = np.zeros((2, 1, 8, 8), dtype=np.float32)
    assert down(x).shape == (2, 4, 4, 4)
    assert up(down(x)).shape == x.shape
    assert [(n, p.shape) for n, p in up.named_parameters()] == [
        ("W", (4, 1, 3, 3)),
        ("b", (1,)),
    ]


def test_pooling_layers_and_flatten(rng):
    x = rng.standard_normal((2, 3, 6, 6))
    np.testing.assert_array_equal(
        nn.MaxPool2d(3, stride=3)(x).data, x.reshape(2, 3, 2, 3, 2, 3).max(axis=(3, 5))
    )
    np.testing.assert_allclose(
        nn.AvgPool2d(2)(x).data, x.reshape(2, 3, 3, 2, 3, 2).mean(axis=(3, 5)), **TOL
    )
    assert nn.Flatten()(x).shape == (2, 108)
    assert nn.Flatten(0, 1)(x).shape == (6, 6, 6)
    assert nn.Flatten(-2)(x).shape == (2, 3, 36)
    assert list(nn.MaxPool2d(2).parameters()) == []


# -- BatchNorm, LayerNorm ---------------------------------------------------------------------
def test_batch_norm2d_trains_on_batch_stats_and_evaluates_on_running_stats(rng):
    bn = nn.BatchNorm2d(3, momentum=0.5, dtype=np.float64)
    x = rng.standard_normal((4, 3, 2, 2)) * 2 + 3
    y = bn(x)
    per_channel = x.transpose(1, 0, 2, 3).reshape(3, -1)
    np.testing.assert_allclose(y.data.mean(axis=(0, 2, 3)), 0.0, atol=1e-12)
    np.testing.assert_allclose(bn.running_mean, 0.5 * per_channel.mean(axis=1), **TOL)
    np.testing.assert_allclose(bn.running_var, 0.5 + 0.5 * per_channel.var(axis=1, ddof=1), **TOL)
    running = bn.running_mean.copy(), bn.running_var.copy()
    bn.eval()
    y_eval = bn(x)
    expected = (x - running[0].reshape(1, 3, 1, 1)) / np.sqrt(
        running[1].reshape(1, 3, 1, 1) + 1e-5
    )
    np.testing.assert_allclose(y_eval.data, expected, **TOL)
    np.testing.assert_array_equal(bn.running_mean, running[0])  # eval leaves them alone


def test_batch_norm_follows_test_mode_and_saves_buffers(rng, tmp_path):
    bn = nn.BatchNorm1d(2)
    x = rng.standard_normal((5, 2)).astype(np.float32)
    with minitorch.test_mode():
        bn(x)
    np.testing.assert_array_equal(bn.running_mean, np.zeros(2))
    bn(x)
    assert not np.allclose(bn.running_mean, 0.0)
    assert sorted(bn.state_dict()) == [  # PyTorch's keys
        "bias",
        "num_batches_tracked",
        "running_mean",
        "running_var",
        "weight",
    ]
    assert int(bn.num_batches_tracked) == 1  # the test_mode() call is not counted
    bn.save_weights(tmp_path / "bn.npz")
    fresh = nn.BatchNorm1d(2)
    fresh.load_weights(tmp_path / "bn.npz")
    np.testing.assert_array_equal(fresh.running_mean, bn.running_mean)


def test_generic_batch_norm_is_lazy_and_accepts_any_rank(rng):
    bn = nn.BatchNorm()
    assert bn(rng.standard_normal((4, 3, 5)).astype(np.float32)).shape == (4, 3, 5)
    assert bn.num_features == 3 and bn.weight is not None and bn.weight.shape == (3,)
    assert bn(rng.standard_normal((4, 3, 2, 2)).astype(np.float32)).shape == (4, 3, 2, 2)


@pytest.mark.parametrize(
    "layer,x_shape,match",
    [
        (
            nn.BatchNorm2d(3),
            (4, 3, 5),
            r"BatchNorm2d: expected input \(N, 3, \*, \*\), got \(4, 3, 5\)",
        ),
        (
            nn.BatchNorm1d(3),
            (4, 2),
            r"BatchNorm1d: expected input \(N, 3\) or \(N, 3, \*\), got \(4, 2\)",
        ),
        (nn.BatchNorm(3), (4, 5, 2), r"BatchNorm: .*got \(4, 5, 2\)"),
        (nn.LayerNorm((3, 4)), (2, 4, 3), r"layer_norm: x has shape \(4, 3\).*\(3, 4\)"),
    ],
    ids=["bn2d", "bn1d", "bn", "ln"],
)
def test_normalization_layers_reject_bad_shapes(layer, x_shape, match):
    with pytest.raises(ValueError, match=match):
        layer(np.zeros(x_shape, dtype=np.float32))


def test_layer_norm_layer_normalises_each_sample(rng):
    ln = nn.LayerNorm(6, dtype=np.float64)
    x = rng.standard_normal((3, 4, 6)) * 5
    y = ln(x).data
    np.testing.assert_allclose(y.mean(axis=-1), 0.0, atol=1e-12)
    np.testing.assert_allclose(y.var(axis=-1), 1.0, rtol=1e-3)
    assert [n for n, _ in ln.named_parameters()] == ["weight", "bias"]


# -- Embedding --------------------------------------------------------------------------------
def test_embedding_layer_looks_up_rows_and_accumulates(rng):
    emb = nn.Embedding(6, 3, rng=0)
    assert emb.W.shape == (6, 3) and emb.W.dtype == np.float32
    indices = np.array([[1, 5], [1, 1]])
    y = emb(indices)
    np.testing.assert_array_equal(y.data, emb.W.data[indices])
    y.sum().backward()
    assert emb.W.grad is not None
    np.testing.assert_array_equal(emb.W.grad.data[:, 0], [0, 3, 0, 0, 0, 1])
    with pytest.raises(ValueError, match=r"embedding: indices must lie in \[0, 6\)"):
        emb(np.array([6]))


# -- PyTorch with copied weights --------------------------------------------------------------
def test_layers_match_torch_with_copied_weights(rng):
    torch = pytest.importorskip("torch")
    x = rng.standard_normal((2, 3, 6, 6))
    conv, conv_t = (
        nn.Conv2d(3, 4, 3, padding=1, rng=0, dtype=np.float64),
        torch.nn.Conv2d(3, 4, 3, padding=1, dtype=torch.float64),
    )
    bn, bn_t = nn.BatchNorm2d(4, dtype=np.float64), torch.nn.BatchNorm2d(4, dtype=torch.float64)
    with torch.no_grad():
        conv_t.weight.copy_(torch.tensor(conv.W.data))
        conv_t.bias.copy_(torch.tensor(conv.b.data))  # type: ignore[union-attr]
    ours = nn.Sequential(conv, bn, nn.ReLU(), nn.MaxPool2d(2), nn.Flatten())
    theirs = torch.nn.Sequential(
        conv_t, bn_t, torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten()
    )
    for _ in range(2):  # two training steps update the running statistics
        y, y_t = ours(x), theirs(torch.tensor(x))
        np.testing.assert_allclose(y.data, y_t.detach().numpy(), rtol=1e-9, atol=1e-10)
    (y * y).sum().backward()
    (y_t * y_t).sum().backward()
    np.testing.assert_allclose(conv.W.grad.data, conv_t.weight.grad.numpy(), rtol=1e-8, atol=1e-9)  # type: ignore[union-attr]
    np.testing.assert_allclose(bn.running_var, bn_t.running_var.numpy(), rtol=1e-12)
    ours.eval()
    theirs.eval()
    np.testing.assert_allclose(
        ours(x).data, theirs(torch.tensor(x)).detach().numpy(), rtol=1e-9, atol=1e-10
    )


# -- the digits CNN ---------------------------------------------------------------------------
@pytest.mark.slow
def test_digits_cnn_learns_digits():
    """10 epochs of the example (about 3 s): at least 97% test accuracy."""
    from examples.cnn_digits import train

    assert train(epochs=10, seed=0) >= 0.97


def test_cnn_model_builds_for_digits_and_mnist_sizes():
    from examples.models import CNN, digits_cnn

    minitorch.manual_seed(0)
    assert CNN()(np.zeros((2, 1, 28, 28), dtype=np.float32)).shape == (2, 10)
    model = digits_cnn(3)
    y = model(np.zeros((2, 1, 8, 8), dtype=np.float32))
    F.softmax_cross_entropy(y, np.array([1, 2])).backward()
    assert all(p.grad is not None for p in model.parameters())
    names = [n for n, _ in model.named_parameters()]
    assert names[:2] == ["features.0.W", "features.0.b"] and len(names) == 8
    assert isinstance(y, Variable)
