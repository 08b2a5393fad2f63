"""The backward engine: reverse-mode accumulation over the recorded graph.

Algorithm (Kahn's topological sort, iterative, O(functions + edges)):

1. Walk the graph once from the outputs' creators and count, for every Function, how
   many edges lead back into its outputs (``pending[f]``: the gradient contributions it
   must receive before it can run).
2. Start from the seeds (``ones_like(y)`` for ``y.backward()``). Pop a ready Function,
   call its backward, add each returned gradient to its input's running total (a new
   array each time, never in place), and decrement the input creator's count; at zero
   that creator is ready.
3. When no Function is left, every Variable that was reached holds the sum of its
   contributions (keyed by :func:`~minitorch.core.saved.grad_key`: a leaf by its id, an
   intermediate value by its creator, since a Function keeps only what its rule needs and
   the intermediate Variable itself may be gone). :func:`grad` returns those of the
   inputs it was asked about; :meth:`Variable.backward` adds them into the leaves'
   ``.grad`` (all, or none if one cannot take it).

No recursion anywhere, so a chain of a million ops needs no recursion-limit tweak;
``generation`` is not needed with this counting (it is kept for graphs and teaching).

One loop serves both kinds of backward, decided once per pass by the *mode*: first order
(:class:`ArrayMode`) calls each ``backward_array`` on raw ndarrays; ``create_graph=True``
(:class:`GraphMode`) calls the differentiable ``backward`` with graph building on, so the
gradients are Variables with a graph of their own. One rule (:func:`_hand_out`) decides
when a gradient is copied as it is handed out: no two results ever share memory.
"""

from __future__ import annotations

import weakref
from collections import deque
from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any

import numpy as np

import minitorch.core.diagnose as diagnose
import minitorch.core.graph as graph
import minitorch.core.saved as saved
from minitorch.core.config import _backward_context, current_state
from minitorch.core.function import Function
from minitorch.core.saved import Unsaved, grad_key
from minitorch.core.variable import Variable, wrap

Grad = Any  # np.ndarray on the fast path, Variable with create_graph=True
#: ``on_step(func, gys, gxs)``: called after each Function's backward, in engine order.
OnStep = Callable[[Function, tuple[Grad, ...], tuple[Grad, ...]], None]


class ArrayMode:
    """First order: gradients are ndarrays and each Function runs ``backward_array``."""

    create_graph = False
    grad_type = np.ndarray
    #: ``backward(type(func))`` is the rule the pass calls as ``rule(func, gy)``: a C-level
    #: lookup on the class, so no Python frame and no bound method per node (the bound
    #: ``backward(func)`` for several outputs). ``minitorch.profile`` swaps it.
    backward: Callable[[Any], Callable[..., Any]] = staticmethod(
        attrgetter("backward_array")
    )

    @staticmethod
    def constant(array: np.ndarray) -> Grad:
        return array

    @staticmethod
    def add(old: Grad, gx: Grad) -> Grad:
        return np.asarray(old + gx)  # a new array (0-d sums stay ndarrays, not scalars)


class GraphMode:
    """``create_graph``: gradients are Variables and each Function runs ``backward``."""

    create_graph = True
    grad_type = Variable
    #: ``backward``; for a class written outside minitorch, that backward checked for a
    #: graph back to ``gy`` (``diagnose.checked_graph_backward``).
    backward: Callable[[Any], Callable[..., Any]] = staticmethod(
        attrgetter("graph_backward")
    )

    @staticmethod
    def constant(array: np.ndarray) -> Grad:
        return Variable(array, requires_grad=False)

    @staticmethod
    def add(old: Grad, gx: Grad) -> Grad:
        return old + gx  # recorded: the sum is differentiable too


Mode = type[ArrayMode] | type[GraphMode]


