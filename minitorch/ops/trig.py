"""Trigonometric and hyperbolic functions beyond sin/cos/tanh, with NumPy's names.

tan, arcsin, arccos, arctan, arctan2, hypot, sinh, cosh, arcsinh, arccosh, arctanh.
Each is a NumPy ufunc (its dtype rules too: ``np.tan`` of int8 is float16) with one
derivative written once (:mod:`minitorch.ops.elementwise`), from Abramowitz & Stegun,
*Handbook of Mathematical Functions* (1964), sec. 4.3-4.6 (circular and hyperbolic
functions and their inverses). Complex
input is refused (``TypeError``): complex numbers are out of scope.
"""

from __future__ import annotations

import numpy as np

from minitorch.core import Operand, Variable
from minitorch.core.function import Ops, Value
from minitorch.ops.elementwise import Binary, Unary


class Tan(Unary):
    """y = tan(x);  dy/dx = 1 + y**2."""

    saves = ("output",)

    name, ufunc = "tan", np.tan

    def derivative(self, xp: Ops, x: Value, y: Value) -> Value:
        return 1 + y * y


def tan(x: Operand) -> Variable:
    """Elementwise tangent (radians), ``np.tan``; ``d tan/dx = 1 + tan(x)**2``.

    Shapes:
        any -> the same shape.

    Raises:
        TypeError: for complex input (out of scope).

    Example:
        >>> tan(Variable(np.array([0.0])))
        variable([0.])
    """
    return Tan()(x)


class Arcsin(Unary):
    """y = arcsin(x);  dy/dx = 1 / sqrt((1 - x)(1 + x))."""

    name, ufunc = "arcsin", np.arcsin

    def derivative(self, xp: Ops, x: Value, y: Value) -> Value:
        return 1 / xp.sqrt((1 - x) * (1 + x))  # (1-x)(1+x), not 1-x**2: exact near |x|=1


def arcsin(x: Operand) -> Variable:
    """Elementwise inverse sine, ``np.arcsin``: values in ``[-pi/2, pi/2]``.

    The gradient ``1 / sqrt(1 - x**2)`` is inf at ``|x| = 1``; outside ``[-1, 1]``
    the value is NaN (IEEE-754, as NumPy).

    Raises:
        TypeError: for complex input (out of scope).

    Example:
        >>> arcsin(Variable(np.array([0.0])))
        variable([0.])
    """
    return Arcsin()(x)


class Arccos(Unary):
    """y = arccos(x);  dy/dx = -1 / sqrt((1 - x)(1 + x))."""

    name, ufunc = "arccos", np.arccos

    def derivative(self, xp: Ops, x: Value, y: Value) -> Value:
        return -1 / xp.sqrt((1 - x) * (1 + x))


def arccos(x: Operand) -> Variable:
    """Elementwise inverse cosine, ``np.arccos``: values in ``[0, pi]``.

    Raises:
        TypeError: for complex input (out of scope).

    Example:
        >>> arccos(Variable(np.array([1.0])))
        variable([0.])
    """
    return Arccos()(x)


class Arctan(Unary):
    """y = arctan(x);  dy/dx = 1 / (1 + x**2)."""

    name, ufunc = "arctan", np.arctan

    def derivative(self, xp: Ops, x: Value, y: Value) -> Value:
        return 1 / (1 + x * x)


def arctan(x: Operand) -> Variable:
    """Elementwise inverse tangent, ``np.arctan``: values in ``(-pi/2, pi/2)``.

    Raises:
        TypeError: for complex input (out of scope).

    Example:
        >>> arctan(Variable(np.array([0.0])))
        variable([0.])
    """
    return Arctan()(x)


class Arctan2(Binary):
    """y = arctan2(x0, x1);  dy/dx0 = x1 / (x0**2 + x1**2),  dy/dx1 = -x0 / (x0**2 + x1**2)."""

    saves = ("inputs",)

    name, ufunc = "arctan2", np.arctan2

    def derivatives(self, xp: Ops, x0: Value, x1: Value, y: Value) -> tuple[Value, Value]:
        r2 = x0 * x0 + x1 * x1
        return x1 / r2, -x0 / r2


def arctan2(x0: Operand, x1: Operand) -> Variable:
    """The angle of the point ``(x1, x0)``, ``np.arctan2(x0, x1)``, in ``[-pi, pi]``.

    ``x0`` is the y-coordinate, ``x1`` the x-coordinate, as in NumPy. The gradient is
    undefined at the origin (NaN there).

    Shapes:
        x0 ``(*a)``, x1 ``(*b)`` -> ``broadcast(a, b)``; each gradient has its input's shape.

    Raises:
        ValueError: if the shapes do not broadcast (the message names both).
        TypeError: for complex input (out of scope).

    Example:
        >>> arctan2(Variable(np.array([1.0])), 0.0)
        variable([1.57079633])
    """
    return Arctan2()(x0, x1)


