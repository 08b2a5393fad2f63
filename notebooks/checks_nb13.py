"""Checks for notebook 13 (the capstone): each piece of the student's framework checked on
hand-built graphs, independent of the others.

The engine's checks live in ``checks_nb13_engine`` and the training loop's in
``checks_nb13_training``; this module hands them on, so the notebook imports every
check of notebook 13 from here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from checks import CheckFailed, check_close
from checks_build import (
    check_close_diagnosed,
    exercise,
    require,
)
from checks_nb08 import diagnose_gradient
from checks_nb10 import _numpy_trace, _problem, adam_variants
from checks_nb13_engine import check_call as check_call  # handed on (see above)
from checks_nb13_engine import check_engine as check_engine
from checks_nb13_training import diagnose_training as diagnose_training
from checks_nb13_training import record_training as record_training


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
