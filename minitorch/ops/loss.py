"""Losses and training-time ops.

PyTorch's loss functions under PyTorch's names and signatures — ``cross_entropy``,
``nll_loss``, ``mse_loss``, ``l1_loss``, ``binary_cross_entropy`` (probabilities) and
``binary_cross_entropy_with_logits`` — with DeZero's names kept as aliases where they mean
the same (``softmax_cross_entropy``, ``mean_squared_error``); plus ``dropout`` and
``accuracy``.

Losses follow PyTorch's conventions: ``reduction="mean"`` averages over the batch (over
all elements for the elementwise losses), labels are integer class indices. Losses are
defined on real numbers: integer and bool inputs (predictions and targets) are converted
to float64 before computing (``uint8 1 - 3`` would wrap around to 254).
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np

from minitorch.core import Config, Function, Operand, Variable
from minitorch.ops.activation import log_softmax, maximum, softmax, softplus
from minitorch.ops.arithmetic import add, mul, neg, sub
from minitorch.ops.indexing import get_item
from minitorch.ops.math import abs as abs_
from minitorch.ops.math import log, square
from minitorch.ops.reduce import mean
from minitorch.ops.reduce import sum as sum_all
from minitorch.ops.reshape import add_tangents, as_float
from minitorch.random import default_generator

_REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(op: str, reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{op}: reduction must be one of {_REDUCTIONS}, got {reduction!r}")


def _data(x: Any) -> Any:
    return x.data if isinstance(x, Variable) else x


def _check_same_shape(op: str, x: Operand, t: Operand) -> None:
    """PyTorch's rule for the elementwise losses: target and input have the same shape.

    Broadcasting is refused on purpose: predictions ``(N, 1)`` against targets ``(N,)``
    would broadcast to ``(N, N)`` and give a plausible but wrong loss.
    """
    shape0, shape1 = np.shape(_data(x)), np.shape(_data(t))
    if shape0 != shape1:
        raise ValueError(
            f"{op}: input of shape {shape0} and target of shape {shape1}; they must have "
            "the same shape (reshape one of them; broadcasting here would silently pair "
            "the wrong elements)"
        )


def _reduce(losses: Variable, reduction: str) -> Variable:
    if reduction == "none":
        return losses
    return mean(losses) if reduction == "mean" else sum_all(losses)


_ONE_HOT_FIX = (
    "minitorch takes class indices only (probability or one-hot targets are not "
    "supported); convert them with labels = targets.argmax(axis=1)"
)


def _labels_dtype_error(op: str, t: np.ndarray, n_rows: int) -> TypeError:
    """The error for labels that are not integers, with the fix for what they look like."""
    if t.ndim == 2 and t.shape[0] == n_rows:
        fix = f"labels of shape {t.shape} look like one-hot or probability targets: {_ONE_HOT_FIX}"
    else:
        fix = "if they hold whole numbers, convert them with labels.astype(np.int64)"
    return TypeError(
        f"{op}: labels must be integers (class indices in 0..C-1), got dtype {t.dtype}; {fix}"
    )


def _check_labels(
    x: np.ndarray, t: np.ndarray, ignore_index: int | None, op: str = "softmax_cross_entropy"
) -> None:
    if x.ndim != 2:
        raise ValueError(f"{op}: logits must be 2-D (N, C), got shape {x.shape}")
    if t.dtype.kind not in "iu":
        raise _labels_dtype_error(op, t, x.shape[0])
    if t.shape != (x.shape[0],):
        one_hot = f"; labels of the logits' shape look one-hot: {_ONE_HOT_FIX}"
        raise ValueError(
            f"{op}: labels of shape {t.shape} for logits {x.shape}; expected ({x.shape[0]},)"
            + (one_hot if t.shape == x.shape else "")
        )
    n_classes = x.shape[1]
    bad = (t < 0) | (t >= n_classes)
    if ignore_index is not None:
        bad &= t != ignore_index
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"{op}: label {int(t[i])} at position {i} is out of range for {n_classes} "
            f"classes (labels must be in 0..{n_classes - 1})"
        )


class SoftmaxCrossEntropy(Function):
    """loss_i = logsumexp(x_i) - x_i[t_i];  gx_i = (softmax(x_i) - onehot(t_i)) * gy_i."""

    saves = ("inputs",)

    def __init__(
        self, ignore_index: int | None, reduction: str, op: str = "softmax_cross_entropy"
    ) -> None:
        self.ignore_index = ignore_index
        self.reduction = reduction
        self.op = op  # the function the user called, for error messages

    def forward(self, x: np.ndarray, t: np.ndarray) -> np.ndarray:
        _check_labels(x, t, self.ignore_index, self.op)
        rows = np.arange(x.shape[0])
        self.valid = None if self.ignore_index is None else t != self.ignore_index
        self.t = t if self.valid is None else np.where(self.valid, t, 0)
        z = x - np.max(x, axis=1, keepdims=True)  # the max-shift: exp never overflows
        e = np.exp(z)
        s = np.sum(e, axis=1, keepdims=True)
        e /= s
        self.p = e  # softmax, kept for backward: computed once
        losses = np.log(s[:, 0]) - z[rows, self.t]
        if self.valid is not None:
            losses *= self.valid
        self.count = x.shape[0] if self.valid is None else int(self.valid.sum())
        return self._reduce(losses)

    def jvp(
        self, xs: Sequence[Variable], y: Variable, tx: Variable, tt: Variable | None
    ) -> Variable:
        x = xs[0]  # d loss_i = sum_c (softmax(x_i) - onehot(t_i))_c dx_ic
        onehot = np.zeros(x.shape, dtype=x.dtype)
        onehot[np.arange(x.shape[0]), self.t] = 1
        rows = sum_all((softmax(x, axis=1) - onehot) * tx, axis=1, keepdims=True)
        rows = rows * self._row_weights(x.dtype)
        return rows.reshape(-1) if self.reduction == "none" else sum_all(rows)

    def _reduce(self, losses: np.ndarray) -> np.ndarray:
        if self.reduction == "none":
            return losses
        total = np.sum(losses)
        if self.reduction == "sum":
            return total
        return total / self.count if self.count else np.full((), np.nan, losses.dtype)

    def _row_weights(self, dtype: np.dtype) -> np.ndarray | float:
        """What each row's gradient is multiplied by, besides gy: 1/count for the mean."""
        scale = 1.0 / builtins.max(self.count, 1) if self.reduction == "mean" else 1.0
        if self.valid is None:
            return scale
        return (self.valid * scale).astype(dtype)[:, None]

    def backward(self, gy: Variable) -> tuple[Variable, None]:
        x = self.inputs[0]
        onehot = np.zeros(x.shape, dtype=x.dtype)
        onehot[np.arange(x.shape[0]), self.t] = 1
        gy_col = gy if self.reduction != "none" else gy.reshape(-1, 1)
        return (softmax(x, axis=1) - onehot) * (gy_col * self._row_weights(x.dtype)), None

    def backward_array(self, gy: np.ndarray) -> tuple[np.ndarray, None]:
        # Its own array path (not the formula above on arrays): it reuses the softmax that
        # forward kept (self.p) and subtracts the one-hot in place, with no (N, C) one-hot.
        coef = gy if self.reduction != "none" else gy[:, None]
        coef = coef * self._row_weights(self.p.dtype)
        gx = self.p * coef  # a new array: self.p stays intact for a second backward
        gx[np.arange(gx.shape[0]), self.t] -= coef if coef.ndim == 0 else coef[:, 0]
        return gx, None


