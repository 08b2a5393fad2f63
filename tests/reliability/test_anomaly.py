"""detect_anomaly(): the first NaN/inf is reported with the op and the user's line."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch.ops as F
from minitorch import Config, Variable, detect_anomaly


def three_layer_loss(x: np.ndarray, weights: list[Variable]) -> Variable:
    h = F.tanh(F.sum(x * weights[0], axis=1, keepdims=True))
    h = F.tanh(h * weights[1])
    scores = h * weights[2]
    planted = F.log(scores - scores)  # log(0): the planted bug, on this very line
    return F.sum(planted)


def make_weights() -> list[Variable]:
    rng = np.random.default_rng(0)
    return [Variable(rng.standard_normal(s)) for s in [(1, 3), (1, 1), (1, 1)]]


def test_forward_anomaly_names_the_function_and_the_users_line() -> None:
    x = np.random.default_rng(1).standard_normal((4, 3))
    with detect_anomaly(), pytest.raises(FloatingPointError) as info, np.errstate(all="ignore"):
        three_layer_loss(x, make_weights())
    message = str(info.value)
    assert "Log.forward" in message
    assert "test_anomaly.py" in message and "planted = F.log(scores - scores)" in message
    assert "positions" in message


def test_backward_anomaly_names_function_input_and_creation_line() -> None:
    x = Variable(np.array([0.0, 4.0]))
    with detect_anomaly(), np.errstate(all="ignore"):
        y = F.sum(F.sqrt(x))  # d sqrt / dx is inf at 0
        with pytest.raises(FloatingPointError) as info:
            y.backward()
    message = str(info.value)
    assert "Sqrt.backward" in message and "input 0" in message and "[[0]]" in message
    assert "y = F.sum(F.sqrt(x))" in message


def test_without_detect_anomaly_nan_flows_silently_like_numpy() -> None:
    assert not Config.detect_anomaly
    with np.errstate(all="ignore"):
        y = F.log(Variable(np.array([0.0])))
    assert np.isneginf(y.data).all()
    assert y.creator is not None and y.creator.created_at is None
