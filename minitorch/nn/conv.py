"""Convolutional layers: Conv2d, ConvTranspose2d, MaxPool2d, AvgPool2d and Flatten.

Thin Modules over the ops in ``minitorch/ops/conv.py`` and ``pool.py``: they hold the
filters as Parameters, check the input's shape with a message that names the layer, and
pass their settings on. Images are NCHW.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import minitorch.ops as F
from minitorch.core import Operand, Variable
from minitorch.nn.checks import (
    IntOrPair,
    check_kernel_size,
    check_lazy_size,
    check_pair,
    check_size,
)
from minitorch.nn.init import RNGLike, as_generator, init_weight
from minitorch.nn.module import Module, Parameter


def _shape(x: Operand) -> tuple[int, ...]:
    return tuple(np.shape(x.data if isinstance(x, Variable) else x))


def _check_images(layer: str, x: Operand, channels: int | None) -> None:
    shape = _shape(x)
    if len(shape) != 4 or (channels is not None and shape[1] != channels):
        expected = f"(N, {channels if channels is not None else 'C'}, H, W)"
        raise ValueError(f"{layer}: expected input of shape {expected}, got {shape}")


class Conv2d(Module):
    """2-D convolution layer (``F.conv2d``), as ``torch.nn.Conv2d``.

    ``W`` is drawn with He scaling for ``fan_in = C_in * KH * KW`` (it is meant to be
    followed by a ReLU); ``b`` starts at zero. With ``in_channels=None`` the layer is
    lazy: ``W``'s value is drawn at the first call, from the input's channel count.

    Shapes:
        x ``(N, C_in, H, W)`` -> ``(N, C_out, H_out, W_out)`` with
        ``H_out = floor((H + 2 * padding - KH) / stride) + 1``; ``W`` ``(C_out, C_in, KH,
        KW)``, ``b`` ``(C_out,)``.

    Args:
        in_channels: input channels ``C_in``, or ``None`` to infer them at the first call.
        out_channels: output channels ``C_out`` (the number of filters).
        kernel_size: ``KH`` or ``(KH, KW)``.
        stride: the step between windows.
        padding: zeros added on each side.
        bias: whether to add ``b``.
        rng: a Generator, an int seed, or ``None`` for minitorch's default generator.
        dtype: the parameters' floating dtype.

    Raises:
        TypeError: if a size is not an int (``kernel_size``, ``stride``, ``padding``: an
            int or a pair of ints).
        ValueError: for non-positive sizes, a ``stride`` below 1 or a negative
            ``padding`` (the message names the layer and the value); at call time, if the
            input is not ``(N, C_in, H, W)`` (the message names the layer and both shapes).

    Example:
        >>> conv = Conv2d(1, 4, 3, padding=1, rng=0)
        >>> conv(np.zeros((2, 1, 8, 8), dtype=np.float32)).shape
        (2, 4, 8, 8)
        >>> [(name, p.shape) for name, p in conv.named_parameters()]
        [('W', (4, 1, 3, 3)), ('b', (4,))]

    References:
        LeCun et al., "Gradient-Based Learning Applied to Document Recognition", 1998;
        He et al., "Delving Deep into Rectifiers", ICCV 2015 (initialisation).
    """

    def __init__(
        self,
        in_channels: int | None,
        out_channels: int,
        kernel_size: IntOrPair,
        stride: IntOrPair = 1,
        padding: IntOrPair = 0,
        bias: bool = True,
        rng: RNGLike = None,
        dtype: Any = np.float32,
    ) -> None:
        super().__init__()
        in_channels = check_lazy_size("Conv2d", "in_channels", in_channels)
        out_channels = check_size("Conv2d", "out_channels", out_channels)
        self.kernel_size = check_kernel_size("Conv2d", kernel_size)
        check_pair("Conv2d", "stride", stride, minimum=1)
        check_pair("Conv2d", "padding", padding, minimum=0)
        self.stride, self.padding = stride, padding
        self.out_channels = out_channels
        self.dtype = np.dtype(dtype)
        self.rng = as_generator(rng) if rng is not None else None
        self.W = Parameter(None)
        if in_channels is not None:
            self._init_W(in_channels)
        self.b = Parameter(np.zeros(out_channels, dtype=self.dtype)) if bias else None

    @property
    def in_channels(self) -> int | None:
        """``C_in``, read from ``W`` (``None`` while a lazy ``W`` has no value).

        Derived, not stored: weights loaded into a never-called lazy layer fix it too.
        """
        return self.W.data.shape[1] if self.W.data is not None else None

    def _init_W(self, in_channels: int) -> None:
        kh, kw = self.kernel_size
        W = init_weight((self.out_channels, in_channels * kh * kw), "he", self.rng, self.dtype)
        self.W.data = W.reshape(self.out_channels, in_channels, kh, kw)

    def forward(self, x: Operand) -> Variable:
        """Convolve ``x`` with ``W`` and add ``b`` (a lazy ``W`` without a value is drawn)."""
        if self.W.data is None:
            _check_images("Conv2d", x, None)
            self._init_W(_shape(x)[1])
        _check_images("Conv2d", x, self.in_channels)
        return F.conv2d(x, self.W, self.b, self.stride, self.padding)

    def extra_repr(self) -> str:
        return (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}, padding={self.padding}, bias={self.b is not None}"
        )


class ConvTranspose2d(Module):
    """Transposed 2-D convolution layer (``F.conv_transpose2d``), for upsampling.

    Shapes:
        x ``(N, C_in, H, W)`` -> ``(N, C_out, H_out, W_out)`` with
        ``H_out = (H - 1) * stride - 2 * padding + KH + output_padding``; ``W`` ``(C_in,
        C_out, KH, KW)`` (PyTorch's layout), ``b`` ``(C_out,)``.

    Args:
        in_channels: input channels ``C_in``.
        out_channels: output channels ``C_out``.
        kernel_size: ``KH`` or ``(KH, KW)``.
        stride: the upsampling factor.
        padding: rows/columns cropped from each side of the full output.
        output_padding: extra rows/columns at the bottom/right, ``< stride``.
        bias: whether to add ``b``.
        rng: a Generator, an int seed, or ``None``.
        dtype: the parameters' floating dtype.

    Raises:
        TypeError: if a size is not an int (``kernel_size``, ``stride``, ``padding``,
            ``output_padding``: an int or a pair of ints).
        ValueError: for non-positive sizes, a ``stride`` below 1 or a negative
            ``padding``/``output_padding``; at call time, if the input is not
            ``(N, C_in, H, W)``.

    Example:
        >>> up = ConvTranspose2d(4, 1, 2, stride=2, rng=0)
        >>> up(np.zeros((2, 4, 3, 3), dtype=np.float32)).shape
        (2, 1, 6, 6)

    References:
        Dumoulin & Visin, "A guide to convolution arithmetic for deep learning", 2016.
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: IntOrPair,
        stride: IntOrPair = 1,
        padding: IntOrPair = 0,
        output_padding: IntOrPair = 0,
        bias: bool = True,
        rng: RNGLike = None,
        dtype: Any = np.float32,
    ) -> None:
        super().__init__()
        in_channels = check_size("ConvTranspose2d", "in_channels", in_channels)
        out_channels = check_size("ConvTranspose2d", "out_channels", out_channels)
        kh, kw = check_kernel_size("ConvTranspose2d", kernel_size)
        check_pair("ConvTranspose2d", "stride", stride, minimum=1)
        check_pair("ConvTranspose2d", "padding", padding, minimum=0)
        check_pair("ConvTranspose2d", "output_padding", output_padding, minimum=0)
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, (kh, kw)
        self.stride, self.padding, self.output_padding = stride, padding, output_padding
        # He scaling with fan_in = C_out * KH * KW, the fan PyTorch uses for this layout.
        W = init_weight((in_channels, out_channels * kh * kw), "he", rng, dtype)
        self.W = Parameter(W.reshape(in_channels, out_channels, kh, kw))
        self.b = Parameter(np.zeros(out_channels, dtype=dtype)) if bias else None

    def forward(self, x: Operand) -> Variable:
        """Upsample ``x`` with ``W`` and add ``b``."""
        _check_images("ConvTranspose2d", x, self.in_channels)
        return F.conv_transpose2d(
            x, self.W, self.b, self.stride, self.padding, self.output_padding
        )

    def extra_repr(self) -> str:
        return (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}, padding={self.padding}"
        )


