"""The backward engine: reverse-mode accumulation over the recorded graph.

Algorithm (Kahn's topological sort, iterative, O(functions + edges)):

1. Walk the graph once from the output's creator and count, for every Function, how
   many edges lead back into its outputs (``pending[f]``: the gradient contributions it
   must receive before it can run).
2. Start from the output's creator with the seed ``ones_like(y)``. Pop a ready
   Function, call its backward, add each returned gradient to its input's running total
   (a new array each time, never in place), and decrement the input creator's count; at
   zero that creator is ready.
3. A leaf's contributions are summed too, apart from the others; when no Function is
   left, every leaf that received some is checked, then each gets its new ``.grad``
   (its sum added to the one it already had) at once.

No recursion anywhere, so a chain of a million ops needs no recursion-limit tweak. The
``generation`` numbers are not needed for correctness with this counting; they are kept
for graphs and teaching.

One loop serves both kinds of backward. First order calls each Function's
``backward_array`` on raw ndarrays (no graph, no Variables); ``create_graph=True`` calls
the differentiable ``backward`` with graph building on, so the gradients are Variables
with their own graph. One rule (:func:`_hand_out`) decides when a gradient is copied as
it becomes somebody's ``.grad``: no two Variables ever share a gradient, on either path.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from minitorch.core.config import _backward_context, current_state
from minitorch.core.function import Function
from minitorch.core.variable import Variable

Grad = Any  # np.ndarray on the fast path, Variable with create_graph=True
#: ``on_step(func, gys, gxs)``: called after each Function's backward, in engine order.
OnStep = Callable[[Function, tuple[Grad, ...], tuple[Grad, ...]], None]


def run_backward(
    y: Variable,
    retain_grad: bool = False,
    create_graph: bool = False,
    on_step: OnStep | None = None,
) -> None:
    """Backpropagate from ``y``: see :meth:`Variable.backward` for the contract.

    Args:
        y: the Variable to differentiate; the seed is ``ones_like(y.data)``.
        retain_grad: also keep the gradients of intermediate Variables.
        create_graph: differentiable gradients (Variables with a graph of their own).
        on_step: an observer, called as ``on_step(func, gys, gxs)`` right after each
            Function's backward with the gradients of its outputs and those it returned
            for its inputs (as returned: ``None`` allowed). ``viz.trace_backward`` uses it.
    """
    _check_start(y)
    if not y.requires_grad:  # no graph: a constant create_graph gradient, or an error
        _backward_of_a_constant(y, create_graph)
        return
    seed: Grad = np.ones_like(y.data)
    if create_graph:
        seed = Variable(seed, requires_grad=False)
    handed_out: set[int] = set()  # ids of the arrays some .grad holds now (_hand_out)
    unchanged: set[tuple[int, int]] = set()  # leaf snapshots already compared in this pass
    if y.creator is None:
        _add_to_leaf(y, seed, create_graph, handed_out)
        return
    anomaly = current_state().detect_anomaly
    with _backward_context(create_graph):
        grads: dict[int, Grad] = {id(y): seed}  # id(Variable) -> its gradient so far
        pending = _count_pending(y.creator)
        ready = [y.creator]
        leaves: list[Variable] = []  # leaves reached, in order of their first gradient
        leaf_grads: dict[int, Grad] = {}  # id(leaf) -> the sum of its contributions
        while ready:
            func = ready.pop()
            if func.leaf_snapshots is not None:  # leaf inputs edited in place since?
                func.check_leaves_unchanged(unchanged)
            refs = func.outputs
            if len(refs) == 1:  # the usual case, inline: one output, one gradient
                out = refs[0]()
                gy = grads.pop(id(out), None) if out is not None else None
                if gy is None:
                    gy = _zeros_for_missing_output(func, 0, create_graph)
                elif retain_grad:
                    out.grad = _hand_out(gy, create_graph, handed_out)  # type: ignore[union-attr]
                gys: tuple[Grad, ...] = (gy,)
            else:
                gys = _output_grads(func, grads, retain_grad, create_graph, handed_out)
            # Which backward each class runs was decided when it was defined (Function's
            # __init_subclass__): backward_array is its fast path, or its vjp on arrays.
            gxs = func.backward(*gys) if create_graph else func.backward_array(*gys)
            if type(gxs) is not tuple:
                gxs = _as_tuple(gxs, func)
            if on_step is not None:
                on_step(func, gys, gxs)
            if anomaly:
                _check_grads_finite(func, gxs)
            inputs, needs = func.inputs, func.needs_input_grad
            if len(gxs) != len(inputs):
                raise ValueError(
                    f"{type(func).__name__}.backward returned {len(gxs)} gradient(s) for "
                    f"{len(inputs)} input(s); return one per input (None where there is none)"
                )
            for i, x in enumerate(inputs):
                if not needs[i]:
                    continue
                gx, creator = gxs[i], x.creator
                if gx is not None:
                    # An ndarray (a Variable under create_graph) of x's shape and dtype
                    # passes unchecked; anything else is checked and converted.
                    data = x.data
                    array = gx if not create_graph else gx.data if type(gx) is Variable else None
                    if (
                        type(array) is not np.ndarray
                        or array.shape != data.shape
                        or array.dtype != data.dtype
                    ):
                        gx = _checked(func, i, x, gx, create_graph)
                    if creator is None:  # a leaf: summed apart, its .grad set at the end
                        old = leaf_grads.get(id(x))
                        if old is None:
                            leaf_grads[id(x)] = gx
                            leaves.append(x)
                        else:
                            leaf_grads[id(x)] = _accumulate(old, gx, create_graph)
                        continue
                    old = grads.get(id(x))
                    grads[id(x)] = gx if old is None else _accumulate(old, gx, create_graph)
                if creator is not None:
                    count = pending[creator] - 1
                    pending[creator] = count
                    if count == 0:
                        ready.append(creator)
        # Each leaf's contributions were summed (PyTorch's AccumulateGrad also receives
        # one sum); now each leaf's .grad gets that sum once, or none does if one can't.
        for x in leaves:
            _check_leaf(x)
        new = [_new_leaf_grad(x, leaf_grads[id(x)], create_graph, handed_out) for x in leaves]
        for x, grad in zip(leaves, new):  # nothing below can fail: all or none are set
            if grad is not None:
                x.grad = grad


def _check_start(y: Variable) -> None:
    """The errors of a backward that cannot start (no graph, no data, no gradient)."""
    state = current_state()
    if not state.enable_backprop and not state.in_backward:
        raise RuntimeError(
            "backward() was called inside no_grad(): no graph was recorded; "
            "compute the loss outside the no_grad() block"
        )
    if y.data is None:
        raise RuntimeError("backward(): the Variable holds no data (data is None)")


def _backward_of_a_constant(y: Variable, create_graph: bool) -> None:
    """``backward()`` of a Variable that requires no gradient: zeros, or a clear error.

    A ``create_graph`` gradient that depends on no input (relu, abs, ``x + c``) has a zero
    derivative: its leaf gets zeros, as in PyTorch. Anything else has no graph to run.
    """
    leaf_ref = getattr(y, "_constant_grad_of", None)
    leaf = leaf_ref() if leaf_ref is not None else None
    if leaf is None:
        raise RuntimeError(_no_graph_message(y))
    zeros: Grad = np.zeros_like(leaf.data)
    if create_graph:
        zeros = Variable(zeros, requires_grad=False)
    _add_to_leaf(leaf, zeros, create_graph, set())


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
    # A Variable made with requires_grad=False and one computed under no_grad() look
    # alike (no creator, no gradient wanted): the message names both.
    return (
        f"backward(): {label} does not require a gradient: it was created with "
        "requires_grad=False, or computed inside no_grad() or only from constants, so no "
        "graph leads back to a Variable that needs one"
    )


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


def _output_grads(
    func: Function,
    grads: dict[int, Grad],
    retain_grad: bool,
    create_graph: bool,
    handed_out: set[int],
) -> tuple[Grad, ...]:
    """Collect the finished gradients of a multi-output ``func`` (zeros for unused ones)."""
    gys: list[Grad] = []
    for ref in func.outputs:
        y = ref()
        gy = grads.pop(id(y), None) if y is not None else None
        if gy is None:
            gy = _zeros_for_missing_output(func, len(gys), create_graph)
        elif retain_grad and y is not None:
            y.grad = _hand_out(gy, create_graph, handed_out)
        gys.append(gy)
    return tuple(gys)


def _zeros_for_missing_output(func: Function, index: int, create_graph: bool) -> Grad:
    """The gradient of an output nobody used (or that was freed): zeros of its shape."""
    y = func.outputs[index]()
    if y is not None and y.data is not None:
        zeros = np.zeros_like(y.data)
    else:  # freed: Function._record kept the shape and dtype of every multi-output op
        shape, dtype = func.output_meta[index]
        zeros = np.zeros(shape, dtype)
    return Variable(zeros, requires_grad=False) if create_graph else zeros


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


def _checked(func: Function, index: int, x: Variable, gx: Grad, create_graph: bool) -> Grad:
    """Check a gradient's type and shape against its input; match the input's dtype."""
    if type(gx) is np.float64 and not create_graph and x.data.dtype == np.float64:
        if x.data.shape == ():  # 0-d arithmetic on arrays gives a NumPy scalar: the usual
            return np.asarray(gx)  # case of a 0-d chain, so it goes first and fast
    if create_graph and not isinstance(gx, Variable):
        gx = Variable(np.asarray(gx), requires_grad=False)
    elif not create_graph and type(gx) is not np.ndarray:
        gx = _coerce_array(func, index, gx)
    data = gx.data if create_graph else gx
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
        gx = gx.astype(x_data.dtype)
    return gx


def _coerce_array(func: Function, index: int, gx: Any) -> np.ndarray:
    if isinstance(gx, (np.ndarray, np.generic, float, int)):
        return np.asarray(gx)
    raise TypeError(
        f"{type(func).__name__}.backward_array returned a {type(gx).__name__} for input "
        f"{index}; return ndarrays (or None)"
    )


def _check_leaf(x: Variable) -> None:
    """Raise if the leaf ``x`` cannot take a gradient (its dtype, or a wrong old ``grad``)."""
    if not x.requires_grad:
        return
    if x.dtype.kind not in "fc":
        raise TypeError(
            f"backward(): a gradient reached {_label(x)} of dtype {x.dtype} and shape "
            f"{x.shape}, but only floating-point Variables hold gradients. If it is a "
            "constant (a mask, labels, indices), create it with requires_grad=False (or "
            "pass the ndarray itself); if you want its gradient, create it from floats, "
            "e.g. Variable(data.astype(float))"
        )
    old = x.grad
    if isinstance(old, Variable) and old.data is None:  # `x.grad.data = None` by hand
        own = x.name if isinstance(x.name, str) and x.name.isidentifier() else "x"
        raise ValueError(
            f"backward(): {_label(x)} of shape {x.shape} holds a .grad with no data "
            f"(its .grad.data is None), so the new gradient cannot be added to it; call "
            f"{own}.clear_grad() (or set {own}.grad = None) to start again from no gradient"
        )
    if old is not None and (not isinstance(old, Variable) or old.shape != x.shape):
        held = f"shape {old.shape}" if isinstance(old, Variable) else type(old).__name__
        raise ValueError(
            f"backward(): {_label(x)} of shape {x.shape} holds a .grad of {held}, which "
            "the new gradient cannot be added to; a gradient is a Variable of its "
            "Variable's shape (set x.grad = None, or call clear_grad(), first)"
        )


def _add_to_leaf(x: Variable, gx: Grad, create_graph: bool, handed_out: set[int]) -> None:
    """Add ``gx`` to a leaf's ``grad`` — a new Variable, never an in-place update."""
    _check_leaf(x)
    grad = _new_leaf_grad(x, gx, create_graph, handed_out)
    if grad is not None:
        x.grad = grad


