"""Linear systems and what follows from them: solve, inv, det, slogdet, pinv.

NumPy's ``numpy.linalg`` names and conventions: every op works on the last two axes
and broadcasts the leading ("batch") axes, as ``np.linalg`` does. The derivative rules
are Giles's, each written once against ``xp`` (NumPy arrays on the fast path,
minitorch ops when differentiated again), with ``C`` the output:

=========  ==============================  ==========================================
op         forward mode (tangent)          reverse mode (gradient)
=========  ==============================  ==========================================
inv        dC = -C dA C                    gA = -C^T gC C^T
solve      dC = A^-1 (dB - dA C)           gB = A^-T gC,  gA = -gB C^T
det        dd = d tr(A^-1 dA)              gA = gd d A^-T
slogdet    dl = tr(A^-1 dA)                gA = gl A^-T
=========  ==============================  ==========================================

``pinv``'s rule (for a matrix of constant rank) is Golub & Pereyra's.

References:
    M. B. Giles, "Collected matrix derivative results for forward and reverse mode
    algorithmic differentiation" (2008), "Elementary results" (inverse, determinant,
    matrix inverse product);
    G. H. Golub & V. Pereyra, "The differentiation of pseudo-inverses and nonlinear
    least squares problems whose variables separate", SIAM J. Numer. Anal. 10 (1973)
    (the derivative of a pseudo-inverse of constant rank).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from minitorch.core import Function, Operand, Variable
from minitorch.core.function import Ops, Value
from minitorch.ops.einsum import Einsum
from minitorch.ops.linalg import _swap_last, matmul
from minitorch.ops.reshape import add_tangents, reshape, transpose


def mT(xp: Ops, a: Value) -> Value:
    """``a`` with its last two axes swapped (the transpose of each matrix of a stack)."""
    return xp.transpose(a, _swap_last(a.ndim))


def check_matrices(op: str, *xs: np.ndarray, square: bool = True) -> None:
    """Refuse complex input, fewer than 2 dimensions, or (``square``) non-square matrices.

    Raises:
        TypeError: for complex input.
        ValueError: naming the op and the shape.
    """
    a = xs[0]
    if a.ndim < 2:
        raise ValueError(f"{op}: expected a matrix (or a stack of them), got shape {a.shape}")
    if square and a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{op}: the last two dimensions must be square, got shape {a.shape}")


def linalg_error(op: str, a: np.ndarray, exc: Exception) -> np.linalg.LinAlgError:
    """A ``LinAlgError`` naming the op and the shape (NumPy's says "Singular matrix")."""
    return np.linalg.LinAlgError(f"{op}: {exc} (input of shape {a.shape})")


def trace_of_product(xp: Ops, a: Value, b: Value) -> Value:
    """``tr(a @ b)`` for each matrix of two stacks, as one einsum."""
    return xp.apply(Einsum("...ij,...ji->..."), a, b)


class Inv(Function):
    """C = A^-1;  dC = -C dA C,  gA = -C^T gC C^T."""

    saves = ("output",)

    def forward(self, a: np.ndarray) -> np.ndarray:
        check_matrices("inv", a)
        try:
            return np.linalg.inv(a)
        except np.linalg.LinAlgError as exc:
            raise linalg_error("inv", a, exc) from None

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gy: Value) -> Value:
        y_t = mT(xp, y)  # y = A^-1
        return -(y_t @ gy @ y_t)

    def jvp(self, xs: list[Variable], y: Variable, ta: Variable) -> Variable:
        return -(y @ ta @ y)


def inv(a: Operand) -> Variable:
    """The inverse of a square matrix, or of each in a stack (``np.linalg.inv``).

    Shapes:
        ``(*, n, n)`` -> ``(*, n, n)``.

    Raises:
        ValueError: if the last two dimensions are not square (names the shape).
        numpy.linalg.LinAlgError: if a matrix is singular (names the op).
        TypeError: for complex input (out of scope).

    Example:
        >>> inv(Variable(np.array([[2.0, 0.0], [0.0, 4.0]])))
        variable([[0.5  0.  ]
                  [0.   0.25]])

    References:
        Giles (2008), "Inverse".
    """
    return Inv()(a)  # type: ignore[no-any-return]


