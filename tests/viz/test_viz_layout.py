"""Reading order, module boxes, the legend and names: graphs that explain themselves."""

from __future__ import annotations

import re

import numpy as np
import pytest
from viz_helpers import node_lines, requires_renderer

import minitorch.ops as F
import viz
from minitorch import Variable, nn
from viz.clusters import assign_modules, module_tree
from viz.graph import walk
from viz.renderer import pipe


def named(value: object, name: str | None = None) -> Variable:
    return Variable(np.array(value, dtype=np.float64), name=name)


def declared(dot: str) -> list[tuple[str, str]]:
    """(node id, bold name) of every node, in the order the DOT text declares them."""
    return [(nid, label.split("</B>")[0][3:]) for nid, label in node_lines(dot).items()]


def test_nodes_are_numbered_in_creation_order() -> None:
    x, y = named(1.0, "x"), named(2.0, "y")
    a = F.tanh(x)  # created first
    b = a * y  # then
    c = b + x**2.0
    dot = viz.to_dot(c, show_shapes=False)
    assert declared(dot) == [
        ("v1", "x"), ("f1", "Tanh"), ("v2", "tanh(x)"), ("v3", "y"), ("f2", "Mul"),
        ("v4", "tanh(x)*y"), ("v5", "2.0"), ("f3", "Pow"), ("v6", "x**2.0"), ("f4", "Add"),
        ("v7", "out"),  # the user took y
    ]  # fmt: skip
    graph = walk([c])
    ids = {id(n.var): n.id for n in graph.variables}
    assert (ids[id(x)], ids[id(a)], ids[id(b)], ids[id(c)]) == ("v1", "v2", "v4", "v7")
    # every edge runs from a smaller to a larger position in that order
    position = {node: i for i, node in enumerate(graph.order)}
    assert all(position[src] < position[dst] for src, dst in graph.edges)


def test_a_chain_counts_down_the_page() -> None:
    y = named(0.5, "x")
    for _ in range(4):
        y = F.relu(F.sin(y))
    ids = [node_id for node_id, _ in declared(viz.to_dot(y))]
    assert ids == ["v1"] + [n for k in range(2, 10) for n in (f"f{k - 1}", f"v{k}")]
    names = [name for _, name in declared(viz.to_dot(y))]
    assert names[:5] == ["x", "Sin", "sin(x)", "ReLU", "relu(sin(x))"]
    assert names[-2:] == ["ReLU", "y"]


def test_creation_order_holds_for_several_outputs_and_shared_nodes() -> None:
    x = named(1.0, "x")
    shared = F.exp(x)
    first, second = shared * 2.0, F.sin(shared)
    graph = walk([first, second])
    ids = {id(n.var): n.id for n in graph.variables}
    assert ids[id(x)] == "v1" and ids[id(shared)] == "v2"
    assert int(ids[id(first)][1:]) < int(ids[id(second)][1:])


def mlp() -> tuple[nn.Module, Variable]:
    model = nn.MLP([4, 5, 3], "relu", rng=0)
    x = Variable(np.ones((2, 4), dtype=np.float32), name="x", requires_grad=False)
    t = np.array([0, 2])
    return model, F.softmax_cross_entropy(model(x), t)


def clusters(dot: str) -> list[tuple[str, list[str]]]:
    """(label, node ids declared directly inside) of each cluster, in order."""
    found = []
    for block in dot.split("subgraph cluster_")[1:]:
        label = re.search(r"label=<([^>]*)>", block)[1]  # type: ignore[index]
        body = block.split("subgraph cluster_")[0].split("\n\t}")[0]
        found.append((label, re.findall(r"^\t+([vf]\d+) \[", body, re.MULTILINE)))
    return found


def test_clusters_follow_forward_order_and_every_layer_is_boxed() -> None:
    model, loss = mlp()
    dot = viz.to_dot(loss, module=model, group_modules=True)
    labels = [label for label, _ in clusters(dot)]
    assert labels == [
        "layers · Sequential", "layers.0 · Linear", "layers.1 · ReLU", "layers.2 · Linear",
    ]  # fmt: skip
    relu_box = dict(clusters(dot))["layers.1 · ReLU"]
    names = dict(declared(dot))
    assert [names[n] for n in relu_box if n.startswith("f")] == ["ReLU"]


def test_no_edge_climbs_back_into_a_box() -> None:
    model, loss = mlp()
    graph = walk([loss], param_names={id(p): n for n, p in model.named_parameters()})
    member = assign_modules(graph, module_tree(model))
    after: dict[str, list[str]] = {}
    for src, dst in graph.edges:
        after.setdefault(src, []).append(dst)
    # no path leaves a box and comes back into the same box
    for path in set(member.values()):
        inside = {n for n, p in member.items() if p == path or p.startswith(path + ".")}
        outside_starts = [d for s in inside for d in after.get(s, []) if d not in inside]
        seen, stack = set(), list(outside_starts)
        while stack:
            node = stack.pop()
            assert node not in inside, f"an edge climbs back into {path}"
            if node not in seen:
                seen.add(node)
                stack += after.get(node, [])


