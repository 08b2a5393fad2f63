"""Batch and layer normalisation: standardise over some axes, then scale and shift.

Both share one Function, ``Standardize``: ``x_hat = (x - mean) / sqrt(var + eps)`` over
``axes`` with the biased variance. It is a Function of its own (not a composition of
``mean``, ``sub``, ``sqrt`` ...) for speed: its backward has the closed form

    gx = (gy - mean(gy) - x_hat * mean(gy * x_hat)) / sqrt(var + eps)

(Ioffe & Szegedy 2015, §3), one fused pass instead of a dozen graph nodes. The
differentiable ``backward`` writes the same formula with minitorch ops, recomputing
``x_hat`` from the input so that second derivatives see its dependence on ``x``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from minitorch.core import Function, Operand, Variable
from minitorch.ops.arithmetic import mul, sub
from minitorch.ops.reduce import mean
from minitorch.ops.reshape import as_float, astype, reshape


class Standardize(Function):
    """x_hat = (x - mean) / sqrt(var + eps) over axes;  closed-form gradient above."""

    saves = ("inputs",)

    def __init__(self, axes: tuple[int, ...], eps: float) -> None:
        self.axes, self.eps = axes, eps

    def forward(self, x: np.ndarray) -> np.ndarray:
        self.mean = x.mean(axis=self.axes, keepdims=True)
        x_centered = x - self.mean
        self.var = np.mean(x_centered * x_centered, axis=self.axes, keepdims=True)
        self.inv_std = 1.0 / np.sqrt(self.var + self.eps)
        return x_centered * self.inv_std

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        # The Jacobian of standardizing is symmetric (J = J^T), so the tangent J tx is
        # backward's J^T gy with tx in place of gy: one formula serves both.
        return self.backward(tx)

    def backward(self, gy: Variable) -> Variable:
        (x,) = self.inputs
        x_centered = x - mean(x, self.axes, keepdims=True)
        inv_std = (mean(x_centered * x_centered, self.axes, keepdims=True) + self.eps) ** -0.5
        x_hat = x_centered * inv_std
        mean_gy = mean(gy, self.axes, keepdims=True)
        return inv_std * (gy - mean_gy - x_hat * mean(gy * x_hat, self.axes, keepdims=True))

    def backward_array(self, gy: np.ndarray) -> np.ndarray:
        # Its own array path: it reuses the statistics forward kept (self.mean, inv_std),
        # where the differentiable backward must recompute them from x for second order.
        (x,) = self.input_arrays
        x_hat = (x - self.mean) * self.inv_std
        mean_gy = gy.mean(axis=self.axes, keepdims=True)
        mean_gy_x_hat = (gy * x_hat).mean(axis=self.axes, keepdims=True)
        return self.inv_std * (gy - mean_gy - x_hat * mean_gy_x_hat)


def _data(a: Operand | None) -> np.ndarray | None:
    return a.data if isinstance(a, Variable) else None if a is None else np.asarray(a)


def _check_channel_arrays(x_shape: tuple[int, ...], **arrays: Operand | None) -> None:
    if len(x_shape) < 2:
        raise ValueError(f"batch_norm: expected x of shape (N, C, ...), got {x_shape}")
    for name, a in arrays.items():
        if a is not None and np.shape(a) != (x_shape[1],):
            raise ValueError(
                f"batch_norm: {name} must have shape ({x_shape[1]},) for x of shape "
                f"{x_shape}, got {np.shape(a)}"
            )


def _update_running(running: Operand | None, batch: np.ndarray, momentum: float) -> None:
    """``running = (1 - momentum) * running + momentum * batch``, in place."""
    array = _data(running)
    if array is not None:
        array *= 1.0 - momentum
        array += momentum * batch.reshape(array.shape)


def _check_momentum(momentum: object) -> float:
    """``momentum`` as a float in ``[0, 1]``; ``None`` gets a hint (it needs a batch count)."""
    if momentum is None:
        raise TypeError(
            "batch_norm: momentum=None (a cumulative average of all batches) needs the number "
            "of batches seen, which one function call does not know: use "
            "nn.BatchNorm1d(momentum=None), or pass momentum=1/k for the k-th batch"
        )
    if isinstance(momentum, bool) or not isinstance(momentum, (int, float, np.number)):
        raise TypeError(f"batch_norm: momentum must be a number in [0, 1], got {momentum!r}")
    if not 0.0 <= float(momentum) <= 1.0:  # also rejects NaN
        raise ValueError(f"batch_norm: momentum must be in [0, 1], got {momentum}")
    return float(momentum)


def batch_norm(
    x: Operand,
    running_mean: Operand | None,
    running_var: Operand | None,
    weight: Operand | None = None,
    bias: Operand | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Variable:
    """Batch normalisation per channel (``torch.nn.functional.batch_norm``).

    Training: ``y = (x - mean_B) / sqrt(var_B + eps) * weight + bias`` with the mean and
    biased variance over the batch and spatial axes of each channel; ``running_mean`` and
    ``running_var`` (if given) are updated in place to
    ``(1 - momentum) * running + momentum * batch_stat``, using the unbiased variance.
    Evaluation: the running statistics replace the batch ones, so ``y`` is an affine
    function of ``x``.

    Shapes:
        x ``(N, C)`` or ``(N, C, *spatial)``; running_mean, running_var, weight, bias
        ``(C,)`` -> x's shape.

    Args:
        x: the batch (float; integer and bool images, such as MNIST's uint8 pixels, are
            converted to float64 first, the rule of the real-only ops).
        running_mean: the running mean (an ndarray or Variable, updated in place), or
            ``None`` in training to keep none.
        running_var: the running variance, likewise.
        weight: optional per-channel scale (gamma).
        bias: optional per-channel shift (beta).
        training: use and record batch statistics (True) or use the running ones.
        momentum: the weight of the new batch in the running averages, in ``[0, 1]``.
            ``None`` (a cumulative average) is refused, as by PyTorch's functional form:
            it needs a batch count, which ``nn.BatchNorm1d(momentum=None)`` keeps and
            turns into ``momentum = 1 / k`` for the ``k``-th batch.
        eps: added to the variance for numerical stability.

    Returns:
        The normalised batch.

    Raises:
        TypeError: if ``momentum`` is ``None`` (with the hint above) or not a number.
        ValueError: if ``momentum`` is outside ``[0, 1]``, x has fewer than 2 dims, a
            per-channel array is not ``(C,)``, the running statistics are missing in
            evaluation, or training sees a single value per channel.

    Example:
        >>> x = Variable(np.array([[1.0, 10.0], [3.0, 30.0]]))
        >>> mean, var = np.zeros(2), np.ones(2)
        >>> batch_norm(x, mean, var, training=True, eps=0.0).data
        array([[-1., -1.],
               [ 1.,  1.]])
        >>> mean
        array([0.2, 2. ])

    References:
        Ioffe & Szegedy, "Batch Normalization: Accelerating Deep Network Training by
        Reducing Internal Covariate Shift", ICML 2015.
    """
    momentum = _check_momentum(momentum)
    x = as_float(x)
    x_shape = np.shape(x)
    _check_channel_arrays(
        x_shape, running_mean=running_mean, running_var=running_var, weight=weight, bias=bias
    )
    channel_shape = (1, x_shape[1]) + (1,) * (len(x_shape) - 2)
    if training:
        count = int(np.prod(x_shape)) // x_shape[1]
        if count < 2:
            raise ValueError(f"batch_norm: need more than 1 value per channel, got x {x_shape}")
        standardize = Standardize((0, *range(2, len(x_shape))), eps)
        y = standardize(x)
        _update_running(running_mean, standardize.mean, momentum)
        _update_running(running_var, standardize.var * count / (count - 1), momentum)
    else:
        r_mean, r_var = _data(running_mean), _data(running_var)
        if r_mean is None or r_var is None:
            raise ValueError("batch_norm: evaluation (training=False) needs running_mean/var")
        shift = r_mean.reshape(channel_shape)
        scale = (1.0 / np.sqrt(r_var + eps)).reshape(channel_shape)
        dtype = _data(x).dtype  # type: ignore[union-attr]
        if dtype.kind == "f":  # float32 stays float32; integer images are promoted, not
            shift, scale = shift.astype(dtype), scale.astype(dtype)  # cast to int (truncated)
        y = mul(sub(x, shift), scale)
    # weight and bias take the input's float dtype too (float64 Parameters must not turn a
    # float32 batch into float64); ``astype`` passes their gradients back in their dtype.
    dtype = y.dtype if y.dtype.kind == "f" else None
    if weight is not None:
        y = y * reshape(_as_dtype(weight, dtype), channel_shape)
    return y if bias is None else y + reshape(_as_dtype(bias, dtype), channel_shape)


def _as_dtype(a: Operand, dtype: np.dtype | None) -> Operand:
    if dtype is None or np.asarray(_data(a)).dtype == dtype:
        return a
    return astype(a, dtype) if isinstance(a, Variable) else np.asarray(a, dtype)


def layer_norm(
    x: Operand,
    normalized_shape: int | Sequence[int],
    weight: Operand | None = None,
    bias: Operand | None = None,
    eps: float = 1e-5,
) -> Variable:
    """Layer normalisation over the trailing axes (``torch.nn.functional.layer_norm``).

    ``y = (x - mean) / sqrt(var + eps) * weight + bias``, with the mean and biased
    variance over the last ``len(normalized_shape)`` axes of each sample — the same in
    training and evaluation, independent of the batch.

    Shapes:
        x ``(*, *normalized_shape)``; weight, bias ``normalized_shape`` -> x's shape.

    Args:
        x: the input (float; integers and bools are converted to float64 first).
        normalized_shape: the trailing shape to normalise over (an int for one axis).
        weight: optional elementwise scale of shape ``normalized_shape``.
        bias: optional elementwise shift of shape ``normalized_shape``.
        eps: added to the variance for numerical stability.

    Returns:
        The normalised input.

    Raises:
        ValueError: if x's trailing shape, weight or bias does not equal
            ``normalized_shape``.

    Example:
        >>> layer_norm(Variable(np.array([[1.0, 3.0], [0.0, 10.0]])), 2, eps=0.0).data
        array([[-1.,  1.],
               [-1.,  1.]])

    References:
        Ba, Kiros & Hinton, "Layer Normalization", arXiv:1607.06450, 2016.
    """
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    x = as_float(x)
    x_shape = np.shape(x)
    problems = [("x", x_shape[len(x_shape) - len(shape) :] if shape else ())]
    problems += [
        (n, np.shape(a)) for n, a in (("weight", weight), ("bias", bias)) if a is not None
    ]
    for name, got in problems:
        if tuple(got) != shape or len(x_shape) < len(shape):
            raise ValueError(
                f"layer_norm: {name} has shape {got} but normalized_shape is {shape} "
                f"(x has shape {x_shape})"
            )
    y = Standardize(tuple(range(len(x_shape) - len(shape), len(x_shape))), eps)(x)
    if weight is not None:
        y = y * weight
    return y if bias is None else y + bias
