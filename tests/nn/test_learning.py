"""End to end: nn + optim + data learn real tasks (kept to seconds)."""

from __future__ import annotations

import pytest

import minitorch
import minitorch.ops as F
from minitorch import nn, optim
from minitorch.data import DataLoader, Digits, Spiral
from minitorch.history import History


def train(model, loader, opt, epochs: int, history: History | None = None) -> None:
    for epoch in range(1, epochs + 1):
        total = 0.0
        for x, t in loader:
            loss = F.softmax_cross_entropy(model(x), t)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.data) * len(t)
        if history is not None:
            history.log(epoch=epoch, loss=total / len(loader.dataset))


def evaluate(model, dataset) -> float:
    with minitorch.no_grad():
        return F.accuracy(model.eval()(dataset.data), dataset.label)


def test_spiral_mlp_reaches_95_percent_train_accuracy():
    # The DeZero step 48 setting: 2-10-3 sigmoid MLP, SGD lr=1.0, batch 30, 300 epochs.
    minitorch.manual_seed(0)
    spiral = Spiral()
    model = nn.MLP([2, 10, 3], "sigmoid")
    history = History()
    train(
        model, DataLoader(spiral, 30, seed=0), optim.SGD(model.parameters(), lr=1.0), 300, history
    )
    assert evaluate(model, spiral) >= 0.95
    assert history["loss"][-1] < 0.25 * history["loss"][0]


def test_mlp_on_digits_reaches_95_percent_held_out_accuracy():
    pytest.importorskip("sklearn")
    minitorch.manual_seed(0)
    train_set, test_set = Digits(train=True), Digits(train=False)
    model = nn.MLP([64, 64, 10], "relu")
    train(model, DataLoader(train_set, 32, seed=0), optim.Adam(model.parameters(), lr=3e-3), 15)
    assert evaluate(model, test_set) >= 0.95
