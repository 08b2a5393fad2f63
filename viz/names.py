"""The name each Variable of a drawn graph goes by: its own, or one derived from the graph.

A Variable's own name comes first: a module parameter's path, ``Variable.name``, a small
constant's value, or the op argument a constant made from user data was passed as (``t``,
a loss's targets). Python's own variable names are gone by the time a graph is drawn, so
every other Variable is named by its role, the same in the static drawing
(:func:`viz.to_dot`), the backward stepper and the text trace:

* the one output is ``loss`` when a cross-entropy Function made it (a loss that ends in
  a mean ends in ``Div``: ``y``), ``grad`` when ``backward(create_graph=True)`` made it
  (a gradient drawn on its own: not ``x.grad``, which would change when ``x.grad``
  does), else ``y`` (``out`` when a Variable you named is ``y``); several outputs drawn
  together are named like intermediates;
* an intermediate is the expression that made it, written from its inputs' names with
  the parentheses Python would need to read it as the same maths: ``x*2.0``,
  ``sin(x*2.0)``, ``-h``, ``a@W``, ``(a+b)*c``, ``(-x)**2.0``, ``a*(b@c)`` — when that is
  at most :data:`MAX_EXPRESSION` characters and no other node has it; an input the
  picture leaves out (``max_nodes``) reads ``…``;
* else the Function's name and which of its drawn results it is, in forward order:
  ``linear2`` is the second Linear's output, ``add14`` the fourteenth Add's, and a leaf
  without a name is ``leaf1``. A picture cut by ``max_nodes`` counts only what it shows.

No derived name repeats another name in the picture, and none takes a name you gave;
names you gave may repeat (two Variables named ``x``, two constants ``2.0``). The node
ids of the DOT text (``v1``, ``f1``) stay what they were: they are ids, not names.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

from viz.graph import Graph, VarNode
from viz.labels import format_array, visible

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
_CALL = re.compile(r"([\w.]+)\(.*\)", re.S)


def derived_names(
    graph: Graph, output_id: str | None = None, given: dict[str, str | None] | None = None
) -> tuple[dict[str, str], set[str]]:
    """Node id -> the name each Variable goes by, and the ids named ``<op><k>``.

    Args:
        graph: the drawn graph (:func:`viz.graph.walk`).
        output_id: the node id of the output that backward starts from (``None``: the
            graph's own outputs).
        given: :func:`given_names` of ``graph``, if the caller has them already.

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
    given = given_names(graph) if given is None else given
    names = {node_id: visible(name) for node_id, name in given.items() if name is not None}
    taken = set(names.values())
    outputs = (
        {output_id} if output_id else {vn.id for vn in graph.variables if vn.kind == "output"}
    )
    # node id -> the precedence of its name read as an operand (9: one word)
    precedence = {node_id: _operand(name) for node_id, name in names.items()}
    counts: dict[str, int] = {}
    counted: set[str] = set()
    for vn in graph.variables:  # forward order: inputs are named before their uses
        if given.get(vn.id) is not None:
            continue
        creator = vn.var.creator
        op = type(creator).__name__ if creator is not None else "leaf"
        stem = op.lower()
        counts[stem] = counts.get(stem, 0) + 1  # the k-th unnamed result of this Function
        name = None
        if vn.id in outputs and len(outputs) == 1:
            in_backward = getattr(creator, "created_in_backward", False)
            name = _fresh("grad", taken) if in_backward else _output_name(op, taken)
        if name is None and creator is not None:
            inputs = [graph.var_id(x) for x in creator.inputs]
            args = [names[i] if i in names else _outside_name(x) for i, x in
                    zip(inputs, creator.inputs)]  # fmt: skip
            precs = [precedence[i] if i in precedence else _operand(a) for i, a in
                     zip(inputs, args)]  # fmt: skip
            text, prec = _expression(op, args, precs)
            if len(text) <= MAX_EXPRESSION and text not in taken:
                name, precedence[vn.id] = text, prec
        if name is None:
            name = _fresh(f"{stem}{counts[stem]}", taken, "_")
            counted.add(vn.id)
        taken.add(name)
        names[vn.id] = name
    return names, counted


def _operand(name: str) -> int:
    """How tightly a name binds as an operand (a precedence of :data:`INFIX`, 9 tightest).

    A name is one word (``x``, ``layers.0.W``, ``2.0``: it binds tightest), a negative
    number reads like ``-a`` (``(-2.0)**x``, ``x*(-2.0)``), and any other text the user
    wrote (``a+b``, ``-a``) is bracketed wherever it is an operand (``(a+b)*x``).
    """
    if is_plain(name) or _is_call(name):
        return 3 if name.startswith("-") else 9
    return 0


def _is_call(name: str) -> bool:
    """``exp(y)``, ``f(a, b)``: a word and one bracket that closes at the end."""
    match = _CALL.fullmatch(name)
    if match is None:
        return False
    depth = 0
    for i, char in enumerate(name[match.end(1) :], match.end(1)):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return i == len(name) - 1
    return False


def _outside_name(x: Any) -> str:
    """The name of an input the picture does not show (``hide_constants``, ``max_nodes``):
    its own name, or a small constant's value; else ``…``."""
    name = getattr(x, "name", None)
    if name is not None and str(name) != "":
        return visible(str(name))
    data = getattr(x, "data", None)
    if getattr(x, "creator", None) is None and not getattr(x, "requires_grad", True):
        if data is not None and data.size <= 6:
            return format_array(data)
    return "…"


def variable_names(graph: Graph) -> dict[str, str]:
    """Node id -> the name each Variable node shows in bold, as plain text.

    Its own name (through :func:`viz.labels.visible`: long names shortened, invisible
    characters spelt out), else the one :func:`derived_names` gives it. The drawing, the
    stepper's captions and the text trace all name Variables with it.

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> from viz.graph import walk
        >>> x = Variable(np.array(1.0), name="x")
        >>> variable_names(walk([(x * 2.0).exp()]))
        {'v1': 'x', 'v2': '2.0', 'v3': 'x*2.0', 'v4': 'y'}
        >>> x.name = "y"  # the output's usual name: the output is out
        >>> variable_names(walk([(x * 2.0).exp()]))
        {'v1': 'y', 'v2': '2.0', 'v3': 'y*2.0', 'v4': 'out'}
    """
    return derived_names(graph)[0]


def label_names(graph: Graph, known: dict[str, str] | None = None) -> dict[str, str]:
    """Node id -> the text a drawn label starts from: a Variable's own name as it was
    given (the label shortens and escapes it, :func:`viz.labels.escape`), else the one
    :func:`derived_names` gives it; a name in ``known`` (the stepper's, drawn frame
    after frame) overrides both, and names are derived only where ``known`` lacks one."""
    given = given_names(graph)
    own = {node_id: name for node_id, name in given.items() if name is not None}
    known = known or {}
    if all(node_id in known for node_id, name in given.items() if name is None):
        return {**own, **known}
    return {**derived_names(graph, given=given)[0], **own, **known}


def given_names(graph: Graph) -> dict[str, str | None]:
    """Node id -> the name a Variable brings itself (:func:`_given_name`), or ``None``."""
    arg_names = _argument_names(graph)
    return {vn.id: _given_name(vn, arg_names.get(vn.id)) for vn in graph.variables}


def unnamed_variables(graph: Graph) -> set[str]:
    """The node ids of the Variables without a name of their own (their names are derived).

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> from viz.graph import walk
        >>> sorted(unnamed_variables(walk([Variable(np.array(1.0), name="x").exp()])))
        ['v2']
    """
    return {node_id for node_id, name in given_names(graph).items() if name is None}


def _given_name(vn: VarNode, arg_name: str | None = None) -> str | None:
    """The bold first line a node brings itself, or ``None`` when its name is derived.

    Its parameter path, its name, a small constant's value, or, for a constant that an
    op made from user data (the targets ``t`` of a loss), the op's argument it was passed
    as, when the op's ``forward`` names its arguments.
    """
    if vn.param_name is not None:
        return vn.param_name
    if vn.var.name is not None and str(vn.var.name) != "":  # Graphviz rejects an empty <B></B>
        return str(vn.var.name)
    if vn.kind == "constant" and vn.var.data is not None and vn.var.data.size <= 6:
        return format_array(vn.var.data)
    if vn.kind == "constant" and arg_name is not None:
        return arg_name
    return None


def creator_names(graph: Graph) -> dict[str, str]:
    """Variable node id -> the name of the Function node that made it (as drawn).

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> from viz.graph import walk
        >>> creator_names(walk([Variable(np.array(1.0), name="x").exp()]))
        {'v2': 'Exp'}
    """
    functions = {fn.id: fn for fn in graph.functions}
    made: dict[str, str] = {}
    for src, dst in graph.edges:
        if src in functions and dst not in made:
            made[dst] = visible(type(functions[src].func).__name__ or "Function")
    return made


def _argument_names(graph: Graph) -> dict[str, str]:
    """Constant node id -> the name of the ``forward`` argument it was first passed as."""
    names: dict[str, str] = {}
    constants = {vn.id for vn in graph.variables if vn.kind == "constant"}
    if not constants:
        return names
    for fn in graph.functions:
        params = _forward_parameters(type(fn.func))
        for position, x in enumerate(fn.func.inputs):
            vid = graph.var_id(x)
            if vid in constants and vid not in names and position < len(params):
                names[vid] = params[position]
    return names


_FORWARD_PARAMETERS: dict[type, tuple[str, ...]] = {}


def _forward_parameters(cls: type) -> tuple[str, ...]:
    """The positional parameter names of ``cls.forward`` after ``self`` (``()`` if unknown)."""
    if cls in _FORWARD_PARAMETERS:
        return _FORWARD_PARAMETERS[cls]
    names: list[str] = []
    try:
        signature = inspect.signature(cls.forward)  # type: ignore[attr-defined]
    except (AttributeError, TypeError, ValueError):
        signature = None
    if signature is not None:
        for param in list(signature.parameters.values())[1:]:
            if param.kind not in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
                break
            names.append(param.name)
    _FORWARD_PARAMETERS[cls] = tuple(names)
    return _FORWARD_PARAMETERS[cls]


def _expression(op: str, args: list[str], precs: list[int]) -> tuple[str, int]:
    """``a+b``, ``(a+b)*c``, ``-a``, ``tanh(a)``: how ``op`` applied to ``args`` reads.

    ``precs`` gives each argument's precedence (:data:`INFIX`). Parentheses go
    wherever leaving them out would read as other maths in Python: ``a-(b-c)``,
    ``a*(b@c)``, ``(x**2.0)**3.0`` and ``(-x)**2.0`` (``**`` groups from the right and
    binds tighter than a unary minus), ``x*(-2.0)``.
    """
    if op in INFIX and len(args) == 2:
        symbol, prec = INFIX[op]
        left_ok = precs[0] > prec or (precs[0] == prec and op != "Pow")
        left = args[0] if left_ok else f"({args[0]})"
        # a - (b - c), a / (b * c), a ** (b ** c): the right operand keeps its parentheses;
        # a + (b - c) and a * (b / c) regroup; a * (b @ c) and a * (b @ c / d) do not (@
        # is not elementwise, and a*b@c would multiply first)
        regroups = op == "Add" or (op == "Mul" and not _at_top_level("@", args[1]))
        tight = precs[1] > prec or (precs[1] == prec and regroups)
        # a negative number reads as an operand in parentheses: x*(-2.0), not x*-2.0
        right = args[1] if tight and not args[1].startswith("-") else f"({args[1]})"
        return f"{left}{symbol}{right}", prec
    if op == "Neg" and len(args) == 1:
        return ("-" + args[0] if precs[0] > 3 else f"-({args[0]})"), 3
    return f"{op.lower()}({', '.join(args)})", 9


def _at_top_level(symbol: str, text: str) -> bool:
    """Whether ``symbol`` occurs in ``text`` outside every bracket (``b@c/d``: yes)."""
    depth = 0
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and char == symbol:
            return True
    return False


def _output_name(op: str, taken: set[str]) -> str:
    """``loss`` for a loss's output, else ``y``; ``out`` where a user's Variable is ``y``
    (``y2`` would read as a second ``y``); then ``loss2``, ``out2``, ..."""
    if any(w in op for w in LOSSES):
        return _fresh("loss", taken)
    return "y" if "y" not in taken else _fresh("out", taken)


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
