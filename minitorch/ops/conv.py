"""2-D convolution and pooling on NCHW arrays, built on im2col.

``im2col`` copies every kernel-sized window of the (padded) input into a column, so a
convolution becomes one matrix product per image (Chellapilla, Puri & Simard, "High
Performance Convolutional Neural Networks for Document Processing", 2006). ``col2im`` is
its adjoint: it adds each column back into the window it came from. The loops below run
over the ``KH * KW`` kernel offsets only, never over images or pixels.

Every spatial size follows ``H_out = floor((H + 2 * padding - KH) / stride) + 1``
(Dumoulin & Visin, "A guide to convolution arithmetic for deep learning", 2016).

The gradients close over three Functions: the input gradient of ``conv2d`` is a
``conv_transpose2d``, the input gradient of ``conv_transpose2d`` is a ``conv2d``, and both
weight gradients are ``Conv2dGradW`` — whose own gradients are again a ``conv2d`` and a
``conv_transpose2d``. So every backward is differentiable to any order.
"""

from __future__ import annotations

import numpy as np

from minitorch.core import Function, Operand, Variable
from minitorch.ops.reduce import sum

Pair = tuple[int, int]
IntOrPair = int | tuple[int, int]


# -- geometry and the NumPy kernels -----------------------------------------------------
def pair(value: IntOrPair, op: str, name: str) -> Pair:
    """Return ``(value, value)`` for an int, or the 2-tuple itself, as Python ints.

    Raises:
        TypeError: if ``value`` is neither an int nor a pair of ints (names ``op``/``name``).
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
    """The last two entries of an NCHW (or weight) shape: ``(H, W)`` or ``(KH, KW)``."""
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
    """
    (sh, sw), (ph, pw) = stride, padding
    kh, kw, oh, ow = col.shape[2:]
    height, width = x_shape[2] + 2 * ph, x_shape[3] + 2 * pw
    x_pad = np.zeros(tuple(x_shape[:2]) + (height, width), dtype=col.dtype)
    for i in range(kh):
        for j in range(kw):
            x_pad[:, :, i : i + sh * oh : sh, j : j + sw * ow : sw] += col[:, :, i, j]
    return x_pad[:, :, ph : ph + x_shape[2], pw : pw + x_shape[3]]


def _conv_array(x: np.ndarray, W: np.ndarray, stride: Pair, padding: Pair) -> np.ndarray:
    """``conv2d`` on arrays."""
    return _conv_col(im2col_array(x, hw(W.shape), stride, padding), W)


def _conv_col(col: np.ndarray, W: np.ndarray) -> np.ndarray:
    """``W.reshape(C_out, -1) @ col`` for every image: one small GEMM per image."""
    n, oh, ow = col.shape[0], col.shape[4], col.shape[5]
    y = np.matmul(W.reshape(W.shape[0], -1), col.reshape(n, -1, oh * ow))
    return y.reshape(n, W.shape[0], oh, ow)


def _conv_transpose_array(
    x: np.ndarray, W: np.ndarray, stride: Pair, padding: Pair, out_hw: Pair
) -> np.ndarray:
    """``conv_transpose2d`` on arrays: ``W^T @ x`` per image, then ``col2im``."""
    n, c_in, h, w = x.shape
    c_out, kh, kw = W.shape[1:]
    col = np.matmul(W.reshape(c_in, -1).T, x.reshape(n, c_in, h * w))
    return col2im_array(col.reshape(n, c_out, kh, kw, h, w), (n, c_out, *out_hw), stride, padding)


def _grad_weight_array(
    x: np.ndarray, gy: np.ndarray, kernel: Pair, stride: Pair, padding: Pair
) -> np.ndarray:
    """``gW[o, c, i, j] = sum_{n, oh, ow} gy[n, o, oh, ow] * im2col(x)[n, c, i, j, oh, ow]``."""
    return _grad_weight_col(im2col_array(x, kernel, stride, padding), gy)


def _grad_weight_col(col: np.ndarray, gy: np.ndarray) -> np.ndarray:
    """The weight gradient from ready columns ``(N, C, KH, KW, H_out, W_out)``.

    A batched ``gy[n] @ col[n].T`` summed over images: BLAS reads the transposed view
    directly, whereas ``np.tensordot`` would first copy both arrays (and ran 3-30x
    slower here, most under threaded BLAS on a busy machine).
    """
    n, c_out = gy.shape[:2]
    cols = col.reshape(n, -1, gy[0, 0].size).transpose(0, 2, 1)
    gW = np.matmul(gy.reshape(n, c_out, -1), cols).sum(axis=0)
    return gW.reshape((c_out,) + col.shape[1:4])


