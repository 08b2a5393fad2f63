"""Products and running totals: prod, cumsum, cumprod (NumPy's names and ``axis``).

The gradients avoid the textbook shortcut ``d prod / d x_i = prod / x_i``, which is
``0 / 0`` wherever an entry is zero. Instead:

* ``prod``: ``d prod / d x_i`` is the product of all the *other* entries, the product of
  those before ``i`` times the product of those after it: two exclusive running products
  (``cumprod``), exact with one zero or many.
* ``cumprod``: ``y_i = y_{i-1} x_i``, so the tangent follows the product rule
  ``ty_i = ty_{i-1} x_i + y_{i-1} tx_i``, and the gradient is that recurrence transposed,
  run backwards: ``s_k = gy_k + x_{k+1} s_{k+1}``, ``gx_k = y_{k-1} s_k``. Only
  multiplications and additions, so it is exact with zeros and differentiable again; it
  takes one step per entry along ``axis`` (a Python loop over that axis).
* ``cumsum``: its gradient is the running total of ``gy`` taken from the end.

References:
    M. B. Giles, "Collected matrix derivative results for forward and reverse mode
    algorithmic differentiation" (2008), on the forward and reverse mode of a sequence
    of operations; A. Griewank & A. Walther, *Evaluating Derivatives*, 2nd ed. (2008),
    ch. 3 (the reverse sweep, here of a recurrence).
"""

from __future__ import annotations

import numpy as np

from minitorch.core import Function, Operand, Variable
from minitorch.core.function import Ops, Value
from minitorch.ops.elementwise import refuse_complex
from minitorch.ops.join import Concatenate
from minitorch.ops.reduce import (
    Axis,
    _Reduction,
    keepdims_shape,
    normalize_axis,
    numpy_keywords,
    sum,
)
from minitorch.ops.reshape import reshape, transpose


def _front(ndim: int, axes: tuple[int, ...]) -> tuple[int, ...]:
    """The permutation that moves ``axes`` to the front (the others keep their order)."""
    return axes + tuple(a for a in range(ndim) if a not in axes)


def _inverse(perm: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(np.argsort(perm).tolist())


def _join(xp: Ops, rows: list[Value]) -> Value:
    """Stack equal-shaped ``rows`` along a new first axis (ndarrays or Variables)."""
    return xp.apply(Concatenate(0), *[row[None] for row in rows])


def _exclusive_cumprod(xp: Ops, x: Value) -> Value:
    """``[1, x_0, x_0 x_1, ...]`` along axis 0: the product of the entries before each."""
    ones = np.ones((1,) + x.shape[1:], dtype=x.dtype)
    return xp.apply(Cumprod(0), xp.apply(Concatenate(0), ones, x[:-1]))


def _others(xp: Ops, x: Value, axes: tuple[int, ...]) -> Value:
    """For each entry, the product of the other entries of its group over ``axes``."""
    perm = _front(x.ndim, axes)
    moved = xp.transpose(x, perm)
    flat = xp.reshape(moved, (-1,) + moved.shape[len(axes) :])  # (N, *kept)
    before = _exclusive_cumprod(xp, flat)
    after = _exclusive_cumprod(xp, flat[::-1])[::-1]
    return xp.transpose(xp.reshape(before * after, moved.shape), _inverse(perm))


class Prod(_Reduction, Function):
    """y = product of x over ``axis``;  gx_i = gy * (product of the other entries)."""

    name = "prod"

    def forward(self, x: np.ndarray) -> np.ndarray:
        return np.prod(x, axis=self.reduced_axes(x), keepdims=self.keepdims)

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gy: Value) -> Value:
        (x,) = xs
        gy = xp.broadcast_to(xp.reshape(gy, keepdims_shape(self.x_shape, self.axes)), x.shape)
        return gy * _others(xp, x, self.axes)

    def jvp(self, xs: list[Variable], y: Variable, tx: Variable) -> Variable:
        (x,) = xs
        return sum(tx * _others(self.graph_ops, x, self.axes), self.axes, self.keepdims)


@numpy_keywords
def prod(x: Operand, axis: Axis = None, keepdims: bool = False) -> Variable:
    """Multiply the elements of ``x`` over ``axis`` (``np.prod``); all axes by default.

    The gradient of each entry is the product of the other entries of its group, so it
    is right with zeros: one zero gives a non-zero gradient at that entry only, two or
    more give zero everywhere. The product of an empty axis is 1. The dtype is NumPy's
    (``np.prod`` of int8 is int64).

    Shapes:
        x ``(d0, ..., dn)`` -> the reduced axes removed (or kept as 1 with ``keepdims``).

    Raises:
        TypeError: if ``axis`` is not None, an int or a tuple of ints, or ``x`` is complex.
        ValueError: if an axis is out of range or repeated.

    Example:
        >>> x = Variable(np.array([2.0, 0.0, 3.0]))
        >>> y = prod(x)
        >>> y.backward()
        >>> x.grad
        variable([0. 6. 0.])
    """
    return Prod(axis, keepdims)(x)


