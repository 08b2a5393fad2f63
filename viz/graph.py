"""Walk a minitorch graph once into ordered nodes and edges, with stable ids.

The walk reads only minitorch's public graph: ``Variable.creator``, ``Function.inputs``
and ``Function.outputs``. It is a breadth-first search from the outputs with an explicit
queue (no recursion, so a 100,000-op chain needs no recursion-limit change), so that
``max_nodes`` keeps the nodes nearest the outputs. The drawn nodes are then numbered in
*forward* order — ``v1, v2, ...`` for Variables and ``f1, f2, ...`` for Functions — the
order in which a program evaluating the expression left to right creates them: every
node after its inputs, a Function's inputs in argument order, a Function's outputs right
after it (a post-order depth-first walk from the outputs). A reader going top to bottom
therefore meets ``v1`` first and the output last. The same graph gives the same ids in
every run and every process, unlike ``id()``-based names. Objects are told apart by
identity: a shared sub-expression is one node, and two distinct Variables that happen to
share a name stay two nodes.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from minitorch import Function, Variable
from minitorch.core import Unsaved
from minitorch.core.graph import functions

#: Node kinds of Variables, in legend order.
VAR_KINDS = ("leaf", "intermediate", "output", "constant", "backward")


@dataclass
class VarNode:
    """A Variable in the drawing: its id, the Variable and its kind (see VAR_KINDS)."""

    id: str
    var: Variable
    kind: str
    param_name: str | None = None


@dataclass
class FuncNode:
    """A Function in the drawing: its id and the Function."""

    id: str
    func: Function


@dataclass
class Graph:
    """The result of :func:`walk`: nodes in discovery order and the edges between them.

    Attributes:
        variables: Variable nodes in forward order (``v1`` first; see the module docstring).
        functions: Function nodes in forward order (``f1`` first).
        edges: ``(source id, target id)`` pairs in data-flow direction (input ->
            Function -> output), grouped by Function in forward order: its inputs in
            argument order (an input used twice gives two edges), then its outputs.
        cut: ids of Variables whose creator was not drawn because of ``max_nodes``.
        order: every node id in forward order, Variables and Functions interleaved
            (``v1, f1, v2, ...``): the order the DOT text declares them.
    """

    variables: list[VarNode] = field(default_factory=list)
    functions: list[FuncNode] = field(default_factory=list)
    edges: list[tuple[str, str]] = field(default_factory=list)
    cut: list[str] = field(default_factory=list)
    order: list[str] = field(default_factory=list)
    var_ids: dict[int, str] = field(default_factory=dict)
    func_ids: dict[int, str] = field(default_factory=dict)

    #: ``id(edge.origin) -> `` the one ``Unsaved`` drawn for a freed value.
    freed: dict[int, Unsaved] = field(default_factory=dict)

    def var_id(self, var: Variable | Unsaved) -> str | None:
        """The node id of ``var``, or ``None`` if it is not drawn. An input a Function
        did not save is the node of its Variable if alive, else of the freed value."""
        if isinstance(var, Unsaved):
            live = var.live()
            if live is None:
                freed = self.freed.get(id(var.origin))  # also for an edge unchain() cut
                return None if freed is None else self.var_ids.get(id(freed))
            var = live
        return self.var_ids.get(id(var))

    def output_id(self, func: Function, index: int) -> str | None:
        """The node id of output ``index`` of ``func``: its Variable, or freed."""
        y = func.outputs[index]()
        if y is not None:
            return self.var_ids.get(id(y))
        freed = self.freed.get(id(func.outputs[index]))
        return None if freed is None else self.var_ids.get(id(freed))

    def func_id(self, func: Function) -> str | None:
        """The node id of ``func``, or ``None`` if it is not drawn."""
        return self.func_ids.get(id(func))


def as_outputs(output: Any, caller: str) -> list[Variable]:
    """Accept one Variable or a list/tuple of them; raise a clear TypeError otherwise.

    Args:
        output: a Variable, or a list/tuple of Variables.
        caller: the public function's name, for the error message.

    Returns:
        The Variables as a list.

    Raises:
        TypeError: naming the position and type of the first non-Variable.
        ValueError: for an empty list.

    Example:
        >>> import numpy as np
        >>> len(as_outputs(Variable(np.ones(2)), "viz.to_dot"))
        1
    """
    outputs = list(output) if isinstance(output, (list, tuple)) else [output]
    if not outputs:
        raise ValueError(f"{caller}: expected a Variable or a non-empty list of Variables")
    for i, y in enumerate(outputs):
        if not isinstance(y, Variable):
            raise TypeError(
                f"{caller}: output {i} is a {type(y).__name__}, not a minitorch Variable"
            )
    return outputs


def walk(
    outputs: Sequence[Variable],
    max_nodes: int | None = None,
    hide_constants: bool = False,
    param_names: dict[int, str] | None = None,
) -> Graph:
    """Collect the graph behind ``outputs`` breadth-first, iteratively.

    Args:
        outputs: the Variables to draw from (their kind is ``"output"``).
        max_nodes: stop expanding creators once this many nodes are drawn; the Variables
            at the border are listed in ``Graph.cut``.
        hide_constants: leave out leaves that need no gradient (constants made by ops).
        param_names: ``id(parameter) -> dotted name`` from a module.

    Returns:
        The :class:`Graph`.

    Raises:
        ValueError: if ``max_nodes`` is smaller than 1.

    Example:
        >>> import numpy as np
        >>> x = Variable(np.array(2.0), name="x")
        >>> graph = walk([x * x])
        >>> [(n.id, n.var.name) for n in graph.variables], graph.edges
        ([('v1', 'x'), ('v2', None)], [('v1', 'f1'), ('v1', 'f1'), ('f1', 'v2')])
    """
    if max_nodes is not None and max_nodes < 1:
        raise ValueError(f"viz: max_nodes must be a positive int or None, got {max_nodes}")
    with paused_gc():
        graph = _walk(outputs, max_nodes, hide_constants, param_names or {})
        return _in_forward_order(graph, outputs)


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector inside the block (restored on exit).

    Walking or writing a big graph allocates a few small objects per node; each automatic
    collection would rescan the whole graph, which made a 100,000-node drawing 3x slower.

    Example:
        >>> import gc
        >>> with paused_gc():
        ...     gc.isenabled()
        False
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _walk(
    outputs: Sequence[Variable],
    max_nodes: int | None,
    hide_constants: bool,
    names: dict[int, str],
) -> Graph:
    """The drawn nodes: the core's one walk (breadth first, so a cut keeps the nodes
    nearest the outputs), each Function with its inputs, then the output edges."""
    graph = Graph()
    output_ids = {id(y) for y in outputs}
    for y in outputs:
        if id(y) not in graph.var_ids:
            _add_var(graph, y, "output", names)
    for func in functions(*outputs, breadth_first=True):
        if max_nodes is not None and _count(graph) >= max_nodes:
            break
        _add_inputs(graph, func, _add_func(graph, func), output_ids, hide_constants, names)
    for vn in graph.variables:  # each drawn value after the Function that made it
        creator = vn.var.creator
        if creator is None:
            continue
        fid = graph.func_ids.get(id(creator))
        if fid is None:
            graph.cut.append(vn.id)  # its creator is beyond max_nodes
        else:
            graph.edges.append((fid, vn.id))
    return graph


def _in_forward_order(graph: Graph, outputs: Sequence[Variable]) -> Graph:
    """Renumber a walked graph's nodes and order its edges in forward order.

    A post-order depth-first walk from the outputs (explicit stack): a Variable after the
    Function that made it, a Function after its inputs (visited in argument order), a
    Function's other drawn outputs right after it.
    """
    producer: dict[str, str] = {}
    inputs_of: dict[str, list[str]] = {}
    for src, dst in graph.edges:
        if src[0] == "f":
            producer[dst] = src
        else:
            inputs_of.setdefault(dst, []).append(src)
    var_by_id = {vn.id: vn for vn in graph.variables}
    func_by_id = {fn.id: fn for fn in graph.functions}
    var_order: list[str] = []
    func_order: list[str] = []
    both: list[str] = []  # every node in emission order
    emitted: set[str] = set()
    expanded: set[str] = set()
    stack: list[tuple[str, bool]] = []
    for y in reversed(outputs):
        stack.append((graph.var_ids[id(y)], False))
    while stack:
        node, ready = stack.pop()
        if node in emitted:
            continue
        if node[0] == "v":
            func = producer.get(node)
            if func is None or ready or func in emitted:
                emitted.add(node)
                var_order.append(node)
                both.append(node)
            else:
                stack += [(node, True), (func, False)]
        elif ready:
            emitted.add(node)
            func_order.append(node)
            both.append(node)
            for ref in func_by_id[node].func.outputs:
                out = ref()
                vid = None if out is None else graph.var_ids.get(id(out))
                if vid is not None and vid not in emitted and producer.get(vid) == node:
                    emitted.add(vid)
                    var_order.append(vid)
                    both.append(vid)
        elif node not in expanded:
            expanded.add(node)
            stack.append((node, True))
            stack += [(x, False) for x in reversed(inputs_of.get(node, [])) if x not in emitted]
    new_id = {old: f"v{i}" for i, old in enumerate(var_order, start=1)}
    new_id.update({old: f"f{i}" for i, old in enumerate(func_order, start=1)})
    position = {old: i for i, old in enumerate(var_order + func_order)}
    ordered = Graph(cut=[new_id[vid] for vid in graph.cut], order=[new_id[n] for n in both])
    ordered.freed = graph.freed
    for old in var_order:
        vn = var_by_id[old]
        ordered.variables.append(VarNode(new_id[old], vn.var, vn.kind, vn.param_name))
        ordered.var_ids[id(vn.var)] = new_id[old]
    for old in func_order:
        fn = func_by_id[old]
        ordered.functions.append(FuncNode(new_id[old], fn.func))
        ordered.func_ids[id(fn.func)] = new_id[old]

    def edge_key(item: tuple[int, tuple[str, str]]) -> tuple[int, int, int]:
        index, (src, dst) = item
        if src[0] == "f":  # an output edge: after the Function's inputs, in output order
            return (position[src], 1, position[dst])
        return (position[dst], 0, index)  # an input edge: argument order (walk order)

    for _, (src, dst) in sorted(enumerate(graph.edges), key=edge_key):
        ordered.edges.append((new_id[src], new_id[dst]))
    return ordered


def _add_inputs(
    graph: Graph,
    func: Function,
    fid: str,
    output_ids: set[int],
    hide_constants: bool,
    names: dict[int, str],
) -> None:
    for x in func.inputs:
        if isinstance(x, Unsaved):  # not saved for backward: its Variable, or "freed"
            x = _unsaved_input(graph, x)
        kind = _kind(x, output_ids, names)
        if hide_constants and kind == "constant":
            continue
        if id(x) not in graph.var_ids:
            _add_var(graph, x, kind, names)
        graph.edges.append((graph.var_ids[id(x)], fid))


def _unsaved_input(graph: Graph, x: Unsaved) -> Variable | Unsaved:
    """The Variable an op did not save, if it is still alive (the picture shows it as
    before); else one node per freed value (its edge: creator and output index)."""
    live = x.live()
    if live is not None:
        return live
    return graph.freed.setdefault(id(x.origin), x)  # one node per Variable it stood for


def _kind(x: Variable, output_ids: set[int], names: dict[int, str]) -> str:
    if id(x) in output_ids:
        return "output"
    if x.creator is None:
        return "leaf" if x.requires_grad or id(x) in names else "constant"
    return "backward" if x.creator.created_in_backward else "intermediate"


def _add_var(graph: Graph, var: Variable, kind: str, names: dict[int, str]) -> str:
    vid = f"v{len(graph.variables) + 1}"
    graph.var_ids[id(var)] = vid
    graph.variables.append(VarNode(vid, var, kind, names.get(id(var))))
    return vid


def _add_func(graph: Graph, func: Function) -> str:
    fid = f"f{len(graph.functions) + 1}"
    graph.func_ids[id(func)] = fid
    graph.functions.append(FuncNode(fid, func))
    return fid


def _count(graph: Graph) -> int:
    return len(graph.variables) + len(graph.functions)


def parameter_names(module: Any, caller: str) -> dict[int, str]:
    """``id(parameter) -> dotted name`` from ``module.named_parameters()``.

    Args:
        module: an ``nn.Module`` (anything with ``named_parameters()``), or ``None``.
        caller: the public function's name, for the error message.

    Returns:
        The mapping (empty for ``None``).

    Raises:
        TypeError: if ``module`` has no ``named_parameters()`` method.

    Example:
        >>> parameter_names(None, "viz.to_dot")
        {}
    """
    if module is None:
        return {}
    named: Any = getattr(module, "named_parameters", None)
    if not callable(named):
        raise TypeError(
            f"{caller}: module= must be an nn.Module (something with named_parameters()), "
            f"got {type(module).__name__}"
        )
    items: Iterable[tuple[str, Any]] = named()
    return {id(param): str(name) for name, param in items}
