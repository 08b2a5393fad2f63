"""viz.to_dot: golden text, determinism, structure, escaping, big graphs, options."""

from __future__ import annotations

import html
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from viz_helpers import HAS_DOT, node_lines, requires_dot, svg_node_count, svg_texts

import minitorch
import minitorch.ops as F
import viz
from minitorch import Variable
from viz.draw import pipe_dot
from viz.labels import format_array

ROOT = Path(__file__).resolve().parents[2]

HEADER = (
    "digraph minitorch {\n"
    '\tgraph [rankdir=TB fontname="Helvetica" fontsize=11 nodesep=0.3 ranksep=0.35]\n'
    '\tnode [fontname="Helvetica" fontsize=11 margin="0.08,0.04" height=0.3]\n'
    '\tedge [color="#555555" arrowsize=0.7 fontname="Helvetica" fontsize=10]\n'
)
LEAF = 'shape=ellipse style=filled fillcolor="#9ecae1"'
MID = 'shape=ellipse style=filled fillcolor="#eeeeee"'
OUT = 'shape=ellipse style=filled fillcolor="#fdae6b"'
CONST = 'shape=ellipse style=dashed color="#888888" fontcolor="#555555"'
FUNC = 'shape=box style="rounded,filled" fillcolor="#fff2ae"'


def named(value: object, name: str | None = None) -> Variable:
    return Variable(np.array(value, dtype=np.float64), name=name)


def test_golden_mul_of_two_named_scalars() -> None:
    z = named(2.0, "x") * named(3.0, "y")
    expected = HEADER + (
        f"\tv1 [label=<<B>x</B><BR/>() float64> {LEAF}]\n"
        f"\tv2 [label=<<B>y</B><BR/>() float64> {LEAF}]\n"
        f"\tf1 [label=<<B>Mul</B>> {FUNC}]\n"
        # unnamed, it is named by its role; y is taken by a user's Variable, so: out
        f"\tv3 [label=<<B>out</B><BR/>() float64> {OUT}]\n"
        "\tv1 -> f1\n"
        "\tv2 -> f1\n"
        "\tf1 -> v3\n"
        "}\n"
    )
    assert viz.to_dot(z) == expected


def test_golden_values_and_grads_before_and_after_backward() -> None:
    x = named([1.0, 2.0], "x")
    loss = (x * 2.0).sum()
    loss.name = "loss"

    def expected(x_grad: str, graph_label: str = "") -> str:
        header = HEADER.replace("ranksep=0.35]", f"ranksep=0.35{graph_label}]")
        return header + (
            f"\tv1 [label=<<B>x</B><BR/>data: [1. 2.]<BR/>{x_grad}> {LEAF}]\n"
            f"\tv2 [label=<<B>2.0</B><BR/>data: 2.0<BR/>no grad (constant)> {CONST}]\n"
            f"\tf1 [label=<<B>Mul</B>> {FUNC}]\n"
            f"\tv3 [label=<<B>x*2.0</B><BR/>data: freed> {MID}]\n"  # Sum saves nothing
            f"\tf2 [label=<<B>Sum</B>> {FUNC}]\n"
            f"\tv4 [label=<<B>loss</B><BR/>data: 6.0<BR/>backward() seed: 1.0> {OUT}]\n"
            "\tv1 -> f1\n\tv2 -> f1\n\tf1 -> v3\n\tv3 -> f2\n\tf2 -> v4\n}\n"
        )

    opts = dict(show_values=True, show_grads=True, show_shapes=False)
    assert viz.to_dot(loss, **opts) == expected("grad: not computed yet")
    loss.backward()
    # v3 is freed (no Function saved it, nobody holds it): no note that its grad is not kept
    assert viz.to_dot(loss, **opts) == expected("grad: [2. 2.]")


def test_show_grads_writes_the_not_kept_hint_at_most_once() -> None:
    x = named(0.3, "x")
    y = x
    with minitorch.using_config("save_all", True):  # intermediates alive: grads can be kept
        for _ in range(15):
            y = F.tanh(y) * 2.0
    before = viz.to_dot(y, show_grads=True)
    assert "not kept" not in before
    assert before.count("grad: not computed yet") == 1  # the leaf x only
    y.backward()
    after = viz.to_dot(y, show_grads=True)
    assert after.count("not kept") == 1
    assert "backward() seed: 1.0" in after  # the output shows the seed of backward
    x.clear_grad()
    y.backward(retain_grad=True)
    kept = viz.to_dot(y, show_grads=True)
    assert "not kept" not in kept
    assert kept.count("grad: ") == 1 + 29 + 1  # x, 29 intermediates, the output's own
    assert "backward() seed" not in kept  # retain_grad kept the output's grad: shown as is


