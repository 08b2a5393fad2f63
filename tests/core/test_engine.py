"""The backward engine: fan-in, diamonds, deep chains, repeated calls, memory, errors."""

from __future__ import annotations

import gc
import sys
import weakref

import numpy as np
import pytest

import minitorch.ops as F
from minitorch import Function, Variable, no_grad


def scalar(value: float) -> Variable:
    return Variable(np.array(value))


def test_variable_used_twice_in_mul_gets_both_contributions() -> None:
    x = scalar(3.0)
    (x * x).backward()
    assert x.grad is not None and x.grad.data == pytest.approx(6.0)


def test_variable_used_twice_in_add_gets_both_contributions() -> None:
    x = scalar(3.0)
    (x + x).backward()
    assert x.grad is not None and x.grad.data == pytest.approx(2.0)


class CountingSquare(Function):
    """y = x**2, counting how often backward runs."""

    calls = 0

    def forward(self, x: np.ndarray) -> np.ndarray:
        return x**2

    def backward(self, gy: Variable) -> Variable:
        type(self).calls += 1
        (x,) = self.inputs
        return 2 * x * gy


def test_diamond_with_uneven_branches_runs_each_backward_once() -> None:
    CountingSquare.calls = 0
    x = scalar(2.0)
    a = CountingSquare()(x)  # a = x^2
    long_branch = CountingSquare()(CountingSquare()(a))  # a^4
    short_branch = CountingSquare()(a)  # a^2
    y = long_branch + short_branch  # x^8 + x^4
    y.backward()
    assert CountingSquare.calls == 4
    assert x.grad is not None and x.grad.data == pytest.approx(8 * 2.0**7 + 4 * 2.0**3)


def test_chain_a_hundred_times_deeper_than_the_recursion_limit_needs_no_recursion() -> None:
    # 100,000 ops: a recursive walk fails a hundred times over, and so would a recursive
    # teardown of the graph in C (8 MB of stack, some hundred bytes per nested object)
    limit = sys.getrecursionlimit()
    x = scalar(1.0)
    y = x
    for _ in range(100 * limit):
        y = -y
    y.backward()
    assert x.grad is not None and x.grad.data == pytest.approx(1.0)
    del y  # tearing down the chain must not overflow the C stack either
    assert sys.getrecursionlimit() == limit


def test_repeated_backward_adds_exactly_one_gradient_per_call() -> None:
    x = scalar(3.0)
    for calls in range(1, 4):
        y = x * x
        y.backward()
        assert x.grad is not None and x.grad.data == pytest.approx(6.0 * calls)


def test_backward_twice_on_same_graph_accumulates() -> None:
    x = scalar(2.0)
    y = F.exp(x)
    y.backward()
    y.backward()
    assert x.grad is not None and x.grad.data == pytest.approx(2 * np.exp(2.0))


def test_intermediate_grads_cleared_unless_retained() -> None:
    x = scalar(2.0)
    h = x * 3.0
    y = h * h
    y.backward()
    assert h.grad is None and y.grad is None
    x.clear_grad()
    y.backward(retain_grad=True)
    assert h.grad is not None and h.grad.data == pytest.approx(12.0)
    assert y.grad is not None and y.grad.data == pytest.approx(1.0)


def test_no_two_variables_share_a_gradient_array() -> None:
    x0, x1 = scalar(1.0), scalar(2.0)
    y = x0 + x1
    y.backward()
    assert x0.grad is not None and x1.grad is not None
    assert x0.grad.data is not x1.grad.data
    assert not np.shares_memory(x0.grad.data, x1.grad.data)


def test_no_grad_records_nothing_and_backward_raises() -> None:
    x = scalar(2.0)
    with no_grad():
        y = x * x
        assert y.creator is None
        with pytest.raises(RuntimeError, match="no_grad"):
            y.backward()


def test_backward_on_a_leaf_seeds_ones() -> None:
    x = Variable(np.array([1.0, 2.0]))
    x.backward()
    assert x.grad is not None and np.array_equal(x.grad.data, [1.0, 1.0])


