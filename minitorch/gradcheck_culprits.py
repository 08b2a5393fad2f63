"""Which Function is wrong: the culprit search of :func:`minitorch.gradcheck`.

A Function that writes its gradient twice (a ``backward_array`` beside a ``backward`` or
``vjp``) can disagree with itself; when gradcheck finds a wrong gradient, each such
Function on the graph is given the same random output gradient on both paths, and the
ones whose two results differ are named. Also here: the names of the two paths and how
far outside the tolerance a value is, which gradcheck's comparison uses too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from minitorch.core import Function, Unsaved, Variable, graph, no_grad

if TYPE_CHECKING:
    from minitorch.gradcheck import GradcheckError

#: ``GradcheckError.path``: which of the two backward paths disagrees with the numbers.
FIRST_ORDER = "backward_array"  # backward(): each Function's backward_array
CREATE_GRAPH = "backward"  # backward(create_graph=True): each Function's backward
BOTH = "both"


def lacks_backward(cls: type[Function]) -> bool:
    """True for a Function class that defines neither ``backward`` nor ``vjp``."""
    return cls.backward is Function.backward and cls.vjp is Function.vjp


def badness(analytic: np.ndarray, numeric: np.ndarray, atol: float, rtol: float) -> np.ndarray:
    """How far outside the tolerance each element is (> 1: outside; NaN counts as inf)."""
    ratio = np.abs(analytic - numeric) / (atol + rtol * np.abs(numeric))
    return np.where(np.isnan(ratio), np.inf, ratio)


def name_the_functions(
    err: GradcheckError, outputs: list[Variable], atol: float, rtol: float
) -> None:
    """Add to ``err`` the Function types whose ``backward`` and ``backward_array`` differ.

    Only a class that writes its gradient twice (its own ``backward`` and its own
    ``backward_array``) can disagree with itself: an op written once, as a ``vjp`` (all
    of minitorch's) or as a ``backward`` alone, runs one formula on both paths. Each such
    Function on the graph is given the same random output gradient on both paths; where
    the two results differ, that Function is the culprit. This only adds to the message:
    a Function that cannot be called this way is skipped.
    """
    found: list[str] = []
    details: list[str] = []
    shapes = _freed_output_shapes(outputs)
    for func in functions(outputs):
        detail = _paths_differ(func, atol, rtol, shapes) if _written_twice(type(func)) else None
        if detail is not None and type(func).__name__ not in found:
            found.append(type(func).__name__)
            details.append(detail)
    if not found:
        # Both paths agree (one formula, or the same mistake twice): point at the formulas
        # written outside minitorch, the likely suspects.
        own = _unique(type(func) for func in functions(outputs))
        yours = [cls.__name__ for cls in own if not cls.__module__.startswith("minitorch.")]
        if yours and err.path == BOTH:
            err.args = (
                f"{err.args[0]}. Functions on the graph from outside minitorch: "
                f"{', '.join(yours)}",
            )
        return
    fix = {FIRST_ORDER: "backward_array", CREATE_GRAPH: "backward"}.get(err.path, "")
    todo = f"; fix {' and '.join(f'{name}.{fix}' for name in found)}" if fix else ""
    err.functions = tuple(found)
    err.args = (
        f"{err.args[0]}. Given the same (random) output gradient, backward and "
        f"backward_array return different values in {'; '.join(details)}{todo}",
    )


def _written_twice(cls: type[Function]) -> bool:
    """Does ``cls`` write its gradient twice: a ``backward_array`` beside a ``backward``
    (or a ``vjp``, which the default ``backward`` runs)?"""
    own_array_rule = not getattr(cls.backward_array, "default_array_rule", False)
    return own_array_rule and not lacks_backward(cls)


def functions(outputs: list[Variable]) -> list[Function]:
    """Every Function on the graph that made ``outputs``, each once, outputs first."""
    return list(graph.functions(*outputs))


def _unique(classes: Any) -> list[type]:
    """The classes in first-seen order, each once."""
    return list(dict.fromkeys(classes))


def _freed_output_shapes(outputs: list[Variable]) -> dict[tuple[int, int], tuple[int, ...]]:
    """``(id(creator), index) -> shape`` of the outputs that only an edge remembers (an
    output no op saved and nobody holds: its shape is on the edge of the op that used it)."""
    edges: list[Any] = [x for func in functions(outputs) for x in func.inputs]
    return {
        (id(x.creator), x.index): x.shape
        for x in edges
        if type(x) is Unsaved and x.creator is not None
    }


def _output_shape(func: Function, i: int, shapes: dict[tuple[int, int], Any]) -> Any:
    y = func.outputs[i]()
    return y.shape if y is not None else shapes.get((id(func), i)) or func.output(i).shape


def _paths_differ(
    func: Function, atol: float, rtol: float, shapes: dict[tuple[int, int], Any]
) -> str | None:
    """``"Name (input i, element e: backward_array a, backward b)"``; None if they agree."""
    rng = np.random.default_rng(1)
    try:
        n = len(func.outputs)
        gys = [rng.standard_normal(_output_shape(func, i, shapes)) for i in range(n)]
        fast = _as_tuple(func.backward_array(*gys))
        with no_grad():  # values only: nothing to record
            slow = _as_tuple(func.backward(*[Variable(gy) for gy in gys]))
    except Exception:  # a path that cannot run on its own here (only backward_array defined)
        return None
    for i, (a, b) in enumerate(zip(fast, slow)):
        if a is None or b is None:
            continue
        a = np.asarray(a, dtype=np.float64)
        b = np.asarray(b.data if isinstance(b, Variable) else b, dtype=np.float64)
        if a.shape != b.shape:
            return f"{type(func).__name__} (input {i}: shapes {a.shape} vs {b.shape})"
        outside = badness(a, b, atol, rtol)
        if (outside > 1).any():
            e = tuple(int(j) for j in np.unravel_index(int(np.argmax(outside)), a.shape))
            return (
                f"{type(func).__name__} (input {i}, element {e}: backward_array "
                f"{float(a[e]):.6g}, backward {float(b[e]):.6g})"
            )
    return None


def _as_tuple(gxs: Any) -> tuple[Any, ...]:
    return tuple(gxs) if isinstance(gxs, (tuple, list)) else (gxs,)
