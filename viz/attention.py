"""Attention weights as heatmaps: one panel per head, the tokens on the axes.

Row ``i`` of a panel is what query token ``i`` looks at: the softmax weights over the key
tokens, which add up to 1. A causal mask shows as the empty upper triangle; those cells
(weight exactly 0, which a softmax gives only to masked keys) are drawn hatched in light
grey, so "masked" never depends on telling two shades apart.

The figure is made without ``pyplot`` (as in :mod:`viz.plots`) and sized to fit a 1280×720
slide (12.8 × 7.2 inches at 100 dpi), with labels in points large enough to read there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

#: How a token is written on an axis: whitespace made visible.
VISIBLE = {" ": "␣", "\n": "⏎", "\t": "⇥"}


def token_label(token: Any) -> str:
    """Return ``token`` as an axis label, its spaces and newlines made visible.

    Example:
        >>> token_label(" the"), token_label("\\n"), token_label(7)
        ('␣the', '⏎', '7')
    """
    text = str(token)
    return "".join(VISIBLE.get(ch, ch) for ch in text) if text else "∅"


def _weights(weights: Any) -> np.ndarray:
    """The weights as a float64 array ``(heads, T, S)``; a batch of one is dropped."""
    data = np.asarray(getattr(weights, "data", weights), dtype=np.float64)
    if data.ndim == 4 and data.shape[0] == 1:
        data = data[0]
    if data.ndim == 2:
        data = data[None]
    if data.ndim != 3 or 0 in data.shape:
        raise ValueError(
            "viz.attention_heatmap: expected weights of shape (T, S) or (heads, T, S) "
            f"(the weights nn.MultiheadAttention returns, one sequence), got {data.shape}; "
            "for a batch, pass one sequence: weights[0]"
        )
    return data


def _labels(tokens: Sequence[Any] | None, n: int, what: str) -> list[str]:
    if tokens is None:
        return [str(k) for k in range(n)]
    if isinstance(tokens, str):
        tokens = list(tokens)  # a string of characters: one token each
    labels = [token_label(t) for t in tokens]
    if len(labels) != n:
        raise ValueError(
            f"viz.attention_heatmap: {len(labels)} {what} tokens for {n} {what} positions"
        )
    return labels


def attention_heatmap(
    weights: Any,
    tokens: Sequence[Any] | str | None = None,
    *,
    query_tokens: Sequence[Any] | str | None = None,
    head_names: Sequence[str] | None = None,
    title: str | None = None,
    annotate: bool | None = None,
    fontsize: float = 14,
    cmap: str = "viridis",
    columns: int = 4,
) -> Figure:
    """Draw attention weights as heatmaps, one panel per head, tokens on the axes.

    Shapes:
        weights ``(T, S)`` (one head, or the heads averaged), ``(heads, T, S)`` or
        ``(1, heads, T, S)``: row = query position, column = key position.

    Args:
        weights: a Variable or an array; what ``nn.MultiheadAttention`` returns for one
            sequence (``average_attn_weights=False`` for one panel per head).
        tokens: the key tokens (a list, or a string: one character each), written under
            the columns; also the query tokens unless ``query_tokens`` is given
            (self-attention). ``None`` numbers the positions.
        query_tokens: the query tokens, written beside the rows, when ``T != S``.
        head_names: one title per panel; default ``"head 0"``, ``"head 1"``, ...
            (``"attention"`` for a single panel).
        title: a title over the figure.
        annotate: write each weight in its cell (two decimals); default when the
            cells are large enough for 8-point numbers.
        fontsize: tick labels in points; titles a little larger, the numbers smaller.
        cmap: a sequential matplotlib colour map (viridis is colour-blind safe and
            stays ordered in grey).
        columns: panels per row.

    Returns:
        A matplotlib Figure that fits 12.8 × 7.2 inches (1280×720 at 100 dpi), a
        panel per head (``columns`` to a row), one shared colour bar from 0 to 1. Weights
        that are exactly 0 (masked keys) are hatched grey, not coloured.

    Raises:
        ValueError: for weights that are not 2-, 3- or (batch of one) 4-dimensional, or
            token lists whose length does not match the weights.

    Example:
        >>> import numpy as np
        >>> w = np.tril(np.ones((3, 3))) / np.arange(1, 4)[:, None]
        >>> fig = attention_heatmap(w, tokens="abc")
        >>> [t.get_text() for t in fig.axes[0].get_xticklabels()]
        ['a', 'b', 'c']
    """
    data = _weights(weights)
    heads, t, s = data.shape
    if query_tokens is None and tokens is not None and t != s:
        raise ValueError(f"viz.attention_heatmap: {t} queries and {s} keys: pass query_tokens too")
    keys = _labels(tokens, s, "key")
    queries = _labels(query_tokens if query_tokens is not None else tokens, t, "query")
    names = (
        list(head_names)
        if head_names is not None
        else (["attention"] if heads == 1 else [f"head {h}" for h in range(heads)])
    )
    if len(names) != heads:
        raise ValueError(f"viz.attention_heatmap: {len(names)} head_names for {heads} heads")
    ncols = min(heads, columns)
    nrows = -(-heads // ncols)
    cell = min(10.5 / ncols, 6.0 / nrows) / max(s, t)  # inches per cell, about
    number_size = min(fontsize * 0.8, cell * 72 * 0.32)  # "0.25" fits in its cell
    annotate = number_size >= 8 if annotate is None else annotate
    panel = min(10.5 / ncols, 6.0 / nrows)  # inches: the panels fill a 12.8 x 7.2 slide
    fig = Figure(
        figsize=(
            min(12.8, ncols * panel * s / max(s, t) + 2.3),
            min(7.2, nrows * (panel + 0.9) + 0.5),
        ),
        layout="constrained",
    )
    axes = fig.subplots(nrows, ncols, squeeze=False)
    big = fontsize * 1.15
    images = []
    for h, ax in enumerate(axes.flat):
        if h >= heads:
            ax.set_visible(False)
            continue
        images.append(
            _panel(ax, data[h], keys, queries, cmap, fontsize, number_size if annotate else 0)
        )
        ax.set_title(names[h], fontsize=big)
        if h % ncols == 0:
            ax.set_ylabel("query (row looks at →)", fontsize=fontsize)
        if h // ncols == nrows - 1 or h + ncols >= heads:
            ax.set_xlabel("key (attended to)", fontsize=fontsize)
    bar = fig.colorbar(images[0], ax=axes.ravel().tolist(), shrink=0.8, aspect=30)
    bar.set_label("attention weight (each row sums to 1)", fontsize=fontsize)
    bar.ax.tick_params(labelsize=fontsize * 0.9)
    if title:
        fig.suptitle(title, fontsize=big * 1.1)
    return fig


def _panel(
    ax: Any,
    w: np.ndarray,
    keys: list[str],
    queries: list[str],
    cmap: str,
    fontsize: float,
    number_size: float,
) -> Any:
    """Draw one head's ``(T, S)`` weights on ``ax`` (the values in ``number_size``-point
    text, none if 0); return the image for the colour bar."""
    from matplotlib import colormaps
    from matplotlib.patches import Rectangle

    masked = w == 0.0
    image = ax.imshow(
        np.ma.masked_where(masked, w),
        cmap=colormaps[cmap],
        vmin=0.0,
        vmax=1.0,
        interpolation="nearest",
        aspect="equal",
    )
    for i, j in zip(*np.nonzero(masked)):
        ax.add_patch(
            Rectangle(
                (j - 0.5, i - 0.5),
                1,
                1,
                facecolor="#eeeeee",
                edgecolor="#bbbbbb",
                hatch="//",
                linewidth=0,
            )
        )
    if number_size:
        for i, j in zip(*np.nonzero(~masked)):
            value = w[i, j]
            ax.text(
                j,
                i,
                f"{value:.2f}",
                ha="center",
                va="center",
                fontsize=max(number_size, 6.0),
                color="black" if value > 0.55 else "white",
            )
    ax.set_xticks(
        range(len(keys)), keys, fontsize=fontsize, rotation=90 if max(map(len, keys)) > 2 else 0
    )
    ax.set_yticks(range(len(queries)), queries, fontsize=fontsize)
    ax.tick_params(length=0)
    return image
