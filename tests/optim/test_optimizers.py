"""Optimizers: one step vs the update formula by hand, several steps vs torch.optim."""

from __future__ import annotations

import numpy as np
import pytest

from minitorch import Variable
from minitorch.nn import Linear
from minitorch.optim import (
    SGD,
    AdaDelta,
    AdaGrad,
    Adam,
    AdamW,
    ClipGrad,
    MomentumSGD,
    Optimizer,
    StepLR,
    WeightDecay,
)

# f(w) = sum(A * w**2) / 2 + sum(C * w): gradient A * w + C.
A = np.array([1.0, 4.0, 0.5])
C = np.array([0.3, -1.0, 2.0])
W0 = np.array([1.0, -2.0, 0.5])


def quadratic_grad_step(opt: Optimizer, w: Variable) -> np.ndarray:
    """One backward + step on the quadratic; returns the gradient that was used."""
    opt.zero_grad()
    loss = (A * w * w).sum() * 0.5 + (C * w).sum()
    loss.backward()
    assert w.grad is not None
    grad = w.grad.data.copy()
    opt.step()
    return grad


def test_gradient_of_the_test_quadratic():
    w = Variable(W0.copy())
    g = quadratic_grad_step(SGD([w], lr=0.0), w)
    np.testing.assert_allclose(g, A * W0 + C)


G0 = A * W0 + C  # the gradient at W0


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda p: SGD(p, lr=0.1), W0 - 0.1 * G0),
        (lambda p: SGD(p, lr=0.1, momentum=0.9), W0 - 0.1 * G0),  # buffer = g at step 1
        (lambda p: SGD(p, lr=0.1, momentum=0.9, nesterov=True), W0 - 0.1 * (G0 + 0.9 * G0)),
        (lambda p: SGD(p, lr=0.1, weight_decay=0.2), W0 - 0.1 * (G0 + 0.2 * W0)),
        (lambda p: MomentumSGD(p, lr=0.1, momentum=0.9), W0 - 0.1 * G0),
        (lambda p: AdaGrad(p, lr=0.1, eps=1e-10), W0 - 0.1 * G0 / (np.abs(G0) + 1e-10)),
        (
            lambda p: AdaDelta(p, lr=1.0, rho=0.9, eps=1e-6),
            W0 - np.sqrt(1e-6) / np.sqrt(0.1 * G0**2 + 1e-6) * G0,
        ),
        # Adam's first step: m̂ = g, v̂ = g², so the step is lr * g / (|g| + eps).
        (lambda p: Adam(p, lr=0.01), W0 - 0.01 * G0 / (np.abs(G0) + 1e-8)),
        (
            lambda p: AdamW(p, lr=0.01, weight_decay=0.1),
            W0 * (1 - 0.01 * 0.1) - 0.01 * G0 / (np.abs(G0) + 1e-8),
        ),
    ],
    ids=[
        "sgd",
        "sgd-momentum",
        "nesterov",
        "sgd-wd",
        "momentum-sgd",
        "adagrad",
        "adadelta",
        "adam",
        "adamw",
    ],
)
def test_one_step_matches_formula(make, expected):
    w = Variable(W0.copy())
    quadratic_grad_step(make([w]), w)
    np.testing.assert_allclose(w.data, expected, rtol=1e-12, atol=1e-12)


def test_second_steps_by_hand():
    w = Variable(W0.copy())
    opt = MomentumSGD([w], lr=0.1, momentum=0.9)
    quadratic_grad_step(opt, w)
    w1 = W0 - 0.1 * G0
    g1 = A * w1 + C
    quadratic_grad_step(opt, w)
    np.testing.assert_allclose(w.data, w1 + (0.9 * (-0.1 * G0) - 0.1 * g1), rtol=1e-12)

    w = Variable(W0.copy())
    opt = Adam([w], lr=0.01, betas=(0.8, 0.9))
    quadratic_grad_step(opt, w)
    w1 = W0 - 0.01 * G0 / (np.abs(G0) + 1e-8)
    g1 = A * w1 + C
    quadratic_grad_step(opt, w)
    m = 0.8 * 0.2 * G0 + 0.2 * g1
    v = 0.9 * 0.1 * G0**2 + 0.1 * g1**2
    expected = w1 - 0.01 * (m / (1 - 0.8**2)) / (np.sqrt(v / (1 - 0.9**2)) + 1e-8)
    np.testing.assert_allclose(w.data, expected, rtol=1e-12)


