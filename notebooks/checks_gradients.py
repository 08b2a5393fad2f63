"""Checks of gradients: a student's backward against finite differences (
:func:`check_gradient`), with a diagnosis of the usual mistakes (a missing factor,
a sum over the wrong axis, ``gy`` not used), and that a backward is differentiable.

They import ``minitorch`` when called.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from checks_core import CheckFailed, _index, explain_errors
from checks_values import _count


def check_gradient(
    name: str,
    f: Callable[..., Any],
    *inputs: Any,
    mistakes: dict[str, Callable[..., Any]] | None = None,
) -> None:
    """Assert that the backward of ``f`` agrees with finite differences at ``inputs``.

    The course's Functions define ``backward`` (minitorch ops), which both a plain
    ``backward()`` and ``backward(create_graph=True)`` run, and messages name it. A
    Function that also defines ``backward_array`` (NumPy, then used by a plain
    ``backward()``) has two paths: both are checked, so a mistake in either one is found,
    and named as a mistake *there*. Two passes, so the message is easy to read and the
    check is hard to fool:

    1. the gradient of ``sum(f(*inputs))`` on both paths — for an elementwise ``f`` this
       is simply ``f'(x)`` at every element, the number a student can work out by hand;
    2. ``minitorch.gradcheck``, which weights the outputs randomly so that no error can
       cancel out in the sum (it checks both paths too).

    Either way the message names the method that is wrong, the input, the index, the
    finite-difference value, the wrong value and, when only one method is wrong, the value
    of the other one to compare with.

    ``mistakes``: ``{hint: wrong(*arrays)}``, where ``wrong`` computes (with NumPy) the
    gradients of ``sum(f(x))`` that a known mistake gives, one per input; a gradient equal
    to one of them gets that hint.

    Raises:
        CheckFailed: if a gradient differs or backward fails.

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
            _check_sum_gradient(name, f, inputs, mistakes or {})
            gradcheck(f, *inputs)
    except GradcheckError as err:
        raise CheckFailed(_gradcheck_message(name, err, inputs)) from None


def _which(k: int, inputs: tuple[Any, ...]) -> str:
    return f" for input {k}" if len(inputs) > 1 else ""


#: How each backward method is used, for the messages.
_USED_BY = {
    "backward_array": "used by a plain backward()",
    "backward": "used by backward(create_graph=True)",
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
    name: str, where: str, expected: str, path: str, values: dict[str, float], method: str = ""
) -> str:
    """Say which of the student's two backward methods is wrong, and what to compare.

    ``path``: "backward_array" or "backward" (only that method is wrong) or "both";
    ``values``: each method's value at the element (NaN for one that was not run);
    ``method``: the one backward method the Function defines, if it has one only.
    """
    if path in _USED_BY:
        other = "backward" if path == "backward_array" else "backward_array"
        right = (
            ""
            if np.isnan(values[other])
            else (f"; your {other} ({_USED_BY[other]}) gives {values[other]:.4g}, the right value")
        )
        return (
            f"gradient of your {name}.{path} ({_USED_BY[path]}) differs{where}: {expected}, "
            f"got {values[path]:.4g} (your {path}){right}\n  hint: backward and "
            f"backward_array must compute the same formula; compare your {path} with your "
            f"{other}"
        )
    fast, slow = values["backward_array"], values["backward"]
    if np.isnan(slow) or np.isclose(fast, slow, atol=1e-5, rtol=1e-4):
        yours = f"your {method}" if method else "yours"
        return f"gradient of your {name} differs{where}: {expected}, got {fast:.4g} ({yours})"
    return (
        f"both backward methods of your {name} are wrong{where}: {expected}, got "
        f"{slow:.4g} from your backward and {fast:.4g} from your backward_array"
    )


def _known_mistake(
    got: np.ndarray, k: int, arrays: list[np.ndarray], mistakes: dict[str, Callable[..., Any]]
) -> str:
    """The hint of the first known mistake that gives ``got`` as the gradient of input ``k``."""
    for text, wrong in mistakes.items():
        values = wrong(*arrays)
        values = values if isinstance(values, list | tuple) else [values]
        value = np.asarray(values[k], dtype=np.float64)
        if value.shape == got.shape and np.allclose(got, value, atol=1e-5, rtol=1e-4):
            return text
    return ""