class Solve(Function):
    """C = A^-1 B;  dC = A^-1 (dB - dA C),  gB = A^-T gC,  gA = -gB C^T."""

    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        check_matrices("solve", a)
        self.vector = b.ndim == 1  # NumPy 2: b is a vector exactly when it is 1-D
        rows = b.shape[0] if self.vector else (b.shape[-2] if b.ndim >= 2 else None)
        if rows != a.shape[-1]:
            raise ValueError(
                f"solve: a has shape {a.shape} but b has shape {b.shape}; b must be "
                f"({a.shape[-1]},) or (..., {a.shape[-1]}, k)"
            )
        try:
            return np.linalg.solve(a, b)
        except np.linalg.LinAlgError as exc:
            raise linalg_error("solve", a, exc) from None

    def _as_columns(self, xp: Ops, v: Value) -> Value:
        """A vector result (or its gradient) as a stack of one-column matrices."""
        return xp.reshape(v, v.shape + (1,)) if self.vector else v

    def vjp(self, xp: Ops, xs: tuple[Value, Value], y: Value, gy: Value) -> tuple[Value, Value]:
        a, b = xs
        gb = xp.apply(Solve(), mT(xp, a), self._as_columns(xp, gy))
        ga = -(gb @ mT(xp, self._as_columns(xp, y)))
        gb = xp.reshape(gb, gb.shape[:-1]) if self.vector else gb
        return xp.sum_to(ga, a.shape), xp.sum_to(gb, b.shape)

    def jvp(
        self, xs: list[Variable], y: Variable, ta: Variable | None, tb: Variable | None
    ) -> Variable | None:
        a, _ = xs
        c_columns = self._as_columns(self.graph_ops, y)
        minus_ta_c = None if ta is None else -(ta @ c_columns)
        tb_columns = None if tb is None else self._as_columns(self.graph_ops, tb)
        rhs = add_tangents(c_columns.shape, tb_columns, minus_ta_c)
        assert rhs is not None  # some input has a tangent, or the rule is not called
        tc = Solve()(a, rhs)
        return reshape(tc, y.shape) if self.vector else tc  # type: ignore[no-any-return]


def solve(a: Operand, b: Operand) -> Variable:
    """Solve ``a @ x = b`` for ``x`` (``np.linalg.solve``), batched and broadcast.

    As in NumPy 2, ``b`` is one vector when it is 1-D (``(n,)`` -> ``(*, n)``) and a
    stack of matrices otherwise (``(*, n, k)``); the leading dimensions broadcast and
    each gradient is summed back to its operand's shape.

    Shapes:
        a ``(*A, n, n)``, b ``(n,)`` or ``(*B, n, k)`` -> ``(*broadcast(A, B), n[, k])``.

    Raises:
        ValueError: if ``a`` is not square or ``b`` does not fit (names both shapes).
        numpy.linalg.LinAlgError: if ``a`` is singular.
        TypeError: for complex input (out of scope).

    Example:
        >>> solve(Variable(np.array([[2.0, 0.0], [0.0, 4.0]])), np.array([1.0, 1.0]))
        variable([0.5  0.25])

    References:
        Giles (2008), "Matrix inverse product".
    """
    return Solve()(a, b)  # type: ignore[no-any-return]


def inverse_for(op: str, xp: Ops, a: Value) -> Value:
    """``inv(a)`` for the gradient of ``op``, or an error that names ``op``.

    Raises:
        numpy.linalg.LinAlgError: if ``a`` is singular (its determinant is 0).
    """
    try:
        return xp.apply(Inv(), a)
    except np.linalg.LinAlgError:
        raise np.linalg.LinAlgError(
            f"{op}: its derivative (gradient inv(a).T, tangent tr(inv(a) da)) needs an "
            f"invertible matrix, and a (shape {a.shape}) is singular"
        ) from None


class Det(Function):
    """d = det(A);  dd = d tr(A^-1 dA),  gA = gd d A^-T."""

    def forward(self, a: np.ndarray) -> np.ndarray:
        check_matrices("det", a)
        return np.asarray(np.linalg.det(a))

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gy: Value) -> Value:
        (a,) = xs  # y = det(A)
        scale = xp.reshape(gy * y, y.shape + (1, 1))
        return scale * mT(xp, inverse_for("det", xp, a))

    def jvp(self, xs: list[Variable], y: Variable, ta: Variable) -> Variable:
        (a,) = xs
        return y * trace_of_product(self.graph_ops, inverse_for("det", self.graph_ops, a), ta)


def det(a: Operand) -> Variable:
    """The determinant of a square matrix, or of each in a stack (``np.linalg.det``).

    The gradient ``d * inv(a).T`` and the tangent ``d * tr(inv(a) @ da)`` need an
    invertible matrix: at a singular one they raise ``LinAlgError`` naming ``det`` (use
    :func:`slogdet` for the log of a large determinant).

    Shapes:
        ``(*, n, n)`` -> ``(*)``.

    Raises:
        ValueError: if the last two dimensions are not square.
        TypeError: for complex input (out of scope).

    Example:
        >>> det(Variable(np.array([[2.0, 0.0], [0.0, 3.0]])))
        variable(6.0)

    References:
        Giles (2008), "Determinant".
    """
    return Det()(a)  # type: ignore[no-any-return]


