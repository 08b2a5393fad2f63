"""Reductions: sum and mean over any axes (int, negative int, tuple or None).

The gradient of a reduction broadcasts ``gy`` back over the reduced axes; without
``keepdims`` those axes are first re-inserted with size 1 so broadcasting lines up.
"""

from __future__ import annotations

import numpy as np

from minitorch.core import Function, Operand, Variable
from minitorch.ops.reshape import broadcast_to, reshape

Axis = int | tuple[int, ...] | None


def normalize_axis(axis: Axis, ndim: int, op: str) -> tuple[int, ...]:
    """Return ``axis`` as a sorted tuple of non-negative ints (all axes for ``None``).

    Raises:
        ValueError: if an axis is out of range for ``ndim`` or repeated (names ``op``).
    """
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    if any(not -ndim <= a < max(ndim, 1) for a in axes):
        raise ValueError(f"{op}: axis {axis} is out of range for an array with {ndim} dims")
    result = tuple(sorted(int(a) % max(ndim, 1) for a in axes))
    if len(set(result)) != len(result):
        raise ValueError(f"{op}: repeated axis in {axis}")
    return result


def keepdims_shape(x_shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    """``x_shape`` with each reduced axis set to 1 (the shape ``keepdims=True`` gives)."""
    return tuple(1 if i in axes else d for i, d in enumerate(x_shape))


class Sum(Function):
    """y = sum of x over ``axis``;  gx = gy broadcast back to x's shape."""

    def __init__(self, axis: Axis, keepdims: bool) -> None:
        self.axis = axis
        self.keepdims = keepdims

    def forward(self, x: np.ndarray) -> np.ndarray:
        self.x_shape = x.shape
        self.axes = normalize_axis(self.axis, x.ndim, "sum")
        return np.sum(x, axis=self.axes, keepdims=self.keepdims)

    def backward(self, gy: Variable) -> Variable:
        gy = reshape(gy, keepdims_shape(self.x_shape, self.axes))
        return broadcast_to(gy, self.x_shape)

    def backward_array(self, gy: np.ndarray) -> np.ndarray:
        gy = gy.reshape(keepdims_shape(self.x_shape, self.axes))
        return np.broadcast_to(gy, self.x_shape)


def sum(x: Operand, axis: Axis = None, keepdims: bool = False) -> Variable:
    """Sum the elements of ``x`` over ``axis`` (``np.sum``).

    Shapes:
        x ``(d0, ..., dn)`` -> the reduced axes removed (or kept as 1 with ``keepdims``).

    Raises:
        ValueError: if an axis is out of range or repeated.

    Example:
        >>> sum(Variable(np.ones((2, 3))), axis=0)
        variable([2. 2. 2.])
    """
    return Sum(axis, keepdims)(x)


def mean(x: Operand, axis: Axis = None, keepdims: bool = False) -> Variable:
    """Arithmetic mean of ``x`` over ``axis`` (``np.mean``): ``sum / count``.

    A composition of ``sum`` and a constant multiplication, so its gradient
    (``gy / count`` for every element) needs no Function of its own.

    Shapes:
        as :func:`sum`.

    Raises:
        ValueError: if an axis is out of range or repeated.

    Example:
        >>> mean(Variable(np.array([[1.0, 2.0], [3.0, 4.0]])), axis=-1)
        variable([1.5 3.5])
    """
    y = sum(x, axis, keepdims)
    x_size = x.size if isinstance(x, Variable) else np.size(x)
    count = x_size // max(y.size, 1) if x_size else 0
    return y * (1.0 / count if count else np.nan)