def softmax_cross_entropy(
    logits: Operand,
    t: Any,
    ignore_index: int | None = None,
    reduction: str = "mean",
) -> Variable:
    """Cross-entropy of ``softmax(logits)`` against integer labels, fused and stable.

    The same loss as PyTorch's ``cross_entropy``.

    ``loss_i = logsumexp(logits_i) - logits_i[t_i]``; the max-shift makes logits of
    ``±1000`` give a finite loss and the exact gradient ``(softmax - onehot) / N``.

    Shapes:
        logits ``(N, C)``, t ``(N,)`` -> ``()`` (``"mean"``, ``"sum"``) or ``(N,)``
        (``"none"``). The gradient has the logits' shape; the labels get none.

    Args:
        logits: unnormalised scores, float (integers and bools are converted to float64
            first, since ``x - max`` would wrap around in an unsigned dtype).
        t: integer class labels in ``0..C-1`` (any integer dtype; a list is accepted).
            Probability or one-hot targets are not supported: pass
            ``targets.argmax(axis=1)``.
        ignore_index: a label value whose rows contribute neither loss nor gradient; the
            mean is then taken over the remaining rows.
        reduction: ``"mean"`` (default), ``"sum"`` or ``"none"``.

    Returns:
        A Variable of the logits' dtype.

    Raises:
        ValueError: if logits are not 2-D, ``t`` is not ``(N,)``, a label is out of range
            (the message names the label, its position and the number of classes) or
            ``reduction`` is unknown.
        TypeError: if the labels are not integers (for one-hot or probability targets the
            message gives the fix, ``targets.argmax(axis=1)``).

    Example:
        >>> x = Variable(np.array([[1000.0, 0.0], [0.0, 0.0]]))
        >>> loss = softmax_cross_entropy(x, np.array([0, 1]))
        >>> round(float(loss.data), 6)
        0.346574
        >>> loss.backward()
        >>> x.grad
        variable([[ 0.    0.  ]
                  [ 0.25 -0.25]])

    References:
        Goodfellow, Bengio & Courville, *Deep Learning* (2016), §6.2.2.3.
    """
    _check_reduction("softmax_cross_entropy", reduction)
    labels = t.data if isinstance(t, Variable) else np.asarray(t)
    return SoftmaxCrossEntropy(ignore_index, reduction)(as_float(logits), labels)


