"""Attention: masks (tril, triu, masked_fill) and scaled dot-product attention.

    Attention(Q, K, V) = softmax(Q K^T * scale + M) V,      scale = 1 / sqrt(E)

(Vaswani et al. 2017, eq. 1). Every piece is an op minitorch already has — ``matmul``,
``mul``, ``where`` for the mask, ``softmax``, ``dropout`` — so attention is a composition
and its gradients (and second derivatives, and tangents) come from theirs. The one
Function of its own is :class:`SafeSoftmax`: PyTorch 2.13 gives a query whose every key is
masked out zero weights (not NaN), which a plain softmax of a row of ``-inf`` cannot do.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minitorch.core import Operand, Variable
from minitorch.core.function import as_constant
from minitorch.ops.activation import Softmax, softmax
from minitorch.ops.arithmetic import mul
from minitorch.ops.indexing import where
from minitorch.ops.linalg import matmul
from minitorch.ops.loss import dropout
from minitorch.ops.reduce import max_keepdims
from minitorch.ops.reshape import as_float, transpose


def _band(x: Operand, diagonal: int, lower: bool, name: str) -> Variable:
    shape = np.shape(x.data if isinstance(x, Variable) else x)
    if len(shape) < 2:
        raise ValueError(f"{name}: expected at least 2 dimensions, got shape {shape}")
    rows, cols = shape[-2:]
    keep = np.tri(rows, cols, diagonal, dtype=np.bool_)
    keep = keep if lower else ~np.tri(rows, cols, diagonal - 1, dtype=np.bool_)
    return where(keep, x, np.zeros((), dtype=np.result_type(x)))


def tril(x: Operand, diagonal: int = 0) -> Variable:
    """The lower triangle of the last two axes, the rest set to 0 (``torch.tril``).

    Element ``(i, j)`` is kept where ``j - i <= diagonal``. A composition with
    :func:`~minitorch.ops.where`, so the gradient is ``gy`` on the kept elements, 0 above.

    Shapes:
        x ``(*, n, m)`` -> the same shape and dtype.

    Args:
        x: the input, at least 2-D.
        diagonal: which diagonal is the edge: 0 the main one, ``k > 0`` above it,
            ``k < 0`` below it.

    Returns:
        A Variable.

    Raises:
        ValueError: if ``x`` has fewer than 2 dimensions.

    Example:
        >>> tril(np.ones((2, 3)))
        variable([[1. 0. 0.]
                  [1. 1. 0.]])
    """
    return _band(x, diagonal, True, "tril")


def triu(x: Operand, diagonal: int = 0) -> Variable:
    """The upper triangle of the last two axes, the rest set to 0 (``torch.triu``).

    Element ``(i, j)`` is kept where ``j - i >= diagonal``; the gradient is ``gy`` there.

    Shapes:
        x ``(*, n, m)`` -> the same shape and dtype.

    Args:
        x: the input, at least 2-D.
        diagonal: which diagonal is the edge: 0 the main one, ``k > 0`` above it.

    Returns:
        A Variable.

    Raises:
        ValueError: if ``x`` has fewer than 2 dimensions.

    Example:
        >>> triu(np.ones((2, 3)), 1)
        variable([[0. 1. 1.]
                  [0. 0. 1.]])
    """
    return _band(x, diagonal, False, "triu")


def _bool_mask(mask: Any, name: str) -> np.ndarray:
    array = as_constant(mask, name)
    if array.dtype != np.bool_:
        raise TypeError(f"{name} must be a bool array, got dtype {array.dtype}")
    return array


def masked_fill(x: Operand, mask: Any, value: float) -> Variable:
    """``x`` with ``value`` wherever ``mask`` is True (``torch.Tensor.masked_fill``).

    The filled elements get no gradient; the others pass ``gy`` through.

    Shapes:
        x ``(*a)``, mask ``(*m)`` broadcasting to ``a`` -> ``a``.

    Args:
        x: the input.
        mask: a bool array (True: replace).
        value: the number put there (``-inf`` masks attention scores).

    Returns:
        A Variable of ``x``'s dtype.

    Raises:
        TypeError: if ``mask`` is not boolean.
        ValueError: if ``mask`` does not broadcast to ``x``'s shape.

    Example:
        >>> masked_fill(Variable(np.array([1.0, 2.0])), np.array([False, True]), -np.inf)
        variable([  1. -inf])
    """
    condition = _bool_mask(mask, "masked_fill: mask")
    shape = np.shape(x.data if isinstance(x, Variable) else x)
    if np.broadcast_shapes(condition.shape, shape) != shape:
        raise ValueError(
            f"masked_fill: mask of shape {condition.shape} does not broadcast to x's shape {shape}"
        )
    return where(condition, np.asarray(value, dtype=np.result_type(x)), x)


def _safe_softmax_array(x: np.ndarray, keep: np.ndarray | None) -> np.ndarray:
    if keep is not None:  # masked scores are -inf: their weights are exactly 0
        x = np.where(keep, x, -np.inf)
    # A row of -inf only (every key masked) has max -inf: shift by 0 instead, so its
    # exponentials are all 0 and the row of weights is 0 (not 0/0 = NaN).
    peak = max_keepdims(x, (x.ndim - 1,))
    e = np.exp(x - np.where(np.isneginf(peak), 0, peak))
    total = np.sum(e, axis=-1, keepdims=True)
    e /= np.where(total == 0, 1, total)
    return e


class SafeSoftmax(Softmax):
    """softmax over the last axis of the allowed entries (``keep``), 0 elsewhere and for
    a row with none;  gx = y * (gy - sum(gy * y)), which is 0 wherever y is."""

    def __init__(self, keep: np.ndarray | None = None) -> None:
        super().__init__(-1)
        self.keep = keep  # a constant bool mask, broadcasting to x (None: all allowed)

    def forward(self, x: np.ndarray) -> np.ndarray:
        self.axes = (x.ndim - 1,)  # the keys' axis; jvp and vjp are Softmax's
        return _safe_softmax_array(x, self.keep)


def _check_qkv(query: Any, key: Any, value: Any) -> tuple[tuple[int, ...], ...]:
    shapes = tuple(np.shape(a.data if isinstance(a, Variable) else a) for a in (query, key, value))
    q, k, v = shapes
    if min(len(s) for s in shapes) < 2:
        raise ValueError(
            f"scaled_dot_product_attention: query, key and value need at least 2 dims "
            f"(..., L or S, E), got {q}, {k}, {v}"
        )
    if q[-1] != k[-1] or k[-2] != v[-2]:
        raise ValueError(
            f"scaled_dot_product_attention: query {q}, key {k}, value {v}: query and key "
            "need the same last dimension E, key and value the same length S"
        )
    return shapes


def _split_mask(scores_shape: tuple[int, ...], attn_mask: Any, is_causal: bool) -> tuple:
    """The mask as ``(keep, additive)``: a bool array of the allowed entries (or None) and
    an additive float mask (or None), each broadcasting to the scores ``(*, L, S)``."""
    length, source = scores_shape[-2:]
    keep = np.tri(length, source, dtype=np.bool_) if is_causal else None  # top-left aligned
    if attn_mask is None:
        return keep, None
    mask = attn_mask.data if isinstance(attn_mask, Variable) else np.asarray(attn_mask)
    try:
        np.broadcast_shapes(mask.shape, scores_shape)
    except ValueError:
        raise ValueError(
            f"scaled_dot_product_attention: attn_mask of shape {mask.shape} does not "
            f"broadcast to the scores' shape {scores_shape} (..., L, S)"
        ) from None
    if mask.dtype == np.bool_:  # True: may attend
        return (mask.copy() if keep is None else keep & mask), None
    if mask.dtype.kind != "f":
        raise TypeError(
            f"scaled_dot_product_attention: attn_mask must be bool or float, got {mask.dtype}"
        )
    return keep, attn_mask if isinstance(attn_mask, Variable) else mask


def attention_weights(
    query: Operand,
    key: Operand,
    attn_mask: Any = None,
    is_causal: bool = False,
    scale: float | None = None,
    safe: bool = True,
) -> Variable:
    """The attention weights ``softmax(query @ key^T * scale + mask)`` alone.

    What :func:`scaled_dot_product_attention` multiplies ``value`` by (before dropout),
    for pictures and for ``nn.MultiheadAttention``'s ``need_weights``.

    Shapes:
        query ``(*, L, E)``, key ``(*, S, E)`` -> ``(*, L, S)``; each row sums to 1 (or is
        0 where every key is masked and ``safe``).

    Args:
        query: the queries.
        key: the keys.
        attn_mask: as for :func:`scaled_dot_product_attention`.
        is_causal: as for :func:`scaled_dot_product_attention`.
        scale: as for :func:`scaled_dot_product_attention`.
        safe: a fully masked row gives zeros (PyTorch's SDPA) rather than NaN (a plain
            softmax, PyTorch's ``MultiheadAttention`` with ``need_weights=True``).

    Returns:
        A Variable of the weights.

    Raises:
        ValueError: as :func:`scaled_dot_product_attention`.

    Example:
        >>> q = k = Variable(np.zeros((2, 4)))
        >>> attention_weights(q, k, is_causal=True).data
        array([[1. , 0. ],
               [0.5, 0.5]])
    """
    query, key = as_float(query), as_float(key)
    q_shape, k_shape, _ = _check_qkv(query, key, key)
    scale = 1.0 / math.sqrt(q_shape[-1]) if scale is None else float(scale)
    axes = (*range(len(k_shape) - 2), len(k_shape) - 1, len(k_shape) - 2)
    # Scale the queries (L x E numbers), not the scores (L x S): the same product.
    scores = matmul(mul(query, scale), transpose(key, axes))
    keep, additive = _split_mask(scores.shape, attn_mask, is_causal)
    if additive is not None:  # an array is cast to the scores' dtype; a Variable is an input
        is_array = not isinstance(additive, Variable)
        scores = scores + (additive.astype(scores.dtype) if is_array else additive)
    if safe:  # the bool mask inside the softmax: one op, no -inf scores in the graph
        return SafeSoftmax(keep)(scores)
    scores = scores if keep is None else where(keep, scores, -np.inf)
    return softmax(scores, axis=-1)


def scaled_dot_product_attention(
    query: Operand,
    key: Operand,
    value: Operand,
    attn_mask: Any = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
) -> Variable:
    """Scaled dot-product attention, as ``torch.nn.functional.scaled_dot_product_attention``.

    ``softmax(query @ key^T * scale + M) @ value`` where the mask ``M`` is 0 where a query
    may attend to a key and ``-inf`` where it may not. A query none of whose keys may be
    attended to gets zero weights, and so a zero output and zero gradient (PyTorch 2.13).

    Shapes:
        query ``(*, L, E)``, key ``(*, S, E)``, value ``(*, S, Ev)`` (the leading axes
        broadcast, e.g. ``(N, heads)``), attn_mask broadcasting to ``(*, L, S)`` ->
        ``(*, L, Ev)``.

    Args:
        query: the queries.
        key: the keys.
        value: the values.
        attn_mask: ``None``; a bool array, True where a query **may** attend to a key;
            or a float array (or Variable) **added** to the scores (``-inf`` forbids).
        dropout_p: the probability of dropping an attention weight (applied whenever
            ``> 0``, as PyTorch: pass 0.0 in evaluation).
        is_causal: query ``i`` may attend to keys ``0..i`` only (``tril`` of ``(L, S)``);
            then ``attn_mask`` must be ``None``, as in PyTorch.
        scale: the factor of the scores; default ``1 / sqrt(E)``.

    Returns:
        A Variable of the attended values.

    Raises:
        ValueError: if an input has fewer than 2 dims, ``E`` or ``S`` disagree, or the
            mask does not broadcast to ``(*, L, S)``.
        TypeError: if ``attn_mask`` is neither bool nor float.
        RuntimeError: if both ``attn_mask`` and ``is_causal`` are given (PyTorch's error).

    Example:
        >>> q = k = Variable(np.zeros((2, 4)))
        >>> v = Variable(np.array([[1.0, 0.0], [0.0, 1.0]]))
        >>> scaled_dot_product_attention(q, k, v, is_causal=True)
        variable([[1.  0. ]
                  [0.5 0.5]])

    References:
        A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, §3.2.1.
    """
    _check_qkv(query, key, value)
    if is_causal and attn_mask is not None:
        raise RuntimeError(
            "scaled_dot_product_attention: give attn_mask or is_causal=True, not both "
            "(as PyTorch); for both, pass attn_mask & np.tri(L, S, dtype=bool)"
        )
    weights = attention_weights(query, key, attn_mask, is_causal, scale)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, training=True)
    return matmul(weights, as_float(value))
