"""Matrix decompositions and norms: cholesky, eigh, svd, norm (``numpy.linalg``'s names).

Batched over leading axes as ``np.linalg``. The rules, with ``sym(X) = (X + X^T) / 2``:

* ``cholesky`` (A = L L^T): ``dL = L Phi(L^-1 dA L^-T)``, ``gA = sym(L^-T Phi(L^T gL) L^-1)``,
  ``Phi`` = the lower triangle with its diagonal halved (Murray 2016).
* ``eigh`` (A = V diag(w) V^T): ``dw = diag(V^T dA V)``, ``dV = V (F o V^T dA V)``;
  ``gA = V (diag(gw) + F o skew(V^T gV)) V^T`` with ``F_ij = 1 / (w_j - w_i)`` (Giles
  2008, "Eigenvalues and eigenvectors"; the skew part is the one that does not depend on
  the eigenvectors' signs).
* ``svd`` (A = U diag(s) V^T): Townsend's formulas, with ``F_ij = 1 / (s_j^2 - s_i^2)``.

The input of ``cholesky`` and ``eigh`` is taken as symmetric (NumPy reads one triangle):
their gradients are symmetric matrices and tangents are symmetrised, as in PyTorch and JAX.

**A repeated eigenvalue (or singular value).** ``F`` divides by ``w_j - w_i``. Where two
are equal (within a few units of rounding), the eigenvectors of that eigenspace are not
unique, and the gradient through them is defined only for a loss that does not depend on
the basis chosen (the projector onto the eigenspace, the eigenvalues alone): then the
numerator is 0 too and that term is taken as 0. Otherwise the rule raises a
``ValueError`` naming the op and the eigenvalues, never a silent NaN. The eigenvalues and
singular values on their own are always differentiable.

References:
    M. B. Giles, "Collected matrix derivative results for forward and reverse mode
    algorithmic differentiation" (2008), "Eigenvalues and eigenvectors"; I. Murray,
    "Differentiation of the Cholesky decomposition" (2016); J. Townsend,
    "Differentiating the singular value decomposition" (2016).
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

import numpy as np

from minitorch.core import Function, Operand, Variable
from minitorch.core.function import Ops, Value
from minitorch.ops.einsum import Einsum
from minitorch.ops.linalg_solve import Solve, check_matrices, linalg_error, mT

Shape = tuple[int, ...]


def _array(v: Value) -> np.ndarray:
    """The ndarray of a value (Variables in the graph path, ndarrays on the fast path)."""
    return v.data if isinstance(v, Variable) else np.asarray(v)


def _sym(xp: Ops, x: Value) -> Value:
    return (x + mT(xp, x)) * 0.5


def _phi(x: Value) -> Value:
    """The lower triangle of each matrix with its diagonal halved."""
    n = x.shape[-1]
    dtype = _array(x).dtype
    return x * (np.tril(np.ones((n, n), dtype=dtype)) - np.eye(n, dtype=dtype) / 2)


def _diag_embed(xp: Ops, v: Value) -> Value:
    """``(*, n)`` -> ``(*, n, n)``: each vector on the diagonal of a matrix."""
    n = v.shape[-1]
    return xp.reshape(v, v.shape[:-1] + (1, n)) * np.eye(n, dtype=_array(v).dtype)


def _diagonal(xp: Ops, x: Value) -> Value:
    return xp.apply(Einsum("...ii->...i"), x)


def _mixing_direction_message(op: str, values: list[float]) -> str:
    """Forward mode at a repeated eigenvalue (singular value), in a direction that mixes
    its eigenspace: there the values split, so not even each value has a derivative."""
    space, block = ("eigenspace", "V^T dA V") if op == "eigh" else ("subspace", "U^T dA V")
    return (
        f"{op}: repeated values {values}, and the tangent direction mixes their {space} "
        f"({block} is not diagonal there): in that direction the repeated values split, so "
        "neither each value nor the vectors have a derivative. Forward mode "
        f"(jvp, jacfwd, hessian) computes every output of {op} in each direction, whatever "
        "is used later; for a function of the values that is smooth (their sum, a trace), "
        "take its gradient by reverse mode (grad, jacrev)"
    )


def inverse_gaps(xp: Ops, w: Value, numerator: Value, op: str, tangent: bool = False) -> Value:
    """``F_ij = 1 / (w_j - w_i)`` off the diagonal, ready to multiply ``numerator``.

    Diagonal entries are 0. A pair with ``w_i == w_j`` (within rounding) gets 0 when its
    numerator is 0 too (a loss that does not depend on the basis of the eigenspace, or
    a tangent direction that does not mix it); otherwise the derivative is undefined and
    this raises. ``tangent``: called by a forward-mode rule, whose direction is the
    numerator.

    Raises:
        ValueError: naming ``op`` and the repeated values.
    """
    w_data, num = _array(w), _array(numerator)
    n = w_data.shape[-1]
    gap = w_data[..., None, :] - w_data[..., :, None]
    scale = np.abs(w_data).max(axis=-1, keepdims=True)[..., None] if w_data.size else 0.0
    eps = np.finfo(w_data.dtype).eps
    tied = (np.abs(gap) <= 8 * n * eps * scale) & ~np.eye(n, dtype=bool)
    if tied.any():
        num_scale = np.abs(num).max(axis=(-2, -1), keepdims=True)
        if (np.abs(num) > np.sqrt(eps) * num_scale)[tied].any():
            values = w_data[..., :, None].repeat(n, -1)[tied][:4]
            if tangent:
                raise ValueError(_mixing_direction_message(op, np.unique(values).tolist()))
            raise ValueError(
                f"{op}: repeated values {np.unique(values).tolist()}: the gradient through "
                "the vectors of a repeated eigenvalue (singular value) depends on the basis "
                "chosen for its eigenspace, so it is undefined; differentiate a quantity "
                "that does not depend on that basis (the values, a projector)"
            )
    skip = (tied | np.eye(n, dtype=bool)).astype(w_data.dtype)  # constants: F is 0 there
    row = xp.reshape(w, w.shape[:-1] + (1, n))
    column = xp.reshape(w, w.shape[:-1] + (n, 1))
    return (1 - skip) / (row - column + skip)


def factors(xp: Ops, a: Value, y: tuple[Value, ...], again: Function) -> Any:
    """The outputs ``y`` of a decomposition of ``a``, for its rule.

    An output the caller dropped (only ``w`` of ``eigh`` kept) is ``None`` in ``y``
    (outputs are held weakly), yet the rule needs it: then the decomposition is computed
    again by ``again`` (a fresh instance), as an op under ``create_graph``.
    """
    return xp.apply(again, a) if any(v is None for v in y) else y


class Cholesky(Function):
    """L = chol(A);  dL = L Phi(L^-1 dA L^-T),  gA = sym(L^-T Phi(L^T gL) L^-1)."""

    saves = ("output",)

    def forward(self, a: np.ndarray) -> np.ndarray:
        check_matrices("cholesky", a)
        try:
            return np.linalg.cholesky(a)
        except np.linalg.LinAlgError as exc:
            raise linalg_error("cholesky", a, exc) from None

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gy: Value) -> Value:
        low_t = mT(xp, y)  # y = L
        left = xp.apply(Solve(), low_t, _phi(low_t @ gy))  # L^-T Phi(L^T gL)
        return _sym(xp, mT(xp, xp.apply(Solve(), low_t, mT(xp, left))))  # ... L^-1

    def jvp(self, xs: list[Variable], y: Variable, ta: Variable) -> Variable:
        low, xp = y, self.graph_ops
        inner = Solve()(low, _sym(xp, ta))  # L^-1 dA
        inner = mT(xp, Solve()(low, mT(xp, inner)))  # L^-1 dA L^-T
        return low @ _phi(inner)  # type: ignore[no-any-return]


def cholesky(a: Operand, upper: bool = False) -> Variable:
    """The Cholesky factor of a symmetric positive-definite matrix (``np.linalg.cholesky``).

    ``a = L @ L.T`` with ``L`` lower triangular (``upper=True``: ``U = L.T``, ``a = U.T @
    U``). As NumPy, only one triangle of ``a`` is read; the gradient is the symmetric
    matrix of a symmetric perturbation (PyTorch's and JAX's convention).

    Shapes:
        ``(*, n, n)`` -> ``(*, n, n)``.

    Raises:
        ValueError: if the last two dimensions are not square.
        numpy.linalg.LinAlgError: if a matrix is not positive definite (names the op).
        TypeError: for complex input (out of scope).

    Example:
        >>> cholesky(Variable(np.array([[4.0, 2.0], [2.0, 2.0]])))
        variable([[2. 0.]
                  [1. 1.]])

    References:
        Murray (2016).
    """
    low = Cholesky()(a)
    return mT(Function.graph_ops, low) if upper else low  # type: ignore[no-any-return]


class EighResult(NamedTuple):
    """``eigh``'s outputs, named as NumPy's ``EighResult``."""

    eigenvalues: Variable
    eigenvectors: Variable


class Eigh(Function):
    """(w, V) = eigh(A);  gA = V (diag(gw) + F o skew(V^T gV)) V^T,  F_ij = 1/(w_j - w_i)."""

    def __init__(self, uplo: Literal["L", "U"]) -> None:
        self.uplo: Literal["L", "U"] = uplo

    def forward(self, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        check_matrices("eigh", a)
        w, v = np.linalg.eigh(a, UPLO=self.uplo)
        return w, v

    def vjp(self, xp: Ops, xs: tuple[Value], y: Any, gw: Value, gv: Value) -> Value:
        w, v = factors(xp, xs[0], y, Eigh(self.uplo))
        k = mT(xp, v) @ gv
        skew = (k - mT(xp, k)) * 0.5
        inner = _diag_embed(xp, gw) + inverse_gaps(xp, w, skew, "eigh") * skew
        return v @ inner @ mT(xp, v)

    def jvp(self, xs: list[Variable], y: Any, ta: Variable) -> tuple[Variable, Variable]:
        w, v = y
        xp = self.graph_ops
        m = mT(xp, v) @ _sym(xp, ta) @ v
        return _diagonal(xp, m), v @ (inverse_gaps(xp, w, m, "eigh", tangent=True) * m)


def eigh(a: Operand, UPLO: Literal["L", "U"] = "L") -> EighResult:  # noqa: N803 (NumPy's name)
    """Eigenvalues (ascending) and eigenvectors of a symmetric matrix (``np.linalg.eigh``).

    ``a = V @ diag(w) @ V.T``. ``UPLO`` says which triangle is read (``"L"`` or ``"U"``,
    as NumPy); the gradient is the symmetric matrix of a symmetric perturbation. The
    eigenvalues are always differentiable; the eigenvectors of a repeated eigenvalue are
    differentiable only in ways that do not depend on their basis (otherwise the
    gradient raises a ``ValueError``, see the module docstring). An eigenvector's sign
    is arbitrary (LAPACK's choice): differentiate sign-invariant quantities.

    Shapes:
        ``(*, n, n)`` -> eigenvalues ``(*, n)``, eigenvectors ``(*, n, n)`` (columns).

    Raises:
        ValueError: if the last two dimensions are not square, ``UPLO`` is not ``"L"`` or
            ``"U"``, or (in the gradient) a repeated eigenvalue meets a basis-dependent
            loss.
        TypeError: for complex input (out of scope).

    Example:
        >>> eigh(Variable(np.array([[2.0, 0.0], [0.0, 1.0]]))).eigenvalues
        variable([1. 2.])

    References:
        Giles (2008), "Eigenvalues and eigenvectors".
    """
    if UPLO not in ("L", "U"):
        raise ValueError(f"eigh: UPLO must be 'L' or 'U', got {UPLO!r}")
    w, v = Eigh(UPLO)(a)
    return EighResult(w, v)


class SVDResult(NamedTuple):
    """``svd``'s outputs, named as NumPy's ``SVDResult``."""

    U: Variable  # noqa: N815 (NumPy's names)
    S: Variable  # noqa: N815
    Vh: Variable  # noqa: N815


class SVD(Function):
    """(U, s, Vh) = svd(A), reduced or full;  Townsend's rules (reduced, or square)."""

    def __init__(self, full_matrices: bool) -> None:
        self.full_matrices = full_matrices

    def forward(self, a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        check_matrices("svd", a, square=False)
        u, s, vh = np.linalg.svd(a, full_matrices=self.full_matrices)
        return u, s, vh

    def _check_unique(self, *gs: Value) -> None:
        m, n = self.inputs[0].shape[-2:]
        if self.full_matrices and m != n and any(_array(g).any() for g in gs):
            raise ValueError(
                f"svd: with full_matrices=True the extra columns of U or rows of Vh of a "
                f"{m}x{n} matrix are not unique, so their gradient is undefined; use "
                "full_matrices=False"
            )

    def vjp(self, xp: Ops, xs: tuple[Value], y: Any, gu: Value, gs: Value, gvh: Value) -> Value:
        (a,) = xs
        u, s, vh = factors(xp, a, y, SVD(self.full_matrices))
        self._check_unique(gu, gvh)
        k = s.shape[-1]
        if self.full_matrices:  # the reduced factors (the rest has no gradient, checked)
            u, vh, gu, gvh = u[..., :k], vh[..., :k, :], gu[..., :k], gvh[..., :k, :]
        v, gv = mT(xp, vh), mT(xp, gvh)
        x = mT(xp, u) @ gu
        y = mT(xp, v) @ gv
        x, y = x - mT(xp, x), y - mT(xp, y)
        s_row = xp.reshape(s, s.shape[:-1] + (1, k))
        s_col = xp.reshape(s, s.shape[:-1] + (k, 1))
        numerator = x * s_row + s_col * y
        inner = inverse_gaps(xp, s * s, numerator, "svd") * numerator + _diag_embed(xp, gs)
        ga = u @ inner @ vh
        m, n = a.shape[-2:]
        if m > k:  # (I - U U^T) gU S^-1 V^T: the part of gU outside the range of U
            ga = ga + (gu / s_row - u @ (mT(xp, u) @ gu / s_row)) @ vh
        if n > k:  # U S^-1 gV^T (I - V V^T)
            ga = ga + u @ (mT(xp, gv) / s_col - (mT(xp, gv) / s_col @ v) @ vh)
        return ga

    def jvp(self, xs: list[Variable], y: Any, ta: Variable) -> tuple[Variable, Variable, Variable]:
        u, s, vh = y
        self._check_unique(np.ones(1))
        xp = self.graph_ops
        k = s.shape[-1]
        v = mT(xp, vh)
        dp = mT(xp, u) @ ta @ v  # U^T dA V
        s_row = xp.reshape(s, s.shape[:-1] + (1, k))
        s_col = xp.reshape(s, s.shape[:-1] + (k, 1))
        num_u = dp * s_row + s_col * mT(xp, dp)
        num_v = s_col * dp + mT(xp, dp) * s_row
        du = u @ (inverse_gaps(xp, s * s, num_u, "svd", tangent=True) * num_u)
        dv = v @ (inverse_gaps(xp, s * s, num_v, "svd", tangent=True) * num_v)
        m, n = ta.shape[-2:]
        if m > k:
            du = du + (ta @ v - u @ dp) / s_row
        if n > k:
            dv = dv + (mT(xp, ta) @ u - v @ mT(xp, dp)) / s_row
        return du, _diagonal(xp, dp), mT(xp, dv)


class SingularValues(Function):
    """s = svd(A, compute_uv=False);  ds = diag(U^T dA V),  gA = U diag(gs) V^T."""

    saves = ("inputs",)

    def forward(self, a: np.ndarray) -> np.ndarray:
        check_matrices("svd", a, square=False)
        return np.linalg.svd(a, compute_uv=False)

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gs: Value) -> Value:
        (a,) = xs
        u, _, vh = xp.apply(SVD(False), a)  # recomputed: differentiable under create_graph
        return (u * xp.reshape(gs, gs.shape[:-1] + (1, gs.shape[-1]))) @ vh

    def jvp(self, xs: list[Variable], y: Variable, ta: Variable) -> Variable:
        (a,) = xs
        u, _, vh = SVD(False)(a)
        return Einsum("...ij,...ik,...jk->...j")(u, ta, vh)  # type: ignore[no-any-return]


def svd(a: Operand, full_matrices: bool = True, compute_uv: bool = True) -> Any:
    """Singular value decomposition ``a = U @ diag(S) @ Vh`` (``np.linalg.svd``), batched.

    With NumPy's defaults (``full_matrices=True``), ``U`` is ``(*, m, m)`` and ``Vh`` is
    ``(*, n, n)``; their extra columns (rows) are not unique, so the gradient through them
    raises a ``ValueError`` for a non-square matrix: use ``full_matrices=False`` to
    differentiate ``U`` or ``Vh``. ``compute_uv=False`` returns the singular values alone
    (descending), always differentiable. Repeated singular values: see the module
    docstring (a basis-dependent loss raises ``ValueError``, never NaN); a zero singular
    value of a non-square matrix makes the ``U``/``Vh`` gradient infinite.

    Shapes:
        ``(*, m, n)``, ``k = min(m, n)`` -> U ``(*, m, k or m)``, S ``(*, k)``,
        Vh ``(*, k or n, n)``; or S alone.

    Returns:
        An ``SVDResult(U, S, Vh)`` of Variables, or the Variable ``S``.

    Raises:
        ValueError: if ``a`` has fewer than 2 dimensions; in the gradient, see above.
        TypeError: for complex input (out of scope).

    Example:
        >>> svd(Variable(np.array([[3.0, 0.0], [0.0, -4.0]])), compute_uv=False)
        variable([4. 3.])

    References:
        Townsend (2016).
    """
    if not compute_uv:
        return SingularValues()(a)
    u, s, vh = SVD(full_matrices)(a)
    return SVDResult(u, s, vh)
