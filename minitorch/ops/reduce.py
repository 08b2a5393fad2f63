"""Reductions over any axes (int, negative int, tuple or None).

sum, mean, max, min, logsumexp, var, std. The gradient of a reduction broadcasts ``gy``
back over the reduced axes; without ``keepdims`` those axes are first re-inserted with
size 1 so broadcasting lines up.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence

import numpy as np

from minitorch.core import Function, Operand, Variable
from minitorch.core.function import Ops, Value
from minitorch.ops.math import exp, sqrt
from minitorch.ops.reshape import as_float, numpy_keywords, reshape

Axis = int | tuple[int, ...] | None


def normalize_axis(axis: Axis, ndim: int, op: str) -> tuple[int, ...]:
    """Return ``axis`` as a sorted tuple of non-negative ints (all axes for ``None``).

    A 0-d array accepts ``axis`` 0 and -1, as PyTorch does, and has no axis to reduce:
    the result is ``()`` (so ``softmax`` of a 0-d input is 1, ``sum`` returns it).

    Raises:
        TypeError: if ``axis`` is not None, an int or a tuple/list of ints (``axis=1.0``);
            the message names ``op``.
        ValueError: if an axis is out of range for ``ndim`` or repeated (names ``op``).
    """
    if axis is None:
        return tuple(range(ndim))
    axes = _axis_tuple(axis, op)
    bound = builtins.max(ndim, 1)
    if any(not -bound <= a < bound for a in axes):
        raise ValueError(f"{op}: axis {axis} is out of range for an array with {ndim} dims")
    result = tuple(sorted(int(a) % bound for a in axes))
    if len(set(result)) != len(result):
        raise ValueError(f"{op}: repeated axis in {axis}")
    return result if ndim else ()


def _axis_tuple(axis: object, op: str) -> tuple[int, ...]:
    """``axis`` as a tuple of ints, or a TypeError naming ``op`` (not "float is not
    iterable", what ``tuple(1.0)`` says)."""
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, (bool, np.bool_)):
        return (int(axis),)
    if isinstance(axis, (tuple, list)) and all(
        isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)) for a in axis
    ):
        return tuple(int(a) for a in axis)
    hint = ""
    if isinstance(axis, (float, np.floating)) and float(axis).is_integer():
        hint = f" (write axis={int(axis)})"
    raise TypeError(
        f"{op}: axis must be None, an int or a tuple of ints, got {type(axis).__name__} "
        f"{axis!r:.40}{hint}"
    )


def max_keepdims(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """``np.max(x, axes, keepdims=True)``, but ``-inf`` where the reduced axes are empty.

    The max-shift of logsumexp and softmax: an empty sum of exponentials is 0, so
    ``logsumexp`` of nothing is ``-inf`` (as PyTorch), where ``np.max`` would raise.
    """
    if x.size:
        return np.max(x, axis=axes, keepdims=True)
    dtype = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)  # can hold -inf
    return np.full(keepdims_shape(x.shape, axes), -np.inf, dtype=dtype)


def keepdims_shape(x_shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    """``x_shape`` with each reduced axis set to 1 (the shape ``keepdims=True`` gives)."""
    return tuple(1 if i in axes else d for i, d in enumerate(x_shape))


class _Reduction:
    """Mixed into the reductions' Functions: ``axis`` and ``keepdims``, checked in forward.

    Not a Function itself (it has no forward): Sum, Max, Min and LogSumExp are.
    """

    name = "sum"  # the op, for error messages

    def __init__(self, axis: Axis, keepdims: bool) -> None:
        self.axis = axis
        self.keepdims = keepdims

    def reduced_axes(self, x: np.ndarray) -> tuple[int, ...]:
        """Record x's shape and return ``axis`` normalised for it (``self.axes``)."""
        self.x_shape = x.shape
        self.axes = normalize_axis(self.axis, x.ndim, self.name)
        return self.axes


class Sum(_Reduction, Function):
    """y = sum of x over ``axis``;  gx = gy broadcast back to x's shape."""

    saves = ()

    def forward(self, x: np.ndarray) -> np.ndarray:
        return np.sum(x, axis=self.reduced_axes(x), keepdims=self.keepdims)

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        return sum(tx, self.axes, self.keepdims)

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gy: Value) -> Value:
        gy = xp.reshape(gy, keepdims_shape(self.x_shape, self.axes))
        return xp.broadcast_to(gy, self.x_shape)