def _transpose_output_hw(
    x_hw: tuple[int, ...], kernel: Pair, stride: Pair, padding: Pair, output_padding: Pair
) -> Pair:
    """``H_out = (H - 1) * stride - 2 * padding + KH + output_padding`` for each side."""
    sides = [
        (x_hw[i] - 1) * stride[i] - 2 * padding[i] + kernel[i] + output_padding[i] for i in (0, 1)
    ]
    return sides[0], sides[1]


def _leftover(x_hw: tuple[int, ...], kernel: Pair, stride: Pair, padding: Pair) -> Pair:
    """Input rows/columns a strided window never reaches: the transpose's output_padding."""
    sides = [(x_hw[i] + 2 * padding[i] - kernel[i]) % stride[i] for i in (0, 1)]
    return sides[0], sides[1]


# -- im2col / col2im ---------------------------------------------------------------------
class Im2col(Function):
    """col = the unfolded windows of x;  gx = col2im(gcol)."""

    def __init__(self, kernel: Pair, stride: Pair, padding: Pair) -> None:
        self.kernel, self.stride, self.padding = kernel, stride, padding

    def forward(self, x: np.ndarray) -> np.ndarray:
        self.x_shape = x.shape
        col = im2col_array(x, self.kernel, self.stride, self.padding)
        return col.reshape(x.shape[0], -1, col.shape[4] * col.shape[5])

    def backward(self, gy: Variable) -> Variable:
        return col2im(gy, self.x_shape[2:], self.kernel, self.stride, self.padding)

    def backward_array(self, gy: np.ndarray) -> np.ndarray:
        out_hw = check_geometry("im2col", self.x_shape, self.kernel, self.stride, self.padding)
        col = gy.reshape(self.x_shape[:2] + self.kernel + out_hw)
        return col2im_array(col, self.x_shape, self.stride, self.padding)


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

    def __init__(
        self, x_shape: tuple[int, ...], kernel: Pair, stride: Pair, padding: Pair
    ) -> None:
        self.x_shape, self.kernel, self.stride, self.padding = x_shape, kernel, stride, padding

    def forward(self, col: np.ndarray) -> np.ndarray:
        out_hw = check_geometry("col2im", self.x_shape, self.kernel, self.stride, self.padding)
        col6 = col.reshape(self.x_shape[:2] + self.kernel + out_hw)
        return col2im_array(col6, self.x_shape, self.stride, self.padding)

    def backward(self, gx: Variable) -> Variable:
        return im2col(gx, self.kernel, self.stride, self.padding)

    def backward_array(self, gx: np.ndarray) -> np.ndarray:
        col = im2col_array(gx, self.kernel, self.stride, self.padding)
        return col.reshape(gx.shape[0], -1, col.shape[4] * col.shape[5])


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


