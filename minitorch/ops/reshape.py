"""Shape ops that move values without changing them.

reshape, transpose, broadcast_to, sum_to, expand_dims, squeeze, flatten — and astype, which
keeps the values but changes their dtype. Joining arrays (concatenate, stack) is in
:mod:`minitorch.ops.join`.

``broadcast_to`` and ``sum_to`` are each other's gradients; every binary op ends its
backward with ``sum_to(gx, x.shape)`` to undo NumPy broadcasting.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, ParamSpec, TypeVar

import numpy as np
import numpy.typing as npt

from minitorch.core import Function, Operand, Variable
from minitorch.core.function import Ops, Value
from minitorch.core.variable import COMPLEX_HINT, NUMERIC_KINDS

Shape = tuple[int, ...]


_P = ParamSpec("_P")
_R = TypeVar("_R")
# PyTorch's keyword names for NumPy's, as a student coming from torch may write them.
_TORCH_KEYWORDS = {"dim": "axis", "keepdim": "keepdims"}


def numpy_keywords(op: Callable[_P, _R]) -> Callable[_P, _R]:
    """Let an op with an ``axis`` refuse PyTorch's ``dim=``/``keepdim=`` with NumPy's names.

    ``F.sum(x, dim=1)`` would fail with Python's "got an unexpected keyword argument
    'dim'"; the wrapped op raises a ``TypeError`` that names ``axis=`` (``keepdims=``)
    instead. Only the keywords are looked at, before the call; the op is unchanged.
    """

    @functools.wraps(op)
    def checked(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        for torch_name, numpy_name in _TORCH_KEYWORDS.items() if kwargs else ():
            if torch_name in kwargs:
                raise TypeError(
                    f"{op.__name__}() got an unexpected keyword argument '{torch_name}' "
                    f"(PyTorch's name): minitorch uses NumPy's, {numpy_name}="
                )
        return op(*args, **kwargs)

    return checked


def sum_to_array(x: np.ndarray, shape: Shape) -> np.ndarray:
    """Sum ``x`` over the axes that broadcasting added or stretched, giving ``shape``.

    Raises:
        ValueError: if ``shape`` does not broadcast to ``x.shape``.
    """
    if x.shape == shape:  # 0-d arithmetic gives a NumPy scalar: hand back an array
        return x if type(x) is np.ndarray else np.asarray(x)
    lead = x.ndim - len(shape)
    if lead < 0 or any(s != 1 and s != d for s, d in zip(shape, x.shape[lead:])):
        raise ValueError(f"sum_to: cannot sum an array of shape {x.shape} to shape {shape}")
    axes = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and x.shape[lead + i] != 1
    )
    y = x.sum(axis=axes, keepdims=True)
    return y.reshape(shape) if lead else y


def own_view(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``y``, or a copy of it when it is a view of (or is) a read-only 0-d input.

    A Python-number operand becomes a shared, read-only 0-d array (``as_inputs`` in
    ``minitorch/core/function.py`` caches it, so ``x * 0.99`` in a loop converts 0.99
    once). A view op's output would be a read-only view of that shared constant:
    ``F.reshape(2.5, (1,)).data[0] = 1`` failed with NumPy's "assignment destination is
    read-only", and an op that hands back its input would hand out the shared array
    itself. The copy has one element, and the check costs one attribute read for any
    other input (``x.ndim``). A read-only 0-d array of your own is copied the same way.
    """
    if x.ndim == 0 and not x.flags.writeable:
        return y.copy()
    return y


def add_tangents(shape: Shape, *terms: Variable | None) -> Variable | None:
    """Sum the tangent contributions that exist, broadcast to the output's ``shape``.

    Tangent rules of ops with several inputs use it: ``None`` is a zero tangent (an input
    that does not move), and the sum of none of them is ``None`` again.
    """
    total = None
    for term in terms:
        if term is not None:
            total = term if total is None else total + term
    return None if total is None else broadcast_to(total, shape)


