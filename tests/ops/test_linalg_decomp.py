"""Op table for minitorch/ops/linalg_decomp.py and linalg_norm.py: cholesky, eigh, svd,
norm, against numpy.linalg and torch.linalg (float64), and the degenerate spectrum.

cholesky and eigh read one triangle of their input; the rows differentiate them through
``sym(a) = (a + a^T) / 2`` so that every entry of ``a`` matters and finite differences,
PyTorch and minitorch answer the same question. Eigenvectors and singular vectors are
compared through sign-invariant quantities (their squares), since LAPACK picks the signs.
"""

from __future__ import annotations

import numpy as np
import pytest
from op_harness import OpCase, OpTableTests

import minitorch.ops as F
from minitorch import Variable
from minitorch.gradcheck import gradcheck, gradgradcheck


def _torch():
    import torch

    return torch


def sym(a):
    return (a + a.swapaxes(-1, -2)) / 2 if isinstance(a, np.ndarray) else _sym_any(a)


def _sym_any(a):
    if isinstance(a, Variable):
        return (a + F.transpose(a, tuple(range(a.ndim - 2)) + (a.ndim - 1, a.ndim - 2))) / 2
    return (a + a.mT) / 2  # a torch tensor


def spd(*shapes):
    """Symmetric positive-definite matrices with well separated eigenvalues."""

    def make(rng):
        out = []
        for shape in shapes:
            n = shape[-1]
            q, _ = np.linalg.qr(rng.standard_normal(shape))
            w = np.linspace(1.0, 3.0, n) + rng.uniform(0, 0.1, shape[:-1])
            out.append(q @ (w[..., :, None] * q.swapaxes(-1, -2)))
        return out

    return make


W34, W33, W35 = (
    np.arange(1.0, 1.0 + m * n).reshape(m, n) / 7 for m, n in [(4, 3), (3, 3), (3, 5)]
)


def svd_loss(lib, a, weights):
    """A sign-invariant function of U, S and Vh (reduced)."""
    wu, wv = weights
    if lib == "torch":
        u, s, vh = _torch().linalg.svd(a, full_matrices=False)
        wu, wv = _torch().tensor(wu), _torch().tensor(wv)
    else:
        u, s, vh = F.svd(a, full_matrices=False)
        wu, wv = wu.astype(a.dtype), wv.astype(a.dtype)  # float32 stays float32
    return (u * u * wu).sum() + (vh * vh * wv).sum() + (s * s).sum()


def eigh_loss(lib, a, uplo="L"):
    """A sign-invariant function of the eigenvalues and eigenvectors of sym(a)."""
    w = np.arange(1.0, 1.0 + a.shape[-1] ** 2).reshape(a.shape[-1], -1) / 5
    if lib == "torch":
        vals, vecs = _torch().linalg.eigh(_sym_any(a), UPLO=uplo)
        w = _torch().tensor(w)
    else:
        vals, vecs = F.eigh(sym(a), UPLO=uplo)
        w = w.astype(a.dtype)
    return (vecs * vecs * w).sum() + (vals**3).sum()


CASES = [
    OpCase(
        "cholesky",
        lambda a: F.cholesky(sym(a)),
        lambda a: np.linalg.cholesky(sym(a)),
        make=spd((3, 3)),
        torch_fn=lambda a: _torch().linalg.cholesky(_sym_any(a)),
    ),
    OpCase(
        "cholesky_batched_upper",
        lambda a: F.cholesky(sym(a), upper=True),
        lambda a: np.linalg.cholesky(sym(a), upper=True),
        make=spd((2, 3, 3)),
        torch_fn=lambda a: _torch().linalg.cholesky(_sym_any(a), upper=True),
    ),
    OpCase(
        "eigh_values",
        lambda a: F.eigh(sym(a)).eigenvalues,
        lambda a: np.linalg.eigh(sym(a)).eigenvalues,
        make=spd((2, 3, 3)),
        torch_fn=lambda a: _torch().linalg.eigvalsh(_sym_any(a)),
    ),
    OpCase(
        "eigh_vectors_squared",
        lambda a: F.eigh(sym(a)).eigenvectors ** 2,
        lambda a: np.linalg.eigh(sym(a)).eigenvectors ** 2,
        make=spd((3, 3)),
        torch_fn=lambda a: _torch().linalg.eigh(_sym_any(a)).eigenvectors ** 2,
    ),
    OpCase(
        "eigh_upper",
        lambda a: eigh_loss("minitorch", a, "U"),
        lambda a: (
            (
                np.linalg.eigh(sym(a), UPLO="U").eigenvectors ** 2
                * np.arange(1.0, 10.0).reshape(3, 3)
                / 5
            ).sum()
            + (np.linalg.eigvalsh(sym(a)) ** 3).sum()
        ),
        make=spd((3, 3)),
        torch_fn=lambda a: eigh_loss("torch", a, "U"),
    ),
    OpCase(
        "svdvals_tall",
        lambda a: F.svd(a, compute_uv=False),
        lambda a: np.linalg.svd(a, compute_uv=False),
        ((4, 3),),
        torch_fn=lambda a: _torch().linalg.svdvals(a),
    ),
    OpCase(
        "svdvals_batched_wide",
        lambda a: F.svd(a, compute_uv=False),
        lambda a: np.linalg.svd(a, compute_uv=False),
        ((2, 3, 5),),
        torch_fn=lambda a: _torch().linalg.svdvals(a),
    ),
    *[
        OpCase(
            f"svd_vectors{shape}",
            lambda a, w=w: svd_loss("minitorch", a, w),
            lambda a, w=w: (
                (np.linalg.svd(a, full_matrices=False)[0] ** 2 * w[0]).sum()
                + (np.linalg.svd(a, full_matrices=False)[2] ** 2 * w[1]).sum()
                + (np.linalg.svd(a, compute_uv=False) ** 2).sum()
            ),
            (shape,),
            torch_fn=lambda a, w=w: svd_loss("torch", a, w),
        )
        for shape, w in [((4, 3), (W34, W33)), ((3, 3), (W33, W33)), ((3, 5), (W33, W35))]
    ],
]