def backpropagate(
    pending: dict[Function, int],
    grads: dict[Any, Grad],
    mode: Mode,
    keep: Callable[[Variable], bool] | None = None,
    on_step: OnStep | None = None,
) -> dict[int, tuple[Variable, Grad]]:
    """The loop: run every Function of ``pending`` once its outputs' gradients are complete.

    Args:
        pending: :func:`count_pending` of the outputs (consumed: counted down to zero).
        grads: ``grad_key(Variable) -> gradient``, holding the seeds; on return it holds the
            total gradient of every leaf reached. The gradient of an intermediate
            Variable is dropped once its creator has used it, unless ``keep(y)`` is true.
        mode: :class:`ArrayMode` or :class:`GraphMode`, chosen once for the whole pass.
        keep: which intermediate gradients to return (``None``: none).
        on_step: called as ``on_step(func, gys, gxs)`` right after each Function's
            backward, with its outputs' gradients and those it returned (``None``
            allowed). ``viz.trace_backward`` uses it.

    Returns:
        ``id(y) -> (y, gradient)`` of the intermediate Variables that ``keep`` asked for.
    """
    # A deque: a list that empties and refills at each node of a chain reallocates each time.
    ready = deque([func for func, count in pending.items() if count == 0])
    kept: dict[int, tuple[Variable, Grad]] = {}
    unchanged: set[tuple[int, int]] = set()  # leaf snapshots already compared in this pass
    # Under detect_anomaly(), NaN/inf gradients are checked after each step.
    on_step = diagnose.checking_finite(on_step) if current_state().detect_anomaly else on_step
    backward, grad_type, add = mode.backward, mode.grad_type, mode.add  # once per pass
    with _backward_context(mode.create_graph):
        while ready:
            func = ready.pop()
            if func.leaf_snapshots is not None:  # leaf inputs edited in place since?
                func.check_leaves_unchanged(unchanged)
            gy = grads.pop(func, None) if keep is None and len(func.outputs) == 1 else None
            gys = None if gy is not None else _output_grads(func, grads, mode, keep, kept)
            gxs = backward(type(func))(func, gy) if gys is None else backward(func)(*gys)
            if type(gxs) is not tuple or len(gxs) != len(func.inputs):  # one input: (gx,)
                one = type(gxs) is grad_type and len(func.inputs) == 1
                gxs = (gxs,) if one else diagnose.checked_gradients(func, gxs)
            if on_step is not None:
                on_step(func, (gy,) if gys is None else gys, gxs)
            for i, x in enumerate(func.inputs):
                if not func.needs_input_grad[i]:
                    continue
                gx, creator = gxs[i], x.creator  # x's gradient adds up under grad_key(x)
                key: Any = id(x) if creator is None else creator  # a leaf; most op outputs
                if creator is not None and len(creator.outputs) > 1:
                    key = grad_key(x)
                if gx is not None:  # one of x's shape and dtype passes; others are checked
                    meta = x if type(x) is Unsaved else x.data
                    array = gx.data if type(gx) is Variable else gx  # create_graph: Variables
                    wrong = type(gx) is not grad_type or array.shape != meta.shape
                    if wrong or array.dtype != meta.dtype:
                        gx = diagnose.checked_gradient(func, i, x, gx, mode.create_graph)
                    old = grads.get(key)
                    grads[key] = gx if old is None else add(old, gx)
                elif creator is not None and key not in grads:  # no contribution: zeros
                    grads[key] = mode.constant(np.zeros(x.shape, x.dtype))
                if creator is not None:
                    count = pending[creator] = pending[creator] - 1
                    if count == 0:
                        ready.append(creator)
    return kept


def count_pending(outputs: Sequence[Variable]) -> tuple[dict[Function, int], list[Variable]]:
    """For each Function behind ``outputs``, how many input edges point at its outputs.

    Only edges that need a gradient count (``needs_input_grad``). Also returns the leaves
    reached (Variables without a creator, the outputs among them), in discovery order.

    Raises:
        RuntimeError: if a Function was released by ``grad(..., retain_graph=False)``.
    """
    pending: dict[Function, int] = {}
    leaves: dict[int, Variable] = {}
    stack: deque[Function] = deque()  # a deque, as ``ready`` in backpropagate
    for y in outputs:
        if y.creator is None:
            leaves[id(y)] = y
        elif y.creator not in pending:
            pending[y.creator] = 0
            stack.append(y.creator)
    cuts = saved.cuts_made  # once some op output was unchain()ed: apply the cuts
    while stack:
        func = stack.pop()
        if func.released:
            raise RuntimeError(diagnose.released_message(func))
        if cuts:
            saved.put_back_cut(func)
        for x, needs in zip(func.inputs, func.needs_input_grad):
            creator = x.creator
            if not needs:
                continue
            if creator is None:
                if type(x) is not Unsaved:  # (an edge cut by unchain: no leaf to take it)
                    leaves[id(x)] = x
            elif creator in pending:
                pending[creator] += 1
            else:
                pending[creator] = 1
                stack.append(creator)
    return pending, list(leaves.values())


