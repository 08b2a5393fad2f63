"""``DataLoader``: iterate over a dataset in (shuffled) mini-batches of ndarrays."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from minitorch.data.dataset import Dataset, collate
from minitorch.random import default_generator


class DataLoader:
    """Yield ``(x, t)`` mini-batches of ndarrays, one pass over the dataset per loop.

    Each ``for`` loop is one epoch. With ``shuffle=True`` every epoch draws a new
    permutation from the loader's own ``numpy.random.Generator``, made from ``seed`` —
    or, for ``seed=None``, seeded once from minitorch's default generator, so
    ``minitorch.manual_seed`` before building the loader makes the order reproducible.

    Shapes:
        ``x`` ``(B, *sample_shape)``, ``t`` ``(B, *label_shape)`` (``None`` when the dataset
        has no labels), with ``B = batch_size`` except perhaps the last batch.

    Args:
        dataset: a :class:`Dataset` (uses its fast ``get_batch``) or any object with
            ``__len__`` and ``__getitem__(i) -> (x, t)``.
        batch_size: samples per batch (≥ 1).
        shuffle: draw a new random order every epoch (``False``: dataset order).
        drop_last: drop the last batch if it is smaller than ``batch_size``.
        seed: seed of the shuffling generator (``None``: drawn from minitorch's default
            generator when the loader is built).

    Raises:
        ValueError: if ``batch_size`` is not a positive int or the dataset is empty.
        TypeError: if ``dataset`` has no ``__len__``/``__getitem__``.

    Example:
        >>> from minitorch.data import ArrayDataset
        >>> ds = ArrayDataset(np.arange(10.0).reshape(5, 2), np.arange(5))
        >>> [t.tolist() for x, t in DataLoader(ds, batch_size=2, shuffle=False)]
        [[0, 1], [2, 3], [4]]
    """

    def __init__(
        self,
        dataset: Any,
        batch_size: int,
        shuffle: bool = True,
        drop_last: bool = False,
        seed: int | None = None,
    ) -> None:
        if not (hasattr(dataset, "__len__") and hasattr(dataset, "__getitem__")):
            raise TypeError(
                f"DataLoader: dataset must define __len__ and __getitem__, "
                f"got {type(dataset).__name__}"
            )
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)):
            raise ValueError(f"DataLoader: batch_size must be a positive int, got {batch_size!r}")
        if batch_size < 1:
            raise ValueError(f"DataLoader: batch_size must be a positive int, got {batch_size}")
        if len(dataset) == 0:
            raise ValueError("DataLoader: the dataset is empty")
        self.dataset = dataset
        self.batch_size = int(batch_size)
        self.shuffle = shuffle
        self.drop_last = drop_last
        if seed is None:  # follow minitorch.manual_seed, but draw independently of dropout
            seed = int(default_generator().integers(2**63))
        self.rng = np.random.default_rng(seed)

    def __len__(self) -> int:
        """The number of batches per epoch."""
        n = len(self.dataset) / self.batch_size
        return math.floor(n) if self.drop_last else math.ceil(n)

    def __iter__(self) -> Iterator[tuple[Any, Any]]:
        n = len(self.dataset)
        order = self.rng.permutation(n) if self.shuffle else np.arange(n)
        for i in range(len(self)):
            yield self._batch(order[i * self.batch_size : (i + 1) * self.batch_size])

    def _batch(self, indices: np.ndarray) -> tuple[Any, Any]:
        if isinstance(self.dataset, Dataset):
            return self.dataset.get_batch(indices)
        return collate([self.dataset[int(i)] for i in indices])

    def __repr__(self) -> str:
        return (
            f"DataLoader({type(self.dataset).__name__}, batch_size={self.batch_size}, "
            f"shuffle={self.shuffle}, drop_last={self.drop_last})"
        )