def test_parameters_without_grad_are_skipped():
    used, unused = Variable(W0.copy()), Variable(np.ones(2))
    opt = Adam([used, unused], lr=0.1)
    quadratic_grad_step(opt, used)
    np.testing.assert_array_equal(unused.data, np.ones(2))
    assert opt.state[1] == {} and opt.state[0]["step"] == 1


def test_update_is_in_place_and_gradient_untouched():
    w = Variable(W0.copy())
    data = w.data
    opt = SGD([w], lr=0.1, momentum=0.5, weight_decay=0.1)
    loss = (A * w * w).sum()
    loss.backward()
    grad_array = w.grad.data
    before = grad_array.copy()
    opt.add_hook(WeightDecay(0.1)).add_hook(ClipGrad(0.5))
    opt.step()
    assert w.data is data
    np.testing.assert_array_equal(grad_array, before)


def test_float32_parameters_stay_float32():
    for make in (SGD, MomentumSGD, AdaGrad, AdaDelta, Adam, AdamW):
        w = Variable(W0.astype(np.float32))
        opt = make([w])
        (w * w).sum().backward()
        opt.step()
        assert w.dtype == np.float32, make.__name__


def test_zero_grad_clears_every_grad():
    w0, w1 = Variable(np.ones(2)), Variable(np.ones(3))
    (w0.sum() + w1.sum()).backward()
    opt = SGD([w0, w1])
    opt.zero_grad()
    assert w0.grad is None and w1.grad is None


def test_accepts_a_module_and_deduplicates_shared_parameters():
    w = Variable(np.ones(2))

    class Model:
        def parameters(self):
            return iter([w, w])

    assert SGD(Model()).params == [w]


def test_the_uncalled_parameters_method_is_named():
    model = Linear(2, 3)
    with pytest.raises(
        TypeError, match=r"SGD: params is the method model\.parameters itself, .*parameters\(\)"
    ):
        SGD(model.parameters, lr=0.1)
    assert len(SGD(model.parameters(), lr=0.1).params) == 2


def test_constructor_errors():
    w = Variable(np.ones(2))
    with pytest.raises(ValueError, match="empty"):
        SGD([])
    with pytest.raises(TypeError, match=r"params\[1\] is a ndarray"):
        SGD([w, np.ones(2)])
    with pytest.raises(TypeError, match="wrap one"):
        SGD(w)
    with pytest.raises(ValueError, match="lr must be non-negative"):
        Adam([w], lr=-1.0)
    with pytest.raises(ValueError, match="nesterov"):
        SGD([w], nesterov=True)
    with pytest.raises(ValueError, match="momentum"):
        MomentumSGD([w], momentum=1.0)
    with pytest.raises(ValueError, match="betas"):
        Adam([w], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="rho"):
        AdaDelta([w], rho=1.5)
    with pytest.raises(TypeError, match="not callable"):
        SGD([w]).add_hook(3)  # type: ignore[arg-type]


def test_weight_decay_hook_equals_sgd_weight_decay():
    w_hook, w_arg = Variable(W0.copy()), Variable(W0.copy())
    quadratic_grad_step(SGD([w_hook], lr=0.1).add_hook(WeightDecay(0.3)), w_hook)
    quadratic_grad_step(SGD([w_arg], lr=0.1, weight_decay=0.3), w_arg)
    np.testing.assert_allclose(w_hook.data, w_arg.data, rtol=1e-14)


