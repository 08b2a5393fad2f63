"""``to_dot``: a minitorch graph as Graphviz DOT text, in pure Python.

The text is built line by line from the :class:`~viz.graph.Graph` that
:func:`viz.graph.walk` collected: node ids are discovery-order counters and every user
string goes through :func:`viz.labels.escape` into an HTML-like label, so the output is
byte-identical across runs and processes and cannot be broken by a strange name.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from minitorch import Variable
from minitorch.core import Unsaved
from viz import style
from viz.clusters import ModuleTree, cluster_lines, module_tree
from viz.graph import FuncNode, Graph, VarNode, as_outputs, parameter_names, paused_gc, walk
from viz.labels import escape, format_array, format_bytes, format_shape
from viz.memory import graph_saved_bytes, saved_bytes
from viz.names import label_names
from viz.tangents import tangent_overlay


@dataclass(frozen=True)
class DotOptions:
    """What the labels show and how the graph is laid out (see :func:`to_dot`)."""

    show_values: bool = False
    show_grads: bool = False
    show_shapes: bool = True
    verbose: bool = False
    rankdir: str = "TB"
    legend: bool = False
    group_modules: bool = False
    max_nodes: int | None = None
    module_name: str = "module"
    module_layers: ModuleTree | None = None
    show_memory: bool = False


@dataclass
class Overlay:
    """Per-frame extras drawn by the backward stepper on top of a graph.

    Attributes:
        node_attrs: node id -> extra DOT attributes (already valid DOT, no user text).
        edge_attrs: edge index (into ``Graph.edges``) -> extra DOT attributes.
        grads: node id -> the plain-text gradient line to show instead of ``var.grad``.
        caption: plain text drawn under the graph.
        names: node id -> the bold name to show instead of the one :mod:`viz.names`
            derives (plain text; the stepper's, derived from the output it steps from).
    """

    node_attrs: dict[str, str] = field(default_factory=dict)
    edge_attrs: dict[int, str] = field(default_factory=dict)
    grads: dict[str, str] = field(default_factory=dict)
    caption: str | None = None
    names: dict[str, str] = field(default_factory=dict)


#: The keyword options of to_dot, and so of viz.draw_graph and viz.render.
OPTIONS = (
    "show_values", "show_grads", "show_shapes", "verbose", "rankdir", "max_nodes",
    "hide_constants", "legend", "module", "group_modules", "show_memory",
)  # fmt: skip


def reject_unknown(unknown: dict[str, Any], caller: str, valid: tuple[str, ...]) -> None:
    """Raise a TypeError for unknown keyword options, naming the valid ones.

    Raises:
        TypeError: if ``unknown`` is not empty; the message suggests the closest valid
            option ("did you mean ...") and lists all of them.

    Example:
        >>> reject_unknown({"show_grad": True}, "viz.draw_graph", OPTIONS)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        TypeError: viz.draw_graph: unknown option 'show_grad' (did you mean 'show_grads'?); ...
    """
    if not unknown:
        return
    name = sorted(unknown)[0]
    close = difflib.get_close_matches(name, valid, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise TypeError(f"{caller}: unknown option {name!r}{hint}; valid options: {', '.join(valid)}")


def to_dot(
    output: Variable | list[Variable] | tuple[Variable, ...],
    *,
    show_values: bool = False,
    show_grads: bool = False,
    show_shapes: bool = True,
    verbose: bool = False,
    rankdir: str = "TB",
    max_nodes: int | None = None,
    hide_constants: bool = False,
    legend: bool = False,
    module: Any = None,
    group_modules: bool = False,
    show_memory: bool = False,
    **unknown: Any,
) -> str:
    """Describe the graph that computed ``output`` in the DOT language.

    Variables are ellipses and Functions boxes, with edges in the direction data flows
    (input -> Function -> output). A shared sub-expression is one node; distinct
    Variables stay distinct nodes even when they share a name. Node ids (``v1``, ``f1``,
    ...) count in forward order, the order the expression creates them (``v1`` is an
    input, the output comes last), so the same graph always gives the same text. Each
    Variable is drawn with its name, a parameter with its path, a constant with its
    value when it is small, else with the op argument it was passed as (``t`` for a
    loss's targets); any other is named by its role, as the backward stepper names it
    (:mod:`viz.names`): the output ``y`` (``loss``), an intermediate by the expression
    that made it (``x*2.0``, ``tanh(x*2.0)``) or, when that is long, its Function and a
    count (``linear2``). Colours:
    blue leaves/parameters, grey intermediates, orange outputs, dashed constants, purple
    nodes made by ``backward(create_graph=True)``.

    Args:
        output: a Variable, or a list/tuple of Variables drawn together.
        show_values: add each Variable's values (small arrays in full, else a summary).
        show_grads: add the gradients: each leaf's ``grad`` (``not computed yet`` before
            backward), the output's seed (ones: backward starts with dy/dy = 1) and the
            intermediates' gradients that ``backward(retain_grad=True)`` kept. When
            intermediates have none after a backward, one note under the graph says so.
        show_shapes: add each Variable's shape and dtype.
        verbose: add generation numbers and ``requires_grad``.
        rankdir: ``"TB"`` (top to bottom), ``"BT"``, ``"LR"`` or ``"RL"``.
        max_nodes: stop expanding after this many nodes; a note marks where it stopped.
        hide_constants: leave out constants that ops made from numbers (``x * 2.0``).
        legend: add a one-row legend under the graph, naming the colours of the kinds
            of node it contains (and only those).
        module: an ``nn.Module``; its ``named_parameters()`` give parameters their
            dotted names (``layers.0.W``).
        group_modules: with ``module``, draw a box per sub-module around its parameters
            and the ops that read them (a heuristic, see :mod:`viz.clusters`: an op joins
            a box when it reads one of the module's parameters or lies between two of its
            ops; the parameterless layers of a ``Sequential``, such as ``ReLU``, get the
            ops between their neighbours' boxes).
        show_memory: add to each Function the bytes it keeps for backward (the distinct
            arrays among its inputs: ``x * x`` keeps ``x`` once), and under the graph
            their total, each array counted once: an input shared by two Functions is in
            both their lines but once in the total (see :mod:`viz.memory`).
        **unknown: rejected: any other keyword is a TypeError naming the valid ones.

    Returns:
        The DOT text, ending with a newline.

    Raises:
        TypeError: if ``output`` is not a Variable (or list of them), ``module`` has no
            ``named_parameters()``, or for an unknown keyword option.
        ValueError: for an unknown ``rankdir``, ``max_nodes < 1`` or ``group_modules``
            without ``module``.

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> x = Variable(np.array(2.0), name="x")
        >>> print(to_dot(x * x, show_shapes=False).splitlines()[6].strip())
        v2 [label=<<B>y</B>> shape=ellipse style=filled fillcolor="#fdae6b"]

    References:
        E. Gansner, E. Koutsofios, S. North, "Drawing graphs with dot" (Graphviz manual).
    """
    reject_unknown(unknown, "viz.to_dot", OPTIONS)
    outputs = as_outputs(output, "viz.to_dot")
    opts = make_options(locals())
    names = parameter_names(module, "viz.to_dot")
    graph = walk(outputs, max_nodes, hide_constants, names)
    with paused_gc():
        return write_dot(graph, opts)


def make_options(kwargs: dict[str, Any]) -> DotOptions:
    """Validate to_dot-style keyword arguments and return :class:`DotOptions`.

    Args:
        kwargs: the keyword arguments of :func:`to_dot` (missing ones take defaults).

    Returns:
        The frozen options.

    Raises:
        ValueError: for an unknown ``rankdir`` or ``group_modules`` without ``module``.

    Example:
        >>> make_options({"rankdir": "LR", "show_values": True}).rankdir
        'LR'
    """
    rankdir = kwargs.get("rankdir", "TB")
    if rankdir not in style.RANKDIRS:
        raise ValueError(f"viz: rankdir must be one of {style.RANKDIRS}, got {rankdir!r}")
    module = kwargs.get("module")
    if kwargs.get("group_modules") and module is None:
        raise ValueError("viz: group_modules=True needs module= (the nn.Module to group by)")
    return DotOptions(
        show_values=bool(kwargs.get("show_values", False)),
        show_grads=bool(kwargs.get("show_grads", False)),
        show_shapes=bool(kwargs.get("show_shapes", True)),
        verbose=bool(kwargs.get("verbose", False)),
        rankdir=rankdir,
        legend=bool(kwargs.get("legend", False)),
        group_modules=bool(kwargs.get("group_modules", False)),
        max_nodes=kwargs.get("max_nodes"),
        module_name=type(module).__name__ if module is not None else "module",
        module_layers=module_tree(module) if kwargs.get("group_modules") else None,
        show_memory=bool(kwargs.get("show_memory", False)),
    )


def write_dot(graph: Graph, opts: DotOptions, overlay: Overlay | None = None) -> str:
    """Turn a walked :class:`Graph` into DOT text (used by to_dot and the stepper).

    Nodes are declared in forward order (``v1, f1, v2, ...``). With ``opts.show_grads``,
    leaves, outputs and constants get a gradient line; intermediate results only when
    ``backward(retain_grad=True)`` kept their gradient, and otherwise one note under the
    graph says so (instead of the same sentence in every node). The legend lists only the
    kinds of node the graph contains, in one row under the graph.

    Args:
        graph: the result of :func:`viz.graph.walk`.
        opts: what to show (:class:`DotOptions`).
        overlay: per-node/edge extras and a caption (the stepper's highlights).

    Returns:
        The DOT text: header lines, nodes (or module clusters), edges, extras, ``}``.

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> graph = walk([Variable(np.array(1.0), name="x").exp()])
        >>> write_dot(graph, DotOptions(show_shapes=False)).splitlines()[-2].strip()
        'f1 -> v2'
    """
    overlay = tangent_overlay(graph, overlay or Overlay())  # forward mode's ops in green
    backward_ran = any(n.var.grad is not None for n in graph.variables if n.kind == "leaf")
    labels = label_names(graph, overlay.names)
    node_lines: dict[str, str] = {}
    hidden_grads = False
    variables = {vn.id: vn for vn in graph.variables}
    functions = {fn.id: fn for fn in graph.functions}
    for node_id in graph.order or [*variables, *functions]:
        if node_id in variables:
            vn = variables[node_id]
            grad = overlay.grads.get(vn.id) or _grad_text(vn)
            hidden_grads |= (
                opts.show_grads
                and grad is None
                and backward_ran
                and not (
                    isinstance(vn.var, Unsaved)  # freed: no Variable could keep a gradient
                )
            )
            line = _var_line(vn, opts, overlay, grad, labels[vn.id])
        else:
            line = _func_line(functions[node_id], opts, overlay)
        node_lines[node_id] = line
    notes = []
    if hidden_grads:
        notes.append(
            "gradients of intermediate results are not kept: backward(retain_grad=True) keeps them"
        )
    lines = ["digraph minitorch {", _graph_line(graph, opts, overlay, notes)]
    lines.append(f"\tnode [{style.NODE_ATTRS}]")
    lines.append(f"\tedge [{style.EDGE_ATTRS}]")
    if opts.group_modules:
        lines += cluster_lines(graph, node_lines, opts.module_name, opts.module_layers)
    else:
        lines += ["\t" + line for line in node_lines.values()]
    for i, (src, dst) in enumerate(graph.edges):
        extra = overlay.edge_attrs.get(i)
        lines.append(f"\t{src} -> {dst}" + (f" [{extra}]" if extra else ""))
    lines += _cut_lines(graph, opts)
    lines.append("}")
    return "\n".join(lines) + "\n"


def _graph_line(graph: Graph, opts: DotOptions, overlay: Overlay, notes: list[str]) -> str:
    attrs = f"rankdir={opts.rankdir} {style.GRAPH_ATTRS}"
    if opts.group_modules:
        attrs += " newrank=true"  # rank globally, so no edge climbs back into a cluster
    rows = []
    if overlay.caption is not None:
        rows.append(escape(overlay.caption, 400))
    if opts.legend:
        rows.append(_legend_table(graph))
    if opts.show_memory:
        rows.append(escape(_memory_total(graph), 400))
    rows += [f'<FONT POINT-SIZE="{style.NOTE_SIZE}">{escape(note, 400)}</FONT>' for note in notes]
    if len(rows) == 1 and overlay.caption is not None:
        attrs += f" labelloc=b label=<{rows[0]}>"
    elif rows:
        cells = "".join(f"<TR><TD>{row}</TD></TR>" for row in rows)
        attrs += f' labelloc=b label=<<TABLE BORDER="0" CELLSPACING="2">{cells}</TABLE>>'
    return f"\tgraph [{attrs}]"


def _legend_table(graph: Graph) -> str:
    """One row of small swatches, one per kind of node that ``graph`` contains."""
    present = {vn.kind for vn in graph.variables}
    for fn in graph.functions:
        present.add("backward_func" if _in_backward(fn) else "func")
        if getattr(fn.func, "created_in_jvp", False):
            present.add("tangent")
    cells = "".join(
        f'<TD {attrs}><FONT POINT-SIZE="{style.NOTE_SIZE}">{escape(text)}</FONT></TD>'
        for kind, attrs, text in style.LEGEND
        if kind in present
    )
    return (
        f'<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="3" CELLPADDING="2">'
        f'<TR><TD BORDER="0"><FONT POINT-SIZE="{style.NOTE_SIZE}"><B>legend</B></FONT></TD>'
        f"{cells}</TR></TABLE>"
    )


def _var_line(
    vn: VarNode, opts: DotOptions, overlay: Overlay, grad: str | None, label: str
) -> str:
    var = vn.var
    rows = [f"<B>{escape(label)}</B>"]
    freed = isinstance(var, Unsaved)  # no op saved it and nobody holds it: its data is gone
    if opts.show_shapes:
        rows.append(escape(format_shape(var if freed else var.data)))  # type: ignore[arg-type]
    if opts.show_values:
        rows.append("data: freed" if freed else "data: " + escape(format_array(var.data), 200))
    if (opts.show_grads or vn.id in overlay.grads) and grad is not None:
        rows.append(escape(grad, 400))
    if opts.verbose:
        flag = "requires_grad" if var.requires_grad else "no grad"
        rows.append(f'<FONT POINT-SIZE="9">gen {var.generation} · {flag}</FONT>')
    attrs = style.VAR_STYLE[vn.kind]
    extra = overlay.node_attrs.get(vn.id)
    return f"{vn.id} [label=<{'<BR/>'.join(rows)}> {attrs}" + (f" {extra}]" if extra else "]")


def _grad_text(vn: VarNode) -> str | None:
    """The gradient line of a node, or ``None`` for an intermediate without a kept grad."""
    grad = vn.var.grad
    if grad is not None:
        return "grad: " + format_array(grad.data)
    if vn.kind == "constant":
        return "no grad (constant)"
    if vn.var.creator is None:
        return "grad: not computed yet"
    if vn.kind == "output":  # backward() from here starts with ones (dy/dy = 1)
        return "backward() seed: " + format_array(np.ones_like(vn.var.data))
    return None  # an intermediate: not computed yet, or not kept (one note says so)


def _in_backward(fn: FuncNode) -> bool:
    return bool(getattr(fn.func, "created_in_backward", False))


def _func_line(fn: FuncNode, opts: DotOptions, overlay: Overlay) -> str:
    func = fn.func
    rows = [f"<B>{escape(type(func).__name__ or 'Function')}</B>"]
    in_backward = _in_backward(fn)
    if opts.show_memory:
        rows.append(escape("saved: " + format_bytes(saved_bytes(func))))
    if opts.verbose:
        rows.append(f'<FONT POINT-SIZE="9">gen {func.generation}</FONT>')
        if in_backward:
            rows.append('<FONT POINT-SIZE="9">made by backward</FONT>')
    attrs = style.BACKWARD_FUNC_STYLE if in_backward else style.FUNC_STYLE
    extra = overlay.node_attrs.get(fn.id)
    return f"{fn.id} [label=<{'<BR/>'.join(rows)}> {attrs}" + (f" {extra}]" if extra else "]")


def _memory_total(graph: Graph) -> str:
    """The graph label's line: what all its Functions keep for backward, each array once."""
    total = graph_saved_bytes(graph)
    return f"saved for backward: {format_bytes(total)} ({total:,} bytes; each array once)"


def _cut_lines(graph: Graph, opts: DotOptions) -> list[str]:
    if not graph.cut:
        return []
    note = f"… more nodes not drawn (max_nodes={opts.max_nodes})"
    lines = [f'\tmore [label=<{escape(note)}> shape=note color="#888888"]']
    lines += [f"\tmore -> {vid} [style=dashed]" for vid in graph.cut]
    return lines
