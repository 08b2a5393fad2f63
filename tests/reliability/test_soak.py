"""Long runs stay healthy: no memory growth over thousands of steps, no deep recursion."""

from __future__ import annotations

import gc
import tracemalloc

import numpy as np

import minitorch.ops as F
from minitorch import Function, Variable, no_grad

# One leaked intermediate per step would be >= 2 KiB of array data (32 x 8 floats), i.e.
# > 3.8 MiB over 1,900 steps. The bound leaves room for CPython's own free lists (tuples,
# floats), which tracemalloc counts as allocated and which fill up over the first
# thousands of steps.
GROWTH_BOUND = 1024 * 1024


def live_graph_objects() -> int:
    gc.collect()
    return sum(isinstance(o, (Variable, Function)) for o in gc.get_objects())


def train_step(x: np.ndarray, t: np.ndarray, params: list[Variable], lr: float) -> float:
    W1, b1, W2, b2 = params
    h = F.tanh(F.sum(F.reshape(x, (-1, 2, 1)) * W1, axis=1) + b1)  # (N, 8)
    y = F.sum(F.reshape(h, (-1, 8, 1)) * W2, axis=1) + b2  # (N, 1)
    loss = F.mean(F.square(y - t))
    for p in params:
        p.clear_grad()
    loss.backward()
    with no_grad():
        for p in params:
            assert p.grad is not None
            p.data = p.data - lr * p.grad.data
    return float(loss.data)


def test_two_thousand_training_steps_do_not_grow_memory() -> None:
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (32, 2))
    t = np.sin(3 * x[:, :1]) * x[:, 1:]
    params = [
        Variable(rng.standard_normal((2, 8)) * 0.5),
        Variable(np.zeros(8)),
        Variable(rng.standard_normal((8, 1)) * 0.5),
        Variable(np.zeros(1)),
    ]
    tracemalloc.start()
    try:
        losses = []
        for step in range(1, 2001):
            losses.append(train_step(x, t, params, lr=0.1))
            if step == 100:
                at_100, _ = tracemalloc.get_traced_memory()
                objects_at_100 = live_graph_objects()
        at_2000, _ = tracemalloc.get_traced_memory()
        objects_at_2000 = live_graph_objects()
    finally:
        tracemalloc.stop()
    assert losses[-1] < losses[0]  # it really trained
    assert objects_at_2000 == objects_at_100  # no Variable or Function outlives its step
    assert at_2000 - at_100 < GROWTH_BOUND, f"grew by {(at_2000 - at_100) / 1024:.0f} KiB"


# The million-op chain (forward, backward and deletion without RecursionError) is
# tests/core/test_engine.py::test_chain_of_a_million_ops_needs_no_recursion.
