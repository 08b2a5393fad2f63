"""Every op's tangent rule (``Function.jvp``): against central differences in float64,
against the reverse mode (``<u, J v> == <J^T u, v>``), against PyTorch's ``torch.func``
(2.13, when installed), and at second order.

The rows live in ``op_table.py``; a test below checks that every Function class of
``minitorch.ops`` defines a rule of its own, so no op silently takes the fallback.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from op_table import TangentCase, central_difference

import minitorch.func as mf
import minitorch.ops as F
from minitorch import Function, Variable

RTOL, ATOL = 1e-6, 1e-8  # central differences in float64 with eps = 1e-6


def _data(v: object) -> np.ndarray:
    return v.data if isinstance(v, Variable) else np.asarray(v)


def _value(case: TangentCase, *xs: np.ndarray) -> np.ndarray:
    return _data(case.fn(*[Variable(np.asarray(x)) for x in xs]))


@pytest.fixture
def point(case: TangentCase, rng: np.random.Generator) -> tuple[list, list, list]:
    """The inputs, a tangent per input and a second tangent (for second order)."""
    xs = case.make(rng)
    vs = [np.asarray(rng.standard_normal(x.shape)) for x in xs]
    us = [np.asarray(rng.standard_normal(x.shape)) for x in xs]
    return xs, vs, us


def test_jvp_matches_central_differences(case: TangentCase, point: tuple) -> None:
    xs, vs, _ = point
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="jvp:", category=RuntimeWarning)
        y, ty = mf.jvp(case.fn, tuple(xs), tuple(vs))
    np.testing.assert_allclose(y.data, _value(case, *xs), rtol=1e-12, atol=1e-12)
    numeric = central_difference(lambda *a: _value(case, *a), xs, vs, 1e-6)
    assert ty.shape == y.shape and ty.dtype == y.dtype
    np.testing.assert_allclose(ty.data, numeric, rtol=RTOL, atol=ATOL)


def test_jvp_is_the_transpose_of_vjp(case: TangentCase, point: tuple) -> None:
    """Forward and reverse rules agree: ``<u, J v> = <J^T u, v>`` for random u, v."""
    xs, vs, _ = point
    _, ty = mf.jvp(case.fn, tuple(xs), tuple(vs))
    u = np.random.default_rng(7).standard_normal(ty.shape)
    _, vjp_fn = mf.vjp(case.fn, *xs)
    gxs = vjp_fn(u)
    lhs = float(np.sum(u * ty.data))
    rhs = sum(float(np.sum(g.data * v)) for g, v in zip(gxs, vs))
    assert lhs == pytest.approx(rhs, rel=1e-10, abs=1e-12)


def test_jvp_is_linear_in_the_tangent(case: TangentCase, point: tuple) -> None:
    """``J (a v + b u) = a J v + b J u``: a tangent rule must not depend on the tangent
    other than linearly (a rule that squared it, or ignored one input, fails here)."""
    xs, vs, us = point
    mixed = tuple(np.asarray(2.0 * v - 0.5 * u) for v, u in zip(vs, us))
    _, t_mixed = mf.jvp(case.fn, tuple(xs), mixed)
    _, t_v = mf.jvp(case.fn, tuple(xs), tuple(vs))
    _, t_u = mf.jvp(case.fn, tuple(xs), tuple(us))
    np.testing.assert_allclose(
        t_mixed.data, 2.0 * t_v.data - 0.5 * t_u.data, rtol=1e-11, atol=1e-12
    )


def test_float32_primals_give_float32_tangents(case: TangentCase, point: tuple) -> None:
    xs, vs, _ = point
    xs32 = tuple(x.astype(np.float32) for x in xs)
    y, ty = mf.jvp(case.fn, xs32, tuple(v.astype(np.float32) for v in vs))
    assert ty.dtype == y.dtype == np.float32
    _, ty64 = mf.jvp(case.fn, tuple(xs), tuple(vs))
    np.testing.assert_allclose(ty.data, ty64.data, rtol=2e-3, atol=2e-4)


def test_jacfwd_equals_jacrev(case: TangentCase, point: tuple) -> None:
    xs, _, _ = point
    argnums = tuple(range(len(xs)))
    forward = mf.jacfwd(case.fn, argnums=argnums)(*xs)
    reverse = mf.jacrev(case.fn, argnums=argnums)(*xs)
    for jf, jr, x in zip(forward, reverse, xs):
        assert jf.shape == _value(case, *xs).shape + x.shape
        np.testing.assert_allclose(jf.data, jr.data, rtol=1e-10, atol=1e-12)


def test_forward_over_forward_matches_differences_of_jvp(case: TangentCase, point: tuple) -> None:
    """Second order: the jvp (along u) of the jvp (along v) vs differences of the jvp."""
    if not case.smooth:
        pytest.skip("not twice differentiable at the inputs (a kink or a selection)")
    xs, vs, us = point

    def tangent(*a: object) -> Variable:
        return mf.jvp(case.fn, tuple(a), tuple(vs))[1]

    _, second = mf.jvp(tangent, tuple(xs), tuple(us))
    numeric = central_difference(lambda *a: tangent(*a).data, xs, us, 1e-5)
    np.testing.assert_allclose(second.data, numeric, rtol=1e-5, atol=1e-7)


# -- PyTorch 2.13 ------------------------------------------------------------------------
def _torch_inputs(xs: list[np.ndarray]) -> tuple:
    torch = pytest.importorskip("torch")
    return tuple(torch.tensor(x, dtype=torch.float64) for x in xs)


def test_jvp_matches_torch_func(case: TangentCase, point: tuple) -> None:
    if case.torch_fn is None:
        pytest.skip("no PyTorch counterpart")
    xs, vs, _ = point
    primals, tangents = _torch_inputs(xs), _torch_inputs(vs)
    torch = pytest.importorskip("torch")
    ref_y, ref_t = torch.func.jvp(case.torch_fn, primals, tangents)
    y, ty = mf.jvp(case.fn, tuple(xs), tuple(vs))
    np.testing.assert_allclose(y.data, ref_y.numpy(), rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(ty.data, ref_t.numpy(), rtol=1e-9, atol=1e-11)


def test_jacobians_match_torch_func(case: TangentCase, point: tuple) -> None:
    if case.torch_fn is None:
        pytest.skip("no PyTorch counterpart")
    xs, _, _ = point
    torch = pytest.importorskip("torch")
    argnums = tuple(range(len(xs)))
    ref_f = torch.func.jacfwd(case.torch_fn, argnums=argnums)(*_torch_inputs(xs))
    ref_r = torch.func.jacrev(case.torch_fn, argnums=argnums)(*_torch_inputs(xs))
    ours_f = mf.jacfwd(case.fn, argnums=argnums)(*xs)
    ours_r = mf.jacrev(case.fn, argnums=argnums)(*xs)
    for mine_f, mine_r, tf, tr in zip(ours_f, ours_r, ref_f, ref_r):
        np.testing.assert_allclose(mine_f.data, tf.numpy(), rtol=1e-9, atol=1e-11)
        np.testing.assert_allclose(mine_r.data, tr.numpy(), rtol=1e-9, atol=1e-11)


def test_hessian_matches_torch_func(case: TangentCase, point: tuple) -> None:
    """Second order against PyTorch: the Hessian of ``sum(w * f(x))`` (forward-over-reverse)."""
    if case.torch_fn is None or not case.smooth:
        pytest.skip("no PyTorch counterpart, or not twice differentiable")
    xs, _, _ = point
    torch = pytest.importorskip("torch")
    w = np.random.default_rng(11).standard_normal(_value(case, *xs).shape)
    w_t = torch.tensor(w)
    argnums = tuple(range(len(xs)))

    def loss(*a: object) -> object:
        return (case.torch_fn(*a) * w_t).sum()

    if case.torch_func_hessian:
        ref = torch.func.hessian(loss, argnums=argnums)(*_torch_inputs(xs))
    else:
        ref = torch.autograd.functional.hessian(loss, _torch_inputs(xs))
    ours = mf.hessian(lambda *a: (case.fn(*a) * w).sum(), argnums=argnums)(*xs)
    for i in argnums:
        for j in argnums:
            np.testing.assert_allclose(ours[i][j].data, ref[i][j].numpy(), rtol=1e-8, atol=1e-10)


# -- coverage ----------------------------------------------------------------------------
def _minitorch_function_classes() -> list[type[Function]]:
    """Every Function subclass that minitorch itself defines (ops, core, func)."""
    import minitorch.core.backward  # noqa: F401 (imported lazily by Variable.backward)
    import minitorch.func  # noqa: F401 (its Primal is a Function too)
    import minitorch.ops  # noqa: F401

    found, pending = set(), list(Function.__subclasses__())
    while pending:
        cls = pending.pop()
        pending += cls.__subclasses__()
        if cls.__module__.startswith("minitorch."):
            found.add(cls)
    return sorted(found, key=lambda c: c.__name__)


def test_every_op_function_has_its_own_tangent_rule() -> None:
    classes = _minitorch_function_classes()
    assert len(classes) > 30  # the walk found the ops (guards against an empty pass)
    missing = [c.__name__ for c in classes if c.jvp is Function.jvp]
    assert missing == []


def test_jvp_of_astype_converts_the_tangent() -> None:
    x = np.array([1.5, -2.0])
    y, ty = mf.jvp(lambda v: F.astype(v, np.float32), (x,), (np.array([1.0, 3.0]),))
    assert ty.dtype == np.float32 and y.dtype == np.float32
    np.testing.assert_array_equal(ty.data, np.array([1.0, 3.0], np.float32))


# -- the Functions that only backward passes create (their rules run at second order) ----
def test_max_pool_backward_has_a_tangent_rule() -> None:
    """hessian = jacfwd(jacrev): forward mode runs through MaxPool2dGrad (pooling's
    backward). ``sum(w * pool(x)**2)`` has the Hessian ``2 w_k`` at each window's winner."""
    x = np.array([[[[0.1, 0.9, -0.3], [0.4, -0.8, 0.2], [0.7, 0.05, -0.6]]]])
    w = np.array([[[[1.5, -2.0], [0.5, 3.0]]]])
    hess = mf.hessian(lambda v: (w * F.max_pool2d(v, 2, stride=1) ** 2).sum())(x).data
    expected = np.zeros((9, 9))
    for k, winner in enumerate([1, 1, 6, 5]):  # flat index of each window's maximum
        expected[winner, winner] += 2 * w.reshape(-1)[k]
    np.testing.assert_allclose(hess.reshape(9, 9), expected, rtol=1e-13, atol=1e-14)


