"""viz.plots: the data drawn is the data given (curves, classes, derivatives)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import minitorch.ops as F
from minitorch import Variable
from viz.plots import derivatives, plot_decision_boundary, plot_derivatives, plot_history


def test_history_dict_puts_loss_and_accuracy_in_two_panels() -> None:
    fig = plot_history(
        {"loss": [3.0, 2.0, 1.0], "val_loss": [3.5, 2.5, 2.0], "acc": [0.1, 0.5, 0.7]}
    )
    loss_ax, acc_ax = fig.axes
    assert [line.get_label() for line in loss_ax.lines] == ["loss", "val loss"]
    np.testing.assert_array_equal(loss_ax.lines[1].get_ydata(), [3.5, 2.5, 2.0])
    np.testing.assert_array_equal(loss_ax.lines[0].get_xdata(), [1, 2, 3])
    np.testing.assert_array_equal(acc_ax.lines[0].get_ydata(), [0.1, 0.5, 0.7])


def test_history_object_with_list_attributes() -> None:
    history = SimpleNamespace(loss=[1.0, 0.5], note="not a curve", epochs=2)
    fig = plot_history(history, title="run 1")
    (ax,) = fig.axes
    assert [line.get_label() for line in ax.lines] == ["loss"]


def test_history_errors() -> None:
    with pytest.raises(ValueError, match="no list of numbers"):
        plot_history({"loss": []})
    with pytest.raises(TypeError, match="dict of lists"):
        plot_history(3.0)


def test_decision_boundary_colours_by_the_models_class() -> None:
    X = np.array([[-1.0, -1.0], [1.0, 1.0], [2.0, -1.0]])
    y = np.array([0, 1, 1])

    def model_fn(points: np.ndarray) -> Variable:  # two logits: class 1 where x0 > 0
        return Variable(np.column_stack([-points[:, 0], points[:, 0]]))

    fig = plot_decision_boundary(model_fn, X, y, resolution=21)
    (ax,) = fig.axes
    contour, *scatters = ax.collections
    assert [s.get_label() for s in scatters] == ["class 0", "class 1"]  # one per class
    np.testing.assert_array_equal(scatters[0].get_offsets(), X[y == 0])
    np.testing.assert_array_equal(scatters[1].get_offsets(), X[y == 1])
    assert contour not in scatters


def test_decision_boundary_threshold_and_shape_errors() -> None:
    X = np.array([[-1.0, 0.0], [1.0, 0.0]])
    plot_decision_boundary(lambda p: 1 / (1 + np.exp(-p[:, :1])), X, np.array([0, 1]))
    with pytest.raises(ValueError, match=r"\(N, 2\)"):
        plot_decision_boundary(lambda p: p, np.zeros((3, 3)), np.zeros(3))
    with pytest.raises(ValueError, match="scores of shape"):
        plot_decision_boundary(lambda p: np.zeros(5), X, np.array([0, 1]))


def test_tanh_derivatives_match_the_closed_forms() -> None:
    x = np.linspace(-2.5, 2.5, 41)
    t = np.tanh(x)
    expected = [t, 1 - t**2, -2 * t * (1 - t**2), (1 - t**2) * (6 * t**2 - 2)]
    for got, want in zip(derivatives(F.tanh, x, 3), expected):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_polynomial_derivatives_reach_zero() -> None:
    values = derivatives(lambda v: v**3, np.array([2.0, -1.0]), 5)
    np.testing.assert_allclose(
        np.array(values), [[8, -1], [12, 3], [12, -6], [6, 6], [0, 0], [0, 0]]
    )


def test_plot_derivatives_draws_them() -> None:
    x = np.linspace(-3, 3, 25)
    fig = plot_derivatives(F.tanh, x, 2, name="tanh")
    lines = fig.axes[0].lines
    assert [line.get_label() for line in lines] == ["$\\tanh$", "$\\tanh'$", "$\\tanh''$"]
    np.testing.assert_allclose(lines[1].get_ydata(), 1 - np.tanh(x) ** 2, rtol=1e-10)
    with pytest.raises(ValueError, match="1-D"):
        plot_derivatives(F.tanh, np.zeros((2, 2)), 1)
    with pytest.raises(ValueError, match="n must be"):
        derivatives(F.tanh, x, -1)


def test_history_with_steps_and_sparse_metrics() -> None:
    history = SimpleNamespace(
        steps=[10, 20, 30], loss=[1.0, 0.6, 0.4], acc=[float("nan"), 0.5, 0.8]
    )
    loss_ax, acc_ax = plot_history(history).axes
    np.testing.assert_array_equal(loss_ax.lines[0].get_xdata(), [10, 20, 30])
    np.testing.assert_array_equal(acc_ax.lines[0].get_xdata(), [20, 30])
    np.testing.assert_array_equal(acc_ax.lines[0].get_ydata(), [0.5, 0.8])
    assert [line.get_label() for line in loss_ax.lines] == ["loss"]


def test_minitorch_history_is_plotted() -> None:
    minitorch = pytest.importorskip("minitorch")
    if not hasattr(minitorch, "History"):
        pytest.skip("minitorch.History is not available")
    history = minitorch.History()
    history.log(epoch=1, loss=0.9)
    history.log(epoch=2, loss=0.5, accuracy=0.75)
    loss_ax, acc_ax = plot_history(history).axes
    np.testing.assert_array_equal(loss_ax.lines[0].get_ydata(), [0.9, 0.5])
    np.testing.assert_array_equal(acc_ax.lines[0].get_xdata(), [2])


def test_history_is_readable_on_a_projector() -> None:
    from matplotlib.ticker import PercentFormatter

    history = {"loss": [1.0, 0.5, 0.3, 0.2], "train_accuracy": [0.5, 0.8, 0.9, 0.95]}
    history["test_accuracy"] = [0.4, 0.7, 0.85, 0.9]
    fig = plot_history(history)
    loss_ax, acc_ax = fig.axes
    assert all(float(t).is_integer() for t in loss_ax.get_xticks())  # whole epochs only
    assert isinstance(acc_ax.yaxis.get_major_formatter(), PercentFormatter)
    assert acc_ax.yaxis.get_major_formatter()(0.9, 0) == "90%"
    legend = acc_ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["train accuracy", "test accuracy"]
    assert loss_ax.get_legend() is None  # one curve, named by the title: no legend
    fig.set_dpi(100)
    width_px = fig.get_figwidth() * 100
    assert width_px == 1000
    # at 1000 px the smallest text (tick labels) is at least 13 pt, ~1.8% of the width
    assert min(label.get_fontsize() for label in loss_ax.get_xticklabels()) >= 13


def test_derivative_labels_are_mathtext() -> None:
    from matplotlib.mathtext import MathTextParser

    from viz.plots import derivative_label

    labels = [derivative_label("tanh", k) for k in range(6)]
    assert labels[4] == "$\\tanh^{(4)}$" and labels[3] == "$\\tanh'''$"
    parser = MathTextParser("path")
    for label in [*labels, derivative_label("my_f$", 2)]:
        parser.parse(label)  # raises ValueError for invalid mathtext


# The Okabe–Ito colours (B. Wong, Nature Methods 8, 441, 2011), written out here rather
# than read from viz.plots, so the test checks the palette too.
OKABE_ITO = {
    "#000000", "#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7",
}  # fmt: skip


def hex_colour(colour: object) -> str:
    from matplotlib.colors import to_hex

    return to_hex(colour).lower()  # type: ignore[arg-type]


def assert_colour_blind_safe(lines: list) -> None:
    """Okabe–Ito colours, all different, and a second cue: no two share style and marker."""
    colours = [hex_colour(line.get_color()) for line in lines]
    assert set(colours) <= OKABE_ITO, colours
    assert len(set(colours)) == len(lines)
    cues = {(str(line.get_linestyle()), str(line.get_marker())) for line in lines}
    assert len(cues) == len(lines), cues  # apart without any colour
    assert all(line.get_marker() not in (None, "", "None") for line in lines)


def test_derivative_curves_differ_by_more_than_colour() -> None:
    fig = plot_derivatives(F.tanh, np.linspace(-3, 3, 201), 4, name="tanh")
    lines = fig.axes[0].lines
    assert len(lines) == 5
    assert_colour_blind_safe(lines)
    markevery = lines[0].get_markevery()  # a few markers on a dense curve, not 201
    assert markevery is not None and markevery[1] >= 10
    legend_lines = fig.axes[0].get_legend().get_lines()  # the legend shows the same cues
    assert [str(h.get_linestyle()) for h in legend_lines] == [
        str(line.get_linestyle()) for line in lines
    ]


def test_history_curves_differ_by_more_than_colour() -> None:
    history = {"loss": [1.0, 0.5, 0.3], "val_loss": [1.2, 0.7, 0.6]}
    history |= {"train_accuracy": [0.5, 0.8, 0.9], "test_accuracy": [0.4, 0.7, 0.8]}
    for ax in plot_history(history).axes:
        assert_colour_blind_safe(ax.lines)


def test_decision_boundary_classes_differ_by_marker_and_safe_colour() -> None:
    X = np.array([[-1.0, -1.0], [1.0, 1.0], [2.0, -1.0], [0.0, 2.0]])
    y = np.array([0, 1, 2, 3])
    (ax,) = plot_decision_boundary(lambda p: np.eye(4)[np.arange(len(p)) % 4], X, y).axes
    scatters = ax.collections[1:]
    colours = [hex_colour(s.get_facecolor()[0]) for s in scatters]
    assert set(colours) <= OKABE_ITO and len(set(colours)) == 4
    shapes = {tuple(map(tuple, s.get_paths()[0].vertices.round(3))) for s in scatters}
    assert len(shapes) == 4  # four marker shapes
    regions = ax.collections[0].get_cmap()
    assert {hex_colour(regions(k)) for k in range(regions.N)} <= OKABE_ITO
