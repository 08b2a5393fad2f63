"""Checks of values: a number or an array against the expected one (:func:`check_close`),
a forward pass, that names are defined, and the hints that read a wrong value (a
ratio, a one-sided difference).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from checks_core import CheckFailed, NotDoneYet, _array, _index, explain_errors

Hint = str | Callable[[np.ndarray, np.ndarray], str]


def check_close(
    name: str,
    got: Any,
    expected: Any,
    atol: float = 1e-6,
    rtol: float = 1e-5,
    hint: Hint = "",
    mistakes: dict[str, Any] | None = None,
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
        mistakes: ``{hint: wrong value}``: when ``got`` equals a wrong value (computed in
            the check, from the mistake it names), that hint is given instead.

    Raises:
        CheckFailed: naming the shape mismatch, or the first differing index with the
            expected and actual values.

    Example:
        >>> try:
        ...     check_close("y", np.array([1.0, 2.0, 3.5]), np.array([1.0, 2.0, 3.0]))
        ... except CheckFailed as err:
        ...     print(err)
        y differs at index 2: expected 3, got 3.5 (1 of 3 elements differ)
    """
    got_array, expected_array = _array(name, got), _array("the reference", expected)
    if got_array.shape != expected_array.shape:
        suffix = "" if callable(hint) or not hint else f"\n  hint: {hint}"
        raise CheckFailed(
            f"{name} has shape {got_array.shape} but should have shape "
            f"{expected_array.shape}{suffix}"
        )
    bad = ~np.isclose(got_array, expected_array, atol=atol, rtol=rtol)
    if bad.any():
        text = _matching_mistake(got_array, expected_array, mistakes or {}, atol, rtol)
        if not text and _opposite(got_array, expected_array, atol, rtol):
            text = (
                "the opposite sign everywhere: a minus sign missing or extra, or a difference "
                "reversed"
            )
        if not text and not callable(hint):
            text = _constant_factor(got_array, expected_array)
        text = text or (hint(got_array, expected_array) if callable(hint) else hint)
        suffix = f"\n  hint: {text}" if text else ""
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise CheckFailed(
            f"{name} differs{_index(index)}: expected {expected_array[index]:.6g}, "
            f"got {got_array[index]:.6g}{_count(bad)}{suffix}"
        )


def _constant_factor(got: np.ndarray, expected: np.ndarray) -> str:
    """ "exactly c times the right value everywhere" when ``got`` is ``c * expected``."""
    nonzero = np.abs(expected) > 1e-12
    if nonzero.sum() < 2 or not np.allclose(got[~nonzero], 0) or not np.all(np.isfinite(got)):
        return ""  # one number is always some multiple of another: say nothing
    ratios = got[nonzero] / expected[nonzero]
    if np.allclose(ratios, ratios[0], rtol=1e-6) and not np.isclose(ratios[0], 1.0):
        return f"exactly {ratios[0]:.4g} times the right value everywhere: a factor is off"
    return ""


def _opposite(got: np.ndarray, expected: np.ndarray, atol: float, rtol: float) -> bool:
    """True if ``got`` is ``-expected`` (and ``expected`` is not zero)."""
    return bool(
        np.any(np.abs(expected) > atol) and np.allclose(got, -expected, atol=atol, rtol=rtol)
    )


def check_forward(name: str, make: Callable[[], Any], *arrays: np.ndarray) -> np.ndarray:
    """Call ``make().forward`` on copies of ``arrays`` directly and check what it returns.

    ``forward`` receives ndarrays and must return a new ndarray, leaving its inputs as
    they are; calling the Function wraps the result in a Variable.

    Returns:
        what ``forward`` returned.

    Raises:
        CheckFailed: naming ``None`` (no ``return``), a Variable, another type, or an
            input changed in place.

    Example:
        >>> from minitorch import Function
        >>> class Twice(Function):
        ...     def forward(self, x):
        ...         x *= 2
        ...         return x
        >>> try:
        ...     check_forward("Twice", Twice, np.ones(2))
        ... except CheckFailed as err:
        ...     print(str(err)[:60])
        Twice.forward changed its input array in place (x *= …, x[..
    """
    from minitorch import Variable

    copies = [np.array(a, dtype=np.float64) for a in arrays]
    with explain_errors(f"{name}().forward(x)"):
        out = make().forward(*copies)
    if out is None:
        raise CheckFailed(f"{name}.forward returned None: did you forget to `return` the result?")
    if isinstance(out, Variable):
        raise CheckFailed(
            f"{name}.forward returned a Variable\n  hint: forward receives ndarrays and returns "
            f"an ndarray computed with NumPy; calling {name}() wraps it in a Variable"
        )
    if not isinstance(out, np.ndarray | np.generic | float | int):
        raise CheckFailed(
            f"{name}.forward returned a {type(out).__name__}: return one ndarray, computed "
            "with NumPy on the whole array (no Python loop or list)"
        )
    for a, c in zip(arrays, copies):
        if not np.array_equal(np.asarray(a, dtype=np.float64), c, equal_nan=True):
            raise CheckFailed(
                f"{name}.forward changed its input array in place (x *= …, x[...] = …, "
                "x **= …)\n  hint: compute a new array and return it; the inputs belong to "
                "the graph"
            )
    return np.asarray(out)