NORMS = [
    ((5,), {}),
    ((5,), {"ord": 1}),
    ((5,), {"ord": np.inf}),
    ((5,), {"ord": -np.inf}),
    ((5,), {"ord": 3}),
    ((3, 4), {}),
    ((3, 4), {"ord": "fro"}),
    ((3, 4), {"ord": "nuc"}),
    ((3, 4), {"ord": 2}),
    ((3, 4), {"ord": -2}),
    ((3, 4), {"ord": 1}),
    ((3, 4), {"ord": -1}),
    ((3, 4), {"ord": np.inf}),
    ((3, 4), {"ord": -np.inf}),
    ((2, 3, 4), {"axis": 1}),
    ((2, 3, 4), {"axis": -1, "ord": 3, "keepdims": True}),
    ((2, 3, 4), {"axis": (0, 2)}),
    ((2, 3, 4), {"axis": (2, 1), "ord": "nuc", "keepdims": True}),
    ((2, 3, 4), {"axis": (1, 2), "ord": np.inf}),
    ((2, 3, 4), {"keepdims": True}),
]


def _torch_norm(kw):
    def call(x):
        args = {"ord": kw.get("ord"), "dim": kw.get("axis"), "keepdim": kw.get("keepdims", False)}
        if args["ord"] is None and args["dim"] is None and x.ndim > 2:
            return (
                _torch()
                .linalg.norm(x.flatten(), keepdim=False)
                .reshape((1,) * x.ndim if args["keepdim"] else ())
            )
        return _torch().linalg.norm(x, **args)

    return call


CASES += [
    OpCase(
        f"norm{shape}{kw}",
        lambda x, kw=kw: F.norm(x, **kw),
        lambda x, kw=kw: np.linalg.norm(x, **kw),
        (shape,),
        torch_fn=_torch_norm(kw),
    )
    for shape, kw in NORMS
]


class TestLinalgDecompTable(OpTableTests):
    cases = CASES


