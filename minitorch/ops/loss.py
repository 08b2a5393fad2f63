"""Losses and training-time ops.

softmax_cross_entropy, mean_squared_error, binary_cross_entropy (with logits), dropout
and accuracy.

Losses follow PyTorch's conventions: ``reduction="mean"`` averages over the batch (over
all elements for ``mean_squared_error``), labels are integer class indices.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from minitorch.core import Config, Function, Operand, Variable
from minitorch.ops.activation import softmax, softplus
from minitorch.ops.arithmetic import mul, sub
from minitorch.ops.math import square
from minitorch.ops.reduce import mean
from minitorch.ops.reduce import sum as sum_all
from minitorch.random import default_generator

_REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(op: str, reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{op}: reduction must be one of {_REDUCTIONS}, got {reduction!r}")


def _check_broadcast(op: str, x0: Operand, x1: Operand) -> None:
    shape0, shape1 = np.shape(_data(x0)), np.shape(_data(x1))
    try:
        np.broadcast_shapes(shape0, shape1)
    except ValueError:
        raise ValueError(f"{op}: shapes {shape0} and {shape1} do not broadcast") from None


def _data(x: Any) -> Any:
    return x.data if isinstance(x, Variable) else x


def _check_labels(x: np.ndarray, t: np.ndarray, ignore_index: int | None) -> None:
    op = "softmax_cross_entropy"
    if x.ndim != 2:
        raise ValueError(f"{op}: logits must be 2-D (N, C), got shape {x.shape}")
    if t.dtype.kind not in "iu":
        raise TypeError(f"{op}: labels must be integers (class indices), got dtype {t.dtype}")
    if t.shape != (x.shape[0],):
        raise ValueError(
            f"{op}: labels of shape {t.shape} for logits {x.shape}; expected ({x.shape[0]},)"
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

    def __init__(self, ignore_index: int | None, reduction: str) -> None:
        self.ignore_index = ignore_index
        self.reduction = reduction

    def forward(self, x: np.ndarray, t: np.ndarray) -> np.ndarray:
        _check_labels(x, t, self.ignore_index)
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

    def jvp(self, tx: Variable, tt: Variable | None) -> Variable:
        x = self.inputs[0]  # d loss_i = sum_c (softmax(x_i) - onehot(t_i))_c dx_ic
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
        logits: unnormalised scores, float.
        t: integer class labels in ``0..C-1`` (any integer dtype; a list is accepted).
        ignore_index: a label value whose rows contribute neither loss nor gradient; the
            mean is then taken over the remaining rows.
        reduction: ``"mean"`` (default), ``"sum"`` or ``"none"``.

    Returns:
        A Variable of the logits' dtype.

    Raises:
        ValueError: if logits are not 2-D, ``t`` is not ``(N,)``, a label is out of range
            (the message names the label, its position and the number of classes) or
            ``reduction`` is unknown.
        TypeError: if the labels are not integers.

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
    return SoftmaxCrossEntropy(ignore_index, reduction)(logits, labels)


def mean_squared_error(x0: Operand, x1: Operand) -> Variable:
    """Mean of ``(x0 - x1) ** 2`` over all elements (PyTorch's ``MSELoss``).

    A composition of ``sub``, ``square`` and ``mean``. Note that DeZero divides the sum
    by the batch size instead; minitorch follows PyTorch.

    Shapes:
        x0 ``(*a)``, x1 ``(*b)`` that broadcast -> ``()``.

    Args:
        x0: predictions.
        x1: targets (may also require a gradient).

    Returns:
        A 0-d Variable.

    Raises:
        ValueError: if the shapes do not broadcast.

    Example:
        >>> mean_squared_error(Variable(np.array([1.0, 3.0])), np.array([0.0, 0.0]))
        variable(5.0)
    """
    _check_broadcast("mean_squared_error", x0, x1)
    return mean(square(sub(x0, x1)))


def binary_cross_entropy(x: Operand, t: Operand, reduction: str = "mean") -> Variable:
    """Binary cross-entropy *with logits* (PyTorch's ``binary_cross_entropy_with_logits``).

    ``loss = -(t log sigmoid(x) + (1 - t) log(1 - sigmoid(x))) = softplus(x) - x t``,
    which is stable for any logit (``x = ±1000`` gives a finite loss); the gradient is
    ``sigmoid(x) - t``. Pass logits, not probabilities.

    Shapes:
        x ``(*a)``, t ``(*b)`` that broadcast -> ``()`` or, with ``"none"``, the broadcast
        shape.

    Args:
        x: logits (float).
        t: targets in ``[0, 1]`` (float; may require a gradient).
        reduction: ``"mean"`` (default, over all elements), ``"sum"`` or ``"none"``.

    Returns:
        A Variable of ``x``'s dtype.

    Raises:
        ValueError: if the shapes do not broadcast or ``reduction`` is unknown.

    Example:
        >>> binary_cross_entropy(Variable(np.array([1000.0, -1000.0])), np.array([1.0, 0.0]))
        variable(0.0)
    """
    _check_reduction("binary_cross_entropy", reduction)
    _check_broadcast("binary_cross_entropy", x, t)
    losses = sub(softplus(x), mul(x, t))
    if reduction == "none":
        return losses
    return mean(losses) if reduction == "mean" else sum_all(losses)


binary_cross_entropy_with_logits = binary_cross_entropy


def dropout(x: Operand, p: float = 0.5) -> Variable:
    """Inverted dropout; the identity when ``Config.train`` is off.

    Each element is zeroed with probability ``p`` and the rest are scaled by
    ``1 / (1 - p)``: scaling at training time keeps the expected value unchanged, so
    evaluation needs no rescaling. The mask comes from minitorch's own generator
    (seeded by ``minitorch.manual_seed``).

    Shapes:
        any -> the same shape and dtype.

    Args:
        x: the input.
        p: the probability of dropping an element, in ``[0, 1]``.

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
    if not Config.train or p == 0.0:
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

    Shapes:
        y ``(N, C)`` scores or probabilities, t ``(N,)`` integer labels -> a float.

    Args:
        y: the scores (a Variable or ndarray).
        t: the integer labels.

    Returns:
        A Python ``float`` in ``[0, 1]`` (not a Variable: accuracy is not differentiable).

    Raises:
        ValueError: if ``y`` is not 2-D or ``t`` is not ``(N,)``.

    Example:
        >>> accuracy(np.array([[0.1, 0.9], [0.8, 0.2]]), np.array([1, 1]))
        0.5
    """
    scores = y.data if isinstance(y, Variable) else np.asarray(y)
    labels = t.data if isinstance(t, Variable) else np.asarray(t)
    if scores.ndim != 2 or labels.shape != (scores.shape[0],):
        raise ValueError(
            f"accuracy: scores must be (N, C) and labels (N,), got {scores.shape} and "
            f"{labels.shape}"
        )
    return float(np.mean(np.argmax(scores, axis=1) == labels))
