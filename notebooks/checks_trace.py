"""Checks that watch the engine run: the Functions of a graph in the order backward
calls them (:func:`traced`, :func:`backward_calls`) and what is wrong with a
student's schedule (:func:`schedule_problem`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np  # noqa: F401 (the examples below use it)


def _functions(outputs: list[Any]) -> list[Any]:
    """Every Function on the graph behind ``outputs``, each once (minitorch's one walk)."""
    from minitorch.core.graph import functions

    return list(functions(*[y for y in outputs if hasattr(y, "creator")]))


@contextmanager
def traced(*outputs: Any) -> Iterator[list[Any]]:
    """Record the Functions behind ``outputs`` as a student's engine runs them.

    Each Function's ``backward`` and ``backward_array`` are wrapped (on the instance) for
    the ``with`` block; the yielded list gets each Function when one of them is called.
    :func:`schedule_problem` reads it.

    Example:
        >>> import minitorch.ops as F
        >>> from minitorch import Variable
        >>> y = F.exp(Variable(np.array(1.0)))
        >>> with traced(y) as calls:
        ...     _ = y.creator.backward_array(np.ones(()))
        >>> [type(f).__name__ for f in calls]
        ['Exp']
    """
    calls = _Calls()
    functions = _functions(list(outputs))

    def wrap(f: Any, method: Any, into: list[Any]) -> Any:
        def called(*args: Any, **kwargs: Any) -> Any:
            into.append(f)
            return method(*args, **kwargs)

        return called

    for f in functions:
        f.backward_array = wrap(f, f.backward_array, calls)
        f.backward = wrap(f, f.backward, calls)
        f.output = wrap(f, f.output, calls.looked_up)
    try:
        yield calls
    finally:
        for f in functions:
            for name in ("backward_array", "backward", "output"):
                vars(f).pop(name, None)


class _Calls(list):  # type: ignore[type-arg]
    """The Functions whose backward ran, in order; ``looked_up``: whose output() was read."""

    def __init__(self) -> None:
        super().__init__()
        self.looked_up: list[Any] = []


@contextmanager
def backward_calls() -> Iterator[list[tuple[Any, bool]]]:
    """Record every ``Variable.backward`` call of the block as ``(variable, create_graph)``.

    For checks of exercises that call ``backward`` themselves: whether the first pass had
    ``create_graph=True``, and what the second pass differentiated, tell their mistakes
    apart without reading any message.

    Example:
        >>> from minitorch import Variable
        >>> x = Variable(np.array(2.0))
        >>> with backward_calls() as calls:
        ...     (x * x).backward(create_graph=True)
        >>> [create_graph for _, create_graph in calls]
        [True]
    """
    from minitorch import Variable

    calls: list[tuple[Any, bool]] = []
    original = Variable.backward

    def recording(self: Any, retain_grad: bool = False, create_graph: bool = False) -> None:
        calls.append((self, bool(create_graph)))
        return original(self, retain_grad=retain_grad, create_graph=create_graph)

    Variable.backward = recording  # type: ignore[method-assign]
    try:
        yield calls
    finally:
        Variable.backward = original  # type: ignore[method-assign]


def schedule_problem(
    calls: list[Any], *outputs: Any, order: str = "", finished: bool = True
) -> str:
    """What is wrong with the order in which an engine ran the Functions (``""`` if
    nothing): one ran more than once, one never ran, or one ran before a Function that
    uses its output (so before all its gradient had arrived); ``order`` is added to the
    last: how the exercise's engine keeps the order. ``finished=False`` (the engine
    stopped with an error): a Function that has not run yet is no problem.

    Example:
        >>> import minitorch.ops as F
        >>> from minitorch import Variable
        >>> x = Variable(np.array(1.0))
        >>> a = F.exp(x)
        >>> y = F.sin(a)
        >>> schedule_problem([a.creator, y.creator], y)
        'Exp ran before Sin, which uses its output: run a Function only after all its users'
    """
    functions = _functions(list(outputs))
    counts = {id(f): 0 for f in functions}
    for f in calls:
        counts[id(f)] = counts.get(id(f), 0) + 1
    for f in functions:
        if counts[id(f)] > 1:
            return (
                f"{type(f).__name__} ran {counts[id(f)]} times: run each Function once, after "
                "all its gradient has arrived"
            )
    for f in functions if finished else []:
        if counts[id(f)] == 0:
            return (
                f"{type(f).__name__} never ran: every Function between y and the leaves must "
                "run once"
            )
    looked_up = getattr(calls, "looked_up", [])
    f = looked_up[-1] if looked_up else None  # the last Function the engine took up
    ran = sum(g is f for g in calls)
    if not finished and f is not None and sum(g is f for g in looked_up) > ran:
        users = [g for g in functions if any(u.creator is f for u in g.inputs)]
        if ran:
            return (
                f"{type(f).__name__} was taken a second time after it ran: queue each Function "
                "once (track id(f))"
            )
        waiting = [g for g in users if all(c is not g for c in calls)]
        if waiting:
            return (
                f"{type(f).__name__} was taken before {type(waiting[0]).__name__}, which uses its "
                f"output: run a Function only after all its users{order and '; ' + order}"
            )
    position = {id(f): i for i, f in enumerate(calls)}
    for f in functions:
        for u in f.inputs:
            g = u.creator
            if g is not None and id(g) in position and position[id(g)] < position.get(id(f), -1):
                return (
                    f"{type(g).__name__} ran before {type(f).__name__}, which uses its output: "
                    f"run a Function only after all its users{order and '; ' + order}"
                )
    return ""
