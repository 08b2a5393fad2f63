"""Op table for minitorch/ops/einsum.py: explicit and implicit outputs, repeated indices
(traces, diagonals), ellipsis broadcasting, size-1 broadcasting; torch.einsum agrees."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from op_harness import OpCase, OpTableTests

import minitorch.ops as F
from minitorch import Variable
from minitorch.gradcheck import gradcheck


def row(subscripts, *shapes, torch=True):
    def torch_fn(*xs):
        import torch as t

        return t.einsum(subscripts, *xs)

    return OpCase(
        f"einsum[{subscripts}]{''.join(map(str, shapes))}",
        lambda *xs: F.einsum(subscripts, *xs),
        lambda *xs: np.einsum(subscripts, *xs),
        shapes,
        torch_fn=torch_fn if torch else None,
    )


CASES = [
    row("ij,jk->ik", (2, 3), (3, 4)),  # matmul
    row("ij,jk", (2, 3), (3, 4)),  # implicit output: ik
    row("ba", (2, 3)),  # implicit: alphabetical, a transpose
    row("ij->", (2, 3)),
    row("ij->j", (2, 3)),
    row("ii->", (3, 3)),  # trace
    row("ii->i", (3, 3)),  # diagonal
    row("iij->j", (2, 2, 3)),
    row("i,j->ij", (2,), (3,)),  # outer product
    row("i,i", (3,), (3,)),  # inner product, 0-d
    row("bij,bjk->bik", (2, 2, 3), (2, 3, 2)),
    row("...ij,...jk->...ik", (2, 2, 3), (3, 4)),  # ellipsis broadcasting
    row("...ij,...jk", (3, 1, 2, 3), (2, 3, 2)),
    row("...ii->...i", (2, 3, 3)),
    row("ij,jk,kl->il", (2, 3), (3, 2), (2, 2)),
    row("ij,ij->ij", (2, 1), (1, 3), torch=False),  # size-1 dims broadcast, as NumPy
]


class TestEinsumTable(OpTableTests):
    cases = CASES


def test_gradient_is_an_einsum():
    a = Variable(np.ones((2, 3)))
    b = Variable(np.ones((3, 4)))
    y = F.einsum("ij,jk->ik", a, b)
    y.backward()
    assert type(y.creator).__name__ == "Einsum"
    np.testing.assert_array_equal(a.grad.data, np.full((2, 3), 4.0))


def test_errors_name_the_subscripts_and_shapes():
    with pytest.raises(ValueError, match=r"einsum: 'ij,jk' with operand shapes \(2, 3\)"):
        F.einsum("ij,jk", np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"index 'j' has sizes 3 and 4"):
        F.einsum("ij,jk->ik", np.ones((2, 3)), np.ones((4, 2)))
    with pytest.raises(ValueError, match=r"'ijk' does not fit an operand of shape \(2, 3\)"):
        F.einsum("ijk->i", np.ones((2, 3)))
    with pytest.raises(TypeError, match="einsum: the first argument is the subscripts"):
        F.einsum(np.ones(3), [0])


def test_complex_input_is_refused():
    with pytest.raises(TypeError, match="einsum: complex input"):
        F.einsum("i->", np.array([1j]))


def test_integer_operands_give_numpy_dtype():
    x = np.arange(6, dtype=np.int8).reshape(2, 3)
    y = F.einsum("ij->j", x)
    assert y.dtype == np.einsum("ij->j", x).dtype


@settings(max_examples=10, deadline=None)
@given(
    batch=st.lists(st.integers(1, 3), min_size=0, max_size=2),
    n=st.integers(1, 3),
    m=st.integers(1, 3),
)
def test_batched_contraction_on_any_shape(batch, n, m):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((*batch, n, m))
    b = rng.standard_normal((m, n))
    y = F.einsum("...ij,jk->...ik", a, b)
    np.testing.assert_allclose(y.data, np.einsum("...ij,jk->...ik", a, b), rtol=1e-12)
    assert gradcheck(lambda u, v: F.einsum("...ij,jk->...ik", u, v), a, b)