def cross_entropy(
    input: Operand,
    target: Any,
    weight: Operand | None = None,
    ignore_index: int = -100,
    reduction: str = "mean",
) -> Variable:
    """PyTorch's ``cross_entropy``: ``nll_loss(log_softmax(input, axis=1), target)``.

    Without ``weight`` it runs the fused, stable :func:`softmax_cross_entropy`; with
    ``weight`` it is the composition through :func:`nll_loss` (same values).

    Shapes:
        input ``(N, C)`` logits, target ``(N,)`` integer labels, weight ``(C,)`` ->
        ``()`` (``"mean"``, ``"sum"``) or ``(N,)`` (``"none"``).

    Args:
        input: unnormalised scores (float; integers and bools are converted to float64).
        target: integer class labels in ``0..C-1``; rows labelled ``ignore_index``
            contribute neither loss nor gradient. Probability or one-hot targets (which
            PyTorch also accepts) are not supported: pass ``targets.argmax(axis=1)``.
        weight: an optional weight per class; ``"mean"`` then divides by the sum of the
            weights of the counted rows, as PyTorch does.
        ignore_index: the label value to skip (PyTorch's default ``-100``).
        reduction: ``"mean"`` (default), ``"sum"`` or ``"none"``.

    Returns:
        A Variable of the input's dtype.

    Raises:
        ValueError: for a non-2-D input, labels of the wrong shape or out of range, or an
            unknown ``reduction`` (each message names ``cross_entropy``).
        TypeError: if the labels are not integers (for one-hot or probability targets the
            message gives the fix, ``targets.argmax(axis=1)``).

    Example:
        >>> x = Variable(np.array([[2.0, 0.0], [0.0, 0.0]]))
        >>> round(float(cross_entropy(x, np.array([0, 1])).data), 6)
        0.410038
    """
    _check_reduction("cross_entropy", reduction)
    input = as_float(input)
    if weight is None:
        labels = target.data if isinstance(target, Variable) else np.asarray(target)
        return SoftmaxCrossEntropy(ignore_index, reduction, "cross_entropy")(input, labels)
    # The labels are checked before log_softmax, so that a bad one names cross_entropy
    # (and a 1-D input is refused as logits, not by log_softmax).
    x = _data(input)
    _check_labels(np.asarray(x), np.asarray(_data(target)), ignore_index, "cross_entropy")
    return _nll_loss(
        log_softmax(input, axis=1), target, weight, ignore_index, reduction, "cross_entropy"
    )


