"""Weight initialisation: He (Kaiming) and Xavier (Glorot) normal draws.

Both keep the variance of activations roughly constant from layer to layer at the start
of training. For a weight of shape ``(fan_out, fan_in)``:

* He: ``std = sqrt(2 / fan_in)`` — for ReLU, which zeroes half of its inputs.
* Xavier: ``std = sqrt(2 / (fan_in + fan_out))`` — for tanh/sigmoid (linear near 0).

The numbers come from a ``numpy.random.Generator``: the one passed in, one seeded with
the int passed in, or minitorch's default generator (``minitorch.manual_seed``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minitorch.random import default_generator

#: What layers accept as ``rng``: a Generator, a seed, or None for minitorch's generator.
RNGLike = np.random.Generator | int | None

INITS = ("he", "xavier")


def as_generator(rng: RNGLike) -> np.random.Generator:
    """Return ``rng`` itself, a Generator seeded with it, or the default generator.

    Raises:
        TypeError: for anything else.
    """
    if rng is None:
        return default_generator()
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        return np.random.default_rng(int(rng))
    raise TypeError(
        f"rng must be a numpy Generator, an int seed or None, got {type(rng).__name__}"
    )


def init_weight(
    shape: tuple[int, int], method: str = "xavier", rng: RNGLike = None, dtype: Any = np.float32
) -> np.ndarray:
    """Draw a ``(fan_out, fan_in)`` weight matrix with He or Xavier scaling.

    Shapes:
        ``shape = (fan_out, fan_in)`` -> an array of that shape and ``dtype``.

    Args:
        shape: ``(out_features, in_features)``.
        method: ``"he"`` or ``"xavier"``.
        rng: a Generator, an int seed or ``None`` (minitorch's default generator).
        dtype: the floating dtype of the result.

    Raises:
        ValueError: for an unknown ``method`` or a non-positive dimension.

    Example:
        >>> W = init_weight((300, 200), "he", rng=0, dtype=np.float64)
        >>> round(float(W.std() / np.sqrt(2 / 200)), 1)
        1.0

    References:
        K. He, X. Zhang, S. Ren, J. Sun, "Delving deep into rectifiers", ICCV 2015.
        X. Glorot and Y. Bengio, "Understanding the difficulty of training deep
        feedforward neural networks", AISTATS 2010.
    """
    fan_out, fan_in = shape
    if fan_out < 1 or fan_in < 1:
        raise ValueError(f"init_weight: dimensions must be positive, got shape {shape}")
    if method == "he":
        std = math.sqrt(2.0 / fan_in)
    elif method == "xavier":
        std = math.sqrt(2.0 / (fan_in + fan_out))
    else:
        raise ValueError(f"init_weight: method must be one of {INITS}, got {method!r}")
    return (as_generator(rng).standard_normal(shape) * std).astype(dtype)
