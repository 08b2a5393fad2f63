"""Names for the Variables a user did not name, derived from the graph: ``y``, ``tanh(h)``.

Python's own variable names are gone by the time a graph is drawn, so the backward
stepper names each unnamed Variable by its role instead of its node id (``v125``):

* the output is ``loss`` when a loss Function made it, else ``y``;
* an intermediate is the expression that made it, written from its inputs' names:
  ``x*2.0``, ``sin(x*2.0)``, ``-h``, ``a@W``, ``(a+b)*c`` — when that is at most
  :data:`MAX_EXPRESSION` characters and no other node has it;
* else the Function's name and which of its results it is, in forward order:
  ``linear2`` is the second Linear's output, ``add14`` the fourteenth Add's.

Names a user gave (``Variable.name``, a module parameter's path) and a small
constant's value always come first; no two nodes get the same name.
"""

from __future__ import annotations

import re

from viz.dot import unnamed_variables, variable_names
from viz.graph import Graph

#: A derived expression longer than this many characters is named ``<op><k>`` instead.
MAX_EXPRESSION = 22

#: Function -> (infix symbol, precedence); the higher binds tighter.
INFIX = {
    "Add": ("+", 1),
    "Sub": ("-", 1),
    "Mul": ("*", 2),
    "Div": ("/", 2),
    "MatMul": ("@", 2),
    "Pow": ("**", 3),
}
#: Functions whose output is a loss: the graph's output made by one is named ``loss``.
LOSSES = ("SoftmaxCrossEntropy", "BinaryCrossEntropy", "CrossEntropy", "Loss", "MSE", "NLL")

_PLAIN = re.compile(r"[\w.]+|-?\d+(\.\d*)?(e-?\d+)?")


def derived_names(graph: Graph, output_id: str | None = None) -> tuple[dict[str, str], set[str]]:
    """Node id -> the name each Variable goes by, and the ids named ``<op><k>``.

    Args:
        graph: the drawn graph (:func:`viz.graph.walk`).
        output_id: the node id of the output that backward starts from (``None``: the
            graph's own outputs).

    Returns:
        ``(names, counted)``: every Variable node's name (see the module docstring), and
        the node ids whose name is only a Function's name and a count (a caption should
        say where such a node is).

    Example:
        >>> import numpy as np
        >>> import minitorch.ops as F
        >>> from minitorch import Variable
        >>> from viz.graph import walk
        >>> x = Variable(np.array(1.0), name="x")
        >>> names, counted = derived_names(walk([(F.tanh(x * 2.0)).sum()]))
        >>> sorted(names.values()), counted
        (['2.0', 'tanh(x*2.0)', 'x', 'x*2.0', 'y'], set())
    """
    names = variable_names(graph)
    unnamed = unnamed_variables(graph)
    taken = {name for node_id, name in names.items() if node_id not in unnamed}
    outputs = (
        {output_id} if output_id else {vn.id for vn in graph.variables if vn.kind == "output"}
    )
    precedence: dict[str, int] = {}  # node id -> precedence of its top operator
    counts: dict[str, int] = {}
    counted: set[str] = set()
    for vn in graph.variables:  # forward order: inputs are named before their uses
        if vn.id not in unnamed:
            continue
        creator = vn.var.creator
        op = type(creator).__name__ if creator is not None else "leaf"
        stem = op.lower()
        counts[stem] = counts.get(stem, 0) + 1  # the k-th unnamed result of this Function
        name = None
        if vn.id in outputs:
            name = _fresh("loss" if any(w in op for w in LOSSES) else "y", taken)
        elif creator is not None:
            inputs = [graph.var_id(x) for x in creator.inputs]
            args = [names.get(i or "", "…") for i in inputs]
            text, prec = _expression(op, args, [precedence.get(i or "", 9) for i in inputs])
            if len(text) <= MAX_EXPRESSION and text not in taken:
                name, precedence[vn.id] = text, prec
        if name is None:
            name = _fresh(f"{stem}{counts[stem]}", taken, "_")
            counted.add(vn.id)
        taken.add(name)
        names[vn.id] = name
    return names, counted


def _expression(op: str, args: list[str], precs: list[int]) -> tuple[str, int]:
    """``a+b``, ``(a+b)*c``, ``-a``, ``tanh(a)``: how ``op`` applied to ``args`` reads."""
    if op in INFIX and len(args) == 2:
        symbol, prec = INFIX[op]
        left = args[0] if precs[0] >= prec else f"({args[0]})"
        # a - (b - c), a / (b * c), a ** (b ** c): the right operand keeps its parentheses
        tight = precs[1] > prec or (precs[1] == prec and op in ("Add", "Mul"))
        right = args[1] if tight else f"({args[1]})"
        return f"{left}{symbol}{right}", prec
    if op == "Neg" and len(args) == 1:
        return ("-" + args[0] if precs[0] >= 3 else f"-({args[0]})"), 3
    return f"{op.lower()}({', '.join(args)})", 9


def _fresh(stem: str, taken: set[str], joint: str = "") -> str:
    """``stem``, or ``stem2``, ``stem3``... when a node already goes by it."""
    name, k = stem, 1
    while name in taken:
        k += 1
        name = f"{stem}{joint}{k}"
    return name


def is_plain(name: str) -> bool:
    """Whether ``name`` reads as one word (``x``, ``layers.0.W``, ``2.0``), not an expression.

    ``∂y/∂x*2.0`` would read wrongly; a caption writes ``∂y/∂(x*2.0)`` for such a name.

    Example:
        >>> is_plain("layers.0.W"), is_plain("x*2.0"), is_plain("-1.5")
        (True, False, True)
    """
    return _PLAIN.fullmatch(name) is not None
