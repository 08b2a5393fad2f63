"""Numerical gradient checking: compare ``backward`` with central differences.

For ``f`` and inputs ``x``, the check builds the scalar ``L = sum_k <w_k, f(x)_k>`` with
fixed random weights ``w`` (so every output element matters, not just their sum) and
compares the analytic ``dL/dx`` from backward with the central difference

    (L(x + eps e_i) - L(x - eps e_i)) / (2 eps),

whose error is O(eps**2) (Nocedal & Wright, *Numerical Optimization*, 2nd ed., §8.1).
All arithmetic is float64; inputs are copied, never modified.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitorch.core import Variable


class GradcheckError(AssertionError):
    """Raised when an analytic gradient differs from the numerical one.

    Attributes:
        input_index: which input of ``f`` failed.
        index: the element's index (a tuple) within that input.
        analytic: the value from backward.
        numeric: the central-difference value.
    """

    def __init__(
        self,
        message: str,
        input_index: int,
        index: tuple[int, ...],
        analytic: float,
        numeric: float,
    ) -> None:
        super().__init__(message)
        self.input_index = input_index
        self.index = index
        self.analytic = analytic
        self.numeric = numeric


def _outputs(result: Any, who: str = "gradcheck") -> list[Variable]:
    outputs = list(result) if isinstance(result, (list, tuple)) else [result]
    for i, y in enumerate(outputs):
        if y is not None and not isinstance(y, Variable):
            raise TypeError(
                f"{who}: f returned a value of type {type(y).__module__}.{type(y).__name__} "
                f"(output {i}), not a Variable, so "
                "there is no graph for backward to follow. Build f from minitorch ops on "
                "its Variable arguments (F.exp(x), x * y, ...), not NumPy functions on .data"
            )
    return outputs


def _weights(outputs: Sequence[Variable]) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.standard_normal(y.shape) for y in outputs]


def _scalar(outputs: Sequence[Variable], weights: Sequence[np.ndarray]) -> float:
    return float(sum(np.sum(y.data * w) for y, w in zip(outputs, weights) if y is not None))


def _prepare(inputs: Sequence[Any]) -> list[Any]:
    """float64 copies of floating inputs; other inputs (integer labels, ...) pass through."""
    prepared: list[Any] = []
    for k, x in enumerate(inputs):
        data = x.data if isinstance(x, Variable) else x
        if (
            isinstance(data, (np.ndarray, float, np.floating))
            and np.asarray(data).dtype.kind == "f"
        ):
            if not np.isfinite(data).all():
                raise ValueError(
                    f"gradcheck: input {k} contains NaN or inf; finite differences need "
                    "finite inputs"
                )
            prepared.append(np.array(data, dtype=np.float64))
        else:
            prepared.append(x)
    return prepared


def _analytic(
    f: Callable[..., Any],
    arrays: list[Any],
    weights: list[np.ndarray] | None,
    create_graph: bool = False,
) -> tuple[list[Any], list[Variable], list[np.ndarray]]:
    variables = [
        Variable(a.copy()) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a
        for a in arrays
    ]
    outputs = _outputs(f(*variables))
    weights = weights if weights is not None else _weights(outputs)
    loss = None
    for y, w in zip(outputs, weights):
        term = (y * w).sum()
        loss = term if loss is None else loss + term
    assert loss is not None, "gradcheck: f returned no outputs"
    if loss.requires_grad:  # else f's outputs are constants: every gradient is zero
        loss.backward(create_graph=create_graph)
    return variables, outputs, weights


def gradcheck(
    f: Callable[..., Any], *inputs: Any, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-4
) -> bool:
    """Check ``f``'s backward against central differences at ``inputs``.

    Args:
        f: maps Variables to a Variable (or a tuple of Variables).
        *inputs: ndarrays, Variables or scalars. Floating inputs are checked (as float64
            copies); integer inputs such as labels are passed through unchecked.
        eps: the finite-difference step.
        atol: absolute tolerance.
        rtol: relative tolerance (``|a - n| <= atol + rtol * |n|``).

    Returns:
        ``True`` when every element agrees.

    Raises:
        GradcheckError: at the first disagreeing element, naming the input index, the
            element index, and the analytic and numeric values.
        ValueError: if a floating input contains NaN or inf.

    Example:
        >>> import minitorch.ops as F
        >>> gradcheck(F.tanh, np.array([0.5, -1.0]))
        True
    """
    arrays = _prepare(inputs)
    variables, outputs, weights = _analytic(f, arrays, None)
    for k, (v, a) in enumerate(zip(variables, arrays)):
        if not isinstance(v, Variable):
            continue
        analytic: np.ndarray = np.zeros_like(a) if v.grad is None else v.grad.data
        numeric = numerical_grad(f, arrays, k, weights, eps)
        try:
            _compare(k, analytic, numeric, atol, rtol)
        except GradcheckError as err:
            if v.grad is None and all(y is None or y.creator is None for y in outputs):
                err.args = (
                    f"{err.args[0]}. f's output does not depend on its inputs through the "
                    "graph (no gradient reached them): was it computed from .data or with "
                    "NumPy functions? Use minitorch ops on the Variables",
                )
            raise
    return True


def numerical_grad(
    f: Callable[..., Any], arrays: list[Any], k: int, weights: list[np.ndarray], eps: float = 1e-6
) -> np.ndarray:
    """Central-difference gradient of ``sum_k <w_k, f(...)_k>`` w.r.t. input ``k``.

    Shapes:
        returns an array with ``arrays[k]``'s shape (float64).
    """
    base = arrays[k]
    grad = np.zeros_like(base, dtype=np.float64)
    for index in np.ndindex(base.shape):
        values = []
        for step in (eps, -eps):
            shifted = base.copy()
            shifted[index] += step
            args = [Variable(shifted) if i == k else _constant(a) for i, a in enumerate(arrays)]
            values.append(_scalar(_outputs(f(*args)), weights))
        grad[index] = (values[0] - values[1]) / (2 * eps)
    return grad


def _constant(a: Any) -> Any:
    return Variable(a.copy()) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a


def _compare(k: int, analytic: np.ndarray, numeric: np.ndarray, atol: float, rtol: float) -> None:
    if analytic.shape != numeric.shape:
        raise GradcheckError(
            f"gradcheck: input {k}: gradient shape {analytic.shape} != "
            f"input shape {numeric.shape}",
            k,
            (),
            float("nan"),
            float("nan"),
        )
    bad = ~np.isclose(analytic, numeric, atol=atol, rtol=rtol)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        a, n = float(analytic[index]), float(numeric[index])
        raise GradcheckError(
            f"gradcheck: input {k}, element {index}: analytic gradient {a:.6g} but numeric "
            f"{n:.6g} (difference {a - n:.3g}; atol={atol}, rtol={rtol})",
            k,
            index,
            a,
            n,
        )


def gradgradcheck(
    f: Callable[..., Any], *inputs: Any, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-4
) -> bool:
    """Check second derivatives: ``gradcheck`` of the ``create_graph=True`` gradient.

    The function checked is ``x -> d<w, f(x)>/dx`` built by ``backward(create_graph=True)``,
    so this tests that each op's ``backward`` is itself correctly differentiable.

    Raises:
        GradcheckError: as :func:`gradcheck`, for the gradient function; the message says
            it is the second-order check and, when no second derivative reached the inputs,
            that a ``backward`` computed with ``.data`` or NumPy is not differentiable.

    Example:
        >>> import minitorch.ops as F
        >>> gradgradcheck(lambda x: F.sin(x) * x, np.array([0.5, -1.0]))  # 2cos x - x sin x
        True
    """
    arrays = _prepare(inputs)
    _, _, weights = _analytic(f, arrays, None)

    def first_grad(*xs: Any) -> tuple[Variable, ...]:
        outputs = _outputs(f(*xs))
        loss = sum(((y * w).sum() for y, w in zip(outputs, weights)), Variable(np.array(0.0)))
        loss.backward(create_graph=True)
        variables = [x for x in xs if isinstance(x, Variable)]
        grads = tuple(x.grad if x.grad is not None else x * 0.0 for x in variables)
        for x in variables:  # the outer check's backward must start from zero
            x.clear_grad()
        return grads

    try:
        return gradcheck(first_grad, *arrays, eps=eps, atol=atol, rtol=rtol)
    except GradcheckError as err:
        first = first_grad(*[_constant(a) for a in arrays])
        cut = not any(g.requires_grad for g in first)
        why = (
            "the first gradient is a constant: a backward computed with .data or NumPy "
            "(np.exp, arrays instead of Variables) is not differentiable, so "
            "backward(create_graph=True) records nothing to differentiate; write backward "
            "with minitorch ops on Variables (self.inputs, self.output(), gy)"
            if cut
            else "some backward is wrong as a function of its inputs, or is partly "
            "computed with .data or NumPy (those parts count as constants)"
        )
        where = f"input {err.input_index}, element {err.index}"
        raise GradcheckError(
            f"gradgradcheck (the second-order check, differentiating the gradient built by "
            f"backward(create_graph=True)): {where}: analytic {err.analytic:.6g} "
            f"but numeric {err.numeric:.6g} (difference {err.analytic - err.numeric:.3g}; "
            f"atol={atol}, rtol={rtol}). Likely cause: {why}",
            err.input_index,
            err.index,
            err.analytic,
            err.numeric,
        ) from None
