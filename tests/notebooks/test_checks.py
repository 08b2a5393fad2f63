"""The exercise feedback helpers (``notebooks/checks.py``): right answers pass, wrong ones
fail with a message that names what differs and where."""

from __future__ import annotations

import doctest
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from minitorch import Function, Variable

CHECKS = Path(__file__).resolve().parents[2] / "notebooks" / "checks.py"


#: The modules ``checks.py`` gathers (one theme each); a notebook finds them beside it.
THEMES = ["checks_core", "checks_hints", "checks_values", "checks_gradients", "checks_trace"]


@pytest.fixture(scope="module")
def checks() -> ModuleType:
    if str(CHECKS.parent) not in sys.path:  # as in a notebook, whose folder is its cwd
        sys.path.insert(0, str(CHECKS.parent))
    spec = importlib.util.spec_from_file_location("course_checks", CHECKS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["course_checks"] = module
    spec.loader.exec_module(module)
    return module


class _Sigmoid(Function):
    def forward(self, x: np.ndarray) -> np.ndarray:
        return 1 / (1 + np.exp(-x))

    def backward(self, gy: Variable) -> Variable:
        y = self.output()
        return gy * y * (1 - y)


class _SigmoidMissingFactor(_Sigmoid):
    def backward(self, gy: Variable) -> Variable:
        return gy * self.output()  # forgot (1 - y)


class _SumsOutputs(Function):
    """Softmax whose backward returns zeros: the plain sum of outputs cannot catch it."""

    def forward(self, x: np.ndarray) -> np.ndarray:
        e = np.exp(x - x.max())
        return e / e.sum()

    def backward(self, gy: Variable) -> Variable:
        return gy * 0.0


def test_doctests_of_checks_pass(checks: ModuleType) -> None:
    results = [doctest.testmod(importlib.import_module(name)) for name in THEMES]
    assert sum(r.failed for r in results) == 0
    assert sum(r.attempted for r in results) >= 10  # the examples moved with their code


def test_check_close_passes_within_tolerance(checks: ModuleType) -> None:
    checks.check_close("y", Variable(np.array([1.0, 2.0])), np.array([1.0, 2.0 + 1e-9]))


def test_check_close_names_first_differing_index_and_values(checks: ModuleType) -> None:
    with pytest.raises(AssertionError, match=r"y differs at index 1: expected 2, got 2\.5"):
        checks.check_close("y", np.array([1.0, 2.5, 9.0]), np.array([1.0, 2.0, 3.0]))


def test_check_close_reports_a_shape_mismatch(checks: ModuleType) -> None:
    with pytest.raises(AssertionError, match=r"has shape \(3,\) but should have shape \(3, 1\)"):
        checks.check_close("y", np.zeros(3), np.zeros((3, 1)))


def test_check_close_reports_a_missing_return(checks: ModuleType) -> None:
    with pytest.raises(AssertionError, match="is None: did you forget to `return`"):
        checks.check_close("y", None, 1.0)


def test_check_close_appends_the_hint(checks: ModuleType) -> None:
    with pytest.raises(AssertionError, match="hint: step to both sides"):
        checks.check_close("d", 2.9997, 3.0, hint="step to both sides")


def test_check_gradient_accepts_a_correct_backward(checks: ModuleType) -> None:
    checks.check_gradient("Sigmoid", lambda v: _Sigmoid()(v), np.array([-2.0, 0.0, 1.5]))


def test_check_gradient_reports_the_plain_derivative_at_the_bad_index(
    checks: ModuleType,
) -> None:
    x = np.array([0.0, 1.0])
    sigma = 1 / (1 + np.exp(-x))
    expected, got = sigma[0] * (1 - sigma[0]), sigma[0]  # 0.25 and 0.5 at index 0
    with pytest.raises(AssertionError) as info:
        checks.check_gradient("Sigmoid", lambda v: _SigmoidMissingFactor()(v), x)
    message = str(info.value)
    assert "gradient of your Sigmoid differs at index 0" in message
    assert f"expected {expected:.4g} (finite differences)" in message
    assert f"got {got:.4g} (your backward)" in message


def test_check_gradient_catches_errors_that_cancel_in_the_sum(checks: ModuleType) -> None:
    with pytest.raises(AssertionError, match="randomly weighted outputs"):
        checks.check_gradient("Softmax", lambda v: _SumsOutputs()(v), np.array([0.1, 0.5, -1.0]))


def test_check_gradient_reports_a_wrong_gradient_shape(checks: ModuleType) -> None:
    class Unreduced(Function):
        def forward(self, x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
            return x0 * x1

        def backward(self, gy: Variable) -> tuple[Variable, Variable]:
            x0, x1 = self.inputs
            return gy * x1, gy * x0  # the second should be summed to x1's shape

    with pytest.raises(
        AssertionError,
        match=r"^gradient of your Unreduced for input 1 has shape \(2, 3\) but the input has "
        r"shape \(3,\)\n  hint: this input was broadcast: reduce gy to its shape, "
        r"F.sum_to\(gy, b.shape\) for b$",
    ):
        checks.check_gradient(
            "Unreduced", lambda a, b: Unreduced()(a, b), np.ones((2, 3)), np.ones(3)
        )


def test_check_true_raises_with_the_message(checks: ModuleType) -> None:
    checks.check_true(True, "unused")
    with pytest.raises(AssertionError, match="^count is 5, expected 4$"):
        checks.check_true(False, "count is 5, expected 4")


class _SigmoidOnArrays(_Sigmoid):
    def backward(self, gy: Variable) -> np.ndarray:
        y = self.output().data
        return y * (1 - y) * gy.data  # right values, but raw arrays


class _SigmoidPartlyOnArrays(_Sigmoid):
    def backward(self, gy: Variable) -> Variable:
        y = self.output().data
        return gy * Variable(y * (1 - y))  # a Variable, but y(1 - y) is a constant


def test_backward_on_variables_is_differentiable(checks: ModuleType) -> None:
    checks.check_backward_is_differentiable("Sigmoid", lambda v: _Sigmoid()(v), np.array([0.5]))


@pytest.mark.parametrize("check", ["check_gradient", "check_backward_is_differentiable"])
def test_backward_on_raw_arrays_is_rejected(checks: ModuleType, check: str) -> None:
    # The engine refuses a backward on raw arrays under create_graph=True (which
    # gradcheck's second path runs), so the first check already says what is wrong.
    x = np.array([0.5, -1.0])
    with pytest.raises(AssertionError) as info:
        getattr(checks, check)("Sigmoid", lambda v: _SigmoidOnArrays()(v), x)
    message = str(info.value)
    assert "computed on raw NumPy arrays" in message
    assert "no `.data`" in message


def test_backward_partly_on_raw_arrays_reports_the_second_derivative(
    checks: ModuleType,
) -> None:
    x = np.array([0.5, -1.0])
    with pytest.raises(AssertionError) as info:
        checks.check_backward_is_differentiable(
            "Sigmoid", lambda v: _SigmoidPartlyOnArrays()(v), x
        )
    message = str(info.value)
    # gradgradcheck names the worst element (here both are wrong: zero instead of y'')
    assert re.search(r"second derivative of your Sigmoid differs at index [01]:", message)
    assert re.search(r"expected -?\d\S* \(finite differences\), got 0 ", message)


def test_explain_errors_turns_an_exception_into_guidance(checks: ModuleType) -> None:
    def count(y: Any) -> int:
        return len(y.creator.inputs)

    with pytest.raises(AssertionError) as info:
        with checks.explain_errors("count(leaf)", ("'NoneType'", "a leaf has no creator")):
            count(Variable(np.array(1.0)))
    message = str(info.value)
    assert message.startswith("count(leaf) failed: AttributeError: 'NoneType' object")
    assert "in count: `return len(y.creator.inputs)`" in message
    assert message.endswith("hint: a leaf has no creator")


def test_explain_errors_passes_failed_checks(checks: ModuleType) -> None:
    with pytest.raises(AssertionError, match="^1 != 2$"), checks.explain_errors("f(x)"):
        raise AssertionError("1 != 2")


def test_explain_errors_says_an_untouched_stub_is_not_done(checks: ModuleType) -> None:
    with pytest.raises(checks.NotDoneYet) as info, checks.explain_errors("f(x)"):
        raise NotImplementedError()
    assert isinstance(info.value, AssertionError)  # nbgrader: a failed test like any other
    assert str(info.value).startswith("f(x): this exercise is not done yet")


def test_explain_errors_keeps_a_library_not_implemented_message(checks: ModuleType) -> None:
    class NoBackward(Function):
        def forward(self, x: np.ndarray) -> np.ndarray:
            return x * 2

    with pytest.raises(AssertionError, match="NoBackward.backward is not defined") as info:
        with checks.explain_errors("backward of your NoBackward"):
            NoBackward().backward(Variable(np.ones(1)))
    assert not isinstance(info.value, checks.NotDoneYet)


def test_check_done_names_what_is_still_none(checks: ModuleType) -> None:
    checks.check_done(ga=1.0, gx=0.0)
    with pytest.raises(checks.NotDoneYet, match="^ga, gx are still None: this exercise is not"):
        checks.check_done(ga=None, gx=None)


class _ExpOnArrays(Function):
    def forward(self, x: np.ndarray) -> np.ndarray:
        return np.exp(x)

    def backward(self, gy: Variable) -> Variable:
        return gy * np.exp(self.inputs[0])  # NumPy on a Variable


class _CompareVariable(Function):
    def forward(self, x: np.ndarray) -> np.ndarray:
        return np.maximum(x, 0)

    def backward(self, gy: Variable) -> Variable:
        (x,) = self.inputs
        return gy * (x > 0.0) if isinstance(x, np.ndarray) else gy * (x <= 0.0)


class _ModuloVariable(Function):
    def forward(self, x: np.ndarray) -> np.ndarray:
        return x % 1.0

    def backward(self, gy: Variable) -> Variable:
        (x,) = self.inputs
        return gy * (x % 1.0)  # a Variable: minitorch has no modulo op


class _DataInForward(Function):
    def forward(self, x: np.ndarray) -> np.ndarray:
        return x.data**2  # forward already receives an ndarray

    def backward(self, gy: Variable) -> Variable:
        return gy


@pytest.mark.parametrize(
    ("function", "words"),
    [
        (_ExpOnArrays, "this is a Variable: NumPy functions need arrays; use F.exp(...)"),
        (_CompareVariable, "this is a Variable: use .data to compare its values"),
        (_ModuloVariable, "this is a Variable: use .data for % and //"),
        (_DataInForward, "this is an ndarray already (forward receives arrays): drop the .data"),
    ],
)
def test_variable_ndarray_mixups_get_a_one_line_hint(
    checks: ModuleType, function: type[Function], words: str
) -> None:
    with pytest.raises(AssertionError) as info:
        checks.check_gradient(function.__name__, lambda v: function()(v), np.array([0.5, 1.0]))
    assert f"hint: {words}" in str(info.value)


def test_an_ndarray_used_as_a_variable_gets_a_one_line_hint(checks: ModuleType) -> None:
    with pytest.raises(AssertionError) as info, checks.explain_errors("walk(y)"):
        np.ones(2).creator  # noqa: B018
    assert "hint: this is an ndarray, not a Variable: it has no creator" in str(info.value)


def test_check_is_variable_and_check_is_array(checks: ModuleType) -> None:
    checks.check_is_variable("g", Variable(np.ones(2)))
    checks.check_is_array("g", np.ones(2))
    with pytest.raises(AssertionError, match="^g is an ndarray, not a Variable: compute it"):
        checks.check_is_variable("g", np.ones(2))
    with pytest.raises(AssertionError, match="^g is a Variable: use .data to get its ndarray$"):
        checks.check_is_array("g", Variable(np.ones(2)))


def test_time_limit_stops_a_loop_that_never_ends(checks: ModuleType) -> None:
    with pytest.raises(AssertionError, match="^the loop never ends$"):
        with checks.time_limit(0.2, "the loop never ends"):
            while True:
                pass


def test_explain_errors_does_not_mention_sum_to(checks: ModuleType) -> None:
    class Summed(_Sigmoid):
        def backward(self, gy: Variable) -> Variable:
            return gy.sum()

    with pytest.raises(AssertionError) as info:
        checks.check_gradient("Sigmoid", lambda v: Summed()(v), np.array([0.5, 1.0]))
    message = str(info.value)
    assert "has shape () but the input has shape (2,)" in message
    assert "sum_to" not in message
    assert "hint: each gradient must have the shape of its input" in message


def test_check_gradient_explains_an_attribute_error_in_backward(checks: ModuleType) -> None:
    class Typo(_Sigmoid):
        def backward(self, gy: Variable) -> Variable:
            return gy * self.outptu()  # type: ignore[attr-defined]

    with pytest.raises(AssertionError, match=r"backward of your Sigmoid failed: AttributeError"):
        checks.check_gradient("Sigmoid", lambda v: Typo()(v), np.array([0.5]))


@pytest.mark.parametrize(
    ("got", "hint"),
    [
        (np.array([1.0, 2.5]), "too large"),
        (np.array([1.0, 1.28]), "too small"),
        (np.array([1.0, -2.5]), "other"),
    ],
)
def test_ratio_hint_follows_the_first_differing_element(
    checks: ModuleType, got: np.ndarray, hint: str
) -> None:
    with pytest.raises(AssertionError, match=f"hint: {hint}$"):
        checks.check_close(
            "g",
            got,
            np.array([1.0, 2.25]),
            hint=checks.ratio_hint("too large", "too small", "other"),
        )


@pytest.mark.parametrize(
    ("got", "words"),
    [
        (6.0, "exactly twice"),  # divided by h, not 2h
        (3.0 + 3e-4, "one-sided difference"),  # forward difference with h = 1e-4
        (5000.5, "check the brackets"),  # a - b / (2 * h)
        (3e-8, r"`d / 2 \* h` multiplies by h"),  # d / 2 * h
    ],
)
def test_difference_hint_names_the_kind_of_mistake(
    checks: ModuleType, got: float, words: str
) -> None:
    with pytest.raises(AssertionError, match=words):
        checks.check_close(
            "d", np.array([got]), np.array([3.0]), hint=checks.difference_hint(1e-4)
        )


# -- a fresh-user trial: a wrong `backward` with a right `backward_array` passed both checks --
class _LogCosh(Function):
    """log cosh x;  both methods compute tanh x."""

    def forward(self, x: np.ndarray) -> np.ndarray:
        ax = np.abs(x)
        return ax + np.log1p(np.exp(-2 * ax)) - np.log(2.0)

    def backward(self, gy: Variable) -> Variable:
        import minitorch.ops as F

        (x,) = self.inputs
        return gy * F.tanh(x)

    def backward_array(self, gy: np.ndarray) -> np.ndarray:
        (x,) = self.input_arrays
        return gy * np.tanh(x)


class _LogCoshWrongBackward(_LogCosh):
    def backward(self, gy: Variable) -> Variable:
        import minitorch.ops as F

        (x,) = self.inputs
        return gy * F.tanh(x) ** 2  # the mistake: tanh squared


class _LogCoshWrongBackwardArray(_LogCosh):
    def backward_array(self, gy: np.ndarray) -> np.ndarray:
        (x,) = self.input_arrays
        return gy * np.tanh(x) ** 2  # the mistake: tanh squared


TRIAL_X = np.array([-1.0, 0.3, 2.0])


def test_check_gradient_names_a_wrong_backward_when_backward_array_is_right(
    checks: ModuleType,
) -> None:
    with pytest.raises(AssertionError) as info:
        checks.check_gradient("LogCosh", lambda v: _LogCoshWrongBackward()(v), TRIAL_X)
    message = str(info.value)
    t = np.tanh(TRIAL_X[0])  # the first element that differs: the plain derivative there
    assert message.startswith(
        "gradient of your LogCosh.backward (used by backward(create_graph=True)"
    )
    assert "differs at index 0" in message
    assert f"expected {t:.4g} (finite differences), got {t**2:.4g} (your backward)" in message
    assert f"your backward_array (used by a plain backward()) gives {t:.4g}" in message
    assert "compare your backward with your backward_array" in message


def test_check_gradient_names_a_wrong_backward_array_when_backward_is_right(
    checks: ModuleType,
) -> None:
    with pytest.raises(AssertionError) as info:
        checks.check_gradient("LogCosh", lambda v: _LogCoshWrongBackwardArray()(v), TRIAL_X)
    message = str(info.value)
    t = np.tanh(TRIAL_X[0])
    assert message.startswith(
        "gradient of your LogCosh.backward_array (used by a plain backward())"
    )
    assert f"got {t**2:.4g} (your backward_array)" in message
    assert "your backward (used by backward(create_graph=True)" in message
    assert f"gives {t:.4g}, the right value" in message
    assert "compare your backward_array with your backward" in message


def test_check_backward_is_differentiable_does_not_praise_wrong_values(
    checks: ModuleType,
) -> None:
    # It used to say "has the right values" here, and gradgradcheck passed.
    with pytest.raises(AssertionError) as info:
        checks.check_backward_is_differentiable(
            "LogCosh", lambda v: _LogCoshWrongBackward()(v), TRIAL_X
        )
    message = str(info.value)
    assert "right values" not in message
    assert message.startswith("gradient of your LogCosh.backward (used by")
    assert "compare your backward with your backward_array" in message


def test_both_checks_pass_the_right_function(checks: ModuleType) -> None:
    checks.check_gradient("LogCosh", lambda v: _LogCosh()(v), TRIAL_X)
    checks.check_backward_is_differentiable("LogCosh", lambda v: _LogCosh()(v), TRIAL_X)


def test_check_gradient_accepts_a_function_with_only_backward_array(checks: ModuleType) -> None:
    class Hypot(Function):  # notebook 08's exercise 2 defines no backward
        def forward(self, x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
            return np.hypot(x0, x1)

        def backward_array(self, gy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            x0, x1 = self.input_arrays
            y = self.output().data
            return gy * x0 / y, gy * x1 / y

    checks.check_gradient("Hypot", lambda u, v: Hypot()(u, v), TRIAL_X, TRIAL_X[::-1] + 0.5)


def test_the_randomly_weighted_pass_names_the_method_too(checks: ModuleType) -> None:
    class Cancels(_LogCosh):
        """backward is wrong by a term whose plain sum is zero: only the weights see it."""

        def backward(self, gy: Variable) -> Variable:
            import minitorch.ops as F

            (x,) = self.inputs
            return gy * F.tanh(x) + (gy - gy.sum() / gy.size)

    with pytest.raises(AssertionError) as info:
        checks.check_gradient("LogCosh", lambda v: Cancels()(v), TRIAL_X)
    message = str(info.value)
    assert "gradient of your LogCosh.backward (used by" in message
    assert "(for randomly weighted outputs)" in message


def test_a_method_that_did_not_run_is_not_called_right(checks: ModuleType) -> None:
    """Issue 28 (11 Ex5): an unwritten backward (NaN) was said to give 'nan, the right value'."""
    values = {"backward_array": 2.0, "backward": float("nan")}
    message = checks._method_message("Conv", " at index 0", "expected 1", "backward_array", values)
    assert "nan" not in message and "the right value" not in message
    assert message.startswith("gradient of your Conv.backward_array (used by a plain backward())")


def test_gradient_diagnosis_says_only_what_the_numbers_show(checks: ModuleType) -> None:
    right = [np.array([1.0, 2.0]), np.array([3.0, -4.0])]
    assert "input 1's gradient" in checks.gradient_diagnosis(right[1], right, 0)
    assert "wrong sign" in checks.gradient_diagnosis(-right[0], right, 0)
    assert "exactly 0.5 times" in checks.gradient_diagnosis(0.5 * right[1], right, 1)
    assert checks.gradient_diagnosis(right[0] + [0.1, 0.0], right, 0) == ""