def test_cholesky_gradient_is_pytorchs_symmetric_one():
    torch = pytest.importorskip("torch")
    a = spd((3, 3))(np.random.default_rng(4))[0]
    w = np.arange(9.0).reshape(3, 3)
    x = Variable(a.copy())
    (F.cholesky(x) * w).sum().backward()
    t = torch.tensor(a, requires_grad=True)
    (torch.linalg.cholesky(t) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.data, t.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(x.grad.data, x.grad.data.T, rtol=1e-12)


def test_eigh_reads_the_triangle_uplo_names():
    a = np.array([[2.0, 100.0], [1.0, 3.0]])  # not symmetric: the triangles differ
    for uplo in ("L", "U"):
        np.testing.assert_allclose(
            F.eigh(a, UPLO=uplo).eigenvalues.data, np.linalg.eigh(a, UPLO=uplo).eigenvalues
        )
    with pytest.raises(ValueError, match="eigh: UPLO must be 'L' or 'U'"):
        F.eigh(a, UPLO="X")


# -- a repeated eigenvalue: a documented result or a clear error, never NaN ------------
def _degenerate(rng):
    q, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    return q @ np.diag([1.0, 1.0, 3.0]) @ q.T


def test_eigenvalues_of_a_repeated_spectrum_are_differentiable():
    a = Variable(_degenerate(np.random.default_rng(5)))
    (F.eigh(a).eigenvalues ** 2).sum().backward()  # d tr(A^2) = 2 A
    np.testing.assert_allclose(a.grad.data, 2 * a.data, rtol=1e-10, atol=1e-12)


def test_eigenvectors_of_a_repeated_eigenvalue_raise_for_a_basis_dependent_loss():
    a = Variable(_degenerate(np.random.default_rng(5)))
    vectors = F.eigh(a).eigenvectors
    with pytest.raises(ValueError, match=r"eigh: repeated values \[1.0"):
        (vectors[:, 0] ** 3).sum().backward()


def test_the_projector_onto_a_repeated_eigenspace_has_its_exact_gradient():
    a = _degenerate(np.random.default_rng(5))
    w = np.arange(9.0).reshape(3, 3)

    def projector_loss(x):
        v = F.eigh(sym(x)).eigenvectors[:, :2]
        return ((v @ v.T) * w).sum()

    assert gradcheck(projector_loss, a)
    x = Variable(a.copy())
    projector_loss(x).backward()
    assert np.isfinite(x.grad.data).all()


def test_svd_of_repeated_singular_values():
    a = np.linalg.qr(np.random.default_rng(6).standard_normal((3, 3)))[0]  # all s = 1
    x = Variable(a.copy())
    F.svd(x, compute_uv=False).sum().backward()  # the nuclear norm: d = U V^T = a
    np.testing.assert_allclose(x.grad.data, a, rtol=1e-10, atol=1e-12)
    x = Variable(a.copy())
    with pytest.raises(ValueError, match="svd: repeated values"):
        (F.svd(x).U[0] ** 3).sum().backward()


def test_svd_full_matrices_of_a_non_square_matrix_refuses_the_vector_gradient():
    x = Variable(np.random.default_rng(7).standard_normal((4, 3)))
    result = F.svd(x)
    assert result.U.shape == (4, 4) and result.Vh.shape == (3, 3)
    with pytest.raises(ValueError, match="full_matrices=False"):
        (result.U**2).sum().backward()
    x.clear_grad()
    F.svd(x).S.sum().backward()  # the singular values alone are fine
    assert np.isfinite(x.grad.data).all()


def test_svd_result_has_numpys_fields_and_values():
    a = np.random.default_rng(8).standard_normal((2, 4, 3))
    u, s, vh = F.svd(a, full_matrices=False)
    np.testing.assert_allclose((u.data * s.data[..., None, :]) @ vh.data, a, atol=1e-12)


def test_norm_gradient_at_zero_is_zero():
    for kw in ({}, {"ord": "fro"}, {"axis": 0}):
        x = Variable(np.zeros((2, 2)))
        F.norm(x, **kw).sum().backward()
        np.testing.assert_array_equal(x.grad.data, np.zeros((2, 2)))


def test_norm_ord_zero_counts_nonzeros_without_gradient():
    y = F.norm(np.array([0.0, 2.0, -1.0]), ord=0)
    assert y.data == 2.0 and y.creator is None


def test_norm_errors_name_the_op():
    with pytest.raises(ValueError, match="norm: ord='fro' is a matrix norm"):
        F.norm(np.ones(3), ord="fro")
    with pytest.raises(ValueError, match="norm: ord=2 needs a 1-D or 2-D x"):
        F.norm(np.ones((2, 2, 2)), ord=2)
    with pytest.raises(ValueError, match="norm: invalid ord 3"):
        F.norm(np.ones((2, 2)), ord=3)


@pytest.mark.parametrize("op", [F.cholesky, F.eigh, F.svd, F.norm], ids=lambda op: op.__name__)
def test_complex_input_is_refused_naming_the_op(op):
    with pytest.raises(TypeError, match=rf"{op.__name__}: complex input"):
        op(np.eye(2) * (1 + 1j))


def test_decompositions_differentiate_twice():
    rng = np.random.default_rng(9)
    a = spd((3, 3))(rng)[0]
    assert gradgradcheck(lambda x: F.cholesky(sym(x)).sum(), a)
    assert gradgradcheck(lambda x: eigh_loss("minitorch", x), a)


@pytest.mark.parametrize(
    ("torch_name", "numpy_name"),
    [("asin", "arcsin"), ("atan2", "arctan2"), ("inverse", "inv"), ("svdvals", "svd")],
)
def test_pytorch_names_point_to_numpys(torch_name, numpy_name):
    with pytest.raises(AttributeError, match=rf"did you mean {numpy_name}"):
        getattr(F, torch_name)
