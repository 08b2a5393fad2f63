"""Matplotlib pictures for the course notebooks (07-11): small, tested, readable.

* :func:`annotated_heatmap` — a grid of numbers whose text colour follows the cell's
  brightness (dark text on light cells), so no label disappears;
* :func:`diverging_image` — weights shown with a diverging map whose limits are symmetric
  about 0 (white means exactly zero) and a colour bar;
* :func:`draw_im2col`, :func:`draw_maxpool_backward`, :func:`draw_unrolled_rnn` — the
  pictures of notebooks 11 and 11b.
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib import colors
from matplotlib.patches import FancyArrowPatch, Rectangle


def text_color(rgba: Any) -> str:
    """``"black"`` on a light background colour, ``"white"`` on a dark one.

    Uses the relative luminance of sRGB (WCAG 2.1): ``0.2126 R + 0.7152 G + 0.0722 B``
    on linearised channels; the threshold 0.179 gives the better contrast of the two.

    Example:
        >>> text_color((1.0, 1.0, 0.0, 1.0)), text_color((0.1, 0.0, 0.3, 1.0))
        ('black', 'white')
    """
    r, g, b = (float(c) for c in colors.to_rgb(rgba))

    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    luminance = 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
    return "black" if luminance > 0.179 else "white"


def annotated_heatmap(
    ax: Any,
    values: np.ndarray,
    cmap: str = "viridis",
    fmt: str = "{:.1f}",
    fontsize: int = 8,
    vmin: float | None = None,
    vmax: float | None = None,
) -> list[Any]:
    """Show a 2-D array as coloured cells with each value written in a readable colour.

    Returns the text objects (one per cell), so tests can check their colours.
    """
    values = np.atleast_2d(np.asarray(values, dtype=float))
    lo = float(values.min()) if vmin is None else vmin
    hi = float(values.max()) if vmax is None else vmax
    norm = colors.Normalize(vmin=lo, vmax=hi if hi > lo else lo + 1.0)
    colormap = plt.get_cmap(cmap)
    ax.imshow(values, cmap=colormap, norm=norm)
    texts = []
    for (i, j), v in np.ndenumerate(values):
        color = text_color(colormap(norm(v)))
        texts.append(
            ax.text(j, i, fmt.format(v), ha="center", va="center", color=color, fontsize=fontsize)
        )
    ax.set_xticks([])
    ax.set_yticks([])
    return texts


def symmetric_limits(values: np.ndarray) -> tuple[float, float]:
    """``(-m, m)`` with ``m`` the largest absolute value (``(-1, 1)`` for all zeros).

    Example:
        >>> symmetric_limits(np.array([-0.5, 2.0]))
        (-2.0, 2.0)
    """
    m = float(np.max(np.abs(values))) if np.size(values) else 0.0
    m = m if m > 0 else 1.0
    return -m, m


def diverging_image(
    ax: Any, values: np.ndarray, limit: float | None = None, cmap: str = "RdBu_r"
) -> Any:
    """Show signed values with a diverging map, white at exactly 0, red positive.

    ``limit`` sets the colour scale to ``[-limit, limit]`` (shared between panels so
    that colours compare); by default the largest absolute value. Returns the image, for
    ``fig.colorbar``.
    """
    lo, hi = symmetric_limits(values) if limit is None else (-limit, limit)
    image = ax.imshow(values, cmap=cmap, vmin=lo, vmax=hi)
    ax.set_xticks([])
    ax.set_yticks([])
    return image


def draw_im2col(image: np.ndarray, k: int, window: tuple[int, int] = (1, 0)) -> Any:
    """The image with one k x k window outlined, and the im2col matrix with its column.

    Column ``i * W_out + j`` of the matrix holds window ``(i, j)`` flattened row by row;
    the filter, flattened the same way, is one row, so a convolution is one product.
    """
    h, w = image.shape
    ow = w - k + 1
    col = np.stack(
        [image[i : i + k, j : j + k].ravel() for i in range(h - k + 1) for j in range(ow)], axis=1
    )
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.4), gridspec_kw={"width_ratios": [1, 2.2]})
    annotated_heatmap(ax1, image, cmap="Blues", fmt="{:.0f}")
    i, j = window
    ax1.add_patch(Rectangle((j - 0.5, i - 0.5), k, k, fill=False, edgecolor="crimson", lw=2.5))
    ax1.set_title(f"image {h}x{w}: window ({i}, {j}) of size {k}x{k}", fontsize=9)
    annotated_heatmap(ax2, col, cmap="Blues", fmt="{:.0f}", fontsize=7)
    c = i * ow + j
    ax2.add_patch(Rectangle((c - 0.5, -0.5), 1, k * k, fill=False, edgecolor="crimson", lw=2.5))
    ax2.set_title(
        f"im2col: {k * k} rows (one per filter weight) x {col.shape[1]} columns "
        f"(one per window); window ({i}, {j}) is column {c}",
        fontsize=9,
    )
    ax2.set_xlabel("window index i * W_out + j", fontsize=8)
    fig.tight_layout()
    return fig


def draw_maxpool_backward(x: np.ndarray, gy: np.ndarray, k: int = 2) -> Any:
    """Max-pool forward on ``x`` and its backward: each ``gy`` goes to its window's argmax."""
    h, w = x.shape
    y = x.reshape(h // k, k, w // k, k).max(axis=(1, 3))
    gx = np.zeros_like(x, dtype=float)
    winners = []
    for a in range(h // k):
        for b in range(w // k):
            block = x[a * k : (a + 1) * k, b * k : (b + 1) * k]
            r, c = np.unravel_index(np.argmax(block), block.shape)
            gx[a * k + r, b * k + c] = gy[a, b]
            winners.append((a * k + r, b * k + c))
    fig, axes = plt.subplots(1, 4, figsize=(10, 2.9), gridspec_kw={"width_ratios": [2, 1, 1, 2]})
    panels = [
        (x, f"x ({h}x{w})"),
        (y, f"max_pool2d(x, {k})"),
        (gy, "incoming gy"),
        (gx, "x.grad: gy at each argmax"),
    ]
    for ax, (values, title) in zip(axes, panels):
        annotated_heatmap(ax, values, cmap="Greens", fmt="{:g}")
        ax.set_title(title, fontsize=9)
    for ax in (axes[0], axes[3]):
        for r, c in winners:
            ax.add_patch(
                Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, edgecolor="crimson", lw=2)
            )
        for t in range(1, h // k):
            ax.axhline(t * k - 0.5, color="black", lw=1.5)
        for t in range(1, w // k):
            ax.axvline(t * k - 0.5, color="black", lw=1.5)
    fig.tight_layout()
    return fig


def draw_unrolled_rnn(steps: int = 9, bptt: int = 3) -> Any:
    """An RNN unrolled over ``steps`` time steps, the graph cut every ``bptt`` steps.

    Grey arrows: the forward pass (the state's value flows on across a cut). Red arrows:
    the backward pass, which stops at each cut (``unchain_backward``).
    """
    fig, ax = plt.subplots(figsize=(10, 3.1))
    for t in range(steps):
        ax.add_patch(Rectangle((t * 1.2, 1.0), 0.8, 0.8, facecolor="#cfe3f3", edgecolor="black"))
        ax.text(t * 1.2 + 0.4, 1.4, f"cell\nt={t}", ha="center", va="center", fontsize=8)
        ax.text(t * 1.2 + 0.4, 0.35, f"x{t}", ha="center", fontsize=8)
        ax.add_patch(
            FancyArrowPatch(
                (t * 1.2 + 0.4, 0.55),
                (t * 1.2 + 0.4, 1.0),
                arrowstyle="->",
                mutation_scale=10,
                color="gray",
            )
        )
        ax.text(t * 1.2 + 0.4, 2.25, f"loss{t}", ha="center", fontsize=8)
        ax.add_patch(
            FancyArrowPatch(
                (t * 1.2 + 0.4, 1.8),
                (t * 1.2 + 0.4, 2.2),
                arrowstyle="->",
                mutation_scale=10,
                color="gray",
            )
        )
        if t + 1 < steps:
            ax.add_patch(
                FancyArrowPatch(
                    (t * 1.2 + 0.8, 1.55),
                    (t * 1.2 + 1.2, 1.55),
                    arrowstyle="->",
                    mutation_scale=10,
                    color="gray",
                )
            )
            cut = (t + 1) % bptt == 0
            if cut:
                x = t * 1.2 + 1.0
                ax.plot([x, x], [0.75, 2.05], ls="--", color="crimson", lw=1.5)
                ax.text(x, 2.55, "cut", color="crimson", ha="center", fontsize=8)
            else:
                ax.add_patch(
                    FancyArrowPatch(
                        (t * 1.2 + 1.2, 1.25),
                        (t * 1.2 + 0.8, 1.25),
                        arrowstyle="->",
                        mutation_scale=10,
                        color="crimson",
                    )
                )
    ax.text(
        0,
        -0.2,
        f"grey: forward (h carries on across a cut); red: backward, "
        f"truncated every {bptt} steps by unchain_backward()",
        fontsize=8,
    )
    ax.set_xlim(-0.3, steps * 1.2)
    ax.set_ylim(-0.4, 2.8)
    ax.axis("off")
    ax.set_title(
        "an RNN unrolled in time, with truncated backpropagation through time", fontsize=10
    )
    fig.tight_layout()
    return fig