def gradient_diagnosis(got: np.ndarray, right: list[np.ndarray], k: int) -> str:
    """What a wrong gradient ``got`` of input ``k`` looks like, next to the right ones.

    ``right`` holds the right gradient of every input. Says only what the numbers show
    (another input's gradient, the opposite sign, a constant factor, zero), so it never
    names a cause the numbers do not show. Returns ``""`` when none applies.

    Example:
        >>> gradient_diagnosis(np.array([-1.0, 2.0]), [np.array([1.0, -2.0])], 0)
        'every element has the wrong sign: a minus sign is missing or extra'
    """
    expected = right[k]
    if got.shape != expected.shape or not np.all(np.isfinite(got)):
        return ""

    def same(a: np.ndarray, b: np.ndarray) -> bool:
        return bool(np.allclose(a, b, atol=1e-5, rtol=1e-4))

    for j, other in enumerate(right):
        if j != k and other.shape == got.shape and same(got, other) and not same(other, expected):
            return (
                f"this is input {j}'s gradient: return one gradient per input, in the order "
                "of self.inputs"
            )
    if same(got, -expected):
        return "every element has the wrong sign: a minus sign is missing or extra"
    if same(got, 0 * got) and not same(expected, 0 * expected):
        return "your gradient is 0 there: is a term missing?"
    nonzero = np.abs(expected) > 1e-8
    if nonzero.any() and same(got[~nonzero], 0 * got[~nonzero]):
        ratios = got[nonzero] / expected[nonzero]
        if same(ratios, np.full_like(ratios, ratios[0])) and not np.isclose(ratios[0], 1):
            return f"exactly {ratios[0]:.4g} times the right value: a constant factor is off"
    return ""


def _sum_gradients(
    f: Callable[..., Any], arrays: list[np.ndarray], create_graph: bool, weight: float = 1.0
) -> tuple[list[Any], list[Any]]:
    """The inputs' gradients of ``weight * sum(f(x))`` (None where none came) and f's
    outputs."""
    from minitorch import Variable

    variables = [Variable(a.copy()) for a in arrays]
    result = f(*variables)
    outputs = list(result) if isinstance(result, (list, tuple)) else [result]
    total = outputs[0].sum()
    for y in outputs[1:]:
        total = total + y.sum()
    if weight != 1.0:
        total = total * weight
    total.backward(create_graph=create_graph)
    grads = [None if v.grad is None else np.asarray(v.grad.data, np.float64) for v in variables]
    return grads, outputs


def _own_method(outputs: list[Any]) -> str:
    """The backward method the student's Function defines itself: ``"backward"`` (the
    course's), ``"vjp"`` or ``"backward_array"``; ``""`` for minitorch's own ops."""
    from minitorch import Function
    from minitorch.core.graph import functions

    for func in functions(*outputs):
        cls = type(func)
        if cls.__module__.startswith("minitorch."):
            continue
        for method in ("backward", "vjp", "backward_array"):
            if getattr(cls, method) is not getattr(Function, method):
                return method
    return ""


def _defines_backward_array(outputs: list[Any]) -> bool:
    """True if a Function on the graph wrote its own ``backward_array`` (a second path).

    Every subclass gets one (``Function.__init_subclass__`` picks the rule a plain
    ``backward()`` runs), so one written by hand is told by its name.
    """
    from minitorch.core.graph import functions

    return any(
        type(func).backward_array.__name__ == "backward_array" for func in functions(*outputs)
    )


def _defines_backward(outputs: list[Any]) -> bool:
    """False if a Function on the graph defines only ``backward_array`` (no create_graph)."""
    from minitorch import Function
    from minitorch.core.graph import functions

    for func in functions(*outputs):
        cls = type(func)
        if cls.backward is Function.backward and cls.vjp is Function.vjp:
            return False
    return True


