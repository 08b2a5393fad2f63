"""Activations.

sigmoid, relu, leaky_relu, softplus, clip, maximum, minimum, softmax and log_softmax.

Two recurring themes: *stability* (never evaluate ``exp`` of a large positive number:
sigmoid branches on the sign, softmax subtracts the max) and *kinks* (relu, clip,
maximum are not differentiable everywhere; each docstring states the subgradient used).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from minitorch.core import Function, Operand, Variable
from minitorch.core.function import Ops, Value, as_constant
from minitorch.ops.arithmetic import Pair, broadcast_error
from minitorch.ops.math import One, exp
from minitorch.ops.reduce import Axis, max_keepdims, normalize_axis, numpy_keywords, sum
from minitorch.ops.reshape import add_tangents, as_float


def sigmoid_array(x: np.ndarray) -> np.ndarray:
    """The logistic function on an ndarray, without overflow for any finite ``x``.

    ``exp`` only ever sees ``-|x| <= 0``: for ``x >= 0`` we use ``1 / (1 + e^-x)``, for
    ``x < 0`` the equal ``e^x / (1 + e^x)``.
    """
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


class Sigmoid(Function):
    """y = 1 / (1 + exp(-x));  gx = gy * y * (1 - y)."""

    saves = ("output",)

    def forward(self, x: np.ndarray) -> np.ndarray:
        return sigmoid_array(x)

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        return tx * y * (1 - y)

    def vjp(self, xp: Ops, xs: One, y: Value, gy: Value) -> Value:
        return gy * y * (1 - y)


def sigmoid(x: Operand) -> Variable:
    """The logistic function ``1 / (1 + exp(-x))``, stable for any finite ``x``.

    ``sigmoid(-1000)`` is ``0.0`` and ``sigmoid(1000)`` is ``1.0`` without an overflow
    warning, and small values keep full relative precision (``sigmoid(-40) ~ 4.2e-18``).

    Shapes:
        any -> the same shape and dtype; integer and bool inputs give float64 (the rule
        of the real-only ops: ``sigmoid(uint8 [1, 2])`` must not negate in uint8).

    Args:
        x: the input (float; integers and bools are converted to float64 first).

    Returns:
        A Variable with values in ``[0, 1]``.

    Example:
        >>> sigmoid(Variable(np.array([-1000.0, 0.0, 1000.0])))
        variable([0.  0.5 1. ])
    """
    return Sigmoid()(as_float(x))


class ReLU(Function):
    """y = max(x, 0);  gx = gy where not x <= 0 (x > 0, or NaN), else 0."""

    saves = ("inputs",)

    def forward(self, x: np.ndarray) -> np.ndarray:
        return np.maximum(x, 0)

    def _passes(self) -> np.ndarray:
        # `not x <= 0` rather than `x > 0`: the two differ only at NaN, where PyTorch's
        # threshold_backward passes the gradient on (a NaN input keeps its NaN gradient
        # visible instead of a silent 0). The mask is a constant: relu'' = 0 a.e.
        return ~(self.input_arrays[0] <= 0)

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        return tx * self._passes().astype(tx.dtype)

    def vjp(self, xp: Ops, xs: One, y: Value, gy: Value) -> Value:
        return gy * self._passes()


def relu(x: Operand) -> Variable:
    """Rectified linear unit ``max(x, 0)``; the gradient at exactly 0 is 0 (as PyTorch).

    At a NaN input the output is NaN and the gradient passes through unchanged (1 times
    ``gy``), as PyTorch's ``threshold_backward`` does: only ``x <= 0`` blocks it.

    Shapes:
        any -> the same shape and dtype.

    Args:
        x: the input.

    Returns:
        A Variable of ``x``'s dtype.

    Example:
        >>> relu(Variable(np.array([-1.0, 0.0, 2.0])))
        variable([0. 0. 2.])

    References:
        Nair & Hinton, "Rectified Linear Units Improve Restricted Boltzmann Machines",
        ICML 2010.
    """
    return ReLU()(x)


class LeakyReLU(Function):
    """y = x if x > 0 else slope * x;  gx = gy if x > 0 else slope * gy."""

    saves = ("inputs",)

    def __init__(self, negative_slope: float) -> None:
        self.negative_slope = negative_slope

    def forward(self, x: np.ndarray) -> np.ndarray:
        return np.where(x > 0, x, x * self.negative_slope)

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        x = xs[0].data
        return tx * np.where(x > 0, 1.0, self.negative_slope).astype(tx.dtype)

    def vjp(self, xp: Ops, xs: One, y: Value, gy: Value) -> Value:
        (x,) = self.input_arrays  # the slopes are constants
        return gy * np.where(x > 0, 1.0, self.negative_slope).astype(gy.dtype)


def leaky_relu(x: Operand, negative_slope: float = 0.01) -> Variable:
    """Leaky ReLU: ``x`` for ``x > 0``, ``negative_slope * x`` otherwise.

    At exactly 0 the gradient is ``negative_slope`` (as PyTorch).

    Shapes:
        any -> the same shape and dtype.

    Args:
        x: the input.
        negative_slope: the slope for negative inputs: a real number (a Python or NumPy
            int or float), a constant.

    Returns:
        A Variable of ``x``'s dtype (float64 for integer and bool inputs: ``x * slope``).

    Raises:
        TypeError: if ``negative_slope`` is not a real number (a string, a bool, an
            array or a Variable; for a learnable slope write
            ``where(x.data > 0, x, slope * x)``).

    Example:
        >>> leaky_relu(Variable(np.array([-2.0, 3.0])), 0.1)
        variable([-0.2  3. ])

    References:
        Maas, Hannun & Ng, "Rectifier Nonlinearities Improve Neural Network Acoustic
        Models", ICML 2013.
    """
    if isinstance(negative_slope, (bool, np.bool_)) or not isinstance(
        negative_slope, numbers.Real
    ):
        shown = type(negative_slope).__name__
        hint = (
            "; a Variable slope would need a gradient leaky_relu does not give: for a "
            "learnable slope write F.where(x.data > 0, x, slope * x)"
            if isinstance(negative_slope, (Variable, np.ndarray))
            else ""
        )
        raise TypeError(
            f"leaky_relu: negative_slope must be a real number (an int or float), got "
            f"{shown} {negative_slope!r:.40}{hint}"
        )
    return LeakyReLU(float(negative_slope))(x)


class Softplus(Function):
    """y = log(1 + exp(x));  gx = gy * sigmoid(x)."""

    saves = ("inputs",)

    def forward(self, x: np.ndarray) -> np.ndarray:
        return np.logaddexp(0, x)  # log(e^0 + e^x) without overflow

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        return tx * sigmoid(xs[0])

    def vjp(self, xp: Ops, xs: One, y: Value, gy: Value) -> Value:
        (x,) = xs
        return gy * xp.sigmoid(x)


def softplus(x: Operand) -> Variable:
    """``log(1 + exp(x))``, a smooth relu, computed without overflow.

    Shapes:
        any -> the same shape and dtype (float64 for integer and bool inputs).

    Args:
        x: the input (float; integers and bools are converted to float64 first).

    Returns:
        A Variable of ``x``'s dtype; its gradient is ``sigmoid(x)``.

    Example:
        >>> softplus(Variable(np.array([0.0, 1000.0])))
        variable([6.93147181e-01 1.00000000e+03])
    """
    return Softplus()(as_float(x))


INPUT = "input"  # a Clip bound that is one of the op's inputs (a Variable), not a constant


class Clip(Function):
    """y = min(max(x, lo), hi);  gx = gy where lo <= x <= hi,  glo = gy where x < lo
    (and lo < hi),  ghi = gy where x > hi  (PyTorch's clamp rule)."""

    saves = ("inputs",)

    def __init__(self, x_min: Any, x_max: Any) -> None:
        # Each bound is None, a constant (a number, or the forward point's copy of an
        # array), or INPUT: a Variable passed after x as an input of its own, so that it
        # receives a gradient (torch.clamp(x, min=tensor) does the same).
        self.x_min = x_min
        self.x_max = x_max

    def forward(self, x: np.ndarray, *bounds: np.ndarray) -> np.ndarray:
        return np.clip(x, *self._bounds(bounds))

    def _bounds(self, arrays: Any) -> tuple[Any, Any]:
        """(lo, hi): the constants, or the input arrays standing for the INPUT bounds."""
        rest = iter(arrays)
        lo = next(rest) if self.x_min is INPUT else self.x_min
        hi = next(rest) if self.x_max is INPUT else self.x_max
        return lo, hi

    def _masks(self) -> tuple[Any, Any, Any]:
        """Where x, lo and hi is the output: PyTorch's masks, ties to x.

        ``x == lo`` (or ``x == hi``) gives the gradient to ``x``; where ``lo == hi`` and
        ``x`` is outside, neither bound gets it (PyTorch's rule: ``lo`` only while
        ``lo < hi``); a NaN anywhere gives nobody a gradient (every comparison is false).
        The masks broadcast to the output's shape against ``gy``.
        """
        x, *rest = self.input_arrays
        lo, hi = self._bounds(rest)
        inside: Any = np.True_
        below = above = None
        if lo is not None:
            inside = inside & (x >= lo)
            below = x < lo if hi is None else (x < lo) & (lo < hi)
        if hi is not None:
            inside = inside & (x <= hi)
            above = x > hi
        return inside, below, above

    def _input_masks(self) -> list[Any]:
        """One mask per input, in the order of the inputs: x's, then each INPUT bound's."""
        inside, below, above = self._masks()
        bounds = ((below, self.x_min), (above, self.x_max))
        return [inside] + [mask for mask, bound in bounds if bound is INPUT]

    def jvp(
        self, xs: Sequence[Variable], y: Variable, tx: Variable | None, *t_bounds: Variable | None
    ) -> Variable | None:
        dtype = y.dtype
        terms = [
            None if t is None else t * np.asarray(mask, dtype)
            for t, mask in zip((tx, *t_bounds), self._input_masks())
        ]
        return add_tangents(y.shape, *terms)

    def vjp(self, xp: Ops, xs: tuple[Value, ...], y: Value, gy: Value) -> Any:
        # Constant masks (clip'' = 0 a.e.); a broadcast bound sums its share (sum_to).
        grads = [
            xp.sum_to(gy * mask, x.shape) if need else None
            for x, mask, need in zip(xs, self._input_masks(), self.needs_input_grad)
        ]
        return grads[0] if len(grads) == 1 else tuple(grads)


def clip(x: Operand, x_min: Operand | None, x_max: Operand | None) -> Variable:
    """Limit ``x`` to ``[x_min, x_max]`` (``np.clip``); either bound may be ``None``.

    The gradient goes to whichever of ``x``, ``x_min``, ``x_max`` the output is, as
    ``torch.clamp``: to ``x`` inside the closed interval (a tie ``x == x_min`` or
    ``x == x_max`` goes to ``x``), to ``x_min`` where ``x < x_min`` (while
    ``x_min < x_max``: where both bounds are equal, neither receives it), to ``x_max``
    where ``x > x_max``. A bound that is a Variable is an input of the op and receives
    its gradient (summed over the elements it was broadcast to, with ``create_graph`` as
    well); a number or an ndarray is a constant. A NaN in ``x`` or a bound gives a NaN
    output and no gradient to anyone (every comparison is false), as PyTorch.

    Shapes:
        x ``(*a)``, x_min ``(*b)``, x_max ``(*c)`` (each bound a number or an array that
        broadcasts) -> ``broadcast(a, b, c)``; each gradient has its input's shape.

    Args:
        x: the input.
        x_min: the lower bound (a number, an ndarray, a Variable) or ``None``.
        x_max: the upper bound (a number, an ndarray, a Variable) or ``None``.

    Returns:
        A Variable of the dtype ``np.clip`` gives: ``x``'s for number bounds (float32
        stays float32), the promoted one for array or Variable bounds.

    Raises:
        ValueError: if both bounds are ``None`` or ``x_min > x_max`` somewhere.
        TypeError: if a bound is a ``numpy.ma`` masked array (its mask would be ignored).

    Example:
        >>> clip(Variable(np.array([-2.0, 0.5, 3.0])), 0.0, 1.0)
        variable([0.  0.5 1. ])
        >>> lo = Variable(np.array(0.0))
        >>> y = clip(Variable(np.array([-2.0, -1.0, 3.0])), lo, 1.0)
        >>> y.sum().backward()
        >>> lo.grad  # the output was lo at two elements
        variable(2.0)
    """
    if x_min is None and x_max is None:
        raise ValueError("clip: give at least one of x_min and x_max")
    lo_constant, hi_constant = _bound(x_min, "x_min"), _bound(x_max, "x_max")
    lo = x_min.data if isinstance(x_min, Variable) else lo_constant
    hi = x_max.data if isinstance(x_max, Variable) else hi_constant
    if lo is not None and hi is not None and np.any(np.greater(lo, hi)):
        raise ValueError(f"clip: x_min={lo} is greater than x_max={hi}")
    variables = [b for b in (x_min, x_max) if isinstance(b, Variable)]
    return Clip(lo_constant, hi_constant)(x, *variables)


def _bound(bound: Any, name: str) -> Any:
    """A bound as ``Clip`` keeps it: INPUT for a Variable, a number as it is, an array copied.

    Backward recomputes the masks from the bounds, so an array bound is the forward
    point's copy: editing the caller's array before backward cannot move the gradient.
    A Variable bound is an input, which the graph keeps like any other.
    """
    if isinstance(bound, Variable):
        return INPUT
    if bound is None or isinstance(bound, (int, float)):
        return bound
    return as_constant(bound, f"clip: {name}")


class _BinaryExtremum(Function):
    """Shared by Maximum and Minimum: the gradient goes to the operand that was chosen."""

    saves = ("inputs",)

    sign = 1  # +1: the larger operand is chosen, -1: the smaller

    def forward(self, x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
        try:
            return np.maximum(x0, x1) if self.sign > 0 else np.minimum(x0, x1)
        except ValueError:
            raise broadcast_error(type(self).__name__.lower(), x0, x1) from None

    def jvp(
        self, xs: Sequence[Variable], y: Variable, tx0: Variable | None, tx1: Variable | None
    ) -> Variable | None:
        w0, w1 = self._weights(y.dtype)  # the same weights as backward
        t0 = None if tx0 is None else tx0 * w0
        return add_tangents(y.shape, t0, None if tx1 is None else tx1 * w1)

    def _weights(self, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
        """Each operand's share of gy: PyTorch's rule for maximum/minimum.

        1 for the operand chosen, 0 for the other; at a tie (x0 == x1) one half each,
        one unit shared. Where an operand is NaN the output is NaN and both comparisons
        are false: each operand receives all of gy (1 and 1), as torch.maximum does, so
        the NaN operand is never cut off from its gradient.
        """
        x0, x1 = self.input_arrays
        loses0 = x0 < x1 if self.sign > 0 else x0 > x1
        loses1 = x1 < x0 if self.sign > 0 else x1 > x0
        tie = x0 == x1
        w0 = np.where(tie, 0.5, ~loses0).astype(dtype)
        return w0, np.where(tie, 0.5, ~loses1).astype(dtype)

    def vjp(self, xp: Ops, xs: Pair, y: Value, gy: Value) -> tuple[Value, Value]:
        x0, x1 = xs
        w0, w1 = self._weights(gy.dtype)
        return xp.sum_to(gy * w0, x0.shape), xp.sum_to(gy * w1, x1.shape)


class Maximum(_BinaryExtremum):
    """y = max(x0, x1);  gx0 = gy where not x0 < x1, gy / 2 at ties; gx1 likewise."""

    ufunc = np.maximum


class Minimum(_BinaryExtremum):
    """y = min(x0, x1);  gx0 = gy where not x0 > x1, gy / 2 at ties; gx1 likewise."""

    sign = -1
    ufunc = np.minimum


def maximum(x0: Operand, x1: Operand) -> Variable:
    """Elementwise maximum (``np.maximum``), broadcasting.

    Where ``x0 == x1`` the gradient is split: each operand receives ``gy / 2`` (exactly
    one unit of gradient shared, as ``torch.maximum``). Where either operand is NaN the
    output is NaN and *both* operands receive ``gy`` (PyTorch's rule: neither lost the
    comparison), so the NaN operand is not cut off from its gradient.

    Shapes:
        x0 ``(*a)``, x1 ``(*b)`` -> ``broadcast(a, b)``; each gradient has its input's shape.

    Args:
        x0: the first operand.
        x1: the second operand.

    Returns:
        A Variable of the promoted dtype.

    Raises:
        ValueError: if the shapes do not broadcast.
        OverflowError: for a Python int that the other operand's dtype cannot hold
            (``maximum(int8_x, 300)``), as NumPy 2 raises.

    Example:
        >>> maximum(Variable(np.array([1.0, 5.0])), 3.0)
        variable([3. 5.])
    """
    return Maximum()(x0, x1)


def minimum(x0: Operand, x1: Operand) -> Variable:
    """Elementwise minimum (``np.minimum``), broadcasting: the mirror of :func:`maximum`.

    The gradient goes to the smaller operand; where ``x0 == x1`` each receives ``gy / 2``
    (one unit of gradient shared, as ``torch.minimum``), and where either is NaN both
    receive ``gy``: the tie and NaN rules of :func:`maximum`.

    Shapes:
        as :func:`maximum`: the broadcast of both shapes; each gradient has its input's.

    Args:
        x0: the first operand (a Variable, an ndarray or a scalar).
        x1: the second operand.

    Returns:
        A Variable of the operands' promoted dtype.

    Raises:
        ValueError: if the shapes do not broadcast (the message names both).
        OverflowError: for a Python int that the other operand's dtype cannot hold
            (``minimum(int8_x, 300)``), as NumPy 2 raises.

    Example:
        >>> x = Variable(np.array([1.0, 3.0, 5.0]))
        >>> y = minimum(x, 3.0)
        >>> y
        variable([1. 3. 3.])
        >>> y.sum().backward()
        >>> x.grad  # 1 where x is smaller, 1/2 at the tie, 0 where 3.0 is smaller
        variable([1.  0.5 0. ])
    """
    return Minimum()(x0, x1)


def _softmax_array(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    # Subtracting the max makes every exponent <= 0: no overflow, same result.
    e = np.exp(x - max_keepdims(x, axes))
    e /= np.sum(e, axis=axes, keepdims=True)
    return e


class Softmax(Function):
    """y = exp(x) / sum(exp(x));  gx = y * (gy - sum(gy * y))  (sums along ``axis``)."""

    saves = ("output",)

    def __init__(self, axis: Axis) -> None:
        self.axis = axis

    def forward(self, x: np.ndarray) -> np.ndarray:
        self.axes = normalize_axis(self.axis, x.ndim, "softmax")
        return _softmax_array(x, self.axes)

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        # dy = y * (dx - sum(y * dx))
        return y * (tx - sum(tx * y, self.axes, keepdims=True))

    def vjp(self, xp: Ops, xs: One, y: Value, gy: Value) -> Value:
        gx = gy * y
        return gx - y * xp.sum(gx, self.axes, keepdims=True)


@numpy_keywords  # F.softmax(x, dim=1), PyTorch's spelling, names axis=
def softmax(x: Operand, axis: Axis = -1) -> Variable:
    """Softmax along ``axis``: ``exp(x) / sum(exp(x), axis)``, stable for any logits.

    The max along ``axis`` is subtracted first (it cancels), so logits of ``±1000`` give
    exact probabilities instead of ``nan``.

    Shapes:
        any -> the same shape; each slice along ``axis`` sums to 1. Integer and bool
        logits are converted to float64 first (``x - max`` would wrap in uint8).

    Args:
        x: the logits (float).
        axis: the axis (or tuple of axes) to normalise over; default the last.

    Returns:
        A Variable of ``x``'s dtype: probabilities in ``[0, 1]`` (an underflowed one is
        exactly 0; take :func:`log_softmax` for their logarithms).

    Raises:
        ValueError: if ``axis`` is out of range or repeated.

    Example:
        >>> softmax(Variable(np.array([1000.0, 1000.0])))
        variable([0.5 0.5])

    References:
        Goodfellow, Bengio & Courville, *Deep Learning* (2016), §4.1 and §6.2.2.3.
    """
    return Softmax(axis)(as_float(x))


class LogSoftmax(Function):
    """y = x - logsumexp(x);  gx = gy - exp(y) * sum(gy)  (sums along ``axis``)."""

    saves = ("output",)

    def __init__(self, axis: Axis) -> None:
        self.axis = axis

    def forward(self, x: np.ndarray) -> np.ndarray:
        self.axes = normalize_axis(self.axis, x.ndim, "log_softmax")
        z = x - max_keepdims(x, self.axes)
        with np.errstate(divide="ignore"):  # log(0) only for an empty axis: no values
            return z - np.log(np.sum(np.exp(z), axis=self.axes, keepdims=True))

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        # dy = dx - sum(softmax(x) * dx)
        return tx - sum(exp(y) * tx, self.axes, keepdims=True)

    def vjp(self, xp: Ops, xs: One, y: Value, gy: Value) -> Value:
        return gy - xp.exp(y) * xp.sum(gy, self.axes, keepdims=True)


@numpy_keywords  # F.softmax(x, dim=1), PyTorch's spelling, names axis=
def log_softmax(x: Operand, axis: Axis = -1) -> Variable:
    """``log(softmax(x))`` along ``axis``, computed as ``x - logsumexp(x)`` (stable).

    Unlike ``log(softmax(x))`` it never takes ``log(0)``: for logits ``[0, -1000]`` it
    returns ``[0, -1000]`` exactly.

    Shapes:
        any -> the same shape; ``exp`` of each slice along ``axis`` sums to 1. Integer and
        bool logits are converted to float64 first.

    Args:
        x: the logits (float).
        axis: the axis (or tuple of axes) whose entries form one distribution; default
            the last, as for :func:`softmax`.

    Returns:
        A Variable of ``x``'s dtype: log-probabilities, ``<= 0`` and finite for finite
        logits (what the losses take, e.g. :func:`nll_loss`).

    Raises:
        ValueError: if ``axis`` is out of range or repeated.

    Example:
        >>> log_softmax(Variable(np.array([0.0, -1000.0])))
        variable([    0. -1000.])

    References:
        Goodfellow, Bengio & Courville, *Deep Learning* (2016), §6.2.2.3.
    """
    return LogSoftmax(axis)(as_float(x))
