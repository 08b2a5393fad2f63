"""``Variable.unchain()`` on an intermediate: a leaf for every op it fed, whatever its size.

An op that does not read an input keeps only its edge (``saved.Unsaved``) above 1 KiB, so
the cut is noted on the creator and applied by the graph walks (``saved.put_back_cut``):
backward, ``autograd.grad``, ``create_graph``, forward mode and pictures must all see it.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch.ops as F
from minitorch import Function, Variable


class Split2(Function):
    """Two outputs: the first two elements and the rest (a test-only multi-output op)."""

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return x[:2].copy(), x[2:].copy()

    def backward(self, gp: Variable, gq: Variable) -> Variable:
        return F.concatenate([gp, gq], axis=0)


def test_an_unchained_output_of_a_two_output_function_is_a_leaf() -> None:
    # Found by a fresh-user trial: a leaf's pending sum was popped as the old creator's
    # output gradient (KeyError at the end of the pass).
    x = Variable(np.array([1.0, 2.0, 3.0, 4.0]), name="x")
    p, q = Split2()(x)
    p.unchain()
    F.sum(p * q).backward()
    np.testing.assert_array_equal(p.grad.data, [3.0, 4.0])  # d sum(p q) / dp = q
    np.testing.assert_array_equal(x.grad.data, [0.0, 0.0, 1.0, 2.0])  # only q's part


@pytest.mark.parametrize("small_value", [-1, 1024])  # every unsaved input an edge / as shipped
@pytest.mark.parametrize("n", [4, 200])  # 32 bytes, 1,600 bytes
@pytest.mark.parametrize("keep_h", [True, False])
def test_unchain_on_an_intermediate_cuts_every_op_it_fed(
    monkeypatch: pytest.MonkeyPatch, small_value: int, n: int, keep_h: bool
) -> None:
    # Found by a fresh-user trial: Add keeps neither input, so above 1 KiB it held only h's
    # edge, which still led to h's creator after h.unchain(): x got a gradient.
    from minitorch.core import graph, saved

    monkeypatch.setattr(saved, "SMALL_VALUE", small_value)
    x = Variable(np.full(n, 2.0), name="x")
    h = x * 3.0
    y = F.sum(h + 1.0) + F.sum(F.sin(h))  # Add holds h (or its edge); Sin saves h
    h.unchain()
    walked = sorted(type(f).__name__ for f in graph.functions(y))
    assert walked == ["Add", "Add", "Sin", "Sum", "Sum"]  # not h's Mul
    if not keep_h:
        del h
    y.backward()
    assert x.grad is None
    if keep_h:  # a leaf now, for both ops: d/dh = 1 + cos(h)
        np.testing.assert_allclose(h.grad.data, 1.0 + np.cos(np.full(n, 6.0)))


def test_unchain_on_one_output_of_two_leaves_the_other_connected(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from minitorch.core import saved

    monkeypatch.setattr(saved, "SMALL_VALUE", -1)

    x = Variable(np.array([1.0, 2.0, 3.0, 4.0]), name="x")
    p, q = Split2()(x)
    y = F.sum((p + 0.0) * 2.0) + F.sum((q + 0.0) * 3.0)  # p and q reach Mul as edges
    p.unchain()
    del p, q
    y.backward()
    np.testing.assert_array_equal(x.grad.data, [0.0, 0.0, 3.0, 3.0])


@pytest.mark.parametrize("n", [4, 200])
def test_autograd_grad_with_respect_to_a_cut_intermediate(n: int) -> None:
    # Found by a fresh-user trial: autograd.grad's counting pass did not put the cut h
    # back in place of its edge, so h "was not used in the graph" above 1 KiB.
    from minitorch import autograd

    x = Variable(np.linspace(0.1, 1.0, n))
    h = F.exp(x)
    loss = F.sum(h * 3.0)  # Mul keeps its constant, not h: an edge (conftest)
    h.unchain()
    (gh,) = autograd.grad(loss, h, retain_graph=True)
    np.testing.assert_array_equal(gh.data, np.full(n, 3.0))
    with pytest.raises(RuntimeError, match="not used in the graph"):
        autograd.grad(loss, x)  # x is behind the cut


def _eigh_hessian_vector(cut: bool) -> tuple[np.ndarray, np.ndarray]:
    from minitorch import autograd

    rng = np.random.default_rng(1)
    a0, c, big_c = rng.normal(size=(20, 20)), rng.normal(size=20), rng.normal(size=(20, 20))
    a = Variable(a0)
    w, vectors = F.eigh(a + a.T)
    if cut:
        vectors.unchain()  # an output the loss never uses
    (ga,) = autograd.grad(F.sum(w * w * c), a, create_graph=True)
    return ga.data, autograd.grad(F.sum(ga * big_c), a)[0].data


def test_cutting_an_unused_output_leaves_second_derivatives_unchanged() -> None:
    # Found by a fresh-user trial: Eigh's create_graph backward rebuilds its output V from
    # the saved array; the cut was noted by output index, so the rebuilt V's edges read
    # as cut too and the second derivative lost terms (off by up to 59). It is noted by
    # the cut Variable's own weak reference now.
    g_plain, h_plain = _eigh_hessian_vector(cut=False)
    g_cut, h_cut = _eigh_hessian_vector(cut=True)
    np.testing.assert_array_equal(g_cut, g_plain)
    np.testing.assert_array_equal(h_cut, h_plain)


def test_a_cut_output_rebuilt_under_create_graph_stays_a_leaf() -> None:
    # Found by the same trial: a KeyError, or no V.grad, after a create_graph pass.
    a = Variable(np.random.default_rng(0).normal(size=(20, 20)))
    w, vectors = F.eigh(a + a.T)
    z = vectors + 1.0  # Add keeps only V's edge
    vectors.unchain()
    F.sum(w * w).backward(create_graph=True)  # Eigh's rule rebuilds V over its saved array
    before = a.grad.data.copy()
    F.sum(z).backward()
    np.testing.assert_array_equal(a.grad.data, before)  # nothing past the cut
    np.testing.assert_array_equal(vectors.grad.data, np.ones((20, 20)))


@pytest.mark.parametrize("n", [3, 200])
def test_forward_mode_drops_the_tangent_of_a_value_cut_before_its_use(n: int) -> None:
    import minitorch.func as mf

    def f(x: Variable) -> Variable:
        h = x * 2.0
        h.unchain()
        return F.sum(h * h) + F.sum(x)

    x, t = np.linspace(0.5, 1.0, n), np.ones(n)
    _, tangent = mf.jvp(f, (x,), (t,))
    assert float(tangent.data) == float(n)  # only sum(x) moves: d/dx of h*h is cut
    np.testing.assert_array_equal(mf.jacfwd(f)(x).data, np.ones(n))  # every direction
