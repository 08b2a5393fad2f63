"""``gradcheck`` and ``gradgradcheck`` check both backward paths and name the wrong one.

A Function computes its gradient twice: ``backward_array`` (NumPy, the first-order path of
``backward()``) and ``backward`` (minitorch ops, the path of ``backward(create_graph=True)``
that second derivatives build on). A fresh-user trial found both checkers passing a
Function whose ``backward`` was wrong while its ``backward_array`` was right (a silent wrong
answer: gradgradcheck differentiated the wrong first derivative consistently). Each test
builds a Function whose mistake is known by construction; the expected values come from
NumPy formulas written here, never from the checker.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch.ops as F
from minitorch import Function, GradcheckError, Variable, gradcheck, gradgradcheck

X0 = np.array([-1.0, 0.3, 2.0])


class LogCosh(Function):
    """y = log cosh x (stable form);  dy/dx = tanh x, on both paths."""

    def forward(self, x: np.ndarray) -> np.ndarray:
        ax = np.abs(x)
        return ax + np.log1p(np.exp(-2 * ax)) - np.log(2.0)

    def backward(self, gy: Variable) -> Variable:
        (x,) = self.inputs
        return gy * F.tanh(x)

    def backward_array(self, gy: np.ndarray) -> np.ndarray:
        (x,) = self.input_arrays
        return gy * np.tanh(x)


class WrongBackward(LogCosh):
    """The trial's reproducer: backward squares tanh, backward_array is right."""

    def backward(self, gy: Variable) -> Variable:
        (x,) = self.inputs
        return gy * F.tanh(x) ** 2


class WrongBackwardArray(LogCosh):
    """The reverse: backward is right, backward_array squares tanh."""

    def backward_array(self, gy: np.ndarray) -> np.ndarray:
        (x,) = self.input_arrays
        return gy * np.tanh(x) ** 2


class WrongOnBoth(LogCosh):
    """The same wrong formula (tanh squared) on both paths."""

    def backward(self, gy: Variable) -> Variable:
        (x,) = self.inputs
        return gy * F.tanh(x) ** 2

    def backward_array(self, gy: np.ndarray) -> np.ndarray:
        (x,) = self.input_arrays
        return gy * np.tanh(x) ** 2


def _raised(check, cls: type[Function], x: np.ndarray = X0) -> GradcheckError:
    with pytest.raises(GradcheckError) as info:
        check(lambda v: cls()(v), x)
    return info.value


def test_the_correct_function_passes_both_checks() -> None:
    assert gradcheck(lambda v: LogCosh()(v), X0)
    assert gradgradcheck(lambda v: LogCosh()(v), X0)


def test_a_wrong_backward_with_a_right_backward_array_fails_gradcheck() -> None:
    err = _raised(gradcheck, WrongBackward)
    message = str(err)
    assert "backward (the create_graph path" in message
    assert "disagrees with backward_array and with finite differences" in message
    assert "fix WrongBackward.backward" in message and "fix WrongBackward.backward_array" not in (
        message
    )
    assert err.path == "backward" and err.functions == ("WrongBackward",) and err.order == 1
    # The values, whatever the random output weight w at that element: numeric and
    # first-order are w tanh x, the create_graph value is w tanh(x)**2.
    x = X0[err.index]
    assert err.first_order == pytest.approx(err.numeric, rel=1e-6)
    assert err.create_graph / err.first_order == pytest.approx(np.tanh(x))
    assert err.analytic == err.create_graph
    assert f"backward gives {err.create_graph:.6g}" in message
    assert f"backward_array gives {err.first_order:.6g}" in message
    assert f"element {err.index}" in message.lower()


def test_a_wrong_backward_array_with_a_right_backward_fails_gradcheck() -> None:
    err = _raised(gradcheck, WrongBackwardArray)
    message = str(err)
    assert message.startswith(
        "gradcheck: input 0: backward_array disagrees with finite differences"
    )
    assert "while backward (the create_graph path" in message and "agrees with them" in message
    assert "fix WrongBackwardArray.backward_array" in message
    assert err.path == "backward_array" and err.functions == ("WrongBackwardArray",)
    x = X0[err.index]
    assert err.create_graph == pytest.approx(err.numeric, rel=1e-6)
    assert err.first_order / err.create_graph == pytest.approx(np.tanh(x))


def test_gradgradcheck_checks_the_create_graph_first_derivative_first() -> None:
    # Before the fix it passed: the wrong backward is differentiated correctly.
    err = _raised(gradgradcheck, WrongBackward)
    message = str(err)
    assert message.startswith("gradgradcheck: the first derivative is already wrong")
    assert "backward (the create_graph path" in message
    assert err.path == "backward" and err.order == 1


def test_gradgradcheck_also_catches_a_wrong_backward_array() -> None:
    err = _raised(gradgradcheck, WrongBackwardArray)
    assert err.path == "backward_array" and err.order == 1


