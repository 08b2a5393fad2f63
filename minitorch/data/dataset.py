"""``Dataset``: indexable samples with optional transforms, and ``ArrayDataset``.

A dataset is anything with ``__len__`` and ``__getitem__(i) -> (x, t)``. The base class
keeps the samples in two ndarrays (``data`` and ``label``, as DeZero does) and applies
``transform`` to each input and ``target_transform`` to each label on the way out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

Transform = Callable[[Any], Any]


class Dataset:
    """Base class of datasets: ``len(ds)`` samples, ``ds[i]`` is ``(x, t)``.

    Subclasses fill ``self.data`` and ``self.label`` in :meth:`prepare` (called by
    ``__init__``), or override ``__getitem__``/``__len__`` for samples made on the fly.

    Shapes:
        ``data`` ``(N, *sample_shape)``; ``label`` ``(N, *label_shape)`` or ``None``.

    Args:
        train: which split to prepare (subclasses read it).
        transform: a callable applied to each input ``x`` (e.g. a
            :class:`~minitorch.data.transforms.Compose`), or ``None``.
        target_transform: a callable applied to each label ``t``, or ``None``.

    Raises:
        TypeError: if a transform is not callable.

    Example:
        >>> ds = ArrayDataset(np.arange(6.0).reshape(3, 2), np.array([0, 1, 0]))
        >>> len(ds), ds[1]
        (3, (array([2., 3.]), np.int64(1)))
    """

    def __init__(
        self,
        train: bool = True,
        transform: Transform | None = None,
        target_transform: Transform | None = None,
    ) -> None:
        for arg, value in (("transform", transform), ("target_transform", target_transform)):
            if value is not None and not callable(value):
                raise TypeError(
                    f"{type(self).__name__}: {arg} must be callable or None, "
                    f"got {type(value).__name__}"
                )
        self.train = train
        self.transform = transform
        self.target_transform = target_transform
        self.data: np.ndarray | None = None
        self.label: np.ndarray | None = None
        self.prepare()

    def prepare(self) -> None:
        """Fill ``self.data`` and ``self.label``; the base class has nothing to prepare."""

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        if self.data is None:
            raise NotImplementedError(
                f"{type(self).__name__}: fill self.data in prepare() or override __getitem__"
            )
        if not isinstance(index, (int, np.integer)):
            raise TypeError(
                f"{type(self).__name__}[index]: index must be an int, got {type(index).__name__}"
            )
        x = self.data[index]
        t = None if self.label is None else self.label[index]
        if self.transform is not None:
            x = self.transform(x)
        if self.target_transform is not None and t is not None:
            t = self.target_transform(t)
        return x, t

    def __len__(self) -> int:
        if self.data is None:
            raise NotImplementedError(
                f"{type(self).__name__}: fill self.data in prepare() or override __len__"
            )
        return len(self.data)

    def get_batch(self, indices: Sequence[int] | np.ndarray) -> tuple[Any, Any]:
        """Return the samples at ``indices`` stacked into ``(x, t)`` batches.

        Without transforms this is one fancy-indexing step (fast); with transforms each
        sample goes through ``__getitem__`` and the results are stacked.

        Raises:
            IndexError: if an index is out of range.
        """
        indices = np.asarray(indices, dtype=np.intp)
        plain = type(self).__getitem__ is Dataset.__getitem__
        if plain and self.data is not None and self.transform is None:
            if self.target_transform is None or self.label is None:
                t = None if self.label is None else self.label[indices]
                return self.data[indices], t
        return collate([self[int(i)] for i in indices])

    def __repr__(self) -> str:
        split = "train" if self.train else "test"
        size = "?" if self.data is None else len(self.data)
        return f"{type(self).__name__}(split={split}, samples={size})"


def collate(samples: Sequence[tuple[Any, Any]]) -> tuple[Any, Any]:
    """Stack ``(x, t)`` samples into one ``(x, t)`` batch (PyTorch's ``default_collate``).

    Shapes:
        ``B`` samples with x ``(*s)`` and t ``(*u)`` -> x ``(B, *s)``, t ``(B, *u)``; ``t``
        is ``None`` when every sample's label is ``None`` (an unlabelled dataset).

    Raises:
        ValueError: if the samples' shapes differ (``np.stack``'s message).

    Example:
        >>> x, t = collate([(np.zeros(2), 0), (np.ones(2), 1)])
        >>> x.shape, t
        ((2, 2), array([0, 1]))
    """
    return _stack([x for x, _ in samples]), _stack([t for _, t in samples])


def _stack(items: list[Any]) -> Any:
    if all(item is None for item in items):
        return None
    return np.stack([np.asarray(item) for item in items])


class ArrayDataset(Dataset):
    """A dataset over arrays you already have: ``ds[i] == (data[i], label[i])``.

    Shapes:
        ``data`` ``(N, ...)``, ``label`` ``(N, ...)`` or ``None``.

    Args:
        data: the inputs, first axis indexes samples.
        label: the targets (same first dimension) or ``None``.
        transform: applied to each input.
        target_transform: applied to each label.

    Raises:
        TypeError: if ``data``/``label`` are not ndarrays.
        ValueError: if their first dimensions differ or ``data`` is 0-d.

    Example:
        >>> ds = ArrayDataset(np.zeros((4, 2)), np.arange(4))
        >>> ds.get_batch([3, 0])[1]
        array([3, 0])
    """

    def __init__(
        self,
        data: np.ndarray,
        label: np.ndarray | None = None,
        transform: Transform | None = None,
        target_transform: Transform | None = None,
    ) -> None:
        if not isinstance(data, np.ndarray) or not (
            label is None or isinstance(label, np.ndarray)
        ):
            raise TypeError(
                f"ArrayDataset: data and label must be ndarrays, got {type(data).__name__} "
                f"and {type(label).__name__}"
            )
        if data.ndim == 0 or (label is not None and (label.ndim == 0 or len(label) != len(data))):
            raise ValueError(
                f"ArrayDataset: data {data.shape} and label "
                f"{None if label is None else label.shape} need the same first dimension"
            )
        self._arrays = (data, label)
        super().__init__(True, transform, target_transform)

    def prepare(self) -> None:
        """Use the arrays given to the constructor."""
        self.data, self.label = self._arrays
