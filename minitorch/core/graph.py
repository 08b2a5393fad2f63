"""One walk over a recorded graph: every Function behind some outputs, each once.

Everything that visits a graph uses :func:`functions` — ``unchain_backward``, the
tangent rules' marking, ``gradcheck``, ``viz`` — except the engine's counting pass
(``backward.count_pending``), which must count every edge, not visit every node.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from minitorch.core.function import Function
    from minitorch.core.variable import Variable


def functions(
    *outputs: Variable | None, stop: Callable[[Variable], bool] | None = None
) -> Iterator[Function]:
    """Yield every Function of the graph behind ``outputs``, each once (iteratively).

    Depth-first from the outputs, in order: a Function comes before the creators of its
    inputs, which are visited in argument order. Read a Function's inputs when it is
    yielded; a walk that changes the graph (``unchain``) should list it first.

    Args:
        *outputs: the Variables whose history to walk (``None`` entries are skipped).
        stop: if given, the walk does not go past a Variable for which it is true.

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> x = Variable(np.array(2.0))
        >>> [type(f).__name__ for f in functions(x * x + x)]
        ['Add', 'Mul']
    """
    seen: set[int] = set()
    stack = [y.creator for y in reversed(outputs) if y is not None and y.creator is not None]
    while stack:
        func = stack.pop()
        if id(func) in seen:
            continue
        seen.add(id(func))
        yield func
        stack.extend(
            x.creator
            for x in reversed(func.inputs)
            if x.creator is not None and (stop is None or not stop(x))
        )
