"""Checks for notebook 13's training loop: the order of a step's calls (zero_grad,
forward, backward, step) recorded and the usual faults named.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from checks import CheckFailed
from checks_build import (
    NOT_DONE,
    NotDoneYet,
    short_errors,
)


def record_training(model: Any, optimizer: Any) -> list[str]:
    """Record the training loop's ``model.zero_grad()`` and ``optimizer.step()`` calls.

    Returns the list the events go into: ``"zero_grad"`` (there were gradients to clear)
    or ``"zero_grad of nothing"``, and ``"step"`` or ``"empty step"`` (no gradient there).
    The wrappers are set on the two instances with ``object.__setattr__``, past any
    ``__setattr__`` of the student's Module; they call the real methods.
    """
    events: list[str] = []
    params = list(model.parameters())
    zero_grad, step = model.zero_grad, optimizer.step

    def recorded_zero_grad() -> None:
        had = any(p.grad is not None for p in params)
        events.append("zero_grad" if had else "zero_grad of nothing")
        zero_grad()

    def recorded_step() -> None:
        events.append("step" if any(p.grad is not None for p in params) else "empty step")
        step()

    object.__setattr__(model, "zero_grad", recorded_zero_grad)
    object.__setattr__(optimizer, "step", recorded_step)
    return events


def _loop_fault(events: list[str]) -> str:
    """Name what the recorded calls of a training loop got wrong, else ``""``."""
    steps = [e for e in events if e.endswith("step")]
    if not steps:
        return "optimizer.step() never ran: call it after loss.backward(), for every batch"
    if "step" not in steps:
        if "zero_grad" in events:
            return (
                "every optimizer.step() found no gradients: model.zero_grad() ran between "
                "loss.backward() and step and cleared them; call it before loss.backward()"
            )
        return "no gradient was computed: call loss.backward() for every batch, before step"
    if steps[0] == "empty step":
        return (
            "the first optimizer.step() ran before any loss.backward(): per batch, "
            "model.zero_grad(), loss.backward(), then optimizer.step()"
        )
    if not any(e.startswith("zero_grad") for e in events):
        return (
            "model.zero_grad() never ran: the gradients piled up over all steps. Call it "
            "before each loss.backward()"
        )
    return ""


def diagnose_training(
    model: Any,
    untrained: list[np.ndarray],
    loader: Any,
    rng_state: Any,
    loss_of: Callable[[Any, Any, Any], Any],
    events: list[str] | None = None,
) -> None:
    """Say what went wrong in the capstone's training loop (notebook 13, exercise 7).

    ``untrained`` are the weights before the loop, ``rng_state`` the loader's generator
    state then (it moves on with every epoch, so it tells whether the loop ran).
    ``loss_of(model, x, t)`` computes a loss Tensor with the student's framework;
    ``events`` is what :func:`record_training` recorded.
    """
    params = list(model.parameters())
    unchanged = all(np.array_equal(p.data, u) for p, u in zip(params, untrained))
    if unchanged and loader.rng.bit_generator.state == rng_state:
        raise NotDoneYet(NOT_DONE.format(what="Exercise 7 (the training loop)"))
    fault = _loop_fault(events) if events is not None else ""
    if fault:
        raise CheckFailed(fault)
    if unchanged:
        if all(p.grad is None for p in params):
            raise CheckFailed(
                "the loop ran but the weights never changed, and no gradient was computed: "
                "call loss.backward() for every batch"
            )
        raise CheckFailed(
            "the loop ran but the weights never changed: call optimizer.step() after "
            "loss.backward(), for every batch"
        )
    kept = [None if p.grad is None else np.array(p.grad, copy=True) for p in params]
    if any(g is None for g in kept):
        return
    xb, tb = loader.dataset.data[:64], loader.dataset.label[:64]  # not the loader: its order
    model.zero_grad()  # must not move on
    loss_of(model, xb, tb).backward()
    fresh = float(np.sqrt(sum(np.sum(p.grad**2) for p in params)))
    left = float(np.sqrt(sum(np.sum(g**2) for g in kept if g is not None)))
    for p, g in zip(params, kept):  # leave the model as it was
        p.grad = g
    if left > 20 * fresh:
        raise CheckFailed(
            f"the gradients left after training have norm {left:.3g}, far above one batch's "
            f"({fresh:.3g}): they piled up over all steps. Call model.zero_grad() before "
            "each loss.backward()"
        )


short_errors(globals())  # whatever escapes a check is shown short