class Slogdet(Function):
    """(s, l) = (sign det A, log |det A|);  dl = tr(A^-1 dA),  gA = gl A^-T;  s is constant."""

    saves = ("inputs",)

    def forward(self, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        check_matrices("slogdet", a)
        sign, logabsdet = np.linalg.slogdet(a)
        return np.asarray(sign), np.asarray(logabsdet)

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gsign: Value, glog: Value) -> Value:
        (a,) = xs  # the sign is piecewise constant: its gradient is 0
        return xp.reshape(glog, glog.shape + (1, 1)) * mT(xp, inverse_for("slogdet", xp, a))

    def jvp(self, xs: list[Variable], y: Variable, ta: Variable) -> tuple[None, Variable]:
        (a,) = xs
        inverse = inverse_for("slogdet", self.graph_ops, a)
        return None, trace_of_product(self.graph_ops, inverse, ta)


class SlogdetResult(NamedTuple):
    """``slogdet``'s two outputs, named as NumPy's ``SlogdetResult``."""

    sign: Variable
    logabsdet: Variable


def slogdet(a: Operand) -> SlogdetResult:
    """Sign and log of the absolute value of the determinant (``np.linalg.slogdet``).

    ``det(a) = sign * exp(logabsdet)`` without overflow. The sign's gradient is 0; the
    log's is ``inv(a).T`` (a singular matrix, ``logabsdet = -inf``, raises
    ``LinAlgError`` in the gradient).

    Shapes:
        ``(*, n, n)`` -> two of ``(*)``.

    Raises:
        ValueError: if the last two dimensions are not square.
        TypeError: for complex input (out of scope).

    Example:
        >>> slogdet(Variable(np.array([[-2.0, 0.0], [0.0, 3.0]]))).sign
        variable(-1.0)

    References:
        Giles (2008), "Determinant".
    """
    sign, logabsdet = Slogdet()(a)
    return SlogdetResult(sign, logabsdet)


class Pinv(Function):
    """P = A^+;  gA = -P^T gP P^T + (I - A P) gP^T P P^T + P^T P gP^T (I - P A)."""

    def __init__(self, rcond: float | None) -> None:
        self.rcond = rcond

    def forward(self, a: np.ndarray) -> np.ndarray:
        check_matrices("pinv", a, square=False)
        if self.rcond is None:
            return np.linalg.pinv(a)
        return np.linalg.pinv(a, rcond=self.rcond)

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gy: Value) -> Value:
        p, (a,) = y, xs  # p = A^+
        p_t, gy_t = mT(xp, p), mT(xp, gy)
        left = np.eye(a.shape[-2], dtype=a.dtype) - a @ p  # I - A P: off the range of A
        right = np.eye(a.shape[-1], dtype=a.dtype) - p @ a  # I - P A: off the row space
        return -(p_t @ gy @ p_t) + left @ gy_t @ (p @ p_t) + (p_t @ p) @ gy_t @ right

    def jvp(self, xs: list[Variable], y: Variable, ta: Variable) -> Variable:
        p, (a,) = y, xs
        ta_t = transpose(ta, _swap_last(ta.ndim))
        left = np.eye(a.shape[-2], dtype=a.dtype) - matmul(a, p)
        right = np.eye(a.shape[-1], dtype=a.dtype) - matmul(p, a)
        p_t = transpose(p, _swap_last(p.ndim))
        return -(p @ ta @ p) + (p @ p_t) @ ta_t @ left + right @ ta_t @ (p_t @ p)


def pinv(a: Operand, rcond: float | None = None) -> Variable:
    """The Moore-Penrose pseudo-inverse (``np.linalg.pinv``), batched.

    Singular values below ``rcond * largest`` count as zero (NumPy's default cut-off
    when ``rcond`` is None). The gradient is the derivative for matrices of the same
    rank (Golub & Pereyra): exact where the rank does not change nearby, which holds
    for every full-rank matrix.

    Shapes:
        ``(*, m, n)`` -> ``(*, n, m)``.

    Raises:
        ValueError: if ``a`` has fewer than 2 dimensions.
        TypeError: for complex input (out of scope).

    Example:
        >>> pinv(Variable(np.array([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]])))
        variable([[1.  0.  0. ]
                  [0.  0.5 0. ]])

    References:
        Golub & Pereyra (1973).
    """
    return Pinv(rcond)(a)  # type: ignore[no-any-return]
