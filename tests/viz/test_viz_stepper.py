"""viz.BackwardStepper: one layout, the steps as data, the page, the widget, the numbers."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from viz_helpers import requires_dot

import minitorch.ops as F
import viz
import viz.export
import viz.renderer
import viz.stepper as stepper_module
import viz.view
from minitorch import Function, Variable
from viz.draw import pipe_dot

ROOT = Path(__file__).resolve().parents[2]
X = np.array([0.5, -1.0])


def diamond_stepper() -> viz.BackwardStepper:
    """y = sum(sin(x) * exp(x)): x feeds two Functions, so its gradient is a sum."""
    x = Variable(X.copy(), name="x")
    y = (F.sin(x) * F.exp(x)).sum()
    y.name = "y"
    return viz.BackwardStepper(viz.trace_backward(y))


def fifteen_terms() -> Variable:
    """The benchmark's expression: 15 terms, 92 backward steps (benchmarks/stepper.py)."""
    from benchmarks.stepper import fifteen_term_expression

    return fifteen_term_expression()


def row(frame: dict, role: str, gradient: str) -> list[str]:
    return next(r for r in frame["rows"] if r[0] == role and r[1] == gradient)


# -- the step data ------------------------------------------------------------------------
def test_frames_are_the_start_each_step_and_the_end_with_one_counter() -> None:
    stepper = diamond_stepper()
    frames = stepper.frames()
    assert len(frames) == len(stepper) == len(stepper.trace) + 2 == 6
    counters = [frame["counter"] for frame in frames]
    assert counters == ["start", "step 1 of 4", "step 2 of 4", "step 3 of 4", "step 4 of 4", "end"]
    for frame in frames:  # the caption begins with the counter's own words
        assert frame["caption"].lower().startswith(frame["counter"] + ":")
    assert [frame["active"] for frame in frames[1:-1]] == [s.node_id for s in stepper.trace]
    assert frames[0]["active"] is None and frames[-1]["active"] is None


def test_the_seed_is_written_with_the_outputs_name() -> None:
    start = diamond_stepper().frames()[0]
    assert "output y" in start["caption"] and "∂y/∂y = 1" in start["caption"]
    assert start["rows"] == [["seed", "∂y/∂y", "scalar", "1.0"]]
    x = Variable(np.ones((2, 3)), name="x")
    loss = x * 2.0
    loss.name = "loss"
    caption = viz.BackwardStepper(viz.trace_backward(loss)).frames()[0]["caption"]
    assert "∂loss/∂loss = ones (shape (2, 3))" in caption


def test_numbers_are_the_directly_computed_gradients() -> None:
    stepper = diamond_stepper()
    frames = stepper.frames()
    # y = sum(sin(x) exp(x)); Mul sends exp(x) to sin(x) and sin(x) to exp(x);
    # Exp sends sin(x) exp(x), Sin sends exp(x) cos(x); x.grad is their sum.
    mul, exp, sin, end = frames[2], frames[3], frames[4], frames[5]
    assert mul["caption"].startswith(  # sin(x) * exp(x), named by its expression
        "Step 2 of 4: Mul.backward received ∂y/∂(sin(x)*exp(x)) (shape (2,)) and sent "
        "∂y/∂(sin(x)) and ∂y/∂(exp(x))."
    )

    def values(cell: str) -> np.ndarray:
        return np.array([float(v) for v in cell.strip("[] ").split()])

    sent = [r for r in mul["rows"] if r[0] == "sent"]
    np.testing.assert_allclose(values(sent[0][3]), np.exp(X), atol=1e-4)
    np.testing.assert_allclose(values(sent[1][3]), np.sin(X), atol=1e-4)
    np.testing.assert_allclose(
        values(row(exp, "sent", "∂y/∂x")[3]), np.sin(X) * np.exp(X), atol=1e-4
    )
    np.testing.assert_allclose(
        values(row(sin, "sent", "∂y/∂x")[3]), np.cos(X) * np.exp(X), atol=1e-4
    )
    total = np.exp(X) * (np.sin(X) + np.cos(X))
    np.testing.assert_allclose(values(row(sin, "added", "∂y/∂x (sum)")[3]), total, atol=1e-4)
    np.testing.assert_allclose(values(row(end, "grad", "x.grad")[3]), total, atol=1e-4)


