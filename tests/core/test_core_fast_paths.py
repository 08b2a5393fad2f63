"""The fast paths of ``Function.__call__`` and the first-order engine keep the contract.

Each shortcut (Python floats converted straight to the operands' dtype, shared
``needs_input_grad`` tuples, the inlined single-output backward loop) must give exactly
what the general path gives; these tests pin the cases where a shortcut could go wrong.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
import pytest

from minitorch import Function, Variable


class Sum3(Function):
    """y = x0 + x1 + x2 (three inputs: the general, non-specialised path)."""

    def forward(self, x0: np.ndarray, x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
        return x0 + x1 + x2

    def backward_array(self, gy: np.ndarray) -> tuple[np.ndarray, ...]:
        return gy, gy, gy


class Split(Function):
    """(y0, y1) = (2 x, 3 x): two outputs, so the engine's general output path runs."""

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return 2 * x, 3 * x

    def backward_array(self, gy0: np.ndarray, gy1: np.ndarray) -> np.ndarray:
        return 2 * gy0 + 3 * gy1


class OnlyBackward(Function):
    """y = x**2 whose backward_array raises NotImplementedError (a notebook stub's helper)."""

    calls: dict[str, int] = {}

    def forward(self, x: np.ndarray) -> np.ndarray:
        return x**2

    def backward_array(self, gy: np.ndarray) -> np.ndarray:
        self.calls["array"] = self.calls.get("array", 0) + 1
        return _unfinished_helper(gy)

    def backward(self, gy: Variable) -> Variable:
        self.calls["graph"] = self.calls.get("graph", 0) + 1
        (x,) = self.inputs
        return gy * x * 2.0


def _unfinished_helper(gy: np.ndarray) -> np.ndarray:
    raise NotImplementedError("the helper is still a stub")


class ScalarGrad(Function):
    """y = 3 x on 0-d input whose backward_array returns a NumPy scalar in float32."""

    def forward(self, x: np.ndarray) -> np.ndarray:
        return 3 * x

    def backward_array(self, gy: np.ndarray) -> Any:
        return np.float32(3.0) * np.float32(gy)


DTYPES = ["float16", "float32", "float64", "int8", "int64", "bool"]  # complex is refused
OPS = [operator.add, operator.sub, operator.mul, operator.truediv]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", OPS, ids=lambda f: f.__name__)
def test_python_float_operand_gets_numpys_nep50_dtype(dtype: str, op: Any) -> None:
    a = np.array([1, 2, 3]).astype(dtype)
    expected = op(a, 2.5)  # NumPy 2 itself decides the dtype
    y = op(Variable(a), 2.5)
    assert y.dtype == expected.dtype
    np.testing.assert_array_equal(y.data, expected)
    reflected = op(2.5, Variable(a))
    assert reflected.dtype == op(2.5, a).dtype


def test_numpy_scalar_is_a_strong_type_not_a_python_float() -> None:
    x = Variable(np.ones(2, dtype=np.float32))
    assert (x * np.float64(2.0)).dtype == (np.ones(2, np.float32) * np.float64(2.0)).dtype


@pytest.mark.parametrize(
    "dtypes", [("float32", "float64"), ("float32", "float32"), ("int32", "float16")]
)
def test_python_float_among_mixed_operands_follows_result_type(dtypes: tuple[str, str]) -> None:
    a, b = np.ones(2, dtype=dtypes[0]), np.ones(2, dtype=dtypes[1])
    y = Sum3()(Variable(a), b, 0.5)
    assert y.dtype == (a + b + 0.5).dtype
    np.testing.assert_array_equal(y.data, a + b + 0.5)


def test_needs_input_grad_marks_constants_and_non_bool_flags() -> None:
    x = Variable(np.ones(3))
    frozen = Variable(np.ones(3), requires_grad=0)  # type: ignore[arg-type]
    y = x * 2.0
    assert y.creator is not None and y.creator.needs_input_grad == (True, False)
    z = frozen * x
    assert z.creator is not None and z.creator.needs_input_grad == (False, True)
    w = Sum3()(x, frozen, 1.0)
    assert w.creator is not None and w.creator.needs_input_grad == (True, False, False)
    assert (frozen * 2.0).creator is None