def nll_loss(
    input: Operand,
    target: Any,
    weight: Operand | None = None,
    ignore_index: int = -100,
    reduction: str = "mean",
) -> Variable:
    """Negative log-likelihood of integer labels given log-probabilities (PyTorch's).

    ``loss_i = -weight[t_i] * input[i, t_i]``; ``"mean"`` divides the sum by
    ``sum_i weight[t_i]`` over the rows not labelled ``ignore_index`` (by their count
    without ``weight``). Feed it ``log_softmax(logits, axis=1)``.

    Shapes:
        input ``(N, C)``, target ``(N,)``, weight ``(C,)`` -> ``()`` or ``(N,)``.

    Args:
        input: log-probabilities (float), e.g. ``log_softmax(logits, axis=1)``; integers
            and bools are converted to float64 first.
        target: integer class labels in ``0..C-1`` (or ``ignore_index``).
        weight: an optional weight per class.
        ignore_index: the label value to skip (default ``-100``).
        reduction: ``"mean"`` (default), ``"sum"`` or ``"none"``.

    Returns:
        A Variable of the input's dtype.

    Raises:
        ValueError: for a non-2-D input, labels of the wrong shape or out of range, a
            weight that is not ``(C,)``, or an unknown ``reduction``.
        TypeError: if the labels are not integers.

    Example:
        >>> logp = Variable(np.log(np.array([[0.5, 0.5], [0.25, 0.75]])))
        >>> round(float(nll_loss(logp, np.array([0, 1])).data), 6)
        0.490415
    """
    _check_reduction("nll_loss", reduction)
    return _nll_loss(as_float(input), target, weight, ignore_index, reduction, "nll_loss")


def _nll_loss(
    input: Operand,
    target: Any,
    weight: Operand | None,
    ignore_index: int,
    reduction: str,
    op: str,
) -> Variable:
    """:func:`nll_loss`, with ``op`` (the function the user called) in every message."""
    x = _data(input)
    labels = np.asarray(_data(target))
    _check_labels(np.asarray(x), labels, ignore_index, op=op)
    keep = labels != ignore_index
    safe = np.where(keep, labels, 0)
    picked = get_item(input, (np.arange(labels.shape[0]), safe))
    dtype = np.asarray(x).dtype
    if weight is None:
        row_weight: Any = keep.astype(dtype)
    else:
        w = np.asarray(_data(weight))
        if w.shape != (np.shape(x)[1],):
            raise ValueError(
                f"{op}: weight must have shape ({np.shape(x)[1]},) (one per class), got {w.shape}"
            )
        if not isinstance(weight, Variable):  # a constant: the input's float dtype
            weight = w.astype(dtype) if dtype.kind == "f" else w
        row_weight = mul(get_item(weight, safe), keep.astype(dtype))
    losses = -(picked * row_weight)
    if reduction == "none":
        return losses
    total = sum_all(losses)
    if reduction == "sum":
        return total
    return total / sum_all(row_weight)


