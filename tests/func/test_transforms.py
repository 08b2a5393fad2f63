"""The transforms themselves: forward mode runs no backward, the double-vjp fallback,
nesting, pytrees, ``argnums``/``has_aux`` conventions, side effects and error messages,
and their boundaries (an outer ``no_grad``, one evaluation per ``jacfwd``, the outer
autograd, a fallback that cannot differentiate a NumPy backward), against torch.func."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minitorch.func as mf
import minitorch.nn as nn
import minitorch.ops as F
from minitorch import Function, Variable, manual_seed, no_grad, using_config
from minitorch.func import pytree, reverse


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


# --- Boundaries: outer no_grad, one evaluation per jacfwd, outer autograd, the fallback ---

_SWITCHES = {
    "no_grad": no_grad,
    "enable_backprop=False": lambda: using_config("enable_backprop", False),
}


def _f(a: Any) -> Any:
    return (F.sin(a) * a).sum()


def _tf(a: Any) -> Any:
    return (a.sin() * a).sum()


@pytest.mark.parametrize("switch", list(_SWITCHES), ids=str)
def test_reverse_transforms_ignore_an_outer_no_grad_as_torch_func(switch: str) -> None:
    torch = pytest.importorskip("torch")
    tf = torch.func
    x = np.array([0.3, 1.2, -0.7])
    v = np.array([1.0, -2.0, 0.5])
    tx, tv = torch.tensor(x), torch.tensor(v)
    with torch.no_grad():  # torch.func ignores it too
        want = {
            "grad": tf.grad(_tf)(tx),
            "value_and_grad": tf.grad_and_value(_tf)(tx)[0],
            "grad_and_value": tf.grad_and_value(_tf)(tx)[0],
            "vjp": tf.vjp(torch.sin, tx)[1](tv)[0],
            "jacrev": tf.jacrev(torch.sin)(tx),
            "hessian": tf.hessian(_tf)(tx),
            "hvp": tf.jvp(tf.grad(_tf), (tx,), (tv,))[1],
        }
    with _SWITCHES[switch]():
        got = {
            "grad": mf.grad(_f)(x),
            "value_and_grad": mf.value_and_grad(_f)(x)[1],
            "grad_and_value": mf.grad_and_value(_f)(x)[0],
            "vjp": mf.vjp(F.sin, x)[1](v)[0],
            "jacrev": mf.jacrev(F.sin)(x),
            "hessian": mf.hessian(_f)(x),
            "hvp": mf.hvp(_f, (x,), (v,))[1][0],
        }
    for name, expected in want.items():
        np.testing.assert_allclose(got[name].data, expected.numpy(), rtol=1e-12, err_msg=name)


def test_under_an_outer_no_grad_results_are_constants_as_torch_func() -> None:
    torch = pytest.importorskip("torch")
    tx = torch.tensor([0.3, 1.2], dtype=torch.float64, requires_grad=True)
    with torch.no_grad():
        assert not torch.func.grad(_tf)(tx).requires_grad
    x = Variable(np.array([0.3, 1.2]), requires_grad=True)
    with no_grad():
        value, g = mf.value_and_grad(_f)(x)
        jac = mf.jacrev(F.sin)(x)
    for result in (value, g, jac):
        assert not result.requires_grad and result.creator is None


def test_only_a_no_grad_inside_the_function_counts_as_torch_func() -> None:
    torch = pytest.importorskip("torch")

    def f(a: Any) -> Any:
        with no_grad():
            b = a * 2.0
        return (b * a).sum()

    def tf_(a: Any) -> Any:
        with torch.no_grad():
            b = a * 2.0
        return (b * a).sum()

    x = np.array([1.0, 2.0])
    want = torch.func.grad(tf_)(torch.tensor(x)).numpy()
    np.testing.assert_allclose(mf.grad(f)(x).data, want)
    with no_grad():
        np.testing.assert_allclose(mf.grad(f)(x).data, want)

    def g(a: Any) -> Any:  # a no_grad around an inner grad hides it from the outer grad
        with no_grad():
            inner = mf.grad(_f)(a)
        return (inner * a).sum()

    def tg(a: Any) -> Any:
        with torch.no_grad():
            inner = torch.func.grad(_tf)(a)
        return (inner * a).sum()

    np.testing.assert_allclose(mf.grad(g)(x).data, torch.func.grad(tg)(torch.tensor(x)).numpy())


def test_jacfwd_of_dropout_is_the_jacobian_of_one_realisation() -> None:
    manual_seed(0)
    x = np.linspace(0.5, 1.5, 8)

    def f(a: Any) -> tuple[Any, Any]:
        y = F.dropout(a, 0.5, training=True)
        return y, y

    jac, y = mf.jacfwd(f, has_aux=True)(x)
    np.testing.assert_allclose(jac.data, np.diag(y.data / x))  # the mask of this call
    assert set(np.diag(jac.data)) <= {0.0, 2.0}


def test_hessian_and_jacfwd_call_the_function_once() -> None:
    calls = []

    def f(a: Any) -> Any:
        calls.append(1)
        return (F.exp(a) * a).sum()

    x = np.array([0.1, 0.2, 0.3, 0.4])
    mf.hessian(f)(x)
    mf.jacfwd(mf.grad(f))(x)
    mf.jacfwd(f)(x)
    assert len(calls) == 3


def test_jacfwd_of_a_training_batchnorm_moves_the_running_stats_one_step() -> None:
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(0).normal(size=(4, 3))
    bn = nn.BatchNorm1d(3, dtype=np.float64)
    tbn = torch.nn.BatchNorm1d(3, dtype=torch.float64)
    jac = mf.jacfwd(bn)(x)
    tbn(torch.tensor(x))  # one training step
    np.testing.assert_allclose(bn.running_mean, tbn.running_mean.numpy(), rtol=1e-12)
    np.testing.assert_allclose(bn.running_var, tbn.running_var.numpy(), rtol=1e-12)
    assert int(bn.num_batches_tracked) == int(tbn.num_batches_tracked) == 1
    want = torch.autograd.functional.jacobian(
        lambda a: torch.nn.functional.batch_norm(a, None, None, training=True), torch.tensor(x)
    )
    np.testing.assert_allclose(jac.data, want.numpy(), rtol=1e-10, atol=1e-12)


def test_jacfwd_and_hessian_match_torch_func() -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    w, x = rng.normal(size=(3, 2)), rng.normal(size=(2,))

    def f(w: Any, x: Any) -> Any:
        return F.tanh(F.matmul(w, x)) * F.sum(w, axis=1)

    def tf_(w: Any, x: Any) -> Any:
        return torch.tanh(w @ x) * w.sum(1)

    tw, tx = torch.tensor(w), torch.tensor(x)
    got = mf.jacfwd(f, argnums=(0, 1))(w, x)
    want = torch.func.jacfwd(tf_, argnums=(0, 1))(tw, tx)
    for g, t in zip(got, want):
        np.testing.assert_allclose(g.data, t.numpy(), rtol=1e-12)
    got = mf.hessian(lambda w, x: f(w, x).sum(), argnums=(0, 1))(w, x)
    want = torch.func.hessian(lambda w, x: tf_(w, x).sum(), argnums=(0, 1))(tw, tx)
    for row, trow in zip(got, want):
        for g, t in zip(row, trow):
            np.testing.assert_allclose(g.data, t.numpy(), rtol=1e-10, atol=1e-12)


def test_a_gradient_of_an_input_that_requires_grad_can_be_backpropagated() -> None:
    torch = pytest.importorskip("torch")
    data = np.array([0.3, 1.2, -0.7])
    tx = torch.tensor(data, requires_grad=True)
    torch.func.grad(_tf)(tx).sum().backward()
    x = Variable(data.copy(), requires_grad=True)
    mf.grad(_f)(x).sum().backward()
    np.testing.assert_allclose(x.grad.data, tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(x.grad.data, 2 * np.cos(data) - data * np.sin(data), rtol=1e-12)
    x.grad, tx.grad = None, None
    torch.func.vjp(torch.sin, tx)[1](torch.ones(3, dtype=torch.float64))[0].sum().backward()
    mf.vjp(F.sin, x)[1](np.ones(3))[0].sum().backward()
    np.testing.assert_allclose(x.grad.data, tx.grad.numpy(), rtol=1e-12)
    x.grad, tx.grad = None, None
    torch.func.jacrev(torch.sin)(tx).sum().backward()
    mf.jacrev(F.sin)(x).sum().backward()
    np.testing.assert_allclose(x.grad.data, tx.grad.numpy(), rtol=1e-12)


class CubeNumpyBackward(Function):
    """y = x**3 with a DeZero-style backward in NumPy on ``.data`` (no graph to ``gy``)."""

    def forward(self, x: np.ndarray) -> np.ndarray:
        return x**3

    def backward(self, gy: Variable) -> Variable:
        (x,) = self.inputs
        return Variable(3 * x.data**2 * gy.data)


def test_double_vjp_refuses_a_backward_that_ignores_its_incoming_gradient() -> None:
    torch = pytest.importorskip("torch")

    class TorchCube(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 3 * x**2 * g

    t = torch.ones(2, dtype=torch.float64)
    with pytest.raises(RuntimeError):  # torch.func refuses a Function without its rules
        torch.func.jvp(TorchCube.apply, (t,), (t,))
    x = np.array([1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for call in (
            lambda: mf.jvp(lambda a: CubeNumpyBackward()(a), (x,), (x,)),
            lambda: mf.jacfwd(lambda a: CubeNumpyBackward()(a))(x),
            lambda: mf.hessian(lambda a: CubeNumpyBackward()(a).sum())(x),
        ):
            with pytest.raises(
                RuntimeError,
                match=r"CubeNumpyBackward has no tangent rule.*"
                r"Define CubeNumpyBackward\.jvp",
            ):
                call()
        _, tangent = mf.jvp(lambda a: CubeNoRule()(a), (x,), (x,))  # a differentiable one
    np.testing.assert_allclose(tangent.data, 3 * x**2 * x)


# --- Property: every transform gives the same answer under an outer no_grad ---------

_UNARY = {
    "sin": F.sin,
    "tanh": F.tanh,
    "exp": lambda a: F.exp(0.3 * a),
    "square": lambda a: a * a,
    "softplus": lambda a: F.log(1.0 + F.exp(a)),
}
_BINARY = {
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "sub": lambda a, b: a - b,
    "mix": lambda a, b: F.sin(a) * F.cos(b),
}


def _program(steps: list[tuple[str, int, int]]) -> Callable[[Any, Any], Any]:
    """A straight-line program on two inputs: each step appends an op of earlier values."""

    def run(x: Any, y: Any) -> Any:
        values = [x, y]
        for op, i, j in steps:
            a, b = values[i % len(values)], values[j % len(values)]
            values.append(_UNARY[op](a) if op in _UNARY else _BINARY[op](a, b))
        return values[-1] + 0.0 * x  # a Variable of x even where it does not use x

    return run


_step = st.tuples(
    st.sampled_from(sorted(_UNARY) + sorted(_BINARY)),
    st.integers(0, 20),
    st.integers(0, 20),
)


@settings(max_examples=25, deadline=None)
@given(
    steps=st.lists(_step, min_size=0, max_size=5),
    data=hnp.arrays(np.float64, (2, 3), elements=st.floats(-1.5, 1.5)),
    switch=st.sampled_from(sorted(_SWITCHES)),
)
def test_every_transform_ignores_an_outer_no_grad(
    steps: list[tuple[str, int, int]], data: np.ndarray, switch: str
) -> None:
    f = _program(steps)

    def loss(x: Any, y: Any) -> Any:
        return f(x, y).sum()

    x, y = data
    v = np.array([0.5, -1.0, 2.0])
    calls = {
        "jvp": lambda: mf.jvp(f, (x, y), (v, v))[1],
        "vjp": lambda: mf.vjp(f, x, y)[1](v),
        "grad": lambda: mf.grad(loss, argnums=(0, 1))(x, y),
        "value_and_grad": lambda: mf.value_and_grad(loss)(x, y),
        "jacrev": lambda: mf.jacrev(f, argnums=(0, 1))(x, y),
        "jacfwd": lambda: mf.jacfwd(f, argnums=(0, 1))(x, y),
        "hessian": lambda: mf.hessian(loss)(x, y),
        "hvp": lambda: mf.hvp(loss, (x, y), (v, v)),
    }
    for name, call in calls.items():
        want, _, _ = pytree.flatten(call())
        with _SWITCHES[switch]():
            got, _, _ = pytree.flatten(call())
        assert len(got) == len(want), name
        for g, w in zip(got, want):
            assert not g.requires_grad, name
            np.testing.assert_allclose(g.data, w.data, rtol=1e-13, atol=1e-15, err_msg=name)


def test_one_evaluation_jacfwd_nests_like_torch_func() -> None:
    torch = pytest.importorskip("torch")
    tf = torch.func
    x, v = np.array([0.3, 1.2, -0.7]), np.array([1.0, 0.5, -2.0])
    tx, tv = torch.tensor(x), torch.tensor(v)

    def f(a: Any) -> Any:
        return F.sin(a) * F.exp(a) * a.sum()

    def t(a: Any) -> Any:
        return torch.sin(a) * torch.exp(a) * a.sum()

    pairs = [
        (mf.jacfwd(mf.jacfwd(f))(x), tf.jacfwd(tf.jacfwd(t))(tx)),
        (mf.jvp(mf.jacfwd(f), (x,), (v,))[1], tf.jvp(tf.jacfwd(t), (tx,), (tv,))[1]),
        (mf.jacrev(mf.jacfwd(f))(x), tf.jacrev(tf.jacfwd(t))(tx)),
        (
            mf.jacfwd(lambda a: mf.jvp(f, (a,), (a,))[1])(x),
            tf.jacfwd(lambda a: tf.jvp(t, (a,), (a,))[1])(tx),
        ),
        (
            mf.jacfwd(mf.hessian(lambda a: f(a).sum()))(x),
            tf.jacfwd(tf.hessian(lambda a: t(a).sum()))(tx),
        ),
    ]
    for got, want in pairs:
        np.testing.assert_allclose(got.data, want.numpy(), rtol=1e-12, atol=1e-13)


def test_a_gradient_through_a_parameter_the_function_uses_backpropagates_to_it() -> None:
    torch = pytest.importorskip("torch")
    w_data, x = np.array([0.5, -1.5, 2.0]), np.array([0.3, 1.2, -0.7])
    tw = torch.tensor(w_data, requires_grad=True)
    torch.func.grad(lambda a: torch.sin(tw * a).sum())(torch.tensor(x)).sum().backward()
    w = nn.Parameter(w_data.copy())
    g = mf.grad(lambda a: F.sin(w * a).sum())(x)  # x is constant; w requires grad
    g.sum().backward()
    np.testing.assert_allclose(w.grad.data, tw.grad.numpy(), rtol=1e-12)
    w.grad, tw.grad = None, None
    torch.func.jacrev(lambda a: torch.sin(tw * a))(torch.tensor(x)).sum().backward()
    mf.jacrev(lambda a: F.sin(w * a))(x).sum().backward()
    np.testing.assert_allclose(w.grad.data, tw.grad.numpy(), rtol=1e-12)