def test_the_fan_in_is_shown_where_it_happens() -> None:
    stepper = diamond_stepper()
    x_id = next(vn.id for vn in stepper.trace.graph.variables if vn.var.name == "x")
    frames = stepper.frames()
    adds = [k for k, frame in enumerate(frames) if frame["acc"]]
    assert adds == [4] and frames[4]["acc"] == [x_id]  # Sin runs after Exp: x's second part
    assert frames[4]["caption"].endswith(
        "x already received a gradient in an earlier step, so what arrives now is added to "
        "it (+=)."
    )
    # "held" is kept for the end frame's story: a gradient from before this backward.
    assert "held" not in frames[4]["caption"]
    assert "+=" not in frames[3]["caption"]


def test_a_variable_used_twice_by_one_function_is_said_once() -> None:
    x = Variable(np.array(3.0), name="x")
    y = x * x
    y.name = "y"
    frame = viz.BackwardStepper(viz.trace_backward(y)).frames()[1]
    assert "sent ∂y/∂x twice, once for each use." in frame["caption"]
    assert frame["caption"].count("(+=)") == 1
    assert row(frame, "added", "∂y/∂x (sum)")[3] == "6.0"  # d(x²)/dx at 3


def test_two_contributions_of_one_step_are_not_said_to_be_held_before() -> None:
    # x * x: Mul sends gy*x to both of its inputs, which are the same x, in one step.
    # Nothing was held at x before that step, so the caption must not say it was.
    x = Variable(np.array(3.0), name="x")
    y = x * x
    y.name = "y"
    caption = viz.BackwardStepper(viz.trace_backward(y)).frames()[1]["caption"]
    assert "already held" not in caption
    assert caption.endswith("Both inputs of Mul are x: the two contributions are added (+=).")


def test_a_fan_in_on_top_of_an_earlier_gradient_says_both() -> None:
    # y = x*x + exp(x): the engine runs Exp before Mul (see the trace's order), so x
    # holds exp(x) when Mul's two contributions arrive.
    x = Variable(np.array(3.0), name="x")
    y = x * x + x.exp()
    y.name = "y"
    trace = viz.trace_backward(y)
    assert [step.name for step in trace] == ["Add", "Exp", "Mul"]
    caption = viz.BackwardStepper(trace).frames()[3]["caption"]
    assert caption.endswith(
        "x already received a gradient in an earlier step; the two contributions Mul sends "
        "now are added to it (+=)."
    )


def bold_labels(dot: str) -> dict[str, str]:
    """Node id -> the bold first line of its label, as the picture shows it (unescaped)."""
    import html

    found = re.findall(r"^\t+(v\d+) \[label=<<B>(.*?)</B>", dot, re.MULTILINE)
    return {node: html.unescape(text) for node, text in found}


def named_in_captions(stepper: viz.BackwardStepper) -> set[str]:
    """Every Variable name a caption mentions after the output's ``∂y/∂``.

    A derived name that is an expression is written in parentheses, ``∂y/∂(tanh(x))``.
    """
    out = stepper.frames()[0]["rows"][0][1].split("/")[0][1:]  # the seed row: ∂y/∂y
    names = set()
    for caption in stepper.captions():
        for start in [m.end() for m in re.finditer(rf"∂{re.escape(out)}/∂", caption)]:
            if caption[start] == "(":  # up to the matching ")"
                depth, end = 1, start + 1
                while depth:
                    depth += {"(": 1, ")": -1}.get(caption[end], 0)
                    end += 1
                names.add(caption[start + 1 : end - 1])
            else:
                names.add(re.match(r"\S+?(?=[ ,.)]|$)", caption[start:]).group())
    return names


def test_unnamed_variables_are_named_by_their_role_and_expression() -> None:
    x = Variable(np.array(0.5), name="x")
    y = F.exp(x) * F.sin(x)  # the product, exp(x) and sin(x) are unnamed (ids v2 v3 v4)
    stepper = viz.BackwardStepper(viz.trace_backward(y))
    labels = bold_labels(stepper.dot())
    assert sorted(labels.values()) == ["exp(x)", "sin(x)", "x", "y"]  # the output is y
    start, mul, *_ = stepper.captions()
    assert "begins at the output y (made by Mul)" in start
    assert "received ∂y/∂y (a scalar) and sent ∂y/∂(exp(x)) and ∂y/∂(sin(x))." in mul
    assert not re.search(r"\bv\d", " ".join(stepper.captions()))  # no generated id
    # The output of a loss Function is "loss"; the table uses the same names.
    t = Variable(np.array([0]), requires_grad=False)
    z = Variable(np.array([[0.5]]), name="z")
    loss_stepper = viz.BackwardStepper(viz.trace_backward(F.softmax_cross_entropy(z * 2.0, t)))
    assert "∂loss/∂loss" in loss_stepper.captions()[0]
    assert "z*2.0" in bold_labels(loss_stepper.dot()).values()


