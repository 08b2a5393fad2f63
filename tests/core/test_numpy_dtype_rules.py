"""Operands that are not Variables: minitorch gives exactly what NumPy 2 gives.

The rule (``as_inputs`` in ``minitorch/core/function.py``): ``x <op> s`` and ``s <op> x``
for a Variable ``x`` have the dtype and the values that NumPy gives for ``x.data <op> s``
and ``s <op> x.data``; where NumPy raises (``OverflowError`` for a Python int that the
array's dtype cannot hold, NEP 50), minitorch raises the same exception type with a
message that names the op, the operand and the dtype. NumPy itself computes every
expected value here.
"""

from __future__ import annotations

import enum
import operator
import warnings
from typing import Any

import numpy as np
import pytest

import minitorch.ops as F
from minitorch import Function, Variable


class Colour(enum.IntEnum):
    GREEN = 3


class Count(int):
    """An int subclass: NumPy converts it like an array (a strong int64), not as a weak int."""


class Ratio(float):
    """A float subclass, converted like ``np.float64``."""


DTYPES = [
    "bool",
    "int8",
    "uint8",
    "int32",
    "int64",
    "float16",
    "float32",
    "float64",
]  # complex numbers are out of scope: refused (test_complex_operands_are_refused_by_name)
# Python numbers of every kind and size (weak under NEP 50), the exponents NumPy's `**`
# computes with ufuncs of their own (2, -1, 0.5), and operands NumPy converts like arrays.
OPERANDS: list[Any] = [
    True,
    2,
    -1,
    300,
    10**19,
    0.5,
    2.5,
    Colour.GREEN,
    Count(3),
    Ratio(2.5),
    np.float64(2.5),
    np.int64(3),
]
OPS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "**": operator.pow,
}


def _data(dtype: str) -> np.ndarray:
    # Varied values (random complex numbers: their squares from np.square and np.power
    # differ in the last bits, so `**` must compute what NumPy's operator computes).
    rng = np.random.default_rng(0)
    values = rng.standard_normal(16) * 3
    if dtype == "bool":
        return values > 0
    if dtype.startswith("complex"):
        return (values + 1j * rng.standard_normal(16)).astype(dtype)
    if dtype.startswith("uint"):
        return np.abs(values).astype(dtype)
    return values.astype(dtype)


def _outcome(compute: Any) -> tuple[str, Any]:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # overflow, 0 ** -1 ...: both sides warn alike
        try:
            return "value", compute()
        except Exception as exc:  # noqa: BLE001 (the type is compared below)
            return "error", exc


@pytest.mark.parametrize("side", ["x op s", "s op x"])
@pytest.mark.parametrize("symbol", list(OPS))
@pytest.mark.parametrize("operand", OPERANDS, ids=lambda s: f"{type(s).__name__}({s!r})")
@pytest.mark.parametrize("dtype", DTYPES)
def test_operand_gives_numpys_dtype_and_values(
    dtype: str, operand: Any, symbol: str, side: str
) -> None:
    op, a = OPS[symbol], _data(dtype)
    if side == "x op s":
        expected = _outcome(lambda: op(a, operand))
        got = _outcome(lambda: op(Variable(a.copy()), operand).data)
    else:
        expected = _outcome(lambda: op(operand, a))
        got = _outcome(lambda: op(operand, Variable(a.copy())).data)
    if expected[0] == "error":
        assert got[0] == "error", f"NumPy raises {expected[1]!r}, minitorch gives {got[1]!r}"
        assert type(got[1]) is type(expected[1])
        if isinstance(expected[1], OverflowError):  # the op, the operand and the dtype
            message = str(got[1])
            assert repr(operand)[:20] in message and "out of range for" in message
            assert message.split(":")[0] in {"Add", "Sub", "Mul", "Div", "Pow"}
        return
    assert got[0] == "value", f"NumPy gives {expected[1].dtype}, minitorch raises {got[1]!r}"
    assert got[1].dtype == expected[1].dtype
    np.testing.assert_array_equal(got[1], expected[1], strict=True)


def test_overflow_message_names_op_operand_dtype_and_a_fix() -> None:
    x = Variable(np.array([1, 2], dtype=np.int8))
    with pytest.raises(OverflowError) as info:
        x + 300
    message = str(info.value)
    assert message.startswith("Add: operand 1, the Python int 300, is out of range for int8")
    assert "np.int64(300)" in message and "x.astype" in message
    with pytest.raises(OverflowError, match=r"^Sub: operand 0, the Python int 300,"):
        300 - x
    with pytest.raises(OverflowError, match=r"out of range for int64.*x\.astype\(float\)"):
        Variable(np.array([1])) + 10**19  # no int64 holds it: only float helps
    with pytest.raises(OverflowError, match=r"out of range for float64.*use a float"):
        Variable(np.array([1.0])) + 10**400


