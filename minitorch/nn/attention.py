"""Attention layers with PyTorch's names: ``GELU``, ``MultiheadAttention``.

The parameters carry PyTorch's names (``in_proj_weight``, ``out_proj.weight`` ...), so a
state dict exported from PyTorch as NumPy arrays loads with ``load_state_dict`` and gives
the same outputs. minitorch's own ``nn.Linear`` calls its parameters ``W`` and ``b``;
the projections here are :class:`Projection`, the same ``F.linear`` with the names
``weight`` and ``bias``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import minitorch.ops as F
from minitorch.core import Config, Operand, Variable
from minitorch.nn.checks import check_probability, check_size
from minitorch.nn.init import RNGLike, as_generator
from minitorch.nn.module import Module, Parameter


class GELU(Module):
    """Gaussian error linear unit ``x * Phi(x)`` (``F.gelu``), as ``torch.nn.GELU``.

    Args:
        approximate: ``"none"`` (exact, through erf) or ``"tanh"`` (GPT-2's form).

    Raises:
        ValueError: for another ``approximate``.

    Example:
        >>> GELU()(np.array([0.0, 1.0])).data.round(4)
        array([0.    , 0.8413])
    """

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(f"GELU: approximate must be 'none' or 'tanh', got {approximate!r}")
        self.approximate = approximate

    def forward(self, x: Operand) -> Variable:
        """Apply ``F.gelu``."""
        return F.gelu(x, self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Projection(Module):
    """``x @ weight.T + bias`` with PyTorch's parameter names (``torch.nn.Linear``'s).

    Initialised as PyTorch's ``Linear``: ``weight`` and ``bias`` uniform in
    ``±1 / sqrt(in_features)`` (Kaiming uniform with ``a = sqrt 5``).

    Shapes:
        x ``(*, in_features)`` -> ``(*, out_features)``.

    Args:
        in_features: input size.
        out_features: output size.
        bias: whether to add ``bias``.
        rng: a Generator, an int seed, or ``None`` for minitorch's default generator.
        dtype: the parameters' floating dtype.

    Example:
        >>> [name for name, _ in Projection(3, 2, rng=0).named_parameters()]
        ['weight', 'bias']
    """

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        rng: RNGLike = None,
        dtype: Any = np.float32,
    ) -> None:
        super().__init__()
        check_size("Projection", "in_features", in_features)
        check_size("Projection", "out_features", out_features)
        bound = 1.0 / math.sqrt(in_features)
        gen = as_generator(rng)
        W = gen.uniform(-bound, bound, (out_features, in_features))
        self.weight = Parameter(W.astype(dtype))
        self.bias = (
            Parameter(gen.uniform(-bound, bound, out_features).astype(dtype)) if bias else None
        )

    def forward(self, x: Operand) -> Variable:
        """Apply ``F.linear``."""
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self) -> str:
        out_features, in_features = self.weight.shape
        return (
            f"in_features={in_features}, out_features={out_features}, bias={self.bias is not None}"
        )


def _additive(mask: Any, dtype: np.dtype, name: str) -> Any:
    """A bool mask (True: masked out, PyTorch's MHA meaning) as 0 / -inf; floats as they are."""
    if isinstance(mask, Variable):
        return mask
    array = np.asarray(mask)
    if array.dtype == np.bool_:
        return np.where(array, -np.inf, 0.0).astype(dtype)
    if array.dtype.kind != "f":
        raise TypeError(f"MultiheadAttention: {name} must be bool or float, got {array.dtype}")
    return array.astype(dtype)


class MultiheadAttention(Module):
    """Multi-head attention, as ``torch.nn.MultiheadAttention`` (same parameters).

    ``MultiHead(Q, K, V) = concat(head_1, ..., head_h) W_O^T + b_O`` with
    ``head_i = Attention(Q W_Qi^T, K W_Ki^T, V W_Vi^T)``; ``W_Q, W_K, W_V`` are the three
    row blocks of ``in_proj_weight``, ``W_O`` is ``out_proj.weight``.

    Masks follow PyTorch's ``MultiheadAttention`` (the **opposite** of
    ``F.scaled_dot_product_attention``'s bool masks): in ``attn_mask`` and
    ``key_padding_mask`` a True entry **forbids** attending; a float mask is added to
    the scores.

    Shapes:
        query ``(L, N, E)`` (``(N, L, E)`` with ``batch_first``, ``(L, E)`` unbatched),
        key and value ``(S, N, E)``; key_padding_mask ``(N, S)``; attn_mask ``(L, S)`` or
        ``(N * num_heads, L, S)`` -> output like query, weights ``(N, L, S)`` averaged
        over the heads or ``(N, num_heads, L, S)``.

    Args:
        embed_dim: ``E``, the model width.
        num_heads: the number of heads; must divide ``embed_dim``.
        dropout: the dropout probability on the attention weights (training only).
        bias: add ``in_proj_bias`` and ``out_proj.bias``.
        batch_first: inputs are ``(N, L, E)``.
        rng: a Generator, an int seed, or ``None`` for minitorch's default generator.
        dtype: the parameters' floating dtype.

    Raises:
        ValueError: if ``num_heads`` does not divide ``embed_dim``.

    Example:
        >>> mha = MultiheadAttention(4, 2, batch_first=True, rng=0)
        >>> x = np.ones((1, 3, 4), dtype=np.float32)
        >>> out, weights = mha(x, x, x)
        >>> out.shape, weights.shape
        ((1, 3, 4), (1, 3, 3))

    References:
        A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, §3.2.2.
    """

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        batch_first: bool = False,
        rng: RNGLike = None,
        dtype: Any = np.float32,
    ) -> None:
        super().__init__()
        embed_dim = check_size("MultiheadAttention", "embed_dim", embed_dim)
        num_heads = check_size("MultiheadAttention", "num_heads", num_heads)
        if embed_dim % num_heads:
            raise ValueError(
                f"MultiheadAttention: embed_dim={embed_dim} must be divisible by "
                f"num_heads={num_heads}"
            )
        self.embed_dim, self.num_heads, self.head_dim = (
            embed_dim,
            num_heads,
            embed_dim // num_heads,
        )
        self.dropout = check_probability("MultiheadAttention", "dropout", dropout)
        self.batch_first = batch_first
        gen = as_generator(rng)
        bound = math.sqrt(6.0 / (embed_dim + 3 * embed_dim))  # Xavier uniform, as PyTorch
        W = gen.uniform(-bound, bound, (3 * embed_dim, embed_dim))
        self.in_proj_weight = Parameter(W.astype(dtype))
        self.in_proj_bias = Parameter(np.zeros(3 * embed_dim, dtype)) if bias else None
        self.out_proj = Projection(embed_dim, embed_dim, bias, rng=gen, dtype=dtype)
        if bias:  # PyTorch starts both biases at zero
            self.out_proj.bias.data[...] = 0  # type: ignore[union-attr]

    def forward(
        self,
        query: Operand,
        key: Operand,
        value: Operand,
        key_padding_mask: Any = None,
        need_weights: bool = True,
        attn_mask: Any = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Variable, Variable | None]:
        """Attend from ``query`` to ``key``/``value``; return ``(output, weights)``.

        Args:
            query: ``(L, N, E)``, ``(N, L, E)`` with ``batch_first``, or ``(L, E)``.
            key: ``(S, N, E)`` (likewise).
            value: ``(S, N, E)`` (likewise).
            key_padding_mask: ``(N, S)``: True (or ``-inf``) for a key to ignore.
            need_weights: also return the attention weights.
            attn_mask: ``(L, S)`` or ``(N * num_heads, L, S)``: True (or ``-inf``) where a
                query may **not** attend; a float mask is added to the scores.
            average_attn_weights: average the weights over the heads.
            is_causal: a hint, as in PyTorch: it needs ``attn_mask`` (the causal mask
                itself), which is what is applied.

        Returns:
            ``(output, weights)``: output like ``query``; weights ``(N, L, S)`` (averaged)
            or ``(N, num_heads, L, S)``, ``None`` unless ``need_weights``. With
            ``need_weights`` a query whose keys are all masked gets NaN (a plain softmax,
            as PyTorch), without it zeros (PyTorch's SDPA).

        Raises:
            RuntimeError: for ``is_causal=True`` without ``attn_mask`` (PyTorch's error).
            ValueError: if the inputs are not 2-D or 3-D with ``embed_dim`` features.
        """
        if is_causal and attn_mask is None:
            raise RuntimeError(
                "MultiheadAttention: is_causal=True is a hint and needs attn_mask (the causal "
                "mask), as in PyTorch; e.g. attn_mask=~np.tri(L, dtype=bool)"
            )
        batched = np.ndim(query.data if isinstance(query, Variable) else query) == 3
        names = ("query", "key", "value")
        q, k, v = (self._as_batch(t, name) for t, name in zip((query, key, value), names))
        heads = [self._heads(F.linear(t, W, b)) for t, (W, b) in zip((q, k, v), self._blocks())]
        mask = self._mask(attn_mask, key_padding_mask, q.dtype, batched)
        weights = F.attention_weights(heads[0], heads[1], mask, safe=not need_weights)
        if self.dropout > 0 and self.training and Config.train:
            weights = F.dropout(weights, self.dropout, training=True)
        out = self.out_proj(self._merge(weights @ heads[2]))  # (N, L, E)
        if not batched:
            out = out[0]
        elif not self.batch_first:
            out = F.transpose(out, (1, 0, 2))
        if not need_weights:
            return out, None
        weights = F.mean(weights, axis=1) if average_attn_weights else weights
        return out, weights if batched else weights[0]

    def _as_batch(self, x: Operand, name: str) -> Variable:
        """``x`` as a batch-first ``(N, L, E)`` Variable (an unbatched ``(L, E)`` gets N=1)."""
        x = x if isinstance(x, Variable) else Variable(np.asarray(x))
        if x.ndim not in (2, 3) or x.shape[-1] != self.embed_dim:
            raise ValueError(
                f"MultiheadAttention: {name} must be (L, N, {self.embed_dim}), (N, L, "
                f"{self.embed_dim}) with batch_first, or (L, {self.embed_dim}); got {x.shape}"
            )
        if x.ndim == 2:
            return F.expand_dims(x, 0)
        return x if self.batch_first else F.transpose(x, (1, 0, 2))

    def _blocks(self) -> list[tuple[Variable, Variable | None]]:
        """The (weight, bias) of the query, key and value projections: rows of in_proj."""
        E, b = self.embed_dim, self.in_proj_bias
        return [
            (
                self.in_proj_weight[i * E : (i + 1) * E],
                None if b is None else b[i * E : (i + 1) * E],
            )
            for i in range(3)
        ]

    def _heads(self, x: Variable) -> Variable:
        """``(N, L, E)`` -> ``(N, heads, L, head_dim)``."""
        N, L, _ = x.shape
        return F.transpose(F.reshape(x, (N, L, self.num_heads, self.head_dim)), (0, 2, 1, 3))

    def _merge(self, x: Variable) -> Variable:
        """``(N, heads, L, head_dim)`` -> ``(N, L, E)``: the heads side by side."""
        N, _, L, _ = x.shape
        return F.reshape(F.transpose(x, (0, 2, 1, 3)), (N, L, self.embed_dim))

    def _mask(self, attn_mask: Any, key_padding_mask: Any, dtype: np.dtype, batched: bool) -> Any:
        """Both masks as one additive mask broadcasting to ``(N, heads, L, S)``."""
        total: Any = None
        if attn_mask is not None:
            total = _additive(attn_mask, dtype, "attn_mask")
            if total.ndim == 3:  # (N * heads, L, S) or, unbatched, (heads, L, S)
                total = F.reshape(total, (-1, self.num_heads, *total.shape[1:]))
        if key_padding_mask is not None:
            pad = _additive(key_padding_mask, dtype, "key_padding_mask")
            pad = F.reshape(pad, (pad.shape[0] if batched else 1, 1, 1, pad.shape[-1]))
            total = pad if total is None else total + pad
        return total

    def extra_repr(self) -> str:
        return (
            f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, dropout={self.dropout}, "
            f"batch_first={self.batch_first}"
        )
