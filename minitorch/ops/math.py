"""Elementwise mathematical functions: exp, log, sin, cos, tanh, sqrt, square, abs, pow.

Each derivative is the textbook one (e.g. Spivak, *Calculus*, ch. 18), written once as
a ``vjp`` against the namespace ``xp``: NumPy on the fast path, minitorch ops under
``create_graph`` (so it can be differentiated again).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import numpy as np

from minitorch.core import Function, Operand, Variable
from minitorch.core.function import Ops, Value
from minitorch.ops.arithmetic import Pair, broadcast_error
from minitorch.ops.reshape import add_tangents

One = tuple[Value]  # the input of a unary op, as an ndarray or as a Variable


class Exp(Function):
    """y = exp(x);  gx = gy * y."""

    saves = ("output",)

    def forward(self, x: np.ndarray) -> np.ndarray:
        return np.exp(x)

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        return tx * y

    def vjp(self, xp: Ops, xs: One, y: Value, gy: Value) -> Value:
        return gy * y


def exp(x: Operand) -> Variable:
    """Elementwise ``e ** x``.

    Shapes:
        any -> the same shape.

    Example:
        >>> exp(Variable(np.array([0.0])))
        variable([1.])
    """
    return Exp()(x)


class Log(Function):
    """y = log(x);  gx = gy / x."""

    saves = ("inputs",)

    def forward(self, x: np.ndarray) -> np.ndarray:
        return np.log(x)

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        return tx / xs[0]

    def vjp(self, xp: Ops, xs: One, y: Value, gy: Value) -> Value:
        (x,) = xs
        return gy / x


def log(x: Operand) -> Variable:
    """Elementwise natural logarithm; ``log(0) = -inf`` and negatives give NaN (IEEE-754).

    Shapes:
        any -> the same shape.

    Example:
        >>> log(Variable(np.array([1.0])))
        variable([0.])
    """
    return Log()(x)


class Sin(Function):
    """y = sin(x);  gx = gy * cos(x)."""

    saves = ("inputs",)

    def forward(self, x: np.ndarray) -> np.ndarray:
        return np.sin(x)

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        return tx * cos(xs[0])

    def vjp(self, xp: Ops, xs: One, y: Value, gy: Value) -> Value:
        (x,) = xs
        return gy * xp.cos(x)


def sin(x: Operand) -> Variable:
    """Elementwise sine (radians).

    Example:
        >>> sin(Variable(np.array([0.0])))
        variable([0.])
    """
    return Sin()(x)


class Cos(Function):
    """y = cos(x);  gx = -gy * sin(x)."""

    saves = ("inputs",)

    def forward(self, x: np.ndarray) -> np.ndarray:
        return np.cos(x)

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        return -tx * sin(xs[0])

    def vjp(self, xp: Ops, xs: One, y: Value, gy: Value) -> Value:
        (x,) = xs
        return gy * -xp.sin(x)


def cos(x: Operand) -> Variable:
    """Elementwise cosine (radians).

    Example:
        >>> cos(Variable(np.array([0.0])))
        variable([1.])
    """
    return Cos()(x)


class Tanh(Function):
    """y = tanh(x);  gx = gy * (1 - y**2), one :class:`TanhGrad` op."""

    saves = ("output",)

    def forward(self, x: np.ndarray) -> np.ndarray:
        return np.tanh(x)

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        return TanhGrad()(y, tx)  # the same linear map, applied to the tangent

    def vjp(self, xp: Ops, xs: One, y: Value, gy: Value) -> Value:
        return xp.apply(TanhGrad(), y, gy)


class TanhGrad(Function):
    """g = gy * (1 - y**2): tanh's derivative at y = tanh(x), applied to gy, as one op.

    ``Tanh``'s backward. Written as one op (PyTorch's ``tanh_backward`` does the same)
    instead of three (``y * y``, ``1 - .``, ``gy * .``), the graphs that repeated
    ``create_graph`` builds stay smaller: the 4th derivative of tanh makes 33 Functions
    instead of 56. Its own derivative, from the product rule:

        d g / d y  = -2 y gy          (so gy_y = -2 y gy gg)
        d g / d gy = 1 - y**2         (linear in gy: gg_gy = TanhGrad(y, gg))

    Shapes:
        y and gy of one shape (an output of tanh and its gradient) -> that shape.

    Raises:
        ValueError: if y and gy have different shapes (the message names both).
    """

    saves = ("inputs",)

    def saves_input(self, i: int) -> bool:  # both gradients read t; gy only for t's
        return i == 0 or self.needs_input_grad[0]

    def forward(self, y: np.ndarray, gy: np.ndarray) -> np.ndarray:
        if y.shape != gy.shape:
            raise ValueError(
                f"TanhGrad: y has shape {y.shape} but gy has shape {gy.shape}; "
                "they are tanh's output and its gradient, of one shape"
            )
        return gy * (1 - y * y)

    def jvp(
        self, xs: Sequence[Variable], y: Variable, ty: Variable | None, tgy: Variable | None
    ) -> Variable | None:
        t, gy = xs  # t = tanh(x): an input here
        t_gy = None if tgy is None else TanhGrad()(t, tgy)
        t_t = None if ty is None else -2 * t * (gy * ty)
        return t_t if t_gy is None else t_gy if t_t is None else t_gy + t_t

    def vjp(self, xp: Ops, xs: Pair, y: Value, gg: Value) -> tuple[Value | None, Value | None]:
        t, gy = xs  # t = tanh(x): an input here
        need_t, need_gy = self.needs_input_grad
        # gy * gg first: in repeated create_graph both are often constants (the seeds),
        # so that product records nothing.
        g_t = -2 * t * (gy * gg) if need_t else None
        g_gy = xp.apply(TanhGrad(), t, gg) if need_gy else None
        return g_t, g_gy


def tanh(x: Operand) -> Variable:
    """Elementwise hyperbolic tangent; ``d tanh / dx = 1 - tanh(x)**2``.

    Example:
        >>> tanh(Variable(np.array([0.0])))
        variable([0.])
    """
    return Tanh()(x)


class Sqrt(Function):
    """y = sqrt(x);  gx = gy / (2 y)."""

    saves = ("output",)

    def forward(self, x: np.ndarray) -> np.ndarray:
        return np.sqrt(x)

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        return tx / (2 * y)

    def vjp(self, xp: Ops, xs: One, y: Value, gy: Value) -> Value:
        return gy / (2 * y)


def sqrt(x: Operand) -> Variable:
    """Elementwise square root; the gradient at 0 is inf (IEEE-754), as in NumPy/PyTorch.

    Example:
        >>> sqrt(Variable(np.array([4.0])))
        variable([2.])
    """
    return Sqrt()(x)


class Square(Function):
    """y = x**2;  gx = 2 x gy."""

    saves = ("inputs",)

    def forward(self, x: np.ndarray) -> np.ndarray:
        return np.square(x)  # not x * x: np.square's dtype (a bool squares to int8)

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        return 2 * xs[0] * tx

    def vjp(self, xp: Ops, xs: One, y: Value, gy: Value) -> Value:
        (x,) = xs
        return 2 * x * gy


def square(x: Operand) -> Variable:
    """Elementwise ``x * x`` (``np.square``, its dtype too: a bool input gives int8).

    Shapes:
        any -> the same shape.

    Example:
        >>> square(Variable(np.array([3.0])))
        variable([9.])
    """
    return Square()(x)


class Abs(Function):
    """y = |x|;  gx = gy * sign(x)  (subgradient 0 at x = 0, as NumPy's sign and PyTorch)."""

    saves = ("inputs",)

    def forward(self, x: np.ndarray) -> np.ndarray:
        return np.abs(x)

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        return tx * np.sign(xs[0].data)  # 0 at the kink, as the gradient

    def vjp(self, xp: Ops, xs: One, y: Value, gy: Value) -> Value:
        return gy * np.sign(self.input_arrays[0])  # a constant: sign's derivative is 0


def abs(x: Operand) -> Variable:
    """Elementwise absolute value; the gradient at exactly 0 is 0 (a subgradient).

    Example:
        >>> abs(Variable(np.array([-2.0, 3.0])))
        variable([2. 3.])
    """
    return Abs()(x)


_Base = TypeVar("_Base", Variable, np.ndarray)


def _shifted(x0: _Base, shift: np.ndarray) -> _Base:
    """``x0 + shift``, or ``x0`` itself when no entry is shifted (the usual case)."""
    return x0 + shift if shift.any() else x0


class Pow(Function):
    """y = x0 ** x1;  gx0 = gy * x1 * x0**(x1 - 1),  gx1 = gy * y * log(x0)."""

    saves = ("inputs",)

    ufunc = np.power

    def __init__(self, exponent: int | float | None = None) -> None:
        # The exponent as the user wrote it, when it is a Python int or float: forward
        # then computes `x0 ** exponent`, NumPy's own operator, which hands some exponents
        # to a ufunc of their own (2: np.square, -1: np.reciprocal, 0.5: np.sqrt). So
        # `x ** 2` and `x.data ** 2` agree in dtype (a bool array squared is int8) and in
        # every bit (complex squares differ from np.power in the last bits).
        self.exponent = exponent

    def forward(self, x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
        try:
            np.broadcast_shapes(x0.shape, x1.shape)
        except ValueError:
            raise broadcast_error("pow", x0, x1) from None
        try:
            if self.exponent is not None:
                return x0**self.exponent
            return np.power(x0, x1)
        except ValueError as exc:  # e.g. integers to negative integer powers
            raise ValueError(f"pow: {exc} (base dtype {x0.dtype}, exponent {x1.dtype})") from None

    def jvp(
        self, xs: Sequence[Variable], y: Variable, tx0: Variable | None, tx1: Variable | None
    ) -> Variable | None:
        x0, x1 = xs  # the same shifted bases as backward: no 0 * inf at x0 = 0
        shift0, shift1 = self._base_shifts()
        t0 = None if tx0 is None else tx0 * x1 * _shifted(x0, shift0) ** (x1 - 1)
        t1 = None if tx1 is None else tx1 * y * log(_shifted(x0, shift1))
        return add_tangents(y.shape, t0, t1)

    def _base_shifts(self) -> tuple[np.ndarray, np.ndarray]:
        """Where ``x0 == 0`` the formulas give ``0 * inf = NaN``; 1 added to the base there.

        The derivative of ``x0 ** 0`` is 0 also at ``x0 = 0`` (the formula says
        ``0 * 0**-1``), and for ``x1 >= 0`` the derivative of ``0 ** x1`` w.r.t. ``x1`` is
        taken as 0 (the formula says ``0 * log 0``), as PyTorch does. Shifting the base to 1
        at exactly those entries turns the power into 1 and the log into 0; the shifts are
        constants, so the backward stays differentiable.
        """
        x0, x1 = self.input_arrays
        at_zero = x0 == 0
        return at_zero & (x1 == 0), at_zero & (x1 >= 0)

    def vjp(self, xp: Ops, xs: Pair, y: Value, gy: Value) -> tuple[Value | None, Value | None]:
        x0, x1 = xs
        need0, need1 = self.needs_input_grad
        shift0, shift1 = self._base_shifts()
        gx0 = xp.sum_to(gy * x1 * _shifted(x0, shift0) ** (x1 - 1), x0.shape) if need0 else None
        gx1 = xp.sum_to(gy * x0**x1 * xp.log(_shifted(x0, shift1)), x1.shape) if need1 else None
        return gx0, gx1


def pow(x0: Operand, x1: Operand) -> Variable:
    """Raise ``x0`` to the power ``x1`` elementwise (``np.power``), broadcasting.

    The exponent may be a Python number (a constant: no gradient is computed for it) or
    a Variable (then ``d y / d x1 = y * log(x0)``, defined for ``x0 > 0``). At ``x0 = 0``
    the gradients follow PyTorch: ``d(x0 ** 0)/d x0 = 0`` and, for ``x1 >= 0``,
    ``d(0 ** x1)/d x1 = 0`` (no ``0 * inf = NaN``).

    Shapes:
        x0 ``(*a)``, x1 ``(*b)`` -> ``broadcast(a, b)``.

    The result has the dtype and values of NumPy's ``x0.data ** x1`` (a Python-number
    exponent takes the dtype NumPy 2 gives it, NEP 50; ``bool ** 2`` is int8 as in NumPy).

    Raises:
        ValueError: if the shapes do not broadcast, or NumPy rejects the power (integers to
            negative integer powers).
        OverflowError: for a Python int out of range of the other operand's integer dtype
            (``int8_x ** 300``), as NumPy 2 raises; the message names the operand and dtype.

    Example:
        >>> pow(Variable(np.array([2.0, 3.0])), 2)
        variable([4. 9.])
    """
    exponent = x1 if isinstance(x1, (int, float)) and type(x1) in _INT_OR_FLOAT else None
    return Pow(exponent)(x0, x1)


_INT_OR_FLOAT = frozenset({int, float})  # exactly these (not bool): NumPy's `**` fast paths