def build_example() -> Variable:
    x = named([1.0, -2.0, 3.0], "x")
    W = named([[0.5, 0.1, 0.0], [0.2, -0.3, 0.4]], "W")
    h = F.tanh((W * x).sum(axis=1))
    return (h * h + F.exp(-h)).mean()


EXAMPLE_SCRIPT = (
    "import sys; sys.path.insert(0, {tests!r}); from test_viz_dot import build_example;"
    "import viz; sys.stdout.write(viz.to_dot(build_example(), show_values=True, verbose=True))"
)


@pytest.mark.small_values_kept  # the second process runs minitorch as shipped
def test_same_graph_gives_byte_identical_dot_in_two_runs_and_two_processes() -> None:
    first = viz.to_dot(build_example(), show_values=True, verbose=True)
    second = viz.to_dot(build_example(), show_values=True, verbose=True)
    assert first == second
    script = EXAMPLE_SCRIPT.format(tests=str(Path(__file__).parent))
    runs = [
        subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True
        ).stdout
        for _ in range(2)
    ]
    assert runs == [first, first]


def test_shared_subexpression_is_one_node_with_two_edges() -> None:
    x, y = named(2.0, "x"), named(3.0, "y")
    shared = x * y
    dot = viz.to_dot(shared + shared)
    labels = node_lines(dot)
    assert sum("<B>Mul</B>" in label for label in labels.values()) == 1
    assert len(labels) == 6  # out, shared, x, y, Add, Mul
    assert dot.count("\tv3 -> f2\n") == 2  # shared (v3) feeds Add (f2) twice


def test_distinct_variables_with_the_same_name_stay_two_nodes() -> None:
    dot = viz.to_dot(named(1.0, "x") + named(2.0, "x"))
    labels = node_lines(dot)
    assert sum(label.startswith("<B>x</B>") for label in labels.values()) == 2


def test_unnamed_variables_are_named_by_their_role_as_the_stepper_names_them() -> None:
    x = named(1.0, "x")
    dot = viz.to_dot(F.tanh(x * 2.0).sum(), show_shapes=False)
    labels = {node: label.split("</B>")[0][3:] for node, label in node_lines(dot).items()}
    assert labels == {"v1": "x", "v2": "2.0", "f1": "Mul", "v3": "x*2.0", "f2": "Tanh",
                      "v4": "tanh(x*2.0)", "f3": "Sum", "v5": "y"}  # fmt: skip


def test_a_derived_name_a_user_took_is_not_repeated() -> None:
    # b * 2.0 would be named "b*2.0", but the user named another Variable so: the
    # product falls back to its Function and count
    b, c = named(2.0, "b"), named(1.0, "b*2.0")
    dot = viz.to_dot(b * 2.0 + c, show_shapes=False)
    labels = {node: label.split("</B>")[0][3:] for node, label in node_lines(dot).items()}
    variables = {node: text for node, text in labels.items() if node.startswith("v")}
    assert variables == {"v1": "b", "v2": "2.0", "v3": "mul1", "v4": "b*2.0", "v5": "y"}


def test_the_output_is_not_named_like_a_users_variable() -> None:
    # the user took y and out: the output is out2 (y2 would read as a second y)
    a, b = named(1.0, "y"), named(2.0, "out")
    dot = viz.to_dot((a * b).exp() + b, show_shapes=False)
    labels = {node: label.split("</B>")[0][3:] for node, label in node_lines(dot).items()}
    variables = {node: text for node, text in labels.items() if node.startswith("v")}
    assert variables == {"v1": "y", "v2": "out", "v3": "y*out", "v4": "exp(y*out)", "v5": "out2"}


NASTY_NAMES = [
    'x"];evil[label="',
    "<b>bold</b>",
    "a<b",
    "a>b",
    "{braces}",
    "a|b",
    "back\\slash",
    "line\nbreak",
    "&lt;",
    "it's",
    "}\n}\ndigraph evil {",
    "<<B>x</B>>",
    "nul\x00tab\tdel\x7f",
    "名前 🙂 ünïcode",
    ']; "quoted"',
]
SHOWN = {
    "line\nbreak": "line\\nbreak",
    "}\n}\ndigraph evil {": "}\\n}\\ndigraph evil {",
    "nul\x00tab\tdel\x7f": "nul\\x00tab\\tdel\\x7f",
}


@pytest.mark.parametrize("name", NASTY_NAMES)
def test_special_characters_cannot_inject_nodes_or_attributes(name: str) -> None:
    x = named(1.0, name)
    dot = viz.to_dot(F.exp(x))
    labels = node_lines(dot)
    assert list(labels) == ["v1", "f1", "v2"]
    label = labels["v1"]
    inner = label[len("<B>") : label.index("</B>")]
    assert not set('"<>\n') & set(inner)
    assert len(dot.splitlines()) == 4 + 3 + 2 + 1  # header, nodes, edges, closing brace


