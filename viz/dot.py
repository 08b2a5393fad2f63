"""``to_dot``: a minitorch graph as Graphviz DOT text, in pure Python.

The text is built line by line from the :class:`~viz.graph.Graph` that
:func:`viz.graph.walk` collected: node ids are discovery-order counters and every user
string goes through :func:`viz.labels.escape` into an HTML-like label, so the output is
byte-identical across runs and processes and cannot be broken by a strange name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from minitorch import Variable
from viz import style
from viz.clusters import cluster_lines
from viz.graph import FuncNode, Graph, VarNode, as_outputs, parameter_names, paused_gc, walk
from viz.labels import escape, format_array, format_shape
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


@dataclass
class Overlay:
    """Per-frame extras drawn by the backward stepper on top of a graph.

    Attributes:
        node_attrs: node id -> extra DOT attributes (already valid DOT, no user text).
        edge_attrs: edge index (into ``Graph.edges``) -> extra DOT attributes.
        grads: node id -> the plain-text gradient line to show instead of ``var.grad``.
        caption: plain text drawn under the graph.
    """

    node_attrs: dict[str, str] = field(default_factory=dict)
    edge_attrs: dict[int, str] = field(default_factory=dict)
    grads: dict[str, str] = field(default_factory=dict)
    caption: str | None = None


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
) -> str:
    """Describe the graph that computed ``output`` in the DOT language.

    Variables are ellipses and Functions boxes, with edges in the direction data flows
    (input -> Function -> output). A shared sub-expression is one node; distinct
    Variables stay distinct nodes even when they share a name. Node ids (``v1``, ``f1``,
    ...) count in breadth-first order from the outputs, so the same graph always gives
    the same text. Colours: blue leaves/parameters, grey intermediates, orange outputs,
    dashed constants, purple nodes made by ``backward(create_graph=True)``.

    Args:
        output: a Variable, or a list/tuple of Variables drawn together.
        show_values: add each Variable's values (small arrays in full, else a summary).
        show_grads: add each Variable's ``grad`` (``grad: not computed yet`` before
            backward; ``not kept`` for intermediates after a backward without
            ``retain_grad=True``).
        show_shapes: add each Variable's shape and dtype.
        verbose: add generation numbers and ``requires_grad``.
        rankdir: ``"TB"`` (top to bottom), ``"BT"``, ``"LR"`` or ``"RL"``.
        max_nodes: stop expanding after this many nodes; a note marks where it stopped.
        hide_constants: leave out constants that ops made from numbers (``x * 2.0``).
        legend: add a legend explaining the colours.
        module: an ``nn.Module``; its ``named_parameters()`` give parameters their
            dotted names (``layers.0.W``).
        group_modules: with ``module``, draw a cluster per sub-module around its
            parameters and the ops that read them (a heuristic: an op joins a cluster when
            it reads one of the module's parameters, or lies between two of its ops).

    Returns:
        The DOT text, ending with a newline.

    Raises:
        TypeError: if ``output`` is not a Variable (or list of them), or ``module`` has no
            ``named_parameters()``.
        ValueError: for an unknown ``rankdir``, ``max_nodes < 1`` or ``group_modules``
            without ``module``.

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> x = Variable(np.array(2.0), name="x")
        >>> print(to_dot(x * x, show_shapes=False).splitlines()[4].strip())
        v1 [label=<<B>v1</B>> shape=ellipse style=filled fillcolor="#fdae6b"]

    References:
        E. Gansner, E. Koutsofios, S. North, "Drawing graphs with dot" (Graphviz manual).
    """
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
    )


def write_dot(graph: Graph, opts: DotOptions, overlay: Overlay | None = None) -> str:
    """Turn a walked :class:`Graph` into DOT text (used by to_dot and the stepper).

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
        'f1 -> v1'
    """
    overlay = tangent_overlay(graph, overlay or Overlay())  # forward mode's ops in green
    lines = ["digraph minitorch {", _graph_line(opts, overlay)]
    lines.append(f"\tnode [{style.NODE_ATTRS}]")
    lines.append(f"\tedge [{style.EDGE_ATTRS}]")
    backward_ran = any(n.var.grad is not None for n in graph.variables if n.kind == "leaf")
    node_lines: dict[str, str] = {}
    for vn in graph.variables:
        node_lines[vn.id] = _var_line(vn, opts, overlay, backward_ran)
    for fn in graph.functions:
        node_lines[fn.id] = _func_line(fn, opts, overlay)
    if opts.group_modules:
        lines += cluster_lines(graph, node_lines, opts.module_name)
    else:
        lines += ["\t" + line for line in node_lines.values()]
    for i, (src, dst) in enumerate(graph.edges):
        extra = overlay.edge_attrs.get(i)
        lines.append(f"\t{src} -> {dst}" + (f" [{extra}]" if extra else ""))
    lines += _cut_lines(graph, opts)
    if opts.legend:
        lines += _legend_lines()
    lines.append("}")
    return "\n".join(lines) + "\n"


def _graph_line(opts: DotOptions, overlay: Overlay) -> str:
    attrs = f"rankdir={opts.rankdir} {style.GRAPH_ATTRS}"
    if overlay.caption is not None:
        attrs += f" labelloc=b label=<{escape(overlay.caption, 400)}>"
    return f"\tgraph [{attrs}]"


def _var_line(vn: VarNode, opts: DotOptions, overlay: Overlay, backward_ran: bool) -> str:
    var = vn.var
    rows = [f"<B>{escape(_var_name(vn))}</B>"]
    if opts.show_shapes:
        rows.append(escape(format_shape(var.data)))
    if opts.show_values:
        rows.append("data: " + escape(format_array(var.data), 200))
    if opts.show_grads or vn.id in overlay.grads:
        rows.append(escape(overlay.grads.get(vn.id) or _grad_text(vn, backward_ran), 400))
    if opts.verbose:
        flag = "requires_grad" if var.requires_grad else "no grad"
        rows.append(f'<FONT POINT-SIZE="9">gen {var.generation} · {flag}</FONT>')
    attrs = style.VAR_STYLE[vn.kind]
    extra = overlay.node_attrs.get(vn.id)
    return f"{vn.id} [label=<{'<BR/>'.join(rows)}> {attrs}" + (f" {extra}]" if extra else "]")


def _var_name(vn: VarNode) -> str:
    if vn.param_name is not None:
        return vn.param_name
    if vn.var.name is not None and str(vn.var.name) != "":  # Graphviz rejects an empty <B></B>
        return str(vn.var.name)
    if vn.kind == "constant" and vn.var.data is not None and vn.var.data.size <= 6:
        return format_array(vn.var.data)
    return vn.id


def _grad_text(vn: VarNode, backward_ran: bool) -> str:
    grad = vn.var.grad
    if grad is not None:
        return "grad: " + format_array(grad.data)
    if vn.kind == "constant":
        return "grad: none (constant)"
    if backward_ran and vn.kind != "leaf":
        return "grad: not kept (backward(retain_grad=True) keeps it)"
    return "grad: not computed yet"


def _func_line(fn: FuncNode, opts: DotOptions, overlay: Overlay) -> str:
    func = fn.func
    rows = [f"<B>{escape(type(func).__name__ or 'Function')}</B>"]
    in_backward = bool(getattr(func, "created_in_backward", False))
    if opts.verbose:
        rows.append(f'<FONT POINT-SIZE="9">gen {func.generation}</FONT>')
        if in_backward:
            rows.append('<FONT POINT-SIZE="9">made by backward</FONT>')
    attrs = style.BACKWARD_FUNC_STYLE if in_backward else style.FUNC_STYLE
    extra = overlay.node_attrs.get(fn.id)
    return f"{fn.id} [label=<{'<BR/>'.join(rows)}> {attrs}" + (f" {extra}]" if extra else "]")


def _cut_lines(graph: Graph, opts: DotOptions) -> list[str]:
    if not graph.cut:
        return []
    note = f"… more nodes not drawn (max_nodes={opts.max_nodes})"
    lines = [f'\tmore [label=<{escape(note)}> shape=note color="#888888"]']
    lines += [f"\tmore -> {vid} [style=dashed]" for vid in graph.cut]
    return lines


def _legend_lines() -> list[str]:
    lines = [
        "\tsubgraph cluster_legend {",
        '\t\tlabel=<<B>legend</B>> style=dashed color="#aaaaaa"',
    ]
    for i, (attrs, text) in enumerate(style.LEGEND, start=1):
        lines.append(f"\t\tlegend{i} [label=<{escape(text)}> {attrs}]")
    chain = " -> ".join(f"legend{i}" for i in range(1, len(style.LEGEND) + 1))
    lines.append(f"\t\t{chain} [style=invis]")
    lines.append("\t}")
    return lines
