"""notebooks/tiny_gpt.py: notebook 15's GPT, its KV cache and its shipped weights."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from exercise_runner import NOTEBOOKS

sys.path.insert(0, str(NOTEBOOKS))
import tiny_gpt  # noqa: E402


def _model() -> tiny_gpt.TinyGPT:
    return tiny_gpt.TinyGPT(11, d_model=16, n_layers=2, n_heads=4, max_len=24)


def test_the_cached_step_gives_the_logits_of_the_full_forward() -> None:
    model, ids = _model(), [3, 1, 4, 1, 5, 9, 2, 6]
    cache = [[None, None] for _ in model.blocks]
    full = model(np.array([ids])).data[0]
    for t, token in enumerate(ids):
        np.testing.assert_allclose(
            tiny_gpt.cached_step(model, token, t, cache), full[t], rtol=1e-4, atol=1e-5
        )
    assert cache[0][0].shape == (4, len(ids), 4)  # (heads, time, head_dim)


def test_greedy_text_is_the_same_with_and_without_the_cache() -> None:
    model = _model()
    with_cache = tiny_gpt.generate(model, [1, 2, 3], 15, use_cache=True)
    without = tiny_gpt.generate(model, [1, 2, 3], 15, use_cache=False)
    assert with_cache == without and len(with_cache) == 18


def test_generate_refuses_more_than_the_context() -> None:
    with pytest.raises(ValueError, match="exceed max_len=24"):
        tiny_gpt.generate(_model(), [1] * 20, 5)


def test_the_shipped_weights_load_and_beat_the_bigram_baseline() -> None:
    from minitorch import no_grad, text

    play = text.shakespeare("hamlet")
    tok = text.CharTokenizer(play)
    model, losses = tiny_gpt.load(tok.vocab_size)
    ids = np.array(tok.encode(play[-20000:]))
    x = np.stack([ids[s : s + 64] for s in range(0, 6400, 400)])
    y = np.stack([ids[s + 1 : s + 65] for s in range(0, 6400, 400)])
    with no_grad():
        loss = float(model.loss(x, y).data)
    assert loss < 2.4 and losses[-1] < losses[0]  # a bigram model scores about 2.5 here
