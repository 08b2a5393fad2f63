"""Regression tests for optimizer bugs found in review (each failed before its fix)."""

from __future__ import annotations

import numpy as np
import pytest

from minitorch import Variable
from minitorch.optim import SGD, ClipGrad, WeightDecay


def _sgd_trajectory_0d(steps: int) -> list[float]:
    b = Variable(np.array(1.0))
    opt = SGD([b], lr=0.1, momentum=0.9, weight_decay=0.1)
    values = []
    for _ in range(steps):
        opt.zero_grad()
        (b * b).backward()
        opt.step()
        values.append(float(b.data))
    return values


def test_sgd_momentum_with_weight_decay_updates_the_buffer_of_a_0d_parameter():
    # g = 2b + 0.1 b; buf = g, then 0.9 buf + g; b -= 0.1 buf (torch.optim.SGD by hand)
    b, buf, expected = 1.0, None, []
    for _ in range(3):
        g = 2.0 * b + 0.1 * b
        buf = g if buf is None else 0.9 * buf + g
        b -= 0.1 * buf
        expected.append(b)
    np.testing.assert_allclose(_sgd_trajectory_0d(3), expected, rtol=1e-12)


def test_sgd_momentum_buffer_of_a_0d_parameter_is_an_ndarray():
    b = Variable(np.array(1.0, dtype=np.float32))
    opt = SGD([b], lr=0.1, momentum=0.9, weight_decay=0.1)
    (b * b).backward()
    opt.step()
    buf = opt.state[0]["momentum_buffer"]
    assert isinstance(buf, np.ndarray) and buf.dtype == np.float32


def test_sgd_trajectory_of_a_0d_parameter_matches_torch():
    torch = pytest.importorskip("torch")
    tb = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.SGD([tb], lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1)
    b = Variable(np.array(1.0))
    mine = SGD([b], lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1)
    for _ in range(5):
        opt.zero_grad()
        (tb * tb).backward()
        opt.step()
        mine.zero_grad()
        (b * b).backward()
        mine.step()
        np.testing.assert_allclose(b.data, tb.item(), rtol=1e-12)


@pytest.mark.parametrize("hook", [WeightDecay(0.5), ClipGrad(0.1)], ids=repr)
def test_gradient_hooks_accept_0d_parameters(hook):
    p = Variable(np.array(2.0))
    p.grad = Variable(np.array(3.0))
    hook([p])
    assert isinstance(p.grad.data, np.ndarray) and p.grad.shape == ()