@requires_dot
@pytest.mark.parametrize("name", NASTY_NAMES)
def test_svg_shows_special_names_literally(name: str) -> None:
    svg = viz.draw_graph(F.exp(named(1.0, name)), show_shapes=False).pipe("svg").decode()
    assert svg_node_count(svg) == 3
    assert SHOWN.get(name, name) in svg_texts(svg)


def test_100k_node_chain_converts_quickly_without_recursion() -> None:
    y = x = named(0.5, "x")
    for _ in range(50_000):
        y = F.neg(y)
    start = time.perf_counter()
    dot = viz.to_dot(y)
    elapsed = time.perf_counter() - start
    assert dot.count("<B>Neg</B>") == 50_000
    assert len(node_lines(dot)) == 100_001
    # A loose guard against quadratic traversal only (that would take minutes); the real
    # timing (~0.4 s) is for benchmarks, not for a test on a shared, noisy machine.
    assert elapsed < 30.0, f"to_dot took {elapsed:.2f} s on a 100,001-node chain"
    del x, y


def test_list_of_outputs_are_all_drawn_as_outputs() -> None:
    x = named(1.0, "x")
    a, b = F.sin(x), F.cos(x)
    labels = node_lines(viz.to_dot([a, b]))
    assert labels["v1"].endswith("") and labels["v2"]
    assert viz.to_dot([a, b]).count(OUT) == 2


def test_max_nodes_cuts_the_drawing_and_says_so() -> None:
    y = named(1.0, "x")
    for _ in range(20):
        y = F.sin(y)
    dot = viz.to_dot(y, max_nodes=5)
    assert len(node_lines(dot)) <= 6
    assert "more nodes not drawn (max_nodes=5)" in dot
    assert "more -> v" in dot


def test_hide_constants_drops_numbers_made_by_ops() -> None:
    x = named(1.0, "x")
    shown = viz.to_dot(x * 3.0 + 1.0)
    hidden = viz.to_dot(x * 3.0 + 1.0, hide_constants=True)
    assert shown.count(CONST) == 2
    assert CONST not in hidden
    assert len(node_lines(hidden)) == len(node_lines(shown)) - 2


def test_nodes_made_by_backward_with_create_graph_are_purple() -> None:
    x = named(0.5, "x")
    y = F.tanh(x)
    y.backward(create_graph=True)
    gx = x.grad
    assert gx is not None
    dot = viz.to_dot(gx, legend=True)
    purple_funcs = dot.count('fillcolor="#bcbddc"]')
    # Tanh's backward is one op, TanhGrad (legend entry excluded by the "]").
    assert purple_funcs == 1
    grad_line = next(line for line in dot.splitlines() if "<B>TanhGrad</B>" in line)
    assert 'fillcolor="#bcbddc"]' in grad_line
    tanh_line = next(line for line in dot.splitlines() if "<B>Tanh</B>" in line)
    assert FUNC in tanh_line  # the forward Tanh keeps the ordinary colour
    assert "made by backward" in dot and "Function made by backward" in dot


def test_verbose_shows_generations() -> None:
    x = named(1.0, "x")
    dot = viz.to_dot(F.exp(F.exp(x)), verbose=True)
    assert "gen 2 · requires_grad" in dot and "gen 0 · requires_grad" in dot


class FakeModule:
    """Stands in for an nn.Module: named_parameters() is all viz reads."""

    def __init__(self, params: dict[str, Variable]) -> None:
        self.params = params

    def named_parameters(self):  # type: ignore[no-untyped-def]
        return iter(self.params.items())


def test_module_parameters_get_dotted_names_and_clusters() -> None:
    W0, b0 = named([[1.0, 2.0]], "W"), named([0.5], "b")
    W1 = named([[3.0]], "W")
    x = named([[1.0, 1.0]], "x")
    h = F.tanh((x * W0).sum(axis=1) + b0)
    y = h * F.reshape(W1, (1,))
    module = FakeModule({"layers.0.W": W0, "layers.0.b": b0, "layers.1.W": W1})
    dot = viz.to_dot(y, module=module, group_modules=True)
    for name in ("layers.0.W", "layers.0.b", "layers.1.W"):
        assert f"<B>{name}</B>" in dot
    assert "subgraph cluster_m1 {" in dot and "label=<layers>" in dot
    assert "label=<layers.0>" in dot and "label=<layers.1>" in dot
    start = dot.index("label=<layers.0>")
    cluster = dot[start : dot.index("}", start)]
    assert (
        "<B>layers.0.W</B>" in cluster and "<B>Mul</B>" in cluster and "<B>Tanh</B>" not in cluster
    )