class _Pool2d(Module):
    """What both pooling layers share: the window settings and the NCHW check."""

    def __init__(
        self, kernel_size: IntOrPair, stride: IntOrPair | None = None, padding: IntOrPair = 0
    ) -> None:
        super().__init__()
        layer = type(self).__name__
        kernel = check_kernel_size(layer, kernel_size)
        if stride is not None:
            check_pair(layer, "stride", stride, minimum=1)
        pad = check_pair(layer, "padding", padding, minimum=0)
        if pad[0] > kernel[0] // 2 or pad[1] > kernel[1] // 2:  # refused here, as PyTorch
            raise ValueError(
                f"{layer}: padding {pad} must be at most half the kernel size {kernel}, so "
                "that every window holds at least one input pixel"
            )
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxPool2d(_Pool2d):
    """Max pooling layer (``F.max_pool2d``): the largest value of each window.

    The gradient goes to the (first) maximal entry of each window. Padding is ``-inf``,
    so it is never the maximum.

    Shapes:
        x ``(N, C, H, W)`` -> ``(N, C, H_out, W_out)``,
        ``H_out = floor((H + 2 * padding - KH) / stride) + 1``.

    Args:
        kernel_size: ``KH`` or ``(KH, KW)``.
        stride: the step between windows (``None``: ``kernel_size``).
        padding: ``-inf`` padding on each side, at most half the kernel.

    Raises:
        TypeError: if a size is not an int or a pair of ints.
        ValueError: if ``kernel_size``/``stride`` is below 1, ``padding`` negative or
            more than half the kernel; at call time, if the input is not 4-D or the padded
            input is smaller than the window.

    Example:
        >>> MaxPool2d(2)(np.arange(16.0).reshape(1, 1, 4, 4)).data
        array([[[[ 5.,  7.],
                 [13., 15.]]]])
    """

    def forward(self, x: Operand) -> Variable:
        """Take the maximum of each window of ``x``."""
        _check_images("MaxPool2d", x, None)
        return F.max_pool2d(x, self.kernel_size, self.stride, self.padding)


