"""Normalisation layers: ``BatchNorm`` (any ``(N, C, *)``), ``BatchNorm1d``, ``BatchNorm2d``
and ``LayerNorm``.

Batch norm keeps ``running_mean``/``running_var`` as buffers (saved with the weights, never
trained): in training mode (``Module.train()`` and ``Config.train``) it normalises with
the batch statistics and updates the buffers in place; after ``eval()`` it uses them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import minitorch.ops as F
from minitorch.core import Config, Operand, Variable
from minitorch.nn.checks import check_eps, check_lazy_size, check_momentum, check_size
from minitorch.nn.module import Module, Parameter


class BatchNorm(Module):
    """Batch normalisation over axis 1 of any ``(N, C, *)`` input (``F.batch_norm``).

    ``y = (x - mean) / sqrt(var + eps) * weight + bias`` per channel. ``weight`` starts
    at 1 and ``bias`` at 0. With ``num_features=None`` (DeZero's style) the channel count
    is taken from the first input.

    Shapes:
        x ``(N, C)`` or ``(N, C, *spatial)`` -> x's shape; ``weight``, ``bias``,
        ``running_mean``, ``running_var`` ``(C,)``.

    Running statistics: each training call updates
    ``running = (1 - momentum) * running + momentum * batch_stat`` (an exponential moving
    average; the variance is the unbiased one). With ``momentum=None`` they are the
    *cumulative* average instead, the plain mean of the statistics of all ``k`` batches
    seen so far: the ``k``-th update uses ``momentum = 1 / k``, so
    ``running_k = running_{k-1} + (batch_k - running_{k-1}) / k`` (the first batch replaces
    the initial 0 and 1). ``k`` is kept in the buffer ``num_batches_tracked`` (a 0-d
    int64 array, saved with the weights), which counts the training calls whatever the
    momentum, as PyTorch's does, so a weight file loads across a change of ``momentum``.
    This is ``torch.nn.BatchNorm1d(momentum=None)``.

    Args:
        num_features: ``C``, or ``None`` to infer it at the first call.
        eps: added to the variance, ``> 0``.
        momentum: the weight of each new batch in the running averages, in ``[0, 1]``,
            or ``None`` for the cumulative average.
        affine: learn ``weight`` and ``bias``.
        dtype: the dtype of parameters and buffers.

    Raises:
        TypeError: if ``num_features``, ``eps`` or ``momentum`` has the wrong type.
        ValueError: if ``momentum`` is outside ``[0, 1]`` or ``eps <= 0`` (the message
            names the layer and the value); at call time, if the input's shape does not
            fit (the message names the layer, the expected and the actual shape), or a
            training batch has a single value per channel.

    Example:
        >>> bn = BatchNorm(2)
        >>> y = bn(np.array([[1.0, 10.0], [3.0, 30.0]]))
        >>> bn.running_mean
        array([0.2, 2. ], dtype=float32)
        >>> bn.running_var
        array([ 1.1, 20.9], dtype=float32)
        >>> bn.eval()(np.array([[0.2, 2.0]], dtype=np.float32)).shape  # uses the running stats
        (1, 2)

    References:
        Ioffe & Szegedy, "Batch Normalization: Accelerating Deep Network Training by
        Reducing Internal Covariate Shift", ICML 2015.
    """

    #: Allowed input ranks (``None``: any rank >= 2); subclasses narrow it.
    ranks: tuple[int, ...] | None = None
    running_mean: np.ndarray | None  # buffers, registered in __init__
    running_var: np.ndarray | None
    num_batches_tracked: np.ndarray  # a buffer: the training calls so far
    #: Buffers a weight file may lack (saved before they existed): they keep their value.
    optional_buffers: tuple[str, ...] = ("num_batches_tracked",)

    def __init__(
        self,
        num_features: int | None = None,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        dtype: Any = np.float32,
    ) -> None:
        super().__init__()
        layer = type(self).__name__
        num_features = check_lazy_size(layer, "num_features", num_features)
        self.eps, self.momentum = check_eps(layer, eps), check_momentum(layer, momentum)
        self.dtype = np.dtype(dtype)
        self.weight = Parameter(None) if affine else None
        self.bias = Parameter(None) if affine else None
        self.register_buffer("running_mean", None)
        self.register_buffer("running_var", None)
        # Always a buffer, as in PyTorch, so one weight file fits either momentum setting.
        self.register_buffer("num_batches_tracked", np.array(0, dtype=np.int64))
        if num_features is not None:
            self._init_state(num_features)

    @property
    def num_features(self) -> int | None:
        """``C``, read from the state (``None`` while a lazy layer has none yet).

        Derived, not stored: weights and statistics loaded into a never-called lazy layer
        fix it, and its first call keeps them instead of resetting them.
        """
        for array in (self.running_mean, self.weight.data if self.weight is not None else None):
            if array is not None:
                return int(array.shape[0])
        return None

    def _init_state(self, num_features: int) -> None:
        """Give every piece of state that has no value yet its default (loaded ones stay)."""
        if self.weight is not None and self.weight.data is None:
            self.weight.data = np.ones(num_features, dtype=self.dtype)
        if self.bias is not None and self.bias.data is None:
            self.bias.data = np.zeros(num_features, dtype=self.dtype)
        if self.running_mean is None:
            self.running_mean = np.zeros(num_features, dtype=self.dtype)
        if self.running_var is None:
            self.running_var = np.ones(num_features, dtype=self.dtype)

    def forward(self, x: Operand) -> Variable:
        """Normalise ``x`` with batch statistics (training) or running ones (eval)."""
        shape = np.shape(x.data if isinstance(x, Variable) else x)
        ranks = self.ranks or tuple(range(2, max(len(shape), 2) + 1))
        if self.running_var is None and len(shape) in ranks:  # lazy: first call
            self._init_state(self.num_features or shape[1])
        if len(shape) not in ranks or shape[1] != self.num_features:
            kinds = " or ".join(
                f"({', '.join(['N', str(self.num_features)] + ['*'] * (r - 2))})" for r in ranks
            )
            raise ValueError(f"{type(self).__name__}: expected input {kinds}, got {shape}")
        training = self.training and Config.train
        return F.batch_norm(
            x,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            training=training,
            momentum=self._momentum() if training else 0.0,
            eps=self.eps,
        )

    def _momentum(self) -> float:
        """Count this training call; its momentum is ``1 / k`` for the ``k``-th with ``None``."""
        self.num_batches_tracked = np.asarray(self.num_batches_tracked + 1)  # stays 0-d
        if self.momentum is not None:
            return self.momentum
        return 1.0 / float(self.num_batches_tracked)

    def extra_repr(self) -> str:
        return f"{self.num_features}, eps={self.eps}, momentum={self.momentum}"


class BatchNorm1d(BatchNorm):
    """Batch normalisation of feature vectors ``(N, C)`` or sequences ``(N, C, L)``.

    :class:`BatchNorm` (its formula, buffers, modes and other arguments) accepting only
    these two ranks, as ``torch.nn.BatchNorm1d``: an image batch passed by mistake is
    refused instead of normalised. Channel ``c``'s mean and variance are taken over the
    batch axis, and for sequences over the length too (``N * L`` values); see
    :class:`BatchNorm2d` for images.

    Shapes:
        x ``(N, C)`` or ``(N, C, L)`` -> x's shape; ``weight``, ``bias``,
        ``running_mean``, ``running_var`` ``(C,)``.

    Args:
        num_features: ``C``, or ``None`` to infer it at the first call.

    Raises:
        ValueError: at call time, if the input is not ``(N, C)`` or ``(N, C, L)`` with
            ``C == num_features``, or a training batch has a single value per channel.

    Example:
        >>> bn = BatchNorm1d(2)  # two channels, each normalised over N=2 and L=2
        >>> bn(np.array([[[1.0, 3.0], [0.0, 0.0]], [[5.0, 7.0], [2.0, 2.0]]])).data.round(3)
        array([[[-1.342, -0.447],
                [-1.   , -1.   ]],
        <BLANKLINE>
               [[ 0.447,  1.342],
                [ 1.   ,  1.   ]]])
        >>> bn(np.zeros((2, 2, 4, 4)))
        Traceback (most recent call last):
        ...
        ValueError: BatchNorm1d: expected input (N, 2) or (N, 2, *), got (2, 2, 4, 4)
    """

    ranks = (2, 3)


class BatchNorm2d(BatchNorm):
    """Batch normalisation of images ``(N, C, H, W)``, one statistic per channel.

    :class:`BatchNorm` (its formula, buffers, modes and other arguments) accepting only
    4-D input, as ``torch.nn.BatchNorm2d``. Channel ``c``'s mean and variance are taken
    over the batch *and* every pixel (``N * H * W`` values), so one scale and shift apply
    at every position of a feature map, as a convolution's filter does; see
    :class:`BatchNorm1d` for vectors and sequences.

    Shapes:
        x ``(N, C, H, W)`` -> x's shape; ``weight``, ``bias``, ``running_mean``,
        ``running_var`` ``(C,)``.

    Args:
        num_features: ``C``, or ``None`` to infer it at the first call.

    Raises:
        ValueError: at call time, if the input is not ``(N, C, H, W)`` with
            ``C == num_features``, or a training batch has a single value per channel.

    Example:
        >>> bn = BatchNorm2d(1)  # one channel: mean 3 and variance 5 over all 4 pixels
        >>> bn(np.array([[[[0.0, 2.0]]], [[[4.0, 6.0]]]])).data.ravel().round(3)
        array([-1.342, -0.447,  0.447,  1.342])

    References:
        Ioffe & Szegedy, "Batch Normalization", ICML 2015, §3.2 (convolutional networks).
    """

    ranks = (4,)


class LayerNorm(Module):
    """Layer normalisation over the trailing ``normalized_shape`` (``F.layer_norm``).

    Shapes:
        x ``(*, *normalized_shape)`` -> x's shape; ``weight``, ``bias``
        ``normalized_shape``.

    Args:
        normalized_shape: the trailing shape to normalise over (an int for one axis).
        eps: added to the variance, ``> 0``.
        elementwise_affine: learn ``weight`` (ones) and ``bias`` (zeros).
        dtype: the parameters' dtype.

    Raises:
        TypeError: if a size or ``eps`` is not a number.
        ValueError: if a size is not positive or ``eps <= 0``; at call time, if x's
            trailing shape is not ``normalized_shape``.

    Example:
        >>> LayerNorm(2)(np.array([[1.0, 3.0]])).data.round(3)
        array([[-1.,  1.]])

    References:
        Ba, Kiros & Hinton, "Layer Normalization", arXiv:1607.06450, 2016.
    """

    def __init__(
        self,
        normalized_shape: int | Sequence[int],
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        dtype: Any = np.float32,
    ) -> None:
        super().__init__()
        shape = (
            normalized_shape if isinstance(normalized_shape, (tuple, list)) else [normalized_shape]
        )
        self.normalized_shape = tuple(
            check_size("LayerNorm", "normalized_shape", s) for s in shape
        )
        self.eps = check_eps("LayerNorm", eps)
        affine = elementwise_affine
        self.weight = Parameter(np.ones(self.normalized_shape, dtype)) if affine else None
        self.bias = Parameter(np.zeros(self.normalized_shape, dtype)) if affine else None

    def forward(self, x: Operand) -> Variable:
        """Normalise each sample of ``x`` over the trailing axes."""
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}"
