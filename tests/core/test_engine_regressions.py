"""Engine regressions found in review: gradient memory, dtypes, dropped outputs, no_grad."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch.ops as F
from minitorch import Function, Variable, no_grad


def test_leaf_grads_of_two_views_of_one_buffer_do_not_share_memory() -> None:
    a, b = Variable(np.zeros((2, 3))), Variable(np.zeros((2, 3)))
    (a.reshape(6) + b.reshape(6)).sum().backward()
    assert a.grad is not None and b.grad is not None
    assert not np.shares_memory(a.grad.data, b.grad.data)


def test_leaf_grads_are_writeable_even_from_broadcast_views() -> None:
    x = Variable(np.zeros(3))
    x.sum().backward()
    assert x.grad is not None
    x.grad.data[0] = 5.0  # gradient clipping and friends update grads in place
    np.testing.assert_array_equal(x.grad.data, [5.0, 1.0, 1.0])


def test_create_graph_gradient_keeps_the_float32_dtype() -> None:
    x = Variable(np.ones(2, dtype=np.float32))
    (x * np.array([2.0, 3.0])).sum().backward(create_graph=True)
    assert x.grad is not None and x.grad.dtype == np.float32
    first = Variable(np.ones(2, dtype=np.float32))
    (first * np.array([2.0, 3.0])).sum().backward()
    assert first.grad is not None and first.grad.dtype == np.float32


class Halves(Function):
    """Two outputs: the first and second half of a vector."""

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = len(x) // 2
        return x[:n].copy(), x[n:].copy()

    def backward_array(self, gy0: np.ndarray, gy1: np.ndarray) -> np.ndarray:
        return np.concatenate([gy0, gy1])

    def backward(self, gy0: Variable, gy1: Variable) -> Variable:
        return F.concatenate([gy0, gy1])


@pytest.mark.parametrize("create_graph", [False, True])
def test_a_freed_unused_output_gets_a_zero_gradient(create_graph: bool) -> None:
    x = Variable(np.arange(4.0))
    first, second = Halves()(x)
    del second
    (first * first).sum().backward(create_graph=create_graph)
    assert x.grad is not None
    np.testing.assert_array_equal(x.grad.data, [0.0, 2.0, 0.0, 0.0])


def test_results_computed_under_no_grad_are_constants() -> None:
    with no_grad():
        mask = F.relu(Variable(np.array([1, -1])))
    assert not mask.requires_grad
    x = Variable(np.array([2.0, 3.0]))
    (x * mask).sum().backward()  # no gradient is sent to the integer mask
    assert x.grad is not None
    np.testing.assert_array_equal(x.grad.data, [1.0, 0.0])


def test_backward_of_a_constant_result_sends_nothing() -> None:
    # Not an error (unlike PyTorch): repeated create_graph backward reaches constants once a
    # derivative no longer depends on x (d^3/dx^3 of x**2), and that must simply give None.
    x = Variable(np.ones(2))
    y = (Variable(np.ones(2), requires_grad=False) * 2).sum()
    y.backward()
    assert x.grad is None and y.grad is None
