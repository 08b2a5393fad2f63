"""What a graph keeps for backward, in bytes: the numbers behind ``show_memory=True``.

Today every Function that records a graph keeps its input Variables, and so their
arrays, until its backward has run: that is what the drawings count. The accounting is
:func:`minitorch.profile`'s: an array is told apart by identity and counted once, with
its ``nbytes``, however many inputs hold it.

* :func:`saved_bytes` — one Function: the distinct arrays among its own inputs
  (``x * x`` keeps ``x`` once).
* :func:`graph_saved_bytes` — a drawn graph: the distinct arrays over all its
  Functions, each once, so an input shared by two Functions appears in both their
  labels but once in the total (the total can be less than the sum of the labels).
* :func:`held_per_frame` — the backward stepper: after each step, the bytes still kept
  by the Functions whose backward has not run yet (an array shared with one that ran
  stays until the last one holding it has run); from the seed's total down to 0.

Leaves count too (a Function keeps ``x`` as much as it keeps ``exp(x)``), though a
leaf's array lives on while you hold the leaf. A view (``reshape``'s output) is a
distinct array and counts its own ``nbytes``, as in ``minitorch.profile``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from minitorch import Function
from minitorch.core import saved_arrays as core_saved_arrays
from viz.graph import Graph
from viz.labels import format_bytes

if TYPE_CHECKING:  # viz.trace imports viz.dot, which imports this module
    from viz.trace import BackwardTrace


def saved_arrays(func: Function) -> dict[int, np.ndarray]:
    """``id(array) -> array`` of the distinct arrays ``func`` keeps for backward (its ``saves``).

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> x = Variable(np.ones(3))
        >>> len(saved_arrays((x * x).creator))  # x once, though it is both inputs
        1
        >>> len(saved_arrays((x + x).creator))  # add's gradient reads nothing
        0
    """
    return {id(a): a for a in core_saved_arrays(func) if isinstance(a, np.ndarray)}


def saved_bytes(func: Function) -> int:
    """The bytes of the distinct input arrays ``func`` keeps for its backward.

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> saved_bytes(Variable(np.ones(1000)).exp().creator)  # its output: 1000 float64
        8000
    """
    return _total([saved_arrays(func)])


def graph_saved_bytes(graph: Graph) -> int:
    """The bytes kept for backward by the Functions of ``graph``, each array once.

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> from viz.graph import walk
        >>> x = Variable(np.ones(1000))
        >>> graph_saved_bytes(walk([x.exp() * x]))  # Exp and Mul share x: 8000 + 8000
        16000
    """
    return _total(saved_arrays(fn.func) for fn in graph.functions)


def held_per_frame(trace: BackwardTrace) -> list[int]:
    """The bytes still kept for backward at each frame of the stepper.

    Frame 0 (the seed) holds what every Function of the graph keeps; frame ``k`` is
    after the ``k``-th Function's backward has run, and holds what the Functions yet to
    run keep (each array once); the end frame what is left when all have run (0).

    Returns:
        ``len(trace) + 2`` numbers, never increasing.

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> from viz import trace_backward
        >>> x = Variable(np.ones(1000), name="x")
        >>> held_per_frame(trace_backward(x.exp().tanh().sum()))
        [16000, 16000, 8000, 0, 0]
    """
    n = len(trace.steps)
    last_use: dict[int, int] = {}  # id(array) -> the last step that needs it (n: never ran)
    sizes: dict[int, int] = {}
    ran = {id(step.function) for step in trace.steps}
    users = [(k, step.function) for k, step in enumerate(trace.steps)]
    users += [(n, fn.func) for fn in trace.graph.functions if id(fn.func) not in ran]
    for k, func in users:
        for key, array in saved_arrays(func).items():
            last_use[key] = max(last_use.get(key, k), k)
            sizes[key] = array.nbytes
    freed = [0] * (n + 2)  # freed[k]: bytes released once step k (from 0) has run
    for key, k in last_use.items():
        freed[k] += sizes[key]
    held = [sum(sizes.values())]
    for k in range(n):
        held.append(held[-1] - freed[k])
    return [*held, held[-1]]


def frame_lines(trace: BackwardTrace, held: list[int]) -> list[str]:
    """The stepper's memory line of each frame, from :func:`held_per_frame`'s numbers.

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> from viz import trace_backward
        >>> trace = trace_backward(Variable(np.ones(1000), name="x").exp().exp().sum())
        >>> frame_lines(trace, held_per_frame(trace))[2]
        'held for backward: 7.81 kB of 15.62 kB (Exp.backward has run: 7.81 kB released)'
    """
    total = held[0]
    lines = [f"held for backward: {format_bytes(total)}, what the forward pass saved"]
    for k, step in enumerate(trace.steps, start=1):
        freed = held[k - 1] - held[k]
        why = (
            f"{format_bytes(freed)} released"
            if freed
            else "nothing released: a Function yet to run needs what it kept"
        )
        lines.append(
            f"held for backward: {format_bytes(held[k])} of {format_bytes(total)} "
            f"({step.name}.backward has run: {why})"
        )
    end = "every backward has run" if held[-1] == 0 else "kept by Functions backward never ran"
    lines.append(f"held for backward: {format_bytes(held[-1])} of {format_bytes(total)} ({end})")
    return lines


def _total(groups: Iterable[dict[int, np.ndarray]]) -> int:
    arrays: dict[int, np.ndarray] = {}
    for group in groups:
        arrays.update(group)
    return int(sum(a.nbytes for a in arrays.values()))