@numpy_keywords
def sum(x: Operand, axis: Axis = None, keepdims: bool = False) -> Variable:
    """Sum the elements of ``x`` over ``axis`` (``np.sum``).

    Shapes:
        x ``(d0, ..., dn)`` -> the reduced axes removed (or kept as 1 with ``keepdims``).

    Raises:
        TypeError: if ``axis`` is not None, an int or a tuple of ints.
        ValueError: if an axis is out of range or repeated.

    Example:
        >>> sum(Variable(np.ones((2, 3))), axis=0)
        variable([2. 2. 2.])
    """
    return Sum(axis, keepdims)(x)


@numpy_keywords
def mean(x: Operand, axis: Axis = None, keepdims: bool = False) -> Variable:
    """Arithmetic mean of ``x`` over ``axis`` (``np.mean``): ``sum / count``.

    A composition of ``sum`` and a division by the constant count, so its gradient
    (``gy / count`` for every element) needs no Function of its own. Dividing (not
    multiplying by ``1 / count``) gives exactly ``np.mean``'s result, to the last bit.

    Shapes:
        as :func:`sum`.

    Raises:
        TypeError: if ``axis`` is not None, an int or a tuple of ints.
        ValueError: if an axis is out of range or repeated.

    Example:
        >>> mean(Variable(np.array([[1.0, 2.0], [3.0, 4.0]])), axis=-1)
        variable([1.5 3.5])
    """
    # Checked here too, so that a bad axis names mean, not the sum it is made of.
    normalize_axis(axis, x.ndim if isinstance(x, Variable) else np.ndim(x), "mean")
    y = sum(x, axis, keepdims)
    x_size = x.size if isinstance(x, Variable) else np.size(x)
    count = x_size // builtins.max(y.size, 1) if x_size else 0
    return y / count if count else y * np.nan


class _Extremum(_Reduction, Function):
    """Shared machinery of Max and Min: the gradient goes to the extreme entries."""

    saves = ("inputs",)

    name = "max"
    reducer: np.ufunc = np.maximum  # forward is its .reduce

    def forward(self, x: np.ndarray) -> np.ndarray:
        self.reduced_axes(x)
        if any(x.shape[a] == 0 for a in self.axes):  # (0, 3) over axis 1 is fine: (0,)
            raise ValueError(
                f"{self.name}: cannot reduce an empty array of shape {x.shape} over axis "
                f"{self.axis}: an empty axis has no {self.name}"
            )
        return self.reducer.reduce(x, axis=self.axes, keepdims=self.keepdims)

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        # The tangent of the extreme entry; at a tie the mean of the tied ones (the same
        # subgradient backward uses, so jvp and vjp stay transposes of each other).
        return sum(tx * self._share(), self.axes, self.keepdims)

    def _share(self) -> np.ndarray:
        # At a tie the derivative does not exist; we share exactly one unit of gradient
        # equally among the tied entries (a valid subgradient, as torch.amax/amin do).
        (x,) = self.input_arrays
        hit = x == self.reducer.reduce(x, axis=self.axes, keepdims=True)
        # A NaN maximum equals no entry: 0/0 gives NaN shares, as in PyTorch, without
        # NumPy's RuntimeWarning on every backward.
        with np.errstate(invalid="ignore", divide="ignore"):
            return hit / np.sum(hit, axis=self.axes, keepdims=True).astype(x.dtype)

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gy: Value) -> Value:
        # The product broadcasts gy (kept dims of size 1) over x's shape.
        return xp.reshape(gy, keepdims_shape(self.x_shape, self.axes)) * self._share()


class Max(_Extremum):
    """y = max of x over ``axis``;  gx = gy / (number of ties) at the maxima, 0 elsewhere."""


class Min(_Extremum):
    """y = min of x over ``axis``;  gx = gy / (number of ties) at the minima, 0 elsewhere."""

    name = "min"
    reducer: np.ufunc = np.minimum


@numpy_keywords
def max(x: Operand, axis: Axis = None, keepdims: bool = False) -> Variable:
    """Largest element of ``x`` over ``axis`` (``np.max``).

    The gradient flows to the maximal entries. Where several entries tie for the maximum,
    each of the ``k`` tied entries receives ``gy / k``: exactly one unit of gradient is
    shared among them (a subgradient; ``torch.amax`` does the same).

    Shapes:
        x ``(d0, ..., dn)`` -> the reduced axes removed (or kept as 1 with ``keepdims``).

    Args:
        x: the input (any float dtype).
        axis: an int, a negative int, a tuple of them, or ``None`` for all axes.
        keepdims: keep the reduced axes with size 1.

    Returns:
        A Variable of ``x``'s dtype.

    Raises:
        TypeError: if ``axis`` is not None, an int or a tuple of ints.
        ValueError: if an axis is out of range or repeated, or a reduced axis is empty.

    Example:
        >>> x = Variable(np.array([[1.0, 3.0], [2.0, 2.0]]))
        >>> y = max(x, axis=1)
        >>> y
        variable([3. 2.])
        >>> y.backward()
        >>> x.grad
        variable([[0.  1. ]
                  [0.5 0.5]])
    """
    return Max(axis, keepdims)(x)


