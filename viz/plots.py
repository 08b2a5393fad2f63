"""Matplotlib helpers for the course: training curves, decision boundaries, derivatives.

Each helper returns a ``matplotlib.figure.Figure`` made without ``pyplot`` (no global
figure state, so a notebook shows it exactly once), or draws onto the ``ax`` you pass.

Colours are colour-blind safe: the Okabe–Ito palette (:data:`PALETTE`), and every curve
or class also differs by a second cue that needs no colour at all: its line style and
marker (:func:`series_style`), so green-vs-red never carries the meaning alone.

References:
    B. Wong, "Points of view: Color blindness", Nature Methods 8, 441 (2011) — the
    palette of M. Okabe and K. Ito, "Color Universal Design" (2002).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure

from minitorch import Variable, no_grad

#: The Okabe–Ito colours told apart with every common colour-vision deficiency, in the
#: order used (their yellow is left out: too faint on white).
PALETTE = (
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#000000",  # black
)
#: The palette's vermillion: what the demo marks mistakes with (besides a box and bold).
MISTAKE_COLOUR = "#D55E00"
#: Line styles and markers, the cue that does not need colour (a print in grey, a
#: colour-blind reader): the k-th series gets the k-th of each.
LINESTYLES: tuple[Any, ...] = ("-", "--", "-.", ":", (0, (8, 2, 1, 2, 1, 2)), (0, (3, 1)))
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "h")


def series_style(k: int, n_points: int = 0) -> dict[str, Any]:
    """Matplotlib keyword arguments for the ``k``-th series of a plot (from 0).

    A colour of :data:`PALETTE`, and a line style and marker that differ from those of
    every other series among the first six, so curves stay apart without colour.

    Args:
        k: the series' index.
        n_points: the number of points of the line; with more than 12, a marker is
            drawn about every tenth point only (``markevery``), so markers stay apart.

    Returns:
        ``color``, ``linestyle``, ``marker``, ``markevery`` and ``markersize``.

    Example:
        >>> series_style(1)["color"], series_style(1)["linestyle"], series_style(1)["marker"]
        ('#D55E00', '--', 's')
    """
    every = max(1, n_points // 10) if n_points > 12 else 1
    return {
        "color": PALETTE[k % len(PALETTE)],
        "linestyle": LINESTYLES[k % len(LINESTYLES)],
        "marker": MARKERS[k % len(MARKERS)],
        "markevery": (k * every // 7 % every, every) if every > 1 else None,
        "markersize": 6,
    }


def _history_dict(history: Any) -> dict[str, list[float]]:
    """A ``{name: list of numbers}`` dict from a dict or an object holding lists."""
    items = history.items() if isinstance(history, Mapping) else vars(history).items()
    curves = {}
    for name, values in items:
        if name == "steps":  # the x axis, not a curve
            continue
        if isinstance(values, (Sequence, np.ndarray)) and not isinstance(values, str):
            array = np.asarray(values, dtype=float)
            if array.ndim == 1 and array.size > 0:
                curves[str(name)] = array.tolist()
    return curves


def plot_history(history: Any, *, title: str | None = None, fontsize: float = 13) -> Figure:
    """Plot loss and accuracy curves of a training run, readable on a projector.

    Curves whose name contains ``acc`` go to a second panel on the right, with the y axis
    in percent when every value lies in [0, 1]; every other curve (``loss``,
    ``val_loss`` ...) to the left panel, against the epoch number (``history.steps``
    when it has them, else 1, 2, ...) with integer ticks. Names are shown with spaces
    (``train_accuracy`` -> "train accuracy"); a panel with a single curve gets no legend
    (its title, or its y-axis label, names the curve). NaN entries (a metric logged only every few
    epochs) are skipped, so sparse curves still join their points. The curves of a panel
    differ by colour, line style and marker (:func:`series_style`).

    Args:
        history: a dict of lists (``{"loss": [...], "accuracy": [...]}``), a
            ``minitorch.History``, or an object whose attributes are such lists.
        title: an optional title over the figure.
        fontsize: the size of tick labels and legends in points; titles and axis labels
            are a little larger. The default stays legible when the two-panel figure
            (10 inches wide) is shown 1000 px wide.

    Returns:
        The Figure (one or two panels, 5 inches wide each).

    Raises:
        TypeError: if ``history`` is neither a mapping nor an object with attributes.
        ValueError: if it holds no non-empty 1-D list of numbers.

    Example:
        >>> fig = plot_history({"loss": [1.0, 0.5, 0.3], "accuracy": [0.5, 0.8, 0.9]})
        >>> [ax.get_title() for ax in fig.axes]
        ['loss', 'accuracy']
    """
    from matplotlib.ticker import MaxNLocator, PercentFormatter

    if not isinstance(history, Mapping) and not hasattr(history, "__dict__"):
        raise TypeError(
            f"viz.plot_history: expected a dict of lists or an object with list attributes, "
            f"got {type(history).__name__}"
        )
    curves = _history_dict(history)
    if not curves:
        raise ValueError("viz.plot_history: history holds no list of numbers to plot")
    groups = {
        "loss": {k: v for k, v in curves.items() if "acc" not in k.lower()},
        "accuracy": {k: v for k, v in curves.items() if "acc" in k.lower()},
    }
    panels = [(name, group) for name, group in groups.items() if group]
    fig = Figure(figsize=(5 * len(panels), 4), layout="constrained")
    big = fontsize * 1.15
    for ax, (panel, group) in zip(fig.subplots(1, len(panels), squeeze=False)[0], panels):
        for k, (name, values) in enumerate(group.items()):
            x, y = _epochs(history, len(values)), np.asarray(values)
            keep = np.isfinite(y)
            ax.plot(
                x[keep],
                y[keep],
                linewidth=2,
                label=name.replace("_", " "),
                **series_style(k, int(keep.sum())),
            )
        ax.set_title(panel, fontsize=big)
        ax.set_xlabel("epoch", fontsize=big)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10]))
        every = np.concatenate([np.asarray(v, dtype=float) for v in group.values()])
        finite = every[np.isfinite(every)]
        if panel == "accuracy" and finite.size and finite.min() >= 0 and finite.max() <= 1:
            ax.yaxis.set_major_formatter(PercentFormatter(xmax=1.0, decimals=0))
        if len(group) == 1:  # named by the title, or else on the y axis: no legend
            only = next(iter(group))
            if only != panel:
                ax.set_ylabel(only.replace("_", " "), fontsize=big)
        else:
            ax.legend(fontsize=fontsize)
        ax.tick_params(labelsize=fontsize)
        ax.grid(alpha=0.3)
    if title:
        fig.suptitle(title, fontsize=big * 1.1)
    return fig


def _epochs(history: Any, n: int) -> np.ndarray:
    steps = getattr(history, "steps", None)
    if isinstance(steps, (Sequence, np.ndarray)) and len(steps) == n:
        return np.asarray(steps, dtype=float)
    return np.arange(1, n + 1, dtype=float)


def plot_decision_boundary(
    model_fn: Callable[[np.ndarray], Any],
    X: np.ndarray,
    y: np.ndarray,
    *,
    resolution: int = 200,
    threshold: float = 0.5,
    ax: Axes | None = None,
) -> Figure:
    """Colour the plane by the class a 2-D classifier predicts, with the data on top.

    ``model_fn`` is evaluated on a ``resolution x resolution`` grid covering ``X`` (plus
    a margin), under ``no_grad()``. Scores of shape ``(M, C)`` with ``C > 1`` are turned
    into classes by ``argmax``; a single score per point (``(M,)`` or ``(M, 1)``) gives
    class 1 where it exceeds ``threshold`` (0.5 for probabilities; pass 0.0 for logits).
    Class ``c`` is drawn in the colour and with the marker of :func:`series_style` ``(c)``
    (the colours repeat after seven classes, the markers after nine).

    Args:
        model_fn: maps an ``(M, 2)`` float64 ndarray to scores (ndarray or Variable).
        X: the points, shape ``(N, 2)``.
        y: their integer labels, shape ``(N,)``.
        resolution: grid points per axis.
        threshold: see above.
        ax: draw onto this Axes instead of a new Figure.

    Returns:
        The Figure.

    Raises:
        ValueError: if ``X`` is not ``(N, 2)``, ``y`` not ``(N,)``, or the scores have
            an unexpected shape.

    Example:
        >>> X = np.array([[-1.0, 0.0], [1.0, 0.0]])
        >>> fig = plot_decision_boundary(lambda p: p[:, 0], X, np.array([0, 1]), threshold=0.0)
        >>> len(fig.axes)
        1
    """
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    if X.ndim != 2 or X.shape[1] != 2 or y.shape != (X.shape[0],):
        raise ValueError(
            f"viz.plot_decision_boundary: need X of shape (N, 2) and y of shape (N,), "
            f"got {X.shape} and {y.shape}"
        )
    margin = 0.1 * (X.max(axis=0) - X.min(axis=0)) + 1e-3
    low, high = X.min(axis=0) - margin, X.max(axis=0) + margin
    xx, yy = np.meshgrid(
        np.linspace(low[0], high[0], resolution), np.linspace(low[1], high[1], resolution)
    )
    grid = np.column_stack([xx.ravel(), yy.ravel()])
    classes = _classes(model_fn, grid, threshold).reshape(xx.shape)
    fig = ax.figure if ax is not None else Figure(figsize=(5, 4.5), layout="constrained")
    ax = ax if ax is not None else fig.subplots()
    n_colours = len(PALETTE)
    regions = ListedColormap(PALETTE)
    ax.contourf(
        xx, yy, classes % n_colours, alpha=0.3, cmap=regions, vmin=-0.5,
        vmax=n_colours - 0.5, levels=np.arange(-0.5, n_colours),
    )  # fmt: skip
    for label in np.unique(y):  # one marker shape per class: the cue without colour
        style = series_style(int(label))
        at = y == label
        ax.scatter(
            X[at, 0], X[at, 1], color=style["color"], marker=style["marker"], s=18,
            edgecolors="k", linewidths=0.3, label=f"class {label}",
        )  # fmt: skip
    ax.set_title("decision boundary")
    assert isinstance(fig, Figure)
    return fig


def _classes(
    model_fn: Callable[[np.ndarray], Any], grid: np.ndarray, threshold: float
) -> np.ndarray:
    with no_grad():
        scores = model_fn(grid)
    scores = np.asarray(scores.data if isinstance(scores, Variable) else scores)
    if scores.shape in ((len(grid),), (len(grid), 1)):
        return (scores.reshape(-1) > threshold).astype(int)
    if scores.ndim == 2 and scores.shape[0] == len(grid):
        return scores.argmax(axis=1)
    raise ValueError(
        f"viz.plot_decision_boundary: model_fn returned scores of shape {scores.shape} for "
        f"{len(grid)} points; expected ({len(grid)},), ({len(grid)}, 1) or ({len(grid)}, C)"
    )


def derivatives(f: Callable[[Variable], Variable], x: np.ndarray, n: int) -> list[np.ndarray]:
    """``[f(x), f'(x), ..., f^(n)(x)]`` for an elementwise ``f``, by minitorch's backward.

    Each derivative is the gradient of the previous one, computed with
    ``backward(create_graph=True)`` so that it can be differentiated again (for an
    elementwise ``f``, the gradient of ``sum(f(x))`` is ``f'(x)`` pointwise).

    Args:
        f: an elementwise function of a Variable (``minitorch.ops.tanh``).
        x: the points, a float ndarray.
        n: the highest derivative order (0 or more).

    Returns:
        ``n + 1`` arrays of ``x``'s shape (zeros once a derivative no longer depends on x).

    Raises:
        ValueError: if ``n`` is negative.

    Example:
        >>> import minitorch.ops as F
        >>> [float(d[0]) for d in derivatives(lambda v: v**3, np.array([2.0]), 3)]
        [8.0, 12.0, 12.0, 6.0]

    References:
        S. Saito, *Deep Learning from Scratch 3* (DeZero), steps 33-36: higher-order
        derivatives by differentiating the backward graph.
    """
    if n < 0:
        raise ValueError(f"viz.derivatives: n must be 0 or more, got {n}")
    xv = Variable(np.asarray(x, dtype=float).copy(), name="x")
    current = f(xv)
    values = [np.array(current.data, copy=True)]
    for _ in range(n):
        xv.clear_grad()
        if current.creator is None and current is not xv:  # constant: all further are zero
            values.append(np.zeros_like(values[0]))
            current = Variable(np.zeros_like(values[0]), requires_grad=False)
            continue
        current.backward(create_graph=True)
        grad = xv.grad
        current = (
            grad if grad is not None else Variable(np.zeros_like(values[0]), requires_grad=False)
        )
        values.append(np.array(current.data, copy=True))
    return values


#: Function names that mathtext sets upright as operators (``\tanh``).
_MATH_OPERATORS = frozenset(
    "sin cos tan sinh cosh tanh arcsin arccos arctan exp log ln lg max min det".split()
)


def derivative_label(name: str, order: int) -> str:
    r"""The mathtext label of the ``order``-th derivative of the function ``name``.

    Primes up to the third derivative, then a bracketed superscript (``tanh⁽⁴⁾``); names
    mathtext knows as operators (``tanh``, ``sin``, ``exp`` ...) are set upright as
    such, others upright as text with their special characters escaped.

    Example:
        >>> [derivative_label("tanh", k) for k in (0, 2, 4)]
        ['$\\tanh$', "$\\tanh''$", '$\\tanh^{(4)}$']
        >>> derivative_label("my_f", 1)
        "$\\mathrm{my\\_f}'$"
    """
    if name in _MATH_OPERATORS:
        base = "\\" + name
    else:
        escaped = "".join("\\" + c if c in "_^$%&#{}\\" else c for c in name)
        base = "\\mathrm{" + escaped + "}"
    suffix = "'" * order if order <= 3 else "^{(" + str(order) + ")}"
    return f"${base}{suffix}$"


def plot_derivatives(
    f: Callable[[Variable], Variable],
    x: np.ndarray,
    n: int,
    *,
    name: str = "f",
    ax: Axes | None = None,
    fontsize: float = 12,
) -> Figure:
    r"""Plot an elementwise function with its first ``n`` derivatives (the tanh figure).

    The derivatives come from minitorch itself (see :func:`derivatives`), so the plot
    doubles as a check of the higher-order backward. Each curve has its own colour, line
    style and marker (:func:`series_style`), so they can be told apart without colour.

    Args:
        f: an elementwise function of a Variable, e.g. ``minitorch.ops.tanh``.
        x: 1-D ndarray of points.
        n: how many derivatives to draw.
        name: the function's name in the legend, typeset as math by
            :func:`derivative_label` (``tanh``, ``tanh'``, ``tanh''``, ``tanh'''``,
            then ``tanh`` with a superscript ``(4)``).
        ax: draw onto this Axes instead of a new Figure.
        fontsize: the size of tick labels and the legend, in points.

    Returns:
        The Figure, with ``n + 1`` lines.

    Raises:
        ValueError: if ``x`` is not 1-D or ``n`` is negative.

    Example:
        >>> import minitorch.ops as F
        >>> fig = plot_derivatives(F.tanh, np.linspace(-3, 3, 50), 2, name="tanh")
        >>> [line.get_label() for line in fig.axes[0].lines]
        ['$\\tanh$', "$\\tanh'$", "$\\tanh''$"]
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 1:
        raise ValueError(f"viz.plot_derivatives: x must be 1-D, got shape {x.shape}")
    values = derivatives(f, x, n)
    fig = ax.figure if ax is not None else Figure(figsize=(6, 4), layout="constrained")
    ax = ax if ax is not None else fig.subplots()
    for order, value in enumerate(values):
        style = series_style(order, len(x))
        ax.plot(x, value, label=derivative_label(name, order), linewidth=2, **style)
    ax.grid(alpha=0.3)
    ax.set_xlabel("$x$", fontsize=fontsize * 1.15)
    ax.tick_params(labelsize=fontsize)
    # Beside the plot, not on it: inside, it hid the curves' peaks.
    ax.legend(fontsize=fontsize, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    ax.set_title(f"{name} and its first {n} derivatives, by backward", fontsize=fontsize * 1.15)
    assert isinstance(fig, Figure)
    return fig
