"""Elementwise arithmetic with NumPy broadcasting: add, sub, mul, div, neg.

Each gradient formula is written once, as a ``vjp`` against the namespace ``xp`` (NumPy on the fast
path, minitorch ops under ``create_graph``; see :mod:`minitorch.ops.namespaces`), and
each binary one ends with ``xp.sum_to(gx, x.shape)``: the gradient of a broadcast
operand is the sum over the copies broadcasting made (identity when shapes match).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from minitorch.core import Function, Operand, Variable
from minitorch.core.function import Ops, Value
from minitorch.ops.reshape import add_tangents

Pair = tuple[Value, Value]  # the inputs of a binary op, as ndarrays or as Variables


def broadcast_error(op: str, x0: np.ndarray, x1: np.ndarray) -> ValueError:
    """The error of a binary op whose operand shapes do not broadcast (names both)."""
    return ValueError(f"{op}: shapes {x0.shape} and {x1.shape} do not broadcast")


class Add(Function):
    """y = x0 + x1;  gx0 = gy,  gx1 = gy."""

    saves = ()

    ufunc = np.add

    def forward(self, x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
        try:
            return x0 + x1
        except ValueError:
            raise broadcast_error("add", x0, x1) from None

    def jvp(
        self, xs: Sequence[Variable], y: Variable, tx0: Variable | None, tx1: Variable | None
    ) -> Variable | None:
        return add_tangents(y.shape, tx0, tx1)

    def vjp(self, xp: Ops, xs: Pair, y: Value, gy: Value) -> tuple[Value | None, Value | None]:
        x0, x1 = xs
        need0, need1 = self.needs_input_grad  # x + 0.01: no reduction for the constant
        gx0 = xp.sum_to(gy, x0.shape) if need0 else None
        gx1 = xp.sum_to(gy, x1.shape) if need1 else None
        return gx0, gx1


def add(x0: Operand, x1: Operand) -> Variable:
    """Add elementwise, broadcasting like ``np.add``.

    Shapes:
        x0 ``(*a)``, x1 ``(*b)`` -> ``broadcast(a, b)``; each gradient has its input's shape.

    Raises:
        ValueError: if the shapes do not broadcast (the message names both shapes).
        TypeError: if an operand is not numeric (``x + "a"``).
        OverflowError: for a Python int that the other operand's dtype cannot hold
            (``int8_x + 300``), as NumPy 2 raises (the message names operand and dtype).

    Example:
        >>> add(Variable(np.array([1.0, 2.0])), 3.0)
        variable([4. 5.])
    """
    return Add()(x0, x1)


class Sub(Function):
    """y = x0 - x1;  gx0 = gy,  gx1 = -gy."""

    saves = ()

    ufunc = np.subtract

    def forward(self, x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
        try:
            return x0 - x1
        except ValueError:
            raise broadcast_error("sub", x0, x1) from None
        except TypeError:  # NumPy refuses bool - bool: say so under the op's name
            raise TypeError(
                f"sub: NumPy does not subtract two bool arrays (dtypes {x0.dtype} and "
                f"{x1.dtype}); convert one first (x.astype(np.int64) or float), or use "
                "np.logical_xor for the logical difference"
            ) from None

    def jvp(
        self, xs: Sequence[Variable], y: Variable, tx0: Variable | None, tx1: Variable | None
    ) -> Variable | None:
        return add_tangents(y.shape, tx0, None if tx1 is None else -tx1)

    def vjp(self, xp: Ops, xs: Pair, y: Value, gy: Value) -> tuple[Value | None, Value | None]:
        x0, x1 = xs
        need0, need1 = self.needs_input_grad
        gx0 = xp.sum_to(gy, x0.shape) if need0 else None
        gx1 = xp.sum_to(-gy, x1.shape) if need1 else None
        return gx0, gx1


def sub(x0: Operand, x1: Operand) -> Variable:
    """Subtract elementwise, broadcasting like ``np.subtract``.

    Shapes:
        x0 ``(*a)``, x1 ``(*b)`` -> ``broadcast(a, b)``; each gradient has its input's shape.

    Raises:
        ValueError: if the shapes do not broadcast.
        TypeError: if both operands are bool (NumPy refuses ``bool - bool``).
        OverflowError: for a Python int that the other operand's dtype cannot hold
            (``int8_x - 300``), as NumPy 2 raises (the message names operand and dtype).

    Example:
        >>> sub(1.0, Variable(np.array([1.0, 2.0])))
        variable([ 0. -1.])
    """
    return Sub()(x0, x1)


class Mul(Function):
    """y = x0 * x1;  gx0 = gy * x1,  gx1 = gy * x0."""

    saves = ("inputs",)

    def saves_input(
        self, i: int
    ) -> bool:  # x0 * x1: each gradient reads the other input (x * 0.99 keeps nothing of x)
        return self.needs_input_grad[1 - i]

    ufunc = np.multiply

    def forward(self, x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
        try:
            return x0 * x1
        except ValueError:
            raise broadcast_error("mul", x0, x1) from None

    def jvp(
        self, xs: Sequence[Variable], y: Variable, tx0: Variable | None, tx1: Variable | None
    ) -> Variable | None:
        x0, x1 = xs  # the product rule
        t0 = None if tx0 is None else tx0 * x1
        return add_tangents(y.shape, t0, None if tx1 is None else x0 * tx1)

    def vjp(self, xp: Ops, xs: Pair, y: Value, gy: Value) -> tuple[Value | None, Value | None]:
        x0, x1 = xs
        need0, need1 = self.needs_input_grad  # x * 0.99: no product for the constant
        gx0 = xp.sum_to(gy * x1, x0.shape) if need0 else None
        gx1 = xp.sum_to(gy * x0, x1.shape) if need1 else None
        return gx0, gx1


def mul(x0: Operand, x1: Operand) -> Variable:
    """Multiply elementwise, broadcasting like ``np.multiply``.

    Shapes:
        x0 ``(*a)``, x1 ``(*b)`` -> ``broadcast(a, b)``; each gradient has its input's shape.

    Raises:
        ValueError: if the shapes do not broadcast (the message names both shapes).
        OverflowError: for a Python int that the other operand's dtype cannot hold
            (``int8_x * 300``), as NumPy 2 raises (the message names operand and dtype).

    Example:
        >>> mul(Variable(np.array([1.0, 2.0])), 3.0)
        variable([3. 6.])
    """
    return Mul()(x0, x1)


class Div(Function):
    """y = x0 / x1;  gx0 = gy / x1,  gx1 = -gy * x0 / x1**2."""

    saves = ("inputs",)

    def saves_input(self, i: int) -> bool:  # gx0 = gy / x1 reads x1; x0 only for gx1
        return i == 1 or self.needs_input_grad[1]

    ufunc = np.true_divide

    def forward(self, x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
        try:
            return x0 / x1
        except ValueError:
            raise broadcast_error("div", x0, x1) from None

    def jvp(
        self, xs: Sequence[Variable], y: Variable, tx0: Variable | None, tx1: Variable | None
    ) -> Variable | None:
        _, x1 = xs  # d(x0 / x1) = (dx0 - y dx1) / x1
        t0 = None if tx0 is None else tx0 / x1
        t1 = None if tx1 is None else -tx1 * y / x1
        return add_tangents(y.shape, t0, t1)

    def vjp(self, xp: Ops, xs: Pair, y: Value, gy: Value) -> tuple[Value | None, Value | None]:
        x0, x1 = xs
        need0, need1 = self.needs_input_grad
        gx0 = xp.sum_to(gy / x1, x0.shape) if need0 else None
        gx1 = xp.sum_to(-gy * x0 / (x1 * x1), x1.shape) if need1 else None
        return gx0, gx1


def div(x0: Operand, x1: Operand) -> Variable:
    """Divide elementwise (true division), broadcasting like ``np.true_divide``.

    Division by zero follows IEEE-754 as NumPy does (inf/NaN with a RuntimeWarning);
    use ``detect_anomaly()`` to find where such values appear.

    Shapes:
        x0 ``(*a)``, x1 ``(*b)`` -> ``broadcast(a, b)``; each gradient has its input's shape.

    Raises:
        ValueError: if the shapes do not broadcast.
        OverflowError: for a Python int that the other operand's dtype cannot hold, as
            NumPy 2 raises; for integer operands the number takes float64, as NumPy's
            loop divides in float64 (``int8_x / 300`` is fine).

    Example:
        >>> div(Variable(np.array([1.0, 2.0])), 4.0)
        variable([0.25 0.5 ])
    """
    return Div()(x0, x1)


class Neg(Function):
    """y = -x;  gx = -gy."""

    saves = ()

    def forward(self, x: np.ndarray) -> np.ndarray:
        if x.dtype.kind == "b":  # NumPy refuses -bool: say so under the op's name
            raise TypeError(
                "neg: NumPy does not negate a bool array; convert it first "
                "(x.astype(np.int64) or float), or use np.logical_not (~x) for the logical not"
            )
        return -x

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        return -tx

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gy: Value) -> Value:
        return -gy


def neg(x: Operand) -> Variable:
    """Negate elementwise (``np.negative``: unsigned integers wrap around, as in NumPy).

    Shapes:
        any -> the same shape and dtype.

    Raises:
        TypeError: for a bool input (NumPy refuses ``-bool``; the message gives the fix).

    Example:
        >>> neg(Variable(np.array([1.0, -2.0])))
        variable([-1.  2.])
    """
    return Neg()(x)
