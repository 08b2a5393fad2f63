"""minitorch's own random number generator (a ``numpy.random.Generator``).

Ops that draw random numbers (``dropout``) and layers that initialise weights take
them from :func:`default_generator`, never from NumPy's global state, so
``minitorch.manual_seed(0)`` makes a whole training run reproducible without touching
other libraries' randomness — the design of ``torch.manual_seed``.
"""

from __future__ import annotations

import numpy as np

_generator: np.random.Generator = np.random.default_rng()


def manual_seed(seed: int) -> np.random.Generator:
    """Re-seed minitorch's default generator and return it.

    Args:
        seed: a non-negative integer.

    Returns:
        The new default ``numpy.random.Generator`` (PCG64).

    Raises:
        TypeError: if ``seed`` is not an integer.
        ValueError: if ``seed`` is negative.

    Example:
        >>> a = manual_seed(0).random()
        >>> b = manual_seed(0).random()
        >>> a == b
        True
    """
    global _generator
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"manual_seed: seed must be an int, got {type(seed).__name__}")
    if seed < 0:
        raise ValueError(f"manual_seed: seed must be non-negative, got {seed}")
    _generator = np.random.default_rng(int(seed))
    return _generator


def default_generator() -> np.random.Generator:
    """Return the generator that minitorch's random ops draw from.

    Example:
        >>> isinstance(default_generator(), np.random.Generator)
        True
    """
    return _generator
