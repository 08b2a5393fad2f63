"""The backward engine: reverse-mode accumulation over the recorded graph.

Algorithm (Kahn's topological sort, iterative, O(functions + edges)):

1. Walk the graph once from the output's creator and count, for every Function, how
   many edges lead back into its outputs (``pending[f]``: the gradient contributions it
   must receive before it can run).
2. Start from the output's creator with the seed ``ones_like(y)``. Pop a ready
   Function, call its backward, add each returned gradient to its input's running total
   (a new array each time — never in place, so no two Variables share a gradient), and
   decrement the input creator's count; at zero that creator is ready.

No recursion anywhere, so a chain of a million ops needs no recursion-limit tweak. The
``generation`` numbers are not needed for correctness with this counting; they are kept
for graphs and teaching.

First-order backward calls each Function's ``backward_array`` on raw ndarrays (no graph,
no Variables); ``create_graph=True`` calls the differentiable ``backward`` with graph
building on, so the gradients are Variables with their own graph.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from minitorch.core.config import _backward_context, current_state
from minitorch.core.function import Function
from minitorch.core.variable import Variable

Grad = Any  # np.ndarray on the fast path, Variable with create_graph=True


def run_backward(y: Variable, retain_grad: bool = False, create_graph: bool = False) -> None:
    """Backpropagate from ``y``: see :meth:`Variable.backward` for the contract."""
    state = current_state()
    if not state.enable_backprop and not state.in_backward:
        raise RuntimeError(
            "backward() was called inside no_grad(): no graph was recorded; "
            "compute the loss outside the no_grad() block"
        )
    if y.data is None:
        raise RuntimeError("backward(): the Variable holds no data (data is None)")
    if not y.requires_grad:
        leaf_ref = getattr(y, "_constant_grad_of", None)
        leaf = leaf_ref() if leaf_ref is not None else None
        if leaf is not None:  # a create_graph gradient that depends on no input
            zeros: Grad = np.zeros_like(leaf.data)
            if create_graph:
                zeros = Variable(zeros, requires_grad=False)
            _add_to_leaf(leaf, zeros, create_graph, set())
            return
        raise RuntimeError(_no_graph_message(y))
    seed: Grad = np.ones_like(y.data)
    if create_graph:
        seed = Variable(seed, requires_grad=False)
    if y.creator is None:
        _add_to_leaf(y, seed, create_graph, set())
        return
    anomaly = state.detect_anomaly
    with _backward_context(create_graph):
        grads: dict[int, Grad] = {id(y): seed}
        handed_out: set[int] = set()  # ids of arrays now held by a user-visible .grad
        pending = _count_pending(y.creator)
        ready = [y.creator]
        if not create_graph and not anomaly:
            _run_first_order(ready, grads, pending, retain_grad, handed_out)
            return
        while ready:
            func = ready.pop()
            if func.leaf_snapshots is not None:
                func.check_leaves_unchanged()
            gys = _pop_output_grads(func, grads, retain_grad, create_graph, handed_out)
            gxs = _call_backward(func, gys, create_graph)
            if anomaly:
                _check_grads_finite(func, gxs)
            _send_to_inputs(func, gxs, grads, pending, ready, create_graph, handed_out)


def _run_first_order(
    ready: list[Function],
    grads: dict[int, np.ndarray],
    pending: dict[Function, int],
    retain_grad: bool,
    handed_out: set[int],
) -> None:
    """The loop of ``run_backward`` for ordinary first-order gradients, on raw ndarrays.

    It does what the general loop does (pop the output gradients, call the backward,
    check and send each input gradient), inlined for the common case of one output,
    ``backward_array`` and well-formed gradients; anything else takes the general
    helpers, so errors and fallbacks are the same on both paths.
    """
    while ready:
        func = ready.pop()
        if func.leaf_snapshots is not None:
            func.check_leaves_unchanged()
        refs = func.outputs
        # Function.backward_array itself raises NotImplementedError, so one call both
        # runs an op's fast path and detects a Function that has none (then: backward).
        if len(refs) == 1:
            y = refs[0]()
            gy = grads.pop(id(y), None) if y is not None else None
            if gy is None:
                gy = _zeros_for_missing_output(func, 0, False)
            elif retain_grad:
                y.grad = _new_grad(gy, handed_out)  # type: ignore[union-attr]
            try:
                gxs: Any = func.backward_array(gy)
            except NotImplementedError:
                gxs = _backward_without_graph(func, [gy])
        else:
            gys = _pop_output_grads(func, grads, retain_grad, False, handed_out)
            try:
                gxs = func.backward_array(*gys)
            except NotImplementedError:
                gxs = _backward_without_graph(func, gys)
        if type(gxs) is not tuple:
            gxs = _as_tuple(gxs, func)
        inputs = func.inputs
        if len(gxs) != len(inputs):
            _send_to_inputs(func, gxs, grads, pending, ready, False, handed_out)  # raises
        needs = func.needs_input_grad
        for i, x in enumerate(inputs):
            if not needs[i]:
                continue
            gx = gxs[i]
            creator = x.creator
            if gx is not None:
                data = x.data
                if type(gx) is not np.ndarray or gx.shape != data.shape or gx.dtype != data.dtype:
                    gx = _checked(func, i, x, gx, False)
                if creator is None:
                    _add_to_leaf(x, gx, False, handed_out)
                    continue
                key = id(x)
                old = grads.get(key)
                grads[key] = gx if old is None else _accumulate(old, gx, False)
            if creator is not None:
                count = pending[creator] - 1
                pending[creator] = count
                if count == 0:
                    ready.append(creator)


def _count_pending(root: Function) -> dict[Function, int]:
    """For each reachable Function, how many input edges point at its outputs."""
    pending: dict[Function, int] = {root: 0}
    stack = [root]
    while stack:
        func = stack.pop()
        for x, needs in zip(func.inputs, func.needs_input_grad):
            creator = x.creator
            if creator is None or not needs:
                continue
            if creator in pending:
                pending[creator] += 1
            else:
                pending[creator] = 1
                stack.append(creator)
    return pending


def _pop_output_grads(
    func: Function,
    grads: dict[int, Grad],
    retain_grad: bool,
    create_graph: bool,
    handed_out: set[int],
) -> list[Grad]:
    """Collect the finished gradients of ``func``'s outputs (zeros for unused outputs)."""
    gys: list[Grad] = []
    for ref in func.outputs:
        y = ref()
        gy = grads.pop(id(y), None) if y is not None else None
        if gy is None:
            gy = _zeros_for_missing_output(func, len(gys), create_graph)
        elif retain_grad and y is not None:
            y.grad = gy if create_graph else _new_grad(gy, handed_out)
        gys.append(gy)
    return gys