def _output_grads(
    func: Function,
    grads: dict[Any, Grad],
    mode: Mode,
    keep: Callable[[Variable], bool] | None,
    kept: dict[int, tuple[Variable, Grad]],
) -> tuple[Grad, ...]:
    """Collect the finished gradients of ``func``'s outputs (zeros for unused ones),
    keyed by ``func`` or ``(func, i)`` (``grad_key``; one made a leaf keeps its own)."""
    refs = func.outputs
    single = len(refs) == 1
    gys: list[Grad] = []
    for i, ref in enumerate(refs):
        gy = grads.pop(func if single else (func, i), None)
        if gy is None:  # an output nobody used: zeros of its shape
            gy = mode.constant(_zeros_of_output(func, i))
        elif keep is not None:
            y = ref()  # alive if the user holds it: only then can it keep its gradient
            if y is not None and y.creator is func and keep(y):
                kept[id(y)] = (y, gy)
        gys.append(gy)
    return tuple(gys)


def _zeros_of_output(func: Function, index: int) -> np.ndarray:
    y = func.outputs[index]()
    if y is not None and y.data is not None:
        return np.zeros_like(y.data)
    shape, dtype = func.output_meta[index]  # freed: _record kept every output's shape
    return np.zeros(shape, dtype)


# -- Variable.backward: add the gradients into the leaves --------------------------------
def run_backward(
    y: Variable,
    retain_grad: bool = False,
    create_graph: bool = False,
    on_step: OnStep | None = None,
) -> None:
    """Backpropagate from ``y`` into every leaf's ``.grad``: see :meth:`Variable.backward`.

    Args:
        y: the Variable to differentiate; the seed is ``ones_like(y.data)``.
        retain_grad: also keep the gradients of intermediate Variables.
        create_graph: differentiable gradients (Variables with a graph of their own).
        on_step: the observer of :func:`backpropagate`.
    """
    diagnose.check_start(y, retain_grad, create_graph)
    if not y.requires_grad:  # no graph: a constant create_graph gradient, or an error
        _backward_of_a_constant(y, create_graph)
        return
    mode = GraphMode if create_graph else ArrayMode
    pending, leaves = count_pending([y])
    seed = np.empty(y.data.shape, y.data.dtype)  # ones_like(y.data) without NumPy's Python
    seed.fill(1)  # layer: backward() runs often on the tiny graphs of higher derivatives
    grads: dict[Any, Grad] = {grad_key(y): mode.constant(seed)}
    kept = backpropagate(pending, grads, mode, (lambda y: True) if retain_grad else None, on_step)
    # Each leaf's contributions were summed (PyTorch's AccumulateGrad also receives one
    # sum); now each leaf's .grad gets that sum once, or none does if one cannot.
    reached = [x for x in leaves if id(x) in grads]
    for x in reached:
        diagnose.check_leaf(x)
    handed_out: set[int] = set()  # ids of the arrays some .grad holds now (_hand_out)
    new = [_new_leaf_grad(x, grads[id(x)], create_graph, handed_out) for x in reached]
    retained = [(out, _hand_out(gy, create_graph, handed_out)) for out, gy in kept.values()]
    for x, grad in [*zip(reached, new), *retained]:  # nothing here fails: all or none
        if grad is not None:
            x.grad = grad


def _backward_of_a_constant(y: Variable, create_graph: bool) -> None:
    """``backward()`` of a Variable that requires no gradient: zeros, or a clear error.

    A ``create_graph`` gradient that depends on no input (relu, abs, ``x + c``) has a zero
    derivative: its leaf gets zeros, as in PyTorch. Anything else has no graph to run.
    """
    leaf_ref = getattr(y, "_constant_grad_of", None)
    leaf = leaf_ref() if leaf_ref is not None else None
    if leaf is None:
        raise RuntimeError(diagnose.no_graph_message(y))
    diagnose.check_leaf(leaf)
    zeros = (GraphMode if create_graph else ArrayMode).constant(np.zeros_like(leaf.data))
    grad = _new_leaf_grad(leaf, zeros, create_graph, set())
    if grad is not None:
        leaf.grad = grad


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
        grad = wrap(ArrayMode.add(x.grad.data, gx), False)
        grad._first_order_grad = True
    return _mark_constant(grad, x, create_graph)


