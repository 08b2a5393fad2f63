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


def _cluster_of(source: str, label: str) -> dict[str, str]:
    """Node id -> the label of the innermost cluster that holds it, from DOT text."""
    where, stack = {}, []
    for line in source.splitlines():
        text = line.strip()
        if text.startswith("subgraph cluster"):
            stack.append("")
        elif text.startswith("label=<") and stack and not stack[-1]:
            stack[-1] = text.split("<", 1)[1].split(">", 1)[0]
        elif text == "}" and stack:
            stack.pop()
        elif f"<B>{label}</B>" in text:
            where[text.split()[0]] = stack[-1] if stack else ""
    return where


def test_the_attention_core_is_drawn_inside_the_attention_box() -> None:
    layer = nn.TransformerEncoderLayer(
        8, 2, dim_feedforward=16, dropout=0.0, batch_first=True, norm_first=True
    )
    x = Variable(np.random.default_rng(0).normal(size=(1, 3, 8)), name="x")
    source = viz.draw_graph(layer(x).sum(), module=layer, group_modules=True).source
    for op in ("SafeSoftmax", "MatMul", "Reshape"):
        boxes = set(_cluster_of(source, op).values())
        assert boxes == {"self_attn · MultiheadAttention"}, (op, boxes)
    assert set(_cluster_of(source, "ReLU").values()) == {""}  # a function, not a module


def test_each_gpt_block_is_one_box_with_its_attention_and_residual() -> None:
    from examples.gpt import GPT, GPTConfig

    model = GPT(GPTConfig(vocab_size=5, d_model=8, n_layers=2, n_heads=2, max_len=8), seed=0)
    y = model(np.zeros((1, 3), dtype=np.int64)).sum()
    source = viz.draw_graph(y, module=model, group_modules=True).source
    softmax_boxes = sorted(_cluster_of(source, "SafeSoftmax").values())
    assert softmax_boxes == [
        "blocks.0.attn · CausalSelfAttention",
        "blocks.1.attn · CausalSelfAttention",
    ]
    relu_boxes = sorted(_cluster_of(source, "ReLU").values())
    assert relu_boxes == ["blocks.0 · Block", "blocks.1 · Block"]


def _one_head() -> tuple[Variable, Variable, np.ndarray]:
    """A causal attention head on two tokens with a residual: ``loss = sum(x + A v)``."""
    import minitorch.ops as F

    rng = np.random.default_rng(0)
    x, wq, wk, wv = (Variable(rng.normal(size=(2, 2)), name=n) for n in ("x", "Wq", "Wk", "Wv"))
    q, k, v = x @ wq, x @ wk, x @ wv
    future = np.triu(np.ones((2, 2), dtype=bool), k=1)
    masked = F.masked_fill((q @ k.T) / np.sqrt(2.0), future, -np.inf)
    weights = F.softmax(masked, axis=-1)
    weights.name = "weights"
    return (x + weights @ v).sum(), x, future


def test_the_stepper_on_one_head_shows_softmax_mask_and_fan_in() -> None:
    loss, x, future = _one_head()
    trace = viz.trace_backward(loss)
    by_name = {step.name: step for step in trace.steps}
    # softmax's backward is its Jacobian applied to gy: w * (gy - sum(gy * w)) per row
    softmax = by_name["Softmax"]
    (w,) = [o().data for o in softmax.function.outputs]
    (gy,) = softmax.grads_in
    expected = w * (gy - (gy * w).sum(axis=-1, keepdims=True))
    np.testing.assert_allclose(softmax.grads_out[0], expected, rtol=1e-12)
    np.testing.assert_allclose(softmax.grads_out[0].sum(axis=-1), 0.0, atol=1e-12)
    # the masked score (the future key) gets exactly zero gradient
    where = by_name["Where"]
    sent = [g for g in where.grads_out if g is not None and g.shape == (2, 2)][0]
    assert np.all(sent[future] == 0.0)
    # x is used four times (q, k, v and the residual): three += fan-ins, adding up to x.grad
    x_id = next(vn.id for vn in trace.graph.variables if vn.var is x)
    fan_in = [a for step in trace.steps for a in step.accumulations if a.node_id == x_id]
    assert len(fan_in) == 3
    np.testing.assert_allclose(fan_in[-1].total, x.grad.data, rtol=1e-12)
    stepper = viz.BackwardStepper(trace, rankdir="LR")
    captions = " ".join(stepper.captions())
    assert "Softmax.backward" in captions and "added to it (+=)" in captions
