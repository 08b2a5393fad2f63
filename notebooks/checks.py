"""Feedback for the exercises of the minitorch course.

Each check either prints one line starting with ``✓`` or raises ``AssertionError`` with a
message that says *what* is wrong and *where*: the first element that differs, its
expected and actual values, the shape that was expected. nbgrader counts an
``AssertionError`` as a failed test, so the same cells grade a class.

Only NumPy is needed at import time; the gradient checks import ``minitorch`` when called.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def ok(message: str) -> None:
    """Print a success line."""
    print(f"✓ {message}")


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


def check_close(
    name: str, got: Any, expected: Any, atol: float = 1e-6, rtol: float = 1e-5, hint: str = ""
) -> None:
    """Assert that ``got`` equals ``expected`` elementwise (within tolerances).

    Args:
        name: what is being checked, used in the messages ("your Cube's forward").
        got: a number, an ndarray or a Variable.
        expected: the reference value.
        atol: absolute tolerance.
        rtol: relative tolerance.
        hint: appended to the failure message.

    Raises:
        AssertionError: naming the shape mismatch, or the first differing index with the
            expected and actual values.
    """
    got_array, expected_array = _array(name, got), _array("the reference", expected)
    suffix = f"\n  hint: {hint}" if hint else ""
    if got_array.shape != expected_array.shape:
        raise AssertionError(
            f"{name} has shape {got_array.shape} but should have shape "
            f"{expected_array.shape}{suffix}"
        )
    bad = ~np.isclose(got_array, expected_array, atol=atol, rtol=rtol)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise AssertionError(
            f"{name} differs{_index(index)}: expected {expected_array[index]:.6g}, "
            f"got {got_array[index]:.6g}{_count(bad)}{suffix}"
        )


def _count(bad: np.ndarray) -> str:
    return f" ({int(bad.sum())} of {bad.size} elements differ)" if bad.size > 1 else ""


def check_gradient(name: str, f: Callable[..., Any], *inputs: Any) -> None:
    """Assert that the backward of ``f`` agrees with finite differences at ``inputs``.

    Uses ``minitorch.gradcheck`` and turns its error into a sentence about the student's
    code: which input, which index, the numerical and the analytic value.

    Raises:
        AssertionError: if the gradients differ or backward fails.
    """
    from minitorch.gradcheck import GradcheckError, gradcheck

    try:
        gradcheck(f, *inputs)
    except GradcheckError as err:
        which = f" of input {err.input_index}" if len(inputs) > 1 else ""
        if err.index == ():
            raise AssertionError(f"gradient of your {name}: {err}") from None
        raise AssertionError(
            f"gradient of your {name} differs{which}{_index(err.index)}: expected "
            f"{err.numeric:.4g} (finite differences), got {err.analytic:.4g} "
            "(your backward)"
        ) from None
    except ValueError as err:
        raise AssertionError(f"backward of your {name} failed: {err}") from None


def check_true(condition: bool, message: str) -> None:
    """Assert ``condition``; ``message`` explains what is wrong when it is False."""
    if not condition:
        raise AssertionError(message)