def test_int_array_divided_by_a_large_int_divides_in_float64_as_numpy() -> None:
    a = np.array([1, 2, 3], dtype=np.int8)
    for y, expected in [
        (Variable(a) / 300, a / 300),
        (300 / Variable(a), 300 / a),
        (Variable(a.astype(np.int64)) / 10**19, a.astype(np.int64) / 10**19),
        (Variable(a.astype(np.uint8)) / -1, a.astype(np.uint8) / -1),
    ]:
        assert y.dtype == expected.dtype == np.float64
        np.testing.assert_array_equal(y.data, expected)


def test_bool_squared_is_int8_as_numpys_operator() -> None:
    b = np.array([True, False])
    assert (Variable(b) ** 2).dtype == (b**2).dtype == np.int8  # np.square, not np.power
    assert (Variable(b) ** 3).dtype == (b**3).dtype == np.int64


def test_complex_operands_are_refused_by_name() -> None:
    """Complex numbers are out of scope: a Variable, an array operand and a Python
    complex are each refused with a TypeError that names the op and the operand."""
    x = Variable(np.array([1.0, 2.0]))
    z = np.array([1 + 2j, 0.5j])
    with pytest.raises(
        TypeError,
        match=r"Variable: data must be numeric .*complex128: "
        r"complex numbers are out of scope",
    ):
        Variable(z)
    with pytest.raises(TypeError, match=r"Add: operand 1 has dtype complex128: complex"):
        x + z
    with pytest.raises(TypeError, match=r"Mul: operand 1 is 1.5j: complex numbers are out"):
        x * 1.5j
    with pytest.raises(TypeError, match=r"Exp: operand 0 has dtype complex64: complex"):
        F.exp(z.astype(np.complex64))


def test_pow_with_a_python_exponent_keeps_its_gradient() -> None:
    x = Variable(np.array([0.5, 2.0, -3.0]))
    (x**2).sum().backward()
    assert x.grad is not None
    np.testing.assert_allclose(x.grad.data, 2 * x.data)
    y = Variable(np.array([4.0, 9.0]))
    (y**0.5).sum().backward()
    assert y.grad is not None
    np.testing.assert_allclose(y.grad.data, 0.5 / np.sqrt(y.data))


@pytest.mark.parametrize("operand", [Colour.GREEN, Count(3), Ratio(2.5), np.int64(3)])
@pytest.mark.parametrize("dtype", ["int8", "float32"])
def test_number_subclasses_behave_as_numpy_converts_them(operand: Any, dtype: str) -> None:
    a = np.array([1, 2], dtype=dtype)
    pairs = [(Variable(a) * operand, a * operand), (operand - Variable(a), operand - a)]
    for y, expected in pairs:
        assert y.dtype == expected.dtype  # int8 * IntEnum is int64 in NumPy: a strong int
        np.testing.assert_array_equal(y.data, expected)


@pytest.mark.parametrize("op", [F.maximum, F.minimum])
@pytest.mark.parametrize("operand", [3, 300, -1, 2.5])
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "float16", "float32"])
def test_maximum_and_minimum_follow_numpy(op: Any, operand: Any, dtype: str) -> None:
    a = _data(dtype)
    numpy_op = np.maximum if op is F.maximum else np.minimum
    expected = _outcome(lambda: numpy_op(a, operand))
    got = _outcome(lambda: op(Variable(a), operand).data)
    if expected[0] == "error":
        assert got[0] == "error" and type(got[1]) is type(expected[1])
    else:
        assert got[0] == "value" and got[1].dtype == expected[1].dtype
        np.testing.assert_array_equal(got[1], expected[1])


def test_where_refuses_a_number_its_branch_dtype_cannot_hold() -> None:
    # np.where(c, int8_array, 300) silently wraps 300 around to 44; minitorch refuses.
    c, a = np.array([True, False]), np.array([1, 2], dtype=np.int8)
    with pytest.raises(OverflowError, match="Where: operand 1, the Python int 300"):
        F.where(c, Variable(a), 300)
    y = F.where(c, Variable(a), 3)  # in range: NumPy's dtype and values
    assert y.dtype == np.where(c, a, 3).dtype
    np.testing.assert_array_equal(y.data, np.where(c, a, 3))


class TrueDivide(Function):
    """y = x0 / x1, declaring the ufunc it computes."""

    ufunc = np.true_divide

    def forward(self, x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
        return x0 / x1


class PlainDivide(Function):
    """y = x0 / x1, with no ufunc declared: numbers take ``np.result_type``'s dtype."""

    def forward(self, x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
        return x0 / x1


def test_a_user_function_declares_its_ufunc_to_get_numpys_conversion() -> None:
    a = np.array([1, 2], dtype=np.int8)
    y = TrueDivide()(Variable(a), 300)
    assert y.dtype == (a / 300).dtype
    np.testing.assert_array_equal(y.data, a / 300)
    with pytest.raises(OverflowError, match="PlainDivide: operand 1, the Python int 300"):
        PlainDivide()(Variable(a), 300)  # result_type(int8, int) is int8