@numpy_keywords
def min(x: Operand, axis: Axis = None, keepdims: bool = False) -> Variable:
    """Smallest element of ``x`` over ``axis`` (``np.min``): the mirror of :func:`max`.

    The gradient flows to the minimal entries; each of ``k`` tied minima receives
    ``gy / k`` (the subgradient of :func:`max`, as ``torch.amin``).

    Shapes:
        as :func:`max`: the reduced axes removed (or kept as 1 with ``keepdims``).

    Args:
        x: the input (any float dtype).
        axis: the axes to reduce, given as :func:`max` takes them (``None``: all).
        keepdims: keep the reduced axes with size 1.

    Returns:
        A Variable of ``x``'s dtype.

    Raises:
        TypeError: if ``axis`` is not None, an int or a tuple of ints.
        ValueError: for an axis out of range or repeated, or an empty reduced axis
            (an empty axis has no minimum).

    Example:
        >>> x = Variable(np.array([2.0, -1.0, -1.0]))
        >>> min(x).backward()  # over every axis; the two tied minima share one unit
        >>> x.grad
        variable([0.  0.5 0.5])
    """
    return Min(axis, keepdims)(x)


class LogSumExp(_Reduction, Function):
    """y = log(sum(exp(x)));  gx = gy * exp(x - y)  (the softmax of x)."""

    name = "logsumexp"

    def forward(self, x: np.ndarray) -> np.ndarray:
        self.reduced_axes(x)
        # Shift by the max so exp never overflows; the shift cancels exactly.
        m = max_keepdims(x, self.axes)
        m = np.where(np.isfinite(m), m, 0)
        with np.errstate(divide="ignore"):  # log(0) = -inf: all -inf, or an empty axis
            y = np.log(np.sum(np.exp(x - m), axis=self.axes, keepdims=True)) + m
        if self.keepdims:
            return y
        return y.reshape([d for i, d in enumerate(x.shape) if i not in self.axes])

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        (x,) = xs  # d logsumexp = sum(softmax(x) * dx)
        y = reshape(y, keepdims_shape(self.x_shape, self.axes))
        return sum(tx * exp(x - y), self.axes, self.keepdims)

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gy: Value) -> Value:
        (x,) = xs
        shape = keepdims_shape(self.x_shape, self.axes)
        return xp.reshape(gy, shape) * xp.exp(x - xp.reshape(y, shape))


@numpy_keywords
def logsumexp(x: Operand, axis: Axis = None, keepdims: bool = False) -> Variable:
    """``log(sum(exp(x)))`` over ``axis``, computed stably (``scipy.special.logsumexp``).

    The max is subtracted before ``exp`` and added back, so ``logsumexp([1000, 1000])``
    is ``1000 + log 2`` instead of ``inf``. The gradient is ``softmax(x)`` along ``axis``.

    Shapes:
        x ``(d0, ..., dn)`` -> the reduced axes removed (or kept as 1 with ``keepdims``).

    Args:
        x: the input (float; integers and bools are converted to float64 first, since
            ``x - max`` would wrap around in an unsigned dtype).
        axis: an int, a negative int, a tuple of them, or ``None`` for all axes.
        keepdims: keep the reduced axes with size 1.

    Returns:
        A Variable of ``x``'s dtype (float64 for integer and bool inputs).

    Raises:
        TypeError: if ``axis`` is not None, an int or a tuple of ints.
        ValueError: if an axis is out of range or repeated.

    Example:
        >>> logsumexp(Variable(np.array([1000.0, 1000.0])))
        variable(1000.6931471805599)

    References:
        Blanchard, Higham & Higham, "Accurately computing the log-sum-exp and softmax
        functions", IMA J. Numer. Anal. 41 (2021).
    """
    return LogSumExp(axis, keepdims)(as_float(x))


