"""``minitorch.autograd.grad`` against ``torch.autograd.grad`` (issue 27, item 2).

The same function is written once for each library; the gradients must agree in float64,
first and second order, with ``grad_outputs``, ``allow_unused`` and ``retain_graph``, and
no ``.grad`` may be written.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minitorch.ops as F
from minitorch import Variable, autograd

torch = pytest.importorskip("torch")


def _pair(rng: np.random.Generator, *shape: int) -> tuple[Variable, Any]:
    data = rng.standard_normal(shape)
    return Variable(data.copy()), torch.tensor(data, requires_grad=True)


def _close(ours: Any, theirs: Any) -> None:
    assert ours is not None and theirs is not None
    np.testing.assert_allclose(ours.data, theirs.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_first_order_matches_torch_and_writes_no_grad(rng: np.random.Generator) -> None:
    x, tx = _pair(rng, 3, 4)
    w, tw = _pair(rng, 4)
    y = (F.tanh(x * w) * x).sum()
    ty = (torch.tanh(tx * tw) * tx).sum()
    gx, gw = autograd.grad(y, [x, w])
    tgx, tgw = torch.autograd.grad(ty, [tx, tw])
    _close(gx, tgx)
    _close(gw, tgw)
    assert x.grad is None and w.grad is None and y.grad is None
    assert gx.creator is None and not gx.requires_grad


def test_second_order_matches_torch(rng: np.random.Generator) -> None:
    x, tx = _pair(rng, 5)
    y = (F.sin(x) * x * x).sum()
    ty = (torch.sin(tx) * tx * tx).sum()
    (gx,) = autograd.grad(y, x, create_graph=True)
    (tgx,) = torch.autograd.grad(ty, tx, create_graph=True)
    _close(gx, tgx)
    v = rng.standard_normal(5)
    (hv,) = autograd.grad(gx, x, grad_outputs=v)  # a Hessian-vector product
    (thv,) = torch.autograd.grad(tgx, tx, grad_outputs=torch.tensor(v))
    _close(hv, thv)
    assert x.grad is None


def test_grad_outputs_and_several_outputs_match_torch(rng: np.random.Generator) -> None:
    x, tx = _pair(rng, 2, 3)
    y0, y1 = F.exp(x), (x * x).sum(axis=0)
    ty0, ty1 = torch.exp(tx), (tx * tx).sum(dim=0)
    v0, v1 = rng.standard_normal((2, 3)), rng.standard_normal(3)
    (gx,) = autograd.grad([y0, y1], [x], grad_outputs=[v0, Variable(v1)])
    (tgx,) = torch.autograd.grad(
        [ty0, ty1], [tx], grad_outputs=[torch.tensor(v0), torch.tensor(v1)]
    )
    _close(gx, tgx)


def test_the_gradient_of_an_intermediate_variable_matches_torch(rng: np.random.Generator) -> None:
    x, tx = _pair(rng, 4)
    h, th = F.exp(x), torch.exp(tx)
    y, ty = (h * h + h).sum(), (th * th + th).sum()
    gh, gx = autograd.grad(y, [h, x])
    tgh, tgx = torch.autograd.grad(ty, [th, tx])
    _close(gh, tgh)
    _close(gx, tgx)
    assert h.grad is None and x.grad is None


def test_allow_unused_matches_torch(rng: np.random.Generator) -> None:
    x, tx = _pair(rng, 3)
    z, tz = _pair(rng, 3)
    y, ty = (x * 2.0).sum(), (tx * 2.0).sum()
    gx, gz = autograd.grad(y, [x, z], allow_unused=True)
    tgx, tgz = torch.autograd.grad(ty, [tx, tz], allow_unused=True)
    _close(gx, tgx)
    assert gz is None and tgz is None
    y = (x * 2.0).sum()
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        autograd.grad(y, [x, z])
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        torch.autograd.grad((tx * 2.0).sum(), [tx, tz])


def test_retain_graph_like_torch(rng: np.random.Generator) -> None:
    x, tx = _pair(rng, 3)
    y, ty = F.exp(x).sum(), torch.exp(tx).sum()
    first = autograd.grad(y, x, retain_graph=True)
    tfirst = torch.autograd.grad(ty, tx, retain_graph=True)
    again, tagain = autograd.grad(y, x), torch.autograd.grad(ty, tx)  # released now
    _close(first[0], tfirst[0])
    _close(again[0], tagain[0])
    with pytest.raises(RuntimeError, match="a second time"):
        autograd.grad(y, x)
    with pytest.raises(RuntimeError, match="a second time"):
        torch.autograd.grad(ty, tx)
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        y.backward()  # the graph is released for backward() too


def test_create_graph_retains_the_graph_by_default(rng: np.random.Generator) -> None:
    x, _ = _pair(rng, 3)
    y = (x * x).sum()
    (g1,) = autograd.grad(y, x, create_graph=True)
    (g2,) = autograd.grad(y, x, create_graph=True)
    np.testing.assert_allclose(g1.data, g2.data)
    np.testing.assert_allclose(g1.data, 2 * x.data)


def test_errors_like_torch(rng: np.random.Generator) -> None:
    x, tx = _pair(rng, 3)
    with pytest.raises(RuntimeError, match="implicitly created only for one-element"):
        autograd.grad(F.exp(x), x)
    with pytest.raises(RuntimeError, match="implicitly created only for scalar"):
        torch.autograd.grad(torch.exp(tx), tx)
    constant = Variable(np.ones(3), requires_grad=False)
    with pytest.raises(RuntimeError, match="input 0 does not require a gradient"):
        autograd.grad((x * constant).sum(), constant)
    with pytest.raises(RuntimeError, match="output 0 does not require a gradient"):
        autograd.grad(constant.sum(), x)
    with pytest.raises(ValueError, match=r"grad_outputs\[0\] has shape \(2,\)"):
        autograd.grad(F.exp(x), x, grad_outputs=[np.ones(2)])


def test_a_constant_create_graph_gradient_differentiates_to_zeros() -> None:
    # relu's gradient depends on no input: torch gives zeros for its derivative
    x = Variable(np.array([-1.0, 2.0]))
    tx = torch.tensor([-1.0, 2.0], dtype=torch.float64, requires_grad=True)
    (gx,) = autograd.grad(F.relu(x).sum(), x, create_graph=True)
    (tgx,) = torch.autograd.grad(torch.relu(tx).sum(), tx, create_graph=True)
    (ggx,) = autograd.grad(gx.sum(), x)
    (tggx,) = torch.autograd.grad(tgx.sum(), tx)
    _close(ggx, tggx)


def test_results_never_share_memory() -> None:
    a, b = Variable(np.ones(3)), Variable(np.ones(3))
    ga, gb = autograd.grad((a + b).sum(), [a, b])
    assert not np.shares_memory(ga.data, gb.data)
    assert ga.data.flags.writeable and gb.data.flags.writeable


def test_backward_is_a_consumer_of_the_same_engine(rng: np.random.Generator) -> None:
    x, _ = _pair(rng, 3)
    (expected,) = autograd.grad(F.sin(x).sum(), x)
    F.sin(x).sum().backward()
    assert x.grad is not None
    np.testing.assert_array_equal(x.grad.data, expected.data)