def _zeros_for_missing_output(func: Function, index: int, create_graph: bool) -> Grad:
    """The gradient of an output nobody used (or that was freed): zeros of its shape."""
    y = func.outputs[index]()
    if y is not None and y.data is not None:
        zeros = np.zeros_like(y.data)
    else:  # freed: Function._record kept the shape and dtype of every multi-output op
        shape, dtype = func.output_meta[index]
        zeros = np.zeros(shape, dtype)
    return Variable(zeros, requires_grad=False) if create_graph else zeros


def _call_backward(func: Function, gys: list[Grad], create_graph: bool) -> tuple[Grad, ...]:
    """Run one Function's backward on the fast path or the differentiable path."""
    if not create_graph and type(func).backward_array is not Function.backward_array:
        try:
            return _as_tuple(func.backward_array(*gys), func)
        except NotImplementedError:
            pass
    if create_graph:
        return _as_tuple(func.backward(*gys), func)
    return _backward_without_graph(func, gys)


def _backward_without_graph(func: Function, gys: list[Grad]) -> tuple[Grad, ...]:
    """The fallback for Functions without ``backward_array``: ``backward`` on constants.

    The engine has switched graph building off (``_backward_context``), so this builds no
    graph; the results are unwrapped to ndarrays.
    """
    gxs = _as_tuple(func.backward(*[Variable(gy, requires_grad=False) for gy in gys]), func)
    return tuple(None if gx is None else _data_of(gx) for gx in gxs)


def _as_tuple(gxs: Any, func: Function) -> tuple[Any, ...]:
    if type(gxs) is tuple:
        return gxs
    if isinstance(gxs, list):
        return tuple(gxs)
    if gxs is None:  # a bare None, not (None,) or (g, None): almost always a missing return
        raise TypeError(
            f"{type(func).__name__}.backward returned None, but its input(s) need a "
            "gradient: did you forget `return`? Return one gradient per input (a tuple "
            "for several inputs; None inside the tuple for an input without one)"
        )
    return (gxs,)


def _data_of(gx: Any) -> Any:
    return gx.data if isinstance(gx, Variable) else gx


def _send_to_inputs(
    func: Function,
    gxs: tuple[Grad, ...],
    grads: dict[int, Grad],
    pending: dict[Function, int],
    ready: list[Function],
    create_graph: bool,
    handed_out: set[int],
) -> None:
    """Accumulate each input's gradient and release creators whose count reaches zero."""
    inputs = func.inputs
    if len(gxs) != len(inputs):
        raise ValueError(
            f"{type(func).__name__}.backward returned {len(gxs)} gradient(s) for "
            f"{len(inputs)} input(s); return one per input (None where there is none)"
        )
    for i, (x, gx, needs) in enumerate(zip(inputs, gxs, func.needs_input_grad)):
        if not needs:
            continue
        creator = x.creator
        if gx is not None:
            gx = _checked(func, i, x, gx, create_graph)
            if creator is None:
                _add_to_leaf(x, gx, create_graph, handed_out)
            else:
                key = id(x)
                old = grads.get(key)
                grads[key] = gx if old is None else _accumulate(old, gx, create_graph)
        if creator is not None:
            pending[creator] -= 1
            if pending[creator] == 0:
                ready.append(creator)


