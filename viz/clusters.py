"""Group a drawing's nodes into one Graphviz cluster per ``nn.Module``.

The graph records no module calls, so membership is inferred from the parameters'
dotted names (``layers.0.W`` belongs to module ``layers.0``):

1. a parameter belongs to the module its name's prefix names;
2. a Function that reads a parameter directly belongs to that parameter's module;
3. a Function between two members of one module (an input made there and an output
   read there, like the ``matmul`` between ``W.T`` and ``+ b`` of a Linear) joins it;
4. a Variable made and read only inside one module joins it.

Clusters nest like the names (``layers`` contains ``layers.0``).
"""

from __future__ import annotations

from viz.graph import Graph
from viz.labels import escape


def module_of(param_name: str) -> str:
    """The module path of a dotted parameter name (``""`` for the root module).

    Example:
        >>> module_of("layers.0.W"), module_of("W")
        ('layers.0', '')
    """
    return param_name.rpartition(".")[0]


def assign_modules(graph: Graph) -> dict[str, str]:
    """Node id -> module path for the nodes that belong to a module (rules 1-4).

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> from viz.graph import walk
        >>> W = Variable(np.ones(2))
        >>> y = (Variable(np.ones(2)) * W).sum()
        >>> assign_modules(walk([y], param_names={id(W): "fc.W"}))
        {'v4': 'fc', 'f2': 'fc'}
    """
    member = {vn.id: module_of(vn.param_name) for vn in graph.variables if vn.param_name}
    producer: dict[str, str] = {}
    readers: dict[str, list[str]] = {}
    for src, dst in graph.edges:
        if src.startswith("f"):
            producer[dst] = src
        else:
            readers.setdefault(src, []).append(dst)
    for src, dst in graph.edges:
        if src in member and src.startswith("v") and dst not in member:
            member[dst] = member[src]
    outputs_of: dict[str, list[str]] = {}
    for var_id, func_id in producer.items():
        outputs_of.setdefault(func_id, []).append(var_id)
    for src, dst in graph.edges:
        if not dst.startswith("f") or dst in member or src not in producer:
            continue
        path = member.get(producer[src])
        if path is None:
            continue
        outs = outputs_of.get(dst, [])
        if any(member.get(r) == path for y in outs for r in readers.get(y, [])):
            member[dst] = path
    for var_id, func_id in producer.items():
        path = member.get(func_id)
        reads = readers.get(var_id, [])
        if path is not None and reads and all(member.get(r) == path for r in reads):
            member[var_id] = path
    return member


def cluster_lines(graph: Graph, node_lines: dict[str, str], root_name: str) -> list[str]:
    """DOT lines declaring every node, members inside nested ``subgraph cluster_*``.

    Args:
        graph: the walked graph.
        node_lines: node id -> its DOT node statement (without indentation).
        root_name: the label for parameters of the root module itself (its class name).

    Returns:
        Indented DOT lines: the nodes outside any module, then one (nested) ``subgraph
        cluster_mN`` block per module, numbered in order of first appearance.

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> from viz.graph import walk
        >>> W = Variable(np.ones(2))
        >>> graph = walk([W.sum()], param_names={id(W): "fc.W"})
        >>> lines = cluster_lines(graph, {"v1": "v1", "v2": "v2", "f1": "f1"}, "Net")
        >>> [line.strip() for line in lines][:3]
        ['v1', 'subgraph cluster_m1 {', 'label=<fc> style=rounded color="#6baed6"']
    """
    member = assign_modules(graph)
    paths: list[str] = []
    for node_id in node_lines:
        path = member.get(node_id)
        if path is None:
            continue
        for prefix in _prefixes(path):
            if prefix not in paths:
                paths.append(prefix)
    lines = ["\t" + line for node_id, line in node_lines.items() if node_id not in member]
    children: dict[str, list[str]] = {}
    for path in paths:
        children.setdefault(_parent(path, paths), []).append(path)
    numbers = {path: i for i, path in enumerate(paths, start=1)}
    # An explicit stack instead of recursion; ("}", depth) closes a cluster.
    stack: list[tuple[str, int, bool]] = [(p, 1, True) for p in reversed(children.get("@", []))]
    while stack:
        path, depth, opening = stack.pop()
        pad = "\t" * depth
        if not opening:
            lines.append(pad + "}")
            continue
        label = path or root_name
        lines.append(f"{pad}subgraph cluster_m{numbers[path]} {{")
        lines.append(f'{pad}\tlabel=<{escape(label)}> style=rounded color="#6baed6"')
        lines += [pad + "\t" + ln for nid, ln in node_lines.items() if member.get(nid) == path]
        stack.append((path, depth, False))
        stack += [(c, depth + 1, True) for c in reversed(children.get(path, []))]
    return lines


def _prefixes(path: str) -> list[str]:
    """``"a.b.c"`` -> ``["a", "a.b", "a.b.c"]``; the root ``""`` is its own prefix."""
    if path == "":
        return [""]
    parts = path.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def _parent(path: str, paths: list[str]) -> str:
    """The nearest enclosing cluster path, or ``"@"`` for top level."""
    if path == "":
        return "@"
    prefix = path.rpartition(".")[0]
    while prefix:
        if prefix in paths:
            return prefix
        prefix = prefix.rpartition(".")[0]
    return "@"