def test_clip_grad_scales_global_norm():
    p0, p1 = Variable(np.zeros(2)), Variable(np.zeros(1))
    p0.grad, p1.grad = Variable(np.array([3.0, 0.0])), Variable(np.array([4.0]))
    ClipGrad(1.0)([p0, p1])
    np.testing.assert_allclose(np.concatenate([p0.grad.data, p1.grad.data]), [0.6, 0, 0.8], 1e-5)
    p0.grad = Variable(np.array([0.1, 0.0]))
    ClipGrad(1.0)([p0])  # below the threshold: unchanged
    np.testing.assert_array_equal(p0.grad.data, [0.1, 0.0])


def test_step_lr_decays_every_step_size_epochs():
    opt = SGD([Variable(np.ones(1))], lr=0.8)
    sched = StepLR(opt, step_size=3, gamma=0.5)
    lrs = []
    for _ in range(7):
        lrs.append(opt.lr)
        sched.step()
    np.testing.assert_allclose(lrs, [0.8] * 3 + [0.4] * 3 + [0.2])
    with pytest.raises(ValueError, match="step_size"):
        StepLR(opt, step_size=0)


# -- against torch.optim ----------------------------------------------------------------

TORCH_CASES = [
    ("SGD", SGD, {"lr": 0.05}, {"lr": 0.05}),
    ("SGD", SGD, {"lr": 0.05, "momentum": 0.9}, {"lr": 0.05, "momentum": 0.9}),
    (
        "SGD",
        SGD,
        {"lr": 0.05, "momentum": 0.8, "nesterov": True, "weight_decay": 0.1},
        {"lr": 0.05, "momentum": 0.8, "nesterov": True, "weight_decay": 0.1},
    ),
    ("SGD", MomentumSGD, {"lr": 0.05, "momentum": 0.9}, {"lr": 0.05, "momentum": 0.9}),
    ("Adagrad", AdaGrad, {"lr": 0.1}, {"lr": 0.1}),
    ("Adadelta", AdaDelta, {"lr": 1.0, "rho": 0.95}, {"lr": 1.0, "rho": 0.95}),
    ("Adam", Adam, {"lr": 0.05, "betas": (0.8, 0.95)}, {"lr": 0.05, "betas": (0.8, 0.95)}),
    ("Adam", Adam, {"lr": 0.05, "weight_decay": 0.1}, {"lr": 0.05, "weight_decay": 0.1}),
    ("AdamW", AdamW, {"lr": 0.05, "weight_decay": 0.1}, {"lr": 0.05, "weight_decay": 0.1}),
]


@pytest.mark.parametrize(
    ("torch_name", "make", "kwargs", "torch_kwargs"),
    TORCH_CASES,
    ids=[f"{c[1].__name__}-{i}" for i, c in enumerate(TORCH_CASES)],
)
def test_matches_torch_over_several_steps(torch_name, make, kwargs, torch_kwargs):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    w_init = [rng.standard_normal(3), rng.standard_normal((2, 2))]
    ws = [Variable(w.copy()) for w in w_init]
    tws = [torch.tensor(w.copy(), requires_grad=True) for w in w_init]
    opt = make(ws, **kwargs)
    topt = getattr(torch.optim, torch_name)(tws, **torch_kwargs)
    a0, a1 = np.array([1.0, 3.0, 0.2]), np.array([[2.0, 0.5], [1.0, 4.0]])
    for _ in range(6):
        opt.zero_grad()
        ((a0 * ws[0] * ws[0]).sum() + (a1 * ws[1] * ws[1] * ws[1]).sum()).backward()
        opt.step()
        topt.zero_grad()
        tloss = (torch.tensor(a0) * tws[0] ** 2).sum() + (torch.tensor(a1) * tws[1] ** 3).sum()
        tloss.backward()
        topt.step()
    for w, tw in zip(ws, tws):
        np.testing.assert_allclose(w.data, tw.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_clip_grad_matches_torch():
    torch = pytest.importorskip("torch")
    grads = [np.array([3.0, -1.0]), np.array([[2.0, 5.0]])]
    params = [Variable(np.zeros_like(g)) for g in grads]
    for p, g in zip(params, grads):
        p.grad = Variable(g.copy())
    tparams = [torch.zeros(g.shape, dtype=torch.float64, requires_grad=True) for g in grads]
    for tp, g in zip(tparams, grads):
        tp.grad = torch.tensor(g)
    clip = ClipGrad(2.0)
    clip(params)
    norm = torch.nn.utils.clip_grad_norm_(tparams, 2.0)
    assert clip.last_norm == pytest.approx(float(norm))
    for p, tp in zip(params, tparams):
        np.testing.assert_allclose(p.grad.data, tp.grad.numpy(), rtol=1e-12)


def test_step_lr_matches_torch():
    torch = pytest.importorskip("torch")
    topt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.3)
    tsched = torch.optim.lr_scheduler.StepLR(topt, step_size=2, gamma=0.1)
    opt = SGD([Variable(np.zeros(1))], lr=0.3)
    sched = StepLR(opt, step_size=2, gamma=0.1)
    for _ in range(5):
        topt.step()
        tsched.step()
        sched.step()
        assert sched.get_last_lr() == pytest.approx(tsched.get_last_lr()[0], rel=1e-12)


