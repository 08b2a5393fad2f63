"""Checks for notebook 08 (writing a Function): its gradients against finite differences.

:func:`check_backward` runs a Function the two ways the engine does — a plain
``backward()`` (NumPy, the fast path) and ``backward(create_graph=True)`` (minitorch ops,
differentiable) — and compares every input's gradient with central differences. A wrong
gradient is named by the *kind* of mistake its numbers show (:func:`diagnose_gradient`):
a flipped sign, two inputs' gradients swapped, ``gy`` left out of the chain rule, a
constant factor, a broadcast gradient not reduced, a nan.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from checks import CheckFailed
from checks_build import _numeric_gradient, exercise, require, short_errors

PATHS = {
    "plain backward()": False,
    "backward(create_graph=True)": True,
}


def _weights(shape: tuple[int, ...]) -> np.ndarray:
    """Distinct positive weights for ``sum(w * f(x))``: the upstream gradient ``gy``.

    Not all ones, so that a backward that leaves ``gy`` out of the chain rule differs from
    the right one; positive, so that a flipped sign stays a flipped sign.
    """
    return np.random.default_rng(8).uniform(0.5, 2.0, shape)


def diagnose_gradient(
    got: np.ndarray,
    numeric: list[np.ndarray],
    k: int,
    unweighted: np.ndarray,
    others: list[np.ndarray] | None = None,
    given: list[Any] | None = None,
    names: list[str] | None = None,
) -> str:
    """Name the kind of mistake in input ``k``'s gradient ``got``, or ``""`` if none fits.

    Args:
        got: the gradient the student's backward gave for input ``k``.
        numeric: the finite-difference gradients of every input.
        k: which input.
        unweighted: input ``k``'s finite-difference gradient for ``gy = 1`` everywhere.
        others: for a broadcasting op, the other inputs' elementwise gradients reduced to
            input ``k``'s shape (what a swap of the formulas gives); ``numeric`` otherwise.
        given: the student's gradients of every input (None: unknown). When input ``k``
            got input ``j``'s gradient, "swapped" is said only if input ``j`` got input
            ``k``'s in turn; otherwise input ``k``'s formula is said to use input ``j``.
        names: what the inputs are called in the message ("input 0" by default).
    """
    right = numeric[k]
    close = lambda a, b: a.shape == b.shape and np.allclose(a, b, atol=1e-5, rtol=1e-4)  # noqa: E731
    if not np.all(np.isfinite(got)):
        return (
            "it has nan/inf entries: a division by zero or the log of a non-positive number "
            "(the derivative is finite everywhere here)"
        )
    if close(got, -right):
        return "the sign is flipped"
    label = (lambda j: names[j]) if names else (lambda j: f"input {j}")  # noqa: E731
    for j, other in enumerate(others if others is not None else numeric):
        if j != k and close(got, other) and not close(other, right):
            theirs = None if given is None or given[j] is None else _values(given[j])
            fits = theirs is not None and theirs.shape == right.shape
            if (
                theirs is None
                or close(theirs, right)
                or (not fits and not close(theirs, numeric[j]))
            ):
                # input j got input k's gradient in turn (or nothing tells). Of other
                # shapes, they cannot be returned in the wrong order: the formulas swapped.
                fix = (
                    "return them in the order of the inputs"
                    if theirs is None or fits
                    else f"the formula for {label(k)} uses {label(j)}, and the one for "
                    f"{label(j)} uses {label(k)}"
                )
                return f"it is the gradient of {label(j)}: the gradients are swapped; {fix}"
            own = ", whose own gradient is right" if close(theirs, numeric[j]) else ""
            return (
                f"it equals the gradient of {label(j)}{own}: the formula for {label(k)} uses "
                f"{label(j)} where {label(k)} belongs"
            )
    if close(got, unweighted) and not close(unweighted, right):
        return "gy is left out: multiply by the incoming gradient gy (the chain rule)"
    mask = np.abs(right) > 1e-6
    if mask.any():
        ratio = got[mask] / right[mask]
        if (
            np.allclose(ratio, ratio[0], rtol=1e-4)
            and 1e-6 < abs(ratio[0])
            and not np.isclose(ratio[0], 1.0)
        ):
            return f"it is {ratio[0]:.4g} times the right gradient: a constant factor is off"
    return ""


def _values(g: Any) -> np.ndarray:
    """A gradient (a Variable, an ndarray or a number) as a float64 array."""
    return np.asarray(getattr(g, "data", g), dtype=np.float64)


def _swapped_gradients(
    make: Callable[[], Any], arrays: list[np.ndarray], w: np.ndarray
) -> list[list[np.ndarray]] | None:
    """For an elementwise op on broadcast inputs: ``swaps[k][j]`` is input ``j``'s
    elementwise gradient reduced to input ``k``'s shape — what input ``k`` gets when the
    two formulas are swapped. ``None`` if the inputs do not broadcast to ``w``'s shape.
    """
    from minitorch.ops import sum_to_array

    try:
        full = [np.broadcast_to(a, w.shape).copy() for a in arrays]
        parts = [
            _numeric_gradient(lambda *xs: make()(*xs) * w, full, j) for j in range(len(arrays))
        ]
        return [[sum_to_array(p, a.shape) for p in parts] for a in arrays]
    except ValueError:
        return None


def check_backward(
    name: str,
    make: Callable[[], Any],
    *inputs: np.ndarray,
    paths: tuple[str, ...] = tuple(PATHS),
) -> None:
    """Check a Function's gradients on the engine's two paths, naming the mistake.

    For each path the loss is ``sum(w * f(*inputs))`` with fixed positive weights ``w``
    (the upstream gradient ``gy``); each input's gradient is compared with central
    differences. The count and shapes of the gradients are checked first, on a direct
    ``backward`` call, so a broadcast gradient not reduced is named as such.

    Args:
        name: the Function's name ("LogCosh").
        make: returns a fresh instance (a Function records one call).
        inputs: the arrays to test at (float64).
        paths: which of :data:`PATHS` to run.

    Raises:
        AssertionError: naming the path, the input, the kind of mistake (if one fits) or
            the first wrong element with both values.
    """
    require(name, make)
    from minitorch import Variable

    arrays = [np.array(a, dtype=np.float64) for a in inputs]
    which = (lambda k: f" of input {k}") if len(arrays) > 1 else (lambda k: "")
    f = make()
    with exercise(f"{name} forward"):
        y = f(*[Variable(a.copy()) for a in arrays])
    w = _weights(y.shape)
    with exercise(f"{name}'s backward"):
        grads = f.backward(Variable(w))
    grads = tuple(grads) if isinstance(grads, (tuple, list)) else (grads,)
    if len(grads) != len(arrays):
        raise CheckFailed(
            f"your {name}'s backward returns {len(grads)} gradient(s) for {len(arrays)} "
            "input(s): return one per input, in order"
        )
    for k, (g, a) in enumerate(zip(grads, arrays)):
        shape = None if g is None else np.shape(getattr(g, "data", g))
        if shape is not None and shape != a.shape:
            reduce = " (the input was broadcast: reduce with xp.sum_to(g, x.shape))"
            raise CheckFailed(
                f"the gradient{which(k)} has shape {shape}, but the input has shape "
                f"{a.shape}{reduce if shape == y.shape else ''}"
            )
    numeric = [
        _numeric_gradient(lambda *xs: make()(*xs) * w, arrays, k) for k in range(len(arrays))
    ]
    swaps = _swapped_gradients(make, arrays, w)
    for path in paths:
        variables = [Variable(a.copy()) for a in arrays]
        with exercise(f"{name} on a {path}"):
            (make()(*variables) * w).sum().backward(create_graph=PATHS[path])
        for k, v in enumerate(variables):
            if v.grad is None:
                raise CheckFailed(
                    f"your {name} gave no gradient{which(k)} on a {path}: return it "
                    "(None only for an input whose self.needs_input_grad is False)"
                )
            got = np.asarray(v.grad.data, dtype=np.float64)
            bad = ~np.isclose(got, numeric[k], atol=1e-5, rtol=1e-4)
            if not bad.any():
                continue
            unweighted = _numeric_gradient(lambda *xs: make()(*xs), arrays, k)
            given = [None if u.grad is None else u.grad.data for u in variables]
            kind = _divided_by_output(got, numeric[k], np.asarray(y.data)) or diagnose_gradient(
                got, numeric, k, unweighted, swaps[k] if swaps else None, given
            )
            index = tuple(int(i) for i in np.argwhere(bad)[0])
            values = (
                f"at index {index} finite differences give {numeric[k][index]:.6g}, yours "
                f"{got[index]:.6g}"
            )
            raise CheckFailed(
                f"your {name}'s gradient{which(k)} is wrong on a {path}: "
                + (f"{kind} ({values})" if kind else values)
            )


def _divided_by_output(got: np.ndarray, right: np.ndarray, y: np.ndarray) -> str:
    """A hint if ``got`` is the right gradient divided by the output ``y`` once more."""
    if got.shape != y.shape or np.any(y == 0):
        return ""
    if np.allclose(got * y, right, atol=1e-5, rtol=1e-4) and not np.allclose(y, 1.0):
        return "it is the right one divided by the output y once more (y**2 where y belongs?)"
    return ""


def check_skips_constant(name: str, make: Callable[[], Any], x: np.ndarray, c: np.ndarray) -> None:
    """Check that ``make()(Variable(x), c)`` returns ``None`` for the constant ``c``.

    The engine marks ``self.needs_input_grad = (True, False)`` for a plain-array second
    input; the op should skip that gradient's work and return ``None`` for it.
    """
    require(name, make)
    from minitorch import Variable

    class Recorded(make):  # type: ignore[misc, valid-type]
        """The student's class, keeping what its vjp returned."""

        def vjp(self, *args: Any) -> Any:
            self.returned = super().vjp(*args)
            return self.returned

    f = Recorded()
    v = Variable(np.array(x, dtype=np.float64))
    with exercise(f"{name} with a constant second input"):
        f(v, np.array(c, dtype=np.float64)).sum().backward()  # the fast path
    grads = getattr(f, "returned", None)
    grads = tuple(grads) if isinstance(grads, (tuple, list)) else (grads,)
    if len(grads) == 2 and grads[0] is None and grads[1] is not None:
        raise CheckFailed(
            f"{name} skipped input 0, which needs its gradient, and computed input 1's, a "
            "constant: self.needs_input_grad[i] belongs to input i"
        )
    if len(grads) != 2 or grads[1] is not None:
        raise CheckFailed(
            f"the gradient of a constant input should be None: {name} computed it anyway "
            "(return None where self.needs_input_grad[i] is False)"
        )
    if grads[0] is None:
        raise CheckFailed(
            f"{name} returned None for input 0, which needs its gradient "
            "(self.needs_input_grad[0] is True)"
        )


short_errors(globals())  # whatever escapes a check is shown short