def _new_leaf_grad(
    x: Variable, gx: Grad, create_graph: bool, handed_out: set[int]
) -> Variable | None:
    """The ``grad`` a checked leaf gets: ``gx`` added to the old one (``None``: no grad)."""
    if not x.requires_grad:
        return None
    if x.grad is None:
        grad = _hand_out(gx, create_graph, handed_out)
    elif create_graph:
        grad = x.grad + gx
    else:
        grad = Variable(_accumulate(x.grad.data, gx, False), requires_grad=False)
        grad._first_order_grad = True
    if create_graph and not grad.requires_grad:
        # The gradient depends on no input (relu, abs, x + c): its derivative is zero.
        # Remember whose gradient it is, so that differentiating it again gives that
        # leaf a zero gradient (as PyTorch does for relu/abs) instead of an error.
        grad._constant_grad_of = weakref.ref(x)
    return grad


def _label(x: Variable) -> str:
    return f"Variable {x.name!r}" if x.name else "a Variable"


def _hand_out(gx: Grad, create_graph: bool, handed_out: set[int]) -> Variable:
    """The one copy rule: ``gx`` as a ``.grad`` that no other ``.grad`` shares.

    A backward may return the same gradient for two inputs (``Add`` passes ``gy`` to
    both), views of one buffer (``reshape``) or a read-only broadcast view (``sum``).
    Users may update gradients in place (gradient clipping), so a gradient whose memory
    another ``.grad`` already holds, or that is read-only, is copied — as an array on the
    first-order path, with the differentiable :class:`_Copy` under ``create_graph`` (so
    ``a.grad is b.grad`` never holds on either path). ``handed_out`` holds the ids of
    the memory owners given out in this pass.
    """
    data = gx.data if create_graph else gx
    owner = data if data.base is None else data.base  # NumPy keeps .base at the owner
    if id(owner) in handed_out or not data.flags.writeable:
        gx = _Copy()(gx) if create_graph else data.copy()
        owner = gx.data if create_graph else gx
    handed_out.add(id(owner))
    if create_graph:
        return gx
    grad = Variable(gx, requires_grad=False)
    grad._first_order_grad = True  # differentiating it again needs create_graph=True
    return grad


