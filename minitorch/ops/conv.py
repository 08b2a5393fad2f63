"""2-D convolution and transposed convolution of NCHW arrays, built on im2col.

A convolution is ``W.reshape(C_out, -1) @ im2col(x)`` for every image (see
``windows.py``); every spatial size follows
``H_out = floor((H + 2 * padding - KH) / stride) + 1``.

The gradients close over three Functions: the input gradient of ``conv2d`` is a
``conv_transpose2d``, the input gradient of ``conv_transpose2d`` is a ``conv2d``, and both
weight gradients are ``Conv2dGradW`` — whose own gradients are again a ``conv2d`` and a
``conv_transpose2d``. So every backward is differentiable to any order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minitorch.core import Function, Operand, Variable
from minitorch.core.function import Ops, Value
from minitorch.ops.reshape import add_tangents, reshape
from minitorch.ops.windows import (
    IntOrPair,
    Pair,
    check_geometry,
    col2im_array,
    hw,
    im2col_array,
    pair,
)


# -- NumPy kernels -----------------------------------------------------------------------
def _conv_col(col: np.ndarray, W: np.ndarray) -> np.ndarray:
    """``W.reshape(C_out, -1) @ col`` for every image: one small GEMM per image."""
    n, oh, ow = col.shape[0], col.shape[4], col.shape[5]
    # Explicit sizes, no -1: NumPy cannot infer an axis of an empty (N = 0) batch.
    y = np.matmul(W.reshape(W.shape[0], -1), col.reshape(n, _prod(col.shape[1:4]), oh * ow))
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
    windows = gy.shape[2] * gy.shape[3]
    cols = col.reshape(n, _prod(col.shape[1:4]), windows).transpose(0, 2, 1)
    gW = np.matmul(gy.reshape(n, c_out, windows), cols).sum(axis=0)
    return gW.reshape((c_out,) + col.shape[1:4])


def _prod(sizes: tuple[int, ...]) -> int:
    """The product of ``sizes`` as a Python int (1 for none)."""
    return int(np.prod(sizes, dtype=np.int64))


def _transpose_output_hw(
    x_hw: tuple[int, ...], kernel: Pair, stride: Pair, padding: Pair, output_padding: Pair
) -> Pair:
    """``H_out = (H - 1) * stride - 2 * padding + KH + output_padding`` for each side."""
    sides = [
        (x_hw[i] - 1) * stride[i] - 2 * padding[i] + kernel[i] + output_padding[i] for i in (0, 1)
    ]
    return sides[0], sides[1]


# -- convolution ---------------------------------------------------------------------------
class Conv2d(Function):
    """y = W (x) x + b via im2col;  gx = conv_transpose2d(gy, W),  gW = Conv2dGradW(x, gy)."""

    saves = ("inputs",)

    def saves_input(self, i: int) -> bool:  # gx reads W, gW reads x; never the bias
        return i < 2 and self.needs_input_grad[1 - i]

    def __init__(self, stride: Pair, padding: Pair) -> None:
        self.stride, self.padding = stride, padding

    def forward(self, x: np.ndarray, W: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
        self.col = im2col_array(x, hw(W.shape), self.stride, self.padding)  # reused for gW
        y = _conv_col(self.col, W)
        return y if b is None else y + b.reshape(1, -1, 1, 1)

    def jvp(self, xs: Sequence[Variable], y: Variable, *txs: Variable | None) -> Variable | None:
        x, W = xs[:2]  # bilinear in (x, W): one conv per input that moves
        return _bilinear_tangent(self, Conv2d, (self.stride, self.padding), x, W, txs)

    def vjp(self, xp: Ops, xs: tuple[Value, ...], y: Value, gy: Value) -> tuple[Value | None, ...]:
        x, W = xs[:2]
        needs = self.needs_input_grad
        grad_x = ConvTranspose2d(self.stride, self.padding, hw(x.shape))
        gx = xp.apply(grad_x, gy, W) if needs[0] else None
        gW = (
            xp.apply(Conv2dGradW(hw(W.shape), self.stride, self.padding), x, gy)
            if needs[1]
            else None
        )
        return (gx, gW) + ((xp.sum(gy, (0, 2, 3)),) if len(needs) == 3 else ())

    def backward_array(self, gy: np.ndarray) -> tuple[np.ndarray | None, ...]:
        # The vjp on arrays, except that gW reuses the columns forward kept (self.col):
        # one im2col of the whole batch less per training step.
        x, W = self.input_arrays[:2]
        needs = self.needs_input_grad
        out_hw = hw(x.shape)
        gx = _conv_transpose_array(gy, W, self.stride, self.padding, out_hw) if needs[0] else None
        gW = _grad_weight_col(self.col, gy) if needs[1] else None
        return (gx, gW) + ((gy.sum(axis=(0, 2, 3)),) if len(needs) == 3 else ())


class Conv2dGradW(Function):
    """gW = sum over n, oh, ow of gy * im2col(x);  its gradients are a conv and a transpose."""

    saves = ("inputs",)

    def __init__(self, kernel: Pair, stride: Pair, padding: Pair) -> None:
        self.kernel, self.stride, self.padding = kernel, stride, padding

    def forward(self, x: np.ndarray, gy: np.ndarray) -> np.ndarray:
        return _grad_weight_array(x, gy, self.kernel, self.stride, self.padding)

    def jvp(
        self, xs: Sequence[Variable], y: Variable, tx: Variable | None, tgy: Variable | None
    ) -> Variable | None:
        x, gy = xs  # bilinear in (x, gy)
        params = (self.kernel, self.stride, self.padding)
        return _bilinear_tangent(self, Conv2dGradW, params, x, gy, (tx, tgy))

    def vjp(self, xp: Ops, xs: tuple[Value, Value], y: Value, ggW: Value) -> tuple[Value, Value]:
        x, gy = xs
        gx = xp.apply(ConvTranspose2d(self.stride, self.padding, hw(x.shape)), gy, ggW)
        return gx, xp.apply(Conv2d(self.stride, self.padding), x, ggW)


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


def _bilinear_tangent(
    func: Function,
    op: type[Function],
    params: tuple[Any, ...],
    a: Variable,
    b: Variable,
    txs: tuple[Variable | None, ...],
) -> Variable | None:
    """The tangent of ``op(a, b) (+ bias)`` for an ``op`` linear in each argument.

    ``d op(a, b) = op(da, b) + op(a, db)``; a bias (third input) adds its own tangent.
    """
    ta, tb = txs[0], txs[1]
    terms = [
        None if ta is None else op(*params)(ta, b),
        None if tb is None else op(*params)(a, tb),
    ]
    if len(txs) == 3 and txs[2] is not None:
        terms.append(reshape(txs[2], (1, -1, 1, 1)))
    return add_tangents(func.output().shape, *terms)


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

    saves = ("inputs",)

    def saves_input(self, i: int) -> bool:  # gx reads W, gW reads x; never the bias
        return i < 2 and self.needs_input_grad[1 - i]

    def __init__(self, stride: Pair, padding: Pair, out_hw: Pair) -> None:
        self.stride, self.padding, self.out_hw = stride, padding, out_hw

    def forward(self, x: np.ndarray, W: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
        y = _conv_transpose_array(x, W, self.stride, self.padding, self.out_hw)
        return y if b is None else y + b.reshape(1, -1, 1, 1)

    def jvp(self, xs: Sequence[Variable], y: Variable, *txs: Variable | None) -> Variable | None:
        x, W = xs[:2]
        params = (self.stride, self.padding, self.out_hw)
        return _bilinear_tangent(self, ConvTranspose2d, params, x, W, txs)

    def vjp(self, xp: Ops, xs: tuple[Value, ...], y: Value, gy: Value) -> tuple[Value | None, ...]:
        x, W = xs[:2]
        needs = self.needs_input_grad
        gx = xp.apply(Conv2d(self.stride, self.padding), gy, W) if needs[0] else None
        grad_w = Conv2dGradW(hw(W.shape), self.stride, self.padding)
        gW = xp.apply(grad_w, gy, x) if needs[1] else None
        return (gx, gW) + ((xp.sum(gy, (0, 2, 3)),) if len(needs) == 3 else ())


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