def _mark_constant(grad: Variable, x: Variable, create_graph: bool) -> Variable:
    """A ``create_graph`` gradient of ``x`` that depends on no input (relu, abs, x + c) has
    a zero derivative: remember whose it is, so that differentiating it again gives ``x``
    zeros (as PyTorch does for relu/abs) instead of an error."""
    if create_graph and not grad.requires_grad:
        grad._constant_grad_of = weakref.ref(x)
    return grad


def _hand_out(gx: Grad, create_graph: bool, handed_out: set[int]) -> Variable:
    """The one copy rule: ``gx`` as a gradient Variable that no other result shares.

    A backward may return the same gradient for two inputs (``Add`` passes ``gy`` to
    both), views of one buffer (``reshape``) or a read-only broadcast view (``sum``).
    Users may update gradients in place (gradient clipping), so a gradient whose memory
    another result already holds, or that is read-only, is copied — as an array on the
    first-order path, with the differentiable :class:`_Copy` under ``create_graph`` (so
    ``a.grad is b.grad`` never holds). ``handed_out``: the memory owners given out so far.
    """
    data = gx.data if create_graph else gx
    owner = data if data.base is None else data.base  # NumPy keeps .base at the owner
    if id(owner) in handed_out or not data.flags.writeable:
        gx = _Copy()(gx) if create_graph else data.copy()
        owner = gx.data if create_graph else gx
    handed_out.add(id(owner))
    if create_graph:
        return gx
    grad = wrap(gx, False)  # an engine-checked gradient: x's shape and dtype
    grad._first_order_grad = True  # differentiating it again needs create_graph=True
    return grad


class _Copy(Function):
    """y = a copy of x;  gx = gy.  The differentiable copy :func:`_hand_out` makes."""

    saves = ()

    def forward(self, x: np.ndarray) -> np.ndarray:
        return x.copy()

    def jvp(self, xs: Any, y: Any, tx: Any) -> Any:
        return tx

    def vjp(self, xp: Any, xs: tuple[Any, ...], y: Any, gy: Any) -> Any:
        return gy


# -- autograd.grad: return the gradients -------------------------------------------------
def grad(
    outputs: Variable | Sequence[Variable],
    inputs: Variable | Sequence[Variable],
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool = False,
    on_step: OnStep | None = None,
) -> tuple[Variable | None, ...]:
    """The gradients of ``sum_j <outputs[j], grad_outputs[j]>`` w.r.t. each of ``inputs``.

    ``torch.autograd.grad``'s contract: nothing is written to any ``.grad``; the result
    is a tuple with one gradient per input (a Variable of that input's shape and dtype).
    An input may be an intermediate Variable (its total gradient is returned).

    Shapes:
        ``grad_outputs[j]`` has ``outputs[j]``'s shape; result ``i`` has ``inputs[i]``'s.

    Args:
        outputs: the Variable(s) to differentiate.
        inputs: the Variable(s) to differentiate with respect to (each requires a
            gradient).
        grad_outputs: one vector per output (Variable, ndarray or ``None``), the
            ``v`` of ``v^T J``; ``None`` means ones, allowed only for a one-element output.
            For one output, the vector itself (a Variable, ndarray or number) will do.
        retain_graph: keep the graph for another backward pass; defaults to
            ``create_graph``. Without it the Functions that ran are released (only those
            between the outputs and the inputs run, as in PyTorch), and a later backward
            through them raises ``RuntimeError`` (as PyTorch's freed buffers do).
        create_graph: return differentiable gradients (with a graph of their own), for
            higher-order derivatives.
        allow_unused: return ``None`` for an input the outputs do not depend on, instead
            of raising.
        on_step: an observer ``on_step(func, gys, gxs)`` after each Function's backward.

    Returns:
        A tuple of Variables (``None`` for unused inputs under ``allow_unused``).

    Raises:
        RuntimeError: if an output or an input requires no gradient, an input is unused
            (without ``allow_unused``), ``grad_outputs`` is missing for an output with
            more than one element, or the graph was released by an earlier call.
        ValueError: if ``grad_outputs`` has the wrong length or a wrong shape.
        TypeError: if ``grad_outputs`` is not a sequence, array or number.

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable, autograd
        >>> x = Variable(np.array(3.0))
        >>> y = x * x * x
        >>> (gx,) = autograd.grad(y, x, create_graph=True)
        >>> gx, autograd.grad(gx, x)[0], x.grad is None
        (variable(27.0), variable(18.0), True)

    References:
        PyTorch, ``torch.autograd.grad``; Griewank & Walther, *Evaluating Derivatives*, ch. 3.
    """
    ys = diagnose.as_variables(outputs, "outputs")
    xs = diagnose.as_variables(inputs, "inputs")
    mode = GraphMode if create_graph else ArrayMode
    seeds, constant_of = _seeds(ys, grad_outputs, mode)
    diagnose.check_grad_inputs(xs)
    live = [y for y in ys if y.requires_grad]
    pending, run, idle = graph.count_between(live, xs)  # only what lies between ys and xs
    for func in (f for f in run if f.released):
        raise RuntimeError(diagnose.released_message(func))
    checked: set[tuple[int, int]] = set()  # a weight's fingerprint compared once
    for func in (f for f in idle if f.leaf_snapshots is not None):  # a view below the
        func.check_leaves_unchanged(checked)  # inputs (w.T) hands its memory to what runs
    wanted = {id(x) for x in xs if x.creator is not None}
    grads: dict[Any, Grad] = {}
    for y, seed in zip(ys, seeds):
        if seed is not None:
            key = grad_key(y)
            grads[key] = seed if key not in grads else mode.add(grads[key], seed)
    keep = (lambda v: id(v) in wanted) if wanted else None
    kept = backpropagate(pending, grads, mode, keep, on_step)
    if not (create_graph if retain_graph is None else retain_graph):
        for func in run:
            func.released = True
    handed_out: set[int] = set()
    results: list[Variable | None] = []
    for i, x in enumerate(xs):
        gx = kept[id(x)][1] if id(x) in kept else grads.get(grad_key(x))
        if gx is None and id(x) in constant_of:  # a constant gradient's derivative: 0
            gx = mode.constant(np.zeros_like(x.data))
        if gx is None and not allow_unused:
            raise RuntimeError(
                f"autograd.grad: input {i} was not used in the graph of the outputs (they "
                "do not depend on it); pass allow_unused=True to get None for it"
            )
        results.append(None if gx is None else _result(x, gx, create_graph, handed_out))
    return tuple(results)


