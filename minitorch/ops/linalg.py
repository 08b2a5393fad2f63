"""Linear algebra: matmul (exactly ``np.matmul``) and the fully connected ``linear``.

For ``y = a @ b`` on matrices the vector-Jacobian products are ``ga = gy @ b.T`` and
``gb = a.T @ gy`` (Goodfellow, Bengio & Courville, *Deep Learning*, §6.5.6). ``np.matmul``
adds two twists that the backward must undo: 1-D operands are promoted to matrices
(a row ``(1, n)`` on the left, a column ``(n, 1)`` on the right) and the result drops
that axis again; leading "batch" axes broadcast, so each gradient is summed back to its
input's shape with ``sum_to``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from minitorch.core import Function, Operand, Variable
from minitorch.core.function import Ops, Value
from minitorch.ops.arithmetic import Pair
from minitorch.ops.reshape import add_tangents

Shape = tuple[int, ...]


def _check_matmul(a: np.ndarray, b: np.ndarray) -> None:
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(
            f"matmul: {a.shape} @ {b.shape}: operands must have at least 1 dimension "
            "(use mul for scalars)"
        )
    inner_a = a.shape[-1]
    inner_b = b.shape[0] if b.ndim == 1 else b.shape[-2]
    if inner_a != inner_b:
        raise ValueError(
            f"matmul: {a.shape} @ {b.shape}: inner dimensions {inner_a} and {inner_b} differ"
        )
    try:
        np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise ValueError(
            f"matmul: {a.shape} @ {b.shape}: batch dimensions {a.shape[:-2]} and "
            f"{b.shape[:-2]} do not broadcast"
        ) from None


def _as_matrices(a_shape: Shape, b_shape: Shape, gy_shape: Shape) -> tuple[Shape, Shape, Shape]:
    """The shapes np.matmul works with after promoting 1-D operands (and gy to match)."""
    a2 = (1,) + a_shape if len(a_shape) == 1 else a_shape
    b2 = b_shape + (1,) if len(b_shape) == 1 else b_shape
    gy2 = gy_shape
    if len(a_shape) == 1:
        gy2 = gy2[:-1] + (1,) + gy2[-1:] if len(b_shape) > 1 else gy2 + (1,)
    if len(b_shape) == 1:
        gy2 = gy2 + (1,)
    return a2, b2, gy2


def _swap_last(ndim: int) -> tuple[int, ...]:
    return tuple(range(ndim - 2)) + (ndim - 1, ndim - 2)


class MatMul(Function):
    """y = a @ b;  ga = gy @ b^T,  gb = a^T @ gy  (summed over broadcast batch axes)."""

    saves = ("inputs",)

    def saves_input(
        self, i: int
    ) -> bool:  # ga reads b, gb reads a: keep each only for the other's gradient
        return self.needs_input_grad[1 - i]

    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        _check_matmul(a, b)
        return np.matmul(a, b)

    def jvp(
        self, xs: Sequence[Variable], y: Variable, ta: Variable | None, tb: Variable | None
    ) -> Variable | None:
        a, b = xs  # the product rule, with matmul's own broadcasting
        t0 = None if ta is None else matmul(ta, b)
        return add_tangents(y.shape, t0, None if tb is None else matmul(a, tb))

    def vjp(self, xp: Ops, xs: Pair, y: Value, gy: Value) -> tuple[Value | None, Value | None]:
        a, b = xs
        a2, b2, gy2 = _as_matrices(a.shape, b.shape, gy.shape)
        gy_m = xp.reshape(gy, gy2)
        need_a, need_b = self.needs_input_grad  # ga reads only b, gb only a (saves_input)
        ga = gb = None
        if need_a:
            b_t = xp.transpose(xp.reshape(b, b2), _swap_last(len(b2)))
            ga = xp.reshape(xp.sum_to(gy_m @ b_t, a2), a.shape)
        if need_b:
            a_t = xp.transpose(xp.reshape(a, a2), _swap_last(len(a2)))
            gb = xp.reshape(xp.sum_to(a_t @ gy_m, b2), b.shape)
        return ga, gb


def matmul(a: Operand, b: Operand) -> Variable:
    """Matrix product following ``np.matmul`` exactly (the ``@`` operator).

    * 2-D @ 2-D: the matrix product.
    * 1-D on the left is a row vector, 1-D on the right a column vector; the added axis is
      removed from the result (1-D @ 1-D is the inner product, a 0-d result).
    * 3-D and more: a stack of matrices in the last two axes; the leading "batch" axes
      broadcast. Each gradient is summed back to its operand's shape.

    Shapes:
        a ``(*B1, n, k)``, b ``(*B2, k, m)`` -> ``(*broadcast(B1, B2), n, m)``;
        ``(k,) @ (k, m) -> (m,)``; ``(n, k) @ (k,) -> (n,)``; ``(k,) @ (k,) -> ()``.

    Args:
        a: the left operand (at least 1-D).
        b: the right operand (at least 1-D).

    Returns:
        A Variable of the promoted dtype of ``a`` and ``b``.

    Raises:
        ValueError: if an operand is 0-d, the inner dimensions differ (e.g.
            ``matmul: (3, 4) @ (5, 2): inner dimensions 4 and 5 differ``) or the batch
            dimensions do not broadcast.

    Example:
        >>> a = Variable(np.array([[1.0, 2.0], [3.0, 4.0]]))
        >>> matmul(a, np.array([1.0, 1.0]))
        variable([3. 7.])

    References:
        NumPy documentation of ``numpy.matmul`` (the broadcasting and 1-D rules).
    """
    return MatMul()(a, b)


class Linear(Function):
    """y = x @ W^T + b;  gx = gy @ W,  gW = gy^T @ x,  gb = sum of gy over the batch."""

    saves = ("inputs",)

    def saves_input(
        self, i: int
    ) -> bool:  # gx reads W, gW reads x (an MLP's data batch needs no gx: W kept); never b
        return i < 2 and self.needs_input_grad[1 - i]

    def forward(self, x: np.ndarray, W: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
        _check_linear(x, W, b)
        if x.dtype == np.bool_ or W.dtype == np.bool_ or (b is not None and b.dtype == np.bool_):
            x, W, b = _bools_as_numbers(x, W, b)  # sums of 0/1, not logical or/and
        y = _rows(x) @ W.T
        if x.ndim > 2:
            y = y.reshape(*x.shape[:-1], W.shape[0])
        if b is not None and np.result_type(y, b) == y.dtype:
            y += b  # y is a fresh array: adding in place saves one allocation
        elif b is not None:
            y = y + b  # b promotes the dtype (an int x @ W plus a float b), as NumPy does
        return y

    def jvp(self, xs: Sequence[Variable], y: Variable, *txs: Variable | None) -> Variable | None:
        x, W = xs[:2]
        tx, tW = txs[0], txs[1]
        tb = txs[2] if len(txs) == 3 else None
        t0 = None if tx is None else linear(tx, W)
        t1 = None if tW is None else linear(x, tW)
        return add_tangents(y.shape, t0, t1, tb)

    def vjp(self, xp: Ops, xs: tuple[Value, ...], y: Value, gy: Value) -> tuple[Value | None, ...]:
        x, W = xs[:2]
        need = self.needs_input_grad
        gy_2d = xp.reshape(gy, (-1, W.shape[0]))  # (*, out) as rows, once for all three
        # Skip gx for the data batch (it needs no gradient): the biggest saving in an MLP.
        gx = xp.reshape(gy_2d @ W, x.shape) if need[0] else None
        gW = xp.transpose(gy_2d) @ xp.reshape(x, (-1, W.shape[1])) if need[1] else None
        if len(xs) == 2:
            return gx, gW
        gb = xp.sum(gy_2d, 0) if need[2] else None
        return gx, gW, gb


def _rows(x: np.ndarray) -> np.ndarray:
    # (*, in) as one (rows, in) matrix: one large matrix product is faster than NumPy's
    # loop over a stack of small ones (x @ W.T with 3-D x), and gives the same numbers.
    return x.reshape(-1, x.shape[-1]) if x.ndim > 2 else x


def _bools_as_numbers(
    x: np.ndarray, W: np.ndarray, b: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Bool operands as 0/1 of the other operands' dtype (float64 if all are bool).

    NumPy's bool ``@`` is a logical or of ands; 0/1 numbers count instead. A bool
    takes the dtype the others promote to, as ``x * W`` and ``matmul`` promote bool
    (a float32 ``W`` keeps a bool ``x``'s result float32).
    """
    others = [a.dtype for a in (x, W, b) if a is not None and a.dtype != np.bool_]
    dtype = np.result_type(*others) if others else np.dtype(np.float64)

    def number(a: np.ndarray) -> np.ndarray:
        return a.astype(dtype) if a.dtype == np.bool_ else a

    return number(x), number(W), None if b is None else number(b)


