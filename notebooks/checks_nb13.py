"""Checks for notebook 13 (the capstone): each piece of the student's framework checked on
hand-built graphs, independent of the others."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from checks import CheckFailed, check_close
from checks_build import (
    NOT_DONE,
    NotDoneYet,
    check_close_diagnosed,
    exercise,
    require,
    short_errors,
)
from checks_nb08 import diagnose_gradient
from checks_nb10 import _numpy_trace, _problem, adam_variants


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


def _set_graph(f: Any, tensor_class: type, arrays: list[np.ndarray]) -> Any:
    """Run ``f.forward`` and record inputs/output by hand (independent of ``call``)."""
    f.inputs = [tensor_class(a) for a in arrays]
    out = f.forward(*[t.data for t in f.inputs])
    f.output = tensor_class(out, creator=f)
    return out


def _numeric(
    make: Callable[[], Any],
    tensor_class: type,
    arrays: list[np.ndarray],
    k: int,
    weights: np.ndarray,
) -> np.ndarray:
    eps = 1e-6
    grad = np.zeros_like(arrays[k])
    for index in np.ndindex(arrays[k].shape):
        total = []
        for step in (eps, -eps):
            shifted = [a.copy() for a in arrays]
            shifted[k][index] += step
            total.append(float(np.sum(_set_graph(make(), tensor_class, shifted) * weights)))
        grad[index] = (total[0] - total[1]) / (2 * eps)
    return grad


def _matches_any(g: Any, known: dict[str, Any]) -> bool:
    """True if ``g`` equals one of the known wrong answers (their hints come first)."""
    got = np.asarray(g, dtype=np.float64)
    return any(
        np.shape(v) == got.shape and np.allclose(got, v, atol=1e-5, rtol=1e-4)
        for v in known.values()
    )


def check_relu_at_zero(make: Callable[[], Any], tensor_class: type) -> None:
    """ReLU's gradient at exactly 0 is 0, the convention of minitorch and PyTorch."""
    require("ReLU", make)
    f = make()
    with exercise("ReLU.forward"):
        _set_graph(f, tensor_class, [np.array([0.0, 2.0, -2.0])])
    with exercise("ReLU.backward"):
        grads = f.backward(np.ones(3))
    g = grads[0] if isinstance(grads, (tuple, list)) else grads
    if np.shape(g) == (3,) and np.asarray(g, dtype=np.float64)[0] != 0:
        raise CheckFailed(
            "ReLU's gradient at x = 0 is not 0: by convention (minitorch's, PyTorch's) it is 0 "
            "there, so the mask is x > 0, not x >= 0"
        )


def check_function_backward(
    name: str,
    make: Callable[[], Any],
    tensor_class: type,
    arrays: list[np.ndarray],
    names: list[str],
    mistakes: Callable[[np.ndarray], dict[int, dict[str, Any]]] | None = None,
    shape_hints: list[str] | None = None,
) -> None:
    """Compare a capstone Function's ``backward`` with central differences, input by input.

    ``mistakes(gy)`` may return ``{input index: {hint: wrong gradient}}``;
    ``shape_hints[k]`` is added when input k's gradient has the wrong shape.
    """
    require(name, make)
    arrays = [np.array(a, dtype=np.float64) for a in arrays]
    f = make()
    with exercise(f"{name}.forward"):
        out = _set_graph(f, tensor_class, arrays)
    gy = np.random.default_rng(4).standard_normal(np.shape(out))
    with exercise(
        f"{name}.backward",
        (
            "matmul",
            "check the shapes of the product: gy is "
            "(N, D_out), W is (D_out, D_in), x is (N, D_in)",
        ),
    ):
        grads = f.backward(gy)
    grads = grads if isinstance(grads, (tuple, list)) else (grads,)
    if len(grads) != len(arrays):
        raise CheckFailed(
            f"{name}.backward should return {len(arrays)} gradients (one per input: "
            f"{', '.join(names)}), got {len(grads)}"
        )
    wrong = mistakes(gy) if mistakes else {}
    shapes = [None if g is None else np.shape(g) for g in grads]
    wanted = [a.shape for a in arrays]
    if shapes != wanted and sorted(map(str, shapes)) == sorted(map(str, wanted)):
        raise CheckFailed(
            f"{name}.backward returns the right gradients in the wrong order: return them in "
            f"the order of the inputs ({', '.join(names)})"
        )
    numerics = [_numeric(make, tensor_class, arrays, k, gy) for k in range(len(arrays))]
    for k, (g, a) in enumerate(zip(grads, arrays)):
        if g is None or np.shape(g) != a.shape:
            shape = None if g is None else np.shape(g)
            extra = f"\n  hint: {shape_hints[k]}" if shape_hints and shape_hints[k] else ""
            raise CheckFailed(
                f"{name}.backward: the gradient of {names[k]} has shape {shape}, but "
                f"{names[k]} has shape {a.shape} (a gradient has its input's shape){extra}"
            )
        numeric = numerics[k]
        unweighted = _numeric(make, tensor_class, arrays, k, np.ones_like(gy))
        right = np.allclose(g, numeric, atol=1e-5, rtol=1e-4)
        kind = (
            ""
            if right
            else diagnose_gradient(
                np.asarray(g, dtype=np.float64), numerics, k, unweighted, None, grads, names
            )
        )
        known = dict(wrong.get(k, {}))
        if kind and not _matches_any(g, known):
            raise CheckFailed(f"{name}.backward's gradient of {names[k]} is wrong: {kind}")
        check_close_diagnosed(
            f"{name}.backward's gradient of {names[k]}",
            g,
            numeric,
            known,
            atol=1e-5,
            rtol=1e-4,
            hint=kind,
        )