# ---- 0-d parameters -----------------------------------------------------------------------


def _sgd_trajectory_0d(steps: int) -> list[float]:
    b = Variable(np.array(1.0))
    opt = SGD([b], lr=0.1, momentum=0.9, weight_decay=0.1)
    values = []
    for _ in range(steps):
        opt.zero_grad()
        (b * b).backward()
        opt.step()
        values.append(float(b.data))
    return values


def test_sgd_momentum_with_weight_decay_updates_the_buffer_of_a_0d_parameter():
    # g = 2b + 0.1 b; buf = g, then 0.9 buf + g; b -= 0.1 buf (torch.optim.SGD by hand)
    b, buf, expected = 1.0, None, []
    for _ in range(3):
        g = 2.0 * b + 0.1 * b
        buf = g if buf is None else 0.9 * buf + g
        b -= 0.1 * buf
        expected.append(b)
    np.testing.assert_allclose(_sgd_trajectory_0d(3), expected, rtol=1e-12)


def test_sgd_momentum_buffer_of_a_0d_parameter_is_an_ndarray():
    b = Variable(np.array(1.0, dtype=np.float32))
    opt = SGD([b], lr=0.1, momentum=0.9, weight_decay=0.1)
    (b * b).backward()
    opt.step()
    buf = opt.state[0]["momentum_buffer"]
    assert isinstance(buf, np.ndarray) and buf.dtype == np.float32


def test_sgd_trajectory_of_a_0d_parameter_matches_torch():
    torch = pytest.importorskip("torch")
    tb = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.SGD([tb], lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1)
    b = Variable(np.array(1.0))
    mine = SGD([b], lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1)
    for _ in range(5):
        opt.zero_grad()
        (tb * tb).backward()
        opt.step()
        mine.zero_grad()
        (b * b).backward()
        mine.step()
        np.testing.assert_allclose(b.data, tb.item(), rtol=1e-12)


@pytest.mark.parametrize("hook", [WeightDecay(0.5), ClipGrad(0.1)], ids=repr)
def test_gradient_hooks_accept_0d_parameters(hook):
    p = Variable(np.array(2.0))
    p.grad = Variable(np.array(3.0))
    hook([p])
    assert isinstance(p.grad.data, np.ndarray) and p.grad.shape == ()


def test_clip_grad_skips_a_parameter_without_a_gradient():
    used, unused = Variable(np.zeros(2)), Variable(np.zeros(3))
    used.grad = Variable(np.array([6.0, 8.0]))  # norm 10
    clip = ClipGrad(5.0)
    clip([used, unused])  # the unused one's grad is None: left alone, as in PyTorch
    np.testing.assert_allclose(used.grad.data, [3.0, 4.0], rtol=1e-6)
    assert unused.grad is None and clip.last_norm == 10.0
