"""The small GPT of notebook 15: notebook 14's Pre-LN blocks stacked, and a KV cache.

``TinyGPT`` is token embeddings plus sinusoidal positions, ``n_layers`` causal
``nn.TransformerEncoderLayer(norm_first=True)`` blocks, a final LayerNorm and a linear
head (GPT-2's layout). :func:`generate` writes text one token at a time, either running
the whole context again at every step or with a KV cache (:func:`cached_step`), which
reads the blocks' weights and keeps every layer's keys and values.

``scripts/train_nb15_gpt.py`` trains it and writes ``nb15_gpt.npz`` beside this file, which
the notebook loads (training it there would take minutes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

import minitorch.ops as F
from minitorch import Variable, nn, no_grad

WEIGHTS = Path(__file__).resolve().parent / "nb15_gpt.npz"
SIZES = {"d_model": 64, "n_layers": 2, "n_heads": 4, "max_len": 64}


class TinyGPT(nn.Module):
    """A decoder-only transformer. Shapes: ids ``(N, T)`` -> logits ``(N, T, vocab)``."""

    def __init__(self, vocab: int, d_model: int, n_layers: int, n_heads: int, max_len: int):
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model, rng=0)
        self.pos = nn.SinusoidalPositionalEncoding(d_model, max_len)
        self.blocks = nn.ModuleList(
            nn.TransformerEncoderLayer(d_model, n_heads, dim_feedforward=4 * d_model,
                                       dropout=0.0, batch_first=True, norm_first=True, rng=k)
            for k in range(n_layers)
        )
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab, rng=n_layers)
        self.max_len, self.n_heads = max_len, n_heads

    def forward(self, ids: np.ndarray) -> Variable:
        t = np.shape(ids)[1]
        future = np.triu(np.ones((t, t), dtype=bool), k=1)  # True: may not attend
        x = self.pos(self.tok(ids))
        for block in self.blocks:
            x = block(x, src_mask=future)
        return self.head(self.ln_f(x))

    def loss(self, ids: np.ndarray, targets: np.ndarray) -> Variable:
        logits = self(ids)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), np.ravel(targets))


def _ln(x: np.ndarray, norm: Any) -> np.ndarray:
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + norm.eps) * norm.weight.data + norm.bias.data


def cached_step(model: TinyGPT, token: int, position: int, cache: list) -> np.ndarray:
    """The logits after one new token, attending to the cached keys and values.

    ``cache`` holds one ``[keys, values]`` pair per block, each ``(H, T, head_dim)``
    (``None`` before the first token); the new position's are appended on the time axis.
    """
    x = model.tok.W.data[token] + model.pos.table[position]  # (d,)
    h_count = model.n_heads
    for block, kv in zip(model.blocks, cache):
        attn = block.self_attn
        h = _ln(x, block.norm1)
        q, k, v = np.split(attn.in_proj_weight.data @ h + attn.in_proj_bias.data, 3)
        q, k, v = (a.reshape(h_count, 1, -1) for a in (q, k, v))
        kv[0] = k if kv[0] is None else np.concatenate([kv[0], k], axis=1)
        kv[1] = v if kv[1] is None else np.concatenate([kv[1], v], axis=1)
        scores = q @ kv[0].swapaxes(-1, -2) / np.sqrt(q.shape[-1])  # (H, 1, T): no mask
        w = np.exp(scores - scores.max(-1, keepdims=True))
        out = ((w / w.sum(-1, keepdims=True)) @ kv[1]).reshape(-1)
        x = x + attn.out_proj.weight.data @ out + attn.out_proj.bias.data
        hidden = np.maximum(block.linear1.weight.data @ _ln(x, block.norm2) + block.linear1.bias.data, 0)
        x = x + block.linear2.weight.data @ hidden + block.linear2.bias.data
    return model.head.W.data @ _ln(x, model.ln_f) + model.head.b.data


def generate(model: TinyGPT, prompt: list[int], n_new: int, use_cache: bool = True,
             probs: Any = None, rng: Any = None) -> list[int]:
    """Extend ``prompt`` by ``n_new`` tokens (in all at most ``max_len``).

    ``probs(logits) -> p`` gives the distribution to sample from with ``rng``; without it
    the most likely token is taken (greedy decoding).
    """
    ids = list(prompt)
    if len(ids) + n_new > model.max_len:
        raise ValueError(f"generate: {len(ids)} + {n_new} tokens exceed max_len={model.max_len}")
    cache = [[None, None] for _ in model.blocks]
    with no_grad():
        for step in range(len(ids) + n_new - 1):
            if use_cache:
                logits = cached_step(model, ids[step], step, cache)
            else:
                logits = model(np.array([ids[: step + 1]])).data[0, -1]
            if step + 1 < len(ids):
                continue  # still reading the prompt
            p = None if probs is None else probs(np.asarray(logits, dtype=np.float64))
            ids.append(int(np.argmax(logits)) if p is None else int(rng.choice(len(p), p=p)))
    return ids


def load(vocab: int) -> tuple[TinyGPT, np.ndarray]:
    """The trained model and its training losses, from :data:`WEIGHTS`."""
    model = TinyGPT(vocab, **SIZES)
    with np.load(WEIGHTS, allow_pickle=False) as arrays:
        losses = arrays["train_losses"]
        model.load_state_dict({k: arrays[k] for k in arrays.files if k != "train_losses"})
    return model, losses
