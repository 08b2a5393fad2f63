"""Per-sample transforms: ``Compose``, ``Normalize``, ``Flatten``, ``ToFloat``.

Each transform is a small callable object taking and returning an ndarray, so datasets
can chain them: ``MNIST(root, transform=Compose([Flatten(), ToFloat(), Normalize(0, 255)]))``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


class Compose:
    """Apply several transforms in order: ``Compose([f, g])(x) == g(f(x))``.

    Args:
        transforms: a sequence of callables.

    Raises:
        TypeError: if an entry is not callable.

    Example:
        >>> Compose([Flatten(), ToFloat()])(np.ones((2, 2), dtype=np.uint8))
        array([1., 1., 1., 1.], dtype=float32)
    """

    def __init__(self, transforms: Sequence[Callable[[Any], Any]]) -> None:
        for i, f in enumerate(transforms):
            if not callable(f):
                raise TypeError(f"Compose: transform {i} is a {type(f).__name__}, not callable")
        self.transforms = list(transforms)

    def __call__(self, x: Any) -> Any:
        for f in self.transforms:
            x = f(x)
        return x

    def __repr__(self) -> str:
        inner = ", ".join(repr(f) for f in self.transforms)
        return f"Compose([{inner}])"


class Normalize:
    """``(x - mean) / std``, elementwise with broadcasting (per channel with shaped stats).

    Args:
        mean: a number or an array broadcastable to the sample.
        std: a number or an array of non-zero values broadcastable to the sample.

    Raises:
        ValueError: if ``std`` contains a zero.

    Example:
        >>> Normalize(mean=1.0, std=2.0)(np.array([1.0, 3.0]))
        array([0., 1.])
    """

    def __init__(self, mean: float | np.ndarray = 0.0, std: float | np.ndarray = 1.0) -> None:
        std_array = np.asarray(std)
        if np.any(std_array == 0):
            raise ValueError(f"Normalize: std must be non-zero, got {std!r}")
        self.mean = np.asarray(mean)
        self.std = std_array

    def __call__(self, x: np.ndarray) -> np.ndarray:
        y = (x - self.mean) / self.std
        # Keep float32 samples float32 (a float64 mean would otherwise promote them).
        if isinstance(x, np.ndarray) and x.dtype.kind == "f":
            y = y.astype(x.dtype, copy=False)
        return y

    def __repr__(self) -> str:
        return f"Normalize(mean={self.mean.tolist()}, std={self.std.tolist()})"


class Flatten:
    """Reshape one sample to 1-d: ``(C, H, W) -> (C*H*W,)``.

    Example:
        >>> Flatten()(np.zeros((1, 2, 3))).shape
        (6,)
    """

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(x).reshape(-1)

    def __repr__(self) -> str:
        return "Flatten()"


class ToFloat:
    """Convert a sample to a floating dtype (``float32`` by default), copying only if needed.

    Args:
        dtype: the target floating dtype.

    Raises:
        TypeError: if ``dtype`` is not a floating-point dtype.

    Example:
        >>> ToFloat()(np.array([0, 255], dtype=np.uint8))
        array([  0., 255.], dtype=float32)
    """

    def __init__(self, dtype: Any = np.float32) -> None:
        if np.dtype(dtype).kind != "f":
            raise TypeError(f"ToFloat: dtype must be floating point, got {np.dtype(dtype)}")
        self.dtype = np.dtype(dtype)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(x).astype(self.dtype, copy=False)

    def __repr__(self) -> str:
        return f"ToFloat({self.dtype.name})"
