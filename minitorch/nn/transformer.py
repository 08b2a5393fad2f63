"""The transformer encoder block and position encodings.

``TransformerEncoderLayer`` is PyTorch's, with its parameter names
(``self_attn.in_proj_weight``, ``linear1.weight``, ``norm1.bias`` ...), so a PyTorch
state dict exported as NumPy arrays loads into it. Post-LN (``norm_first=False``, the
original paper) normalises after each residual sum; Pre-LN (``norm_first=True``, GPT-2)
normalises each branch's input and leaves the residual path untouched, which trains
deep stacks without warm-up (Xiong et al. 2020).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import minitorch.ops as F
from minitorch.core import Operand, Variable
from minitorch.nn.attention import MultiheadAttention, Projection
from minitorch.nn.checks import check_size
from minitorch.nn.embedding import Embedding
from minitorch.nn.init import RNGLike, as_generator
from minitorch.nn.layers import Dropout
from minitorch.nn.module import Module
from minitorch.nn.normalization import LayerNorm

_ACTIVATIONS: dict[str, Callable[[Any], Variable]] = {"relu": F.relu, "gelu": F.gelu}


class TransformerEncoderLayer(Module):
    """Self-attention and a feed-forward block, each with a residual connection.

    As ``torch.nn.TransformerEncoderLayer``::

        norm_first=False:  x = norm1(x + sa(x));        x = norm2(x + ff(x))
        norm_first=True:   x = x + sa(norm1(x));        x = x + ff(norm2(x))

    with ``sa(x) = dropout1(self_attn(x, x, x)[0])`` and
    ``ff(x) = dropout2(linear2(dropout(activation(linear1(x)))))``.

    Shapes:
        src ``(S, N, d_model)`` (``(N, S, d_model)`` with ``batch_first``, ``(S,
        d_model)`` unbatched) -> the same shape.

    Args:
        d_model: the model width.
        nhead: the number of attention heads.
        dim_feedforward: the hidden width of the feed-forward block.
        dropout: the dropout probability (attention weights and the three dropouts).
        activation: ``"relu"``, ``"gelu"`` or a function of one Variable.
        layer_norm_eps: the LayerNorms' ``eps``.
        batch_first: inputs are ``(N, S, d_model)``.
        norm_first: Pre-LN (True) or Post-LN (False).
        bias: biases in the attention and feed-forward projections.
        rng: a Generator, an int seed, or ``None`` for minitorch's default generator.
        dtype: the parameters' floating dtype.

    Raises:
        ValueError: for an unknown activation name, or sizes ``MultiheadAttention``
            refuses.

    Example:
        >>> layer = TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, rng=0)
        >>> layer(np.ones((1, 5, 8), dtype=np.float32)).shape
        (1, 5, 8)
        >>> [name for name, _ in layer.named_parameters()][:3]
        ['self_attn.in_proj_weight', 'self_attn.in_proj_bias', 'self_attn.out_proj.weight']

    References:
        A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, §3.1; R. Xiong et
        al., "On Layer Normalization in the Transformer Architecture", ICML 2020.
    """

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable[[Any], Variable] = "relu",
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        rng: RNGLike = None,
        dtype: Any = np.float32,
    ) -> None:
        super().__init__()
        if isinstance(activation, str) and activation not in _ACTIVATIONS:
            raise ValueError(
                f"TransformerEncoderLayer: activation must be 'relu', 'gelu' or a function, "
                f"got {activation!r}"
            )
        gen = as_generator(rng)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout, bias, batch_first, gen, dtype)
        self.linear1 = Projection(d_model, dim_feedforward, bias, gen, dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Projection(dim_feedforward, d_model, bias, gen, dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, layer_norm_eps, dtype=dtype)
        self.norm2 = LayerNorm(d_model, layer_norm_eps, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _ACTIVATIONS[activation] if isinstance(activation, str) else activation

    def forward(
        self,
        src: Operand,
        src_mask: Any = None,
        src_key_padding_mask: Any = None,
        is_causal: bool = False,
    ) -> Variable:
        """One block of self-attention and feed-forward.

        Args:
            src: the sequence, ``(S, N, d_model)`` (``(N, S, d_model)`` with
                ``batch_first``).
            src_mask: ``(S, S)``: True (or ``-inf``) where a position may **not** attend,
                as :class:`MultiheadAttention`'s ``attn_mask``.
            src_key_padding_mask: ``(N, S)``: True for a padding position.
            is_causal: a hint that ``src_mask`` is the causal mask (PyTorch's).

        Returns:
            A Variable of ``src``'s shape.

        Raises:
            RuntimeError: for ``is_causal=True`` without ``src_mask`` (a hint, as PyTorch).
        """
        x = src if isinstance(src, Variable) else Variable(np.asarray(src))
        masks = (src_mask, src_key_padding_mask, is_causal)
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), *masks)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, *masks))
        return self.norm2(x + self._ff_block(x))

    def _sa_block(self, x: Variable, mask: Any, padding: Any, is_causal: bool) -> Variable:
        out, _ = self.self_attn(
            x,
            x,
            x,
            attn_mask=mask,
            key_padding_mask=padding,
            need_weights=False,
            is_causal=is_causal,
        )
        return self.dropout1(out)

    def _ff_block(self, x: Variable) -> Variable:
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


def sinusoidal_positions(length: int, d_model: int, dtype: Any = np.float32) -> np.ndarray:
    """The fixed position encodings of Vaswani et al.: sines and cosines of many periods.

    ``P[t, 2i] = sin(t / 10000^(2i / d))``, ``P[t, 2i + 1] = cos(t / 10000^(2i / d))``.

    Shapes:
        -> ``(length, d_model)``.

    Args:
        length: the number of positions.
        d_model: the encoding width (even or odd).
        dtype: the result's dtype.

    Returns:
        An ndarray (a constant, no gradient).

    Example:
        >>> sinusoidal_positions(2, 4).round(3)
        array([[0.   , 1.   , 0.   , 1.   ],
               [0.841, 0.54 , 0.01 , 1.   ]], dtype=float32)

    References:
        A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, §3.5.
    """
    positions = np.arange(length, dtype=np.float64)[:, None]
    rates = 10000.0 ** (-np.arange(0, d_model, 2, dtype=np.float64) / d_model)
    table = np.zeros((length, d_model))
    table[:, 0::2] = np.sin(positions * rates)
    table[:, 1::2] = np.cos(positions * rates[: d_model // 2])
    return table.astype(dtype)


class SinusoidalPositionalEncoding(Module):
    """Add fixed sinusoidal position encodings (:func:`sinusoidal_positions`) to ``x``.

    Shapes:
        x ``(*, T, d_model)`` with ``start + T <= max_len`` -> the same shape.

    Args:
        d_model: the width.
        max_len: the most positions.
        dtype: the table's dtype.

    Raises:
        ValueError: at call time, if the positions run past ``max_len``.

    Example:
        >>> SinusoidalPositionalEncoding(4, 10)(np.zeros((1, 2, 4), np.float32)).shape
        (1, 2, 4)
    """

    def __init__(self, d_model: int, max_len: int = 5000, dtype: Any = np.float32) -> None:
        super().__init__()
        self.d_model = check_size("SinusoidalPositionalEncoding", "d_model", d_model)
        self.max_len = check_size("SinusoidalPositionalEncoding", "max_len", max_len)
        self.table: np.ndarray
        self.register_buffer("table", sinusoidal_positions(max_len, d_model, dtype))

    def forward(self, x: Operand, start: int = 0) -> Variable:
        """``x + P[start : start + T]``; ``start`` is the first position (a KV cache's)."""
        return F.add(x, _rows(self.table, start, np.shape(_data(x))[-2], self.max_len))

    def extra_repr(self) -> str:
        return f"{self.d_model}, max_len={self.max_len}"


class LearnedPositionalEmbedding(Module):
    """Add a learned vector per position (GPT's ``wpe``) to ``x``: an ``Embedding`` of positions.

    Shapes:
        x ``(*, T, d_model)`` with ``start + T <= max_len`` -> the same shape.

    Args:
        max_len: the most positions.
        d_model: the width.
        std: the standard deviation of the initial vectors (GPT-2: 0.02).
        rng: a Generator, an int seed, or ``None`` for minitorch's default generator.
        dtype: the parameter's dtype.

    Raises:
        ValueError: at call time, if the positions run past ``max_len``.

    Example:
        >>> pos = LearnedPositionalEmbedding(10, 4, rng=0)
        >>> [name for name, _ in pos.named_parameters()]
        ['embedding.W']
    """

    def __init__(
        self,
        max_len: int,
        d_model: int,
        std: float = 0.02,
        rng: RNGLike = None,
        dtype: Any = np.float32,
    ) -> None:
        super().__init__()
        self.max_len = check_size("LearnedPositionalEmbedding", "max_len", max_len)
        self.embedding = Embedding(max_len, d_model, rng=rng, dtype=dtype)
        self.embedding.W.data *= np.asarray(std, dtype)

    def forward(self, x: Operand, start: int = 0) -> Variable:
        """``x + W[start : start + T]``."""
        length = np.shape(_data(x))[-2]
        _rows(None, start, length, self.max_len)
        return F.add(x, self.embedding.W[start : start + length])


def _data(x: Operand) -> Any:
    return x.data if isinstance(x, Variable) else x


def _rows(table: np.ndarray | None, start: int, length: int, max_len: int) -> Any:
    if start < 0 or start + length > max_len:
        raise ValueError(
            f"positions {start}..{start + length - 1} are outside the table of max_len={max_len}"
        )
    return None if table is None else table[start : start + length]
