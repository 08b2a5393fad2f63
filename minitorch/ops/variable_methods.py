"""The one table that binds operators and methods onto ``Variable``.

``Variable`` (in ``minitorch/core``) knows no op; this module maps each dunder and
method name to the op that implements it, and :func:`install` sets them on the class
once, when ``minitorch.ops`` is imported. ``Variable``'s ``if TYPE_CHECKING:`` block
declares exactly these names, and a test keeps the two equal. This is DeZero's
``setup_variable()`` written as data.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from minitorch.core import Operand, Variable
from minitorch.ops import activation, arithmetic, indexing, linalg, math, reduce, scan

# Functions, not the module: ops/__init__ rebinds the name `reshape` to the function.
from minitorch.ops.reshape import astype as astype_op
from minitorch.ops.reshape import flatten as flatten_op
from minitorch.ops.reshape import reshape as reshape_op
from minitorch.ops.reshape import squeeze as squeeze_op
from minitorch.ops.reshape import transpose as transpose_op


def _radd(x: Variable, other: Operand) -> Variable:
    # Commutative: x stays input 0 (graphs draw it first); messages number as written.
    func = arithmetic.Add()
    func.reflected = True
    result: Variable = func(x, other)
    return result


def _rmul(x: Variable, other: Operand) -> Variable:
    func = arithmetic.Mul()
    func.reflected = True
    result: Variable = func(x, other)
    return result


def _rsub(x: Variable, other: Operand) -> Variable:
    return arithmetic.sub(other, x)


def _rtruediv(x: Variable, other: Operand) -> Variable:
    return arithmetic.div(other, x)


def _rpow(x: Variable, other: Operand) -> Variable:
    return math.pow(other, x)


def _rmatmul(x: Variable, other: Operand) -> Variable:
    return linalg.matmul(other, x)


def _reshape(x: Variable, *shape: int | Sequence[int]) -> Variable:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return reshape_op(x, tuple(shape[0]))
    return reshape_op(x, tuple(shape))  # type: ignore[arg-type]


def _transpose(x: Variable, *axes: int | Sequence[int]) -> Variable:
    if not axes or (len(axes) == 1 and axes[0] is None):
        return transpose_op(x)
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        return transpose_op(x, tuple(axes[0]))
    return transpose_op(x, axes)  # type: ignore[arg-type]


VARIABLE_METHODS: dict[str, Callable[..., Any] | property] = {
    "__add__": arithmetic.add,
    "__radd__": _radd,
    "__sub__": arithmetic.sub,
    "__rsub__": _rsub,
    "__mul__": arithmetic.mul,
    "__rmul__": _rmul,
    "__truediv__": arithmetic.div,
    "__rtruediv__": _rtruediv,
    "__neg__": arithmetic.neg,
    "__pow__": math.pow,
    "__rpow__": _rpow,
    "reshape": _reshape,
    "transpose": _transpose,
    "T": property(lambda x: transpose_op(x)),
    "sum": reduce.sum,
    "mean": reduce.mean,
    "exp": math.exp,
    "log": math.log,
    "tanh": math.tanh,
    "sin": math.sin,
    "cos": math.cos,
    "__matmul__": linalg.matmul,
    "__rmatmul__": _rmatmul,
    "__getitem__": indexing.get_item,
    "__abs__": math.abs,
    "max": reduce.max,
    "min": reduce.min,
    "var": reduce.var,
    "std": reduce.std,
    "astype": astype_op,
    "flatten": flatten_op,
    "squeeze": squeeze_op,
    "sqrt": math.sqrt,
    "square": math.square,
    "abs": math.abs,
    "clip": activation.clip,
    "sigmoid": activation.sigmoid,
    "relu": activation.relu,
    "prod": scan.prod,
    "cumsum": scan.cumsum,
    "cumprod": scan.cumprod,
}


def install() -> None:
    """Set every entry of :data:`VARIABLE_METHODS` on ``Variable`` (idempotent)."""
    for name, method in VARIABLE_METHODS.items():
        setattr(Variable, name, method)
