"""The pictures of ``make demo``: what autograd did while the network learned.

Each function writes one file of ``build/demo/`` (see :mod:`examples.demo`) and returns
its path: the graphs through ``viz.render`` (or as DOT text when no Graphviz renderer,
neither ``dot`` nor ``graphviz-pure``, is installed), the backward stepper through
``viz.BackwardStepper``, the curves through the ``viz`` plot helpers, and the grid of
predicted digits with matplotlib directly.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

import minitorch.ops as F
import viz
from minitorch import History, Variable, nn

if TYPE_CHECKING:  # examples.demo imports this module at run time, not the other way
    from matplotlib.figure import Figure

    from examples.demo import Task

INSTALL_DOT = """\
NOTE: no Graphviz renderer was found, so the graphs were written as DOT text
      (.dot files; backward.html shows DOT text too). Get the pictures with
        pip install graphviz-pure      (what `make venv` installs; no admin rights needed)
      or the system Graphviz:
        Debian/Ubuntu: sudo apt-get install graphviz
        macOS:         brew install graphviz
        conda:         conda install -c conda-forge graphviz
      then run the demo again."""


def dot_available() -> bool:
    """Whether a Graphviz renderer runs: the system ``dot`` or the ``graphviz-pure`` wheel.

    (The name is historical: ``graphviz-pure`` counts too; see :mod:`viz.renderer`.)

    Returns:
        ``True`` if :func:`viz.get_renderer` finds a renderer and it answers ``-V``.

    Example:
        >>> isinstance(dot_available(), bool)
        True
    """
    import subprocess

    try:
        program = viz.get_renderer().program
        subprocess.run([program, "-V"], capture_output=True, check=True, timeout=60)
    except Exception:  # viz.GraphvizNotFoundError, a broken install, ...
        return False
    return True


def write_graph(output: Variable, path: Path, have_dot: bool, **opts: Any) -> Path:
    """Render ``output``'s graph to ``path`` (SVG), or its DOT text beside it without ``dot``.

    Args:
        output: the Variable whose graph is drawn.
        path: the ``.svg`` file to write.
        have_dot: whether a Graphviz renderer runs (:func:`dot_available`); if not, the
            DOT source goes to ``path`` with the suffix ``.dot``.
        **opts: keyword arguments of ``viz.to_dot`` (``module``, ``legend``, ...).

    Returns:
        The path written.

    Raises:
        FileNotFoundError: if the folder of ``path`` does not exist.

    Example:
        >>> import tempfile
        >>> x = Variable(np.array(0.5), name="x")
        >>> folder = Path(tempfile.mkdtemp())
        >>> write_graph(F.tanh(x), folder / "g.svg", have_dot=False).name
        'g.dot'
    """
    return viz.render(output, path if have_dot else path.with_suffix(".dot"), **opts)


def batch_loss(model: nn.Module, prepare: Callable, x: np.ndarray, t: np.ndarray) -> Variable:
    """The mean cross-entropy of one batch, with the input and the loss named for drawing.

    Shapes:
        ``x`` ``(B, ...)``, ``t`` ``(B,)`` -> a 0-d Variable.
    """
    model.train()
    inputs = Variable(prepare(x), name="x", requires_grad=False)
    targets = Variable(t, name="t", requires_grad=False)  # named, so the graph says "t"
    loss = F.softmax_cross_entropy(model(inputs), targets)
    loss.name = "loss"
    return loss


def draw_loss_graph(
    model: nn.Module, prepare: Callable, task: Task, out: Path, have_dot: bool
) -> Path:
    """``loss_graph.svg``: the graph of a 32-sample loss, parameters named and grouped by layer.

    Returns:
        The path written (``loss_graph.dot`` when ``have_dot`` is False).
    """
    loss = batch_loss(model, prepare, task.x_test[:32], task.t_test[:32])
    opts = {"module": model, "group_modules": True, "legend": True}
    return write_graph(loss, out / "loss_graph.svg", have_dot, **opts)


def save_backward_stepper(
    model: nn.Module, prepare: Callable, x: np.ndarray, t: np.ndarray, out: Path
) -> Path:
    """``backward.html``: the backward pass of the untrained network's first batch.

    Called before training: an untrained network's gradients are large and varied,
    where a trained one's are all close to zero, so each step shows more. The page
    applies one step at a time to one fixed drawing (see ``viz.BackwardStepper``). The
    gradients this backward adds to the parameters are cleared again afterwards, so
    training starts exactly as it would without the page.

    Shapes:
        ``x`` ``(B, ...)``, ``t`` ``(B,)``: the first mini-batch the training will see.

    Returns:
        The path written (``out / "backward.html"``).
    """
    loss = batch_loss(model, prepare, x, t)
    model.zero_grad()
    title = (
        f"The backward pass of the untrained network's first batch ({len(t)} samples): "
        "loss = softmax cross-entropy of its predictions"
    )
    stepper = viz.BackwardStepper(viz.trace_backward(loss), title=title)
    model.zero_grad()
    path = out / "backward.html"
    stepper.save_html(path)
    return path


def tanh_second_derivative() -> Variable:
    """d²tanh/dx² at x = 1 by two ``backward(create_graph=True)`` passes, as a Variable.

    The result keeps the graph that the first backward built, so drawing it shows which
    nodes backward created (``Function.created_in_backward``).

    Returns:
        A 0-d float64 Variable named ``d2y/dx2``: ``-2 tanh(1) (1 - tanh(1)^2)``.

    Example:
        >>> round(float(tanh_second_derivative().data), 6)
        -0.6397

    References:
        K. Saitoh, *Deep Learning from Scratch 3* (DeZero), steps 33-36.
    """
    x = Variable(np.array(1.0), name="x")
    y = F.tanh(x)
    y.name = "y"
    y.backward(create_graph=True)
    gx = x.grad
    assert gx is not None
    x.clear_grad()
    gx.backward(create_graph=True)
    gx2 = x.grad
    assert gx2 is not None
    gx2.name = "d2y/dx2"
    return gx2


#: Pixels per inch of the demo's PNGs: its 8-inch-wide figures become 1280 px wide,
#: the width of a 1280×720 projector, so nothing is scaled up (and blurred) there.
PNG_DPI = 160
#: The size of the digit labels of ``predictions.png``, in points: with 8 digits a row,
#: large enough to read on a projector (a 26-px-high line at 1280 px), small enough that
#: a bold ``7 (2)`` keeps clear of its neighbours.
LABEL_SIZE = 16


def predictions_figure(task: Task, predicted: np.ndarray) -> Figure:
    """32 test images labelled ``predicted (true)``; mistakes boxed, bold and vermillion.

    Up to 8 of the shown digits are mistakes (if the model made any), so the grid shows
    both what the network gets right and where it goes wrong. A mistake differs by three
    cues, not by colour alone: its label is bold and in the colour-blind-safe vermillion
    of ``viz.plots.MISTAKE_COLOUR`` (the rest is black), and its digit is boxed. The
    digits are pasted into one mosaic image (one Axes instead of 32 keeps it fast).

    Shapes:
        ``predicted`` ``(N,)`` int, as ``task.t_test``.

    Returns:
        The Figure, 8 × 5 inches (1280 × 800 px at :data:`PNG_DPI`).
    """
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    from viz.plots import MISTAKE_COLOUR

    assert task.image_shape is not None
    height, width = task.image_shape
    wrong = np.flatnonzero(predicted != task.t_test)[:8]
    right = np.flatnonzero(predicted == task.t_test)[: 32 - len(wrong)]
    shown = np.sort(np.concatenate([wrong, right]))
    cell_h, cell_w = height * 7 // 4, width * 5 // 4  # room for the label above each digit
    mosaic = np.zeros((4 * cell_h, 8 * cell_w), dtype=np.float32)
    fig = Figure(figsize=(8, 5), layout="constrained")
    ax = fig.subplots()
    for k, i in enumerate(shown):
        top, left = (k // 8) * cell_h + cell_h - height, (k % 8) * cell_w
        mosaic[top : top + height, left : left + width] = task.x_test[i].reshape(height, width)
        mistake = bool(predicted[i] != task.t_test[i])
        ax.text(
            left + width / 2 - 0.5,
            top - 0.7,
            f"{predicted[i]} ({task.t_test[i]})",
            color=MISTAKE_COLOUR if mistake else "black",
            fontweight="bold" if mistake else "normal",
            ha="center",
            va="bottom",
            fontsize=LABEL_SIZE,
        )
        if mistake:
            box = Rectangle(
                (left - 0.5, top - 0.5), width, height, fill=False,
                edgecolor=MISTAKE_COLOUR, linewidth=3,
            )  # fmt: skip
            ax.add_patch(box)
    ax.imshow(mosaic, cmap="gray_r", vmin=0.0, vmax=1.0, interpolation="nearest")
    ax.set_axis_off()
    ax.set_title("predicted (true) labels of test digits; mistakes boxed", fontsize=LABEL_SIZE)
    return fig


def plot_predictions(task: Task, predicted: np.ndarray, path: Path) -> Path:
    """``predictions.png``: :func:`predictions_figure`, 1280 px wide."""
    predictions_figure(task, predicted).savefig(path, dpi=PNG_DPI)
    return path


def plot_training(history: History, path: Path) -> Path:
    """``training.png``: loss and accuracies per epoch (``viz.plot_history``)."""
    final = history.last("test_accuracy")
    title = f"{len(history.steps)} epochs of Adam: final test accuracy {final:.1%}"
    viz.plot_history(history, title=title).savefig(path, dpi=PNG_DPI * 0.8)  # 10 in: 1280 px
    return path


def plot_outcome(
    model: nn.Module, prepare: Callable, task: Task, predicted: np.ndarray, path: Path
) -> Path:
    """``predictions.png``: labelled test images, or the spiral's decision regions."""
    if task.image_shape is not None:
        return plot_predictions(task, predicted, path)
    spiral_figure(model, prepare, task).savefig(path, dpi=PNG_DPI)
    return path