def test_slice_backward_has_a_tangent_rule() -> None:
    """SliceAxisGrad (the backward of concatenate's backward) meets a tangent when the
    gradient of ``f(x) = sum(w * concatenate([x, x])**3)`` is weighted by ``sin x``:
    ``k(x) = sum(grad f(x) * sin x)``. With ``c_i = w_i + w_{i+2}``,
    ``k = sum 3 c_i x_i^2 sin x_i``, whose Hessian is diagonal."""
    x, w = np.array([0.5, -1.0]), np.array([1.0, 2.0, -0.5, 3.0])

    def k(v: Variable) -> Variable:
        gradient = mf.grad(lambda u: (w * F.concatenate([u, u]) ** 3).sum())(v)
        return (gradient * F.sin(v)).sum()

    c = w[:2] + w[2:]
    expected = 3 * c * (2 * np.sin(x) + 4 * x * np.cos(x) - x**2 * np.sin(x))
    np.testing.assert_allclose(mf.hessian(k)(x).data, np.diag(expected), rtol=1e-13, atol=1e-14)


WEIGHTED_GRADIENT_OPS = {
    "get_item": lambda u: (F.exp(u[np.array([0, 2, 2, 1])]) * np.arange(1.0, 5.0)).sum(),
    "embedding": lambda u: (F.embedding(np.array([[1, 0], [1, 2]]), u) ** 3).sum(),
}