def _check_linear(x: np.ndarray, W: np.ndarray, b: np.ndarray | None) -> None:
    if W.ndim != 2:
        raise ValueError(f"linear: W must be 2-D (out_features, in_features), got {W.shape}")
    if x.ndim == 0 or x.shape[-1] != W.shape[1]:
        raise ValueError(
            f"linear: x {x.shape} and W {W.shape}: x's last dimension must equal "
            f"in_features={W.shape[1]}"
        )
    if b is not None and b.shape != (W.shape[0],):
        raise ValueError(
            f"linear: b has shape {b.shape} but W {W.shape} needs b of shape ({W.shape[0]},)"
        )


def linear(x: Operand, W: Operand, b: Operand | None = None) -> Variable:
    """Fully connected layer ``x @ W.T + b``, as ``torch.nn.functional.linear``.

    One Function instead of ``matmul`` + ``transpose`` + ``add`` for speed: the backward
    computes no gradient for an input that needs none (the data batch ``x``), and the
    bias gradient is one column sum.

    Shapes:
        x ``(*, in_features)``, W ``(out_features, in_features)``, b ``(out_features,)``
        -> ``(*, out_features)``.

    Args:
        x: the input batch.
        W: the weight matrix, ``(out_features, in_features)``.
        b: the optional bias.

    Returns:
        A Variable of the promoted dtype of the operands. A bool operand counts as
        0/1 of the other operands' dtype (a bool ``x`` with a float32 ``W`` gives
        float32, as ``x * W`` and :func:`matmul` do); NumPy's bool matmul would be a
        logical or of ands, and a bool result; PyTorch refuses bool. ``linear`` of bools
        only gives float64 counts.

    Raises:
        ValueError: if ``W`` is not 2-D, ``x``'s last dimension differs from
            ``in_features`` or ``b`` is not ``(out_features,)`` (the message names the
            shapes).

    Example:
        >>> x = Variable(np.ones((2, 3)))
        >>> W = Variable(np.array([[1.0, 2.0, 3.0]]))
        >>> linear(x, W, np.array([0.5]))
        variable([[6.5]
                  [6.5]])

    References:
        PyTorch documentation of ``torch.nn.functional.linear``.
    """
    if b is None:
        return Linear()(x, W)
    return Linear()(x, W, b)