def test_a_long_expression_is_named_by_its_function_and_said_where_it_is() -> None:
    x = Variable(np.array(0.5), name="an_input_with_a_long_name")
    y = F.tanh(F.tanh(x)) * 2.0  # tanh(tanh(...)) is longer than viz.names.MAX_EXPRESSION
    stepper = viz.BackwardStepper(viz.trace_backward(y))
    labels = bold_labels(stepper.dot())
    expected = ["2.0", "an_input_with_a_long_name", "tanh(tanh1)", "tanh1", "y"]
    assert sorted(labels.values()) == expected
    captions = " ".join(stepper.captions())
    assert "∂y/∂tanh1 (tanh1 is the output of Tanh)" in captions
    assert "∂y/∂(tanh(tanh1))" in captions and "∂y/∂(tanh(tanh1)) (tanh" not in captions


def test_captions_and_drawing_agree_when_a_user_name_reads_like_an_id() -> None:
    # x is named "y", the name the unnamed output would get: the output is out; and a
    # user's name that reads like an expression is never taken by a derived one.
    x = Variable(np.array(0.5), name="y")
    e = Variable(np.array(1.5), name="exp(y)")
    out = (F.exp(x) + e) * x
    stepper = viz.BackwardStepper(viz.trace_backward(out))
    labels = bold_labels(stepper.dot())
    assert sorted(labels.values()) == ["exp(y)", "exp1", "exp1+exp(y)", "out", "y"]
    assert len(set(labels.values())) == len(labels)
    mul = stepper.captions()[1]
    assert mul.startswith("Step 1 of 3: Mul.backward received ∂out/∂out (a scalar) and sent ")
    assert "∂out/∂(exp1+exp(y)) and ∂out/∂y." in mul


@pytest.mark.parametrize(
    "name, shown",
    [
        ("a\nb", "a\\nb"),  # the drawing spells invisible characters out
        ("w" * 70, "w" * 60 + "…"),  # and shortens long names
        ("<b>&", "<b>&"),
    ],
)
def test_captions_name_variables_exactly_as_the_drawing_shows_them(name: str, shown: str) -> None:
    x = Variable(np.array([0.5, 2.0]), name=name)
    h = F.tanh(x)
    y = (h * 3.0).sum()  # 3.0 is a constant, drawn by its value
    y.name = "y"
    stepper = viz.BackwardStepper(viz.trace_backward(y))
    labels = bold_labels(stepper.dot())
    assert shown in labels.values() and "3.0" in labels.values()
    mentioned = named_in_captions(stepper)
    assert shown in mentioned
    assert mentioned <= set(labels.values()), mentioned - set(labels.values())
    assert f"The leaf {shown} now holds" in stepper.captions()[-1]
    named = {k for k in labels if k not in stepper.steps.derived}
    assert {stepper.trace.name_of(k) for k in named} <= set(labels.values())


def test_arrows_point_the_way_the_gradient_travels() -> None:
    stepper = diamond_stepper()
    graph = stepper.trace.graph
    arrows = re.findall(r'\t(\w+) -> (\w+) \[id="g_(\d+)"[^\]]*constraint=false', stepper.dot())
    assert len(arrows) == len(graph.edges)
    for src, dst, index in arrows:  # each arrow is its forward edge reversed
        assert graph.edges[int(index)] == (dst, src)
    for frame in stepper.frames()[1:-1]:
        for e in frame["send"]:  # sent: from the running Function to an input
            assert graph.edges[e][1] == frame["active"] and graph.edges[e][0] in frame["got"]
        for e in frame["recv"]:  # received: from its output into it
            assert graph.edges[e][0] == frame["active"]


def test_one_drawing_whose_labels_never_show_gradients() -> None:
    stepper = diamond_stepper()
    dot = stepper.dot()
    assert dot.count("digraph") == 1 and "grad:" not in dot
    for vn in stepper.trace.graph.variables:
        assert f'id="n_{vn.id}"' in dot
    assert stepper.dot() == dot