@numpy_keywords
def var(x: Operand, axis: Axis = None, keepdims: bool = False, ddof: int = 0) -> Variable:
    """Variance over ``axis`` (``np.var``): ``sum((x - mean)**2) / (n - ddof)``.

    A composition of ``mean``, ``sub``, ``mul`` and ``sum``, so it needs no Function
    (:func:`std`, its square root, does: see there why). ``ddof=0`` is the population
    variance (NumPy's default); ``ddof=1`` is the unbiased estimator (``torch.var``'s
    default).

    Shapes:
        x ``(d0, ..., dn)`` -> the reduced axes removed (or kept as 1 with ``keepdims``).

    Args:
        x: the input (float).
        axis: the axes the variance is taken over: an int, a negative int, a tuple of
            them, or ``None`` for all axes.
        keepdims: keep the reduced axes with size 1 (the result then broadcasts against
            ``x``, as :func:`std`'s does for standardising).
        ddof: "delta degrees of freedom" subtracted from the count ``n``.

    Returns:
        A Variable of ``x``'s dtype; NaN where ``n <= ddof`` (as ``np.var``).

    Raises:
        TypeError: if ``axis`` is not None, an int or a tuple of ints.
        ValueError: if an axis is out of range or repeated.

    Example:
        >>> var(Variable(np.array([1.0, 2.0, 3.0, 4.0])))
        variable(1.25)
    """
    x_shape = x.shape if isinstance(x, Variable) else np.shape(x)
    axes = normalize_axis(axis, len(x_shape), "var")
    count = int(np.prod([x_shape[a] for a in axes]))
    centered = x - mean(x, axes, keepdims=True)
    total = sum(centered * centered, axes, keepdims)
    return total / (count - ddof) if count > ddof else total * np.nan  # divide: as np.var


class Std(Function):
    """s = sqrt(sum((x - m)^2) / (n - ddof));  gx = gy (x - m) / ((n - ddof) s), 0 where s = 0."""

    def __init__(self, axes: tuple[int, ...], keepdims: bool, ddof: int) -> None:
        self.axes, self.keepdims, self.ddof = axes, keepdims, ddof

    def forward(self, x: np.ndarray) -> np.ndarray:
        self.kept_shape = tuple(1 if i in self.axes else n for i, n in enumerate(x.shape))
        self.count = int(np.prod([x.shape[a] for a in self.axes]))
        y = np.asarray(np.std(x, axis=self.axes, keepdims=self.keepdims, ddof=self.ddof))
        self.mask = (y > 0).reshape(self.kept_shape).astype(y.dtype)  # 0 where s = 0
        return y

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        # ds = sum((x - m) dx) / ((n - ddof) s), and 0 where s = 0, as backward chooses.
        (x,) = xs
        s, mask = reshape(y, self.kept_shape), self.mask
        coef = mask / ((self.count - self.ddof) * (s + (1 - mask)))
        return sum((x - mean(x, self.axes, keepdims=True)) * tx * coef, self.axes, self.keepdims)

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gy: Value) -> Value:
        # Where the spread is zero the gradient is 0 (PyTorch's choice, pytorch#4320), not
        # 0/0. ``s + (1 - mask)`` is 1 there, so neither this formula nor its own
        # derivative (second order) ever divides by zero.
        (x,) = xs
        s, mask = xp.reshape(y, self.kept_shape), self.mask  # the mask: a constant
        coef = (
            xp.reshape(gy, self.kept_shape) * mask / ((self.count - self.ddof) * (s + (1 - mask)))
        )
        return (x - xp.mean(x, self.axes, keepdims=True)) * coef


@numpy_keywords
def std(x: Operand, axis: Axis = None, keepdims: bool = False, ddof: int = 0) -> Variable:
    """Standard deviation over ``axis`` (``np.std``): ``sqrt(var(x, axis, keepdims, ddof))``.

    Unlike :func:`var` it is a Function of its own, for its gradient:
    ``(x - mean) / ((n - ddof) * std)`` is 0/0 where the spread is zero (a size-1 axis,
    identical values). minitorch returns **0** there, first and second order, as PyTorch
    does, so standardising over a singleton axis trains instead of poisoning every weight
    with NaN; ``sqrt(var(x))`` would give NaN.

    Shapes:
        as :func:`var`.

    Args:
        x: the input (float).
        axis: the axes to reduce, given as :func:`var` takes them (``None``: all).
        keepdims: keep the reduced axes with size 1.
        ddof: subtracted from the count, as in :func:`var`; ``n <= ddof`` gives NaN (as
            ``np.std``).

    Returns:
        A Variable of ``x``'s dtype.

    Raises:
        TypeError: if ``axis`` is not None, an int or a tuple of ints.
        ValueError: if an axis is out of range or repeated.

    Example:
        >>> x = Variable(np.array([[1.0, 3.0], [2.0, 2.0]]))
        >>> s = std(x, axis=1)
        >>> s
        variable([1. 0.])
        >>> s.sum().backward()
        >>> x.grad  # the second row has no spread: gradient 0, not NaN
        variable([[-0.5  0.5]
                  [ 0.   0. ]])
    """
    x_shape = x.shape if isinstance(x, Variable) else np.shape(x)
    axes = normalize_axis(axis, len(x_shape), "std")
    count = int(np.prod([x_shape[a] for a in axes]))
    if count <= ddof:
        return sqrt(var(x, axis, keepdims, ddof))  # NaN, as np.std
    return Std(axes, keepdims, ddof)(x)