def _seeds(ys: list[Variable], grad_outputs: Any, mode: Mode) -> tuple[list[Grad], set[int]]:
    """One seed per output (``None`` for an output that requires no gradient), and the
    ids of the leaves whose gradient is a constant among the outputs (zero derivative)."""
    one = (Variable, np.ndarray, int, float, np.generic)  # the vector of a single output
    if grad_outputs is None or isinstance(grad_outputs, one):
        given = [grad_outputs] * len(ys) if grad_outputs is None else [grad_outputs]
    else:
        given = diagnose.as_list(grad_outputs)
    if len(given) != len(ys):
        raise ValueError(
            f"autograd.grad: grad_outputs has {len(given)} entries for {len(ys)} output(s); "
            "give one per output (None for ones)"
        )
    seeds: list[Grad] = []
    constant_of: set[int] = set()
    for j, (y, v) in enumerate(zip(ys, given)):
        if not y.requires_grad:
            leaf_ref = getattr(y, "_constant_grad_of", None)
            leaf = leaf_ref() if leaf_ref is not None else None
            if leaf is None:
                raise RuntimeError(diagnose.constant_output_message(j))
            constant_of.add(id(leaf))
            seeds.append(None)
            continue
        seeds.append(_seed(j, y, v, mode))
    return seeds, constant_of


def _seed(j: int, y: Variable, v: Any, mode: Mode) -> Grad:
    if v is None:
        if y.size != 1:
            raise RuntimeError(
                f"autograd.grad: grad can be implicitly created only for one-element "
                f"outputs; output {j} has shape {y.shape}: pass grad_outputs"
            )
        return mode.constant(np.ones_like(y.data))
    if mode.create_graph and isinstance(v, Variable):
        seed = v
    else:
        array = np.asarray(v.data if isinstance(v, Variable) else v, dtype=y.dtype)
        seed = mode.constant(array)
    if seed.shape != y.shape:
        raise ValueError(
            f"autograd.grad: grad_outputs[{j}] has shape {seed.shape} but output {j} has "
            f"shape {y.shape}"
        )
    return seed


def _result(x: Variable, gx: Grad, create_graph: bool, handed_out: set[int]) -> Variable:
    """A gradient as :func:`grad` returns it: its own memory, marked like a ``.grad``."""
    return _mark_constant(_hand_out(gx, create_graph, handed_out), x, create_graph)