def _checked(func: Function, index: int, x: Variable, gx: Grad, create_graph: bool) -> Grad:
    """Check a gradient's type and shape against its input; match the input's dtype."""
    data = gx.data if create_graph and isinstance(gx, Variable) else gx
    if create_graph and not isinstance(gx, Variable):
        gx = Variable(np.asarray(gx), requires_grad=False)
        data = gx.data
    elif not create_graph and type(data) is not np.ndarray:
        data = gx = _coerce_array(func, index, gx)
    x_data = x.data
    if data.shape != x_data.shape:
        raise ValueError(
            f"{type(func).__name__}.backward: gradient for input {index} has shape "
            f"{data.shape} but the input has shape {x_data.shape}; reduce broadcast "
            "dimensions with sum_to(gx, x.shape)"
        )
    if data.dtype != x_data.dtype and x_data.dtype.kind == "f":
        # A float32 input gets a float32 gradient on both paths, even when the backward
        # met a float64 constant; ``astype`` keeps the create_graph gradient differentiable.
        gx = gx.astype(x_data.dtype) if create_graph else data.astype(x_data.dtype)
    return gx


def _coerce_array(func: Function, index: int, gx: Any) -> np.ndarray:
    if isinstance(gx, (np.ndarray, np.generic, float, int)):
        return np.asarray(gx)
    raise TypeError(
        f"{type(func).__name__}.backward_array returned a {type(gx).__name__} for input "
        f"{index}; return ndarrays (or None)"
    )


def _add_to_leaf(x: Variable, gx: Grad, create_graph: bool, handed_out: set[int]) -> None:
    """Add ``gx`` to a leaf's ``grad`` — a new Variable, never an in-place update."""
    if not x.requires_grad:
        return
    if x.dtype.kind not in "fc":
        raise TypeError(
            f"backward(): a gradient reached {_label(x)} of dtype {x.dtype}, "
            "but only floating-point Variables hold gradients; create it from floats, "
            "e.g. Variable(data.astype(float))"
        )
    if x.grad is None:
        x.grad = gx if create_graph else _new_grad(gx, handed_out)
    elif create_graph:
        x.grad = x.grad + gx
    else:
        x.grad = Variable(_accumulate(x.grad.data, gx, False), requires_grad=False)
        x.grad._first_order_grad = True
    if create_graph and not x.grad.requires_grad:
        # The gradient depends on no input (relu, abs, x + c): its derivative is zero.
        # Remember whose gradient it is, so that differentiating it again gives that
        # leaf a zero gradient (as PyTorch does for relu/abs) instead of an error.
        x.grad._constant_grad_of = weakref.ref(x)


def _label(x: Variable) -> str:
    return f"Variable {x.name!r}" if x.name else "a Variable"


def _new_grad(gx: np.ndarray, handed_out: set[int]) -> Variable:
    """Wrap ``gx`` as a ``.grad`` that is writeable and shares memory with no other ``.grad``.

    A backward may return the same array for two inputs (``Add`` passes ``gy`` to both),
    views of one buffer (``reshape``), or a read-only broadcast view (``sum``). Users may
    update gradients in place (gradient clipping), so such arrays are copied: ``handed_out``
    holds the ids of the memory owners of every gradient given out in this pass.
    """
    owner = gx if gx.base is None else gx.base  # NumPy keeps .base pointing at the owner
    if not gx.flags.writeable or id(owner) in handed_out:
        gx = gx.copy()
        owner = gx
    handed_out.add(id(owner))
    grad = Variable(gx, requires_grad=False)
    grad._first_order_grad = True  # differentiating it again needs create_graph=True
    return grad


def _no_graph_message(y: Variable) -> str:
    """Why ``y.backward()`` has nothing to do, with the fix for the likely mistake."""
    label = f"Variable {y.name!r}" if y.name else "this Variable"
    if getattr(y, "_first_order_grad", False):
        return (
            f"backward(): {label} is (or was computed only from) a gradient made by a "
            "first-order backward(), which records no graph, so it cannot be differentiated "
            "again: did you forget create_graph=True? Compute the first "
            "gradient with backward(create_graph=True) (e.g. y.backward(create_graph=True); "
            "gx = x.grad; x.clear_grad(); gx.backward()) to get second derivatives"
        )
    return (
        f"backward(): {label} does not require a gradient: it was computed inside "
        "no_grad() or only from constants, so no graph leads back to a Variable that "
        "needs one"
    )


def _accumulate(old: Grad, gx: Grad, create_graph: bool) -> Grad:
    """``old + gx`` as a new object (0-d sums stay ndarrays, not NumPy scalars)."""
    total = old + gx
    return total if create_graph else np.asarray(total)


def _check_grads_finite(func: Function, gxs: tuple[Grad, ...]) -> None:
    for i, gx in enumerate(gxs):
        data = _data_of(gx)
        if data is None or not isinstance(data, np.ndarray) or data.dtype.kind not in "fc":
            continue
        if not np.isfinite(data).all():
            where = np.argwhere(~np.isfinite(data))[:5].tolist()
            raise FloatingPointError(
                f"detect_anomaly: {type(func).__name__}.backward returned NaN/inf in the "
                f"gradient of input {i} at positions {where} (shape {data.shape}); the "
                f"Function was created at {func.created_at or '<unknown>'}"
            )