def check_softmax_ce(make: Callable[[np.ndarray], Any], tensor_class: type) -> None:
    """Check the capstone's ``SoftmaxCrossEntropy(labels)``: values, stability, gradient."""
    require("SoftmaxCrossEntropy", make)
    import minitorch.ops as F
    from minitorch import Variable

    z = np.array([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3], [1000.0, 999.0, 0.0]])
    t = np.array([0, 2, 1])
    f = make(t)
    with exercise("SoftmaxCrossEntropy(t).forward(z)"):
        got = _set_graph(f, tensor_class, [z])
    if not np.all(np.isfinite(got)):
        raise CheckFailed(
            "the loss is inf/nan for logits near 1000: subtract each row's maximum before "
            "np.exp (softmax does not change)"
        )
    zv = Variable(z.copy())
    ref = F.softmax_cross_entropy(zv, t)
    ref.backward()
    shifted = z - z.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    probs = np.exp(log_probs)
    picked = -log_probs[np.arange(3), t]
    check_close_diagnosed(
        "SoftmaxCrossEntropy forward",
        got,
        ref.data,
        {
            "that is the sum over the batch: take the mean": picked.sum(),
            "the loss is -log of the probability of the *true* class, p[arange(N), t]": -(
                log_probs[np.arange(3), [1, 0, 0]]
            ).mean(),
            "log_p[:, t] picks column t[j] of every row, for every j: index rows and columns "
            "together, log_p[np.arange(N), t]": -log_probs[:, t].mean(),
            "the sign: the loss is -log p, a positive number": -picked.mean(),
        },
        atol=1e-6,
    )
    with exercise(
        "SoftmaxCrossEntropy.backward",
        (
            "object has no attribute",
            "keep what backward needs on self in forward (self.p = ... or self.log_p = ...)",
        ),
    ):
        grads = f.backward(np.array(1.0))
    grads = grads if isinstance(grads, (tuple, list)) else (grads,)
    onehot = np.eye(3)[t]
    check_close_diagnosed(
        "the gradient of the logits",
        grads[0],
        zv.grad.data,
        {
            "divide by N: the loss is a mean over the batch": probs - onehot,
            "the sign is flipped: the gradient is softmax - one_hot": (onehot - probs) / 3,
            "subtract the one-hot labels: the gradient is (softmax - one_hot) / N": probs / 3,
            "exponentiate: softmax is exp(log_p), the gradient (softmax - one_hot) / N": (
                log_probs - onehot
            )
            / 3,
            "subtract 1 only at each row's true class, [np.arange(N), t]": (probs - 1) / 3,
        },
        hint="the gradient is (softmax - one_hot(t)) / N: subtract 1 only at the entries "
        "[np.arange(N), t], one per row",
    )
    f2 = make(t)
    _set_graph(f2, tensor_class, [z])
    grads2 = f2.backward(np.array(2.0))
    grads2 = grads2 if isinstance(grads2, (tuple, list)) else (grads2,)
    check_close_diagnosed(
        "the gradient for an upstream gy = 2",
        grads2[0],
        2 * zv.grad.data,
        {"multiply by the incoming gy (a number: the loss is a scalar)": zv.grad.data},
    )


def check_capstone_adam(make: Callable[[list[Any]], Any], parameter_class: type) -> None:
    """Six steps of the capstone's Adam (``p.grad`` an ndarray) against minitorch's Adam."""
    from minitorch import Variable
    from minitorch.optim import Adam

    starts, _ = _problem()
    scales = [np.array([[1.0, 3.0, 0.5], [2.0, 0.2, 1.0]]), np.array([4.0, 0.1, 1.0])]
    mine = [parameter_class(s.copy()) for s in starts]
    theirs = [Variable(s.copy()) for s in starts]
    with exercise("Adam(params, lr=0.1)"):
        opt = make(mine)
    ref = Adam(theirs, lr=0.1)
    hints = adam_variants(0.1, (0.9, 0.999), 1e-8)
    traces = {h: _numpy_trace(rule, 6) for h, rule in hints.items()}
    history: list[list[np.ndarray]] = []
    for step in range(6):
        for p, v, s in zip(mine, theirs, scales):
            p.grad = 2 * p.data * s + s
            v.grad = Variable(2 * v.data * s + s)
        with exercise("Adam.step()"):
            opt.step()
        ref.step()
        history.append([np.array(p.data, copy=True) for p in mine])
        for k, (p, v) in enumerate(zip(mine, theirs)):
            if np.allclose(p.data, v.data, atol=1e-7, rtol=1e-6):
                continue
            if not np.any(np.isfinite(p.data)):
                raise CheckFailed(
                    f"your Adam's parameters became nan at step {step + 1}: a division by "
                    "zero? (1 - beta**t) is 0 when t = 0, so count t up (self.t += 1) before "
                    "using it"
                )
            for hint, trace in traces.items():  # a rule must explain every step so far
                if all(
                    np.allclose(history[i][j], trace[i][j], atol=1e-7, rtol=1e-6)
                    for i in range(step + 1)
                    for j in range(len(mine))
                ):
                    raise CheckFailed(f"your Adam differs at step {step + 1}: {hint}")
            check_close(
                f"parameter {k} after step {step + 1} of your Adam",
                p.data,
                v.data,
                atol=1e-7,
                rtol=1e-6,
            )


