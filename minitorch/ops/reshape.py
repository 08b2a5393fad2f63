"""Shape ops that move values without changing them: reshape, transpose, broadcast, sum_to.

``broadcast_to`` and ``sum_to`` are each other's gradients; every binary op ends its
backward with ``sum_to(gx, x.shape)`` to undo NumPy broadcasting.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from minitorch.core import Function, Operand, Variable

Shape = tuple[int, ...]


def sum_to_array(x: np.ndarray, shape: Shape) -> np.ndarray:
    """Sum ``x`` over the axes that broadcasting added or stretched, giving ``shape``.

    Raises:
        ValueError: if ``shape`` does not broadcast to ``x.shape``.
    """
    if x.shape == shape:
        return x
    lead = x.ndim - len(shape)
    if lead < 0 or any(s != 1 and s != d for s, d in zip(shape, x.shape[lead:])):
        raise ValueError(f"sum_to: cannot sum an array of shape {x.shape} to shape {shape}")
    axes = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and x.shape[lead + i] != 1
    )
    y = x.sum(axis=axes, keepdims=True)
    return y.reshape(shape) if lead else y


def _normalize_shape(shape: Sequence[int | Sequence[int]]) -> Shape:
    """Accept ``reshape(2, 3)`` and ``reshape((2, 3))`` alike."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(int(s) for s in shape[0])
    return tuple(int(s) for s in shape)  # type: ignore[arg-type]


class Reshape(Function):
    """y = x viewed with a new shape;  gx = gy reshaped back."""

    def __init__(self, shape: Shape) -> None:
        self.shape = shape

    def forward(self, x: np.ndarray) -> np.ndarray:
        self.x_shape = x.shape
        try:
            return x.reshape(self.shape)
        except ValueError:
            raise ValueError(
                f"reshape: cannot reshape an array of shape {x.shape} (size {x.size}) "
                f"into shape {self.shape}"
            ) from None

    def backward(self, gy: Variable) -> Variable:
        return reshape(gy, self.x_shape)

    def backward_array(self, gy: np.ndarray) -> np.ndarray:
        return gy.reshape(self.x_shape)


def reshape(x: Operand, shape: Shape | int) -> Variable:
    """Give ``x`` a new shape with the same elements (``np.reshape``; ``-1`` is inferred).

    Shapes:
        x ``(*a)`` -> ``shape`` with ``prod(shape) == prod(a)``; the gradient has ``a``.

    Raises:
        ValueError: if the sizes differ (the message names both shapes).

    Example:
        >>> reshape(Variable(np.arange(6.0)), (2, 3)).shape
        (2, 3)
    """
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if isinstance(x, Variable) and x.shape == shape:
        return x
    return Reshape(shape)(x)


class Transpose(Function):
    """y = x with permuted axes;  gx = gy with the inverse permutation."""

    def __init__(self, axes: Shape | None) -> None:
        self.axes = axes

    def forward(self, x: np.ndarray) -> np.ndarray:
        if self.axes is not None and sorted(a % max(x.ndim, 1) for a in self.axes) != list(
            range(x.ndim)
        ):
            raise ValueError(f"transpose: axes {self.axes} are not a permutation for {x.shape}")
        return np.transpose(x, self.axes)

    def _inverse(self) -> Shape | None:
        if self.axes is None:
            return None
        n = len(self.axes)
        return tuple(int(i) for i in np.argsort([a % n for a in self.axes]))

    def backward(self, gy: Variable) -> Variable:
        return transpose(gy, self._inverse())

    def backward_array(self, gy: np.ndarray) -> np.ndarray:
        return np.transpose(gy, self._inverse())


def transpose(x: Operand, axes: Sequence[int] | None = None) -> Variable:
    """Permute the axes of ``x`` (``np.transpose``); no ``axes`` reverses them.

    Shapes:
        x ``(d0, ..., dn)`` -> ``(d[axes[0]], ..., d[axes[n]])``; negative axes allowed.

    Raises:
        ValueError: if ``axes`` is not a permutation of ``x``'s axes.

    Example:
        >>> transpose(Variable(np.zeros((2, 3, 4))), (2, 0, 1)).shape
        (4, 2, 3)
    """
    return Transpose(None if axes is None else tuple(axes))(x)


class BroadcastTo(Function):
    """y = x repeated along broadcast axes;  gx = sum_to(gy, x.shape)."""

    def __init__(self, shape: Shape) -> None:
        self.shape = shape

    def forward(self, x: np.ndarray) -> np.ndarray:
        self.x_shape = x.shape
        try:
            return np.broadcast_to(x, self.shape)
        except ValueError:
            raise ValueError(
                f"broadcast_to: cannot broadcast shape {x.shape} to {self.shape}"
            ) from None

    def backward(self, gy: Variable) -> Variable:
        return sum_to(gy, self.x_shape)

    def backward_array(self, gy: np.ndarray) -> np.ndarray:
        return sum_to_array(gy, self.x_shape)


def broadcast_to(x: Operand, shape: Shape) -> Variable:
    """Repeat ``x`` along new or size-1 axes to ``shape`` (``np.broadcast_to``).

    The result is a read-only view in forward; the gradient sums the copies back.

    Raises:
        ValueError: if ``x``'s shape does not broadcast to ``shape``.

    Example:
        >>> broadcast_to(Variable(np.array([1.0, 2.0])), (2, 2))
        variable([[1. 2.]
                  [1. 2.]])
    """
    shape = tuple(shape)
    if isinstance(x, Variable) and x.shape == shape:
        return x
    return BroadcastTo(shape)(x)


class SumTo(Function):
    """y = x summed down to ``shape``;  gx = broadcast_to(gy, x.shape)."""

    def __init__(self, shape: Shape) -> None:
        self.shape = shape

    def forward(self, x: np.ndarray) -> np.ndarray:
        self.x_shape = x.shape
        return sum_to_array(x, self.shape)

    def backward(self, gy: Variable) -> Variable:
        return broadcast_to(gy, self.x_shape)

    def backward_array(self, gy: np.ndarray) -> np.ndarray:
        return np.broadcast_to(gy, self.x_shape)


def sum_to(x: Operand, shape: Shape) -> Variable:
    """Sum ``x`` over broadcast axes so that it has ``shape`` (inverse of ``broadcast_to``).

    Shapes:
        x ``(*a)`` -> ``shape``, where ``shape`` broadcasts to ``a``.

    Raises:
        ValueError: if ``shape`` does not broadcast to ``x``'s shape.

    Example:
        >>> sum_to(Variable(np.ones((2, 3))), (1, 3))
        variable([[2. 2. 2.]])
    """
    shape = tuple(shape)
    if isinstance(x, Variable) and x.shape == shape:
        return x
    return SumTo(shape)(x)
