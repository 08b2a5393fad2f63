"""2-D max and average pooling of NCHW arrays, built on im2col (see ``windows.py``).

Output sizes follow ``H_out = floor((H + 2 * padding - KH) / stride) + 1``. Max pooling
remembers which entry of each window won (``argmax``); its gradient sends ``gy`` there and
nowhere else, and the gradient of that scatter is the gather again, so max pooling is
differentiable to any order. Average pooling is a mean over ``im2col``'s columns and needs
no Function of its own.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from minitorch.core import Function, Operand, Variable
from minitorch.core.function import Ops, Value
from minitorch.ops.reduce import mean
from minitorch.ops.reshape import reshape
from minitorch.ops.windows import (
    IntOrPair,
    Pair,
    check_geometry,
    col2im_array,
    im2col,
    im2col_array,
    pair,
)


def _window(
    op: str, x: Operand, kernel_size: IntOrPair, stride: IntOrPair | None, padding: IntOrPair
) -> tuple[Pair, Pair, Pair, Pair]:
    """Validate pooling settings; return kernel, stride, padding and ``(H_out, W_out)``."""
    kernel = pair(kernel_size, op, "kernel_size")
    strides = kernel if stride is None else pair(stride, op, "stride")
    pad = pair(padding, op, "padding")
    out_hw = check_geometry(op, np.shape(x), kernel, strides, pad)
    if pad[0] > kernel[0] // 2 or pad[1] > kernel[1] // 2:
        raise ValueError(
            f"{op}: padding {pad} must be at most half the kernel size {kernel}, so that "
            "every window holds at least one input pixel"
        )
    return kernel, strides, pad, out_hw


class MaxPool2d(Function):
    """y = the largest entry of each window;  gx = gy sent back to that entry."""

    saves = ()

    def __init__(
        self, kernel: Pair, stride: Pair, padding: Pair, argmax: np.ndarray | None = None
    ) -> None:
        self.kernel, self.stride, self.padding, self.argmax = kernel, stride, padding, argmax

    def forward(self, x: np.ndarray) -> np.ndarray:
        # Pad with -inf (not 0) so padding never wins a window of negative values.
        if x.dtype.kind == "f":
            fill: float = -np.inf
        else:  # the least value of the dtype: False for bool (np.iinfo knows no bool)
            fill = False if x.dtype.kind == "b" else np.iinfo(x.dtype).min
        col = im2col_array(x, self.kernel, self.stride, self.padding, fill)
        col = col.reshape(x.shape[:2] + (col.shape[2] * col.shape[3],) + col.shape[4:])
        if self.argmax is None:
            self.argmax = col.argmax(axis=2)  # the first maximum wins ties, as in PyTorch
        self.x_shape = x.shape
        return np.take_along_axis(col, self.argmax[:, :, None], axis=2)[:, :, 0]

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        # The tangent of each window's winner, picked with the same argmax.
        return MaxPool2d(self.kernel, self.stride, self.padding, self.argmax)(tx)

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gy: Value) -> Value:
        return xp.apply(MaxPool2dGrad(self), gy)


class MaxPool2dGrad(Function):
    """gx = gy scattered to the argmax of each window;  ggy = ggx gathered from there."""

    saves = ()

    def __init__(self, pool: MaxPool2d) -> None:
        self.pool = pool

    def forward(self, gy: np.ndarray) -> np.ndarray:
        pool = self.pool
        assert pool.argmax is not None, "MaxPool2dGrad needs a MaxPool2d that has run forward"
        gcol = np.zeros(gy.shape[:2] + (pool.kernel[0] * pool.kernel[1],) + gy.shape[2:], gy.dtype)
        np.put_along_axis(gcol, pool.argmax[:, :, None], gy[:, :, None], axis=2)
        gcol = gcol.reshape(gy.shape[:2] + pool.kernel + gy.shape[2:])
        return col2im_array(gcol, pool.x_shape, pool.stride, pool.padding)

    def jvp(self, xs: Sequence[Variable], y: Variable, tgy: Variable) -> Variable:
        return MaxPool2dGrad(self.pool)(tgy)

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, ggx: Value) -> Value:
        pool = self.pool
        return xp.apply(MaxPool2d(pool.kernel, pool.stride, pool.padding, pool.argmax), ggx)


def max_pool2d(
    x: Operand, kernel_size: IntOrPair, stride: IntOrPair | None = None, padding: IntOrPair = 0
) -> Variable:
    """Largest value of every ``KH x KW`` window (``torch.nn.functional.max_pool2d``).

    ``y[n, c, oh, ow] = max_{i, j} x_pad[n, c, oh * sh + i, ow * sw + j]`` where padding
    is ``-inf``. The gradient goes to the (first) maximal entry of each window only; a
    pixel that wins several overlapping windows collects all their gradients.

    Shapes:
        x ``(N, C, H, W)`` -> ``(N, C, H_out, W_out)`` with
        ``H_out = floor((H + 2 * padding - KH) / stride) + 1`` (likewise ``W_out``).

    Args:
        x: the input feature maps.
        kernel_size: ``KH`` or ``(KH, KW)``.
        stride: the step between windows; ``None`` (the default) means ``kernel_size``.
        padding: ``-inf`` rows/columns added on each side, at most half the kernel.

    Returns:
        The pooled maps, with x's dtype.

    Raises:
        TypeError: if a size is not an int or pair of ints.
        ValueError: if x is not 4-D, padding exceeds half the kernel, or the padded input
            is smaller than the kernel.

    Example:
        >>> x = Variable(np.arange(16.0).reshape(1, 1, 4, 4))
        >>> max_pool2d(x, 2).data
        array([[[[ 5.,  7.],
                 [13., 15.]]]])

    References:
        Ranzato, Huang, Boureau & LeCun, "Unsupervised Learning of Invariant Feature
        Hierarchies with Applications to Object Recognition", CVPR 2007; Goodfellow,
        Bengio & Courville, *Deep Learning*, 2016, §9.3.
    """
    kernel, strides, pad, _ = _window("max_pool2d", x, kernel_size, stride, padding)
    return MaxPool2d(kernel, strides, pad)(x)


#: DeZero's name for 2-D max pooling.
pooling = max_pool2d


def avg_pool2d(
    x: Operand, kernel_size: IntOrPair, stride: IntOrPair | None = None, padding: IntOrPair = 0
) -> Variable:
    """Mean of every ``KH x KW`` window (``torch.nn.functional.avg_pool2d``).

    Padding counts as zeros in the mean (PyTorch's default ``count_include_pad=True``).
    Composed of ``im2col``, ``reshape`` and ``mean``, so its gradient (``gy / (KH * KW)``
    spread over each window) needs no Function of its own.

    Shapes:
        x ``(N, C, H, W)`` -> ``(N, C, H_out, W_out)`` with
        ``H_out = floor((H + 2 * padding - KH) / stride) + 1``.

    Args:
        x: the input feature maps.
        kernel_size: ``KH`` or ``(KH, KW)``.
        stride: the step between windows; ``None`` means ``kernel_size``.
        padding: zero rows/columns added on each side, at most half the kernel.

    Returns:
        The pooled maps.

    Raises:
        TypeError: if a size is not an int or pair of ints.
        ValueError: as :func:`max_pool2d`.

    Example:
        >>> x = Variable(np.arange(16.0).reshape(1, 1, 4, 4))
        >>> avg_pool2d(x, 2).data
        array([[[[ 2.5,  4.5],
                 [10.5, 12.5]]]])

    References:
        LeCun et al., "Gradient-Based Learning Applied to Document Recognition", 1998
        (subsampling layers); Goodfellow, Bengio & Courville, *Deep Learning*, §9.3.
    """
    kernel, strides, pad, out_hw = _window("avg_pool2d", x, kernel_size, stride, padding)
    n, c = np.shape(x)[:2]
    windows = out_hw[0] * out_hw[1]  # explicit: no -1 for an empty (N = 0) batch
    col = reshape(im2col(x, kernel, strides, pad), (n, c, kernel[0] * kernel[1], windows))
    return reshape(mean(col, axis=2), (n, c, *out_hw))
