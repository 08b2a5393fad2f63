"""viz.attention_heatmap: one panel per head, tokens on the axes, masked cells hatched."""

from __future__ import annotations

import numpy as np
import pytest

import viz
from minitorch import Variable, nn


def _causal_uniform(t: int) -> np.ndarray:
    """Each query spreads its weight evenly over itself and the keys before it."""
    return np.tril(np.ones((t, t))) / np.arange(1, t + 1)[:, None]


def test_one_panel_per_head_with_the_tokens_on_both_axes() -> None:
    w = np.stack([_causal_uniform(4), np.eye(4), _causal_uniform(4)])
    fig = viz.attention_heatmap(w, tokens=["to", " be", "\n", "or"])
    panels = [ax for ax in fig.axes if ax.get_title().startswith("head")]
    assert [ax.get_title() for ax in panels] == ["head 0", "head 1", "head 2"]
    for ax in panels:
        assert [t.get_text() for t in ax.get_xticklabels()] == ["to", "␣be", "⏎", "or"]
    assert [t.get_text() for t in panels[0].get_yticklabels()] == ["to", "␣be", "⏎", "or"]


def test_the_picture_fits_a_1280_by_720_slide() -> None:
    for heads in (1, 2, 4, 8):
        w = np.broadcast_to(_causal_uniform(12), (heads, 12, 12))
        width, height = viz.attention_heatmap(w, tokens="to be or not").get_size_inches()
        assert width <= 12.8 and height <= 7.2, (heads, width, height)


def test_masked_cells_are_hatched_and_weights_written_when_they_fit() -> None:
    fig = viz.attention_heatmap(_causal_uniform(3), tokens="abc")
    ax = fig.axes[0]
    hatched = [p for p in ax.patches if p.get_hatch() == "//"]
    assert len(hatched) == 3  # the strict upper triangle of a 3 x 3 causal mask
    numbers = sorted(t.get_text() for t in ax.texts)
    assert numbers == sorted(["1.00", "0.50", "0.50", "0.33", "0.33", "0.33"])
    assert all(t.get_fontsize() >= 8 for t in ax.texts)


def test_no_numbers_when_the_cells_are_too_small() -> None:
    w = np.broadcast_to(_causal_uniform(40), (4, 40, 40))
    assert not any(ax.texts for ax in viz.attention_heatmap(w).axes)


def test_takes_multihead_attention_weights_directly() -> None:
    mha = nn.MultiheadAttention(8, 2, batch_first=True)
    x = Variable(np.random.default_rng(0).normal(size=(1, 5, 8)))
    _, w = mha(x, x, x, average_attn_weights=False)  # (1, heads, T, T)
    fig = viz.attention_heatmap(w, tokens="hello")
    assert sum(ax.get_title().startswith("head") for ax in fig.axes) == 2
    image = fig.axes[0].images[0]
    np.testing.assert_allclose(image.get_array().data, w.data[0, 0])


@pytest.mark.parametrize(
    ("weights", "tokens", "message"),
    [
        (np.ones((2, 2, 3, 3)), None, "pass one sequence"),
        (np.ones(3), None, r"got \(3,\)"),
        (np.ones((3, 3)), "ab", "2 key tokens for 3 key positions"),
        (np.ones((2, 3)), "abc", "pass query_tokens"),
    ],
)
def test_bad_input_is_named(weights: np.ndarray, tokens: str | None, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        viz.attention_heatmap(weights, tokens=tokens)