def test_the_mlp_caption_names_parameters_and_shapes() -> None:
    nn = pytest.importorskip("minitorch.nn")
    model = nn.MLP([3, 10, 10], "relu", rng=0)
    x = Variable(np.random.default_rng(0).standard_normal((4, 3)), requires_grad=False)
    loss = F.softmax_cross_entropy(model(x), np.array([0, 1, 2, 3]))
    loss.name = "loss"
    trace = viz.trace_backward(loss)
    frames = viz.BackwardStepper(trace).frames()
    caption = frames[2]["caption"]
    assert caption.startswith(  # the logits: too long as linear(...), so linear2
        "Step 2 of 4: Linear.backward received ∂loss/∂linear2 (shape (4, 10); linear2 is its "
        "output) and sent ∂loss/∂(relu(linear1)), "
    )
    assert "∂loss/∂layers.2.W" in caption and "∂loss/∂layers.2.b" in caption
    w_row = row(frames[2], "sent", "∂loss/∂layers.2.W")
    assert w_row[2] == "(10, 10)" and w_row[3].startswith("min ")
    for name, param in model.named_parameters():  # the end frame is the engine's .grad
        node_id = trace.graph.var_id(param)
        assert node_id is not None
        np.testing.assert_array_equal(trace.leaf_grads[node_id], param.grad.data)
        grad_row = row(frames[-1], "grad", f"{name}.grad")
        low, high = (float(v) for v in re.findall(r"-?[\d.]+(?:e-?\d+)?", grad_row[3]))
        assert low == pytest.approx(param.grad.data.min(), abs=1e-4)
        assert high == pytest.approx(param.grad.data.max(), abs=1e-4)


# -- the page -----------------------------------------------------------------------------
@requires_dot
def test_html_is_self_contained_with_one_drawing() -> None:
    stepper = diamond_stepper()
    page = stepper.to_html()
    assert not re.search(r"https?:", page)
    assert "<script src" not in page and "<link" not in page
    assert page.count('class="mts-canvas"') == 1
    assert len(re.findall(r"<svg width=\"\d+pt\"", page)) == 1  # the graph (Graphviz: pt)
    assert re.fullmatch(r"minitorch-stepper-[0-9a-f]{10}-\d+", stepper.element_id)
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(set(ids)) == len(ids)
    data = json.loads(re.search(r'type="application/json"[^>]*>(.*?)</script>', page).group(1))
    assert data["format"] == "minitorch-stepper/1" and data["frames"] == stepper.frames()


def test_html_is_byte_identical_in_another_process() -> None:
    here = str(Path(__file__).parent)
    script = (
        f"import sys; sys.path.insert(0, {here!r});"
        "from test_viz_stepper import diamond_stepper;"
        "sys.stdout.write(diamond_stepper().to_html())"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True
        ).stdout
        for _ in range(2)
    ]
    assert runs[0] == runs[1]
    assert diamond_stepper().element_id.rsplit("-", 1)[0] in runs[0]


def test_names_cannot_break_out_of_the_page() -> None:
    evil = '</script><script>alert(1)</script>"]; v9 [label="x'
    x = Variable(np.array(1.0), name=evil)
    y = F.exp(x)
    y.name = "<b>y</b>"
    stepper = viz.BackwardStepper(viz.trace_backward(y))
    page = stepper.to_html()
    assert "<script>alert" not in page and "<b>y</b>" not in page
    data = json.loads(re.search(r'type="application/json"[^>]*>(.*?)</script>', page).group(1))
    assert evil in data["frames"][1]["caption"]  # shown as typed, by textContent


def test_without_graphviz_the_page_shows_dot_text_and_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PATH", "")
    monkeypatch.setattr(viz.renderer, "find_graphviz_pure", lambda: None)  # no renderer at all
    page = diamond_stepper().to_html()
    assert page.count("<pre>digraph minitorch {") == 1
    assert "Install Graphviz" in page


def test_save_html_writes_a_standalone_page(tmp_path: Path) -> None:
    path = diamond_stepper().save_html(tmp_path / "steps.html")
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    assert 'class="minitorch-stepper mts-page"' in text
    assert not re.search(r"https?:", text)


def test_the_fifteen_term_page_is_small() -> None:
    stepper = viz.BackwardStepper(viz.trace_backward(fifteen_terms()))
    assert len(stepper.trace) == 92
    assert len(stepper.to_html().encode("utf-8")) < 2_000_000


def test_a_big_graph_says_what_it_is_doing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(viz.view, "BIG_GRAPH_NODES", 3)
    diamond_stepper().to_html()
    assert (
        "viz.BackwardStepper: laying out 9 nodes once for all 4 steps" in capsys.readouterr().err
    )


@requires_dot
def test_save_gif_has_one_image_per_frame(tmp_path: Path) -> None:
    from PIL import Image

    path = diamond_stepper().save_gif(tmp_path / "steps.gif", duration_ms=100)
    with Image.open(path) as image:
        assert image.format == "GIF" and image.n_frames == 6


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) in pixels, read from a PNG's IHDR chunk."""
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


@requires_dot
def test_the_still_picture_is_drawn_at_192_dpi_like_render() -> None:
    stepper = diamond_stepper()
    at_96 = png_size(pipe_dot(stepper.dot(picture=True), "png", dpi=96))
    width, height = png_size(stepper.picture_png())
    assert abs(width - 2 * at_96[0]) <= 4 and abs(height - 2 * at_96[1]) <= 4
    assert width <= 1344 and height <= 960  # size="7,5" inches at 192 dpi
    assert len(stepper.picture_png()) < 200_000


