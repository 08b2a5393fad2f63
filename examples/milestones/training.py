"""The two loops every classification milestone shares: mini-batch training and accuracy."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from tqdm import tqdm

import minitorch
import minitorch.ops as F
from minitorch import nn


def fit(
    model: nn.Module,
    optimizer: minitorch.optim.Optimizer,
    x: np.ndarray,
    t: np.ndarray,
    *,
    epochs: int,
    batch_size: int,
    rng: np.random.Generator,
    desc: str,
    progress: bool = True,
    after_backward: Callable[[], None] | None = None,
    augment: Callable[[np.ndarray, np.random.Generator], np.ndarray] | None = None,
) -> list[float]:
    """Train ``model`` on ``(x, t)`` with softmax cross-entropy; return the mean loss per epoch.

    Args:
        model: maps a batch ``x[idx]`` to logits ``(B, classes)``.
        optimizer: set up on ``model``'s parameters.
        x, t: inputs ``(N, ...)`` and int labels ``(N,)``.
        epochs, batch_size: the schedule; batches are reshuffled from ``rng`` every epoch.
        rng: the generator of the shuffles.
        desc: the progress bar's label.
        progress: show the bar.
        after_backward: called after each ``backward`` and before the step (e.g. to
            record gradient norms).
        augment: ``augment(batch, rng)`` returns a distorted copy of a batch of inputs.
    """
    model.train()
    losses = []
    for _ in tqdm(range(epochs), desc=desc, disable=not progress, leave=False):
        order = rng.permutation(len(x))
        total = 0.0
        for start in range(0, len(x), batch_size):
            idx = order[start : start + batch_size]
            batch = x[idx] if augment is None else augment(x[idx], rng)
            loss = F.softmax_cross_entropy(model(batch), t[idx])
            optimizer.zero_grad()
            loss.backward()
            if after_backward is not None:
                after_backward()
            optimizer.step()
            total += loss.item() * len(idx)
        losses.append(total / len(x))
    return losses


def accuracy(model: nn.Module, x: np.ndarray, t: np.ndarray, batch_size: int = 500) -> float:
    """The fraction of ``x`` that ``model`` (in eval mode, no graph) labels as ``t``."""
    model.eval()
    correct = 0
    with minitorch.no_grad():
        for start in range(0, len(x), batch_size):
            logits = model(x[start : start + batch_size]).data
            correct += int((logits.argmax(axis=1) == t[start : start + batch_size]).sum())
    model.train()
    return correct / len(x)
