"""``show_memory=True``: the bytes each Function keeps for backward, and the stepper's line.

The expected numbers are counted by hand from the arrays' sizes (1000 float64 values are
8,000 bytes), never by the code under test.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from viz_helpers import requires_renderer

import minitorch.ops as F
import viz
from minitorch import Variable
from viz.graph import walk
from viz.memory import graph_saved_bytes, held_per_frame, saved_bytes

N = 1000  # 1000 float64: 8,000 bytes per array


def chain() -> tuple[Variable, Variable]:
    """x (1000,) float64 -> exp -> tanh -> sum: exp and tanh keep their outputs (8,000
    bytes each), sum keeps nothing (its gradient is gy broadcast to x's shape)."""
    x = Variable(np.linspace(-1.0, 1.0, N), name="x")
    return x, x.exp().tanh().sum()


def func_labels(dot: str) -> dict[str, str]:
    """Function name -> its ``saved:`` line, from the DOT text."""
    return dict(re.findall(r"<B>(\w+)</B><BR/>saved: ([^>]+?)>", dot))


def test_each_function_keeps_what_its_rule_reads() -> None:
    x, y = chain()
    exp = y.creator.inputs[0].creator.inputs[0].creator
    assert type(exp).__name__ == "Exp"
    assert saved_bytes(exp) == 8 * N  # exp(x), its output
    assert saved_bytes(y.creator) == 0  # Sum keeps nothing
    assert graph_saved_bytes(walk([y])) == 2 * 8 * N


def test_dot_labels_each_function_and_the_total() -> None:
    _, y = chain()
    dot = viz.to_dot(y, show_memory=True)
    assert func_labels(dot) == {"Exp": "7.81 kB", "Tanh": "7.81 kB", "Sum": "0 B"}
    assert "saved for backward: 15.62 kB (16,000 bytes; each array once)" in dot


def test_an_array_used_twice_is_counted_once() -> None:
    x = Variable(np.ones(N), name="x")
    y = x * x  # Mul keeps x once, not twice
    assert saved_bytes(y.creator) == 8 * N
    assert "24,000" not in viz.to_dot(y, show_memory=True)
    assert "(8,000 bytes" in viz.to_dot(y, show_memory=True)


def test_a_shared_input_is_in_each_label_but_once_in_the_total() -> None:
    x = Variable(np.ones(N), name="x")
    y = x.exp() * x  # Exp keeps x; Mul keeps exp(x) and x: 8,000 + 16,000 in the labels
    dot = viz.to_dot(y, show_memory=True)
    assert func_labels(dot) == {"Exp": "7.81 kB", "Mul": "15.62 kB"}
    assert "(16,000 bytes" in dot  # x once, exp(x) once


def test_dtype_and_shape_set_the_bytes() -> None:
    x = Variable(np.ones((10, 20), dtype=np.float32), name="x")
    assert saved_bytes(F.relu(x).creator) == 10 * 20 * 4


def test_draw_graph_and_render_pass_it_through(tmp_path: Path) -> None:
    _, y = chain()
    assert viz.draw_graph(y, show_memory=True).source == viz.to_dot(y, show_memory=True)
    path = viz.render(y, tmp_path / "g.dot", show_memory=True)
    assert path.read_text() == viz.to_dot(y, show_memory=True)


def test_without_show_memory_the_text_is_unchanged() -> None:
    _, y = chain()
    dot = viz.to_dot(y)
    assert dot == viz.to_dot(y, show_memory=False)
    assert "saved" not in dot
    assert viz.to_dot(y, show_memory=True) != dot


def test_the_stepper_holds_less_after_each_step_down_to_zero() -> None:
    _, y = chain()
    stepper = viz.BackwardStepper(viz.trace_backward(y), show_memory=True)
    held = [frame["held"] for frame in stepper.frames()]
    # start: exp's and tanh's outputs; after Sum (kept nothing), Tanh, Exp: two, one,
    # none; end: none
    assert held == [16000, 16000, 8000, 0, 0]
    assert stepper.frames()[2]["memory"] == (
        "held for backward: 7.81 kB of 15.62 kB (Tanh.backward has run: 7.81 kB released)"
    )


def test_a_shared_array_is_held_until_its_last_user_has_run() -> None:
    x = Variable(np.ones(N), name="x")
    y = (x.exp() * x).sum()  # Sum keeps nothing; Mul keeps e and x; Exp keeps e
    frames = viz.BackwardStepper(viz.trace_backward(y), show_memory=True).frames()
    assert [frame["counter"] for frame in frames][1:4] == ["step 1 of 3"] + [
        "step 2 of 3", "step 3 of 3"
    ]  # fmt: skip
    # after Sum: e, x; after Mul: e (Exp still needs it); after Exp: nothing
    assert [frame["held"] for frame in frames] == [16000, 16000, 8000, 0, 0]


def test_held_falls_monotonically_to_zero_on_an_mlp() -> None:
    from minitorch import nn

    model = nn.MLP([8, 16, 16, 3], "tanh")
    x = np.random.default_rng(0).normal(size=(5, 8))
    loss = F.softmax_cross_entropy(model(x), np.array([0, 1, 2, 0, 1]))
    graph_total = graph_saved_bytes(walk([loss]))
    trace = viz.trace_backward(loss)
    held = held_per_frame(trace)
    assert held[0] == graph_total > 0
    assert all(a >= b for a, b in zip(held, held[1:]))
    assert held[-2] == held[-1] == 0
    assert len(held) == len(trace) + 2


def test_the_stepper_page_has_the_line_only_with_show_memory() -> None:
    _, y = chain()
    plain = viz.BackwardStepper(viz.trace_backward(y))
    assert "mts-memory" not in plain.to_html() and "held" not in plain.frames()[0]
    _, y = chain()
    shown = viz.BackwardStepper(viz.trace_backward(y), show_memory=True)
    html = shown.to_html()
    assert '<span class="mts-memory-text">held for backward: 15.62 kB, what the' in html
    assert "minitorchMemory(root, parsed)" in html
    assert "saved: 7.81 kB" in shown.dot()  # the Functions' labels in the drawing


def test_widget_bundles_the_memory_script() -> None:
    pytest.importorskip("anywidget")
    from viz.widget import StepperWidget

    assert "function minitorchMemory" in StepperWidget._esm


@requires_renderer
def test_the_gif_of_a_memory_stepper_has_every_frame(tmp_path: Path) -> None:
    pytest.importorskip("PIL")
    from PIL import Image

    _, y = chain()
    stepper = viz.BackwardStepper(viz.trace_backward(y), show_memory=True)
    with Image.open(stepper.save_gif(tmp_path / "memory.gif")) as gif:
        assert gif.n_frames == len(stepper) == 5