class Hypot(Binary):
    """y = sqrt(x0**2 + x1**2);  dy/dx0 = x0 / y,  dy/dx1 = x1 / y."""

    name, ufunc = "hypot", np.hypot

    def derivatives(self, xp: Ops, x0: Value, x1: Value, y: Value) -> tuple[Value, Value]:
        return x0 / y, x1 / y


def hypot(x0: Operand, x1: Operand) -> Variable:
    """The hypotenuse ``sqrt(x0**2 + x1**2)`` without overflow, ``np.hypot``.

    The gradient is undefined at ``x0 = x1 = 0`` (NaN there, ``0 / 0``).

    Shapes:
        x0 ``(*a)``, x1 ``(*b)`` -> ``broadcast(a, b)``.

    Raises:
        ValueError: if the shapes do not broadcast.
        TypeError: for complex input (out of scope).

    Example:
        >>> hypot(Variable(np.array([3.0])), 4.0)
        variable([5.])
    """
    return Hypot()(x0, x1)


class Sinh(Unary):
    """y = sinh(x);  dy/dx = cosh(x)."""

    name, ufunc = "sinh", np.sinh

    def derivative(self, xp: Ops, x: Value, y: Value) -> Value:
        return xp.apply(Cosh(), x)


def sinh(x: Operand) -> Variable:
    """Elementwise hyperbolic sine, ``np.sinh``.

    Raises:
        TypeError: for complex input (out of scope).

    Example:
        >>> sinh(Variable(np.array([0.0])))
        variable([0.])
    """
    return Sinh()(x)


class Cosh(Unary):
    """y = cosh(x);  dy/dx = sinh(x)."""

    name, ufunc = "cosh", np.cosh

    def derivative(self, xp: Ops, x: Value, y: Value) -> Value:
        return xp.apply(Sinh(), x)


def cosh(x: Operand) -> Variable:
    """Elementwise hyperbolic cosine, ``np.cosh``.

    Raises:
        TypeError: for complex input (out of scope).

    Example:
        >>> cosh(Variable(np.array([0.0])))
        variable([1.])
    """
    return Cosh()(x)


class Arcsinh(Unary):
    """y = arcsinh(x);  dy/dx = 1 / sqrt(x**2 + 1)."""

    name, ufunc = "arcsinh", np.arcsinh

    def derivative(self, xp: Ops, x: Value, y: Value) -> Value:
        return 1 / xp.sqrt(x * x + 1)


def arcsinh(x: Operand) -> Variable:
    """Elementwise inverse hyperbolic sine, ``np.arcsinh``.

    Raises:
        TypeError: for complex input (out of scope).

    Example:
        >>> arcsinh(Variable(np.array([0.0])))
        variable([0.])
    """
    return Arcsinh()(x)


class Arccosh(Unary):
    """y = arccosh(x);  dy/dx = 1 / sqrt((x - 1)(x + 1))."""

    name, ufunc = "arccosh", np.arccosh

    def derivative(self, xp: Ops, x: Value, y: Value) -> Value:
        return 1 / xp.sqrt((x - 1) * (x + 1))


def arccosh(x: Operand) -> Variable:
    """Elementwise inverse hyperbolic cosine, ``np.arccosh``, for ``x >= 1``.

    The gradient is inf at ``x = 1``; below 1 the value is NaN (IEEE-754, as NumPy).

    Raises:
        TypeError: for complex input (out of scope).

    Example:
        >>> arccosh(Variable(np.array([1.0])))
        variable([0.])
    """
    return Arccosh()(x)


class Arctanh(Unary):
    """y = arctanh(x);  dy/dx = 1 / ((1 - x)(1 + x))."""

    name, ufunc = "arctanh", np.arctanh

    def derivative(self, xp: Ops, x: Value, y: Value) -> Value:
        return 1 / ((1 - x) * (1 + x))


def arctanh(x: Operand) -> Variable:
    """Elementwise inverse hyperbolic tangent, ``np.arctanh``, for ``-1 < x < 1``.

    Raises:
        TypeError: for complex input (out of scope).

    Example:
        >>> arctanh(Variable(np.array([0.0])))
        variable([0.])
    """
    return Arctanh()(x)
