"""Feedback for the exercises of the minitorch course.

Each check either prints one line starting with ``✓`` or raises ``AssertionError`` with a
message that says *what* is wrong and *where*: the first element that differs, its
expected and actual values, the shape that was expected. nbgrader counts an
``AssertionError`` as a failed test, so the same cells grade a class.

Only NumPy is needed at import time; the gradient checks import ``minitorch`` when called.
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np


def ok(message: str) -> None:
    """Print a success line.

    Example:
        >>> ok("Cube computes x**3")
        ✓ Cube computes x**3
    """
    print(f"✓ {message}")


NOT_DONE = (
    "this exercise is not done yet: replace `raise NotImplementedError()` in the exercise "
    "cell above with your code, run that cell, then run this check"
)


class NotDoneYet(AssertionError):
    """The check of an exercise whose stub has not been replaced yet.

    An ``AssertionError``, so nbgrader counts it as a failed test like any other.
    """


def check_done(**answers: Any) -> None:
    """Fail with "not done yet" if any answer is still ``None`` (its template value).

    An exercise that asks for values (``ga = gx = None`` above the solution) calls this
    first, so an untouched exercise is reported as such instead of comparing a stale value
    left by an earlier cell.

    Raises:
        NotDoneYet: naming the answers that are still ``None``.

    Example:
        >>> try:
        ...     check_done(ga=1.0, gx=None)
        ... except NotDoneYet as err:
        ...     print(err)
        gx is still None: this exercise is not done yet: replace `raise NotImplementedError()` in the exercise cell above with your code, run that cell, then run this check
    """
    missing = [name for name, value in answers.items() if value is None]
    if missing:
        names = ", ".join(missing)
        verb = "are" if len(missing) > 1 else "is"
        raise NotDoneYet(f"{names} {verb} still None: {NOT_DONE}")


@contextmanager
def explain_errors(what: str, *hints: tuple[str, str]) -> Iterator[None]:
    """Turn an exception from the student's code into an ``AssertionError`` with guidance.

    The message names the exception, the student's line that raised it, and the first
    hint whose ``pattern`` occurs in ``"ErrorType: message"``; without one, the usual
    Variable/ndarray mix-ups get a one-line hint of their own (:func:`type_hint`).
    ``AssertionError`` (a check that failed) passes unchanged; the stub's bare
    ``NotImplementedError()`` becomes :class:`NotDoneYet` ("this exercise is not done
    yet").

    Args:
        what: the call being checked ("count_functions(y)").
        hints: ``(pattern, hint)`` pairs.

    Example:
        >>> with explain_errors("f(x)", ("NoneType", "did f return its result?")):
        ...     None.inputs
        Traceback (most recent call last):
        ...
        AssertionError: f(x) failed: AttributeError: 'NoneType' object has no attribute 'inputs'
          in <module>: `None.inputs`
          hint: did f return its result?
    """
    try:
        yield
    except AssertionError:
        raise
    except NotImplementedError as err:
        if not str(err):  # the stub's bare `raise NotImplementedError()`
            raise NotDoneYet(f"{what}: {NOT_DONE}") from None
        raise AssertionError(f"{what} failed: NotImplementedError: {err}") from None
    except Exception as err:
        if isinstance(err, RuntimeError) and _RAW_ARRAYS in str(err):
            raise AssertionError(_raw_arrays_message(what, str(err))) from None
        text = f"{type(err).__name__}: {err}"
        line = _student_line(err)
        hint = next((h for pattern, h in hints if pattern in text), "")
        if "; reduce broadcast dimensions" in text:  # sum_to is taught in notebook 07
            text = text.split("; reduce broadcast dimensions")[0]
            hint = hint or "each gradient must have the shape of its input"
        hint = hint or type_hint(text, line)
        message = f"{what} failed: {text}{line}"
        raise AssertionError(message + (f"\n  hint: {hint}" if hint else "")) from None


#: What the engine says when backward(create_graph=True) meets a backward on raw arrays.
_RAW_ARRAYS = "would give silent zeros"


def _raw_arrays_message(what: str, error: str) -> str:
    """The engine refused a backward computed on raw arrays: say it as notebook 06 would."""
    kind = " (this is an ndarray, not a Variable)" if "is a ndarray" in error else ""
    return (
        f"almost there: {what} has a gradient computed on raw NumPy arrays{kind}, so "
        "it is a constant that backward(create_graph=True) cannot differentiate again "
        "(notebook 06 needs that)\n  hint: use only Variables (`self.inputs`, "
        "`self.output()`, `gy`) and minitorch operations (+, -, *, F.exp, ...): no "
        "`.data`, no np.* functions"
    )


def type_hint(text: str, line: str = "") -> str:
    """One line of guidance for an error that comes from mixing Variables and ndarrays.

    ``text`` is ``"ErrorType: message"``; ``line`` the student's source line, from which a
    NumPy function's name is read to name the minitorch op to use instead. Returns ``""``
    for any other error.

    Example:
        >>> type_hint("TypeError: operand 'Variable' does not support ufuncs", "np.exp(y)")
        'this is a Variable: NumPy functions need arrays; use F.exp(...) on Variables (or .data for the raw array)'
        >>> type_hint("TypeError: np.dot does not record a graph for Variables; use F.matmul(...) ...")
        'this is a Variable: NumPy functions need arrays; use F.matmul(...) on Variables (or .data for the raw array)'
        >>> type_hint("AttributeError: 'numpy.ndarray' object has no attribute 'creator'")
        'this is an ndarray, not a Variable: it has no creator; wrap it with Variable(...) or compute it with minitorch ops (F.<op>)'
    """  # noqa: E501
    if (
        "does not support ufuncs" in text  # a Variable class with __array_ufunc__ = None
        or "argument 0 of type Variable" in text
        or "NumPy was given a Variable" in text  # np.asarray / np.array on one
        or "does not record a graph for Variables" in text  # np.exp(x), np.sum(x), ...
    ):
        named = re.search(r"use (F\.\w+)\(", text)  # minitorch's message names the op
        name = re.search(r"\bnp\.(\w+)\(", line)
        if "has no op for it" in text:  # e.g. np.reciprocal: there is no F.reciprocal
            missing = f"np.{name.group(1)}" if name else "this NumPy function"
            return (
                f"this is a Variable: NumPy functions need arrays, and minitorch has no "
                f"{missing}; write it with operators and F ops on Variables (1 / x, x * x, "
                "F.exp(x), ...), or use .data for the raw array"
            )
        if named:
            op = f"{named.group(1)}(...)"
        else:
            op = f"F.{name.group(1)}(...)" if name else "F.<op>"
        return (
            f"this is a Variable: NumPy functions need arrays; use {op} on Variables (or "
            ".data for the raw array)"
        )
    if "cannot store a Variable in an ndarray" in text:  # p.data -= lr * p.grad
        return "this is a Variable: an ndarray can only take arrays; use its .data"
    if re.search(r"between instances of '\w+' and 'Variable'|of 'Variable' and '", text) or (
        "records no graph for comparisons" in text  # minitorch's own message for x < 0
    ):
        return "this is a Variable: use .data to compare its values (an ndarray)"
    if "has no modulo op" in text or "has no floor-division op" in text:
        return "this is a Variable: use .data for % and // (an ndarray; no gradient)"
    if "'Variable' object cannot be interpreted" in text or "float() argument must be" in text:
        return "this is a Variable: use .data (an ndarray) or .item() (a number)"
    match = re.search(r"'numpy\.(ndarray|float64)' object has no attribute '(\w+)'", text)
    if match:
        kind = "an ndarray" if match.group(1) == "ndarray" else "a NumPy number"
        return (
            f"this is {kind}, not a Variable: it has no {match.group(2)}; wrap it with "
            "Variable(...) or compute it with minitorch ops (F.<op>)"
        )
    if "memoryview" in text:
        return "this is an ndarray already (forward receives arrays): drop the .data"
    return ""


def check_is_variable(name: str, value: Any) -> None:
    """Assert that ``value`` is a minitorch ``Variable``, with a one-line hint otherwise.

    Raises:
        AssertionError: "... is an ndarray: use F.<op> ..." for an array, "... is None:
            did you forget to return" for ``None``.

    Example:
        >>> check_is_variable("your gradient", np.ones(2))
        Traceback (most recent call last):
        ...
        AssertionError: your gradient is an ndarray, not a Variable: compute it with minitorch ops (F.<op>, +, *) on Variables, not with NumPy or .data
    """  # noqa: E501
    from minitorch import Variable

    if isinstance(value, Variable):
        return
    if value is None:
        raise AssertionError(f"{name} is None: did you forget to `return` the result?")
    if isinstance(value, np.ndarray | np.generic | float | int):
        kind = "an ndarray" if isinstance(value, np.ndarray) else "a number"
        raise AssertionError(
            f"{name} is {kind}, not a Variable: compute it with minitorch ops (F.<op>, +, *) "
            "on Variables, not with NumPy or .data"
        )
    raise AssertionError(f"{name} should be a Variable, got {type(value).__name__}")


def check_is_array(name: str, value: Any) -> None:
    """Assert that ``value`` is a NumPy ndarray, with a one-line hint for a Variable.

    Example:
        >>> from minitorch import Variable
        >>> check_is_array("your estimate", Variable(np.ones(2)))
        Traceback (most recent call last):
        ...
        AssertionError: your estimate is a Variable: use .data to get its ndarray
    """
    if isinstance(value, np.ndarray):
        return
    if value is None:
        raise AssertionError(f"{name} is None: did you forget to `return` the result?")
    if hasattr(value, "creator") and hasattr(value, "data"):
        raise AssertionError(f"{name} is a Variable: use .data to get its ndarray")
    raise AssertionError(f"{name} should be an ndarray, got {type(value).__name__}")


@contextmanager
def time_limit(seconds: float, message: str) -> Iterator[None]:
    """Fail with ``message`` if the block runs longer than ``seconds`` (a loop that never ends).

    Uses ``SIGALRM``, so it works in the main thread on Linux and macOS (where Jupyter runs
    cells); elsewhere the block simply runs without a limit.

    Raises:
        AssertionError: with ``message`` when the time is up.

    Example:
        >>> with time_limit(5, "too slow"):
        ...     sum(range(10))
        45
    """
    import signal
    import threading

    if (
        not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise AssertionError(message)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


_LIBRARY_MARKERS = ("site-packages", "/minitorch/", "/numpy/")


def _student_line(err: BaseException) -> str:
    """The last line of the traceback outside the libraries and this file, if any."""
    for frame in reversed(traceback.extract_tb(err.__traceback__)):
        filename = frame.filename.replace("\\", "/")
        if Path(filename) == Path(__file__) or any(m in filename for m in _LIBRARY_MARKERS):
            continue
        return f"\n  in {frame.name}: `{frame.line}`" if frame.line else ""
    return ""


def _array(name: str, value: Any) -> np.ndarray:
    if value is None:
        raise AssertionError(f"{name} is None: did you forget to `return` the result?")
    data = getattr(value, "data", value)  # a minitorch Variable or an array
    try:
        return np.asarray(data, dtype=np.float64)
    except (TypeError, ValueError):
        raise AssertionError(
            f"{name} should be a number or an array, got {type(value).__name__}"
        ) from None


def _index(index: tuple[int, ...]) -> str:
    if len(index) == 0:
        return ""
    return f" at index {index[0]}" if len(index) == 1 else f" at index {index}"


Hint = str | Callable[[np.ndarray, np.ndarray], str]


def check_close(
    name: str, got: Any, expected: Any, atol: float = 1e-6, rtol: float = 1e-5, hint: Hint = ""
) -> None:
    """Assert that ``got`` equals ``expected`` elementwise (within tolerances).

    Args:
        name: what is being checked, used in the messages ("your Cube's forward").
        got: a number, an ndarray or a Variable.
        expected: the reference value.
        atol: absolute tolerance.
        rtol: relative tolerance.
        hint: appended to a failure message; a function ``hint(got, expected)`` of the two
            arrays chooses the hint from the kind of error (see :func:`ratio_hint`).

    Raises:
        AssertionError: naming the shape mismatch, or the first differing index with the
            expected and actual values.

    Example:
        >>> check_close("y", np.array([1.0, 2.0, 3.5]), np.array([1.0, 2.0, 3.0]))
        Traceback (most recent call last):
        ...
        AssertionError: y differs at index 2: expected 3, got 3.5 (1 of 3 elements differ)
    """
    got_array, expected_array = _array(name, got), _array("the reference", expected)
    if got_array.shape != expected_array.shape:
        suffix = "" if callable(hint) or not hint else f"\n  hint: {hint}"
        raise AssertionError(
            f"{name} has shape {got_array.shape} but should have shape "
            f"{expected_array.shape}{suffix}"
        )
    bad = ~np.isclose(got_array, expected_array, atol=atol, rtol=rtol)
    if bad.any():
        text = hint(got_array, expected_array) if callable(hint) else hint
        suffix = f"\n  hint: {text}" if text else ""
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise AssertionError(
            f"{name} differs{_index(index)}: expected {expected_array[index]:.6g}, "
            f"got {got_array[index]:.6g}{_count(bad)}{suffix}"
        )


def ratio_hint(too_large: str, too_small: str, otherwise: str = "") -> Hint:
    """A hint for :func:`check_close` that depends on the direction of the error.

    ``too_large`` is given when the first differing element (the one the message names)
    is larger in size than expected with the same sign, ``too_small`` when it is smaller,
    ``otherwise`` else.

    Example:
        >>> hint = ratio_hint("counted twice?", "a contribution lost?")
        >>> hint(np.array([1.0, 1.28]), np.array([1.0, 2.25]))
        'a contribution lost?'
    """

    def hint(got: np.ndarray, expected: np.ndarray) -> str:
        bad = np.argwhere(~np.isclose(got, expected))
        if len(bad) == 0:
            return otherwise
        index = tuple(bad[0])
        g, e = got[index], expected[index]
        if abs(g) > abs(e) and np.sign(g) == np.sign(e):
            return too_large
        return too_small if abs(g) < abs(e) else otherwise

    return hint


def difference_hint(h: float) -> Hint:
    """A hint for :func:`check_close` that names the usual mistakes in a central difference
    with step ``h``: dividing by ``h`` instead of ``2h``, a one-sided difference, brackets.

    Example:
        >>> difference_hint(1e-4)(np.array([6.0]), np.array([3.0]))
        'exactly twice the derivative: divide by 2*h, the distance from x-h to x+h'
    """

    def hint(got: np.ndarray, expected: np.ndarray) -> str:
        nonzero = expected != 0
        ratio = got[nonzero] / expected[nonzero]
        if ratio.size and np.allclose(ratio, 2.0, rtol=1e-3):
            return "exactly twice the derivative: divide by 2*h, the distance from x-h to x+h"
        if ratio.size and np.allclose(ratio, 0.5, rtol=1e-3):
            return "exactly half the derivative: divide by 2*h, not by 4*h"
        error, scale = np.abs(got - expected), 1 + np.abs(expected)
        if np.all(error < 10 * h * scale):
            return (
                "off by a few times h: that is a one-sided difference such as "
                "(f(x+h) - f(x)) / h; step to both sides, x+h and x-h"
            )
        if np.any(np.abs(got) > 10 * scale) or np.any(np.abs(got) < 0.1 * np.abs(expected)):
            return (
                "far off: check the brackets; `a - b / (2 * h)` divides only b and "
                "`d / 2 * h` multiplies by h; write `(y_plus - y_minus) / (2 * h)`"
            )
        return "compute (f(x+h) - f(x-h)) / (2*h) from the outputs' .data"

    return hint


def _count(bad: np.ndarray) -> str:
    return f" ({int(bad.sum())} of {bad.size} elements differ)" if bad.size > 1 else ""


def check_gradient(name: str, f: Callable[..., Any], *inputs: Any) -> None:
    """Assert that both backward methods of ``f`` agree with finite differences at ``inputs``.

    A Function computes its gradient two ways: ``backward_array`` (NumPy, used by a plain
    ``backward()``) and ``backward`` (minitorch ops, used by ``backward(create_graph=True)``
    and so by every second derivative). Both are checked, so a mistake in either one is
    found, and named as a mistake *there*. Two passes, so the message is easy to read and
    the check is hard to fool:

    1. the gradient of ``sum(f(*inputs))`` on both paths — for an elementwise ``f`` this
       is simply ``f'(x)`` at every element, the number a student can work out by hand;
    2. ``minitorch.gradcheck``, which weights the outputs randomly so that no error can
       cancel out in the sum (it checks both paths too).

    Either way the message names the method that is wrong, the input, the index, the
    finite-difference value, the wrong value and, when only one method is wrong, the value
    of the other one to compare with.

    Raises:
        AssertionError: if a gradient differs or backward fails.

    Example:
        >>> import minitorch.ops as F
        >>> check_gradient("tanh", F.tanh, np.array([0.5, -1.0]))

    References:
        Nocedal and Wright, *Numerical Optimization*, 2nd ed., section 8.1 (central
        differences).
    """
    from minitorch.gradcheck import GradcheckError, gradcheck

    try:
        with explain_errors(f"backward of your {name}"):
            _check_sum_gradient(name, f, inputs)
            gradcheck(f, *inputs)
    except GradcheckError as err:
        raise AssertionError(_gradcheck_message(name, err, inputs)) from None


def _which(k: int, inputs: tuple[Any, ...]) -> str:
    return f" for input {k}" if len(inputs) > 1 else ""


#: How each backward method is used, for the messages.
_USED_BY = {
    "backward_array": "used by a plain backward()",
    "backward": "used by backward(create_graph=True), and so by second derivatives",
}


def _gradcheck_message(name: str, err: Any, inputs: tuple[Any, ...]) -> str:
    """A GradcheckError (randomly weighted outputs) as a message naming the wrong method."""
    where = f"{_which(err.input_index, inputs)}{_index(err.index)}"
    expected = f"expected {err.numeric:.4g} (finite differences)"
    values = {"backward_array": err.first_order, "backward": err.create_graph}
    return _method_message(
        name, where + " (for randomly weighted outputs)", expected, err.path, values
    )


def _method_message(
    name: str, where: str, expected: str, path: str, values: dict[str, float]
) -> str:
    """Say which of the student's two backward methods is wrong, and what to compare.

    ``path``: "backward_array" or "backward" (only that method is wrong) or "both";
    ``values``: each method's value at the element (NaN for one that was not run).
    """
    if path in _USED_BY:
        other = "backward" if path == "backward_array" else "backward_array"
        return (
            f"gradient of your {name}.{path} ({_USED_BY[path]}) differs{where}: {expected}, "
            f"got {values[path]:.4g} (your {path}), while your {other} "
            f"({_USED_BY[other]}) gives {values[other]:.4g}, the right value\n  hint: "
            f"backward and backward_array must compute the same formula; compare your "
            f"{path} with your {other}"
        )
    fast, slow = values["backward_array"], values["backward"]
    if np.isnan(slow) or np.isclose(fast, slow, atol=1e-5, rtol=1e-4):
        return (
            f"gradient of your {name} differs{where}: {expected}, got {fast:.4g} (your backward)"
        )
    return (
        f"both backward methods of your {name} are wrong{where}: {expected}, got "
        f"{slow:.4g} from your backward ({_USED_BY['backward']}) and {fast:.4g} from your "
        f"backward_array ({_USED_BY['backward_array']})"
    )


def _sum_gradients(
    f: Callable[..., Any], arrays: list[np.ndarray], create_graph: bool
) -> tuple[list[Any], list[Any]]:
    """The inputs' gradients of ``sum(f(x))`` (None where none came) and f's outputs."""
    from minitorch import Variable

    variables = [Variable(a.copy()) for a in arrays]
    result = f(*variables)
    outputs = list(result) if isinstance(result, (list, tuple)) else [result]
    total = outputs[0].sum()
    for y in outputs[1:]:
        total = total + y.sum()
    total.backward(create_graph=create_graph)
    grads = [None if v.grad is None else np.asarray(v.grad.data, np.float64) for v in variables]
    return grads, outputs


def _defines_backward(outputs: list[Any]) -> bool:
    """False if a Function on the graph defines only ``backward_array`` (no create_graph)."""
    from minitorch import Function
    from minitorch.core.graph import functions

    for func in functions(*outputs):
        cls = type(func)
        if cls.backward is Function.backward and cls.vjp is Function.vjp:
            return False
    return True


def _check_sum_gradient(name: str, f: Callable[..., Any], inputs: tuple[Any, ...]) -> None:
    """Pass 1 of :func:`check_gradient`: ``sum(f(x))``'s gradient on each path vs numbers."""
    from minitorch.gradcheck import numerical_grad

    arrays = [np.array(x, dtype=np.float64) for x in inputs]
    fast, outputs = _sum_gradients(f, arrays, create_graph=False)
    # A Function with only backward_array has no create_graph path: nothing to compare.
    slow = _sum_gradients(f, arrays, True)[0] if _defines_backward(outputs) else None
    ones = [np.ones(y.shape) for y in outputs]
    for k in range(len(arrays)):
        got = {"backward_array": fast[k]}
        if slow is not None:
            got["backward"] = slow[k]
        if any(g is None for g in got.values()):
            raise AssertionError(
                f"your {name} gave no gradient{_which(k, inputs)}: does backward return "
                "one gradient per input?"
            )
        numeric = numerical_grad(f, arrays, k, ones)
        for g in got.values():
            if g.shape != numeric.shape:
                raise AssertionError(
                    f"gradient of your {name}{_which(k, inputs)} has shape {g.shape}, but "
                    f"the input has shape {numeric.shape}"
                )
        bad = {m: ~np.isclose(g, numeric, atol=1e-5, rtol=1e-4) for m, g in got.items()}
        wrong = [m for m, b in bad.items() if b.any()]
        if not wrong:
            continue
        either = np.logical_or.reduce([bad[m] for m in wrong])
        index = tuple(int(i) for i in np.argwhere(either)[0])
        path = wrong[0] if len(wrong) == 1 and slow is not None else "both"
        values = {m: float(got[m][index]) if m in got else float("nan") for m in _USED_BY}
        where = f"{_which(k, inputs)}{_index(index)}"
        expected = f"expected {numeric[index]:.4g} (finite differences)"
        message = _method_message(name, where, expected, path, values)
        raise AssertionError(message + (_count(either) if path == "both" else ""))


def check_backward_is_differentiable(name: str, f: Callable[..., Any], *inputs: Any) -> None:
    """Assert that the backward of ``f`` gives the right values and can be differentiated.

    ``backward`` is what ``backward(create_graph=True)`` runs, and second derivatives
    (notebook 06) differentiate what it returns. Three steps, for a precise message:

    1. the gradient from ``backward(create_graph=True)`` (and from a plain ``backward()``)
       must agree with finite differences — a wrong ``backward`` is reported as wrong even
       when ``backward_array`` is right, naming both values;
    2. every input's gradient must then have a creator: a backward that computes on raw
       arrays (``.data``, ``np.exp``) gives the right numbers but cuts the graph, so
       ``backward(create_graph=True)`` records nothing and second derivatives come out as
       zero;
    3. ``minitorch.gradcheck.gradgradcheck`` compares the first derivatives (randomly
       weighted) and then the second derivatives with finite differences, which catches a
       backward that is only partly built from raw arrays.

    Raises:
        AssertionError: naming the method, the input, the index, the expected and the
            actual (first or second) derivative.

    Example:
        >>> import minitorch.ops as F
        >>> check_backward_is_differentiable("tanh", F.tanh, np.array([0.5, -1.0]))
    """
    from minitorch import Variable
    from minitorch.gradcheck import GradcheckError, gradgradcheck

    advice = (
        "use only Variables (`self.inputs`, `self.output()`, `gy`) and minitorch "
        "operations (+, -, *, F.exp, ...): no `.data`, no np.* functions"
    )
    with explain_errors(f"backward of your {name}"):
        _check_sum_gradient(name, f, inputs)  # step 1: the values, before praising them
    variables = [Variable(np.array(x, dtype=np.float64)) for x in inputs]
    with explain_errors(f"backward of your {name}"):
        result = f(*variables)
        outputs = list(result) if isinstance(result, (list, tuple)) else [result]
        total = outputs[0].sum()
        for y in outputs[1:]:
            total = total + y.sum()
        total.backward(create_graph=True)
    for k, v in enumerate(variables):
        if v.grad is not None and v.grad.creator is None:
            raise AssertionError(
                f"almost there: your {name}'s gradient{_which(k, inputs)} has the right "
                "values, but it was computed on raw NumPy arrays, so it is a constant that "
                "backward(create_graph=True) cannot differentiate again (notebook 06 needs "
                f"that)\n  hint: {advice}"
            )
    try:
        with explain_errors(f"backward of your {name}"):
            gradgradcheck(f, *inputs)
    except GradcheckError as err:
        if err.order == 1:  # the first derivative, for randomly weighted outputs
            raise AssertionError(_gradcheck_message(name, err, inputs)) from None
        raise AssertionError(
            f"second derivative of your {name} differs{_which(err.input_index, inputs)}"
            f"{_index(err.index)}: expected {err.numeric:.4g} (finite differences), got "
            f"{err.analytic:.4g} (your backward, differentiated)\n  hint: a part computed "
            f"on raw arrays counts as a constant; {advice}"
        ) from None


def check_true(condition: bool, message: str) -> None:
    """Assert ``condition``; ``message`` explains what is wrong when it is False.

    Example:
        >>> check_true(1 + 1 == 3, "1 + 1 should be 3")
        Traceback (most recent call last):
        ...
        AssertionError: 1 + 1 should be 3
    """
    if not condition:
        raise AssertionError(message)