def test_module_names_are_escaped_too() -> None:
    W = named([1.0, 2.0], "W")
    evil = 'fc"];evil[label="x'
    dot = viz.to_dot(F.exp(W), module=FakeModule({f"{evil}.W": W}), group_modules=True)
    assert "fc&quot;];evil[label=&quot;x.W" in dot
    assert "label=<fc&quot;];evil[label=&quot;x>" in dot
    assert len(node_lines(dot)) == 3


def test_bad_arguments_raise_clear_errors() -> None:
    x = named(1.0, "x")
    with pytest.raises(TypeError, match="not a minitorch Variable"):
        viz.to_dot(np.ones(3))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="rankdir"):
        viz.to_dot(x, rankdir="UP")
    with pytest.raises(ValueError, match="max_nodes"):
        viz.to_dot(x, max_nodes=0)
    with pytest.raises(ValueError, match="group_modules"):
        viz.to_dot(x, group_modules=True)
    with pytest.raises(TypeError, match="named_parameters"):
        viz.to_dot(x, module=object())


def test_rankdir_and_legend_are_written() -> None:
    dot = viz.to_dot(named(1.0, "x") * 2.0, rankdir="LR", legend=True)
    assert dot.splitlines()[1].startswith("\tgraph [rankdir=LR ")
    assert "subgraph cluster" not in dot  # the legend is one row under the graph
    assert "leaf / parameter" in dot and "constant (no grad)" in dot and "Function" in dot
    assert "output" in dot and "intermediate" not in dot  # x * 2.0 has no intermediate
    assert "made by backward" not in dot


def visible(name: str) -> str:
    """How a name should read in a label: non-printable characters as Python escapes."""
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in name[:60])
    return shown + ("…" if len(name) > 60 else "")


@settings(max_examples=60, deadline=None)
@given(name=st.text(max_size=80))
def test_any_name_is_drawn_literally_and_injects_nothing(name: str) -> None:
    dot = viz.to_dot(F.exp(named(1.0, name)), show_shapes=False)
    labels = node_lines(dot)
    assert list(labels) == ["v1", "f1", "v2"]
    inner = labels["v1"][len("<B>") : -len("</B>")]
    assert not set('"<>\n\r') & set(inner)
    assert html.unescape(inner) == (visible(name) if name else "leaf1")  # "": no name
    if HAS_DOT:
        assert svg_node_count(pipe_dot(dot, "svg").decode()) == 3


@requires_dot
@pytest.mark.parametrize("name", ["]", "]]", "]x"])
def test_a_name_starting_with_a_bracket_renders(name: str) -> None:
    # hypothesis found it: Graphviz 2.43 rejected the label "<B>]</B>" with a syntax error
    svg = pipe_dot(viz.to_dot(F.exp(named(1.0, name)), show_shapes=False), "svg").decode()
    assert svg_node_count(svg) == 3
    assert name in [html.unescape(text) for text in svg_texts(svg)]


@pytest.mark.parametrize(
    ("values", "shown"),
    [
        # rounding that would look exact keeps its zeros (a projected tanh(-11) read "-1.")
        (np.array(np.tanh(-11.0)), "-1.000"),
        (np.array([0.99998, 2.0]), "[1.000 2.]"),
        (np.array([-4.9e-05, 1.0]), "[-4.9e-05 1.]"),  # was "-0." (suppress_small)
        (np.array(0.00012345), "0.0001234"),  # 4 significant digits below 1, not "0.0001"
        (np.array([1.0, 2.5]), "[1. 2.5]"),  # exact values stay as NumPy prints them
        (np.array(3.0), "3.0"),
        (np.array(1 / 3), "0.3333"),
        (np.array(12345.678), "12345.678"),
        (np.array(2.5e6), "2.5e+06"),
    ],
)
def test_value_labels_never_show_a_rounded_value_as_exact(values: np.ndarray, shown: str) -> None:
    assert format_array(values) == shown


def test_two_freed_values_cut_by_unchain_stay_two_nodes() -> None:
    # Found by a fresh-user trial: freed values were told apart by (creator, index), and
    # an edge cut by unchain() reads creator None, so both Muls drew one shared input.
    import re

    x = Variable(np.linspace(0.1, 1.0, 200), name="x")
    h1, h2 = F.exp(x), F.sin(x)  # 1,600 bytes each: each Mul keeps only the edge
    y = F.sum(h1 * 3.0) + F.sum(h2 * 5.0)
    h1.unchain()
    h2.unchain()
    del h1, h2
    dot = viz.to_dot(y, show_shapes=False)
    muls = re.findall(r"^\s*(f\d+) \[label=<<B>Mul<", dot, re.M)
    arrows = re.findall(r"(\w+) -> (\w+)", dot)
    inputs = [{s for s, t in arrows if t == m} for m in muls]
    assert len(muls) == 2 and len(inputs[0] | inputs[1]) == 4  # no input shared
