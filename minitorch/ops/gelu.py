"""GELU, the activation of the transformer's feed-forward block, and the normal CDF.

``gelu(x) = x * Phi(x)``, where ``Phi`` is the standard normal CDF (Hendrycks & Gimpel
2016). PyTorch offers it exactly (``approximate="none"``, through ``erf``) and in the tanh
form of GPT-2 (``approximate="tanh"``):

    Phi(x)  = (1 + erf(x / sqrt 2)) / 2,          Phi'(x) = phi(x) = exp(-x^2 / 2) / sqrt(2 pi)
    gelu_tanh(x) = x / 2 * (1 + tanh(u)),         u = sqrt(2 / pi) * (x + 0.044715 x^3)

The exact form is a composition, ``x * normal_cdf(x)``: the product rule gives its
gradient ``Phi(x) + x phi(x)`` with no new formula. The tanh form is one Function of its
own for speed (it is the char-GPT's hot path): composed from ``mul``, ``pow``, ``tanh``
and ``add`` it would record nine nodes and nine temporaries, forward and backward.

``erf`` is computed here with the standard library's ``math.erf`` on each element (exact
to the last bit, no SciPy): simple and right, but about 50 ns an element, so the char-GPT
uses the tanh form. This module is self-contained on purpose (an ``F.erf`` op may come
later and replace :func:`_erf_array`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from minitorch.core import Function, Operand, Variable
from minitorch.core.function import Ops, Value
from minitorch.ops.arithmetic import mul
from minitorch.ops.math import One
from minitorch.ops.reshape import as_float

SQRT_2 = math.sqrt(2.0)
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
TANH_SCALE = math.sqrt(2.0 / math.pi)  # sqrt(2 / pi), GPT-2's constant
TANH_CUBIC = 0.044715

_erf_elementwise = np.frompyfunc(math.erf, 1, 1)


def _erf_array(x: np.ndarray) -> np.ndarray:
    """``erf`` elementwise in double precision (``math.erf``), returned in ``x``'s dtype."""
    return np.asarray(_erf_elementwise(x), dtype=x.dtype)


def _normal_pdf(xp: Ops, x: Value) -> Value:
    """``phi(x) = exp(-x^2 / 2) / sqrt(2 pi)``, with ``xp``'s exp (arrays or Variables)."""
    return xp.exp(-0.5 * x * x) * INV_SQRT_2PI


class NormalCdf(Function):
    """y = Phi(x) = (1 + erf(x / sqrt 2)) / 2;  gx = gy * exp(-x^2 / 2) / sqrt(2 pi)."""

    saves = ("inputs",)

    def forward(self, x: np.ndarray) -> np.ndarray:
        return 0.5 * (1.0 + _erf_array(x / SQRT_2))

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        return tx * _normal_pdf(self.graph_ops, xs[0])

    def vjp(self, xp: Ops, xs: One, y: Value, gy: Value) -> Value:
        (x,) = xs
        return gy * _normal_pdf(xp, x)


def normal_cdf(x: Operand) -> Variable:
    """The standard normal CDF ``Phi(x) = (1 + erf(x / sqrt 2)) / 2`` (``torch.special.ndtr``).

    Shapes:
        any -> the same shape and dtype (float64 for integer and bool inputs).

    Args:
        x: the input.

    Returns:
        A Variable with values in ``[0, 1]``; its gradient is the normal density
        ``exp(-x^2 / 2) / sqrt(2 pi)``.

    Example:
        >>> normal_cdf(Variable(np.array([0.0, 10.0])))
        variable([0.5 1. ])
    """
    return NormalCdf()(as_float(x))


def _tanh_arg(x: Value) -> Value:
    """``u = sqrt(2/pi) (x + 0.044715 x^3)``, written ``sqrt(2/pi) x (1 + 0.044715 x^2)``."""
    return TANH_SCALE * x * (1.0 + TANH_CUBIC * x * x)


def _tanh_slope(x: Value, t: Value) -> Value:
    """d gelu_tanh / dx = (1 + t) / 2 * (1 + x (1 - t) u'),  t = tanh(u).

    From ``(1 + t) / 2 + x (1 - t^2) u' / 2`` with ``1 - t^2 = (1 - t)(1 + t)``: five
    passes over the array fewer.
    """
    du = TANH_SCALE * (1.0 + (3.0 * TANH_CUBIC) * x * x)
    return 0.5 * (1.0 + t) * (1.0 + x * (1.0 - t) * du)


class GeluTanh(Function):
    """y = x / 2 * (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)));  gx = gy * slope (above)."""

    saves = ("inputs",)

    def forward(self, x: np.ndarray) -> np.ndarray:
        self.t = np.tanh(_tanh_arg(x))  # kept: the first-order backward reuses it
        return 0.5 * x * (1.0 + self.t)

    def _t(self, xp: Ops, x: Value) -> Value:
        # On arrays, forward's tanh (the same numbers, computed once); under create_graph,
        # tanh as an op, so that second derivatives see its dependence on x.
        return self.t if xp is self.array_ops else xp.tanh(_tanh_arg(x))

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        (x,) = xs
        return tx * _tanh_slope(x, self._t(self.graph_ops, x))

    def vjp(self, xp: Ops, xs: One, y: Value, gy: Value) -> Value:
        (x,) = xs
        return gy * _tanh_slope(x, self._t(xp, x))


def gelu(x: Operand, approximate: str = "none") -> Variable:
    """Gaussian error linear unit ``x * Phi(x)`` (``torch.nn.functional.gelu``).

    ``approximate="none"`` is exact, ``x * (1 + erf(x / sqrt 2)) / 2``;
    ``approximate="tanh"`` is GPT-2's ``x / 2 * (1 + tanh(sqrt(2/pi) (x + 0.044715
    x^3)))``, within about ``5e-4`` of it and faster here (see the module docstring).

    Shapes:
        any -> the same shape and dtype (float64 for integer and bool inputs).

    Args:
        x: the input.
        approximate: ``"none"`` or ``"tanh"``, as in PyTorch.

    Returns:
        A Variable; the gradient is ``Phi(x) + x phi(x)`` (exact form).

    Raises:
        ValueError: if ``approximate`` is neither ``"none"`` nor ``"tanh"``.

    Example:
        >>> gelu(Variable(np.array([-1.0, 0.0, 1.0]))).data.round(4)
        array([-0.1587,  0.    ,  0.8413])
        >>> gelu(Variable(np.array([1.0])), approximate="tanh").data.round(4)
        array([0.8412])

    References:
        D. Hendrycks and K. Gimpel, "Gaussian Error Linear Units (GELUs)",
        arXiv:1606.08415, 2016; A. Radford et al., "Language Models are Unsupervised
        Multitask Learners" (GPT-2), 2019.
    """
    if approximate == "tanh":
        return GeluTanh()(as_float(x))
    if approximate != "none":
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    x = as_float(x)
    return mul(x, normal_cdf(x))