class Reshape(Function):
    """y = x viewed with a new shape;  gx = gy reshaped back."""

    saves = ()

    def __init__(self, shape: Shape) -> None:
        self.shape = shape

    def forward(self, x: np.ndarray) -> np.ndarray:
        self.x_shape = x.shape
        try:
            return own_view(x.reshape(self.shape), x)
        except ValueError:
            raise ValueError(
                f"reshape: cannot reshape an array of shape {x.shape} (size {x.size}) "
                f"into shape {self.shape}"
            ) from None

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        return reshape(tx, self.shape)

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gy: Value) -> Value:
        return xp.reshape(gy, self.x_shape)


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

    saves = ()

    def __init__(self, axes: Shape | None) -> None:
        self.axes = axes

    def forward(self, x: np.ndarray) -> np.ndarray:
        if self.axes is not None and sorted(a % max(x.ndim, 1) for a in self.axes) != list(
            range(x.ndim)
        ):
            raise ValueError(f"transpose: axes {self.axes} are not a permutation for {x.shape}")
        return own_view(np.transpose(x, self.axes), x)

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        return transpose(tx, self.axes)

    def _inverse(self) -> Shape | None:
        if self.axes is None:
            return None
        n = len(self.axes)
        return tuple(int(i) for i in np.argsort([a % n for a in self.axes]))

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gy: Value) -> Value:
        return xp.transpose(gy, self._inverse())


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

    saves = ()

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

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        return broadcast_to(tx, self.shape)

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gy: Value) -> Value:
        return xp.sum_to(gy, self.x_shape)


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

    saves = ()

    def __init__(self, shape: Shape) -> None:
        self.shape = shape

    def forward(self, x: np.ndarray) -> np.ndarray:
        self.x_shape = x.shape
        return own_view(sum_to_array(x, self.shape), x)  # x itself when the shapes match

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        return sum_to(tx, self.shape)

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gy: Value) -> Value:
        return xp.broadcast_to(gy, self.x_shape)


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


def expand_dims(x: Operand, axis: int | Sequence[int]) -> Variable:
    """Insert size-1 axes at ``axis`` (``np.expand_dims``); a ``reshape`` underneath.

    Shapes:
        x ``(*a)`` -> ``a`` with a 1 inserted at each (possibly negative) ``axis`` of the
        result.

    Args:
        x: the input.
        axis: an int or a tuple of ints, positions in the *result*.

    Returns:
        A Variable with ``x.ndim + len(axis)`` dimensions.

    Raises:
        ValueError: if an axis is out of range for the result or repeated.

    Example:
        >>> expand_dims(Variable(np.zeros((2, 3))), -1).shape
        (2, 3, 1)
    """
    x_shape = x.shape if isinstance(x, Variable) else np.shape(x)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    ndim = len(x_shape) + len(axes)
    if any(not -ndim <= a < ndim for a in axes):
        raise ValueError(f"expand_dims: axis {axis} is out of range for a result with {ndim} dims")
    positions = sorted(int(a) % ndim for a in axes)
    if len(set(positions)) != len(positions):
        raise ValueError(f"expand_dims: repeated axis in {axis}")
    rest = iter(x_shape)
    return reshape(x, tuple(1 if i in positions else next(rest) for i in range(ndim)))


def squeeze(x: Operand, axis: int | Sequence[int] | None = None) -> Variable:
    """Remove size-1 axes (``np.squeeze``): all of them, or only those in ``axis``.

    Shapes:
        x ``(*a)`` -> ``a`` without the chosen axes of size 1.

    Args:
        x: the input.
        axis: ``None`` for every size-1 axis, or an int / tuple of ints.

    Returns:
        A Variable; its gradient is reshaped back to ``x``'s shape.

    Raises:
        ValueError: if a chosen axis is out of range or its size is not 1.

    Example:
        >>> squeeze(Variable(np.zeros((1, 3, 1))), 0).shape
        (3, 1)
    """
    x_shape = x.shape if isinstance(x, Variable) else np.shape(x)
    ndim = len(x_shape)
    if axis is None:
        axes = tuple(i for i, d in enumerate(x_shape) if d == 1)
    else:
        raw = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
        if any(not -ndim <= a < ndim for a in raw):
            raise ValueError(f"squeeze: axis {axis} is out of range for shape {x_shape}")
        axes = tuple(int(a) % ndim for a in raw)
        if any(x_shape[a] != 1 for a in axes):
            raise ValueError(f"squeeze: cannot squeeze axis {axis} of shape {x_shape}: size != 1")
    return reshape(x, tuple(d for i, d in enumerate(x_shape) if i not in axes))


