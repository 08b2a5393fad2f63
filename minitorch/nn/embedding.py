"""``Embedding``: a learned vector for each of ``num_embeddings`` tokens (``F.embedding``)."""

from __future__ import annotations

from typing import Any

import numpy as np

import minitorch.ops as F
from minitorch.core import Variable
from minitorch.nn.checks import check_size
from minitorch.nn.init import RNGLike, as_generator
from minitorch.nn.module import Module, Parameter


class Embedding(Module):
    """A lookup table of ``num_embeddings`` vectors of size ``embedding_dim``.

    ``W`` starts as standard normal draws (as ``torch.nn.Embedding``); ``layer(indices)``
    returns ``W[indices]``, and repeated indices accumulate their gradients.

    Shapes:
        indices ``(*)`` integers -> ``(*, embedding_dim)``; ``W`` ``(num_embeddings,
        embedding_dim)``.

    Args:
        num_embeddings: the vocabulary size.
        embedding_dim: the size of each vector.
        rng: a Generator, an int seed, or ``None`` for minitorch's default generator.
        dtype: the parameter's floating dtype.

    Raises:
        ValueError: for non-positive sizes; at call time, for an index outside
            ``[0, num_embeddings)``.
        TypeError: at call time, for non-integer indices.

    Example:
        >>> emb = Embedding(10, 3, rng=0)
        >>> emb(np.array([[1, 2], [1, 9]])).shape
        (2, 2, 3)

    References:
        Bengio et al., "A Neural Probabilistic Language Model", JMLR 2003.
    """

    def __init__(
        self, num_embeddings: int, embedding_dim: int, rng: RNGLike = None, dtype: Any = np.float32
    ) -> None:
        super().__init__()
        num_embeddings = check_size("Embedding", "num_embeddings", num_embeddings)
        embedding_dim = check_size("Embedding", "embedding_dim", embedding_dim)
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        W = as_generator(rng).standard_normal((num_embeddings, embedding_dim))
        self.W = Parameter(W.astype(dtype))

    def forward(self, indices: Any) -> Variable:
        """Return the rows of ``W`` at ``indices``."""
        return F.embedding(indices, self.W)

    def extra_repr(self) -> str:
        return f"{self.num_embeddings}, {self.embedding_dim}"
