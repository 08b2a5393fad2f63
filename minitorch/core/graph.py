"""One walk over a recorded graph: every Function behind some outputs, each once.

Everything that visits a graph uses :func:`functions` — ``unchain_backward``, the
tangent rules' marking, ``gradcheck``, ``viz`` — except the engine's counting passes
(``backward.count_pending``, and :func:`count_between` for ``autograd.grad``), which
must count every edge, not visit every node.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import minitorch.core.saved as saved
from minitorch.core.saved import grad_key

if TYPE_CHECKING:
    from collections.abc import Sequence

    from minitorch.core.function import Function
    from minitorch.core.variable import Variable


def functions(
    *outputs: Variable | None,
    stop: Callable[[Variable], bool] | None = None,
    breadth_first: bool = False,
) -> Iterator[Function]:
    """Yield every Function of the graph behind ``outputs``, each once (iteratively).

    Depth-first from the outputs, in order: a Function comes before the creators of its
    inputs, which are visited in argument order. Read a Function's inputs when it is
    yielded; a walk that changes the graph (``unchain``) should list it first.

    Args:
        *outputs: the Variables whose history to walk (``None`` entries are skipped).
        stop: if given, the walk does not go past a Variable for which it is true.
        breadth_first: nearest the outputs first instead (level by level, inputs in
            argument order): a picture cut at ``max_nodes`` keeps what is nearest.

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> x = Variable(np.array(2.0))
        >>> [type(f).__name__ for f in functions(x * x + x)]
        ['Add', 'Mul']
    """
    seen: set[int] = set()
    order = (lambda xs: xs) if breadth_first else reversed
    todo = deque(y.creator for y in order(outputs) if y is not None and y.creator is not None)
    take = todo.popleft if breadth_first else todo.pop
    while todo:
        func = take()
        if id(func) in seen:
            continue
        seen.add(id(func))
        if saved.cuts_made:
            saved.put_back_cut(func)  # what unchain() cut is not walked past
        yield func
        todo.extend(
            x.creator
            for x in order(func.inputs)
            if x.creator is not None and (stop is None or not stop(x))
        )


#: The count of a Function that must never run in this pass (see :func:`count_between`).
_NEVER = 1 << 62


def count_between(
    outputs: Sequence[Variable], inputs: Sequence[Variable]
) -> tuple[dict[Function, int], list[Function], list[Function]]:
    """``count_pending`` for ``autograd.grad``: only the graph from outputs to inputs.

    A Function runs only if some requested input is reachable from it (through inputs
    that need a gradient); the rest of the graph below (the creators of the inputs, the
    branches that lead to no input) is neither run nor released, as in PyTorch's
    ``torch.autograd.grad``. Those Functions get the count :data:`_NEVER`, so the loop's
    countdown never makes them ready.

    Returns:
        ``(pending, run, idle)``: the counts, the Functions that will run, and the ones
        reached below or beside them that will not (their leaves' in-place checks still
        matter: a view op below an input hands the leaf's memory to a Function that runs).
    """
    targets = {grad_key(x) for x in inputs}  # an input not saved is known by its edge
    useful: dict[Function, bool] = {}  # visited; True once some input is found below
    stack = [(y.creator, False) for y in outputs if y.creator is not None]
    while stack:  # iterative post-order: a Function is decided after all below it
        func, below_done = stack.pop()
        if not below_done and saved.cuts_made:
            saved.put_back_cut(func)  # a Variable cut by unchain() is a leaf, also here
        edges = [(x, x.creator) for x, n in zip(func.inputs, func.needs_input_grad) if n]
        if below_done:
            useful[func] = any(
                grad_key(x) in targets or (c is not None and useful[c]) for x, c in edges
            )
        elif func not in useful:
            useful[func] = False
            stack.append((func, True))
            stack.extend((c, False) for _, c in edges if c is not None and c not in useful)
    run = [func for func, ok in useful.items() if ok]
    idle = [func for func, ok in useful.items() if not ok]
    pending: dict[Function, int] = dict.fromkeys(run, 0)
    for func in run:
        for x, needs in zip(func.inputs, func.needs_input_grad):
            creator = x.creator
            if needs and creator is not None:
                pending[creator] = pending[creator] + 1 if useful[creator] else _NEVER
    return pending, run, idle