class Cumsum(Function):
    """y_i = x_0 + ... + x_i along ``axis``;  gx = running totals of gy from the end."""

    saves = ()

    def __init__(self, axis: int, reverse: bool = False) -> None:
        self.axis, self.reverse = axis, reverse  # reverse: totals from the end (the vjp)

    def forward(self, x: np.ndarray) -> np.ndarray:
        if self.reverse:
            return np.flip(np.cumsum(np.flip(x, self.axis), self.axis), self.axis)
        return np.cumsum(x, axis=self.axis)

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gy: Value) -> Value:
        return xp.apply(Cumsum(self.axis, not self.reverse), gy)

    def jvp(self, xs: list[Variable], y: Variable, tx: Variable) -> Variable:
        return Cumsum(self.axis, self.reverse)(tx)  # type: ignore[no-any-return]


def _scan_axis(x: Operand, axis: int | None, op: str) -> tuple[Operand, int]:
    """NumPy's rule: ``axis=None`` scans the flattened array; an int is checked."""
    if not isinstance(x, Variable):
        refuse_complex(op, x)  # before the flattening reshape, so the message names `op`
    if axis is None:
        return reshape(x, (-1,)), 0
    ndim = x.ndim if isinstance(x, Variable) else np.ndim(x)
    if ndim == 0:
        raise ValueError(f"{op}: axis {axis} is out of range for a 0-d array (use axis=None)")
    axes = normalize_axis(axis, ndim, op)  # a TypeError for a float, a ValueError if out of range
    if len(axes) != 1 or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{op}: axis must be None or an int, got {axis!r:.40}")
    return x, axes[0]


def cumsum(x: Operand, axis: int | None = None) -> Variable:
    """Running sums along ``axis`` (``np.cumsum``); ``axis=None`` scans ``x`` flattened.

    Shapes:
        x ``(d0, ..., dn)`` -> the same shape (``(d0 * ... * dn,)`` for ``axis=None``).

    Raises:
        TypeError: if ``axis`` is not None or an int, or ``x`` is complex.
        ValueError: if ``axis`` is out of range.

    Example:
        >>> cumsum(Variable(np.array([1.0, 2.0, 3.0])))
        variable([1. 3. 6.])
    """
    x, axis = _scan_axis(x, axis, "cumsum")
    return Cumsum(axis)(x)  # type: ignore[no-any-return]


class Cumprod(Function):
    """y_i = x_0 * ... * x_i along ``axis``;  the gradient is the product rule, transposed."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, x: np.ndarray) -> np.ndarray:
        return np.cumprod(x, axis=self.axis)

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gy: Value) -> Value:
        (x,) = xs
        perm = _front(x.ndim, (self.axis,))
        x, y, gy = xp.transpose(x, perm), xp.transpose(y, perm), xp.transpose(gy, perm)
        n = x.shape[0]
        if n == 0:
            return xp.transpose(gy, _inverse(perm))
        gxs, s = [], gy[n - 1]
        for k in range(n - 1, -1, -1):  # s_k = gy_k + x_{k+1} s_{k+1};  gx_k = y_{k-1} s_k
            if k < n - 1:
                s = gy[k] + x[k + 1] * s
            gxs.append(s if k == 0 else y[k - 1] * s)
        return xp.transpose(_join(xp, gxs[::-1]), _inverse(perm))

    def jvp(self, xs: list[Variable], y: Variable, tx: Variable) -> Variable:
        (x,) = xs
        perm = _front(x.ndim, (self.axis,))
        x, y, tx = transpose(x, perm), transpose(y, perm), transpose(tx, perm)
        if x.shape[0] == 0:
            return transpose(tx, _inverse(perm))
        tys = [tx[0]]
        for i in range(1, x.shape[0]):  # ty_i = ty_{i-1} x_i + y_{i-1} tx_i
            tys.append(tys[-1] * x[i] + y[i - 1] * tx[i])
        return transpose(_join(self.graph_ops, tys), _inverse(perm))


def cumprod(x: Operand, axis: int | None = None) -> Variable:
    """Running products along ``axis`` (``np.cumprod``); ``axis=None`` scans ``x`` flattened.

    The gradient is exact where ``x`` holds zeros (no division by ``x``); it is computed
    one step per entry along ``axis``.

    Shapes:
        x ``(d0, ..., dn)`` -> the same shape (``(d0 * ... * dn,)`` for ``axis=None``).

    Raises:
        TypeError: if ``axis`` is not None or an int, or ``x`` is complex.
        ValueError: if ``axis`` is out of range.

    Example:
        >>> x = Variable(np.array([2.0, 0.0, 3.0]))
        >>> cumprod(x).sum().backward()
        >>> x.grad
        variable([1. 8. 0.])
    """
    x, axis = _scan_axis(x, axis, "cumprod")
    return Cumprod(axis)(x)  # type: ignore[no-any-return]
