"""viz.BackwardStepper: frames, self-contained HTML, files, a real MLP loss."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from viz_helpers import HAS_DOT, requires_dot

import minitorch.ops as F
import viz
import viz.renderer
from minitorch import Variable
from viz import style

ROOT = Path(__file__).resolve().parents[2]


def diamond_stepper() -> viz.BackwardStepper:
    x = Variable(np.array([0.5, -1.0]), name="x")
    return viz.BackwardStepper(viz.trace_backward(F.sin(x) * F.exp(x)))


def test_one_frame_per_step_plus_start_and_end() -> None:
    stepper = diamond_stepper()
    frames = stepper.frames()
    assert len(frames) == len(stepper.trace) + 2 == 5
    assert "start: backward seeds" in frames[0] and "done:" in frames[-1]


def test_each_step_frame_highlights_its_function_and_edges() -> None:
    stepper = diamond_stepper()
    for k, step in enumerate(stepper.trace, start=1):
        frame = stepper.frames()[k]
        node = next(line for line in frame.splitlines() if line.startswith(f"\t{step.node_id} "))
        assert style.CURRENT_FUNC in node
        assert frame.count(style.CURRENT_FUNC) == 1
        assert frame.count(style.CARRY_EDGE) == sum(g is not None for g in step.grads_out)
    assert style.CURRENT_FUNC not in stepper.frames()[0] + stepper.frames()[-1]


def test_accumulating_node_is_marked_with_the_sum() -> None:
    stepper = diamond_stepper()
    k = next(i for i, step in enumerate(stepper.trace, start=1) if step.accumulations)
    frame = stepper.frames()[k]
    x_line = next(line for line in frame.splitlines() if "<B>x</B>" in line)
    assert style.ACCUMULATE_VAR in x_line and " + " in x_line and " = " in x_line


def test_html_is_self_contained_and_holds_every_frame() -> None:
    stepper = diamond_stepper()
    page = stepper._repr_html_()
    assert not re.search(r"https?:", page)
    assert "<script src" not in page and "<link" not in page
    assert page.count('class="mts-frame"') == 5
    if HAS_DOT:
        assert page.count("<svg") == 5
    assert re.fullmatch(r"minitorch-stepper-[0-9a-f]{10}-\d+", stepper.element_id)
    assert len(set(re.findall(r'id="([^"]+)"', page))) == len(re.findall(r'id="', page))


def test_html_is_the_same_in_another_process_apart_from_nothing() -> None:
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


def test_without_dot_the_html_shows_dot_text_and_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PATH", "")
    monkeypatch.setattr(viz.renderer, "find_graphviz_pure", lambda: None)  # no renderer at all
    page = diamond_stepper().to_html()
    assert page.count("<pre>digraph minitorch {") == 5
    assert "Install the Graphviz" in page


def test_save_html_writes_a_standalone_page(tmp_path: Path) -> None:
    path = diamond_stepper().save_html(tmp_path / "steps.html")
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    assert not re.search(r"https?:", text)


@requires_dot
def test_save_gif_has_one_image_per_frame(tmp_path: Path) -> None:
    from PIL import Image

    path = diamond_stepper().save_gif(tmp_path / "steps.gif", duration_ms=100)
    with Image.open(path) as image:
        assert image.format == "GIF" and image.n_frames == 5


def test_stepper_rejects_other_objects() -> None:
    with pytest.raises(TypeError, match="trace_backward"):
        viz.BackwardStepper("not a trace")  # type: ignore[arg-type]


def test_stepper_on_a_real_mlp_loss() -> None:
    nn = pytest.importorskip("minitorch.nn")
    if not hasattr(nn, "MLP"):
        pytest.skip("minitorch.nn.MLP is not available yet")
    rng = np.random.default_rng(0)
    model = nn.MLP([2, 3, 1])
    x = Variable(rng.standard_normal((4, 2)))
    t = Variable(rng.standard_normal((4, 1)))
    loss = ((model(x) - t) ** 2).mean()
    trace = viz.trace_backward(loss)
    for _name, param in model.named_parameters():
        assert param.grad is not None
        node_id = trace.graph.var_id(param)
        assert node_id is not None
        np.testing.assert_array_equal(trace.leaf_grads[node_id], param.grad.data)
    stepper = viz.BackwardStepper(trace)
    assert len(stepper.frames()) == len(trace) + 2
    dot = viz.to_dot(loss, module=model, group_modules=True)
    assert "subgraph cluster_m1 {" in dot
    for name, _param in model.named_parameters():
        assert f"<B>{name}</B>" in dot
