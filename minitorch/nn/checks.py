"""Argument checks shared by the layers' constructors.

A layer built with a wrong argument should fail at once, with a message naming the
layer and the argument, not later inside NumPy (``'<' not supported between 'str' and
'int'``) or at the first forward call.
"""

from __future__ import annotations

import math
from typing import TypeGuard

import numpy as np

#: A 2-D size argument: an int ``n`` means ``(n, n)``, as in ``torch.nn``.
IntOrPair = int | tuple[int, int]


def check_size(layer: str, name: str, value: object) -> int:
    """Return ``value`` as an ``int`` if it is a positive integer.

    Args:
        layer: the layer's name, for the message (``"Linear"``).
        name: the argument's name (``"out_features"``).
        value: what the caller passed.

    Returns:
        ``value`` as a Python int.

    Raises:
        TypeError: if ``value`` is not an integer (``bool`` and floats included).
        ValueError: if ``value`` is 0 or negative.

    Example:
        >>> check_size("Linear", "out_features", "a")
        Traceback (most recent call last):
        ...
        TypeError: Linear: out_features must be a positive int, got 'a' (str)
    """
    return _size(layer, name, value, "a positive int")


def check_lazy_size(layer: str, name: str, value: object) -> int | None:
    """As :func:`check_size`, but ``None`` (inferred at the first call) is allowed too.

    Example:
        >>> check_lazy_size("Linear", "in_features", None) is None
        True
        >>> check_lazy_size("Linear", "in_features", 0)
        Traceback (most recent call last):
        ...
        ValueError: Linear: in_features must be positive, got 0
    """
    return None if value is None else _size(layer, name, value, "a positive int or None")


def _size(layer: str, name: str, value: object, wanted: str) -> int:
    if not _is_int(value):
        kind = type(value).__name__
        raise TypeError(f"{layer}: {name} must be {wanted}, got {value!r} ({kind})")
    if value < 1:
        raise ValueError(f"{layer}: {name} must be positive, got {value}")
    return int(value)


def check_probability(layer: str, name: str, value: object) -> float:
    """Return ``value`` as a ``float`` if it is a real number in ``[0, 1]``.

    Raises:
        TypeError: if ``value`` is not a real number (``bool`` included).
        ValueError: if ``value`` is outside ``[0, 1]`` or NaN.

    Example:
        >>> check_probability("Dropout", "p", 1.5)
        Traceback (most recent call last):
        ...
        ValueError: Dropout: p must be in [0, 1], got 1.5
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(
            f"{layer}: {name} must be a number in [0, 1], got {value!r} ({type(value).__name__})"
        )
    if math.isnan(value) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{layer}: {name} must be in [0, 1], got {value}")
    return float(value)


def check_kernel_size(layer: str, value: object) -> tuple[int, int]:
    """Return a ``kernel_size`` argument as ``(KH, KW)``; an int ``k`` is ``(k, k)``.

    Args:
        layer: the layer's name, for the message (``"Conv2d"``).
        value: what the caller passed.

    Returns:
        Two Python ints.

    Raises:
        TypeError: if ``value`` is neither an int nor a pair of ints (``bool`` excluded).
        ValueError: if a side is 0 or negative.

    Example:
        >>> check_kernel_size("Conv2d", 3), check_kernel_size("Conv2d", (3, 1))
        ((3, 3), (3, 1))
        >>> check_kernel_size("Conv2d", (3, 0))
        Traceback (most recent call last):
        ...
        ValueError: Conv2d: kernel_size must be positive, got (3, 0)
    """
    return check_pair(layer, "kernel_size", value, minimum=1)


def check_pair(layer: str, name: str, value: object, minimum: int) -> tuple[int, int]:
    """Return a 2-D size argument (an int ``n`` or a pair) as two ints ``>= minimum``.

    ``minimum`` is 1 for kernel sizes and strides (a stride of 0 would never move the
    window) and 0 for paddings.

    Args:
        layer: the layer's name, for the message (``"Conv2d"``).
        name: the argument's name (``"stride"``).
        value: what the caller passed.
        minimum: the smallest allowed side (0 or 1).

    Returns:
        Two Python ints.

    Raises:
        TypeError: if ``value`` is neither an int nor a pair of ints (``bool`` excluded).
        ValueError: if a side is below ``minimum``.

    Example:
        >>> check_pair("Conv2d", "padding", -1, minimum=0)
        Traceback (most recent call last):
        ...
        ValueError: Conv2d: padding must be non-negative, got -1
    """
    sides = tuple(value) if isinstance(value, (tuple, list)) else (value, value)
    ints = [int(side) for side in sides if _is_int(side)]
    if len(sides) != 2 or len(ints) != 2:
        kind = type(value).__name__
        raise TypeError(
            f"{layer}: {name} must be an int or a pair of ints, got {value!r} ({kind})"
        )
    if min(ints) < minimum:
        wanted = "positive" if minimum == 1 else "non-negative"
        raise ValueError(f"{layer}: {name} must be {wanted}, got {value!r}")
    return ints[0], ints[1]


def check_momentum(layer: str, value: object) -> float | None:
    """Return a batch-norm ``momentum``: a number in ``[0, 1]``, or ``None``.

    ``None`` asks for a cumulative moving average (the mean of every batch seen), as in
    ``torch.nn.BatchNorm1d``.

    Raises:
        TypeError: if ``value`` is neither a real number nor ``None``.
        ValueError: if ``value`` is outside ``[0, 1]`` or NaN.

    Example:
        >>> check_momentum("BatchNorm1d", 1.5)
        Traceback (most recent call last):
        ...
        ValueError: BatchNorm1d: momentum must be in [0, 1], got 1.5
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(
            f"{layer}: momentum must be a number in [0, 1] or None (a cumulative average), "
            f"got {value!r} ({type(value).__name__})"
        )
    return check_probability(layer, "momentum", value)


def check_eps(layer: str, value: object) -> float:
    """Return ``eps`` (the constant added to a variance) if it is a positive number.

    ``eps <= 0`` would divide by zero for a constant channel or feature.

    Raises:
        TypeError: if ``value`` is not a real number (``bool`` included).
        ValueError: if ``value`` is 0, negative, NaN or infinite.

    Example:
        >>> check_eps("LayerNorm", 0.0)
        Traceback (most recent call last):
        ...
        ValueError: LayerNorm: eps must be a positive number, got 0.0
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(
            f"{layer}: eps must be a positive number, got {value!r} ({type(value).__name__})"
        )
    if not 0.0 < value < math.inf:  # also rejects NaN
        raise ValueError(f"{layer}: eps must be a positive number, got {value}")
    return float(value)


def _is_int(value: object) -> TypeGuard[int | np.integer]:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)
