"""What a fresh user met in the transforms: the messages name what they called, the
tangent-rule contract is the one in force, and keyword arguments pass through.

Values are compared with ``torch.func`` (float64).
"""

import functools
import warnings

import numpy as np
import pytest

import minitorch.func as mf
from minitorch import Function, Variable, using_config

X0 = np.array([0.3, -1.2, 2.0])


class NumpyCube(Function):
    def forward(self, x):
        return x**3

    def backward(self, gy):
        return Variable(3 * self.inputs[0].data ** 2 * gy.data)


def _old_style_rule(self, tx):  # the old signature: one tangent per input only
    return 3 * self.inputs[0] ** 2 * tx


class OldStyleJvp(Function):
    def forward(self, x):
        return x**3

    def backward(self, gy):
        (x,) = self.inputs
        return 3 * x**2 * gy

    jvp = _old_style_rule  # (not a `def jvp` here: tests/core/test_rule_contract.py)


# -- 3: the jvp refusal and the fallback warning ---------------------------------------
@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: mf.jvp(lambda x: NumpyCube()(x), (X0,), (X0,)), "jvp"),
        (lambda: mf.jacfwd(lambda x: NumpyCube()(x))(X0), "jacfwd"),
        (lambda: mf.hessian(lambda x: NumpyCube()(x).sum())(X0), "hessian"),
        (lambda: mf.hvp(lambda x: NumpyCube()(x).sum(), (X0,), (X0,)), "hvp"),
    ],
)
def test_the_refusal_names_the_transform_and_the_contract_without_a_warning(call, name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the "exactly with two reverse passes" warning
        with pytest.raises(RuntimeError) as info:
            call()
    message = str(info.value)
    assert message.startswith(f"{name}: NumpyCube has no tangent rule")
    assert "NumpyCube.jvp(self, xs, y, *txs)" in message
    assert "*tangents" not in message


def test_an_old_style_jvp_signature_explains_the_contract():
    with pytest.raises(
        TypeError, match=r"OldStyleJvp\.jvp\(tx\) does not fit .*jvp\(xs, y, \*txs\)"
    ):
        mf.jvp(lambda x: OldStyleJvp()(x), (X0,), (X0,))


def test_the_fallback_still_warns_when_it_works():
    class Square(Function):
        def forward(self, x):
            return x * x

        def backward(self, gy):
            (x,) = self.inputs
            return 2 * x * gy

    with pytest.warns(RuntimeWarning, match=r"Square\.jvp\(self, xs, y, \*txs\)"):
        _, t = mf.jvp(lambda x: Square()(x), (X0,), (np.ones(3),))
    np.testing.assert_allclose(t.data, 2 * X0)


# -- 4: backward() of a constant transform result ---------------------------------------
def _cube_sum(x):
    return (x**3).sum()


def test_backward_of_a_transform_result_under_no_grad_says_why():
    with using_config("enable_backprop", False):
        g = mf.grad(_cube_sum)(Variable(X0))
    with pytest.raises(RuntimeError, match=r"result of minitorch\.func\.grad.*no_grad") as info:
        g.sum().backward()
    assert "create_graph" not in str(info.value)


def test_backward_of_a_transform_result_of_plain_arrays_says_why():
    g = mf.grad(_cube_sum)(np.array([1.0, 2.0]))
    with pytest.raises(RuntimeError, match=r"no input of the call .* requires grad"):
        g.sum().backward()
    with pytest.raises(RuntimeError, match=r"minitorch\.func\.jacrev"):
        mf.jacrev(lambda x: x**3)(np.array([1.0, 2.0])).sum().backward()


def test_the_fix_the_message_gives_works():
    torch = pytest.importorskip("torch")
    x = Variable(np.array([1.0, 2.0]))
    mf.grad(_cube_sum)(x).sum().backward()
    tx = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    torch.func.grad(lambda t: (t**3).sum())(tx).sum().backward()
    np.testing.assert_allclose(x.grad.data, tx.grad.numpy())


# -- 5: vjp_fn's messages ----------------------------------------------------------------
def test_vjp_fn_names_the_output_shape_and_cotangents():
    x = np.ones(2)
    with pytest.raises(ValueError, match=r"must match its output's shape \(\)"):
        mf.vjp(lambda a: a.sum(), x)[1](np.ones(2))
    with pytest.raises(TypeError, match="int64; cotangents must be floating point"):
        mf.vjp(lambda a: a * 2, x)[1](np.ones(2, dtype=int))


# -- 6: keyword arguments pass through, undifferentiated ---------------------------------
def _scaled(a, scale=1.0):
    return (a * a * scale).sum()


@pytest.mark.parametrize(
    "ours, theirs",
    [
        (lambda: mf.grad(_scaled), "grad"),
        (lambda: lambda *a, **k: mf.value_and_grad(_scaled)(*a, **k)[1], "grad"),
        (lambda: lambda *a, **k: mf.grad_and_value(_scaled)(*a, **k)[0], "grad"),
        (lambda: mf.jacrev(_scaled), "jacrev"),
        (lambda: mf.jacfwd(_scaled), "jacfwd"),
        (lambda: mf.hessian(_scaled), "hessian"),
    ],
)
def test_keyword_arguments_are_passed_as_torch_func_does(ours, theirs):
    torch = pytest.importorskip("torch")
    x = np.array([0.5, -2.0])
    got = ours()(x, scale=3.0)
    # torch.func.grad passes keywords through; its jacrev/jacfwd/hessian take positional
    # arguments only, so their reference binds the keyword first.
    expected = getattr(torch.func, theirs)(functools.partial(_scaled, scale=3.0))(torch.tensor(x))
    if theirs == "grad":
        assert np.allclose(expected, torch.func.grad(_scaled)(torch.tensor(x), scale=3.0))
    np.testing.assert_allclose(got.data, expected.numpy())


# -- 7, 8: the hints and the transform's name -------------------------------------------
def test_a_numpy_result_from_arguments_outside_argnums_gets_a_hint():
    x = np.ones(2)
    with pytest.raises(TypeError, match="Arguments not in argnums are passed .* as given"):
        mf.grad(lambda a, b: (a * a).sum(), argnums=1)(x, x)


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: mf.hessian(lambda a: (a * a).sum())(np.ones(2, dtype=int)), TypeError),
        (lambda: mf.hessian(lambda a: (a * a).sum(), argnums=3)(np.ones(2)), ValueError),
        (lambda: mf.hessian(lambda a: 1.0)(np.ones(2)), TypeError),
    ],
)
def test_hessian_errors_name_hessian(call, error):
    with pytest.raises(error, match="^hessian: "):
        call()
