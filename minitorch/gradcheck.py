"""Numerical gradient checking: compare both backward paths with central differences.

For ``f`` and inputs ``x``, the check builds the scalar ``L = sum_k <w_k, f(x)_k>`` with
fixed random weights ``w`` (so every output element matters, not just their sum) and
compares the analytic ``dL/dx`` with the central difference

    (L(x + eps e_i) - L(x - eps e_i)) / (2 eps),

whose error is O(eps**2) (Nocedal & Wright, *Numerical Optimization*, 2nd ed., §8.1).

A Function computes its gradient on two paths, and both are checked: ``backward()`` (the
first-order path: each Function's ``backward_array`` on ndarrays) and
``backward(create_graph=True)`` (each Function's differentiable ``backward`` on
Variables, which every second derivative builds on). A mistake in only one of the two
methods is found and named as such. All arithmetic is float64; inputs are copied, never
modified.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitorch.core import Variable
from minitorch.gradcheck_culprits import (
    BOTH,
    CREATE_GRAPH,
    FIRST_ORDER,
    badness,
    functions,
    lacks_backward,
    name_the_functions,
)

_NAN = float("nan")


class GradcheckError(AssertionError):
    """Raised when an analytic gradient differs from the numerical one.

    Attributes:
        input_index: which input of ``f`` failed.
        index: the element's index (a tuple) within that input: the worst element, the
            one furthest outside the tolerance.
        analytic: the wrong value (from the path named by ``path``; the first-order
            value when both are wrong).
        numeric: the central-difference value.
        path: which path disagrees with the central differences: ``"backward_array"``
            (the first-order ``backward()``; a Function without ``backward_array`` runs
            its ``backward`` there), ``"backward"`` (``backward(create_graph=True)``),
            or ``"both"``.
        first_order: the element's value from ``backward()``.
        create_graph: its value from ``backward(create_graph=True)`` (NaN if that path
            was not checked).
        functions: the names of the Function types on the graph whose ``backward`` and
            ``backward_array`` return different gradients for the same output gradient
            (empty if none was found, or when both paths agree).
        order: 1 for a first derivative, 2 for gradgradcheck's second-order check.
    """

    def __init__(
        self,
        message: str,
        input_index: int,
        index: tuple[int, ...],
        analytic: float,
        numeric: float,
        path: str = FIRST_ORDER,
        first_order: float = _NAN,
        create_graph: float = _NAN,
        functions: tuple[str, ...] = (),
        order: int = 1,
    ) -> None:
        super().__init__(message)
        self.input_index = input_index
        self.index = index
        self.analytic = analytic
        self.numeric = numeric
        self.path = path
        self.first_order = first_order
        self.create_graph = create_graph
        self.functions = functions
        self.order = order


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
        if isinstance(x, (tuple, list)) and any(_is_floating(v) for v in x):
            raise TypeError(
                f"gradcheck: input {k} is a {type(x).__name__} of arrays; pass the inputs as "
                "separate arguments, gradcheck(f, x, y), not PyTorch's gradcheck(f, (x, y)) "
                "(for an f that takes a list: gradcheck(lambda a, b: f([a, b]), x, y))"
            )
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


def _is_floating(v: Any) -> bool:
    """A Variable or floating ndarray: what gradcheck would perturb (not index arrays)."""
    return isinstance(v, Variable) or (isinstance(v, np.ndarray) and v.dtype.kind in "fc")


def _analytic(
    f: Callable[..., Any],
    arrays: list[Any],
    weights: list[np.ndarray] | None,
    create_graph: bool = False,
) -> tuple[list[Any], list[Variable], list[np.ndarray]]:
    variables = [_constant(a) for a in arrays]
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


def _grad_arrays(variables: list[Any], arrays: list[Any]) -> list[np.ndarray | None]:
    """Each checked input's gradient as an array (zeros if none reached it)."""
    return [
        (np.zeros_like(a) if v.grad is None else v.grad.data) if isinstance(v, Variable) else None
        for v, a in zip(variables, arrays)
    ]


def _create_graph_grads(
    f: Callable[..., Any], arrays: list[Any], weights: list[np.ndarray], outputs: list[Variable]
) -> list[np.ndarray | None] | None:
    """The gradients ``backward(create_graph=True)`` gives; ``None`` if that path is missing.

    A Function that defines only ``backward_array`` (allowed, for first-order use) has no
    create_graph path, so there is nothing to check there.
    """
    if any(lacks_backward(type(func)) for func in functions(outputs)):
        return None
    try:
        variables, _, _ = _analytic(f, arrays, weights, create_graph=True)
    except Exception as err:  # the first-order pass worked: this is a backward's failure
        if hasattr(err, "add_note"):  # Python 3.11+
            err.add_note(
                "gradcheck: raised by backward(create_graph=True), which calls each "
                "Function's differentiable backward (a plain backward(), with "
                "backward_array, worked)"
            )
        raise
    return _grad_arrays(variables, arrays)


