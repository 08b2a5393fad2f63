"""The transforms themselves: forward mode runs no backward, the double-vjp fallback,
nesting, pytrees, ``argnums``/``has_aux`` conventions, side effects and error messages."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pytest

import minitorch.func as mf
import minitorch.ops as F
from minitorch import Function, Variable, no_grad
from minitorch.func import reverse


class CubeNoBackward(Function):
    """y = x**3 with a tangent rule and a backward that must never run."""

    def forward(self, x: np.ndarray) -> np.ndarray:
        return x**3

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        return 3 * xs[0] ** 2 * tx

    def backward(self, gy: Variable) -> Variable:
        raise AssertionError("backward ran under jvp")

    def backward_array(self, gy: np.ndarray) -> np.ndarray:
        raise AssertionError("backward_array ran under jvp")


class CubeNoRule(Function):
    """y = x**3 with only a backward: forward mode takes the double-vjp fallback."""

    def forward(self, x: np.ndarray) -> np.ndarray:
        return x**3

    def backward(self, gy: Variable) -> Variable:
        (x,) = self.inputs
        return 3 * x**2 * gy


def test_jvp_runs_no_backward() -> None:
    x = np.array([1.0, -2.0, 0.5])
    y, ty = mf.jvp(lambda v: F.sin(CubeNoBackward()(v)), (x,), (np.ones(3),))
    np.testing.assert_allclose(y.data, np.sin(x**3))
    np.testing.assert_allclose(ty.data, np.cos(x**3) * 3 * x**2)
    jac = mf.jacfwd(lambda v: CubeNoBackward()(v))(x)  # also works through jacfwd
    np.testing.assert_allclose(jac.data, np.diag(3 * x**2))


def test_jvp_of_user_variable_with_requires_grad_runs_no_backward() -> None:
    x = Variable(np.array([2.0]))  # requires_grad=True: a graph is recorded, never walked
    _, ty = mf.jvp(lambda v: CubeNoBackward()(v) * 2, (x,), (np.array([1.0]),))
    np.testing.assert_allclose(ty.data, [24.0])


def test_double_vjp_fallback_is_exact_and_noted_once() -> None:
    reverse._noted.discard(CubeNoRule)
    x = np.array([1.5, -0.5])
    with pytest.warns(RuntimeWarning, match="CubeNoRule defines no tangent rule"):
        _, ty = mf.jvp(lambda v: CubeNoRule()(v), (x,), (np.array([1.0, 2.0]),))
    np.testing.assert_allclose(ty.data, 3 * x**2 * np.array([1.0, 2.0]), rtol=1e-14)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a second use: no second note
        _, ty2 = mf.jvp(lambda v: CubeNoRule()(v), (x,), (np.ones(2),))
    np.testing.assert_allclose(ty2.data, 3 * x**2)


def test_fallback_nests_to_second_order() -> None:
    reverse._noted.add(CubeNoRule)  # the note is tested above
    x = np.array([1.5, -0.5])
    hess = mf.jacfwd(mf.jacfwd(lambda v: CubeNoRule()(v).sum()))(x)
    np.testing.assert_allclose(hess.data, np.diag(6 * x), rtol=1e-12)


def test_fallback_leaves_no_gradients_behind() -> None:
    reverse._noted.add(CubeNoRule)
    W = Variable(np.array([2.0, 3.0]))
    mf.jvp(lambda v: CubeNoRule()(v * W), (np.ones(2),), (np.ones(2),))
    assert W.grad is None


# -- nesting -------------------------------------------------------------------------------
def test_grad_of_grad_of_grad() -> None:
    x = np.array(0.7)
    d3 = mf.grad(mf.grad(mf.grad(F.sin)))(x)
    assert float(d3.data) == pytest.approx(-np.cos(0.7), rel=1e-14)


def test_forward_over_forward_third_derivative() -> None:
    def d(f: object) -> object:
        return lambda x: mf.jvp(
            f, (x,), (np.ones_like(x.data if isinstance(x, Variable) else x),)
        )[1]

    x = np.array([0.3, 1.1])
    np.testing.assert_allclose(d(d(d(F.exp)))(x).data, np.exp(x), rtol=1e-14)


def test_no_perturbation_confusion() -> None:
    """d/dx [x * d/dy (x + y)] = 1: the inner derivative must not see x's tangent
    (Siskind and Pearlmutter's example)."""

    def outer(x: Variable) -> Variable:
        inner = mf.jvp(lambda y: x + y, (np.array(1.0),), (np.array(1.0),))[1]
        return x * inner

    _, t = mf.jvp(outer, (np.array(2.0),), (np.array(1.0),))
    assert float(t.data) == 1.0
    assert float(mf.grad(outer)(np.array(2.0)).data) == 1.0


def test_hessian_is_forward_over_reverse_and_matches_reverse_over_reverse() -> None:
    A = np.array([[2.0, 1.0], [1.0, 3.0]])

    def f(x: Variable) -> Variable:
        return 0.5 * (x * F.matmul(A, x)).sum() + F.exp(x).sum()

    x = np.array([0.2, -0.4])
    expected = A + np.diag(np.exp(x))
    np.testing.assert_allclose(mf.hessian(f)(x).data, expected, rtol=1e-13)
    np.testing.assert_allclose(mf.jacrev(mf.jacrev(f))(x).data, expected, rtol=1e-13)
    np.testing.assert_allclose(mf.jacrev(mf.jacfwd(f))(x).data, expected, rtol=1e-13)


def test_hvp_equals_hessian_times_vector() -> None:
    def f(x: Variable, y: Variable) -> Variable:
        return (F.tanh(x) * y**2).sum()

    x, y = np.array([0.1, 0.5]), np.array([1.0, -2.0])
    vx, vy = np.array([1.0, 0.0]), np.array([0.5, 2.0])
    value, (hx, hy) = mf.hvp(f, (x, y), (vx, vy))
    H = mf.hessian(f, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(hx.data, H[0][0].data @ vx + H[0][1].data @ vy, rtol=1e-13)
    np.testing.assert_allclose(hy.data, H[1][0].data @ vx + H[1][1].data @ vy, rtol=1e-13)
    assert float(value.data) == pytest.approx(float(np.sum(np.tanh(x) * y**2)))


def test_jvp_works_under_no_grad() -> None:
    with no_grad():
        _, ty = mf.jvp(F.exp, (np.array([0.0, 1.0]),), (np.array([1.0, 1.0]),))
    np.testing.assert_allclose(ty.data, np.exp([0.0, 1.0]))


# -- conventions and pytrees -------------------------------------------------------------
def test_argnums_and_has_aux_follow_torch_func() -> None:
    torch = pytest.importorskip("torch")
    import torch.func as tfunc

    def f(x: object, y: object) -> tuple[object, object]:
        return (x * y * y).sum(), y

    x, y = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    (gx, gy), aux = mf.grad(f, argnums=(0, 1), has_aux=True)(x, y)
    (tgx, tgy), taux = tfunc.grad(f, argnums=(0, 1), has_aux=True)(
        torch.tensor(x), torch.tensor(y)
    )
    np.testing.assert_allclose(gx.data, tgx.numpy())
    np.testing.assert_allclose(gy.data, tgy.numpy())
    g, (value, aux2) = mf.grad_and_value(f, argnums=1, has_aux=True)(x, y)
    tg, (tvalue, _) = tfunc.grad_and_value(f, argnums=1, has_aux=True)(
        torch.tensor(x), torch.tensor(y)
    )
    np.testing.assert_allclose(g.data, tg.numpy())
    assert float(value.data) == pytest.approx(float(tvalue))
    (value3, _), g3 = mf.value_and_grad(f, argnums=-1, has_aux=True)(x, y)  # JAX's order
    np.testing.assert_allclose(g3.data, tg.numpy())


def test_pytree_inputs_and_outputs() -> None:
    params = {"W": np.array([[1.0, 2.0], [0.5, -1.0]]), "b": np.array([0.1, 0.2])}
    x = np.array([1.0, 3.0])

    def model(p: dict, x: object) -> dict:
        h = F.tanh(F.matmul(p["W"], x) + p["b"])
        return {"out": h, "norm": (h * h).sum()}

    g = mf.grad(lambda p, x: model(p, x)["norm"])(params, x)
    assert set(g) == {"W", "b"} and g["W"].shape == (2, 2)
    jac = mf.jacfwd(model)(params, x)
    jac_r = mf.jacrev(model)(params, x)
    assert jac["out"]["W"].shape == (2, 2, 2) and jac["norm"]["b"].shape == (2,)
    np.testing.assert_allclose(jac["out"]["W"].data, jac_r["out"]["W"].data, rtol=1e-13)
    np.testing.assert_allclose(jac["norm"]["b"].data, g["b"].data, rtol=1e-13)
    tangents = ({"W": np.ones((2, 2)), "b": np.zeros(2)}, np.zeros(2))
    out, tout = mf.jvp(model, (params, x), tangents)
    assert set(tout) == {"out", "norm"}
    np.testing.assert_allclose(float(tout["norm"].data), float((g["W"].data).sum()), rtol=1e-13)


def test_vjp_returns_one_gradient_per_primal() -> None:
    out, vjp_fn = mf.vjp(lambda a, b: (a * b, a + b), np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    ga, gb = vjp_fn((np.array([1.0, 0.0]), np.array([0.0, 1.0])))
    np.testing.assert_allclose(ga.data, [3.0, 1.0])
    np.testing.assert_allclose(gb.data, [1.0, 1.0])


def test_transforms_leave_user_gradients_untouched() -> None:
    W = Variable(np.array([1.0, 2.0]), name="W")
    W.grad = Variable(np.array([10.0, 10.0]))
    x = Variable(np.array([0.5, 0.5]), name="x")
    g = mf.grad(lambda v: (v * W).sum())(x)
    mf.jacrev(lambda v: v * W)(x)
    mf.hessian(lambda v: (v * v * W).sum())(x)
    np.testing.assert_allclose(g.data, W.data)
    np.testing.assert_allclose(W.grad.data, [10.0, 10.0])
    assert x.grad is None


def test_output_that_ignores_the_input_has_zero_derivatives() -> None:
    const = np.array([1.0, 2.0])
    _, t = mf.jvp(lambda v: Variable(const) * 2, (np.array([3.0]),), (np.array([1.0]),))
    np.testing.assert_array_equal(t.data, [0.0, 0.0])
    np.testing.assert_array_equal(
        mf.jacrev(lambda v: const)(np.array([3.0])).data, np.zeros((2, 1))
    )
    np.testing.assert_array_equal(
        mf.grad(lambda v: Variable(np.array(1.0)))(np.ones(2)).data, [0, 0]
    )


# -- errors --------------------------------------------------------------------------------
def test_tangent_shape_mismatch_names_the_argument() -> None:
    with pytest.raises(
        ValueError, match=r"jvp: tangents\[1\] has shape \(3,\) but must match .*\(2,\)"
    ):
        mf.jvp(lambda a, b: a * b, (np.ones(2), np.ones(2)), (np.ones(2), np.ones(3)))


def test_structure_and_type_errors() -> None:
    with pytest.raises(TypeError, match="jvp: primals must be a tuple"):
        mf.jvp(F.exp, np.ones(2), (np.ones(2),))
    with pytest.raises(ValueError, match="tangents must have the same structure"):
        mf.jvp(lambda a, b: a * b, (np.ones(2), np.ones(2)), (np.ones(2),))
    with pytest.raises(TypeError, match=r"grad: args\[0\] is a float"):
        mf.grad(F.exp)(2.0)


def test_integer_inputs_and_outputs_are_rejected() -> None:
    with pytest.raises(TypeError, match=r"jacfwd: args\[0\] has dtype int64"):
        mf.jacfwd(F.exp)(np.array([1, 2]))
    with pytest.raises(
        TypeError, match=r"jvp: output has dtype int64, which is not differentiable"
    ):
        mf.jvp(lambda v: np.array([1, 2]), (np.ones(2),), (np.ones(2),))


def test_argnums_errors() -> None:
    with pytest.raises(ValueError, match=r"grad: argnums=2 is out of range for a call with 2"):
        mf.grad(lambda a, b: (a * b).sum(), argnums=2)(np.ones(1), np.ones(1))
    with pytest.raises(ValueError, match="names an argument twice"):
        mf.grad(lambda a, b: (a * b).sum(), argnums=(0, -2))(np.ones(1), np.ones(1))
    with pytest.raises(TypeError, match="argnums must be an int"):
        mf.jacrev(F.exp, argnums=[0])(np.ones(1))


def test_bad_return_values() -> None:
    with pytest.raises(TypeError, match=r"jacrev: the function returned a str as output\[1\]"):
        mf.jacrev(lambda v: (v, "x"))(np.ones(2))
    with pytest.raises(TypeError, match=r"grad\(has_aux=True\): the function must return a tuple"):
        mf.grad(lambda v: v.sum(), has_aux=True)(np.ones(2))
    with pytest.raises(ValueError, match=r"grad: the function must return one element .* \(3,\)"):
        mf.grad(lambda v: v * 2)(np.ones(3))
    _, vjp_fn = mf.vjp(F.exp, np.ones(2))
    with pytest.raises(ValueError, match=r"vjp_fn: cotangents has shape \(3,\)"):
        vjp_fn(np.ones(3))


def test_a_wrong_tangent_rule_is_reported_by_name() -> None:
    class BadRule(Function):
        def forward(self, x: np.ndarray) -> np.ndarray:
            return np.stack([x, x])

        def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
            return tx  # forgot to stack

        def backward(self, gy: Variable) -> Variable:
            return gy[0] + gy[1]

    with pytest.raises(ValueError, match=r"BadRule.jvp: the tangent of output 0 has shape \(2,\)"):
        mf.jvp(lambda v: BadRule()(v), (np.ones(2),), (np.ones(2),))


def test_an_output_returned_twice_gets_its_own_jacobian_each_time() -> None:
    x = np.array([1.0, 2.0])

    def f(v: Variable) -> tuple[Variable, Variable]:
        y = F.exp(v)
        return y, y  # the same Variable twice: each position is seeded on its own

    for transform in (mf.jacrev, mf.jacfwd):
        first, second = transform(f)(x)
        np.testing.assert_allclose(first.data, np.diag(np.exp(x)), rtol=1e-14)
        np.testing.assert_allclose(second.data, np.diag(np.exp(x)), rtol=1e-14)


def test_reverse_over_forward_gives_the_hessian_vector_product() -> None:
    """grad of a jvp: the tangent computation is recorded, so backward runs through it."""

    def f(x: Variable) -> Variable:
        return (F.sin(x) * x**2).sum()

    x, v = np.array([0.3, -0.7]), np.array([1.0, 2.0])
    reverse_over_forward = mf.grad(lambda p: mf.jvp(f, (p,), (v,))[1])(x)
    np.testing.assert_allclose(reverse_over_forward.data, mf.hessian(f)(x).data @ v, rtol=1e-13)


def test_hvp_of_a_non_scalar_function_names_hvp() -> None:
    with pytest.raises(ValueError, match=r"hvp: the function must return one element"):
        mf.hvp(lambda v: v * 2, (np.ones(3),), (np.ones(3),))