def check_no_minitorch(namespace: dict[str, Any]) -> None:
    """The capstone's framework must not use minitorch, except ``minitorch.data``."""
    import types

    used = []
    for key, value in namespace.items():
        if key.startswith("_") or key in {"In", "Out"}:
            continue
        module = (
            value.__name__
            if isinstance(value, types.ModuleType)
            else getattr(value, "__module__", "") or ""
        )
        if (
            isinstance(module, str)
            and module.startswith("minitorch")
            and not module.startswith("minitorch.data")
        ):
            used.append(key)
        for base in getattr(value, "__mro__", ())[1:]:
            owner = getattr(base, "__module__", "")
            if owner.startswith("minitorch.") and not owner.startswith("minitorch.data"):
                used.append(f"{key} (a subclass of {base.__module__}.{base.__name__})")
    if used:
        raise CheckFailed(
            "your framework uses minitorch: "
            + ", ".join(sorted(set(used)))
            + ". Only the data loaders (minitorch.data) may come from minitorch"
        )


def check_batch_gradients(
    batch_gradients: Callable[..., Any], mlp_class: type, x: np.ndarray, t: np.ndarray
) -> float:
    """Compare the capstone model's gradients on one batch with minitorch's; return the gap."""
    require("batch_gradients", batch_gradients)
    import minitorch.ops as F
    from minitorch import Variable, nn

    model = mlp_class(x.shape[1], 32, 10, seed=3)
    with exercise("batch_gradients(model, x, t)"):
        batch_gradients(model, x, t)  # twice: the answer must not depend on earlier calls
        result = batch_gradients(model, x, t)
        if not isinstance(result, (list, tuple)):
            raise CheckFailed(
                f"batch_gradients returned a {type(result).__name__}: return a list of the "
                "gradients, in the order of model.parameters()"
            )
        if any(g is None for g in result):
            raise CheckFailed(
                "a gradient is None: run the backward pass, "
                "SoftmaxCrossEntropy(t)(model(x)).backward(), before reading p.grad"
            )
        grads = [np.asarray(getattr(g, "data", g), dtype=np.float64) for g in result]
    params = list(model.parameters())
    if len(grads) != len(params):
        raise CheckFailed(
            f"batch_gradients should return one gradient per parameter ({len(params)}, in "
            f"model.parameters() order), got {len(grads)}"
        )
    l1, l2 = nn.Linear(x.shape[1], 32, dtype=np.float64), nn.Linear(32, 10, dtype=np.float64)
    for layer, mine in ((l1, model.l1), (l2, model.l2)):
        layer.W.data = mine.W.data.copy()
        layer.b.data = mine.b.data.copy()
    loss = F.softmax_cross_entropy(l2(F.relu(l1(Variable(x.astype(np.float64))))), t)
    loss.backward()
    reference = [l1.W.grad.data, l1.b.grad.data, l2.W.grad.data, l2.b.grad.data]
    names = ["l1.W", "l1.b", "l2.W", "l2.b"]
    if [g.shape for g in grads] != [r.shape for r in reference] and sorted(
        map(str, (g.shape for g in grads))
    ) == sorted(map(str, (r.shape for r in reference))):
        raise CheckFailed(
            "batch_gradients returns the gradients in another order: keep the order of "
            "model.parameters() (l1.W, l1.b, l2.W, l2.b)"
        )
    gap = 0.0
    for name, g, r, p in zip(names, grads, reference, params):
        if np.array_equal(g, p.data):
            raise CheckFailed(
                f"for {name} you returned the parameter's values: return its gradient, p.grad"
            )
        if g.shape != r.shape:
            raise CheckFailed(f"the gradient of {name} has shape {g.shape}, expected {r.shape}")
        if np.allclose(g, -r, atol=1e-9) and not np.allclose(r, 0):
            raise CheckFailed(f"the gradient of {name} has the wrong sign")
        if np.allclose(g, 2 * r, atol=1e-9):
            raise CheckFailed(
                f"the gradient of {name} is twice minitorch's: the gradients of an earlier "
                "backward were still there; call model.zero_grad() first"
            )
        check_close(
            f"the gradient of {name} (minitorch's is the reference)", g, r, atol=1e-8, rtol=1e-6
        )
        gap = max(gap, float(np.max(np.abs(g - r))))
    return gap


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