class AvgPool2d(_Pool2d):
    """Average pooling layer (``F.avg_pool2d``): the mean of each window.

    Every entry of a window receives ``1 / (KH * KW)`` of its gradient. Padding is zeros
    and counts in the mean (PyTorch's ``count_include_pad=True``). See :class:`MaxPool2d`
    for the largest value of each window instead.

    Shapes:
        x ``(N, C, H, W)`` -> ``(N, C, H_out, W_out)``, the same ``H_out`` as MaxPool2d's.

    Args:
        kernel_size: ``KH`` or ``(KH, KW)``.
        stride: the step between windows (``None``: ``kernel_size``).
        padding: zero padding on each side, at most half the kernel.

    Raises:
        TypeError: if a size is not an int or a pair of ints.
        ValueError: if ``kernel_size``/``stride`` is below 1, ``padding`` negative or
            more than half the kernel; at call time, if the input is not 4-D or the padded
            input is smaller than the window.

    Example:
        >>> AvgPool2d(2, padding=1)(np.ones((1, 1, 2, 2))).data  # each corner: 1 of 4 real
        array([[[[0.25, 0.25],
                 [0.25, 0.25]]]])
    """

    def forward(self, x: Operand) -> Variable:
        """Average each window of ``x``."""
        _check_images("AvgPool2d", x, None)
        return F.avg_pool2d(x, self.kernel_size, self.stride, self.padding)


class Flatten(Module):
    """Merge axes ``start_dim..end_dim`` into one (``torch.nn.Flatten``): conv -> linear.

    Shapes:
        x ``(N, C, H, W)`` -> ``(N, C * H * W)`` with the defaults.

    Args:
        start_dim: the first axis to merge (default 1: keep the batch axis).
        end_dim: the last axis to merge (default -1).

    Raises:
        ValueError: at call time, if the axes are out of range for the input.

    Example:
        >>> Flatten()(np.zeros((2, 3, 4, 4))).shape
        (2, 48)
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x: Operand) -> Variable:
        """Reshape ``x``, merging the chosen axes."""
        shape = _shape(x)
        n = len(shape)
        start, end = self.start_dim % max(n, 1), self.end_dim % max(n, 1)
        if not (-n <= self.start_dim < n and -n <= self.end_dim < n) or end < start:
            raise ValueError(
                f"Flatten: start_dim={self.start_dim}, end_dim={self.end_dim} do not fit an "
                f"input of shape {shape}"
            )
        merged = int(np.prod(shape[start : end + 1]))
        return F.reshape(x, shape[:start] + (merged,) + shape[end + 1 :])

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
