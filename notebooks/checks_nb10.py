"""Checks for notebook 10 (classification): optimizers stepped against minitorch's, with the
typical wrong update rules recognised by their trajectories, and one training epoch.

The softmax and cross-entropy checks live in ``checks_nb10_softmax``; this module hands
them on, so the notebook imports every check of notebook 10 from here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from checks import CheckFailed, check_close
from checks_build import check_close_diagnosed, exercise, require, short_errors
from checks_nb10_softmax import check_cross_entropy_np as check_cross_entropy_np  # handed on
from checks_nb10_softmax import check_softmax_np as check_softmax_np


def _problem(seed: int = 0) -> tuple[list[np.ndarray], Callable[[list[Any]], Any]]:
    """Starting values and a loss with different curvatures, for optimizer checks."""
    rng = np.random.default_rng(seed)
    starts = [rng.standard_normal((2, 3)), rng.standard_normal(3)]
    scales = [np.array([[1.0, 3.0, 0.5], [2.0, 0.2, 1.0]]), np.array([4.0, 0.1, 1.0])]

    def loss(params: list[Any]) -> Any:
        total = None
        for p, s in zip(params, scales):
            term = (p * p * s).sum() + (p * s).sum()
            total = term if total is None else total + term
        return total

    return starts, loss


def run_optimizer(make: Callable[[list[Any]], Any], steps: int) -> list[list[np.ndarray]]:
    """Run ``steps`` optimizer steps on :func:`_problem`; return the parameters after each."""
    from minitorch import Variable

    starts, loss = _problem()
    params = [Variable(s.copy()) for s in starts]
    optimizer = make(params)
    trace = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss(params).backward()
        optimizer.step()
        trace.append([p.data.copy() for p in params])
    return trace


def _numpy_trace(
    update: Callable[[np.ndarray, np.ndarray, dict[str, Any], int], np.ndarray], steps: int
) -> list[list[np.ndarray]]:
    """The same run as :func:`run_optimizer` with a NumPy update rule (for wrong variants)."""
    starts, _ = _problem()
    scales = [np.array([[1.0, 3.0, 0.5], [2.0, 0.2, 1.0]]), np.array([4.0, 0.1, 1.0])]
    params = [s.copy() for s in starts]
    # each rule's state per parameter; its index too, for rules that mix them up
    states: list[dict[str, Any]] = [{"index": i, "count": len(params)} for i in range(len(params))]
    trace = []
    for t in range(1, steps + 1):
        for i, (p, s) in enumerate(zip(params, scales)):
            grad = 2 * p * s + s
            params[i] = update(p, grad, states[i], t)
        trace.append([p.copy() for p in params])
    return trace


def check_optimizer(
    name: str,
    yours: Callable[[list[Any]], Any],
    reference: Callable[[list[Any]], Any],
    variants: dict[str, Callable[..., np.ndarray]],
    steps: int = 6,
) -> None:
    """Compare ``steps`` steps of the student's optimizer with minitorch's, step by step.

    ``variants`` maps a hint to a NumPy update rule ``(p, grad, state, t) -> new p`` of a
    typical mistake; a trajectory that matches one gets that hint.
    """
    with exercise(
        f"your {name}",
        (
            "broadcast",
            "the shapes don't fit: keep one state array per parameter, of its shape: "
            "[np.zeros_like(p.data) for p in params] ([a] * n is n times the same array)",
        ),
    ):
        got = run_optimizer(yours, steps)
    expected = run_optimizer(reference, steps)
    wrong = {hint: _numpy_trace(rule, steps) for hint, rule in variants.items()}
    for step in range(steps):
        for k in range(len(expected[step])):
            g, e = got[step][k], expected[step][k]
            if g.shape != e.shape:
                raise CheckFailed(
                    f"after step {step + 1}, parameter {k} has shape {g.shape}, expected {e.shape}"
                )
            if np.allclose(g, e, atol=1e-7, rtol=1e-6):
                continue
            if not np.any(np.isfinite(g)):
                raise CheckFailed(
                    f"your {name}'s parameters all became nan or inf at step {step + 1}: a "
                    "division by zero? (1 - beta**t) is 0 when t = 0, so count t up before "
                    "using it"
                )
            if not np.all(np.isfinite(g)):
                raise CheckFailed(
                    f"some of your {name}'s parameters became nan at step {step + 1} (where "
                    "the gradient is negative): the square root of a negative number. v must "
                    "average the squared gradient, g * g, which is never negative"
                )
            for hint, trace in wrong.items():
                if all(
                    np.allclose(got[s][j], trace[s][j], atol=1e-7, rtol=1e-6)
                    for s in range(step + 1)
                    for j in range(len(trace[s]))
                ):
                    raise CheckFailed(
                        f"your {name} differs from minitorch's at step {step + 1}: {hint}"
                    )
            if step > 0 and all(np.allclose(got[0][j], expected[0][j]) for j in range(2)):
                note = " (step 1 was right, so the state kept between steps is the suspect)"
            else:
                note = ""
            check_close(
                f"parameter {k} after step {step + 1} of your {name}",
                g,
                e,
                atol=1e-7,
                rtol=1e-6,
                hint=note.strip(" ()"),
            )


def sgd_variants(lr: float, momentum: float) -> dict[str, Callable[..., np.ndarray]]:
    """Typical wrong momentum-SGD updates, for :func:`check_optimizer`."""

    def no_memory(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        return p - lr * g

    def no_momentum_factor(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        s["v"] = s.get("v", 0) + g
        return p - lr * s["v"]

    def lr_in_buffer_wrong_sign(
        p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int
    ) -> np.ndarray:
        s["v"] = momentum * s.get("v", 0) + lr * g
        return p + s["v"]

    def dampened(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        s["v"] = momentum * s.get("v", 0) + (1 - momentum) * g
        return p - lr * s["v"]

    def momentum_after(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        s["v"] = momentum * (s.get("v", 0) + g)
        return p - lr * s["v"]

    def no_lr(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        s["v"] = momentum * s.get("v", 0) + g
        return p - s["v"]

    return {
        "your steps equal plain SGD: the velocity is not kept between steps. `v = ...` "
        "rebinds a local name; update the stored array in place (v *= momentum; v += g)": (
            no_memory
        ),
        "the velocity only grows: multiply the old velocity by momentum before adding the "
        "gradient": no_momentum_factor,
        "the parameters move uphill: subtract the step (p.data -= lr * v)": (
            lr_in_buffer_wrong_sign
        ),
        "minitorch's momentum (as PyTorch's) adds the gradient itself, v = momentum * v + g, "
        "without a (1 - momentum) factor": dampened,
        "the momentum multiplies only the old velocity, v = momentum * v + g (you multiplied "
        "the gradient too)": momentum_after,
        "the step is lr times the velocity: p.data -= lr * v": no_lr,
    }


def adam_variants(
    lr: float, betas: tuple[float, float], eps: float
) -> dict[str, Callable[..., np.ndarray]]:
    """Typical wrong Adam updates, for :func:`check_optimizer`."""
    b1, b2 = betas

    def moments(g: np.ndarray, s: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
        s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
        s["v"] = b2 * s.get("v", 0) + (1 - b2) * g * g
        return s["m"], s["v"]

    def no_correction(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        m, v = moments(g, s)
        return p - lr * m / (np.sqrt(v) + eps)

    def no_square(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
        s["v"] = b2 * s.get("v", 0) + (1 - b2) * g
        m_hat, v_hat = s["m"] / (1 - b1**t), s["v"] / (1 - b2**t)
        return p - lr * m_hat / (np.sqrt(np.abs(v_hat)) + eps)

    def t_from_zero(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        m, v = moments(g, s)
        tt = t + 1
        return p - lr * (m / (1 - b1**tt)) / (np.sqrt(v / (1 - b2**tt)) + eps)

    def t_frozen(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        m, v = moments(g, s)
        return p - lr * (m / (1 - b1)) / (np.sqrt(v / (1 - b2)) + eps)

    def eps_inside(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        m, v = moments(g, s)
        return p - lr * (m / (1 - b1**t)) / np.sqrt(v / (1 - b2**t) + eps)

    def m_hat_only(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        m, v = moments(g, s)
        return p - lr * (m / (1 - b1**t)) / (np.sqrt(v) + eps)

    def v_hat_only(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        m, v = moments(g, s)
        return p - lr * m / (np.sqrt(v / (1 - b2**t)) + eps)

    def t_per_parameter(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        m, v = moments(g, s)
        tt = (t - 1) * s["count"] + s["index"] + 1  # t += 1 inside the loop over params
        return p - lr * (m / (1 - b1**tt)) / (np.sqrt(v / (1 - b2**tt)) + eps)

    def rebound(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        m, v = (1 - b1) * g, (1 - b2) * g * g  # the stored m, v stay zero
        return p - lr * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + eps)

    def m_rebound(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        _, v = moments(g, s)
        return p - lr * ((1 - b1) * g / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + eps)

    def v_rebound(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        m, _ = moments(g, s)
        return p - lr * (m / (1 - b1**t)) / (np.sqrt((1 - b2) * g * g / (1 - b2**t)) + eps)

    def betas_swapped(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        s["m"] = b2 * s.get("m", 0) + (1 - b2) * g
        s["v"] = b1 * s.get("v", 0) + (1 - b1) * g * g
        return p - lr * (s["m"] / (1 - b2**t)) / (np.sqrt(s["v"] / (1 - b1**t)) + eps)

    def no_sqrt(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        m, v = moments(g, s)
        return p - lr * (m / (1 - b1**t)) / (v / (1 - b2**t) + eps)

    def sign(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        m, v = moments(g, s)
        return p + lr * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + eps)

    return {
        "eps goes outside the square root: m_hat / (sqrt(v_hat) + eps)": eps_inside,
        "no bias correction: divide m by (1 - beta1**t) and v by (1 - beta2**t), with t the "
        "number of steps taken so far (1 at the first step)": no_correction,
        "the second moment should average the *squared* gradient, g * g": no_square,
        "the step count t should be 1 at the first step (count it up before using it)": (
            t_from_zero
        ),
        "the step count t stays at 1: keep it on self and add 1 at every step()": t_frozen,
        "only m is bias-corrected: v_hat = v / (1 - beta2**t) too": m_hat_only,
        "only v is bias-corrected: m_hat = m / (1 - beta1**t) too": v_hat_only,
        "t counts the steps, not the parameters: add 1 once per step(), before the loop "
        "over the parameters": t_per_parameter,
        "m and v start from zero at every step: `m = ...` rebinds a local name, so the "
        "stored state never changes; update it in place (m *= beta1; m += ...)": rebound,
        "m starts from zero at every step: `m = ...` makes a new local array, so the "
        "stored m never changes; update it in place (m *= beta1; m += ...)": m_rebound,
        "v starts from zero at every step: `v = ...` makes a new local array, so the "
        "stored v never changes; update it in place (v *= beta2; v += ...)": v_rebound,
        "beta1 = 0.9 goes with m (the gradient), beta2 = 0.999 with v (its square)": (
            betas_swapped
        ),
        "divide by the square root of v_hat: m_hat / (sqrt(v_hat) + eps)": no_sqrt,
        "the parameters move uphill: p.data -= lr * m_hat / (sqrt(v_hat) + eps)": sign,
    }


class _Spy:
    """An optimizer wrapper that records zero_grad and step, and the gradients at step."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.events = inner, []

    def zero_grad(self) -> None:
        had = any(p.grad is not None for p in self.inner.params)
        self.events.append("zero_grad" if had else "zero_grad of nothing")
        self.inner.zero_grad()

    def step(self) -> None:
        params = self.inner.params
        self.events.append("step" if any(p.grad is not None for p in params) else "empty step")
        self.inner.step()