def _check_direct_gradients(name: str, f: Callable[..., Any], arrays: list[np.ndarray]) -> None:
    """Call the backward of the Function ``f`` applies to the inputs directly, so that a
    gradient of the wrong shape or number is named before the engine refuses it."""
    from minitorch import Variable, no_grad

    variables = [Variable(a.copy()) for a in arrays]
    result = f(*variables)
    outputs = list(result) if isinstance(result, list | tuple) else [result]
    creator = getattr(outputs[0], "creator", None)
    if creator is None or any(all(u is not v for v in variables) for u in creator.inputs):
        return  # not one Function of the inputs: the engine's own checks apply
    seeds = [np.ones(y.shape) for y in outputs]
    try:
        gxs = creator.backward_array(*seeds)
    except NotImplementedError:
        with no_grad():
            gxs = creator.backward(*[Variable(g) for g in seeds])
    gxs = gxs if isinstance(gxs, (tuple, list)) else (gxs,)
    n = len(creator.inputs)
    if len(gxs) != n:
        raise CheckFailed(
            f"your {name}.backward returns {len(gxs)} gradient(s) for {n} input(s)\n  hint: "
            "return one gradient per input, as a tuple (g0, g1, ...)"
        )
    shapes = [u.shape for u in creator.inputs]
    for k, (u, g) in enumerate(zip(creator.inputs, gxs)):
        shape = np.shape(g.data if isinstance(g, Variable) else g) if g is not None else None
        if shape is None or shape == u.shape:
            continue
        hint = "each gradient must have the shape of its input"
        given = [np.shape(v.data if isinstance(v, Variable) else v) for v in gxs]
        swapped = [j for j in range(n) if j != k and shapes[j] == shape and given[j] == u.shape]
        wrong_axis = _summed_wrong_axis(u.shape, shape, tuple(outputs[0].shape))
        if _broadcasts(u.shape, shape):
            hint = "this input was broadcast: reduce gy to its shape, F.sum_to(gy, b.shape) for b"
        elif wrong_axis:
            hint = wrong_axis
        elif swapped:
            hint = (
                f"this has input {swapped[0]}'s shape and that one this one's: return the "
                "gradients in the order of self.inputs"
            )
        elif len(shape) == 2 and shape == u.shape[::-1]:
            hint = "this has the transposed shape: check where the .T goes"
        raise CheckFailed(
            f"gradient of your {name}{_which(k, tuple(arrays))} has shape {shape} but the "
            f"input has shape {u.shape}\n  hint: {hint}"
        )


def _summed_wrong_axis(shape: tuple[int, ...], got: tuple[int, ...], out: tuple[int, ...]) -> str:
    """A hint if ``got`` is the output's shape ``out`` less one axis along which an input of
    ``shape`` was *not* broadcast: gy was summed over the wrong axis."""
    lead = len(out) - len(shape)
    if lead < 0 or len(got) != len(out) - 1 or not _broadcasts(shape, out):
        return ""
    spread = [i for i in range(len(out)) if i < lead or shape[i - lead] == 1 != out[i]]
    summed = [i for i in range(len(out)) if out[:i] + out[i + 1 :] == got]
    if not summed or any(i in spread for i in summed) or not spread:
        return ""
    axes = ", ".join(str(i) for i in spread)
    return (
        f"gy was summed over axis {summed[0]}, but the input was repeated along axis {axes}: "
        "sum over that, F.sum_to(gy, its shape)"
    )


def _broadcasts(small: tuple[int, ...], big: tuple[int, ...]) -> bool:
    """True if ``small`` broadcasts to the larger ``big`` (NumPy's rules)."""
    if len(small) > len(big) or small == big:
        return False
    return all(s in (1, b) for s, b in zip(small[::-1], big[::-1]))


