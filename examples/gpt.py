"""A small GPT in minitorch: token embeddings + positions, causal Pre-LN blocks, a final
LayerNorm and a linear head, with a KV cache for generation.

Used by ``python -m examples.char_gpt`` (training on Shakespeare) and by the ``gpt``
benchmark task. Each block is GPT-2's (Radford et al. 2019)::

    x = x + attn(ln1(x))          attn: causal multi-head self-attention
    x = x + mlp(ln2(x))           mlp: Linear(d, 4d) -> ReLU -> Linear(4d, d)

ReLU, as in Karpathy's "Let's build GPT"; ``GPTConfig(activation="gelu")`` takes GPT-2's
GELU (tanh form) instead.

Positions are the fixed sinusoids of Vaswani et al. (no parameters, defined for every
position up to ``max_len``), so a model trained on 64-character windows can still be
run, and timed, on 256 characters of context.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

import minitorch.ops as F
from minitorch import Variable, nn


@dataclass(frozen=True)
class GPTConfig:
    """The sizes of a :class:`GPT`."""

    vocab_size: int
    d_model: int = 96
    n_layers: int = 3
    n_heads: int = 4
    max_len: int = 256
    activation: str = "relu"  # or "gelu": GPT-2's (tanh form), slower here


class KVCache:
    """The keys and values of every layer for the positions seen so far (generation only).

    A new token then attends to the stored keys instead of recomputing them: one token's
    work per step instead of the whole context's.

    Args:
        config: the model's sizes.
        batch: the number of sequences generated together.
        dtype: the activations' dtype.
    """

    def __init__(self, config: GPTConfig, batch: int = 1, dtype: Any = np.float32) -> None:
        head_dim = config.d_model // config.n_heads
        shape = (config.n_layers, batch, config.n_heads, config.max_len, head_dim)
        self.keys, self.values = np.zeros(shape, dtype), np.zeros(shape, dtype)
        self.length = 0  # positions stored

    def extend(self, layer: int, k: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Store the new positions' keys and values; return all of them for ``layer``."""
        end = self.length + k.shape[2]
        self.keys[layer, :, :, self.length : end] = k
        self.values[layer, :, :, self.length : end] = v
        return self.keys[layer, :, :, :end], self.values[layer, :, :, :end]


class CausalSelfAttention(nn.Module):
    """Multi-head self-attention where position ``t`` sees positions ``<= t``."""

    def __init__(self, config: GPTConfig, rng: np.random.Generator) -> None:
        super().__init__()
        self.n_heads, self.d_model = config.n_heads, config.d_model
        self.qkv = nn.Linear(config.d_model, 3 * config.d_model, rng=rng)
        self.proj = nn.Linear(config.d_model, config.d_model, rng=rng)

    def forward(self, x: Variable, cache: KVCache | None = None, layer: int = 0) -> Variable:
        """``(N, T, d)`` -> ``(N, T, d)``; with a cache, attend to the stored keys too."""
        N, T, d = x.shape
        qkv = F.reshape(self.qkv(x), (N, T, 3, self.n_heads, d // self.n_heads))
        qkv = F.transpose(qkv, (2, 0, 3, 1, 4))  # (3, N, heads, T, head_dim)
        q, k, v = qkv[0], qkv[1], qkv[2]
        if cache is None:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            past = cache.length
            k_all, v_all = cache.extend(layer, k.data, v.data)
            mask = None if T == 1 else np.tri(T, past + T, past, dtype=bool)
            y = F.scaled_dot_product_attention(q, k_all, v_all, attn_mask=mask)
        return self.proj(F.reshape(F.transpose(y, (0, 2, 1, 3)), (N, T, d)))


class Block(nn.Module):
    """A Pre-LN transformer block: attention and an MLP, each on a residual branch."""

    def __init__(self, config: GPTConfig, rng: np.random.Generator) -> None:
        super().__init__()
        d = config.d_model
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = CausalSelfAttention(config, rng)
        self.fc = nn.Linear(d, 4 * d, rng=rng)
        self.fc_out = nn.Linear(4 * d, d, rng=rng)
        self.activation = config.activation

    def forward(self, x: Variable, cache: KVCache | None = None, layer: int = 0) -> Variable:
        """``x + attn(ln1(x))``, then ``x + mlp(ln2(x))``."""
        x = x + self.attn(self.ln1(x), cache, layer)
        h = self.fc(self.ln2(x))
        h = F.relu(h) if self.activation == "relu" else F.gelu(h, approximate="tanh")
        return x + self.fc_out(h)


class GPT(nn.Module):
    """A decoder-only transformer language model (GPT-2's layout, sinusoidal positions).

    Shapes:
        ids ``(N, T)`` integers, ``T <= max_len`` -> logits ``(N, T, vocab_size)``.

    Args:
        config: the sizes.
        seed: the seed of the initial weights.

    Example:
        >>> model = GPT(GPTConfig(vocab_size=10, d_model=8, n_layers=1, n_heads=2), seed=0)
        >>> model(np.zeros((2, 5), dtype=np.int64)).shape
        (2, 5, 10)
    """

    def __init__(self, config: GPTConfig, seed: int = 0) -> None:
        super().__init__()
        rng = np.random.default_rng(seed)
        self.config = config
        self.tok = nn.Embedding(config.vocab_size, config.d_model, rng=rng)
        self.pos = nn.SinusoidalPositionalEncoding(config.d_model, config.max_len)
        self.blocks = nn.ModuleList([Block(config, rng) for _ in range(config.n_layers)])
        self.ln_f = nn.LayerNorm(config.d_model)
        self.head = nn.Linear(config.d_model, config.vocab_size, rng=rng)

    def forward(self, ids: np.ndarray, cache: KVCache | None = None) -> Variable:
        """The next-token logits at every position; ``cache`` (if given) grows by ``T``."""
        start = 0 if cache is None else cache.length
        x = self.pos(self.tok(ids), start=start)
        for layer, block in enumerate(self.blocks):
            x = block(x, cache, layer)
        if cache is not None:
            cache.length += ids.shape[1]
        return self.head(self.ln_f(x))

    def loss(self, ids: np.ndarray, targets: np.ndarray) -> Variable:
        """The mean cross-entropy of the next characters, in nats per character."""
        logits = self(ids)
        return F.cross_entropy(F.reshape(logits, (-1, self.config.vocab_size)), targets.ravel())

    def num_parameters(self) -> int:
        """The number of trainable numbers."""
        return sum(p.size for p in self.parameters())
