"""Checks for notebook 13's engine: ``Function.__call__`` (what it records) and the
backward pass (order, accumulation, seeds), each on hand-built graphs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from checks import CheckFailed, check_close
from checks_build import (
    NotDoneYet,
    check_close_diagnosed,
    exercise,
    require,
)


# -- notebook 13: the capstone -----------------------------------------------------------
# The student's framework has its own Tensor (an array, .grad as an ndarray, .creator), a
# Function base class whose __call__ calls the global ``call``, and an engine ``backward``.
# The checks below build their test graphs by hand (setting ``inputs``/``output``), so
# each exercise is checked without the others.
class _Op:
    """A hand-made node for the engine check: ``backward`` returns fixed formulas.

    It counts its ``backward`` calls and notes whether its output's gradient had arrived,
    so the check can say *how* an engine went wrong.
    """

    def __init__(
        self,
        tensor_class: type,
        inputs: list[Any],
        value: np.ndarray,
        grads: Callable[[np.ndarray], tuple[np.ndarray, ...]],
    ) -> None:
        self.inputs = inputs
        self.output = tensor_class(value, creator=self)
        self._grads = grads
        self.calls = 0
        self.early = False  # ran before its output had a gradient
        self.foreign = False  # was given a gradient that is not its output's

    def backward(self, gy: np.ndarray) -> tuple[np.ndarray, ...]:
        self.calls += 1
        if gy is None:
            self.early = True
        elif gy is not self.output.grad:
            self.foreign = True
        return self._grads(gy)


def check_call(call: Callable[..., Any], tensor_class: type, function_class: type) -> None:
    """Check the capstone's ``call(f, *inputs)``: wrap, run forward, record the graph."""
    require("call", call)

    class Twice(function_class):  # type: ignore[misc, valid-type]
        def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
            self.seen = (a, b)
            return 2 * a + b

        def backward(self, gy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return 2 * gy, gy

    a = tensor_class(np.array([1.0, 2.0]))
    f = Twice()
    try:
        with exercise("call(f, a, np.array([10.0, 20.0]))"):
            y = call(f, a, np.array([10.0, 20.0]))
    except NotDoneYet:
        raise
    except AssertionError as err:
        seen = getattr(f, "seen", None)
        if seen is not None and any(isinstance(s, tensor_class) for s in seen):
            raise CheckFailed(
                "forward received Tensors: give f.forward their arrays, x.data"
            ) from None
        if seen is None and "Tensor" in str(err):
            raise CheckFailed(
                "a Tensor was wrapped in a Tensor: wrap only the inputs that are not Tensors "
                "yet (x if isinstance(x, Tensor) else Tensor(x))"
            ) from None
        raise
    if not isinstance(y, tensor_class):
        raise CheckFailed(
            f"call should return a Tensor, got {type(y).__name__}: wrap forward's result, "
            "Tensor(result, creator=f)"
        )
    seen = getattr(f, "seen", None)
    if seen is None or any(isinstance(s, tensor_class) for s in seen):
        raise CheckFailed("forward should receive the inputs' arrays (x.data), not the Tensors")
    check_close("call(f, a, b).data", y.data, np.array([12.0, 24.0]))
    if y.creator is not f:
        raise CheckFailed("the output's creator should be f (Tensor(result, creator=f))")
    inputs = list(getattr(f, "inputs", []) or [])
    if len(inputs) != 2 or inputs[0] is not a:
        raise CheckFailed(
            "f.inputs should be the list of input Tensors (the same objects: a, then b), so "
            "the engine can walk back from f to them"
        )
    if not isinstance(inputs[1], tensor_class):
        raise CheckFailed(
            "a plain ndarray input should be wrapped in a Tensor (a constant) before it is "
            "stored in f.inputs"
        )
    if getattr(f, "output", None) is not y:
        raise CheckFailed("store the output on the Function too, f.output = the Tensor")


def _engine_fault(y: Any, ops: list[_Op]) -> str:
    """Name what a failed or wrong engine run did, from the nodes' records; else ``""``."""
    if y.grad is None:
        return "y.grad was never set: start the engine with y.grad = np.ones_like(y.data)"
    if any(op.foreign for op in ops):
        return (
            "a Function's backward was given another Tensor's gradient: call it with the "
            "gradient of *its own* output, f.backward(f.output.grad)"
        )
    if any(op.calls > 1 for op in ops):
        return (
            "a Function's backward ran more than once: the depth-first search must add each "
            "Function to the order once (remember the visited ones in a set)"
        )
    if any(op.early for op in ops):
        return (
            "a Function's backward ran before its output's gradient had arrived: visit the "
            "Functions in reverse topological order (a depth-first search that appends a "
            "Function after its inputs' creators, walked *reversed*, last appended first)"
        )
    if any(op.calls == 0 for op in ops):
        return "some Functions never ran their backward: walk the whole graph from y.creator"
    return ""


def check_engine(backward: Callable[[Any], None], tensor_class: type) -> None:
    """Check the capstone's ``backward(y)`` on hand-built graphs with known gradients."""
    require("backward", backward)
    T = tensor_class

    def run(what: str, y: Any, ops: list[_Op]) -> None:
        try:
            with exercise(what):
                backward(y)
        except NotDoneYet:
            raise
        except AssertionError as err:
            fault = _engine_fault(y, ops)
            if fault:
                raise CheckFailed(f"{what}: {fault}") from None
            raise err from None
        fault = _engine_fault(y, ops)
        if fault:
            raise CheckFailed(f"{what}: {fault}")

    # 1. y = x * x + x: x is used three times
    x = T(np.array([1.0, 2.0, -3.0]))
    sq = _Op(T, [x, x], x.data**2, lambda g: (g * x.data, g * x.data))
    top = _Op(T, [sq.output, x], sq.output.data + x.data, lambda g: (g, g))
    y = top.output
    run("backward(y) for y = x*x + x", y, [sq, top])
    if x.grad is None:
        raise CheckFailed(
            "x.grad is None after backward(y): give each input of each Function its gradient"
        )
    overwritten = (
        "only the last contribution survived: a Tensor used several times must *add* its "
        "gradients (x.grad = g if x.grad is None else x.grad + g)"
    )
    check_close_diagnosed(
        "x.grad for y = x*x + x",
        x.grad,
        2 * x.data + 1,
        [
            (overwritten, np.ones(3)),
            (overwritten, x.data),
            (overwritten, x.data + 1),
            (overwritten, 2 * x.data),
        ],
    )
    check_close(
        "y.grad (the seed)", y.grad, np.ones(3), hint="start with y.grad = np.ones_like(y.data)"
    )
    # 2. a product with different gradients per input: each gradient goes to its input
    p, q = T(np.array([2.0, -1.0])), T(np.array([3.0, 5.0]))
    prod = _Op(T, [p, q], p.data * q.data, lambda g: (g * q.data, g * p.data))
    run("backward(m) for m = p * q", prod.output, [prod])
    if p.grad is not None and np.allclose(p.grad, p.data) and np.allclose(q.grad, q.data):
        raise CheckFailed(
            "m = p * q: p got q's gradient and q got p's: pair the gradients with the inputs "
            "in order, zip(f.inputs, grads)"
        )
    check_close("p.grad for m = p * q", p.grad, q.data, hint="dm/dp = q")
    # 3. a diamond: a = exp(u); b = a * a; c = b + a. a's creator must wait for both uses.
    u = T(np.array([0.5, -1.0]))
    ea = np.exp(u.data)
    exp = _Op(T, [u], ea, lambda g: (g * ea,))
    a = exp.output
    square = _Op(T, [a, a], ea**2, lambda g: (g * ea, g * ea))
    total = _Op(T, [square.output, a], ea**2 + ea, lambda g: (g, g))
    c = total.output
    run("backward(c) for c = exp(u)**2 + exp(u)", c, [exp, square, total])
    expected = (2 * ea + 1) * ea
    if u.grad is not None and np.allclose(u.grad, ea) and not np.allclose(ea, expected):
        raise CheckFailed(
            "the gradient of u is exp(u), the share of only one path: a Function's backward "
            "ran before all gradients of its output had arrived. Visit the Functions in "
            "reverse topological order (a depth-first search that appends a Function after "
            "its inputs' creators, then reversed)"
        )
    check_close(
        "u.grad for c = exp(u)**2 + exp(u)",
        u.grad,
        expected,
        hint="each Function's backward must run once, after all the gradients of its "
        "output have been added up: reverse topological order",
    )