def test_backward_on_none_data_raises() -> None:
    with pytest.raises(RuntimeError, match="no data"):
        Variable(None).backward()


def test_constants_get_no_gradient_and_no_graph() -> None:
    y = F.exp(np.array(1.0))
    assert y.creator is None and not y.requires_grad


def test_tanh_derivatives_match_closed_forms() -> None:
    x = scalar(0.7)
    t = np.tanh(0.7)
    expected = [
        1 - t**2,
        -2 * t * (1 - t**2),
        (1 - t**2) * (6 * t**2 - 2),
        8 * t * (1 - t**2) * (2 - 3 * t**2),
    ]
    y = F.tanh(x)
    for order, value in enumerate(expected, start=1):
        x.clear_grad()
        y.backward(create_graph=True)
        assert x.grad is not None
        assert x.grad.data == pytest.approx(value, rel=1e-10), f"derivative {order}"
        y = x.grad


def test_newton_method_with_second_derivative_finds_minimum() -> None:
    # f(x) = x^4 - 2x^2 has minima at x = +-1; Newton from x = 2 converges to 1.
    x = scalar(2.0)
    for _ in range(10):
        y = x**4 - 2 * x**2
        x.clear_grad()
        y.backward(create_graph=True)
        gx = x.grad
        assert gx is not None
        x.clear_grad()
        gx.backward()
        assert x.grad is not None
        x = Variable(np.asarray(x.data - gx.data / x.grad.data))
    assert x.data == pytest.approx(1.0, abs=1e-12)


def test_create_graph_gradient_is_a_normal_graph() -> None:
    x = scalar(1.5)
    y = F.sin(x) * x
    y.backward(create_graph=True)
    assert x.grad is not None and x.grad.creator is not None
    assert x.grad.creator.created_in_backward


def test_intermediates_are_freed_without_the_cycle_collector() -> None:
    gc.disable()
    try:
        x = Variable(np.ones(3))
        h = F.exp(x)
        y = F.sin(h)
        refs = [weakref.ref(h), weakref.ref(y), weakref.ref(y.creator), weakref.ref(h.creator)]
        del h, y
        assert all(ref() is None for ref in refs)
    finally:
        gc.enable()


def test_graph_after_backward_is_freed_without_the_cycle_collector() -> None:
    gc.disable()
    try:
        x = Variable(np.ones(3))
        y = (F.exp(x) * x).sum()
        y.backward(create_graph=True)
        refs = [weakref.ref(y), weakref.ref(y.creator)]
        del y
        x.clear_grad()
        assert all(ref() is None for ref in refs)
    finally:
        gc.enable()


class OnlyBackward(Function):
    """y = 3x with only the differentiable backward (no backward_array)."""

    def forward(self, x: np.ndarray) -> np.ndarray:
        return 3 * x

    def backward(self, gy: Variable) -> Variable:
        return gy * 3.0


def test_function_with_only_backward_works_on_both_paths() -> None:
    x = Variable(np.array([1.0, 2.0]))
    OnlyBackward()(x).sum().backward()
    assert x.grad is not None and np.array_equal(x.grad.data, [3.0, 3.0])
    x.clear_grad()
    OnlyBackward()(x * x).sum().backward(create_graph=True)
    assert x.grad is not None and np.allclose(x.grad.data, [6.0, 12.0])


class WrongShape(Function):
    def forward(self, x: np.ndarray) -> np.ndarray:
        return x.sum()

    def backward(self, gy: Variable) -> Variable:
        return gy  # forgot to broadcast back to x's shape


def test_wrong_gradient_shape_is_reported_with_class_index_and_shapes() -> None:
    x = Variable(np.ones((2, 3)))
    with pytest.raises(ValueError) as info:
        WrongShape()(x).backward()
    message = str(info.value)
    assert "WrongShape" in message and "input 0" in message
    assert "()" in message and "(2, 3)" in message


