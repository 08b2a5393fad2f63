"""Tests for minitorch/nn/recurrent.py: RNN and LSTM, and the sine example.

References: the recurrences written out in NumPy here, central differences, and
``torch.nn.RNN``/``torch.nn.LSTM`` with copied weights when PyTorch is installed.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch.ops as F
from minitorch import Variable, gradcheck, nn

TOL = {"rtol": 1e-10, "atol": 1e-12}


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(11)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


def rnn_loop(x, W_ih, b, W_hh):
    h = np.zeros((x.shape[0], W_hh.shape[0]))
    out = []
    for t in range(x.shape[1]):
        h = np.tanh(x[:, t] @ W_ih.T + b + h @ W_hh.T)
        out.append(h)
    return np.stack(out, axis=1)


def lstm_loop(x, W_ih, b, W_hh):
    size = W_hh.shape[1]
    h, c = np.zeros((x.shape[0], size)), np.zeros((x.shape[0], size))
    out = []
    for t in range(x.shape[1]):
        z = x[:, t] @ W_ih.T + b + h @ W_hh.T
        i, f, g, o = (z[:, k * size : (k + 1) * size] for k in range(4))
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        h = _sigmoid(o) * np.tanh(c)
        out.append(h)
    return np.stack(out, axis=1), c


def _weights(layer):
    return layer.x2h.W.data, layer.x2h.b.data, layer.h2h.W.data


@pytest.mark.parametrize("cls", [nn.RNN, nn.LSTM], ids=["rnn", "lstm"])
def test_parameters_and_shapes(cls):
    layer = cls(3, 5, rng=0)
    gates = 4 if cls is nn.LSTM else 1
    assert [(n, p.shape) for n, p in layer.named_parameters()] == [
        ("x2h.W", (gates * 5, 3)),
        ("x2h.b", (gates * 5,)),
        ("h2h.W", (gates * 5, 5)),
    ]
    assert layer(np.zeros((2, 3), dtype=np.float32)).shape == (2, 5)
    assert layer(np.zeros((2, 4, 3), dtype=np.float32)).shape == (2, 4, 5)
    assert layer.h is not None and layer.h.dtype == np.float32


def test_rnn_matches_the_recurrence(rng):
    layer = nn.RNN(3, 4, rng=0, dtype=np.float64)
    x = rng.standard_normal((2, 5, 3))
    np.testing.assert_allclose(layer(x).data, rnn_loop(x, *_weights(layer)), **TOL)


def test_lstm_matches_the_recurrence(rng):
    layer = nn.LSTM(3, 4, rng=0, dtype=np.float64)
    layer.x2h.b.data = rng.standard_normal(16)  # type: ignore[union-attr]
    x = rng.standard_normal((2, 5, 3))
    expected, c = lstm_loop(x, *_weights(layer))
    np.testing.assert_allclose(layer(x).data, expected, **TOL)
    assert layer.c is not None
    np.testing.assert_allclose(layer.c.data, c, **TOL)


@pytest.mark.parametrize("cls", [nn.RNN, nn.LSTM], ids=["rnn", "lstm"])
def test_state_is_carried_across_calls_until_reset(rng, cls):
    layer = cls(2, 3, rng=0, dtype=np.float64)
    x = rng.standard_normal((4, 6, 2))
    whole = layer(x).data
    layer.reset_state()
    pieces = [layer(x[:, :2]).data] + [layer(x[:, t]).data[:, None] for t in range(2, 6)]
    np.testing.assert_allclose(np.concatenate(pieces, axis=1), whole, **TOL)
    layer.reset_state()
    assert layer.h is None
    np.testing.assert_allclose(layer(x[:, 0]).data, whole[:, 0], **TOL)


@pytest.mark.parametrize("cls", [nn.RNN, nn.LSTM], ids=["rnn", "lstm"])
def test_gradcheck_through_time(rng, cls):
    layer = cls(2, 3, rng=0, dtype=np.float64)

    def f(x: Variable) -> Variable:
        layer.reset_state()
        return layer(x)

    assert gradcheck(f, rng.standard_normal((2, 4, 2)), atol=1e-5, rtol=1e-4)


def test_weight_gradients_by_finite_differences(rng):
    layer = nn.LSTM(2, 3, rng=0, dtype=np.float64)
    x, gy = rng.standard_normal((2, 3, 2)), rng.standard_normal((2, 3, 3))

    def loss() -> float:
        layer.reset_state()
        return float(np.sum(layer(x).data * gy))

    layer.reset_state()
    (layer(x) * gy).sum().backward()
    for param in layer.parameters():
        assert param.grad is not None
        for index in [(0,) * param.ndim, tuple(d - 1 for d in param.shape)]:
            saved = param.data[index]
            param.data[index] = saved + 1e-6
            plus = loss()
            param.data[index] = saved - 1e-6
            minus = loss()
            param.data[index] = saved
            assert param.grad.data[index] == pytest.approx((plus - minus) / 2e-6, rel=1e-4)


@pytest.mark.parametrize("cls", [nn.RNN, nn.LSTM], ids=["rnn", "lstm"])
def test_truncated_bptt_cuts_the_graph_but_keeps_the_state(rng, cls):
    layer = cls(1, 3, rng=0, dtype=np.float64)
    first = Variable(rng.standard_normal((2, 3, 1)))
    loss = layer(first).sum()
    loss.backward()
    loss.unchain_backward()
    assert layer.h is not None and layer.h.creator is None
    state = layer.h.data.copy()
    first.clear_grad()
    second = Variable(rng.standard_normal((2, 1)))
    y = layer(second)
    np.testing.assert_allclose(layer.h.data, y.data)
    y.sum().backward()
    assert first.grad is None and second.grad is not None  # the old chunk is out of reach
    layer.reset_state()
    layer(first)
    layer.unchain_state()
    assert layer.h is not None and layer.h.creator is None
    assert not np.allclose(state, 0.0)


@pytest.mark.parametrize(
    "layer,x_shape,match",
    [
        (nn.RNN(3, 4), (2, 5), r"RNN: expected input \(N, 3\) or \(N, T, 3\), got \(2, 5\)"),
        (nn.LSTM(3, 4), (2, 1, 1, 3), r"LSTM: expected input .*got \(2, 1, 1, 3\)"),
    ],
)
def test_bad_input_shapes_name_the_layer(layer, x_shape, match):
    with pytest.raises(ValueError, match=match):
        layer(np.zeros(x_shape, dtype=np.float32))


def test_batch_size_change_needs_reset_state():
    layer = nn.RNN(1, 2, rng=0)
    layer(np.zeros((3, 1), dtype=np.float32))
    with pytest.raises(ValueError, match="RNN: the hidden state has batch size 3.*reset_state"):
        layer(np.zeros((2, 1), dtype=np.float32))
    layer.reset_state()
    assert layer(np.zeros((2, 1), dtype=np.float32)).shape == (2, 2)


def test_bad_settings_raise():
    with pytest.raises(ValueError, match="RNN: nonlinearity"):
        nn.RNN(1, 2, nonlinearity="gelu")
    with pytest.raises(ValueError, match="LSTM: hidden_size must be positive"):
        nn.LSTM(1, 0)


def test_relu_rnn_and_lazy_input_size(rng):
    layer = nn.RNN(None, 3, nonlinearity="relu", rng=0, dtype=np.float64)
    x = rng.standard_normal((2, 4, 5))
    y = layer(x)
    assert layer.x2h.W.shape == (3, 5) and np.all(y.data >= 0)


@pytest.mark.parametrize("kind", ["rnn", "lstm"])
def test_matches_torch_with_copied_weights(rng, kind):
    torch = pytest.importorskip("torch")
    ours = (nn.RNN if kind == "rnn" else nn.LSTM)(3, 4, rng=0, dtype=np.float64)
    theirs = (torch.nn.RNN if kind == "rnn" else torch.nn.LSTM)(
        3, 4, batch_first=True, dtype=torch.float64
    )
    with torch.no_grad():
        theirs.weight_ih_l0.copy_(torch.tensor(ours.x2h.W.data))
        theirs.weight_hh_l0.copy_(torch.tensor(ours.h2h.W.data))
        theirs.bias_ih_l0.copy_(torch.tensor(ours.x2h.b.data))  # type: ignore[union-attr]
        theirs.bias_hh_l0.zero_()
    x = rng.standard_normal((2, 5, 3))
    x_t = torch.tensor(x, requires_grad=True)
    x_v = Variable(x.copy())
    y, (y_t, _) = ours(x_v), theirs(x_t)
    np.testing.assert_allclose(y.data, y_t.detach().numpy(), rtol=1e-10, atol=1e-12)
    gy = rng.standard_normal(y.shape)
    (y * gy).sum().backward()
    y_t.backward(torch.tensor(gy))
    pairs = [
        (x_v, x_t),
        (ours.x2h.W, theirs.weight_ih_l0),
        (ours.h2h.W, theirs.weight_hh_l0),
        (ours.x2h.b, theirs.bias_ih_l0),
    ]
    for v, t in pairs:
        assert v is not None and v.grad is not None
        np.testing.assert_allclose(v.grad.data, t.grad.numpy(), rtol=1e-9, atol=1e-11)


def test_sine_example_learns():
    """A short run of examples/rnn_sine.py (20 of its 60 epochs) fits the test cosine."""
    from examples.models import SineRNN
    from examples.rnn_sine import predict, train
    from minitorch.data import SineCurve

    test = SineCurve(train=False, num_samples=1000, sequence=True, cycles=1)
    x, t = np.asarray(test.data), np.asarray(test.label)
    untrained = float(np.mean((predict(SineRNN(50, "lstm", rng=0), x) - t) ** 2))
    y = predict(train("lstm", epochs=20), x)
    error = float(F.mean_squared_error(Variable(y[20:]), t[20:]).item())  # after a warm-up
    assert error < 0.005 and error < untrained / 50
