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


def test_backward_of_a_no_grad_result_is_a_clear_error() -> None:
    # As in PyTorch: silently leaving a.grad as None would surprise the learner later.
    a = Variable(np.array(2.0))
    with no_grad():
        b = a * a
    with pytest.raises(RuntimeError, match="does not require a gradient.*no_grad"):
        b.backward()


def test_gradcheck_accepts_a_function_with_constant_output() -> None:
    from minitorch import gradgradcheck

    # d/dx (3x) = 3 is a constant: its own gradient is zero, not an error.
    assert gradgradcheck(lambda x: x * 3.0, np.array([1.0, 2.0]))


@pytest.mark.parametrize("data", [np.array(["a", "b"]), np.array([object()]), np.array([None])])
def test_non_numeric_arrays_are_refused_with_their_dtype(data: np.ndarray) -> None:
    with pytest.raises(TypeError, match=f"numeric.*{data.dtype}"):
        Variable(data)


def test_truth_value_follows_numpy() -> None:
    assert not Variable(np.array(0.0)) and Variable(np.array([2.0]))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(Variable(np.zeros(3)))


def test_messages_about_unnamed_variables_have_no_double_spaces() -> None:
    with pytest.raises(TypeError) as info:
        (Variable(np.array([1, 2])) * 2.0).sum().backward()
    with pytest.raises(RuntimeError) as none_info:
        _ = Variable(None).shape
    for message in (str(info.value), str(none_info.value)):
        assert "  " not in message


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name", ["w", None])
def test_a_grad_without_data_names_the_variable_and_clear_grad(
    create_graph: bool, name: str | None
) -> None:
    x = Variable(np.array([1.0, 2.0]), name=name)
    F.sum(x * x).backward()
    assert x.grad is not None
    x.grad.data = None  # type: ignore[assignment]
    with pytest.raises(ValueError) as info:  # was: "Variable holds no data", naming nobody
        F.sum(x * x).backward(create_graph=create_graph)
    message = str(info.value)
    who = "Variable 'w' of shape (2,)" if name else "a Variable of shape (2,)"
    assert message.startswith(f"backward(): {who} holds a .grad with no data")
    assert f"call {name or 'x'}.clear_grad()" in message
    assert x.grad is not None and x.grad.data is None  # nothing was half-updated
    x.clear_grad()
    F.sum(x * x).backward()
    np.testing.assert_array_equal(x.grad.data, [2.0, 4.0])
