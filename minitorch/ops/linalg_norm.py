"""``norm``: vector and matrix norms with ``np.linalg.norm``'s ``ord``, ``axis``, ``keepdims``.

Composed from ops that already have their gradients (compose before you derive): the
p-norms from ``abs``, ``sum`` and powers, ``inf``/``1`` norms from ``max``/``min`` of
sums (ties share the gradient, as ``max`` does), ``2``/``-2``/``'nuc'`` from the singular
values (:func:`minitorch.ops.linalg_decomp.svd`). One op of its own, :class:`Norm2`, for
the Euclidean/Frobenius norm: ``sqrt(sum(x**2))`` composed has the gradient ``0 / 0`` at
``x = 0``; ``Norm2`` gives 0 there, the subgradient PyTorch gives.

References:
    G. H. Golub & C. F. Van Loan, *Matrix Computations*, 4th ed. (2013), sec. 2.2-2.3
    (vector and matrix norms); NumPy's ``numpy.linalg.norm`` documentation (the table
    of ``ord``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch.core import Function, Operand, Variable
from minitorch.core.function import Ops, Value
from minitorch.ops.elementwise import refuse_complex
from minitorch.ops.linalg_decomp import svd
from minitorch.ops.math import abs
from minitorch.ops.reduce import _Reduction, keepdims_shape, max, min, sum
from minitorch.ops.reshape import as_float, reshape, transpose

Ord = int | float | str | None


class Norm2(_Reduction, Function):
    """y = sqrt(sum of x**2 over ``axis``);  gx = gy * x / y  (0 where y = 0)."""

    name = "norm"

    def forward(self, x: np.ndarray) -> np.ndarray:
        axes = self.reduced_axes(x)
        return np.sqrt(np.sum(x * x, axis=axes, keepdims=self.keepdims))

    def _spread(self, xp: Ops, v: Value) -> Value:
        """A reduced value broadcast back over the reduced axes."""
        return xp.broadcast_to(
            xp.reshape(v, keepdims_shape(self.x_shape, self.axes)), self.x_shape
        )

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gy: Value) -> Value:
        (x,) = xs
        y_full = self._spread(xp, y)
        at_zero = np.asarray(y_full.data if isinstance(y_full, Variable) else y_full) == 0
        return self._spread(xp, gy) * x / (y_full + at_zero)  # x = 0 where y = 0: 0 / 1

    def jvp(self, xs: list[Variable], y: Variable, tx: Variable) -> Variable:
        (x,) = xs
        at_zero = y.data == 0
        return sum(x * tx, self.axes, self.keepdims) / (y + at_zero)


def _vector_norm(x: Operand, ord: Ord, axis: int, keepdims: bool) -> Variable:
    if ord is None or ord == 2:
        return Norm2(axis, keepdims)(x)  # type: ignore[no-any-return]
    if isinstance(ord, str):
        raise ValueError(f"norm: ord={ord!r} is a matrix norm; give a 2-tuple axis or a 2-D x")
    if ord == np.inf:
        return max(abs(x), axis, keepdims)
    if ord == -np.inf:
        return min(abs(x), axis, keepdims)
    if ord == 0:  # the number of non-zero entries: piecewise constant, no gradient
        data = x.data if isinstance(x, Variable) else np.asarray(x)
        count = np.sum(data != 0, axis=axis, keepdims=keepdims).astype(data.dtype)
        return Variable(np.asarray(count), requires_grad=False)
    if ord == 1:
        return sum(abs(x), axis, keepdims)
    return sum(abs(x) ** ord, axis, keepdims) ** (1.0 / ord)


def _matrix_norm(x: Operand, ord: Ord, axes: tuple[int, int], keepdims: bool) -> Variable:
    row, col = axes
    if ord in (None, "fro"):
        return Norm2(axes, keepdims)(x)  # type: ignore[no-any-return]
    if ord in (1, -1, np.inf, -np.inf):
        if ord in (np.inf, -np.inf):
            row, col = col, row  # the largest row sum: sum along the columns first
        extremum = max if ord in (1, np.inf) else min
        col_after = col - 1 if col > row else col
        y = extremum(sum(abs(x), row), col_after)
    elif ord in (2, -2, "nuc"):
        ndim = x.ndim if isinstance(x, Variable) else np.ndim(x)
        rest = tuple(a for a in range(ndim) if a not in (row, col))
        s = svd(transpose(x, rest + (row, col)), compute_uv=False)
        y = {2: max, -2: min, "nuc": sum}[ord](s, -1)
    else:
        raise ValueError(f"norm: invalid ord {ord!r} for a matrix norm")
    if keepdims:
        y = reshape(y, keepdims_shape(_shape(x), (row, col)))
    return y


def _shape(x: Operand) -> tuple[int, ...]:
    return x.shape if isinstance(x, Variable) else np.shape(x)


def norm(x: Operand, ord: Ord = None, axis: Any = None, keepdims: bool = False) -> Variable:
    """A vector or matrix norm, exactly as ``np.linalg.norm`` chooses it.

    * ``axis=None``: with ``ord=None`` the 2-norm of ``x`` flattened (any ndim); with an
      ``ord``, ``x`` must be 1-D (a vector norm) or 2-D (a matrix norm).
    * ``axis`` an int: vector norms along it; a 2-tuple: matrix norms over those axes.

    ``ord`` for vectors: ``None``/2 (Euclidean), ``inf``, ``-inf``, 0 (the count of
    non-zeros, no gradient), 1, or any other p (``sum(|x|**p)**(1/p)``). For matrices:
    ``None``/``'fro'``, ``'nuc'``, ``inf``, ``-inf``, 1, -1, 2, -2 (the largest/smallest
    singular value). The Euclidean and Frobenius norms have gradient 0 at ``x = 0``.

    Shapes:
        x ``(d0, ..., dn)`` -> the ``axis`` dimensions removed (kept as 1 with ``keepdims``).

    Raises:
        ValueError: for an ``ord`` that does not fit (a matrix ord on vectors), a wrong
            number of dimensions, or an out-of-range ``axis``.
        TypeError: for complex input (out of scope).

    Example:
        >>> norm(Variable(np.array([3.0, 4.0])))
        variable(5.0)
        >>> norm(Variable(np.array([[1.0, -2.0], [3.0, 4.0]])), ord=1)
        variable(6.0)

    References:
        Golub & Van Loan (2013), sec. 2.2-2.3.
    """
    if not isinstance(x, Variable):
        refuse_complex("norm", x)  # before any reshaping op can name itself instead
    x = as_float(x)  # as np.linalg.norm: integers in float64 (x * x would wrap around)
    ndim = len(_shape(x))
    if axis is None:
        if ord is None:
            return Norm2(None, keepdims)(x)  # type: ignore[no-any-return]
        if ndim not in (1, 2):
            raise ValueError(f"norm: ord={ord!r} needs a 1-D or 2-D x (or axis), got {ndim}-D")
        axis = tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    if any(not -ndim <= a < ndim for a in axes) or len(axes) not in (1, 2):
        raise ValueError(f"norm: axis {axis} does not fit an array with {ndim} dims")
    axes = tuple(int(a) % ndim for a in axes)
    if len(axes) == 1:
        return _vector_norm(x, ord, axes[0], keepdims)
    if axes[0] == axes[1]:
        raise ValueError(f"norm: duplicate axes in {axis}")
    return _matrix_norm(x, ord, (axes[0], axes[1]), keepdims)