def test_the_same_mistake_on_both_paths_says_the_formula_is_wrong() -> None:
    err = _raised(gradcheck, WrongOnBoth)
    assert err.path == "both" and err.functions == ()
    assert "agree with each other, so the formula itself is wrong" in str(err)
    assert str(err).endswith("Functions on the graph from outside minitorch: WrongOnBoth")
    assert err.first_order == pytest.approx(err.create_graph)


def test_the_worst_element_is_reported_not_the_first() -> None:
    class OffByMuchAtTwo(LogCosh):
        def backward(self, gy: Variable) -> Variable:
            (x,) = self.inputs
            return gy * (F.tanh(x) + np.array([1e-2, 0.0, 1e3]))  # wrong at 0 and, far more, 2

    err = _raised(gradcheck, OffByMuchAtTwo)
    assert err.index == (2,)
    assert "the worst of 2 elements that differ" in str(err)


def test_the_input_that_is_wrong_is_named() -> None:
    class Mul(Function):
        def forward(self, x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
            return x0 * x1

        def backward(self, gy: Variable) -> tuple[Variable, Variable]:
            x0, x1 = self.inputs
            return gy * x1, gy * x1  # the second should be gy * x0

        def backward_array(self, gy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            x0, x1 = self.input_arrays
            return gy * x1, gy * x0

    with pytest.raises(GradcheckError) as info:
        gradcheck(lambda a, b: Mul()(a, b), np.array([1.0, 2.0]), np.array([3.0, -4.0]))
    assert info.value.input_index == 1 and info.value.path == "backward"
    assert "Mul (input 1, element" in str(info.value)


def test_ops_written_once_with_a_vjp_pass() -> None:
    class Cube(Function):
        def forward(self, x: np.ndarray) -> np.ndarray:
            return x**3

        def vjp(self, xp, xs, y, gy):
            (x,) = xs
            return 3 * x * x * gy

    assert gradcheck(lambda v: Cube()(v), X0)
    assert gradgradcheck(lambda v: Cube()(v), X0)
    assert gradcheck(lambda v: F.tanh(F.exp(v) * v).sum(), X0)


def test_a_function_with_only_backward_array_is_checked_on_its_one_path() -> None:
    class Half(Function):
        def forward(self, x: np.ndarray) -> np.ndarray:
            return 0.5 * x

        def backward_array(self, gy: np.ndarray) -> np.ndarray:
            return 0.5 * gy

    class HalfWrong(Half):
        def backward_array(self, gy: np.ndarray) -> np.ndarray:
            return gy

    assert gradcheck(lambda v: Half()(v), X0)
    err = _raised(gradcheck, HalfWrong)
    assert err.path == "backward_array"
    assert "backward(create_graph=True) was not checked" in str(err)


def test_an_error_only_on_the_create_graph_path_says_where_it_came_from() -> None:
    class NumpyOnVariables(LogCosh):
        def backward(self, gy: Variable) -> Variable:
            (x,) = self.inputs
            return gy * np.tanh(x)  # np.tanh of a Variable: TypeError

    with pytest.raises(TypeError) as info:
        gradcheck(lambda v: NumpyOnVariables()(v), X0)
    assert any("raised by backward(create_graph=True)" in note for note in info.value.__notes__)


def test_pytorch_style_tuple_of_inputs_is_refused_with_the_fix():
    # Fresh-user trial: gradcheck(f, (X,)) failed inside f ("can't multiply sequence").
    x = np.array([1.0, 2.0])
    with pytest.raises(TypeError, match=r"input 0 is a tuple of arrays.*gradcheck\(f, x, y\)"):
        gradcheck(lambda v: F.sum(v * v), (x,))


def test_a_list_of_index_arrays_is_still_one_input():
    # Only floating arrays are gradcheck's to perturb: a list of integer index arrays is
    # an ordinary argument of f (h37 found the tuple check refusing it).
    x = np.arange(9.0).reshape(3, 3)
    rows_cols = [np.array([0, 1]), np.array([2, 0])]
    assert gradcheck(lambda a, idx: F.sum(a[tuple(idx)] ** 2), x, rows_cols)


# ---- a constant gradient ------------------------------------------------------------------


def test_gradcheck_accepts_a_function_with_constant_output() -> None:
    from minitorch import gradgradcheck

    # d/dx (3x) = 3 is a constant: its own gradient is zero, not an error.
    assert gradgradcheck(lambda x: x * 3.0, np.array([1.0, 2.0]))


def test_the_culprit_is_named_when_only_an_edge_remembers_its_output() -> None:
    # Its output is saved by no op (Mismatch saves its input, `* 2.0` keeps the 2.0) and
    # held by nobody: the culprit search takes the output's shape from the edge.
    class Mismatch(Function):
        saves = ("inputs",)

        def forward(self, x):
            return np.sin(x)

        def backward(self, gy):
            return gy * F.cos(self.inputs[0])

        def backward_array(self, gy):
            return gy * np.cos(self.input_arrays[0]) * 2.0

    with pytest.raises(GradcheckError) as info:
        gradcheck(lambda x: Mismatch()(x) * 2.0, np.linspace(0.1, 1.0, 5))
    assert info.value.functions == ("Mismatch",)
    assert "fix Mismatch.backward_array" in str(info.value)
