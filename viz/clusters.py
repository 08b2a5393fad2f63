"""Group a drawing's nodes into one Graphviz cluster per ``nn.Module``.

The graph records no module calls, so membership is inferred from the parameters'
dotted names (``layers.0.W`` belongs to module ``layers.0``):

1. a parameter belongs to the module its name's prefix names;
2. a Function that reads a parameter directly belongs to that parameter's module;
3. a Function between two members of one module (an input made there and an output
   read there, like the ``matmul`` between ``W.T`` and ``+ b`` of a Linear) joins it;
4. a Variable made by a member Function joins its module (so edges only leave a box,
   never climb back into it);
5. in an ``nn.Sequential``, the layers without parameters (``ReLU``, ``MaxPool2d``,
   ``Flatten``) get the Functions (and their results) that lie between the boxes of
   their neighbours: after the previous boxed layer's and before the next one's. A
   parameterless run at the start or end of the Sequential is bounded by the boxes of
   the modules before or after the Sequential instead (the ``classifier`` after a CNN's
   ``features``); with no such module (an MLP ending in an activation) it is not boxed,
   as nothing marks where it ends. When the run's Functions are as many as its layers,
   they are given to the layers one by one in forward order (``ReLU`` then
   ``MaxPool2d``); otherwise the layers share one box labelled with all their names.
6. finally, a node that lies on a path from one member of a module to another
   — not through a member of some other module — joins it, innermost module first: the
   reshapes, ``Q @ K.T``, softmax and ``weights @ V`` of a ``MultiheadAttention`` lie
   between its input projections and its ``out_proj``, so they are drawn in its box.

Clusters nest like the names (``layers`` contains ``layers.0``), are numbered in forward
order (``layers.0`` before ``layers.2``) and are labelled ``path · Class``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from minitorch import nn
from viz.graph import Graph
from viz.labels import escape


@dataclass(frozen=True)
class ModuleTree:
    """The module structure that clustering needs, read once from an ``nn.Module``.

    Attributes:
        classes: dotted module path -> class name (``""`` is the root).
        sequences: path of each ``nn.Sequential`` -> its children's paths in order, each
            with whether that child (or a module inside it) holds parameters.
    """

    classes: dict[str, str] = field(default_factory=dict)
    sequences: dict[str, tuple[tuple[str, bool], ...]] = field(default_factory=dict)


def module_tree(module: Any) -> ModuleTree:
    """Read the paths, class names and Sequential layers of ``module``.

    Example:
        >>> from minitorch import nn
        >>> tree = module_tree(nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)))
        >>> tree.sequences[""]
        (('0', True), ('1', False), ('2', True))
    """
    tree = ModuleTree()
    named = getattr(module, "named_modules", None)
    if not callable(named):
        return tree
    for path, sub in named():
        tree.classes[str(path)] = type(sub).__name__
        if isinstance(sub, nn.Sequential):
            children = []
            for key, child in sub._modules.items():
                child_path = f"{path}.{key}" if path else str(key)
                has_params = next(iter(child.parameters()), None) is not None
                children.append((child_path, has_params))
            tree.sequences[str(path)] = tuple(children)
    return tree


def module_of(param_name: str) -> str:
    """The module path of a dotted parameter name (``""`` for the root module).

    Example:
        >>> module_of("layers.0.W"), module_of("W")
        ('layers.0', '')
    """
    return param_name.rpartition(".")[0]


def assign_modules(
    graph: Graph, tree: ModuleTree | None = None, labels: dict[str, str] | None = None
) -> dict[str, str]:
    """Node id -> module path for the nodes that belong to a module (rules 1-6).

    Args:
        graph: the walked graph (parameters carry their dotted names).
        tree: the module structure, for rule 5 (``None``: rules 1-4 and 6 only).
        labels: if given, receives cluster path -> label for boxes that rule 5 shares
            between several layers.

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> from viz.graph import walk
        >>> W = Variable(np.ones(2))
        >>> y = (Variable(np.ones(2)) * W).sum()
        >>> assign_modules(walk([y], param_names={id(W): "fc.W"}))
        {'v2': 'fc', 'f1': 'fc', 'v3': 'fc'}
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
        if path is not None and var_id not in member:
            member[var_id] = path
    if tree is not None:
        _parameterless_layers(graph, tree, member, labels if labels is not None else {})
    _between_members(graph, member)  # after rule 5, so a Sequential's ReLU keeps its box
    return member


def _between_members(graph: Graph, member: dict[str, str]) -> None:
    """Rule 6: give each module the nodes on paths between its members (in place).

    Deepest modules first, so a node between two ``self_attn.out_proj`` members stays
    there; a walk stops at members of modules outside the one being filled (weights
    shared between an embedding and the output layer must not swallow the network).
    """
    after_of: dict[str, list[str]] = {}
    before_of: dict[str, list[str]] = {}
    for src, dst in graph.edges:
        after_of.setdefault(src, []).append(dst)
        before_of.setdefault(dst, []).append(src)
    paths = {prefix for p in member.values() if p for prefix in _prefixes(p)}
    for path in sorted(paths, key=lambda p: (-p.count("."), p)):
        inside = [n for n, p in member.items() if _within(p, path)]
        foreign = {n: p for n, p in member.items() if not _within(p, path)}
        down = _reach(inside, after_of, foreign)
        up = _reach(inside, before_of, foreign)
        for node in graph.order:
            if node in down and node in up and node not in member:
                member[node] = path