def flatten(x: Operand, start_dim: int = 0, end_dim: int = -1) -> Variable:
    """Merge the axes ``start_dim..end_dim`` (inclusive) into one, as ``torch.flatten``.

    ``flatten(x)`` gives a 1-D result like ``ndarray.flatten``; ``flatten(x, 1)`` keeps
    the batch axis (what ``nn.Flatten`` does before a fully connected layer).

    Shapes:
        x ``(d0, ..., dn)`` -> ``(d0, ..., prod(d[start:end+1]), ..., dn)``; 0-d -> ``(1,)``.

    Args:
        x: the input.
        start_dim: the first axis to merge (negative counts from the end).
        end_dim: the last axis to merge, inclusive.

    Returns:
        A Variable; its gradient is reshaped back to ``x``'s shape.

    Raises:
        ValueError: if the axes are out of range or ``start_dim > end_dim``.

    Example:
        >>> flatten(Variable(np.zeros((2, 3, 4))), 1).shape
        (2, 12)
    """
    x_shape = x.shape if isinstance(x, Variable) else np.shape(x)
    ndim = max(len(x_shape), 1)  # a 0-d array flattens like a 1-D one
    if not (-ndim <= start_dim < ndim and -ndim <= end_dim < ndim):
        raise ValueError(
            f"flatten: start_dim={start_dim}, end_dim={end_dim} out of range for {x_shape}"
        )
    start, end = start_dim % ndim, end_dim % ndim
    if start > end:
        raise ValueError(f"flatten: start_dim={start_dim} comes after end_dim={end_dim}")
    if not x_shape:
        return reshape(x, (1,))
    merged = int(np.prod(x_shape[start : end + 1]))
    return reshape(x, tuple(x_shape[:start]) + (merged,) + tuple(x_shape[end + 1 :]))


class AsType(Function):
    """y = x converted to ``dtype``;  gx = gy converted back to x's dtype."""

    saves = ()

    def __init__(self, dtype: np.dtype) -> None:
        self.dtype = dtype

    def forward(self, x: np.ndarray) -> np.ndarray:
        self.x_dtype = x.dtype
        return x.astype(self.dtype)

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        return astype(tx, self.dtype)

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gy: Value) -> Value:
        return xp.astype(gy, self.x_dtype)


def astype(x: Operand, dtype: npt.DTypeLike) -> Variable:
    """Convert ``x`` to ``dtype`` (``ndarray.astype``); the gradient is converted back.

    Converting a Variable to the dtype it already has returns it unchanged.

    Shapes:
        any -> the same shape.

    Args:
        x: the input.
        dtype: anything ``np.dtype`` accepts (``np.float32``, ``"float64"``).

    Returns:
        A Variable of ``dtype``.

    Raises:
        TypeError: if ``dtype`` is not a valid dtype, or not numeric (bool, integer or
            float: a Variable holds nothing else; complex numbers are out of scope).

    Example:
        >>> astype(Variable(np.array([1.5])), np.float32).dtype
        dtype('float32')
    """
    target = np.dtype(dtype)
    if target.kind not in NUMERIC_KINDS:  # the one op whose output dtype the caller picks
        raise TypeError(
            f"astype: the dtype must be numeric (bool, integer or float), got {target}"
            + COMPLEX_HINT * (target.kind == "c")
        )
    if isinstance(x, Variable) and x.dtype == target:
        return x
    return AsType(target)(x)


def as_float(x: Any) -> Any:
    """``x`` unchanged, unless it holds integers or bools: then converted to float64.

    The one dtype rule of the ops defined only on real numbers (sigmoid, softplus, the
    softmax family, logsumexp, the losses, the normalisations): their formulas negate and
    subtract (``-x``, ``x - max``), which wraps around for unsigned integers
    (``-uint8(1) == 255``) and is refused for bools, so an integer or bool input is
    computed in float64, as NumPy's true division computes ``int / int``. Float inputs
    keep their dtype (float32 stays float32). The elementwise ufunc-like ops (``exp``,
    ``add``, ``matmul`` ...) do not use this: they give NumPy's own result dtype.

    A Variable is converted with :func:`astype` (its gradient is converted back); anything
    else NumPy can read as an integer or bool array becomes a float64 ndarray. What is no
    number array (a masked array, a string) is returned as it is, for the op's own error.

    Shapes:
        any -> the same shape.

    Example:
        >>> as_float(np.array([1, 2], dtype=np.uint8)).dtype
        dtype('float64')
    """
    if isinstance(x, Variable):
        return astype(x, np.float64) if x.dtype.kind in "biu" else x
    if x is None or type(x) is float or isinstance(x, np.ma.MaskedArray):
        return x
    try:
        kind = np.asarray(x).dtype.kind
    except (TypeError, ValueError):  # ragged lists and the like: the op will say so
        return x
    return np.asarray(x, dtype=np.float64) if kind in "biu" else x