def _check_sum_gradient(
    name: str,
    f: Callable[..., Any],
    inputs: tuple[Any, ...],
    mistakes: dict[str, Callable[..., Any]] | None = None,
) -> None:
    """Pass 1 of :func:`check_gradient`: ``sum(f(x))``'s gradient on each path vs numbers."""
    from minitorch.gradcheck import numerical_grad

    arrays = [np.array(x, dtype=np.float64) for x in inputs]
    _check_direct_gradients(name, f, arrays)
    fast, outputs = _sum_gradients(f, arrays, create_graph=False)
    # Two paths to compare only where a Function defines backward_array beside backward
    # (or vjp); with one of them alone, both kinds of backward() run that one method.
    two = _defines_backward(outputs) and _defines_backward_array(outputs)
    slow = _sum_gradients(f, arrays, True)[0] if two else None
    method = _own_method(outputs)
    ones = [np.ones(y.shape) for y in outputs]
    numerics = [numerical_grad(f, arrays, k, ones) for k in range(len(arrays))]
    for k in range(len(arrays)):
        got = {"backward_array": fast[k]}
        if slow is not None:
            got["backward"] = slow[k]
        if any(g is None for g in got.values()):
            raise CheckFailed(
                f"your {name} gave no gradient{_which(k, inputs)}: does backward return "
                "one gradient per input?"
            )
        numeric = numerics[k]
        for g in got.values():
            if g.shape != numeric.shape:
                raise CheckFailed(
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
        message = _method_message(name, where, expected, path, values, method)
        message += _count(either) if path == "both" else ""
        only_one = path != "both" or slow is None or np.allclose(got["backward"], fast[k])
        diagnosis = _known_mistake(got[wrong[0]], k, arrays, mistakes or {})
        if not diagnosis and only_one:
            diagnosis = gradient_diagnosis(got[wrong[0]], numerics, k)
        raise CheckFailed(message + (f"\n  hint: {diagnosis}" if diagnosis else ""))
    _check_gy_is_used(name, f, arrays, fast, slow is not None, method)


def _check_gy_is_used(
    name: str,
    f: Callable[..., Any],
    arrays: list[np.ndarray],
    plain: list[Any],
    both: bool,
    method: str = "",
) -> None:
    """Fail if doubling the output's gradient ``gy`` does not double the inputs' ones.

    ``both``: the Function has two backward methods (each is checked and named);
    ``method``: else the one it defines, named in the message.
    """
    single = f"{name}.{method}" if method else name
    for create_graph in (False, True) if both else (False,):
        doubled = _sum_gradients(f, arrays, create_graph, weight=2.0)[0]
        for k, (g1, g2) in enumerate(zip(plain, doubled)):
            if g1 is None or g2 is None or np.allclose(g2, 2 * g1, atol=1e-8, rtol=1e-6):
                continue
            path = "backward" if create_graph else "backward_array"
            used = f"{name}.{path}" if both else single
            what = (
                "ignores gy"
                if np.allclose(g2, g1, atol=1e-8, rtol=1e-6)
                else "is not proportional to gy"
            )
            raise CheckFailed(
                f"your {used}{_which(k, tuple(arrays))} {what}: with gy doubled, its gradient "
                "should double\n  hint: multiply the local derivative by gy, the gradient "
                "arriving from the output (the chain rule)"
            )


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
        CheckFailed: naming the method, the input, the index, the expected and the
            actual (first or second) derivative.

    Example:
        >>> import minitorch.ops as F
        >>> check_backward_is_differentiable("tanh", F.tanh, np.array([0.5, -1.0]))
    """
    from minitorch import Variable
    from minitorch.gradcheck import GradcheckError, gradgradcheck

    advice = (
        "use only Variables (self.inputs, self.output(), gy) and minitorch ops: no `.data`, "
        "no np.*"
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
            raise CheckFailed(
                f"almost there: your {name}'s gradient{_which(k, inputs)} has the right values "
                "but "
                "was computed on raw NumPy arrays: create_graph=True cannot differentiate it ("
                f"notebook 06)\n  hint: {advice}"
            )
    try:
        with explain_errors(f"backward of your {name}"):
            gradgradcheck(f, *inputs)
    except GradcheckError as err:
        if err.order == 1:  # the first derivative, for randomly weighted outputs
            raise CheckFailed(_gradcheck_message(name, err, inputs)) from None
        raise CheckFailed(
            f"second derivative of your {name} differs{_which(err.input_index, inputs)}"
            f"{_index(err.index)}: expected {err.numeric:.4g} (finite differences), got "
            f"{err.analytic:.4g} (your backward, differentiated)\n  hint: a part computed "
            f"on raw arrays counts as a constant; {advice}"
        ) from None
