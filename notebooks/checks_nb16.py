"""Checks for notebook 16 (memory and cost: saved bytes, ``saves``, checkpoints, optimizer state).

Every reference is computed here by arithmetic (elements times 8 bytes) or with NumPy;
a wrong answer is compared with the answers the typical mistakes give, and a match names
the mistake. The library is used only to run the student's code and to read what a
Function kept (``saved_arrays``), the fact the exercise is about.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
from checks import CheckFailed, explain_errors

from minitorch import using_config


def _as_the_library_saves(check: Callable[..., None]) -> Callable[..., None]:
    """Run a check with ``Config.save_all`` off: what a Function keeps is the lesson, and
    a kernel that ran notebook 03, 05 or 06 first (they keep every input) must not
    change it."""

    @functools.wraps(check)
    def run(*args: Any, **kwargs: Any) -> None:
        with using_config("save_all", False):
            check(*args, **kwargs)

    return run


OPS = ("Exp", "Add", "Sin", "Sum")


# -- Exercise 1: predict the saved bytes ------------------------------------------------------
def _per_op(exp: int, add: int, sin: int, total: int) -> dict[str, int]:
    return {"Exp": exp, "Add": add, "Sin": sin, "Sum": total}


@_as_the_library_saves
def check_predicted_saved_bytes(predicted_saved_bytes: Callable[[int], Any]) -> None:
    """Exercise 1: ``predicted_saved_bytes(n)`` for ``F.sum(F.sin(F.exp(x) + 1.0))``."""
    n = 1000
    with explain_errors(f"predicted_saved_bytes({n})"):
        got = predicted_saved_bytes(n)
    if not isinstance(got, dict):
        raise CheckFailed(
            f"predicted_saved_bytes({n}) should return a dict, one entry per Function, got "
            f"{type(got).__name__}\n  hint: {{'Exp': ..., 'Add': ..., 'Sin': ..., 'Sum': ...}}"
        )
    missing = [op for op in OPS if op not in got]
    if missing:
        raise CheckFailed(
            f"predicted_saved_bytes({n}) has no entry for {', '.join(missing)}: "
            f"give one number of bytes for each of {', '.join(OPS)}"
        )
    got = {op: got[op] for op in OPS}
    a = 8 * n  # one float64 array of n elements
    expected = _per_op(a, 0, a, 0)
    if got == expected:
        return
    if all(v == 2 * a for v in got.values()):
        raise CheckFailed(
            "every op is counted as keeping its input and its output: each keeps only what its "
            "gradient rule reads (Add and Sum nothing, Exp its output, Sin its input)"
        )
    if all(v == expected[op] // 8 for op, v in got.items()):
        raise CheckFailed(
            f"these are numbers of elements: a float64 takes 8 bytes, so an array "
            f"of {n} elements is {a} bytes"
        )
    if all(v == expected[op] // 2 for op, v in got.items()):
        raise CheckFailed(
            "these are float32 sizes (4 bytes per element): x is float64, 8 bytes per element"
        )
    hints = {
        "Exp": {
            0: "Exp keeps its output: its rule is gx = gy * y, which reads y = exp(x)",
            2 * a: "Exp keeps only its output (gx = gy * y): the input x is not read",
            a // 8: "Exp: count bytes, 8 per float64 element, not elements",
        },
        "Add": {
            a: "Add keeps nothing: its gradient is gy itself (summed to the input's shape)",
            2 * a: "Add keeps nothing: its gradient is gy itself, it reads no value",
        },
        "Sin": {
            0: "Sin keeps its input: its rule is gx = gy * cos(x), which reads x",
            2 * a: "Sin keeps only its input (gx = gy * cos(x)), not its output",
            a // 8: "Sin: count bytes, 8 per float64 element, not elements",
        },
        "Sum": {
            a: "Sum keeps nothing: its gradient is gy broadcast to the input's shape, which "
            "needs only the shape",
            8: "Sum keeps nothing, not even its one-element output: gx = gy broadcast to "
            "x's shape",
        },
    }
    for op in OPS:
        if got[op] != expected[op]:
            hint = hints[op].get(
                got[op], f"expected {expected[op]} bytes for {n} float64 elements"
            )
            raise CheckFailed(f"predicted_saved_bytes({n})[{op!r}] is {got[op]}: {hint}")


# -- Exercise 2: a Function that saves only what it needs ---------------------------------------
def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


@_as_the_library_saves
def check_sigmoid_function(Sigmoid: type) -> None:
    """Exercise 2: ``class Sigmoid(Function)`` keeping only its output (``saves_input`` False)."""
    from minitorch import Variable
    from minitorch.core import saved_arrays

    x_data = np.array([-2.0, -0.5, 0.0, 0.7, 3.0])
    gy = np.array([1.0, 2.0, -1.0, 0.5, 3.0])
    x = Variable(x_data.copy())
    h = x * 1.0  # an intermediate value, which only what Sigmoid saves keeps alive
    with explain_errors("Sigmoid()(x * 1.0)"):
        y = Sigmoid()(h)
    s = _sigmoid(x_data)
    y_data = np.asarray(getattr(y, "data", y), dtype=np.float64)
    if y_data.shape == s.shape and np.allclose(y_data, _sigmoid(-x_data)):
        raise CheckFailed("Sigmoid's forward has the wrong sign: sigmoid(x) = 1 / (1 + exp(-x))")
    if y_data.shape != s.shape or not np.allclose(y_data, s):
        raise CheckFailed(
            f"Sigmoid's forward gives {np.round(y_data, 4)}, expected {np.round(s, 4)}: "
            "1 / (1 + exp(-x))"
        )
    try:
        with explain_errors("Sigmoid's backward"):
            (y * Variable(gy)).sum().backward()
    except CheckFailed as err:
        # told by what the Function kept, not by the wording of the engine's refusal
        if "RuntimeError" in str(err) and not any(a is h.data for a in saved_arrays(y.creator)):
            raise CheckFailed(
                "Sigmoid's backward reads its input x, which saves_input lets go: write gx from "
                "y = self.output(), gy * y * (1 - y)"
            ) from None
        raise
    expected = gy * s * (1 - s)
    g = None if x.grad is None else np.asarray(x.grad.data, dtype=np.float64)
    if g is None:
        raise CheckFailed("x.grad is None after backward: backward should return gx")
    wrong = [
        ("gy is not multiplied in: gx = gy * y * (1 - y)", s * (1 - s)),
        ("the factor (1 - y) is missing: gx = gy * y * (1 - y)", gy * s),
        ("this is gy * (1 - y)²... the derivative is y * (1 - y)", gy * (1 - s) ** 2),
        (
            "this uses x where y belongs: gx = gy * y * (1 - y) with y the output",
            gy * x_data * (1 - x_data),
        ),
    ]
    if g.shape != expected.shape or not np.allclose(g, expected):
        for mistake, value in wrong:
            if g.shape == value.shape and np.allclose(g, value):
                raise CheckFailed(f"Sigmoid's gradient is wrong: {mistake}")
        raise CheckFailed(
            f"Sigmoid's gradient is {np.round(g, 4)}, expected {np.round(expected, 4)}"
        )
    kept = saved_arrays(y.creator)
    has_input = any(a is h.data for a in kept)
    has_output = any(a.shape == s.shape and np.allclose(a, s) for a in kept)
    if has_input and has_output:
        raise CheckFailed(
            "the gradient is right, but Sigmoid keeps its input and its output (the default): "
            "its rule reads only y, so saves_input(i) should return False"
        )
    if has_input:
        raise CheckFailed(
            "the gradient is right, but Sigmoid keeps its input: y * (1 - y) needs only the "
            "output, so write it from self.output() and return False from saves_input"
        )
    if not has_output or len(kept) != 1:
        raise CheckFailed(
            f"Sigmoid keeps {len(kept)} arrays for backward: it should keep one, "
            "its output (saves_input returns False; the output is kept by default)"
        )


# -- Exercise 3: checkpoint each block ----------------------------------------------------------
def _blocks(rng: int = 0) -> list[Any]:
    from minitorch import nn

    return [nn.Sequential(nn.Linear(6, 6, rng=rng + k), nn.Tanh()) for k in range(3)]


def _plain(blocks: list[Any], x: Any) -> Any:
    for block in blocks:
        x = block(x)
    return x


@_as_the_library_saves
def check_checkpointed(checkpointed: Callable[..., Any]) -> None:
    """Exercise 3: ``checkpointed(blocks, x)`` runs each block under ``minitorch.checkpoint``."""
    from minitorch import Variable
    from minitorch.core.graph import functions

    blocks = _blocks()
    x_data = np.random.default_rng(16).normal(size=(4, 6))
    x = Variable(x_data.copy())
    with explain_errors(
        "checkpointed(blocks, x)",
        (
            "not callable",
            "checkpoint takes the block and its input: checkpoint(block, h), "
            "not checkpoint(block(h))",
        ),
    ):
        y = checkpointed(blocks, x)
    if isinstance(y, tuple | list):
        raise CheckFailed(
            f"checkpointed returns a {type(y).__name__}: return the last block's output, one "
            "Variable (h, not (h,) or a list of every block's output)"
        )
    if not isinstance(y, Variable):
        raise CheckFailed(f"checkpointed should return a Variable, got {type(y).__name__}")
    ref = Variable(x_data.copy())
    ref_y = _plain(blocks, ref)
    last_only = blocks[-1](Variable(x_data.copy()))
    if (
        y.shape == ref_y.shape
        and np.allclose(y.data, last_only.data)
        and not np.allclose(y.data, ref_y.data)
    ):
        raise CheckFailed(
            "the output is the last block applied to x: each block reads the "
            "previous block's output, h = minitorch.checkpoint(block, h)"
        )
    if y.shape != ref_y.shape or not np.allclose(y.data, ref_y.data):
        raise CheckFailed(
            "checkpointed(blocks, x) differs from running the blocks one after "
            "the other: checkpoint changes what is kept, never the value"
        )
    if y.creator is None:
        raise CheckFailed(
            "the output has no graph (was it made under no_grad?): checkpoint "
            "records one Function per block, so that backward can recompute it"
        )
    names = [type(f).__name__ for f in functions(y)]
    n_checkpoints = names.count("Checkpoint")
    if n_checkpoints == 0:
        raise CheckFailed(
            "no block is checkpointed: the graph keeps every layer's values; run "
            "each block as h = minitorch.checkpoint(block, h)"
        )
    if len(names) > n_checkpoints:
        inside = sorted(set(names) - {"Checkpoint"})
        raise CheckFailed(
            f"the graph also records {', '.join(inside)}: run every block through "
            "minitorch.checkpoint, so none of its insides is kept"
        )
    if n_checkpoints != len(blocks):
        raise CheckFailed(
            f"the graph has {n_checkpoints} Checkpoint for {len(blocks)} blocks: "
            "checkpoint each block on its own, h = minitorch.checkpoint(block, h)"
        )
    (y * y).sum().backward()
    (ref_y * ref_y).sum().backward()
    if x.grad is None or not np.allclose(x.grad.data, ref.grad.data):
        raise CheckFailed("the gradient with respect to x differs from the plain run's")


# -- Exercise 4: what an optimizer keeps ---------------------------------------------------------
@_as_the_library_saves
def check_state_bytes(state_bytes: Callable[..., Any]) -> None:
    """Exercise 4: ``state_bytes(n_params, optimizer, itemsize)``, the optimizer state's bytes."""
    n = 1000
    cases = [
        ("SGD", 8, 0),
        ("SGD momentum", 8, 8 * n),
        ("Adam", 8, 16 * n),
        ("Adam", 4, 8 * n),
        ("SGD momentum", 4, 4 * n),
    ]
    for optimizer, itemsize, expected in cases:
        what = f"state_bytes({n}, {optimizer!r}, itemsize={itemsize})"
        with explain_errors(what):
            got = state_bytes(n, optimizer, itemsize)
        if got == expected:
            continue
        one = itemsize * n  # one array the parameters' size
        hints = {
            "SGD": {
                one: "plain SGD keeps nothing between steps: p -= lr * grad reads only "
                "this step's gradient"
            },
            "SGD momentum": {
                0: "momentum keeps one buffer per parameter (b <- momentum * b + g)",
                2 * one: "momentum keeps one buffer per parameter, not two",
            },
            "Adam": {
                3 * one: "this counts the parameters too: Adam's state is its two moments, "
                "m and v, each the parameters' shape: 2x the parameters",
                one: "Adam keeps two arrays per parameter, m and v (the first and second "
                "moments), not one",
                4 * one: "this counts the parameters and their gradients too: the "
                "optimizer's own state is m and v only",
            },
        }
        if got == expected // itemsize and expected:
            hint = f"this is a number of elements: multiply by itemsize ({itemsize} bytes each)"
        elif itemsize == 4 and got == 2 * expected and expected:
            hint = "itemsize is ignored: float32 takes 4 bytes per element, use the argument"
        else:
            hint = hints[optimizer].get(got, f"expected {expected}")
        raise CheckFailed(f"{what} is {got}: {hint}")
