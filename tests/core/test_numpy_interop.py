"""NumPy meets a Variable: ndarray operators give Variables, NumPy functions are refused.

Fresh-user trial: ``np.exp(x)`` on a Variable said "operand 'Variable' does not support
ufuncs", which does not say what to do. Every NumPy ufunc or function that cannot record a
graph now names the minitorch op to use, while ``ndarray + Variable`` (NumPy calls
``np.add``) still returns the Variable operator's result.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import minitorch.ops as F
from minitorch import Variable

X = np.array([0.5, 1.5, 2.0])

# (operator, d(a op x)/dx, d(x op a)/dx), derived by hand for elementwise a and x.
RULES: dict[str, tuple[Callable[[Any, Any], Any], Any, Any]] = {
    "+": (operator.add, lambda a, x: 1.0 + 0 * x, lambda a, x: 1.0 + 0 * x),
    "-": (operator.sub, lambda a, x: -1.0 + 0 * x, lambda a, x: 1.0 + 0 * x),
    "*": (operator.mul, lambda a, x: a + 0 * x, lambda a, x: a + 0 * x),
    "/": (operator.truediv, lambda a, x: -a / x**2, lambda a, x: 1 / a + 0 * x),
    "**": (operator.pow, lambda a, x: a**x * np.log(a), lambda a, x: a * x ** (a - 1)),
}
OPERANDS = {
    "1-d array": np.array([2.0, 3.0, 0.5]),
    "0-d array": np.array(2.0),
    "np.float64": np.float64(2.0),
    "np.float32": np.float32(2.0),
    "np.int64": np.int64(3),
}


@pytest.mark.parametrize("symbol", list(RULES))
@pytest.mark.parametrize("kind", list(OPERANDS))
@pytest.mark.parametrize("order", ["ndarray op Variable", "Variable op ndarray"])
def test_operators_between_numpy_and_a_variable_give_variables(
    symbol: str, kind: str, order: str
) -> None:
    op, d_left, d_right = RULES[symbol]
    a, x = OPERANDS[kind], Variable(X.copy())
    if order == "ndarray op Variable":
        y, expected, grad = op(a, x), op(a, X), d_left(a, X)
    else:
        y, expected, grad = op(x, a), op(X, a), d_right(a, X)
    assert isinstance(y, Variable), f"{order} with {kind} gave {type(y).__name__}"
    np.testing.assert_allclose(y.data, expected, rtol=1e-6)
    y.backward()
    assert x.grad is not None
    np.testing.assert_allclose(x.grad.data, np.broadcast_to(grad, X.shape), rtol=1e-6)


@pytest.mark.parametrize("order", ["ndarray @ Variable", "Variable @ ndarray"])
def test_matmul_between_an_ndarray_and_a_variable(order: str) -> None:
    a, x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), Variable(X.copy())
    if order == "ndarray @ Variable":
        y = a @ x
        np.testing.assert_allclose(y.data, [9.5, 21.5])  # 0.5 + 3 + 6, 2 + 7.5 + 12
    else:
        y = x @ a.T
        np.testing.assert_allclose(y.data, [9.5, 21.5])
    assert isinstance(y, Variable)
    y.backward()
    assert x.grad is not None
    np.testing.assert_allclose(x.grad.data, [5.0, 7.0, 9.0])  # column sums of a


def test_explicit_operator_ufuncs_are_the_variable_operators() -> None:
    x = Variable(X.copy())
    y = np.add(np.ones(3), x)
    assert isinstance(y, Variable) and type(y.creator) is type((x + 1.0).creator)
    np.testing.assert_allclose(y.data, X + 1)


def test_equality_with_an_ndarray_is_refused_on_either_side() -> None:
    # identity (a graph node) would always say "not equal" to a value, silently
    x, a = Variable(X.copy()), X.copy()
    for compare in (lambda: a == x, lambda: x == a, lambda: a != x, lambda: x != a):
        with pytest.raises(TypeError, match=r"between a Variable of shape \(3,\) and an ndarray"):
            compare()
    with pytest.raises(TypeError, match=r"x\.item\(\) != value"):
        np.float64(0.5) != Variable(np.array(0.5))  # noqa: B015


@pytest.mark.parametrize(
    "call, numpy_name, f_call",
    [
        (np.exp, "np.exp", "F.exp(x)"),
        (np.sin, "np.sin", "F.sin(x)"),
        (np.tanh, "np.tanh", "F.tanh(x)"),
        (np.sqrt, "np.sqrt", "F.sqrt(x)"),
        (np.log, "np.log", "F.log(x)"),
        (np.abs, "np.absolute", "F.abs(x)"),
        (np.negative, "np.negative", "F.neg(x)"),
        (lambda v: np.maximum(v, 0), "np.maximum", "F.maximum(...)"),
        (lambda v: np.minimum(v, 0), "np.minimum", "F.minimum(...)"),
        (np.sum, "np.sum", "F.sum(...)"),
        (np.mean, "np.mean", "F.mean(...)"),
        (np.max, "np.max", "F.max(...)"),
        (np.std, "np.std", "F.std(...)"),
        (lambda v: np.clip(v, 0, 1), "np.clip", "F.clip(...)"),
        (lambda v: np.reshape(v, (3, 1)), "np.reshape", "F.reshape(...)"),
        (lambda v: np.concatenate([v, v]), "np.concatenate", "F.concatenate(...)"),
        (lambda v: np.stack([v, v]), "np.stack", "F.stack(...)"),
        (lambda v: np.dot(v, v), "np.dot", "F.matmul(...)"),
        (np.add.reduce, "np.add.reduce", "F.sum(...)"),
    ],
)
def test_numpy_functions_on_a_variable_name_the_minitorch_op(
    call: Callable[[Variable], Any], numpy_name: str, f_call: str
) -> None:
    with pytest.raises(TypeError) as err:
        call(Variable(X.copy()))
    assert str(err.value) == (
        f"{numpy_name} does not record a graph for Variables; use {f_call} "
        "(import minitorch.ops as F) or x.data for the raw array"
    )
    assert callable(getattr(F, f_call[2:].split("(")[0]))  # the named op exists


@pytest.mark.parametrize(
    "call, numpy_name",
    [
        (np.isnan, "np.isnan"),
        (np.linalg.norm, "np.linalg.norm"),
        (lambda v: np.allclose(v, X), "np.allclose"),
        (np.round, "np.round"),
    ],
)
def test_numpy_functions_without_a_minitorch_op_name_x_data(
    call: Callable[[Variable], Any], numpy_name: str
) -> None:
    with pytest.raises(TypeError, match=rf"^{numpy_name} does not record .*apply it to x\.data"):
        call(Variable(X.copy()))


@pytest.mark.parametrize(
    "call, symbol",
    [(operator.lt, "<"), (operator.ge, ">="), (operator.floordiv, "//"), (operator.mod, "%")],
)
def test_unsupported_operators_with_an_ndarray_name_the_operator(
    call: Callable[[Any, Any], Any], symbol: str
) -> None:
    # They used to name NumPy's ufunc (np.less ...); now the operator the user wrote.
    pattern = rf"^'{re.escape(symbol)}' between an ndarray .*`a {re.escape(symbol)} x\.data`"
    with pytest.raises(TypeError, match=pattern):
        call(X.copy(), Variable(X.copy()))


def test_in_place_operator_on_an_ndarray_suggests_rebinding() -> None:
    a = X.copy()
    with pytest.raises(TypeError, match=r"`a \+= x` with an ndarray a, use x.data.*`a = a \+ x`"):
        a += Variable(X.copy())
    np.testing.assert_array_equal(a, X)  # untouched
    p = Variable(X.copy())
    (p * p).sum().backward()
    with pytest.raises(TypeError, match=r"^np.subtract\(..., out=...\) .* use x.data"):
        p.data -= 0.1 * p.grad  # type: ignore[operator]  # the optimizer mistake


def test_asarray_keeps_its_message_and_shape_functions_keep_working() -> None:
    x = Variable(np.ones((2, 3)))
    with pytest.raises(TypeError, match=r"NumPy was given a Variable of shape \(2, 3\)"):
        np.asarray(x)
    assert (np.shape(x), np.ndim(x), np.size(x), np.result_type(x)) == ((2, 3), 2, 6, np.float64)
    t = np.transpose(x)
    assert isinstance(t, Variable) and t.shape == (3, 2)


def test_a_variable_stored_in_data_gets_a_hint_at_the_next_op() -> None:
    # Found by a fresh-user trial: `x.data = x.data - lr * x.grad` stores a Variable.
    x = Variable(np.array([1.0, 2.0]))
    F.sum(x * x).backward()
    x.data = x.data - 0.1 * x.grad  # ndarray - Variable is a Variable
    with pytest.raises(TypeError, match=r"\.data holds a Variable.*x\.grad\.data"):
        F.sum(x * x)


@pytest.mark.parametrize(
    "expression, message",
    [
        (lambda a, x: a < x, "'<' between an ndarray of shape (3,) and a Variable of shape "
         "(3,): minitorch records no graph for comparisons (they have no gradient); compare "
         "the arrays instead: `a < x.data` gives a bool ndarray (.data of each Variable)"),
        (lambda a, x: a % x, "'%' between an ndarray of shape (3,) and a Variable of shape "
         "(3,): minitorch has no modulo op, so no gradient is recorded for %; apply it to the "
         "arrays instead: `a % x.data` gives a plain ndarray (no gradient)"),
    ],
)  # fmt: skip
def test_an_ndarray_compared_with_a_variable_gets_the_comparison_message(
    expression: Callable[[np.ndarray, Variable], Any], message: str
) -> None:
    with pytest.raises(TypeError) as err:
        expression(X.copy(), Variable(X.copy(), name="x"))
    assert str(err.value) == message


# -- numpy.ma: the mask would be dropped without a word ------------------------------
MASKED_TAIL = (
    " is a numpy.ma.MaskedArray of shape (3,) with 1 masked value(s); minitorch computes on "
    "plain ndarrays and would silently drop the mask (the masked entries would count as "
    "numbers). Use m.filled(value) for a plain array with the masked entries replaced "
    "(e.g. m.filled(0.0)), or pass a plain ndarray"
)


@pytest.mark.parametrize(
    "call, who",
    [
        (lambda x, m: x + m, "Add: operand 1"),  # used to give [2. 3. 4.]: 2.0 counted
        (lambda x, m: F.mul(m, x), "Mul: operand 0"),
        (lambda x, m: F.exp(m), "Exp: operand 0"),
        (lambda x, m: Variable(m), "Variable: data"),  # used to keep a MaskedArray as data
        # The masked array on the left: numpy.ma runs the operation and asks the Variable
        # for an array; this used to give the general "NumPy was given a Variable".
        (lambda x, m: m + x, "Add: operand 0"),
        (lambda x, m: m - x, "Sub: operand 0"),
        (lambda x, m: m * x, "Mul: operand 0"),
        (lambda x, m: m / x, "Div: operand 0"),
        (lambda x, m: m**x, "Pow: operand 0"),
        (lambda x, m: np.ma.add(x, m), "Add: operand 1"),
        # Arrays an op keeps besides its operands (as_constant): refused alike.
        (lambda x, m: F.where(m, x, 0.0), "where: condition"),
        (lambda x, m: x[m], "get_item: index"),
        (lambda x, m: F.clip(x, 0.0, m), "clip: x_max"),
        (lambda x, m: F.embedding(m, Variable(np.ones((4, 2)))), "embedding: indices"),
    ],
)
def test_a_masked_array_is_refused_naming_the_op_and_filled(
    call: Callable[[Variable, Any], Any], who: str
) -> None:
    m = np.ma.masked_array([1.0, 2.0, 3.0], mask=[False, True, False])
    with pytest.raises(TypeError) as err:
        call(Variable(np.ones(3)), m)
    assert str(err.value) == who + MASKED_TAIL


def test_filled_masked_arrays_and_ndarray_subclasses_still_work() -> None:
    m = np.ma.masked_array([1.0, 2.0, 3.0], mask=[False, True, False])
    y = Variable(np.ones(3)) + m.filled(0.0)
    np.testing.assert_array_equal(y.data, [2.0, 1.0, 4.0])

    class Tagged(np.ndarray):
        """A subclass without a mask: accepted as before."""

    tagged = np.ones(2).view(Tagged)
    assert Variable(tagged).data is tagged
