"""Op table for minitorch/ops/linalg_solve.py: solve, inv, det, slogdet, pinv, batched and
broadcast as numpy.linalg, against torch.linalg in float64."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from op_harness import OpCase, OpTableTests

import minitorch.func as mf
import minitorch.ops as F
from minitorch import Variable
from minitorch.gradcheck import gradcheck


def _linalg():
    import torch

    return torch.linalg


def well_conditioned(*shapes):
    """Square matrices ``randn + 3 I`` (eigenvalues away from 0) or plain ``randn``."""

    def make(rng):
        out = []
        for shape in shapes:
            x = rng.standard_normal(shape)
            if len(shape) >= 2 and shape[-1] == shape[-2]:
                x = x + 3 * np.eye(shape[-1])
            out.append(x)
        return out

    return make


def row(name, fn, ref, torch_fn, *shapes):
    return OpCase(name, fn, ref, shapes, make=well_conditioned(*shapes), torch_fn=torch_fn)


def _logabsdet(a):
    return F.slogdet(a).logabsdet


CASES = [
    row("inv", F.inv, np.linalg.inv, lambda a: _linalg().inv(a), (3, 3)),
    row("inv_batched", F.inv, np.linalg.inv, lambda a: _linalg().inv(a), (2, 3, 3)),
    row("det", F.det, np.linalg.det, lambda a: _linalg().det(a), (3, 3)),
    row("det_batched", F.det, np.linalg.det, lambda a: _linalg().det(a), (2, 2, 3, 3)),
    row(
        "slogdet",
        _logabsdet,
        lambda a: np.linalg.slogdet(a).logabsdet,
        lambda a: _linalg().slogdet(a).logabsdet,
        (2, 3, 3),
    ),
    OpCase(  # a negative determinant: sign -1, the log of |det| differentiable as ever
        "slogdet_negative",
        _logabsdet,
        lambda a: np.linalg.slogdet(a).logabsdet,
        make=lambda rng: [np.diag([-2.0, 1.5, 3.0]) + 0.1 * rng.standard_normal((3, 3))],
        torch_fn=lambda a: _linalg().slogdet(a).logabsdet,
    ),
    row(
        "solve_vector", F.solve, np.linalg.solve, lambda a, b: _linalg().solve(a, b), (3, 3), (3,)
    ),
    row(
        "solve_matrix",
        F.solve,
        np.linalg.solve,
        lambda a, b: _linalg().solve(a, b),
        (3, 3),
        (3, 2),
    ),
    row(  # a stack of systems sharing one right-hand side vector (broadcast)
        "solve_batched_a_vector_b",
        F.solve,
        np.linalg.solve,
        lambda a, b: _linalg().solve(a, b.expand(2, 3)),
        (2, 3, 3),
        (3,),
    ),
    row(  # one matrix, a batch of right-hand sides (the matrix's gradient is summed)
        "solve_batched_b",
        F.solve,
        np.linalg.solve,
        lambda a, b: _linalg().solve(a, b),
        (3, 3),
        (2, 3, 2),
    ),
    row("pinv_tall", F.pinv, np.linalg.pinv, lambda a: _linalg().pinv(a), (4, 3)),
    row("pinv_wide", F.pinv, np.linalg.pinv, lambda a: _linalg().pinv(a), (3, 5)),
    row("pinv_batched", F.pinv, np.linalg.pinv, lambda a: _linalg().pinv(a), (2, 4, 3)),
    row("pinv_square", F.pinv, np.linalg.pinv, lambda a: _linalg().pinv(a), (3, 3)),
]


class TestLinalgSolveTable(OpTableTests):
    cases = CASES


def test_singular_matrix_names_the_op():
    with pytest.raises(np.linalg.LinAlgError, match=r"inv: Singular matrix \(input of shape"):
        F.inv(np.ones((2, 2)))
    with pytest.raises(np.linalg.LinAlgError, match="solve: Singular matrix"):
        F.solve(np.ones((2, 2)), np.ones(2))


def test_bad_shapes_name_the_op_and_shapes():
    with pytest.raises(ValueError, match=r"inv: the last two dimensions must be square.*\(2, 3\)"):
        F.inv(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"det: expected a matrix .* got shape \(3,\)"):
        F.det(np.ones(3))
    with pytest.raises(ValueError, match=r"solve: a has shape \(3, 3\) but b has shape \(2,\)"):
        F.solve(np.eye(3), np.ones(2))


@pytest.mark.parametrize("op", [F.inv, F.det, F.pinv, F.slogdet])
def test_complex_input_is_refused_naming_the_op(op):
    with pytest.raises(TypeError, match=rf"(?i){op.__name__}: operand \d+ has dtype complex"):
        op(np.eye(2) * 1j)


def test_slogdet_returns_numpys_named_fields():
    a = np.array([[-2.0, 0.0], [0.0, 3.0]])
    result = F.slogdet(a)
    assert result.sign.data == -1.0
    np.testing.assert_allclose(result.logabsdet.data, np.log(6.0))
    sign, logabsdet = result  # unpacks as NumPy's SlogdetResult
    assert sign is result.sign


def test_det_float32_stays_float32():
    x = Variable(np.eye(2, dtype=np.float32) * 2)
    F.det(x).backward()
    assert x.grad.dtype == np.float32


@settings(max_examples=8, deadline=None)
@given(
    a_batch=st.lists(st.integers(1, 2), max_size=2),
    b_batch=st.lists(st.integers(1, 2), max_size=2),
    n=st.integers(1, 3),
)
def test_solve_broadcasts_batches_as_numpy(a_batch, b_batch, n):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((*a_batch, n, n)) + 3 * np.eye(n)
    b = rng.standard_normal((*b_batch, n, 2))
    np.testing.assert_allclose(F.solve(a, b).data, np.linalg.solve(a, b), rtol=1e-12)
    assert gradcheck(F.solve, a, b)


def test_gradient_of_det_at_a_singular_matrix_names_det():
    x = Variable(np.array([[1.0, 2.0], [2.0, 4.0]]))
    y = F.det(x)
    assert y.data == pytest.approx(0.0)
    with pytest.raises(np.linalg.LinAlgError, match=r"det: its derivative \(gradient inv\(a\).T"):
        y.backward()


@pytest.mark.parametrize("op", ["det", "slogdet"])
def test_tangent_of_det_at_a_singular_matrix_names_the_op(op: str) -> None:
    # forward mode needs inv(a) as well; the error names the op called, not inv
    f = F.det if op == "det" else (lambda a: F.slogdet(a)[1])
    a, da = np.array([[1.0, 2.0], [2.0, 4.0]]), np.ones((2, 2))
    with pytest.raises(np.linalg.LinAlgError, match=rf"^{op}: its derivative .* is singular"):
        mf.jvp(f, (a,), (da,))


def test_pinv_rcond_cuts_small_singular_values_as_numpy():
    a = np.diag([1.0, 1e-9])
    np.testing.assert_allclose(F.pinv(a, rcond=1e-6).data, np.linalg.pinv(a, rcond=1e-6))
    np.testing.assert_allclose(F.pinv(a, rcond=1e-6).data, np.diag([1.0, 0.0]))