def mse_loss(input: Operand, target: Operand, reduction: str = "mean") -> Variable:
    """Squared error ``(input - target) ** 2``, reduced (PyTorch's ``mse_loss``).

    A composition of ``sub``, ``square`` and ``mean``/``sum``. DeZero's
    ``mean_squared_error`` divides the sum by the batch size; minitorch's alias
    :func:`mean_squared_error` is this function (the mean over all elements).

    Shapes:
        input and target of the same shape -> ``()`` or, with ``"none"``, that shape.

    Args:
        input: predictions.
        target: targets (may also require a gradient).
        reduction: ``"mean"`` (default, over all elements), ``"sum"`` or ``"none"``.

    Returns:
        A Variable (float64 for integer or bool inputs, which are converted first).

    Raises:
        ValueError: if the shapes differ (PyTorch warns and broadcasts; a broadcast
            ``(N, 1)`` against ``(N,)`` is a classic silent bug) or ``reduction`` is
            unknown.

    Example:
        >>> mse_loss(Variable(np.array([1.0, 3.0])), np.array([0.0, 0.0]))
        variable(5.0)
    """
    _check_reduction("mse_loss", reduction)
    _check_same_shape("mse_loss", input, target)
    return _reduce(square(sub(as_float(input), as_float(target))), reduction)


def mean_squared_error(x0: Operand, x1: Operand) -> Variable:
    """Mean of ``(x0 - x1) ** 2`` over all elements: ``mse_loss(x0, x1)`` (DeZero's name).

    Note that DeZero divides the sum by the batch size instead; minitorch follows PyTorch.

    Shapes:
        x0 and x1 of the same shape -> ``()``.

    Args:
        x0: predictions.
        x1: targets (may also require a gradient).

    Returns:
        A 0-d Variable.

    Raises:
        ValueError: if the shapes differ.

    Example:
        >>> mean_squared_error(Variable(np.array([1.0, 3.0])), np.array([0.0, 0.0]))
        variable(5.0)
    """
    _check_same_shape("mean_squared_error", x0, x1)
    return mean(square(sub(as_float(x0), as_float(x1))))


def l1_loss(input: Operand, target: Operand, reduction: str = "mean") -> Variable:
    """Absolute error ``|input - target|``, reduced (PyTorch's ``l1_loss``).

    At ``input == target`` the subgradient is 0 (``abs``'s, as PyTorch's ``sign``).

    Shapes:
        input and target of the same shape -> ``()`` or, with ``"none"``, that shape.

    Args:
        input: predictions.
        target: targets.
        reduction: ``"mean"`` (default), ``"sum"`` or ``"none"``.

    Returns:
        A Variable (float64 for integer or bool inputs, which are converted first).

    Raises:
        ValueError: if the shapes differ or ``reduction`` is unknown.

    Example:
        >>> l1_loss(Variable(np.array([1.0, -3.0])), np.array([0.0, 0.0]))
        variable(2.0)
    """
    _check_reduction("l1_loss", reduction)
    _check_same_shape("l1_loss", input, target)
    return _reduce(abs_(sub(as_float(input), as_float(target))), reduction)