class WrongCount(Function):
    def forward(self, x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
        return x0 + x1

    def backward(self, gy: Variable) -> Variable:
        return gy


def test_wrong_number_of_gradients_names_the_class() -> None:
    x = Variable(np.ones(2))
    with pytest.raises(ValueError, match=r"WrongCount.*1 gradient.*2 input"):
        WrongCount()(x, x).backward()


def test_gradient_dtype_follows_float32_input() -> None:
    x = Variable(np.ones(3, dtype=np.float32))
    y = (x * 2.0 + 1).sum()
    assert y.dtype == np.float32
    y.backward()
    assert x.grad is not None and x.grad.dtype == np.float32


def test_integer_leaf_receiving_a_gradient_is_a_clear_type_error() -> None:
    x = Variable(np.array([1, 2, 3]), name="counts")
    y = (x * 2.0).sum()
    with pytest.raises(TypeError, match=r"counts.*int64.*astype\(float\)"):
        y.backward()


@pytest.mark.parametrize("create_graph", [False, True])
def test_a_leaf_used_by_many_ops_gets_one_new_grad_holding_the_sum(create_graph: bool) -> None:
    # T7's shape: n separate terms of one input. Each term's contribution is summed
    # during the pass and x.grad is replaced once, at the end, by old + sum.
    x = Variable(np.array(0.5))
    x.grad = Variable(np.array(10.0), requires_grad=False)
    before = x.grad
    coefficients = [1.0, 2.0, 3.0, 4.0]
    total = x * coefficients[0]
    for c in coefficients[1:]:
        total = total + x * c
    total.backward(create_graph=create_graph)
    assert x.grad is not before
    assert float(before.data) == 10.0  # the old gradient was not changed in place
    assert float(x.grad.data) == 10.0 + sum(coefficients)


def test_a_backward_that_fails_midway_changes_no_leaf_gradient() -> None:
    class Fails(Function):
        def forward(self, x: np.ndarray) -> np.ndarray:
            return x.copy()

        def backward(self, gy: Variable) -> Variable:
            raise ArithmeticError("backward failed on purpose")

    a = Variable(np.array(2.0), name="a")
    b = Variable(np.array(3.0), name="b")
    y = Fails()(b) + a * b  # the engine runs Mul (reaching a and b) before Fails
    with pytest.raises(ArithmeticError):
        y.backward()
    assert a.grad is None and b.grad is None


@pytest.mark.parametrize("order", ["float_first", "int_first"])
def test_a_leaf_that_cannot_take_a_gradient_leaves_the_other_leaves_unchanged(order: str) -> None:
    # Found by a fresh-user trial: the int leaf's TypeError came after a.grad was set.
    a = Variable(np.array([1.0, 2.0]), name="a")
    b = Variable(np.array([1, 2]), name="b")
    y = F.sum(a * b) if order == "float_first" else F.sum(b * a)
    with pytest.raises(TypeError, match="only floating-point Variables hold gradients"):
        y.backward()
    assert a.grad is None


def test_an_old_grad_of_another_shape_is_refused_not_broadcast() -> None:
    x = Variable(np.ones(3), name="x")
    x.grad = Variable(np.zeros((3, 1)), requires_grad=False)
    with pytest.raises(ValueError, match=r"shape \(3,\) holds a \.grad of shape \(3, 1\)"):
        F.sum(x * 2.0).backward()
    assert x.grad.shape == (3, 1)


def test_a_create_graph_sum_that_fails_for_one_leaf_sets_no_leaf_gradient() -> None:
    # Found by a second trial: under create_graph adding to the old .grad is a recorded
    # op, which detect_anomaly can refuse after another leaf's .grad was already set.
    from minitorch import detect_anomaly

    a, b = Variable(np.array([1.0]), name="a"), Variable(np.array([1.0]), name="b")
    a.grad = Variable(np.array([5.0]), requires_grad=False)
    b.grad = Variable(np.array([1e308]), requires_grad=False)
    with detect_anomaly(), np.errstate(over="ignore"), pytest.raises(FloatingPointError):
        y = F.sum(b * 1e308) + F.sum(a * 2.0)
        y.backward(create_graph=True)
    assert float(a.grad.data[0]) == 5.0 and float(b.grad.data[0]) == 1e308


# ---- leaf gradients, dtypes, dropped outputs, no_grad, a .grad without data ---------------


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
