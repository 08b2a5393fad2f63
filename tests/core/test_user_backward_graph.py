"""A user-written backward computed with NumPy is refused under create_graph.

Its gradient has no graph back to ``gy`` (or to the inputs), so a second derivative
through it would be silently zero; torch refuses such a gradient too. The reference
values of a correctly written backward come from torch (float64).
"""

import numpy as np
import pytest

import minitorch.func as mf
from minitorch import Function, Variable, autograd

X0 = np.array([0.3, -1.2, 2.0])


class NumpyCube(Function):
    """y = x³ with a backward on ``.data``: right first derivative, no graph."""

    def forward(self, x):
        return x**3

    def backward(self, gy):
        return Variable(3 * self.inputs[0].data ** 2 * gy.data)


class ArrayCube(NumpyCube):
    def backward(self, gy):
        return 3 * self.inputs[0].data ** 2 * gy.data


class ConstantCube(NumpyCube):
    def backward(self, gy):
        return Variable(3 * self.inputs[0].data ** 2 * gy.data, requires_grad=False)


class OpsCube(Function):
    """y = x³ with a backward written with minitorch ops: differentiable."""

    def forward(self, x):
        return x**3

    def backward(self, gy):
        (x,) = self.inputs
        return 3 * x**2 * gy


class ZeroBackward(Function):
    """y = floor(x): a NumPy zero gradient is right, and stays allowed."""

    def forward(self, x):
        return np.floor(x)

    def backward(self, gy):
        return Variable(np.zeros_like(gy.data))


def _torch_second_derivative():
    torch = pytest.importorskip("torch")
    x = torch.tensor(X0, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad((x**3).sum(), x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    return h.numpy()


@pytest.mark.parametrize("cube", [NumpyCube, ArrayCube])
def test_grad_of_grad_through_numpy_backward_raises(cube):
    f = lambda x: mf.grad(lambda x: cube()(x).sum())(x).sum()  # noqa: E731
    with pytest.raises(RuntimeError, match=rf"{cube.__name__}\.backward.*minitorch ops on gy"):
        mf.grad(f)(X0)


def test_jacrev_of_jacrev_through_numpy_backward_raises():
    with pytest.raises(RuntimeError, match=r"NumpyCube\.backward.*vjp"):
        mf.jacrev(mf.jacrev(lambda x: NumpyCube()(x)))(X0)


@pytest.mark.parametrize("cube", [NumpyCube, ArrayCube])
def test_autograd_grad_create_graph_through_numpy_backward_raises(cube):
    v = Variable(X0)
    with pytest.raises(
        RuntimeError, match=rf"{cube.__name__}\.backward: the gradient for input 0"
    ):
        autograd.grad(cube()(v).sum(), v, create_graph=True)


def test_constant_gradient_with_a_live_gy_raises():
    v = Variable(X0)
    y = ConstantCube()(v * 1.0) * v  # gy of ConstantCube depends on v: it requires grad
    with pytest.raises(RuntimeError, match="does not depend on the incoming gradient gy"):
        autograd.grad(y.sum(), v, create_graph=True)


def test_first_order_backward_through_numpy_backward_still_works():
    v = Variable(X0)
    NumpyCube()(v).sum().backward()
    np.testing.assert_allclose(v.grad.data, 3 * X0**2)


def test_ops_backward_gives_torch_second_derivative():
    expected = _torch_second_derivative()
    got = mf.grad(lambda x: mf.grad(lambda x: OpsCube()(x).sum())(x).sum())(X0)
    np.testing.assert_allclose(got.data, expected)
    v = Variable(X0)
    autograd.grad(OpsCube()(v).sum(), v, create_graph=True)[0].sum().backward()
    np.testing.assert_allclose(v.grad.data, expected)


def test_a_numpy_zero_gradient_is_allowed():
    v = Variable(X0)
    (g,) = autograd.grad(ZeroBackward()(v).sum(), v, create_graph=True)
    np.testing.assert_array_equal(g.data, np.zeros(3))
