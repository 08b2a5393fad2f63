"""Checks for notebook 10 (classification): optimizers stepped against minitorch's, with the
typical wrong update rules recognised by their trajectories."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from checks import check_close
from checks_build import exercise


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
    states: list[dict[str, Any]] = [{} for _ in params]
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
            "the shapes don't fit: keep one state array per parameter (a list, like self.params)",
        ),
    ):
        got = run_optimizer(yours, steps)
    expected = run_optimizer(reference, steps)
    wrong = {hint: _numpy_trace(rule, steps) for hint, rule in variants.items()}
    for step in range(steps):
        for k in range(len(expected[step])):
            g, e = got[step][k], expected[step][k]
            if g.shape != e.shape:
                raise AssertionError(
                    f"after step {step + 1}, parameter {k} has shape {g.shape}, expected {e.shape}"
                )
            if np.allclose(g, e, atol=1e-7, rtol=1e-6):
                continue
            if not np.any(np.isfinite(g)):
                raise AssertionError(
                    f"your {name}'s parameters all became nan or inf at step {step + 1}: a "
                    "division by zero? (1 - beta**t) is 0 when t = 0, so count t up before "
                    "using it"
                )
            if not np.all(np.isfinite(g)):
                raise AssertionError(
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
                    raise AssertionError(
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

    return {
        "your steps equal plain SGD: the velocity must persist between steps "
        "(store it per parameter, e.g. in a dict or list on self, and update it)": no_memory,
        "the velocity only grows: multiply the old velocity by momentum before adding the "
        "gradient": no_momentum_factor,
        "the parameters move uphill: subtract the step (p.data -= lr * v)": (
            lr_in_buffer_wrong_sign
        ),
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

    return {
        "eps goes outside the square root: m_hat / (sqrt(v_hat) + eps)": eps_inside,
        "no bias correction: divide m by (1 - beta1**t) and v by (1 - beta2**t), with t the "
        "number of steps taken so far (1 at the first step)": no_correction,
        "the second moment should average the *squared* gradient, g * g": no_square,
        "the step count t should be 1 at the first step (count it up before using it)": (
            t_from_zero
        ),
        "the step count t stays at 1: keep it on self and add 1 at every step()": t_frozen,
    }