def gradcheck(
    f: Callable[..., Any], *inputs: Any, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-4
) -> bool:
    """Check both of ``f``'s backward paths against central differences at ``inputs``.

    The gradient of ``L = sum <w, f(x)>`` (fixed random weights ``w``) is computed twice:
    by ``backward()``, which runs each Function's ``backward_array`` (its NumPy fast path,
    or ``backward`` on constants where it has none), and by
    ``backward(create_graph=True)``, which runs each Function's differentiable
    ``backward``. Each must agree with the central differences, element by element:
    ``|a - n| <= atol + rtol * |n|``. A Function whose two methods compute different
    formulas fails even when one of them is right. (A Function with only a
    ``backward_array`` has no create_graph path; then only the first is checked.)

    Args:
        f: maps Variables to a Variable (or a tuple of Variables).
        *inputs: ndarrays, Variables or scalars. Floating inputs are checked (as float64
            copies); integer inputs such as labels are passed through unchecked.
        eps: the finite-difference step.
        atol: absolute tolerance.
        rtol: relative tolerance.

    Returns:
        ``True`` when every element of both gradients agrees.

    Raises:
        GradcheckError: for the first input that disagrees, naming the input, the worst
            element's index, the path that is wrong ("backward_array disagrees ..." or
            "backward (the create_graph path) disagrees with backward_array ..."), the
            values of both paths and the numeric one, and the Function type(s) whose
            two methods differ (see the attributes of :class:`GradcheckError`).
        ValueError: if a floating input contains NaN or inf.
        TypeError: if an input is a tuple or list of arrays (PyTorch's
            ``gradcheck(f, (x,))``); pass them as separate arguments.
        Exception: whatever a Function's backward raises; one raised only by
            ``backward(create_graph=True)`` carries a note saying so.

    Example:
        >>> import minitorch.ops as F
        >>> gradcheck(F.tanh, np.array([0.5, -1.0]))
        True
    """
    _check_gradients(f, _prepare(inputs), eps, atol, rtol)
    return True


def _check_gradients(
    f: Callable[..., Any],
    arrays: list[Any],
    eps: float,
    atol: float,
    rtol: float,
    both_paths: bool = True,
) -> list[np.ndarray]:
    """gradcheck's work, on prepared inputs; returns the output weights it used."""
    variables, outputs, weights = _analytic(f, arrays, None)
    first = _grad_arrays(variables, arrays)
    second = _create_graph_grads(f, arrays, weights, outputs) if both_paths else None
    for k, fast in enumerate(first):
        if fast is None:  # an integer input: labels, indices
            continue
        numeric = numerical_grad(f, arrays, k, weights, eps)
        try:
            _compare(k, fast, None if second is None else second[k], numeric, atol, rtol)
        except GradcheckError as err:
            if second is not None:
                name_the_functions(err, outputs, atol, rtol)
            elif both_paths:
                err.args = (
                    f"{err.args[0]}; backward(create_graph=True) was not checked: a "
                    "Function on the graph defines only backward_array",
                )
            if variables[k].grad is None and all(y is None or y.creator is None for y in outputs):
                err.args = (
                    f"{err.args[0]}. f's output does not depend on its inputs through the "
                    "graph (no gradient reached them): was it computed from .data or with "
                    "NumPy functions? Use minitorch ops on the Variables",
                )
            raise
    return weights


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


def _compare(
    k: int,
    fast: np.ndarray,
    second: np.ndarray | None,
    numeric: np.ndarray,
    atol: float,
    rtol: float,
) -> None:
    """Raise a GradcheckError naming the wrong path if either gradient is off."""
    for path, grad in ((FIRST_ORDER, fast), (CREATE_GRAPH, second)):
        if grad is not None and grad.shape != numeric.shape:
            raise GradcheckError(
                f"gradcheck: input {k}: gradient shape {grad.shape} (from {path}) != "
                f"input shape {numeric.shape}",
                k,
                (),
                _NAN,
                _NAN,
                path=path,
            )
    fast_bad = ~np.isclose(fast, numeric, atol=atol, rtol=rtol)
    worst = badness(fast, numeric, atol, rtol)
    second_bad = np.zeros_like(fast_bad)
    if second is not None:
        second_bad = ~np.isclose(second, numeric, atol=atol, rtol=rtol)
        worst = np.maximum(worst, badness(second, numeric, atol, rtol))
    if not fast_bad.any() and not second_bad.any():
        return
    index = tuple(int(i) for i in np.unravel_index(int(np.argmax(worst)), worst.shape))
    a, n = float(fast[index]), float(numeric[index])
    g = _NAN if second is None else float(second[index])
    count = int((fast_bad | second_bad).sum())
    if second is None:
        case = "unchecked"
    elif not second_bad.any():
        case = FIRST_ORDER
    elif not fast_bad.any():
        case = CREATE_GRAPH
    elif np.isclose(fast, second, atol=atol, rtol=rtol).all():
        case = "same"
    else:
        case = "differ"
    message = _message(case, k, index, (a, g, n), count, f"atol={atol}, rtol={rtol}")
    path = case if case in (FIRST_ORDER, CREATE_GRAPH) else BOTH
    if case == "unchecked":
        path = FIRST_ORDER
    wrong = g if path == CREATE_GRAPH else a
    raise GradcheckError(message, k, index, wrong, n, path=path, first_order=a, create_graph=g)