def test_three_input_function_backward() -> None:
    x0, x1 = Variable(np.array([1.0, 2.0])), Variable(np.array([3.0, 4.0]))
    Sum3()(x0, x1, x0).backward()
    assert x0.grad is not None and x1.grad is not None
    np.testing.assert_array_equal(x0.grad.data, [2.0, 2.0])
    np.testing.assert_array_equal(x1.grad.data, [1.0, 1.0])


def test_two_outputs_on_first_order_path_including_an_unused_one() -> None:
    x = Variable(np.array([1.0, -1.0]))
    y0, y1 = Split()(x)
    (y0 * y1).backward()  # d/dx (6 x^2) = 12 x
    assert x.grad is not None
    np.testing.assert_allclose(x.grad.data, [12.0, -12.0])
    x.clear_grad()
    y0, _unused = Split()(x)
    y0.backward()  # the unused output contributes zeros
    assert x.grad is not None
    np.testing.assert_allclose(x.grad.data, [2.0, 2.0])


def test_a_not_implemented_error_inside_backward_array_reaches_the_user() -> None:
    # Which backward a class runs is decided once, when it is defined: an error raised
    # inside its backward_array is the user's, never a signal to rerun backward.
    OnlyBackward.calls = {}
    x = Variable(np.array([3.0]))
    with pytest.raises(NotImplementedError, match="the helper is still a stub"):
        OnlyBackward()(x).backward()
    assert OnlyBackward.calls == {"array": 1}
    assert x.grad is None


def test_a_not_implemented_error_inside_backward_reaches_the_user() -> None:
    class StubBackward(Function):
        def forward(self, x: np.ndarray) -> np.ndarray:
            return 2 * x

        def backward(self, gy: Variable) -> Variable:
            return Variable(_unfinished_helper(gy.data))

    for create_graph in (False, True):
        x = Variable(np.array([3.0]))
        with pytest.raises(NotImplementedError, match="the helper is still a stub"):
            StubBackward()(x).backward(create_graph=create_graph)
        assert x.grad is None


def test_the_create_graph_path_still_runs_backward() -> None:
    OnlyBackward.calls = {}
    x = Variable(np.array([3.0]))
    OnlyBackward()(x).backward(create_graph=True)
    assert OnlyBackward.calls == {"graph": 1}
    assert x.grad is not None
    np.testing.assert_allclose(x.grad.data, [6.0])


def test_scalar_and_wrong_dtype_gradients_are_coerced_to_the_input() -> None:
    x = Variable(np.array(2.0))
    ScalarGrad()(x).backward()
    assert x.grad is not None
    assert type(x.grad.data) is np.ndarray and x.grad.data.dtype == np.float64
    assert x.grad.data.shape == () and x.grad.data == 3.0


def test_fan_in_accumulates_on_an_intermediate() -> None:
    x = Variable(np.array(0.5))
    h = x * 2.0
    total = h * 1.0
    for c in (2.0, 3.0, 4.0):
        total = total + h * c
    total.backward()  # d/dx (2x * 10) = 20
    assert x.grad is not None and float(x.grad.data) == pytest.approx(20.0)


def test_number_operands_share_a_read_only_array_but_get_a_variable_each() -> None:
    # Issue 17: `y * 0.99` in a loop converts 0.99 once. Each op keeps its own constant
    # Variable (graphs draw a node per use), and nobody can write through the shared array.
    x = Variable(np.array([1.0, 2.0]))
    a, b = (x * 0.99).creator, (x * 0.99).creator
    ca, cb = a.inputs[1], b.inputs[1]
    assert ca is not cb and ca.data is cb.data
    assert not ca.data.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        ca.data[...] = 5.0
    assert (x * 0.99).data.tolist() == [0.99, 1.98]


@pytest.mark.parametrize("zero", [0.0, -0.0])
def test_signed_zero_and_nan_operands_are_not_mixed_up_by_the_cache(zero: float) -> None:
    x = Variable(np.array(1.0))
    x * 0.0, x * -0.0  # both signs seen, in either order  # noqa: B018
    assert np.signbit((x * zero).data) == np.signbit(zero)
    assert np.isnan((x * float("nan")).data)
    x32 = Variable(np.array(1.0, np.float32))
    assert (x32 * 0.5).dtype == np.float32 and (x * 0.5).dtype == np.float64