@requires_dot
def test_the_widget_shows_its_sharp_picture_at_the_size_of_96_dpi() -> None:
    pytest.importorskip("anywidget")
    stepper = diamond_stepper()
    data, metadata = stepper.widget()._repr_mimebundle_()
    width, height = png_size(base64.b64decode(data["image/png"]))
    shown = metadata["image/png"]
    assert abs(2 * shown["width"] - width) <= 1 and abs(2 * shown["height"] - height) <= 1


@requires_dot
def test_save_gif_is_drawn_at_192_dpi_and_stays_small(tmp_path: Path) -> None:
    from PIL import Image

    stepper = diamond_stepper()
    drawing_96 = png_size(pipe_dot(viz.export.frame_dot(stepper, 0), "png", dpi=96))
    path = stepper.save_gif(tmp_path / "steps.gif", duration_ms=100)
    with Image.open(path) as image:
        width, height = image.size
    assert width >= max(2 * drawing_96[0] - 4, 960)  # was max(drawing_96 width, 480)
    assert height >= 2 * drawing_96[1] - 4
    assert path.stat().st_size < 600_000  # measured: about 240 kB for these 6 frames


@requires_dot
def test_save_gif_lowers_the_dpi_of_a_wide_drawing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PIL import Image

    stepper = diamond_stepper()
    drawing_192 = png_size(pipe_dot(viz.export.frame_dot(stepper, 0), "png", dpi=192))
    monkeypatch.setattr(viz.export, "GIF_MAX_WIDTH", drawing_192[0] // 2)
    path = stepper.save_gif(tmp_path / "steps.gif", duration_ms=100)
    with Image.open(path) as image:
        assert image.width < drawing_192[0]


@requires_dot
def test_save_gif_writes_every_line_of_a_long_caption(tmp_path: Path) -> None:
    # Captions were cut at six lines: with long names a slide lost the end of a sentence.
    from PIL import Image

    stepper = diamond_stepper()
    drawing = png_size(pipe_dot(viz.export.frame_dot(stepper, 0), "png", dpi=192))
    short = stepper.save_gif(tmp_path / "short.gif", duration_ms=100)
    stepper._frames()[2]["caption"] = " ".join(["gradient"] * 200)  # 1799 characters
    path = stepper.save_gif(tmp_path / "long.gif", duration_ms=100)
    with Image.open(short) as image:
        short_size = image.size
    with Image.open(path) as image:
        assert image.width == short_size[0]
        # 1799 characters at at most width/16 a line (8 px each at 96 dpi, doubled)
        lines = -(-1799 // (image.width // 16))
        assert lines > 6 and image.height >= short_size[1] + 40 * (lines - 6)
        image.seek(2)
        text = image.convert("L").crop((0, drawing[1] + 20 + 40 * 6, image.width, image.height))
        assert text.getextrema()[0] < 100  # dark text drawn past the sixth line
        image.seek(1)
        other = image.convert("L").crop((0, drawing[1] + 20 + 40 * 6, image.width, image.height))
        assert other.getextrema()[0] > 200  # a short caption leaves that room blank


def test_stepper_rejects_other_objects() -> None:
    with pytest.raises(TypeError, match="trace_backward"):
        viz.BackwardStepper("not a trace")  # type: ignore[arg-type]
    x = Variable(np.array(1.0))
    with pytest.raises(ValueError, match="rankdir"):
        viz.BackwardStepper(viz.trace_backward(x.exp()), rankdir="XY")


# -- the widget ---------------------------------------------------------------------------
def test_the_widget_shares_the_drawing_and_data_and_syncs_its_step() -> None:
    pytest.importorskip("anywidget")
    stepper = diamond_stepper()
    widget = stepper.widget()
    assert isinstance(widget, viz.StepperWidget)
    assert repr(widget) == "<viz.StepperWidget 4 steps; run the cell to step through backward>"
    assert widget.html == stepper.block_html() and json.loads(widget.data) == stepper.data()
    assert "export default" in widget._esm and "minitorchStepper" in widget._esm
    assert not re.search(r"https?:", widget._esm + widget.html)
    widget.step = 5
    assert widget.step == 5
    for bad in (-1, 6):
        with pytest.raises(Exception, match=r"step must be in 0\.\.5"):
            widget.step = bad
    with pytest.raises(TypeError, match="BackwardStepper"):
        viz.StepperWidget(42)  # type: ignore[arg-type]


@requires_dot
def test_the_widget_displays_a_picture_for_untrusted_notebooks() -> None:
    pytest.importorskip("anywidget")
    from PIL import Image

    stepper = diamond_stepper()
    data, _ = stepper.widget()._repr_mimebundle_()
    assert "text/html" not in data and "image/svg+xml" not in data  # sanitised to soup
    assert data["text/plain"].startswith("<viz.StepperWidget")
    assert "application/vnd.jupyter.widget-view+json" in data
    # the static stepper, for the docs site, under a type no Jupyter front end renders
    assert stepper_module.STEPPER_MIME == "application/vnd.minitorch.stepper+html"
    assert data[stepper_module.STEPPER_MIME] == stepper.to_html()
    png = base64.b64decode(data["image/png"])
    import io

    with Image.open(io.BytesIO(png)) as image:
        assert image.format == "PNG" and image.width > 100
    assert stepper_module.PICTURE_NOTE in diamond_stepper().dot(picture=True)


def test_widget_assets_ship_inside_the_package() -> None:
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    shipped = config["tool"]["setuptools"]["package-data"]["viz"]
    assert {"assets/*.js", "assets/*.css", "assets/*.html"} <= set(shipped)
    assert any(
        dep.startswith("anywidget") for dep in config["project"]["optional-dependencies"]["viz"]
    )
    for name in ("stepper.js", "widget.js", "stepper.css", "stepper.html", "page.html",
                 "memory.js", "memory.css"):  # fmt: skip
        assert (stepper_module.ASSETS / name).is_file()


def test_the_title_is_shown_escaped_above_the_controls(tmp_path: Path) -> None:
    x = Variable(np.array(1.0), name="x")
    stepper = viz.BackwardStepper(viz.trace_backward(x.exp()), title="first batch <b>&</b>")
    assert '<p class="mts-title">first batch &lt;b&gt;&amp;&lt;/b&gt;</p>' in stepper.to_html()
    page = stepper.save_html(tmp_path / "page.html").read_text(encoding="utf-8")
    assert "<title>first batch &lt;b&gt;&amp;&lt;/b&gt;</title>" in page
    with pytest.raises(TypeError, match="title must be a str"):
        viz.BackwardStepper(viz.trace_backward(x.exp()), title=3)  # type: ignore[arg-type]


def test_the_last_frame_says_when_a_leaf_already_held_a_gradient() -> None:
    # Found by a fresh-user trial: x.grad = 100 before the pass showed 107 at the end with
    # no word about the 100 (the repeated-backward mistake a student needs explained).
    x = Variable(np.array(3.0), name="x")
    x.grad = Variable(np.array(100.0), requires_grad=False)
    y = x * x + x
    frames = viz.BackwardStepper(viz.trace_backward(y)).frames()
    end = frames[-1]["caption"]
    assert "x already held a gradient before this backward" in end and "clear_grad()" in end
    assert float(x.grad.data) == 107.0
    z = Variable(np.array(3.0), name="z")
    fresh = viz.BackwardStepper(viz.trace_backward(z * z)).frames()[-1]["caption"]
    assert "before this backward" not in fresh


# -- 0 and 1 steps, and the end frame -------------------------------------------------
def test_a_leaf_output_has_no_function_to_run_and_its_captions_say_so() -> None:
    # backward() of a leaf runs no Function: the seed goes straight into x.grad.
    x = Variable(np.array([1.0, 2.0]), name="x")
    stepper = viz.BackwardStepper(viz.trace_backward(x))
    frames = stepper.frames()
    assert len(stepper.trace) == 0 and [f["counter"] for f in frames] == ["start", "end"]
    start, end = stepper.captions()
    assert "first Function" not in start and "run" in start
    assert start == (
        "Start: backward begins at the output x, seeded with ∂x/∂x = ones (shape (2,)). x is a "
        "leaf (no Function made it), so there is no Function whose backward could run: the "
        "seed itself is x's gradient. Press → (or next) to see the end."
    )
    assert end == "End: backward ran no Function: the seed went straight into x.grad."
    assert "0 steps" not in end
    assert frames[-1]["rows"] == [["grad", "x.grad", "(2,)", "[1. 1.]"]]
    assert frames[-1]["holds"] == ["v1"] and frames[0]["got"] == ["v1"]
    np.testing.assert_array_equal(x.grad.data, [1.0, 1.0])  # what the engine did


def test_a_leaf_output_that_held_a_gradient_says_the_seed_was_added() -> None:
    x = Variable(np.array(2.0), name="x")
    x.grad = Variable(np.array(5.0), requires_grad=False)
    frames = viz.BackwardStepper(viz.trace_backward(x)).frames()
    assert frames[-1]["caption"].endswith(
        "x already held a gradient before this backward, so the seed was added to it; call "
        "clear_grad() (or zero_grad()) between passes to start from zero."
    )
    assert frames[-1]["rows"] == [
        ["before", "x.grad before", "scalar", "5.0"],
        ["grad", "x.grad", "scalar", "6.0"],
    ]


def test_an_output_that_needs_no_gradient_is_not_said_to_be_seeded() -> None:
    # relu's gradient under create_graph depends on no input: its backward runs nothing
    # (the engine gives x zeros); there is no seed and no Function to talk about.
    x = Variable(np.array(2.0), name="x")
    F.relu(x).backward(create_graph=True)
    gx = x.grad
    x.clear_grad()
    stepper = viz.BackwardStepper(viz.trace_backward(gx))
    start, end = stepper.frames()
    assert len(stepper.trace) == 0
    assert "needs no gradient" in start["caption"] and "seeded" not in start["caption"]
    assert "first Function" not in start["caption"] and "see the end" in start["caption"]
    assert start["rows"] == [] and start["got"] == []
    assert end["caption"].startswith("End: backward ran no Function: y needs no gradient")
    assert end["rows"] == [] and end["holds"] == []
    assert float(x.grad.data) == 0.0


def test_one_step_names_the_only_function() -> None:
    x = Variable(np.array(2.0), name="x")
    y = x.exp()
    y.name = "y"
    stepper = viz.BackwardStepper(viz.trace_backward(y))
    start, step, end = stepper.captions()
    assert start.endswith("Press → (or next) to run Exp.backward, the only Function in this pass.")
    assert step.startswith("Step 1 of 1: Exp.backward received ∂y/∂y (a scalar) and sent ∂y/∂x")
    assert end == "End: backward is done after 1 step. The leaf x now holds its gradient in .grad."
    assert repr(viz.StepperWidget(stepper)).startswith("<viz.StepperWidget 1 step;")
    two = viz.BackwardStepper(viz.trace_backward(x.exp() * 2.0)).captions()
    assert two[0].endswith("Press → (or next) to run the first Function's backward.")


class Halves(Function):
    """Two outputs: the first and the second half of a vector."""

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = x.shape[0] // 2
        return x[:n].copy(), x[n:].copy()

    def backward(self, ga: Variable, gb: Variable) -> Variable:
        return F.concatenate([ga, gb])


def test_a_function_with_two_outputs_says_what_each_output_sent_back() -> None:
    x = Variable(np.array([1.0, 2.0, 3.0, 4.0]), name="x")
    a, b = Halves()(x)
    a.name, b.name = "a", "b"
    y = (a * 2.0).sum() + (b * b).sum()
    y.name = "y"
    frame = viz.BackwardStepper(viz.trace_backward(y)).frames()[-2]
    assert frame["caption"] == (
        "Step 6 of 6: Halves.backward received ∂y/∂a (shape (2,)) and ∂y/∂b (shape (2,)), and "
        "sent ∂y/∂x."
    )
    assert row(frame, "received", "∂y/∂b")[3] == "[6. 8.]"  # d(b·b)/db = 2b
    assert row(frame, "sent", "∂y/∂x")[3] == "[2. 2. 6. 8.]"


def test_an_unused_output_is_said_to_send_zeros_not_a_question_mark() -> None:
    x = Variable(np.array([1.0, 2.0, 3.0, 4.0]), name="x")
    a, _unused = Halves()(x)
    y = (a * 2.0).sum()
    y.name = "y"
    stepper = viz.BackwardStepper(viz.trace_backward(y))
    frame = stepper.frames()[-2]
    assert "?" not in json.dumps(stepper.frames(), ensure_ascii=False)
    assert (
        "and zeros (shape (2,)) for its second output, which no path to y goes through,"
        in (frame["caption"])
    )
    assert row(frame, "received", "zeros: second output, unused")[3] == "[0. 0.]"
    np.testing.assert_array_equal(x.grad.data, [2.0, 2.0, 0.0, 0.0])


def test_a_function_with_many_inputs_names_a_few_of_them() -> None:
    xs = [Variable(np.array([float(i)]), name=f"x{i}") for i in range(9)]
    y = F.concatenate(xs).sum()
    y.name = "y"
    caption = viz.BackwardStepper(viz.trace_backward(y)).captions()[2]
    assert caption.startswith("Step 2 of 2: Concatenate.backward")
    assert caption.endswith("and sent ∂y/∂x0, ∂y/∂x1, ∂y/∂x2, ∂y/∂x3, ∂y/∂x4 and 4 more.")


def test_at_the_end_only_variables_that_keep_a_grad_wear_the_badge() -> None:
    x = Variable(np.array(2.0), name="x")
    h = x.exp()
    h.name = "h"
    y = h * h
    y.name = "y"
    plain = viz.BackwardStepper(viz.trace_backward(y))
    ids = {vn.var.name: vn.id for vn in plain.trace.graph.variables}
    assert plain.frames()[-1]["holds"] == [ids["x"]]
    assert h.grad is None  # the engine dropped it: the drawing must not say it holds one
    x.clear_grad()
    kept = viz.BackwardStepper(viz.trace_backward(y, retain_grad=True))
    assert sorted(kept.frames()[-1]["holds"]) == sorted(ids.values())
    assert h.grad is not None and y.grad is not None
    assert all("holds" not in frame for frame in kept.frames()[:-1])


def test_the_end_frame_of_a_create_graph_pass_says_the_grads_have_graphs() -> None:
    x = Variable(np.array(2.0), name="x")
    y = x**3
    y.name = "y"
    end = viz.BackwardStepper(viz.trace_backward(y, create_graph=True)).captions()[-1]
    assert end.endswith(
        "With create_graph=True each .grad is a Variable with a graph of its own: it can be "
        "differentiated again."
    )
    assert x.grad.creator is not None
    gx = x.grad  # the common next step, without clearing x.grad first
    again = viz.BackwardStepper(viz.trace_backward(gx)).captions()[-1]
    assert "x already held a gradient before this backward" in again
    assert float(x.grad.data) == 12.0 + 12.0  # 3x² = 12, plus d(3x²)/dx = 6x = 12
    assert "create_graph" not in again


def test_the_end_frame_lists_the_held_before_rows_and_shortens_long_lists() -> None:
    params = [Variable(np.array(float(i + 1)), name=f"p{i}") for i in range(8)]
    for p in params[:7]:
        p.grad = Variable(np.array(100.0), requires_grad=False)
    total = params[0]
    for p in params[1:]:
        total = total + p
    frame = viz.BackwardStepper(viz.trace_backward(total)).frames()[-1]
    assert "The leaves p0, p1, p2, p3, p4 and 3 more now hold their gradients" in frame["caption"]
    assert "p0, p1, p2, p3, p4 and 2 more each already held a gradient" in frame["caption"]
    assert row(frame, "before", "p0.grad before")[3] == "100.0"
    assert row(frame, "grad", "p0.grad")[3] == "101.0"
    assert row(frame, "grad", "p7.grad")[3] == "1.0"
    assert not any(r[1] == "p7.grad before" for r in frame["rows"])
    for p in params:
        p.grad = Variable(np.array(1.0), requires_grad=False)
    every = viz.BackwardStepper(viz.trace_backward(params[0] * params[1])).captions()[-1]
    assert "Each of them already held a gradient before this backward" in every


def test_many_fan_ins_in_one_step_are_said_in_one_sentence() -> None:
    xs = [Variable(np.array([float(i)]), name=f"x{i}") for i in range(9)]
    earlier = xs[0] * 2.0
    for x in xs[1:]:
        earlier = earlier + x * 2.0
    y = F.concatenate(xs).sum() + earlier
    y.name = "y"
    stepper = viz.BackwardStepper(viz.trace_backward(y))
    frame = stepper.frames()[-2]
    assert frame["caption"].startswith("Step 20 of 20: Concatenate.backward")
    assert frame["caption"].endswith(
        "x0, x1, x2, x3, x4 and 4 more each already received a gradient in an earlier "
        "step, so what arrives now is added to each (+=)."
    )
    assert frame["caption"].count("(+=)") == 1 and len(frame["acc"]) == 9
    assert row(frame, "added", "∂y/∂x8 (sum)")[3] == "[3.]"  # 1 from Concatenate, 2 from x8 * 2


def test_the_end_frame_says_when_retain_grad_kept_the_intermediate_gradients() -> None:
    x = Variable(np.array(2.0), name="x")
    y = x.exp() * x
    plain = viz.BackwardStepper(viz.trace_backward(y)).captions()[-1]
    assert "retain_grad" not in plain
    x.clear_grad()
    kept = viz.BackwardStepper(viz.trace_backward(y, retain_grad=True)).captions()[-1]
    assert kept.endswith("With retain_grad=True the intermediate Variables keep theirs too.")


def test_a_trace_of_no_steps_prints_that_no_function_ran() -> None:
    trace = viz.trace_backward(Variable(np.array(1.0), name="x"))
    assert (len(trace), str(trace), repr(trace)) == (
        0,
        "no steps: backward ran no Function",
        "<viz.BackwardTrace 0 steps>",
    )
