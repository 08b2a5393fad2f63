"""Variable's contract (API.md): construction, properties, repr, operators, dtypes."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import minitorch.ops as F
from minitorch import Function, Variable, as_array, as_variable


@pytest.mark.parametrize("bad", [1.0, [1.0, 2.0], "x", np.float64(1.0)])
def test_non_ndarray_data_is_a_type_error_naming_the_type(bad: object) -> None:
    with pytest.raises(TypeError, match=type(bad).__name__):
        Variable(bad)  # type: ignore[arg-type]


def test_properties_follow_the_array() -> None:
    x = Variable(np.zeros((2, 3), dtype=np.float32), name="x")
    assert (x.shape, x.ndim, x.size, x.dtype, len(x)) == ((2, 3), 2, 6, np.float32, 2)
    assert x.T.shape == (3, 2)
    assert x.name == "x" and x.grad is None and x.creator is None and x.generation == 0


def test_repr_matches_numpy_printing_with_indent() -> None:
    assert repr(Variable(np.array([1.0, 2.0]))) == "variable([1. 2.])"
    assert repr(Variable(np.array([[1.0, 2.0], [3.0, 4.0]]))) == (
        "variable([[1. 2.]\n          [3. 4.]])"
    )
    assert repr(Variable(None)) == "variable(None)"


def test_reflected_operators_with_scalars_and_ndarrays_give_variables() -> None:
    x = Variable(np.array([1.0, 2.0]))
    for result, expected in [
        (2.0 * x, [2.0, 4.0]),
        (np.ones(2) + x, [2.0, 3.0]),
        (1.0 - x, [0.0, -1.0]),
        (2.0 / x, [2.0, 1.0]),
        (2.0**x, [2.0, 4.0]),
        (-x, [-1.0, -2.0]),
    ]:
        assert isinstance(result, Variable)
        np.testing.assert_allclose(result.data, expected)


def test_python_scalar_keeps_float32() -> None:
    x = Variable(np.ones(2, dtype=np.float32))
    for y in (x * 2.0, 2.0 * x, x + 1, x / 3.0, x**2, 1.0 - x):
        assert y.dtype == np.float32


def test_float64_ndarray_promotes_like_numpy() -> None:
    x = Variable(np.ones(2, dtype=np.float32))
    assert (x * np.ones(2)).dtype == np.result_type(np.float32, np.float64)


def test_outputs_are_always_ndarrays_even_0d() -> None:
    x = Variable(np.array(2.0))
    y = x * x
    assert type(y.data) is np.ndarray and y.data.shape == ()


def test_item_numpy_and_reshape_transpose_methods() -> None:
    x = Variable(np.arange(6.0))
    assert x.reshape(2, 3).shape == (2, 3) and x.reshape((3, 2)).shape == (3, 2)
    assert x.reshape(2, 3).transpose().shape == (3, 2)
    assert x.reshape(1, 2, 3).transpose(2, 0, 1).shape == (3, 1, 2)
    assert Variable(np.array([5.0])).item() == 5.0
    assert x.numpy() is x.data
    with pytest.raises(ValueError, match="one-element"):
        x.item()


def test_unchain_backward_cuts_every_link_iteratively() -> None:
    x = Variable(np.array(1.0))
    y = x
    for _ in range(5000):
        y = y * 1.0
    y.unchain_backward()
    assert y.creator is None
    y.backward()
    assert x.grad is None


def test_unsupported_operand_names_the_op_and_operand() -> None:
    x = Variable(np.ones(2))
    with pytest.raises(TypeError, match=r"Add: operand 1 has unsupported type str"):
        x + "a"  # type: ignore[operator]
    with pytest.raises(TypeError, match=r"operand 1 has unsupported type NoneType"):
        x * None  # type: ignore[operator]
    np.testing.assert_allclose((x + [1, 2]).data, [2.0, 3.0])  # array-likes are fine


class ReturnsList(Function):
    def forward(self, x: np.ndarray) -> list[float]:
        return [1.0, 2.0]


def test_forward_returning_a_list_names_the_class() -> None:
    with pytest.raises(TypeError, match=r"ReturnsList.forward must return ndarrays"):
        ReturnsList()(Variable(np.ones(2)))


def test_output_accessor_reports_a_freed_output_that_was_not_saved() -> None:
    x = Variable(np.ones(2))
    f = ReturnsTwiceSavingInputs()
    f(x)  # outputs are dropped at once
    with pytest.raises(RuntimeError, match=r"ReturnsTwiceSavingInputs.output\(0\)"):
        f.output(0)


def test_output_accessor_unpacks_a_freed_saved_output() -> None:
    x = Variable(np.ones(2))
    f = ReturnsTwice()  # saves everything, the default
    f(x)
    y = f.output(0)
    np.testing.assert_array_equal(y.data, [2.0, 2.0])
    assert y.creator is f


class ReturnsTwice(Function):
    def forward(self, x: np.ndarray) -> np.ndarray:
        return 2 * x


class ReturnsTwiceSavingInputs(ReturnsTwice):
    saves = ("inputs",)


def test_as_array_and_as_variable() -> None:
    a = np.ones(2)
    assert as_array(a) is a and as_array(3.0).shape == ()
    v = Variable(a)
    assert as_variable(v) is v and isinstance(as_variable(1.0), Variable)


def test_numpy_conversion_of_a_variable_is_refused_not_an_object_array() -> None:
    # fresh-user trial: np.asarray(x) built an object array of 0-d Variables (23 s for
    # 1000x1000) and np.dot(x, x) silently built an elementwise graph
    x = Variable(np.ones((2, 3)))
    for convert in (np.asarray, np.array):
        with pytest.raises(TypeError, match=r"shape \(2, 3\): use x.data"):
            convert(x)
    with pytest.raises(TypeError, match=r"np.dot does not record .* F.matmul"):
        np.dot(x, x)  # a NumPy function: refused by __array_function__ (test_numpy_interop)
    assert isinstance(np.ones(3) + Variable(np.ones(3)), Variable)  # NEP 13 still defers


# -- comparisons and modulo: no op, a message that names what the user wrote -----------
COMPARISON_TAIL = (
    ": minitorch records no graph for comparisons (they have no gradient); compare the "
    "arrays instead: `{example}` gives a bool ndarray (.data of each Variable)"
)


@pytest.mark.parametrize(
    "expression, head, example",
    [
        (lambda x, y: x > 1, "'>' between a Variable of shape (3,) and int", "x.data > 1"),
        # Python runs `1 < x` as x.__gt__(1): the message must still say `<`, 1 first.
        (lambda x, y: 1 < x, "'<' between int and a Variable of shape (3,)", "1 < x.data"),
        (lambda x, y: 2.5 >= x, "'>=' between float and a Variable of shape (3,)",
         "2.5 >= x.data"),
        (lambda x, y: x <= 0, "'<=' between a Variable of shape (3,) and int", "x.data <= 0"),
        (lambda x, y: x >= y,
         "'>=' between a Variable of shape (3,) and a Variable of shape (3,)",
         "x.data >= w.data"),
        (lambda x, y: y < x,
         "'<' between a Variable of shape (3,) and a Variable of shape (3,)",
         "w.data < x.data"),
    ],
)  # fmt: skip
def test_comparisons_name_the_operator_written_and_say_to_compare_data(
    expression: object, head: str, example: str
) -> None:
    x = Variable(np.array([1.0, 2.0, 3.0]), name="x")
    w = Variable(np.zeros(3), name="w")
    with pytest.raises(TypeError) as err:
        expression(x, w)  # type: ignore[operator]
    assert str(err.value) == head + COMPARISON_TAIL.format(example=example)


def test_a_chained_comparison_names_the_part_that_failed() -> None:
    x = Variable(np.array([0.5]))
    with pytest.raises(TypeError, match=r"^'<' between int and a Variable .*`0 < x\.data`"):
        0 < x < 1  # noqa: B015


def test_comparisons_through_the_operator_module_name_the_method() -> None:
    import operator

    x = Variable(np.array([0.5]))
    with pytest.raises(TypeError, match=r"^'>' between a Variable of shape \(1,\) and int"):
        operator.gt(x, 1)


def test_equality_between_variables_is_identity_and_against_values_refused() -> None:
    x = Variable(np.array([1.0]))
    assert (x == x) is True and (x == Variable(np.array([1.0]))) is False
    assert x in [x] and len({x, x}) == 1 and {x: 1}[x] == 1
    assert (x == None) is False and (x != "x") is True  # noqa: E711 (identity, as before)
    y = Variable(np.array(3.0)) * 3
    for compare, text in [
        (lambda: y == 9.0, r"'==' between a Variable of shape \(\) and float"),
        (lambda: y != 0, r"always be True.*y?\.?item\(\) != value"),
        (lambda: x == np.ones(1), r"an ndarray.*x\.item\(\) == value"),
        (lambda: Variable(np.ones(2)) == np.ones(2), r"x\.data == value"),
        (lambda: y == [9.0], r"and list"),
        (lambda: y == Fraction(9), r"and Fraction"),
        (lambda: 3 == y, r"'==' between a Variable"),
        (lambda: np.float64(9.0) == y, r"and a NumPy number"),
    ]:
        with pytest.raises(TypeError, match=text):
            compare()
    with pytest.raises(TypeError, match=r"shape None"):
        Variable(None) == 3  # noqa: B015


def test_containers_mixing_numbers_and_variables_compare_by_identity() -> None:
    # Python compares 1.0 == x before reaching x: only an == the user wrote is refused
    x = Variable(np.array(3.0))
    assert x in [1.0, x] and [1.0, x].index(x) == 1 and [x, 1].count(1) == 1
    assert np.float64(3.0) not in [x] and [1.0, x].count(x) == 1
    items = [2.0, x]
    items.remove(x)
    assert items == [2.0]


@pytest.mark.parametrize(
    "expression, message",
    [
        (lambda x: x % 2, "'%' between a Variable of shape (2,) and int: minitorch has no "
         "modulo op, so no gradient is recorded for %; apply it to the arrays instead: "
         "`x.data % 2` gives a plain ndarray (no gradient)"),
        (lambda x: 7 % x, "'%' between int and a Variable of shape (2,): minitorch has no "
         "modulo op, so no gradient is recorded for %; apply it to the arrays instead: "
         "`7 % x.data` gives a plain ndarray (no gradient)"),
        (lambda x: x // 2, "'//' between a Variable of shape (2,) and int: minitorch has no "
         "floor-division op, so no gradient is recorded for //; apply it to the arrays "
         "instead: `x.data // 2` gives a plain ndarray (no gradient)"),
    ],
)  # fmt: skip
def test_modulo_and_floor_division_say_there_is_no_op(expression: object, message: str) -> None:
    with pytest.raises(TypeError) as err:
        expression(Variable(np.array([3.0, 4.0])))  # type: ignore[operator]
    assert str(err.value) == message


# ---- non-numeric data, truth value, messages ----------------------------------------------


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


@pytest.mark.parametrize("dtype", [np.complex128, object, "U3"])
def test_astype_refuses_a_dtype_no_variable_holds(dtype) -> None:
    # The one op whose output dtype the caller picks: refused before any Variable is made
    # (op outputs skip Variable.__init__'s check, so it must not get there).
    with pytest.raises(TypeError, match="astype: the dtype must be numeric"):
        F.astype(Variable(np.ones(3)), dtype)