class BinaryCrossEntropy(Function):
    """y = -(t max(log p, -100) + (1 - t) max(log(1 - p), -100));
    gp = gy (p - t) / max(p (1 - p), 1e-12),  gt = gy (log(1 - p) - log p)."""

    saves = ("inputs",)

    def forward(self, p: np.ndarray, t: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore"):
            log_p = np.maximum(np.log(p), -100.0)
            log_q = np.maximum(np.log1p(-p), -100.0)
        return -(t * log_p + (1 - t) * log_q)

    def jvp(
        self, xs: Sequence[Variable], y: Variable, tp: Variable | None, tt: Variable | None
    ) -> Variable | None:
        p, t = xs  # the same clamped slopes as backward
        clamp = np.asarray(_EPS, p.dtype)
        dp = None if tp is None else tp * (p - t) / maximum(p * (1 - p), clamp)
        with np.errstate(divide="ignore"):
            dt = None if tt is None else tt * (log(1 - p) - log(p))
        return add_tangents(y.shape, dp, dt)

    def backward(self, gy: Variable) -> tuple[Variable, Variable]:
        p, t = self.inputs
        gp = gy * (p - t) / maximum(p * (1 - p), np.asarray(_EPS, p.dtype))
        with np.errstate(divide="ignore"):
            gt = gy * (log(1 - p) - log(p))
        return gp, gt

    def backward_array(self, gy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # Its own array path: log1p(-p) keeps the digits that log(1 - p) loses for small p
        # (minitorch has no differentiable log1p for the create_graph formula above).
        p, t = self.input_arrays
        gp = gy * (p - t) / np.maximum(p * (1 - p), _EPS)
        with np.errstate(divide="ignore"):
            gt = gy * (np.log1p(-p) - np.log(p))
        return gp.astype(p.dtype, copy=False), gt.astype(t.dtype, copy=False)


_EPS = 1e-12  # PyTorch's clamp of p (1 - p) in the gradient: finite at p in {0, 1}


def _check_probabilities(op: str, p: np.ndarray) -> None:
    """Refuse NaN, then anything outside ``[0, 1]``, each with its own message.

    NaN gets its own: min/max of an array with a NaN are NaN ("values in [nan, nan]"),
    which says nothing, and a NaN probability is never a logits mix-up but a NaN made
    upstream.
    """
    if not p.size:
        return
    nan = np.isnan(p)
    if nan.any():
        first = tuple(int(i) for i in np.unravel_index(int(np.argmax(nan)), p.shape))
        raise ValueError(
            f"{op}: input holds {int(nan.sum())} NaN of {p.size} probabilities (the first "
            f"at index {first}); a NaN is made upstream, typically by a diverging training "
            "step (lower the learning rate), log or sqrt of a negative number, 0/0 or "
            "inf - inf; run the forward pass under minitorch.detect_anomaly() to find the op "
            "that made it"
        )
    if not (np.min(p) >= 0.0 and np.max(p) <= 1.0):
        raise ValueError(
            f"{op}: input must hold probabilities in [0, 1], got values in "
            f"[{np.min(p):.4g}, {np.max(p):.4g}]; for logits (raw scores) use "
            "binary_cross_entropy_with_logits(x, t), or apply sigmoid first"
        )


def binary_cross_entropy(
    input: Operand,
    target: Operand,
    weight: Operand | None = None,
    reduction: str = "mean",
) -> Variable:
    """Binary cross-entropy of **probabilities** (PyTorch's ``binary_cross_entropy``).

    ``loss = -(t log p + (1 - t) log(1 - p))`` with each log clamped at ``-100``, as
    PyTorch does, so ``p = 0`` or ``1`` gives a finite loss (at most 100); the gradient
    is ``(p - t) / max(p (1 - p), 1e-12)``. Pass probabilities (e.g. the output of
    ``sigmoid``); for raw scores use :func:`binary_cross_entropy_with_logits`, which is
    also more accurate.

    Changed in the second round: this function used to take logits; that is now
    :func:`binary_cross_entropy_with_logits`.

    Shapes:
        input and target of the same shape (``weight`` broadcasts to it) -> ``()`` or,
        with ``"none"``, that shape.

    Args:
        input: probabilities ``p`` in ``[0, 1]`` (float).
        target: targets in ``[0, 1]`` (float; may require a gradient).
        weight: an optional weight per element, multiplied into each loss.
        reduction: ``"mean"`` (default, over all elements), ``"sum"`` or ``"none"``.

    Returns:
        A Variable of the input's dtype.

    Raises:
        ValueError: if the shapes differ, an input value is NaN (the message counts
            them, gives the first index and where NaNs come from) or outside ``[0, 1]``
            (the message points to ``binary_cross_entropy_with_logits`` for logits), or
            ``reduction`` is unknown.

    Example:
        >>> binary_cross_entropy(Variable(np.array([0.8])), np.array([1.0]))
        variable(0.2231435513142097)
    """
    _check_reduction("binary_cross_entropy", reduction)
    _check_same_shape("binary_cross_entropy", input, target)
    input, target = as_float(input), as_float(target)
    _check_probabilities("binary_cross_entropy", np.asarray(_data(input)))
    losses = BinaryCrossEntropy()(input, target)
    if weight is not None:
        losses = mul(losses, weight)
    return _reduce(losses, reduction)


def binary_cross_entropy_with_logits(
    input: Operand,
    target: Operand,
    weight: Operand | None = None,
    reduction: str = "mean",
    pos_weight: Operand | None = None,
) -> Variable:
    """Binary cross-entropy of ``sigmoid(input)``, from logits (PyTorch's function).

    ``loss = -(w_p t log sigmoid(x) + (1 - t) log(1 - sigmoid(x)))
    = (1 - t) x + (1 + (w_p - 1) t) softplus(-x)``, which is stable for any logit
    (``x = ±1000`` gives a finite loss); without ``pos_weight`` the gradient is
    ``sigmoid(x) - t``.

    Shapes:
        input and target of the same shape (``weight`` broadcasts to it, ``pos_weight``
        over the last axis) -> ``()`` or, with ``"none"``, that shape.

    Args:
        input: logits (float).
        target: targets in ``[0, 1]`` (float; may require a gradient).
        weight: an optional weight per element, multiplied into each loss.
        reduction: ``"mean"`` (default, over all elements), ``"sum"`` or ``"none"``.
        pos_weight: an optional weight ``w_p`` of the positive term (per class).

    Returns:
        A Variable of the input's dtype.

    Raises:
        ValueError: if the shapes differ or ``reduction`` is unknown.

    Example:
        >>> binary_cross_entropy_with_logits(
        ...     Variable(np.array([1000.0, -1000.0])), np.array([1.0, 0.0]))
        variable(0.0)
    """
    _check_reduction("binary_cross_entropy_with_logits", reduction)
    _check_same_shape("binary_cross_entropy_with_logits", input, target)
    input, target = as_float(input), as_float(target)
    if pos_weight is None:
        losses = sub(softplus(input), mul(input, target))  # = (1 - t) x + softplus(-x)
    else:
        log_weight = add(1.0, mul(sub(pos_weight, 1.0), target))
        losses = add(mul(sub(1.0, target), input), mul(log_weight, softplus(neg(input))))
    if weight is not None:
        losses = mul(losses, weight)
    return _reduce(losses, reduction)


def dropout(x: Operand, p: float = 0.5, training: bool | None = None) -> Variable:
    """Inverted dropout; the identity when not training.

    Each element is zeroed with probability ``p`` and the rest are scaled by
    ``1 / (1 - p)``: scaling at training time keeps the expected value unchanged, so
    evaluation needs no rescaling. The mask comes from minitorch's own generator
    (seeded by ``minitorch.manual_seed``).

    Shapes:
        any -> the same shape and dtype.

    Args:
        x: the input.
        p: the probability of dropping an element, in ``[0, 1]``.
        training: drop (``True``) or pass ``x`` through (``False``); ``None`` (default)
            reads ``Config.train`` — off inside ``test_mode()`` and inside the forward of
            a Module in eval mode. ``nn.Dropout`` passes its own module's flag.

    Returns:
        A Variable; the gradient is ``gy`` times the same scaled mask.

    Raises:
        ValueError: if ``p`` is not in ``[0, 1]``.

    Example:
        >>> from minitorch import test_mode
        >>> x = Variable(np.ones(4))
        >>> with test_mode():
        ...     dropout(x, 0.5) is x
        True

    References:
        Srivastava et al., "Dropout: A Simple Way to Prevent Neural Networks from
        Overfitting", JMLR 15 (2014).
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout: p must be in [0, 1], got {p}")
    if not isinstance(x, Variable):  # a constant, like the operands other ops receive
        x = Variable(np.asarray(x), requires_grad=False)
    if training is None:
        training = Config.train
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return x * np.zeros(x.shape, dtype=x.dtype)
    keep = default_generator().random(x.shape) >= p
    mask = keep * (1.0 / (1.0 - p))
    # Keep float32 float32; an integer x is promoted (casting the mask to int would
    # truncate the 1 / (1 - p) scale and break the expected value).
    return x * (mask.astype(x.dtype) if x.dtype.kind in "fc" else mask)


def accuracy(y: Operand, t: Any) -> float:
    """Fraction of rows whose largest score is at the label (no gradient).

    For C >= 2 classes only: with one column of scores (a binary classifier's single
    output) ``argmax`` is always 0, so this refuses it and says how to threshold instead.
    Labels follow :func:`cross_entropy`: integer class indices (float labels, even
    whole-valued ones, are refused, as there).

    Shapes:
        y ``(N, C)`` scores or probabilities with ``C >= 2``, t ``(N,)`` integer labels
        -> a float.

    Args:
        y: the scores (a Variable or ndarray).
        t: the integer labels (any integer dtype; a list is accepted).

    Returns:
        A Python ``float`` in ``[0, 1]`` (not a Variable: accuracy is not differentiable).

    Raises:
        ValueError: if ``y`` is not 2-D, has one column (the message gives the binary
            accuracy by thresholding), or ``t`` is not ``(N,)``, or if a score is NaN
            (``np.argmax`` would take the first NaN's column as the prediction and count
            it right or wrong by chance); the message counts the rows with a NaN, gives
            the first, and says where NaNs come from; or if a label is not in
            ``0..C-1`` (as :func:`cross_entropy`).
        TypeError: if the labels are not integers (one-hot labels: the message says
            ``targets.argmax(axis=1)``).

    Example:
        >>> accuracy(np.array([[0.1, 0.9], [0.8, 0.2]]), np.array([1, 1]))
        0.5
    """
    scores = y.data if isinstance(y, Variable) else np.asarray(y)
    labels = t.data if isinstance(t, Variable) else np.asarray(t)
    if scores.ndim == 2 and scores.shape[1] == 1:
        raise ValueError(
            f"accuracy: scores of shape {scores.shape} have one column, and the argmax of "
            "one column is always 0; for a binary classifier threshold the scores instead: "
            "float(np.mean((y[:, 0] > 0.5) == t)) for probabilities (sigmoid outputs), "
            "> 0 for logits"
        )
    if scores.ndim == 2 and labels.size and labels.dtype.kind not in "iu":
        raise _labels_dtype_error("accuracy", labels, scores.shape[0])
    if scores.ndim != 2 or labels.shape != (scores.shape[0],):
        one_hot = f"; labels of the scores' shape look one-hot: {_ONE_HOT_FIX}"
        raise ValueError(
            f"accuracy: scores must be (N, C) and labels (N,), got {scores.shape} and "
            f"{labels.shape}" + (one_hot if labels.shape == scores.shape else "")
        )
    if scores.dtype.kind in "fc":
        nan_rows = np.isnan(scores).any(axis=1)
        if nan_rows.any():
            raise ValueError(
                f"accuracy: scores hold NaN in {int(nan_rows.sum())} of {len(nan_rows)} rows "
                f"(the first is row {int(np.argmax(nan_rows))}), and argmax would take a "
                "NaN's column as the prediction; a NaN is made upstream, typically by a "
                "diverging training step (lower the learning rate), log or sqrt of a "
                "negative number, 0/0 or inf - inf; run the forward pass under "
                "minitorch.detect_anomaly() to find the op that made it"
            )
    bad = (labels < 0) | (labels >= scores.shape[1])  # cross_entropy refuses these too
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"accuracy: label {int(labels[i])} at position {i} is out of range for "
            f"{scores.shape[1]} classes (labels must be in 0..{scores.shape[1] - 1}); a "
            "row with such a label would silently count as wrong"
        )
    return float(np.mean(np.argmax(scores, axis=1) == labels))