@pytest.mark.parametrize("name", sorted(WEIGHTED_GRADIENT_OPS))
def test_backward_only_functions_have_tangent_rules(name: str) -> None:
    """GetItemGrad and EmbeddingGrad (scatters made by backward) meet tangents in the
    Hessian of ``k(x) = sum(grad f(x) * sin x)``. Reference: reverse over reverse, which
    uses no tangent rule, and central differences of ``grad k``."""
    f = WEIGHTED_GRADIENT_OPS[name]

    def k(v: Variable) -> Variable:
        return (mf.grad(f)(v) * F.sin(v)).sum()

    x = (
        np.linspace(-0.8, 0.9, 3)
        if name == "get_item"
        else np.linspace(-0.8, 0.9, 6).reshape(3, 2)
    )
    forward_over_reverse = mf.hessian(k)(x).data
    reverse_over_reverse = mf.jacrev(mf.jacrev(k))(x).data
    np.testing.assert_allclose(forward_over_reverse, reverse_over_reverse, rtol=1e-12, atol=1e-13)
    v = np.random.default_rng(5).standard_normal(x.shape)
    numeric = central_difference(lambda a: mf.grad(k)(a).data, [x], [v], 1e-5)
    axes = tuple(range(x.ndim, 2 * x.ndim))
    np.testing.assert_allclose(
        np.tensordot(forward_over_reverse, v, axes=(axes, tuple(range(x.ndim)))),
        numeric,
        rtol=1e-6,
        atol=1e-8,
    )
