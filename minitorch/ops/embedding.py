"""Embedding lookup: rows of a weight table selected by integer indices.

The gradient of a gather is a scatter-add: every occurrence of an index adds its row of
``gy`` into the table's gradient, so an index used twice receives both contributions
(``np.add.at``, which, unlike ``gW[indices] += gy``, does not drop repeats). The gradient
of that scatter is the gather again, so the lookup is differentiable to any order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minitorch.core import Function, Operand, Variable
from minitorch.core.function import Ops, Value, as_constant


class Embedding(Function):
    """y = W[indices];  gW = zeros(W.shape) with gy added at the rows ``indices``."""

    saves = ()

    def __init__(self, indices: np.ndarray) -> None:
        self.indices = indices

    def forward(self, W: np.ndarray) -> np.ndarray:
        self.W_shape = W.shape
        return W[self.indices]

    def jvp(self, xs: Sequence[Variable], y: Variable, tW: Variable) -> Variable:
        return Embedding(self.indices)(tW)

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gy: Value) -> Value:
        return xp.apply(EmbeddingGrad(self.indices, self.W_shape), gy)


class EmbeddingGrad(Function):
    """gW = rows of gy scatter-added at ``indices``;  its gradient gathers them back."""

    saves = ()

    def __init__(self, indices: np.ndarray, W_shape: tuple[int, ...]) -> None:
        self.indices, self.W_shape = indices, W_shape

    def forward(self, gy: np.ndarray) -> np.ndarray:
        gW = np.zeros(self.W_shape, dtype=gy.dtype)
        np.add.at(gW, self.indices, gy)
        return gW

    def jvp(self, xs: Sequence[Variable], y: Variable, tgy: Variable) -> Variable:
        return EmbeddingGrad(self.indices, self.W_shape)(tgy)

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, ggW: Value) -> Value:
        return xp.apply(Embedding(self.indices), ggW)


def _as_indices(indices: Any, num_embeddings: int) -> np.ndarray:
    # A copy: the graph keeps the indices of the forward point, whatever the caller's
    # array (a data loader's buffer) holds by the time backward runs.
    array = as_constant(indices, "embedding: indices")
    if array.dtype.kind not in "iu":
        raise TypeError(
            f"embedding: indices must be integers, got dtype {array.dtype}; "
            "convert with indices.astype(int)"
        )
    if array.size and (array.min() < 0 or array.max() >= num_embeddings):
        raise ValueError(
            f"embedding: indices must lie in [0, {num_embeddings}), got values from "
            f"{array.min()} to {array.max()}"
        )
    return array


def embedding(indices: Any, W: Operand) -> Variable:
    """Look up rows of ``W``: ``y[..., :] = W[indices[...], :]`` (``F.embedding`` in PyTorch).

    Equivalent to ``one_hot(indices) @ W`` without building the one-hot matrix. The
    gradient of ``W`` adds ``gy`` once per occurrence, so repeated indices accumulate; the
    indices get no gradient.

    Shapes:
        indices ``(*)`` integers, W ``(num_embeddings, embedding_dim)`` ->
        ``(*, embedding_dim)``; W's gradient has W's shape.

    Args:
        indices: an integer ndarray (or Variable, list) of any shape.
        W: the embedding table.

    Returns:
        The selected rows, with W's dtype.

    Raises:
        TypeError: if ``indices`` is not of an integer dtype.
        ValueError: if ``W`` is not 2-D or an index lies outside ``[0, num_embeddings)``.

    Example:
        >>> W = Variable(np.arange(6.0).reshape(3, 2))
        >>> y = embedding(np.array([2, 0, 2]), W)
        >>> y.data
        array([[4., 5.],
               [0., 1.],
               [4., 5.]])
        >>> y.sum().backward()
        >>> W.grad
        variable([[1. 1.]
                  [0. 0.]
                  [2. 2.]])

    References:
        Bengio, Ducharme, Vincent & Jauvin, "A Neural Probabilistic Language Model",
        JMLR 2003 (learned word feature vectors).
    """
    if len(np.shape(W)) != 2:
        raise ValueError(
            f"embedding: W must be 2-D (num_embeddings, embedding_dim), got shape {np.shape(W)}"
        )
    return Embedding(_as_indices(indices, np.shape(W)[0]))(W)
