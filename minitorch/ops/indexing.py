"""Indexing: ``x[index]`` (get_item) and the elementwise selection ``where``.

The gradient of ``y = x[index]`` scatters ``gy`` back into a zero array of ``x``'s
shape. With integer-array indices the same element can be picked several times, and
then its gradient is the *sum* of the picked copies' gradients — ``np.add.at``, not
``gx[index] = gy`` (which would keep only the last copy).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minitorch.core import Function, Operand, Variable
from minitorch.core.function import Ops, Value, as_constant
from minitorch.ops.arithmetic import Pair
from minitorch.ops.reshape import broadcast_to, own_view

Shape = tuple[int, ...]


def _normalize_index(index: Any) -> Any:
    """Unwrap Variables and turn lists into arrays (NumPy's own reading of a list index).

    Index arrays are copied (:func:`as_constant`): the graph keeps the index of the
    forward point, so editing the caller's array (or ``.data``) before backward cannot
    move the gradient. A masked array is refused (NumPy would index with its data).
    """
    if isinstance(index, (Variable, list, np.ndarray)):
        return as_constant(index, "get_item: index")
    if isinstance(index, tuple):
        return tuple(_normalize_index(i) for i in index)
    return index


def _may_repeat(index: Any) -> bool:
    """True if ``index`` holds an integer array, which may pick an element twice."""
    parts = index if isinstance(index, tuple) else (index,)
    return any(isinstance(i, np.ndarray) and i.dtype.kind in "iu" for i in parts)


def _scatter(gy: np.ndarray, index: Any, x_shape: Shape) -> np.ndarray:
    gx = np.zeros(x_shape, dtype=gy.dtype)
    if _may_repeat(index):
        np.add.at(gx, index, gy)
    else:  # slices, None, ..., boolean masks: each element is picked at most once
        gx[index] = gy
    return gx


class GetItem(Function):
    """y = x[index];  gx = zeros like x with gy added at ``index`` (np.add.at)."""

    saves = ()

    def __init__(self, index: Any) -> None:
        self.index = index

    def forward(self, x: np.ndarray) -> np.ndarray:
        self.x_shape = x.shape
        try:
            return own_view(np.asarray(x[self.index]), x)  # x[...] is a view
        except IndexError as exc:
            raise IndexError(f"get_item: index {self.index!r} on shape {x.shape}: {exc}") from None

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        return get_item(tx, self.index)

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gy: Value) -> Value:
        return xp.apply(GetItemGrad(self.index, self.x_shape), gy)


class GetItemGrad(Function):
    """y = zeros(x_shape) with gy added at ``index``;  ggy = ggx[index]  (GetItem's adjoint)."""

    saves = ()

    def __init__(self, index: Any, x_shape: Shape) -> None:
        self.index = index
        self.x_shape = x_shape

    def forward(self, gy: np.ndarray) -> np.ndarray:
        return _scatter(gy, self.index, self.x_shape)

    def jvp(self, xs: Sequence[Variable], y: Variable, tgy: Variable) -> Variable:
        return GetItemGrad(self.index, self.x_shape)(tgy)

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, ggx: Value) -> Value:
        return xp.apply(GetItem(self.index), ggx)


def get_item(x: Operand, index: Any) -> Variable:
    """Index ``x`` like an ndarray: ``get_item(x, index)`` is ``x[index]``.

    Any NumPy index works: ints, slices, integer and boolean arrays, ``None`` and
    ``...``, alone or in a tuple. The gradient scatters ``gy`` back to the picked
    positions; an element picked several times by an integer array receives the sum of
    the gradients of its copies (as ``np.add.at``).

    Shapes:
        as NumPy's indexing of ``x``; the gradient has ``x``'s shape.

    Args:
        x: the Variable to index.
        index: anything NumPy accepts as an index (lists are read as integer arrays;
            a Variable index is used through its data and gets no gradient).

    Returns:
        A Variable holding the selected elements (a view for basic slices, a copy for
        array indices, exactly as NumPy).

    Raises:
        IndexError: if the index is out of bounds for ``x``'s shape (the message names
            the index and the shape).
        TypeError: if the index is a ``numpy.ma`` masked array (its mask would be
            ignored; index with ``m.filled(...)``).

    Example:
        >>> x = Variable(np.array([1.0, 2.0, 3.0]))
        >>> y = get_item(x, [0, 0, 2])
        >>> y
        variable([1. 1. 3.])
        >>> y.backward()
        >>> x.grad
        variable([2. 0. 1.])
    """
    return GetItem(_normalize_index(index))(x)


class Where(Function):
    """y = where(c, x0, x1);  gx0 = gy where c else 0,  gx1 = gy where not c else 0."""

    saves = ()

    def __init__(self, condition: np.ndarray) -> None:
        self.condition = condition

    def forward(self, x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
        try:
            return np.where(self.condition, x0, x1)
        except ValueError:
            raise ValueError(
                f"where: condition {self.condition.shape}, x0 {x0.shape} and x1 {x1.shape} "
                "do not broadcast"
            ) from None

    def jvp(
        self, xs: Sequence[Variable], y: Variable, tx0: Variable | None, tx1: Variable | None
    ) -> Variable:
        zero = np.zeros((), dtype=y.dtype)  # the tangent of the branch not taken is 0
        ty = where(self.condition, zero if tx0 is None else tx0, zero if tx1 is None else tx1)
        return broadcast_to(ty, y.shape)

    def vjp(self, xp: Ops, xs: Pair, y: Value, gy: Value) -> tuple[Value | None, Value | None]:
        x0, x1 = xs
        need0, need1 = self.needs_input_grad
        zero = np.zeros((), dtype=gy.dtype)
        gx0 = xp.sum_to(xp.where(self.condition, gy, zero), x0.shape) if need0 else None
        gx1 = xp.sum_to(xp.where(self.condition, zero, gy), x1.shape) if need1 else None
        return gx0, gx1


def where(condition: Operand, x0: Operand, x1: Operand) -> Variable:
    """Pick ``x0`` where ``condition`` is true, else ``x1`` (``np.where``), broadcasting.

    The condition is a constant: it receives no gradient.

    Shapes:
        condition ``(*c)``, x0 ``(*a)``, x1 ``(*b)`` -> ``broadcast(c, a, b)``; each
        gradient has its input's shape.

    Args:
        condition: a boolean array (or a Variable holding one; non-bool is read as
            ``!= 0``).
        x0: the values taken where the condition holds.
        x1: the values taken elsewhere.

    Returns:
        A Variable of the promoted dtype of ``x0`` and ``x1``.

    A Python-number branch takes the dtype ``np.result_type`` gives it next to the other
    branch (NEP 50). Where that dtype cannot hold it (``where(c, int8_x, 300)``) this
    raises, unlike ``np.where``, which silently wraps 300 around to 44.

    Raises:
        ValueError: if the three shapes do not broadcast.
        TypeError: if the condition is a ``numpy.ma`` masked array (its mask would be
            ignored).
        OverflowError: for a Python int out of range of the other branch's integer dtype.

    Example:
        >>> where(np.array([True, False]), Variable(np.array([1.0, 2.0])), 0.0)
        variable([1. 0.])
    """
    # A copy: backward uses the forward point's mask, whatever the caller's array holds.
    return Where(as_constant(condition, "where: condition", dtype=bool))(x0, x1)