# -- convolution ---------------------------------------------------------------------------
class Conv2d(Function):
    """y = W (x) x + b via im2col;  gx = conv_transpose2d(gy, W),  gW = Conv2dGradW(x, gy)."""

    def __init__(self, stride: Pair, padding: Pair) -> None:
        self.stride, self.padding = stride, padding

    def forward(self, x: np.ndarray, W: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
        self.col = im2col_array(x, hw(W.shape), self.stride, self.padding)  # reused for gW
        y = _conv_col(self.col, W)
        return y if b is None else y + b.reshape(1, -1, 1, 1)

    def backward(self, gy: Variable) -> tuple[Variable | None, ...]:
        x, W = self.inputs[:2]
        kernel, needs = hw(W.shape), self.needs_input_grad
        pad = _leftover(hw(x.shape), kernel, self.stride, self.padding)
        gx = conv_transpose2d(gy, W, None, self.stride, self.padding, pad) if needs[0] else None
        gW = Conv2dGradW(kernel, self.stride, self.padding)(x, gy) if needs[1] else None
        return (gx, gW) + ((sum(gy, axis=(0, 2, 3)),) if len(needs) == 3 else ())

    def backward_array(self, gy: np.ndarray) -> tuple[np.ndarray | None, ...]:
        x, W = self.input_arrays[:2]
        needs = self.needs_input_grad
        out_hw = x.shape[2], x.shape[3]
        gx = _conv_transpose_array(gy, W, self.stride, self.padding, out_hw) if needs[0] else None
        gW = _grad_weight_col(self.col, gy) if needs[1] else None
        return (gx, gW) + ((gy.sum(axis=(0, 2, 3)),) if len(needs) == 3 else ())


class Conv2dGradW(Function):
    """gW = sum over n, oh, ow of gy * im2col(x);  its gradients are a conv and a transpose."""

    def __init__(self, kernel: Pair, stride: Pair, padding: Pair) -> None:
        self.kernel, self.stride, self.padding = kernel, stride, padding

    def forward(self, x: np.ndarray, gy: np.ndarray) -> np.ndarray:
        return _grad_weight_array(x, gy, self.kernel, self.stride, self.padding)

    def backward(self, ggW: Variable) -> tuple[Variable, Variable]:
        x, _ = self.inputs
        pad = _leftover(hw(x.shape), self.kernel, self.stride, self.padding)
        gx = conv_transpose2d(self.inputs[1], ggW, None, self.stride, self.padding, pad)
        return gx, conv2d(x, ggW, None, self.stride, self.padding)

    def backward_array(self, ggW: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x, gy = self.input_arrays
        out_hw = x.shape[2], x.shape[3]
        gx = _conv_transpose_array(gy, ggW, self.stride, self.padding, out_hw)
        return gx, _conv_array(x, ggW, self.stride, self.padding)


def _check_weights(op: str, x: Operand, W: Operand, b: Operand | None, c_axis: int) -> None:
    x_shape, W_shape = np.shape(x), np.shape(W)
    if len(x_shape) != 4 or len(W_shape) != 4 or x_shape[1] != W_shape[0 if c_axis else 1]:
        expected = "(C_in, C_out, KH, KW)" if c_axis else "(C_out, C_in, KH, KW)"
        raise ValueError(
            f"{op}: expected x (N, C_in, H, W) and W {expected} with matching C_in, "
            f"got x {x_shape} and W {W_shape}"
        )
    if b is not None and np.shape(b) != (W_shape[c_axis],):
        raise ValueError(
            f"{op}: bias must have shape ({W_shape[c_axis]},) for W {W_shape}, got {np.shape(b)}"
        )


def conv2d(
    x: Operand,
    W: Operand,
    b: Operand | None = None,
    stride: IntOrPair = 1,
    padding: IntOrPair = 0,
) -> Variable:
    """2-D convolution (cross-correlation, as in every framework) of NCHW images.

    ``y[n, o, oh, ow] = b[o] + sum_{c, i, j} W[o, c, i, j] * x_pad[n, c, oh*s + i, ow*s + j]``,
    computed as ``W.reshape(C_out, -1) @ im2col(x)`` for every image at once.

    Shapes:
        x ``(N, C_in, H, W)``, W ``(C_out, C_in, KH, KW)``, b ``(C_out,)`` ->
        ``(N, C_out, H_out, W_out)`` with ``H_out = floor((H + 2 * padding - KH) / stride) + 1``
        (likewise ``W_out``). Each gradient has its input's shape.

    Args:
        x: the input images.
        W: the filters.
        b: an optional bias per output channel.
        stride: the step between windows, int or ``(sh, sw)``.
        padding: zeros added on each side, int or ``(ph, pw)``.

    Returns:
        The feature maps (dtype as NumPy's ``matmul`` of x and W gives).

    Raises:
        TypeError: if stride or padding is not an int or pair of ints.
        ValueError: if x or W is not 4-D, their channel counts differ, b is not
            ``(C_out,)``, or the padded input is smaller than the kernel.

    Example:
        >>> x = Variable(np.arange(9.0).reshape(1, 1, 3, 3))
        >>> conv2d(x, np.ones((1, 1, 2, 2))).data
        array([[[[ 8., 12.],
                 [20., 24.]]]])

    References:
        LeCun et al., "Gradient-Based Learning Applied to Document Recognition", 1998;
        Chellapilla, Puri & Simard, 2006 (im2col); Dumoulin & Visin, 2016 (sizes).
    """
    strides, pad = pair(stride, "conv2d", "stride"), pair(padding, "conv2d", "padding")
    _check_weights("conv2d", x, W, b, 0)
    check_geometry("conv2d", np.shape(x), hw(np.shape(W)), strides, pad)
    inputs = (x, W) if b is None else (x, W, b)
    return Conv2d(strides, pad)(*inputs)


class ConvTranspose2d(Function):
    """y = col2im(W^T x) + b;  gx = conv2d(gy, W),  gW = Conv2dGradW(gy, x)."""

    def __init__(self, stride: Pair, padding: Pair, out_hw: Pair) -> None:
        self.stride, self.padding, self.out_hw = stride, padding, out_hw

    def forward(self, x: np.ndarray, W: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
        y = _conv_transpose_array(x, W, self.stride, self.padding, self.out_hw)
        return y if b is None else y + b.reshape(1, -1, 1, 1)

    def backward(self, gy: Variable) -> tuple[Variable | None, ...]:
        x, W = self.inputs[:2]
        needs = self.needs_input_grad
        gx = conv2d(gy, W, None, self.stride, self.padding) if needs[0] else None
        grad_w = Conv2dGradW(hw(W.shape), self.stride, self.padding)
        gW = grad_w(gy, x) if needs[1] else None
        return (gx, gW) + ((sum(gy, axis=(0, 2, 3)),) if len(needs) == 3 else ())

    def backward_array(self, gy: np.ndarray) -> tuple[np.ndarray | None, ...]:
        x, W = self.input_arrays[:2]
        kernel, needs = hw(W.shape), self.needs_input_grad
        gx = _conv_array(gy, W, self.stride, self.padding) if needs[0] else None
        gW = _grad_weight_array(gy, x, kernel, self.stride, self.padding) if needs[1] else None
        return (gx, gW) + ((gy.sum(axis=(0, 2, 3)),) if len(needs) == 3 else ())


def conv_transpose2d(
    x: Operand,
    W: Operand,
    b: Operand | None = None,
    stride: IntOrPair = 1,
    padding: IntOrPair = 0,
    output_padding: IntOrPair = 0,
) -> Variable:
    """Transposed convolution: the gradient of ``conv2d`` w.r.t. its input, as a layer.

    Each input pixel scatters ``x[n, c, h, w] * W[c, :, :, :]`` into the window at
    ``(h * stride - padding, w * stride - padding)``; overlaps add up (``col2im``).

    Shapes:
        x ``(N, C_in, H, W)``, W ``(C_in, C_out, KH, KW)`` (PyTorch's layout), b
        ``(C_out,)`` -> ``(N, C_out, H_out, W_out)`` with
        ``H_out = (H - 1) * stride - 2 * padding + KH + output_padding``.

    Args:
        x: the input feature maps.
        W: the filters.
        b: an optional bias per output channel.
        stride: the upsampling step, int or pair.
        padding: rows/columns cropped from each side of the full output.
        output_padding: extra rows/columns on the bottom/right (``< stride``) to pick
            one of the input sizes that a strided ``conv2d`` maps to the same size.

    Returns:
        The upsampled feature maps.

    Raises:
        TypeError: if a size is not an int or pair of ints.
        ValueError: if x or W is not 4-D, their channel counts differ, b has the wrong
            shape, ``output_padding >= stride``, or the output would be empty.

    Example:
        >>> x = Variable(np.ones((1, 1, 2, 2)))
        >>> conv_transpose2d(x, np.ones((1, 1, 2, 2))).data[0, 0]
        array([[1., 2., 1.],
               [2., 4., 2.],
               [1., 2., 1.]])

    References:
        Dumoulin & Visin, "A guide to convolution arithmetic for deep learning", 2016, §4.
    """
    op = "conv_transpose2d"
    strides, pad = pair(stride, op, "stride"), pair(padding, op, "padding")
    extra = pair(output_padding, op, "output_padding")
    _check_weights(op, x, W, b, 1)
    if min(pad) < 0 or min(strides) < 1 or any(not 0 <= e < s for e, s in zip(extra, strides)):
        raise ValueError(
            f"{op}: need stride >= 1, padding >= 0 and 0 <= output_padding < stride, got "
            f"stride {strides}, padding {pad}, output_padding {extra}"
        )
    kernel = hw(np.shape(W))
    out_hw = _transpose_output_hw(hw(np.shape(x)), kernel, strides, pad, extra)
    if min(out_hw) < 1:
        raise ValueError(f"{op}: input {np.shape(x)} with W {np.shape(W)} gives output {out_hw}")
    inputs = (x, W) if b is None else (x, W, b)
    return ConvTranspose2d(strides, pad, out_hw)(*inputs)