def _matching_mistake(
    got: np.ndarray, expected: np.ndarray, mistakes: dict[str, Any], atol: float, rtol: float
) -> str:
    """The hint of the first wrong value ``got`` equals (and ``expected`` does not)."""
    for text, value in mistakes.items():
        try:
            wrong = np.asarray(getattr(value, "data", value), dtype=np.float64)
        except (TypeError, ValueError):
            continue
        if wrong.shape != got.shape or np.allclose(wrong, expected, atol=atol, rtol=rtol):
            continue
        if np.allclose(got, wrong, atol=atol, rtol=rtol, equal_nan=True):
            return text
    return ""


def check_defined(namespace: dict[str, Any], *names: str, functions: bool = True) -> None:
    """Fail with "not done yet" if the exercise cell did not define ``names``.

    A check cell reads the student's names through this (and ``globals().get``), so an
    exercise cell that never ran, or stopped at a ``SyntaxError``, costs only its own
    check. The exercises define functions and classes: with ``functions`` (the default)
    a name bound to something else — a list a demo cell left under the same name, when the
    student's ``def`` stopped at a ``SyntaxError`` — is reported as such, not as the
    ``TypeError: 'list' object is not callable`` that calling it would give.

    Raises:
        NotDoneYet: naming the missing names, or the first one that is not callable.

    Example:
        >>> try:
        ...     check_defined({}, "Cube")
        ... except NotDoneYet as err:
        ...     print(str(err)[:63])
        Cube is not defined: run the exercise cell above (fix any error
    """
    missing = [name for name in names if name not in namespace]
    if missing:
        raise NotDoneYet(
            f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not defined: run "
            "the exercise cell above (fix any error it shows, such as a SyntaxError); until "
            "then this exercise is not done yet"
        )
    wrong = [name for name in names if functions and not callable(namespace[name])]
    if wrong:
        kind = type(namespace[wrong[0]]).__name__
        raise NotDoneYet(
            f"{wrong[0]} is not a function: its cell has not run, or it stopped with an error "
            f"(such as a SyntaxError) before `def {wrong[0]}`, so {wrong[0]} is still the "
            f"{kind} an earlier cell gave that name. Fix and run the exercise cell"
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


def difference_hint(h: float, one_sided: Any = None) -> Hint:
    """A hint for :func:`check_close` that names the usual mistakes in a central difference
    with step ``h``: dividing by ``h`` instead of ``2h``, a one-sided difference, brackets.

    ``one_sided``: the one-sided estimates of the checked function (computed in the check);
    when given, a value off by about ``h`` is called one-sided only if it is one of them.

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
        if ratio.size and np.allclose(ratio, 2 * h, rtol=1e-3):
            return "about 2*h times the derivative: you did not divide by 2*h"
        if ratio.size and np.allclose(ratio, h * h, rtol=1e-3):
            return "about h*h times the derivative: `d / 2 * h` multiplies by h; write d / (2 * h)"
        error, scale = np.abs(got - expected), 1 + np.abs(expected)
        if np.all(error < 10 * h * scale):
            if one_sided is not None and not any(
                np.allclose(got, np.asarray(v, dtype=float), rtol=1e-6, atol=1e-9)
                for v in one_sided
            ):
                return "close, but off by about h: compute (f(x+h) - f(x-h)) / (2*h) exactly"
            return (
                "off by a few times h: that is a one-sided difference such as "
                "(f(x+h) - f(x)) / h; step to both sides, x+h and x-h"
            )
        if np.any(np.abs(got) > 10 * scale) or np.any(np.abs(got) < 0.1 * np.abs(expected)):
            return (
                "far off: check the brackets; `a - b / (2 * h)` divides only b; write "
                "`(y_plus - y_minus) / (2 * h)`"
            )
        return "compute (f(x+h) - f(x-h)) / (2*h) from the outputs' .data"

    return hint


def _count(bad: np.ndarray) -> str:
    return f" ({int(bad.sum())} of {bad.size} elements differ)" if bad.size > 1 else ""
