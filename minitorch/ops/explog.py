"""Exponentials and logarithms beyond exp/log, with NumPy's names.

log1p, expm1, exp2, log2, log10, logaddexp, logaddexp2: NumPy ufuncs (their dtypes
too), each with its derivative written once (:mod:`minitorch.ops.elementwise`), from
Abramowitz & Stegun, *Handbook of Mathematical Functions* (1964), sec. 4.1-4.2.
``log1p`` and ``expm1`` keep full precision near 0, where ``log(1 + x)`` and
``exp(x) - 1`` lose it; ``logaddexp`` never overflows (``log(exp(1000) + exp(1000))``).
Complex input is refused (``TypeError``): complex numbers are out of scope.
"""

from __future__ import annotations

import math

import numpy as np

from minitorch.core import Operand, Variable
from minitorch.core.function import Ops, Value
from minitorch.ops.elementwise import Binary, Unary

# Python floats, not np.log(2): a NumPy float64 scalar would promote float32 (NEP 50).
LN2 = math.log(2.0)
LN10 = math.log(10.0)


class Log1p(Unary):
    """y = log(1 + x);  dy/dx = 1 / (1 + x)."""

    name, ufunc = "log1p", np.log1p

    def derivative(self, xp: Ops, x: Value, y: Value) -> Value:
        return 1 / (1 + x)


def log1p(x: Operand) -> Variable:
    """Elementwise ``log(1 + x)``, accurate for tiny ``x`` (``np.log1p``).

    Raises:
        TypeError: for complex input (out of scope).

    Example:
        >>> log1p(Variable(np.array([0.0])))
        variable([0.])
    """
    return Log1p()(x)


class Expm1(Unary):
    """y = exp(x) - 1;  dy/dx = exp(x)."""

    name, ufunc = "expm1", np.expm1

    def derivative(self, xp: Ops, x: Value, y: Value) -> Value:
        return xp.exp(x)


def expm1(x: Operand) -> Variable:
    """Elementwise ``exp(x) - 1``, accurate for tiny ``x`` (``np.expm1``).

    Raises:
        TypeError: for complex input (out of scope).

    Example:
        >>> expm1(Variable(np.array([0.0])))
        variable([0.])
    """
    return Expm1()(x)


class Exp2(Unary):
    """y = 2**x;  dy/dx = y log 2."""

    saves = ("output",)

    name, ufunc = "exp2", np.exp2

    def derivative(self, xp: Ops, x: Value, y: Value) -> Value:
        return y * LN2


def exp2(x: Operand) -> Variable:
    """Elementwise ``2 ** x`` (``np.exp2``).

    Raises:
        TypeError: for complex input (out of scope).

    Example:
        >>> exp2(Variable(np.array([3.0])))
        variable([8.])
    """
    return Exp2()(x)


class Log2(Unary):
    """y = log2(x);  dy/dx = 1 / (x log 2)."""

    name, ufunc = "log2", np.log2

    def derivative(self, xp: Ops, x: Value, y: Value) -> Value:
        return 1 / (x * LN2)


def log2(x: Operand) -> Variable:
    """Elementwise base-2 logarithm (``np.log2``); ``log2(0) = -inf``, negatives NaN.

    Raises:
        TypeError: for complex input (out of scope).

    Example:
        >>> log2(Variable(np.array([8.0])))
        variable([3.])
    """
    return Log2()(x)


class Log10(Unary):
    """y = log10(x);  dy/dx = 1 / (x log 10)."""

    name, ufunc = "log10", np.log10

    def derivative(self, xp: Ops, x: Value, y: Value) -> Value:
        return 1 / (x * LN10)


def log10(x: Operand) -> Variable:
    """Elementwise base-10 logarithm (``np.log10``); ``log10(0) = -inf``, negatives NaN.

    Raises:
        TypeError: for complex input (out of scope).

    Example:
        >>> log10(Variable(np.array([100.0])))
        variable([2.])
    """
    return Log10()(x)


class LogAddExp(Binary):
    """y = log(exp(x0) + exp(x1));  dy/dx0 = exp(x0 - y),  dy/dx1 = exp(x1 - y)."""

    name, ufunc = "logaddexp", np.logaddexp

    def derivatives(self, xp: Ops, x0: Value, x1: Value, y: Value) -> tuple[Value, Value]:
        return xp.exp(x0 - y), xp.exp(x1 - y)  # the two softmax weights: each in [0, 1]


def logaddexp(x0: Operand, x1: Operand) -> Variable:
    """``log(exp(x0) + exp(x1))`` without overflow, broadcasting (``np.logaddexp``).

    The gradients are the softmax weights of the pair, ``exp(x0 - y)`` and
    ``exp(x1 - y)``.

    Shapes:
        x0 ``(*a)``, x1 ``(*b)`` -> ``broadcast(a, b)``.

    Raises:
        ValueError: if the shapes do not broadcast.
        TypeError: for complex input (out of scope).

    Example:
        >>> logaddexp(Variable(np.array([1000.0])), 1000.0)
        variable([1000.69314718])
    """
    return LogAddExp()(x0, x1)


class LogAddExp2(Binary):
    """y = log2(2**x0 + 2**x1);  dy/dx0 = 2**(x0 - y),  dy/dx1 = 2**(x1 - y)."""

    name, ufunc = "logaddexp2", np.logaddexp2

    def derivatives(self, xp: Ops, x0: Value, x1: Value, y: Value) -> tuple[Value, Value]:
        return xp.exp((x0 - y) * LN2), xp.exp((x1 - y) * LN2)


def logaddexp2(x0: Operand, x1: Operand) -> Variable:
    """``log2(2**x0 + 2**x1)`` without overflow, broadcasting (``np.logaddexp2``).

    Shapes:
        x0 ``(*a)``, x1 ``(*b)`` -> ``broadcast(a, b)``.

    Raises:
        ValueError: if the shapes do not broadcast.
        TypeError: for complex input (out of scope).

    Example:
        >>> logaddexp2(Variable(np.array([3.0])), 3.0)
        variable([4.])
    """
    return LogAddExp2()(x0, x1)