@requires_renderer
def test_drawn_edges_all_point_down_the_page() -> None:
    model, loss = mlp()
    dot = viz.to_dot(loss, module=model, group_modules=True, legend=True)
    plain = pipe(dot, "plain").decode()
    y = {}
    for line in plain.splitlines():
        parts = line.split()
        if parts[0] == "node":
            y[parts[1]] = float(parts[3])  # plain output: y grows upwards
    edges = [line.split()[1:3] for line in plain.splitlines() if line.startswith("edge")]
    assert edges and all(y[src] > y[dst] for src, dst in edges)


def test_the_legend_lists_only_what_the_graph_contains_in_one_row() -> None:
    x = named(1.0, "x")
    dot = viz.to_dot(F.exp(x), legend=True)
    legend = dot[dot.index("<B>legend</B>") :]
    legend = legend[: legend.index("</TABLE>")]
    cells = re.findall(r"<FONT POINT-SIZE=\"9\">([^<]+)</FONT>", legend)
    assert cells == ["leaf / parameter", "output", "Function"]
    assert legend.count("<TR>") == 0  # the row opened before the "legend" cell: one row
    assert "made by backward" not in dot and "constant" not in dot
    x.clear_grad()
    F.tanh(x).backward(create_graph=True)
    assert x.grad is not None
    full = viz.to_dot(x.grad, legend=True)
    assert "made by backward" in full and "Function made by backward" in full


def test_constants_made_from_user_data_are_named_by_the_argument() -> None:
    logits = Variable(np.zeros((8, 3)), name="logits")
    dot = viz.to_dot(F.softmax_cross_entropy(logits, np.arange(8) % 3))
    assert "<B>t</B><BR/>(8,) int64" in dot  # SoftmaxCrossEntropy.forward(x, t)
    small = viz.to_dot(logits * 2.0)
    assert "<B>2.0</B>" in small  # a small constant still shows its value


@pytest.mark.parametrize("rankdir", ["TB", "LR"])
def test_legend_and_note_render(rankdir: str) -> None:
    x = named(0.5, "x")
    h = F.sin(x)  # held here, so alive though Exp does not save it: its grad is not kept
    y = F.exp(h)
    y.backward()
    dot = viz.to_dot(y, legend=True, show_grads=True, rankdir=rankdir)
    assert dot.count("not kept") == 1
    try:
        svg = pipe(dot, "svg").decode()
    except viz.GraphvizNotFoundError:
        pytest.skip("no renderer")
    assert "not kept" in svg and "leaf / parameter" in svg


def test_parameterless_layers_at_the_end_of_a_sequential_are_boxed_too() -> None:
    from examples.models import CNN

    model = CNN(n_classes=3, rng=0)
    x = Variable(np.ones((2, 1, 8, 8), dtype=np.float32), name="x", requires_grad=False)
    loss = F.softmax_cross_entropy(model(x), np.array([0, 2]))
    dot = viz.to_dot(loss, module=model, group_modules=True)
    boxes = dict(clusters(dot))
    names = dict(declared(dot))
    expected = {
        "features.1 · ReLU": ["ReLU"], "features.2 · MaxPool2d": ["MaxPool2d"],
        "features.4 · ReLU": ["ReLU"], "features.5 · MaxPool2d": ["MaxPool2d"],
        "features.6 · Flatten": ["Reshape"], "classifier.1 · ReLU": ["ReLU"],
    }  # fmt: skip
    for label, functions in expected.items():
        assert [names[n] for n in boxes[label] if n.startswith("f")] == functions, label
    assert "SoftmaxCrossEntropy" not in [names[n] for box in boxes.values() for n in box]


class ReluTwice(nn.Module):
    """A parameterless layer made of two ops."""

    def forward(self, x: Variable) -> Variable:
        return F.relu(x) * 2.0


def test_a_parameterless_layer_of_several_ops_gets_all_of_them() -> None:
    model = nn.Sequential(nn.Linear(3, 4, rng=0), ReluTwice(), nn.Linear(4, 1, rng=1))
    x = Variable(np.ones((2, 3), dtype=np.float32), name="x", requires_grad=False)
    dot = viz.to_dot(model(x).sum(), module=model, group_modules=True)
    boxes = dict(clusters(dot))
    names = dict(declared(dot))
    assert [names[n] for n in boxes["1 · ReluTwice"] if n.startswith("f")] == ["ReLU", "Mul"]
