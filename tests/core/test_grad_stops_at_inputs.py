"""``autograd.grad`` runs only the graph between the outputs and the requested inputs.

As ``torch.autograd.grad``: the graph below an intermediate input (and every branch
that leads to no requested input) is neither run nor released, so a later call can
still differentiate through it. Expected values from torch (float64).
"""

import numpy as np
import pytest

import minitorch.ops as F
from minitorch import Function, Variable, autograd

torch = pytest.importorskip("torch")


def _graph(lib, x, w):
    sin = lib.sin
    y = sin(x * w)
    a = y * 2
    return y, a


def test_grad_to_an_intermediate_leaves_the_graph_below_it():
    x, w = Variable(np.ones(3)), Variable(np.ones(3))
    _, a = _graph(F, x, w)
    (ga,) = autograd.grad((a**2).sum(), a)
    (gx,) = autograd.grad((a * 3).sum(), x)  # raised "Mul was released" before

    tx = torch.ones(3, dtype=torch.float64, requires_grad=True)
    tw = torch.ones(3, dtype=torch.float64, requires_grad=True)
    _, ta = _graph(torch, tx, tw)
    (tga,) = torch.autograd.grad((ta**2).sum(), ta)
    (tgx,) = torch.autograd.grad((ta * 3).sum(), tx)
    np.testing.assert_allclose(ga.data, tga.numpy())
    np.testing.assert_allclose(gx.data, tgx.numpy())


class Counted(Function):
    """y = 2x, counting its backward calls."""

    calls = 0

    def forward(self, x):
        return 2 * x

    def backward(self, gy):
        Counted.calls += 1
        return 2 * gy


def test_functions_that_lead_to_no_input_are_not_run():
    x, z = Variable(np.ones(2)), Variable(np.ones(2))
    side = Counted()(z)  # a branch of the output that leads only to z
    below = Counted()(x)  # below the requested input a
    a = below * 1.5
    Counted.calls = 0
    (ga,) = autograd.grad((a * side).sum(), a)
    assert Counted.calls == 0
    np.testing.assert_allclose(ga.data, side.data)


def test_an_input_behind_another_input_gets_its_full_gradient():
    x = Variable(np.array([0.5, -1.0]))
    a = F.sin(x)
    b = (a * x).sum()
    ga, gx = autograd.grad(b, [a, x])
    tx = torch.tensor([0.5, -1.0], dtype=torch.float64, requires_grad=True)
    ta = torch.sin(tx)
    tga, tgx = torch.autograd.grad((ta * tx).sum(), [ta, tx])
    np.testing.assert_allclose(ga.data, tga.numpy())
    np.testing.assert_allclose(gx.data, tgx.numpy())


def test_the_graph_that_ran_is_still_released():
    x = Variable(np.ones(2))
    a = F.sin(x)
    b = (a * a).sum()
    autograd.grad(b, a)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        autograd.grad(b, a)


def test_variable_backward_still_reaches_every_leaf():
    x, w = Variable(np.ones(3)), Variable(np.ones(3))
    _, a = _graph(F, x, w)
    (a * 3).sum().backward()
    np.testing.assert_allclose(x.grad.data, 6 * np.cos(1.0) * np.ones(3))
    np.testing.assert_allclose(w.grad.data, 6 * np.cos(1.0) * np.ones(3))


def test_a_number_or_array_grad_outputs_is_one_outputs_vector():
    x = Variable(np.array([1.0, -2.0, 0.5]))
    (g,) = autograd.grad((x * x).sum(), x, 2.0)
    tx = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64, requires_grad=True)
    (tg,) = torch.autograd.grad((tx * tx).sum(), tx, torch.tensor(2.0, dtype=torch.float64))
    np.testing.assert_allclose(g.data, tg.numpy())
    (g,) = autograd.grad(x * x, x, np.array([1.0, 0.0, 2.0]))
    np.testing.assert_allclose(g.data, [2.0, 0.0, 2.0])


def test_a_grad_outputs_of_the_wrong_kind_is_a_clear_type_error():
    x = Variable(np.ones(2))
    with pytest.raises(TypeError, match="autograd.grad: grad_outputs is a object"):
        autograd.grad((x * x).sum(), x, object())