def spiral_figure(model: nn.Module, prepare: Callable, task: Task) -> Figure:
    """The spiral's test points on the regions the model predicts, with a key beside them.

    8 × 4.5 inches, 1280 × 720 px at :data:`PNG_DPI` — a 1280×720 projector's whole
    screen, like the demo's other PNGs: the plane is drawn to scale (a round spiral
    stays round) on the left, and the width left over holds the key in large type.

    Returns:
        The Figure.
    """
    from matplotlib.figure import Figure

    model.eval()
    fig = Figure(figsize=(8, 4.5), layout="constrained")
    ax = fig.subplots()
    viz.plot_decision_boundary(
        lambda points: model(prepare(points.astype(np.float32))), task.x_test, task.t_test,
        ax=ax,
    )  # fmt: skip
    ax.set_aspect("equal")
    ax.set_title("spiral test points on the predicted regions", fontsize=LABEL_SIZE)
    ax.tick_params(labelsize=13)
    ax.legend(
        loc="center left", bbox_to_anchor=(1.04, 0.5), fontsize=LABEL_SIZE, markerscale=2.0,
        title="marker: true class\nshading: predicted", title_fontsize=LABEL_SIZE - 2,
        frameon=False,
    )  # fmt: skip
    return fig


def plot_tanh(path: Path) -> Path:
    """``tanh_derivatives.png``: tanh and its first four derivatives, all by backward."""
    fig = viz.plot_derivatives(F.tanh, np.linspace(-5.0, 5.0, 201), 4, name="tanh", fontsize=13)
    fig.set_size_inches(8, 5)
    fig.axes[0].set_title(
        "tanh and 4 derivatives, each the backward of the previous one", fontsize=14
    )
    fig.savefig(path, dpi=PNG_DPI)
    return path


def draw_pictures(
    model: nn.Module,
    prepare: Callable,
    task: Task,
    history: History,
    predicted: np.ndarray,
    out: Path,
    have_dot: bool,
) -> None:
    """Write every output file into ``out`` (created if needed), printing each path."""
    out.mkdir(parents=True, exist_ok=True)
    steps: list[Callable[[], Path]] = [
        lambda: draw_loss_graph(model, prepare, task, out, have_dot),
        lambda: plot_training(history, out / "training.png"),
        lambda: plot_outcome(model, prepare, task, predicted, out / "predictions.png"),
        lambda: plot_tanh(out / "tanh_derivatives.png"),
        lambda: write_graph(
            tanh_second_derivative(),
            out / "tanh_grad_graph.svg",
            have_dot,
            legend=True,
            show_values=True,
        ),
    ]
    for step in steps:
        print(f"  wrote {step()}")