def _message(
    case: str,
    k: int,
    index: tuple[int, ...],
    values: tuple[float, float, float],
    count: int,
    tol: str,
) -> str:
    """The text of a GradcheckError: which path is wrong, at which element, by how much.

    ``case``: "backward_array" or "backward" (only that path is wrong), "same" (both, with
    the same values), "differ" (both, differently), "unchecked" (no create_graph path);
    ``values``: the element's first-order, create_graph and numeric values.
    """
    a, g, n = values
    worst = f"the worst of {count} elements that differ" if count > 1 else "the one that differs"
    if case in ("unchecked", "same"):
        same = (
            "; backward() and backward(create_graph=True) agree with each other, so the "
            "formula itself is wrong (in backward, and in backward_array where a Function "
            "defines one)"
            if case == "same"
            else ""
        )
        return (
            f"gradcheck: input {k}, element {index} ({worst}): analytic gradient {a:.6g} "
            f"but numeric {n:.6g} (difference {a - n:.3g}; {tol}){same}"
        )
    if case == FIRST_ORDER:
        return (
            f"gradcheck: input {k}: backward_array disagrees with finite differences "
            "(backward_array is the first-order path, run by backward()), while backward "
            "(the create_graph path, run by backward(create_graph=True)) agrees with them. "
            f"Element {index} ({worst}): backward_array gives {a:.6g}, finite differences "
            f"{n:.6g} (difference {a - n:.3g}; {tol}), backward gives {g:.6g}"
        )
    if case == CREATE_GRAPH:
        return (
            f"gradcheck: input {k}: backward (the create_graph path, run by "
            "backward(create_graph=True) and so by every second derivative) disagrees with "
            "backward_array and with finite differences, while backward_array (the "
            "first-order path, run by backward()) agrees with them. "
            f"Element {index} ({worst}): backward gives {g:.6g}, finite differences "
            f"{n:.6g} (difference {g - n:.3g}; {tol}), backward_array gives {a:.6g}"
        )
    return (
        f"gradcheck: input {k}: both backward_array (run by backward()) and backward "
        "(run by backward(create_graph=True)) disagree with finite differences, and with "
        f"each other. Element {index} ({worst}): backward_array gives {a:.6g}, backward "
        f"gives {g:.6g}, finite differences {n:.6g} ({tol})"
    )


def gradgradcheck(
    f: Callable[..., Any], *inputs: Any, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-4
) -> bool:
    """Check first, then second derivatives of ``f`` against central differences.

    First :func:`gradcheck`: the gradient from ``backward(create_graph=True)`` (and from
    ``backward()``) must have the right values — a wrong first derivative can be
    differentiated correctly, so the second-order check alone would miss it. Then the
    function ``x -> d<w, f(x)>/dx`` built by ``backward(create_graph=True)`` is checked
    against its central differences, which tests that each ``backward`` is itself
    correctly differentiable.

    Raises:
        GradcheckError: as :func:`gradcheck`. When the first derivative is wrong the
            message starts "gradgradcheck: the first derivative ..." and ``order`` is 1;
            for the second-order check it starts "gradgradcheck (the second-order
            check", ``order`` is 2, and when no second derivative reached the inputs it
            says that a ``backward`` computed with ``.data`` or NumPy is not
            differentiable.

    Example:
        >>> import minitorch.ops as F
        >>> gradgradcheck(lambda x: F.sin(x) * x, np.array([0.5, -1.0]))  # 2cos x - x sin x
        True
    """
    arrays = _prepare(inputs)
    try:
        weights = _check_gradients(f, arrays, eps, atol, rtol)
    except GradcheckError as err:
        err.args = (
            "gradgradcheck: the first derivative is already wrong, so the second was not "
            f"checked: {err.args[0]}",
        )
        raise

    def first_grad(*xs: Any) -> tuple[Variable, ...]:
        outputs = _outputs(f(*xs))
        loss = sum(((y * w).sum() for y, w in zip(outputs, weights)), Variable(np.array(0.0)))
        loss.backward(create_graph=True)
        variables = [x for x in xs if isinstance(x, Variable)]
        grads = tuple(x.grad if x.grad is not None else x * 0.0 for x in variables)
        for x in variables:  # the outer check's backward must start from zero
            x.clear_grad()
        return grads

    try:  # the derivative of the gradient, by a plain backward() through its graph
        _check_gradients(first_grad, arrays, eps, atol, rtol, both_paths=False)
        return True
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
            path=err.path,
            first_order=err.first_order,
            order=2,
        ) from None