def check_train_epoch(train_epoch: Callable[..., Any], train_set: Any) -> None:
    """Check notebook 10's ``train_epoch(model, loader, optimizer)`` on one epoch.

    The optimizer is wrapped to record the calls (zero_grad, step, and whether gradients
    were there at each step); the result is compared with the same epoch run by a
    reference loop from the same seeds.
    """
    require("train_epoch", train_epoch)
    import minitorch.ops as F
    from minitorch import data, manual_seed, nn, optim

    def setup() -> tuple[Any, Any, Any]:
        manual_seed(0)
        model = nn.MLP([2, 30, 3], activation="tanh", rng=0)
        loader = data.DataLoader(train_set, batch_size=30, shuffle=True, seed=0)
        return model, loader, optim.Adam(model.parameters(), lr=0.05)

    model, loader, opt = setup()
    spy = _Spy(opt)
    with exercise("train_epoch(model, loader, optimizer)"):
        try:
            result = train_epoch(model, loader, spy)
        except Exception:
            if spy.events[:1] == ["empty step"]:
                raise CheckFailed(
                    "the first optimizer.step() ran before any loss.backward(): per batch, "
                    "zero_grad, backward, then step, in that order"
                ) from None
            raise
    n = len(loader)
    steps = spy.events.count("step")
    if steps + spy.events.count("empty step") == 0:
        raise CheckFailed("optimizer.step() never ran: call it once per batch")
    if "step" not in spy.events:
        cleared = "zero_grad" in spy.events  # it found gradients, and step none after it
        raise CheckFailed(
            "every optimizer.step() found no gradients: "
            + (
                "zero_grad() ran just before it and cleared them; call zero_grad() before "
                "loss.backward(), not between backward and step"
                if cleared
                else "call loss.backward() before optimizer.step()"
            )
        )
    if steps != n:
        raise CheckFailed(
            f"the loop took {steps} steps for {n} batches: one optimizer.step() per batch"
        )
    if not any(e.startswith("zero_grad") for e in spy.events):
        raise CheckFailed(
            "optimizer.zero_grad() never ran: without it every backward() adds to the old "
            "gradients. Call it before each loss.backward()"
        )
    ref_model, ref_loader, ref_opt = setup()
    losses = []
    for xb, tb in ref_loader:
        loss = F.softmax_cross_entropy(ref_model(xb), tb)
        ref_opt.zero_grad()
        loss.backward()
        ref_opt.step()
        losses.append(loss.item())
    for p, r in zip(model.parameters(), ref_model.parameters()):
        if not np.allclose(p.data, r.data, atol=1e-6):
            raise CheckFailed(
                "after one epoch your model's weights differ from the reference loop's: each "
                "batch should run loss = F.softmax_cross_entropy(model(x), t), zero_grad, "
                "backward, step, in that order"
            )
    if not isinstance(result, float):
        raise CheckFailed(
            f"train_epoch returned a {type(result).__name__}: return the mean loss as a "
            "float (loss.item() per batch, then their mean)"
        )
    check_close_diagnosed(
        "the returned epoch loss",
        result,
        float(np.mean(losses)),
        [
            ("return the mean over the batches, not their sum", float(np.sum(losses))),
            ("that is the last batch's loss: average over all batches", losses[-1]),
            ("that is the first batch's loss: average over all batches", losses[0]),
        ],
        atol=1e-6,
    )


short_errors(globals())  # whatever escapes a check is shown short