class _Copy(Function):
    """y = a copy of x;  gx = gy.  The differentiable copy :func:`_hand_out` makes."""

    def forward(self, x: np.ndarray) -> np.ndarray:
        return x.copy()

    def jvp(self, xs: Any, y: Any, tx: Any) -> Any:
        return tx

    def vjp(self, xp: Any, xs: tuple[Any, ...], y: Any, gy: Any) -> Any:
        return gy


def _accumulate(old: Grad, gx: Grad, create_graph: bool) -> Grad:
    """``old + gx`` as a new object (0-d sums stay ndarrays, not NumPy scalars)."""
    total = old + gx
    return total if create_graph else np.asarray(total)


def _check_grads_finite(func: Function, gxs: tuple[Grad, ...]) -> None:
    for i, gx in enumerate(gxs):
        data = gx.data if isinstance(gx, Variable) else gx
        if data is None or not isinstance(data, np.ndarray) or data.dtype.kind not in "fc":
            continue
        if not np.isfinite(data).all():
            where = np.argwhere(~np.isfinite(data))[:5].tolist()
            raise FloatingPointError(
                f"detect_anomaly: {type(func).__name__}.backward returned NaN/inf in the "
                f"gradient of input {i} at positions {where} (shape {data.shape}); the "
                f"Function was created at {func.created_at or '<unknown>'}"
            )
