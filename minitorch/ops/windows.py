"""Sliding windows of NCHW images: ``im2col`` and its adjoint ``col2im``.

``im2col`` copies every kernel-sized window of the (padded) input into a column, so a
convolution becomes one matrix product per image (Chellapilla, Puri & Simard, "High
Performance Convolutional Neural Networks for Document Processing", 2006); pooling
reduces over the same columns. ``col2im`` is its adjoint: it adds each column back into
the window it came from, which is why each is the other's gradient. The loops below run
over the ``KH * KW`` kernel offsets only, never over images or pixels.

Every spatial size follows ``H_out = floor((H + 2 * padding - KH) / stride) + 1``
(Dumoulin & Visin, "A guide to convolution arithmetic for deep learning", 2016).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from minitorch.core import Function, Operand, Variable
from minitorch.core.function import Ops, Value

Pair = tuple[int, int]
IntOrPair = int | tuple[int, int]


# -- geometry and the NumPy kernels -----------------------------------------------------
def pair(value: IntOrPair, op: str, name: str) -> Pair:
    """Return ``(value, value)`` for an int, or the 2-tuple itself, as Python ints.

    Raises:
        TypeError: if ``value`` is neither an int nor a pair of ints (names ``op``/``name``).

    Example:
        >>> pair(3, "conv2d", "stride"), pair((2, 1), "conv2d", "stride")
        ((3, 3), (2, 1))
    """
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value), int(value)
    if (
        isinstance(value, (tuple, list))
        and len(value) == 2
        and all(isinstance(v, (int, np.integer)) for v in value)
    ):
        return int(value[0]), int(value[1])
    raise TypeError(f"{op}: {name} must be an int or a pair of ints, got {value!r}")


def hw(shape: tuple[int, ...]) -> Pair:
    """The last two entries of an NCHW (or weight) shape: ``(H, W)`` or ``(KH, KW)``.

    Example:
        >>> hw((16, 3, 5, 4))
        (5, 4)
    """
    return shape[-2], shape[-1]


def conv_output_size(size: int, kernel: int, stride: int, padding: int) -> int:
    """``floor((size + 2 * padding - kernel) / stride) + 1``: one output side length.

    Example:
        >>> conv_output_size(32, 3, stride=1, padding=1)
        32
    """
    return (size + 2 * padding - kernel) // stride + 1


def check_geometry(
    op: str, x_shape: tuple[int, ...], kernel: Pair, stride: Pair, padding: Pair
) -> Pair:
    """Validate an NCHW input shape and window settings; return ``(H_out, W_out)``.

    Raises:
        ValueError: if ``x`` is not 4-D, a kernel size or stride is < 1, a padding is < 0,
            or the padded input is smaller than the kernel (names ``op`` and the shapes).

    Example:
        >>> check_geometry("conv2d", (8, 3, 7, 6), (3, 3), (2, 2), (0, 1))
        (3, 3)
    """
    if len(x_shape) != 4:
        raise ValueError(f"{op}: expected a 4-D input (N, C, H, W), got shape {x_shape}")
    if min(kernel) < 1 or min(stride) < 1 or min(padding) < 0:
        raise ValueError(
            f"{op}: kernel_size {kernel} and stride {stride} must be >= 1 and padding "
            f"{padding} >= 0"
        )
    out = tuple(conv_output_size(x_shape[2 + i], kernel[i], stride[i], padding[i]) for i in (0, 1))
    if min(out) < 1:
        raise ValueError(
            f"{op}: input of shape {x_shape} padded by {padding} is smaller than the kernel "
            f"{kernel}; the output would have size {out}"
        )
    return out[0], out[1]


def im2col_array(
    x: np.ndarray, kernel: Pair, stride: Pair, padding: Pair, fill: float = 0.0
) -> np.ndarray:
    """All windows of ``x``: ``col[n, c, i, j, oh, ow] = x_pad[n, c, i + sh*oh, j + sw*ow]``.

    Shapes:
        x ``(N, C, H, W)`` -> ``(N, C, KH, KW, H_out, W_out)``.

    Example:
        >>> im2col_array(np.arange(9.0).reshape(1, 1, 3, 3), (2, 2), (1, 1), (0, 0))[0, 0, 1, 0]
        array([[3., 4.],
               [6., 7.]])
    """
    (kh, kw), (sh, sw), (ph, pw) = kernel, stride, padding
    oh = conv_output_size(x.shape[2], kh, sh, ph)
    ow = conv_output_size(x.shape[3], kw, sw, pw)
    x_pad = _pad(x, padding, fill)
    col = np.empty(x.shape[:2] + (kh, kw, oh, ow), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            col[:, :, i, j] = x_pad[:, :, i : i + sh * oh : sh, j : j + sw * ow : sw]
    return col


def _as_columns(col: np.ndarray) -> np.ndarray:
    """``(N, C, KH, KW, H_out, W_out) -> (N, C * KH * KW, H_out * W_out)``.

    Explicit sizes, no -1: NumPy cannot infer an axis of an empty (N = 0) batch.
    """
    n, c, kh, kw, oh, ow = col.shape
    return col.reshape(n, c * kh * kw, oh * ow)


def _pad(x: np.ndarray, padding: Pair, fill: float) -> np.ndarray:
    """``x`` with ``fill`` rows/columns around H and W (faster than ``np.pad`` here)."""
    (ph, pw), (height, width) = padding, x.shape[2:]
    if ph == pw == 0:
        return x
    x_pad = np.full(x.shape[:2] + (height + 2 * ph, width + 2 * pw), fill, dtype=x.dtype)
    x_pad[:, :, ph : ph + height, pw : pw + width] = x
    return x_pad


def col2im_array(
    col: np.ndarray, x_shape: tuple[int, ...], stride: Pair, padding: Pair
) -> np.ndarray:
    """Adjoint of :func:`im2col_array`: add every column entry back into its pixel.

    Shapes:
        col ``(N, C, KH, KW, H_out, W_out)`` -> ``x_shape = (N, C, H, W)``.

    Example:
        >>> col2im_array(np.ones((1, 1, 2, 2, 2, 2)), (1, 1, 3, 3), (1, 1), (0, 0))[0, 0]
        array([[1., 2., 1.],
               [2., 4., 2.],
               [1., 2., 1.]])
    """
    (sh, sw), (ph, pw) = stride, padding
    kh, kw, oh, ow = col.shape[2:]
    height, width = x_shape[2] + 2 * ph, x_shape[3] + 2 * pw
    x_pad = np.zeros(tuple(x_shape[:2]) + (height, width), dtype=col.dtype)
    for i in range(kh):
        for j in range(kw):
            x_pad[:, :, i : i + sh * oh : sh, j : j + sw * ow : sw] += col[:, :, i, j]
    return x_pad[:, :, ph : ph + x_shape[2], pw : pw + x_shape[3]]


# -- im2col / col2im ---------------------------------------------------------------------
class Im2col(Function):
    """col = the unfolded windows of x;  gx = col2im(gcol)."""

    saves = ()

    def __init__(self, kernel: Pair, stride: Pair, padding: Pair) -> None:
        self.kernel, self.stride, self.padding = kernel, stride, padding

    def forward(self, x: np.ndarray) -> np.ndarray:
        self.x_shape = x.shape
        col = im2col_array(x, self.kernel, self.stride, self.padding)
        return _as_columns(col)

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        return Im2col(self.kernel, self.stride, self.padding)(tx)

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gy: Value) -> Value:
        return xp.apply(Col2im(self.x_shape, self.kernel, self.stride, self.padding), gy)


def im2col(
    x: Operand, kernel_size: IntOrPair, stride: IntOrPair = 1, padding: IntOrPair = 0
) -> Variable:
    """Unfold every sliding window of ``x`` into a column (``torch.nn.functional.unfold``).

    ``col[n, (c, i, j), (oh, ow)] = x_pad[n, c, oh * stride + i, ow * stride + j]`` where
    ``x_pad`` is ``x`` with ``padding`` zeros on each side;
    ``H_out = floor((H + 2 * padding - KH) / stride) + 1`` (likewise ``W_out``).

    Shapes:
        x ``(N, C, H, W)`` -> ``(N, C * KH * KW, H_out * W_out)``; the gradient has x's shape.

    Args:
        x: the input images, any float dtype.
        kernel_size: ``KH`` or ``(KH, KW)``.
        stride: the step between windows, int or pair.
        padding: zeros added on each side, int or pair.

    Returns:
        The columns, with x's dtype.

    Raises:
        TypeError: if a size is not an int or pair of ints.
        ValueError: if ``x`` is not 4-D or the padded input is smaller than the kernel.

    Example:
        >>> x = Variable(np.arange(16.0).reshape(1, 1, 4, 4))
        >>> im2col(x, 2, stride=2).data[0]
        array([[ 0.,  2.,  8., 10.],
               [ 1.,  3.,  9., 11.],
               [ 4.,  6., 12., 14.],
               [ 5.,  7., 13., 15.]])

    References:
        Chellapilla, Puri & Simard, "High Performance Convolutional Neural Networks for
        Document Processing", 2006.
    """
    geometry = [
        pair(v, "im2col", n) for v, n in ((kernel_size, "kernel_size"), (stride, "stride"))
    ]
    pad = pair(padding, "im2col", "padding")
    check_geometry("im2col", np.shape(x), geometry[0], geometry[1], pad)
    return Im2col(geometry[0], geometry[1], pad)(x)


class Col2im(Function):
    """x = columns added back into their windows;  gcol = im2col(gx)."""

    saves = ()

    def __init__(
        self, x_shape: tuple[int, ...], kernel: Pair, stride: Pair, padding: Pair
    ) -> None:
        self.x_shape, self.kernel, self.stride, self.padding = x_shape, kernel, stride, padding

    def forward(self, col: np.ndarray) -> np.ndarray:
        out_hw = check_geometry("col2im", self.x_shape, self.kernel, self.stride, self.padding)
        col6 = col.reshape(self.x_shape[:2] + self.kernel + out_hw)
        return col2im_array(col6, self.x_shape, self.stride, self.padding)

    def jvp(self, xs: Sequence[Variable], y: Variable, tcol: Variable) -> Variable:
        return Col2im(self.x_shape, self.kernel, self.stride, self.padding)(tcol)

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gx: Value) -> Value:
        return xp.apply(Im2col(self.kernel, self.stride, self.padding), gx)


def col2im(
    col: Operand,
    output_size: IntOrPair,
    kernel_size: IntOrPair,
    stride: IntOrPair = 1,
    padding: IntOrPair = 0,
) -> Variable:
    """Fold columns back into images, summing overlaps (``torch.nn.functional.fold``).

    The adjoint of :func:`im2col`: ``<im2col(x), col> == <x, col2im(col)>``, which is why
    each is the other's gradient.

    Shapes:
        col ``(N, C * KH * KW, H_out * W_out)`` -> ``(N, C, H, W)`` with
        ``(H, W) = output_size`` and ``H_out = floor((H + 2 * padding - KH) / stride) + 1``.

    Args:
        col: the columns.
        output_size: ``(H, W)`` of the images to rebuild.
        kernel_size: ``KH`` or ``(KH, KW)``.
        stride: the step between windows.
        padding: the padding that ``im2col`` added (cropped off again).

    Returns:
        The images, with col's dtype.

    Raises:
        TypeError: if a size is not an int or pair of ints.
        ValueError: if col's shape does not match ``output_size`` and the window settings.

    Example:
        >>> col2im(Variable(np.ones((1, 4, 4))), (3, 3), 2).data[0, 0]
        array([[1., 2., 1.],
               [2., 4., 2.],
               [1., 2., 1.]])
    """
    hw, kernel = pair(output_size, "col2im", "output_size"), pair(kernel_size, "col2im", "kernel")
    strides, pad = pair(stride, "col2im", "stride"), pair(padding, "col2im", "padding")
    shape = np.shape(col)
    kk = kernel[0] * kernel[1]
    if len(shape) != 3 or shape[1] % kk:
        raise ValueError(
            f"col2im: expected columns (N, C*{kk}, L) for kernel {kernel}, got shape {shape}"
        )
    x_shape = (shape[0], shape[1] // kk, *hw)
    out_hw = check_geometry("col2im", x_shape, kernel, strides, pad)
    if shape[2] != out_hw[0] * out_hw[1]:
        raise ValueError(
            f"col2im: columns of shape {shape} hold {shape[2]} windows, but output_size {hw} "
            f"with kernel {kernel}, stride {strides}, padding {pad} gives {out_hw}"
        )
    return Col2im(x_shape, kernel, strides, pad)(col)