def _parameterless_layers(
    graph: Graph, tree: ModuleTree, member: dict[str, str], labels: dict[str, str]
) -> None:
    """Rule 5: box the ops of the parameterless layers of each Sequential (in place)."""
    after_of: dict[str, list[str]] = {}
    before_of: dict[str, list[str]] = {}
    for src, dst in graph.edges:
        after_of.setdefault(src, []).append(dst)
        before_of.setdefault(dst, []).append(src)
    for seq_path, children in tree.sequences.items():
        boxed = [i for i, (path, _) in enumerate(children) if _members(path, member)]
        if not boxed:
            continue
        # members of modules outside this Sequential (not its ancestors): what comes
        # before its first boxed layer or after its last one
        outside = [
            node
            for node, path in member.items()
            if not _within(path, seq_path) and not _within(seq_path, path)
        ]
        gaps = [
            (
                children[i + 1 : j],
                _members(children[i][0], member),
                _members(children[j][0], member),
            )
            for i, j in zip(boxed, boxed[1:])
        ]
        gaps.append((children[boxed[-1] + 1 :], _members(children[boxed[-1]][0], member), outside))
        gaps.append((children[: boxed[0]], outside, _members(children[boxed[0]][0], member)))
        for layers, starts, ends in gaps:
            if not layers or not starts or not ends or any(has for _, has in layers):
                continue  # nothing between, no boundary, or a layer with unused parameters
            downstream = _reach(starts, after_of, member)
            upstream = _reach(ends, before_of, member)
            nodes = [n for n in graph.order if n in downstream and n in upstream]
            nodes = [n for n in nodes if n not in member]
            _box(nodes, [path for path, _ in layers], member, labels, before_of, tree)


def _box(
    nodes: list[str],
    layers: list[str],
    member: dict[str, str],
    labels: dict[str, str],
    before_of: dict[str, list[str]],
    tree: ModuleTree,
) -> None:
    """One layer per Function when the counts match (in forward order), else one shared box."""
    functions = [n for n in nodes if n.startswith("f")]
    if not functions:
        return
    if len(functions) == len(layers):
        for func, layer in zip(functions, layers):
            member[func] = layer
        for node in nodes:
            if node.startswith("v"):
                producers = before_of.get(node, [])
                member[node] = member.get(producers[0], layers[0]) if producers else layers[0]
        return
    for node in nodes:
        member[node] = layers[0]
    if len(layers) > 1:
        labels[layers[0]] = " + ".join(_label(p, tree) for p in layers)


def _within(path: str, outer: str) -> bool:
    """Whether module ``path`` is ``outer`` or inside it (everything is inside the root)."""
    return outer == "" or path == outer or path.startswith(outer + ".")


def _members(path: str, member: dict[str, str]) -> list[str]:
    return [n for n, p in member.items() if p == path or p.startswith(path + ".")]


def _reach(start: list[str], neighbours: dict[str, list[str]], stop: dict[str, str]) -> set[str]:
    """The nodes reachable from ``start`` (not counting ``start``) through ``neighbours``.

    A node in ``stop`` (a member of some module) is reached but not gone through: the
    first box on the way is the boundary.
    """
    seen: set[str] = set()
    queue = deque(start)
    while queue:
        for nxt in neighbours.get(queue.popleft(), []):
            if nxt not in seen:
                seen.add(nxt)
                if nxt not in stop:
                    queue.append(nxt)
    return seen


def _label(path: str, tree: ModuleTree | None, root_name: str = "module") -> str:
    """``layers.0 · Linear``; the root module is drawn with its class name only."""
    cls = tree.classes.get(path) if tree is not None else None
    if path == "":
        return cls or root_name
    return f"{path} · {cls}" if cls else path


def cluster_lines(
    graph: Graph, node_lines: dict[str, str], root_name: str, tree: ModuleTree | None = None
) -> list[str]:
    """DOT lines declaring every node, members inside nested ``subgraph cluster_*``.

    Args:
        graph: the walked graph.
        node_lines: node id -> its DOT node statement (without indentation).
        root_name: the label for parameters of the root module itself (its class name).
        tree: the module structure (:func:`module_tree`), for rule 5 and the labels.

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
        ['subgraph cluster_m1 {', 'label=<fc> labelloc=t style=rounded color="#6baed6"', 'v1']
    """
    labels: dict[str, str] = {}
    member = assign_modules(graph, tree, labels)
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
        label = labels.get(path) or _label(path, tree, root_name)
        lines.append(f"{pad}subgraph cluster_m{numbers[path]} {{")
        text = escape(label, 200)
        lines.append(f'{pad}\tlabel=<{text}> labelloc=t style=rounded color="#6baed6"')
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
