"""The error function ``erf`` and its complement ``erfc``, computed here (NumPy has none).

Two classical expansions, each used where it converges fast (the method of CPython's
own ``math.erf`` before it called the C library, ``Modules/mathmodule.c``, 2009):

* a power series for ``|x| < 1.5`` (Abramowitz & Stegun 7.1.6)::

      erf(x) = 2 x exp(-x**2) / sqrt(pi) * sum_k (2 x**2)**k / (1 * 3 * ... * (2k + 1))

* a continued fraction for ``erfc`` at ``|x| >= 1.5`` (A&S 7.1.14, in its even form)::

      erfc(x) = x exp(-x**2) / sqrt(pi) * 1 / (x**2 + 0.5 - 0.5 / (x**2 + 2.5 - 3 / (...)))

  whose k-th partial numerator is ``k (k - 1/2)`` over ``x**2 + 2k + 1/2``,

with ``erf(-x) = -erf(x)`` and ``erfc(x) = 1 - erf(x)``. Both are evaluated in float64
(float32 input is computed in float64 and rounded back). Against the C library's
``math.erf``/``math.erfc`` (``tests/ops/test_special.py``): ``erf`` within 1e-15
relative everywhere; ``erfc`` within 1.5e-14 relative down to its underflow near 26.5,
the largest error at ``0.5 < x < 1.5`` where it is ``1 - erf`` (an absolute error below
5e-16 there).

The derivative is ``d erf/dx = 2 / sqrt(pi) * exp(-x**2)`` (A&S 7.1.19).
"""

from __future__ import annotations

import math

import numpy as np

from minitorch.core import Operand, Variable
from minitorch.core.function import Ops, Value
from minitorch.ops.elementwise import Unary
from minitorch.ops.reshape import as_float

TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
SERIES_CUTOFF = 1.5  # below: the series; above: the continued fraction
SERIES_TERMS = 25
CONTFRAC_TERMS = 50
ERFC_ZERO = 30.0  # erfc(30) ~ 2.6e-393 is 0 in float64


def _erf_series(x: np.ndarray) -> np.ndarray:
    """erf(x) for ``|x| < 1.5``, float64, by Horner's scheme on the series above."""
    x2 = x * x
    acc = np.zeros_like(x)
    fk = SERIES_TERMS + 0.5
    for _ in range(SERIES_TERMS):
        acc = 2.0 + x2 * acc / fk
        fk -= 1.0
    return acc * x * np.exp(-x2) / math.sqrt(math.pi)


def _erfc_contfrac(x: np.ndarray) -> np.ndarray:
    """erfc(x) for ``1.5 <= x < 30``, float64: the continued fraction's convergents p/q."""
    x2 = x * x
    a, da = 0.0, 0.5
    p, p_last = np.ones_like(x), np.zeros_like(x)
    q, q_last = da + x2, np.ones_like(x)
    for _ in range(CONTFRAC_TERMS):
        a += da
        da += 2.0
        b = da + x2
        p, p_last = b * p - a * p_last, p
        q, q_last = b * q - a * q_last, q
    return p / q * x * _exp_minus_square(x) / math.sqrt(math.pi)


def _exp_minus_square(x: np.ndarray) -> np.ndarray:
    """``exp(-x**2)`` without the rounding error of ``x**2`` (which ``exp`` multiplies by
    ``x**2``, up to 900 here): with ``xs`` = x rounded down to a multiple of 1/16, ``xs**2``
    is exact and ``x**2 = xs**2 + (x - xs)(x + xs)`` (Cody 1969 does the same)."""
    xs = np.floor(x * 16.0) / 16.0
    return np.exp(-xs * xs) * np.exp(-(x - xs) * (x + xs))


def erf_array(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(erf(x), erfc(x))`` of a real ndarray, each in x's float dtype.

    NaN gives NaN; ``erf(+-inf) = +-1``, ``erfc(inf) = 0``, ``erfc(-inf) = 2``.
    """
    x64 = np.asarray(x, dtype=np.float64)
    ax = np.abs(x64)
    erf, erfc = np.empty_like(x64), np.empty_like(x64)
    small, large = ax < SERIES_CUTOFF, ax >= ERFC_ZERO
    middle = ~(small | large)  # NaN lands here: NaN through the fraction
    erf[small] = _erf_series(x64[small])
    erfc[small] = 1.0 - erf[small]
    tail = _erfc_contfrac(ax[middle])  # erfc(|x|)
    positive = x64[middle] > 0
    erf[middle] = np.where(positive, 1.0 - tail, tail - 1.0)
    erfc[middle] = np.where(positive, tail, 2.0 - tail)
    erf[large] = np.sign(x64[large])
    erfc[large] = np.where(x64[large] > 0, 0.0, 2.0)
    return erf.astype(x.dtype, copy=False), erfc.astype(x.dtype, copy=False)


class Erf(Unary):
    """y = erf(x);  dy/dx = 2 / sqrt(pi) * exp(-x**2)."""

    name = "erf"

    def compute(self, x: np.ndarray) -> np.ndarray:
        return erf_array(x)[0]

    def derivative(self, xp: Ops, x: Value, y: Value) -> Value:
        return TWO_OVER_SQRT_PI * xp.exp(-(x * x))


class Erfc(Unary):
    """y = erfc(x) = 1 - erf(x);  dy/dx = -2 / sqrt(pi) * exp(-x**2)."""

    name = "erfc"

    def compute(self, x: np.ndarray) -> np.ndarray:
        return erf_array(x)[1]

    def derivative(self, xp: Ops, x: Value, y: Value) -> Value:
        return -TWO_OVER_SQRT_PI * xp.exp(-(x * x))


def erf(x: Operand) -> Variable:
    """The error function ``erf(x) = 2/sqrt(pi) * integral_0^x exp(-t**2) dt``.

    Computed here (NumPy has no erf) by a series and a continued fraction, to a few
    units in the last place of float64 (see the module docstring). The Gaussian CDF is
    ``0.5 * (1 + erf(x / sqrt(2)))``. Integer and bool inputs are computed in float64;
    float32 stays float32.

    Shapes:
        any -> the same shape.

    Raises:
        TypeError: for complex input (out of scope).

    Example:
        >>> erf(Variable(np.array([0.0, 1.0])))
        variable([0.         0.84270079])

    References:
        Abramowitz & Stegun, *Handbook of Mathematical Functions* (1964), 7.1.6, 7.1.14,
        7.1.19.
    """
    return Erf()(as_float(x))


def erfc(x: Operand) -> Variable:
    """The complementary error function ``erfc(x) = 1 - erf(x)``, accurate in the tail.

    ``erfc(10)`` is ``2.1e-45``, where ``1 - erf(10)`` is 0. Same method, dtypes and
    accuracy as :func:`erf`.

    Shapes:
        any -> the same shape.

    Raises:
        TypeError: for complex input (out of scope).

    Example:
        >>> erfc(Variable(np.array([0.0])))
        variable([1.])

    References:
        Abramowitz & Stegun, *Handbook of Mathematical Functions* (1964), 7.1.2, 7.1.14.
    """
    return Erfc()(as_float(x))
