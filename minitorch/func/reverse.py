"""The machinery under the transforms: lifting inputs, gradients without side effects,
and the double-vjp tangent rule for Functions that define none.

Reverse mode runs on the engine itself: :func:`gradients` calls ``minitorch.core.grad``
(``minitorch.autograd.grad``), which returns the gradients of the Variables it is asked
about — the transform's own copies of its inputs, intermediate or not — and writes no
``.grad`` anywhere, so a transform leaves the user's Variables and Parameters as they
were without saving or restoring anything.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from minitorch.core import Config, Function, Variable, grad, grad_key, graph, using_config
from minitorch.core import forward as _forward
from minitorch.func import pytree

_depth: contextvars.ContextVar[int] = contextvars.ContextVar("minitorch_func_depth", default=0)
#: The forward-mode transform the user called (``jvp``, ``jacfwd``, ``hessian``, ``hvp``):
#: the fallback's warning and refusal name it.
forward_transform: contextvars.ContextVar[str] = contextvars.ContextVar(
    "minitorch_func_forward_transform", default="jvp"
)


@contextlib.contextmanager
def forward_named(name: str) -> Iterator[None]:
    """Name the forward-mode transform running in this ``with`` block (for messages)."""
    token = forward_transform.set(name)
    try:
        yield
    finally:
        forward_transform.reset(token)


@dataclass(frozen=True)
class Boundary:
    """What lies outside one transform call: it decides how the results meet the caller.

    A transform ignores an outer ``no_grad()`` / ``enable_backprop=False`` (torch.func's
    rule): it always differentiates, and only a ``no_grad`` *inside* the transformed
    function counts. Under an outer one, its results are constants (no graph), exactly
    like any other value computed under ``no_grad``.

    Attributes:
        record: the caller records a graph (no ``no_grad`` around the call).
        depth: how many transforms are running around this one.
    """

    record: bool
    depth: int

    def create_graph(self, outputs: Sequence[Variable], inputs: Sequence[Variable]) -> bool:
        """Should the derivatives of ``outputs`` w.r.t. ``inputs`` be differentiable?

        Yes inside a forward-mode level (it pushes tangents through them); and, where
        the caller records a graph, inside another transform (``grad(grad(f))``) or
        when the outputs hang on a graph outside the transform: an input, or a
        Parameter the function uses, requires grad (``mf.grad(f)(x).sum().backward()``,
        as torch.func composes with torch.autograd).
        """
        if _forward.active_levels():
            return True
        if not self.record:
            return False
        return self.depth > 0 or _reaches_outer_graph(outputs, inputs)

    def results(self, tree: Any, name: str) -> Any:
        """``tree`` as the caller gets it: constants under the caller's ``no_grad``.

        A constant result is marked with the transform's ``name``, so ``backward()`` on
        it (or on what is computed from it) says why it has no graph.
        """
        leaves, spec, _ = pytree.flatten(tree)
        if not (self.record or _forward.active_levels()):
            leaves = [_constant(leaf) for leaf in leaves]
        for leaf in leaves:
            if isinstance(leaf, Variable) and getattr(leaf, "_first_order_grad", False):
                leaf._first_order_grad = name
        return pytree.unflatten(spec, leaves)


def _reaches_outer_graph(outputs: Sequence[Variable], inputs: Sequence[Variable]) -> bool:
    """Does the graph behind ``outputs`` reach a Variable that requires grad and is not
    the transform's own: a leaf other than ``inputs``, or what an input was lifted from?"""
    own = {id(x) for x in inputs}
    mine = [y for y in outputs if id(y) not in own]
    if any(y.creator is None and y.requires_grad for y in mine):
        return True
    for func in graph.functions(*mine, stop=lambda x: id(x) in own):
        if any(x.creator is None and x.requires_grad and id(x) not in own for x in func.inputs):
            return True
    for x in inputs:  # a lifted copy of a Variable hangs on that Variable's graph
        if x.creator is not None and any(v.requires_grad for v in x.creator.inputs):
            return True
    return False


def _constant(leaf: Any) -> Any:
    if isinstance(leaf, Variable) and (leaf.requires_grad or leaf.creator is not None):
        constant = Variable(leaf.data, requires_grad=False)
        constant._first_order_grad = True  # named by Boundary.results
        return constant
    return leaf


@contextlib.contextmanager
def transform_scope() -> Iterator[Boundary]:
    """Run one transform: backprop on whatever the caller chose, inner transforms
    marked as nested. Yields the call's :class:`Boundary`."""
    boundary = Boundary(Config.enable_backprop, _depth.get())
    token = _depth.set(boundary.depth + 1)
    try:
        with using_config("enable_backprop", True):
            yield boundary
    finally:
        _depth.reset(token)


def boundary_here() -> Boundary:
    """The :class:`Boundary` of a call made here (``vjp_fn``, called after ``vjp``)."""
    return Boundary(Config.enable_backprop, _depth.get())


class Primal(Function):
    """y = x: a transform's own copy of an input;  ty = tx,  gx = gy."""

    saves = ()

    def forward(self, x: np.ndarray) -> np.ndarray:
        return x

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        return tx

    def backward(self, gy: Variable) -> Variable:
        return gy

    def backward_array(self, gy: np.ndarray) -> np.ndarray:
        return gy


def lift(x: Variable | np.ndarray, requires_grad: bool = True) -> Variable:
    """A fresh Variable standing for input ``x`` inside one transform.

    An ndarray becomes a leaf. A Variable gets a :class:`Primal` copy: still linked to
    ``x``'s graph and tangents (so outer transforms see through it), yet a Variable of
    its own whose gradient and tangent belong to this transform alone. Reverse-mode
    transforms ask for ``requires_grad``; forward mode needs no graph of its own.
    """
    if isinstance(x, np.ndarray):
        return Variable(x, requires_grad=requires_grad)
    with using_config("enable_backprop", True):
        copy: Variable = Primal()(x)
    copy.name = x.name  # drawn as what it stands for
    if requires_grad and copy.creator is None:  # x was a constant: make it a leaf here
        copy.requires_grad = True
    return copy


def gradients(
    outputs: Sequence[Variable],
    seeds: Sequence[Sequence[Variable | np.ndarray | None]],
    inputs: Sequence[Variable],
    create_graph: bool,
) -> list[list[Variable]]:
    """For each seed set ``s``: the gradients of ``sum_j <outputs[j], s[j]>`` w.r.t. ``inputs``.

    One engine pass per seed set (``minitorch.core.grad``), on the graph the forward pass
    recorded once, which is kept for the next pass; a ``None`` seed is a zero one (that
    output is left out). No ``.grad`` is written. An input the outputs do not depend on
    gets zeros.
    """
    wanted = [x for x in inputs if x.requires_grad]
    results = []
    for seed_set in seeds:
        pairs = [(y, s) for y, s in zip(outputs, seed_set) if s is not None and y.requires_grad]
        found: dict[int, Variable | None] = {}
        if pairs and wanted:
            with using_config("enable_backprop", True):  # even under an outer no_grad
                gxs = grad(
                    [y for y, _ in pairs],
                    wanted,
                    grad_outputs=[seed for _, seed in pairs],
                    retain_graph=True,
                    create_graph=create_graph,
                    allow_unused=True,
                )
            found = {id(x): gx for x, gx in zip(wanted, gxs)}
        results.append([_or_zeros(found.get(id(x)), x) for x in inputs])
    return results


def _or_zeros(gx: Variable | None, x: Variable) -> Variable:
    return gx if gx is not None else Variable(np.zeros_like(x.data), requires_grad=False)


_noted: set[type] = set()


def double_vjp(func: Function, txs: Sequence[Variable | None]) -> tuple[Variable | None, ...]:
    """The tangents of a Function without a ``jvp`` rule, from its ``backward`` (exact).

    ``u -> backward(u) = J^T u`` is linear in ``u``, so the gradient of
    ``<backward(u), tx>`` w.r.t. ``u`` is ``J tx``: two reverse passes instead of a rule.
    The first time a class takes this path (and it works), a ``RuntimeWarning`` says so.

    Raises:
        RuntimeError: if ``backward`` returns a gradient that does not depend on its
            incoming gradient ``u`` through minitorch ops (it computed with NumPy on
            ``.data``): its derivative in ``u`` would be a silent zero tangent.
    """
    ys = [func.output(i) for i in range(len(func.outputs))]
    us = [Variable(np.zeros_like(y.data)) for y in ys]
    # The same Function (inputs, outputs, saved state shared), asked for every input's
    # gradient: a tangent may come from an input that needs none. func itself is untouched.
    rule = copy.copy(func)
    rule.needs_input_grad = (True,) * len(func.inputs)
    # A list of its own: the rule may put a rebuilt output in a slot (saved.rule_output),
    # and in func's shared list that short-lived Variable would stand for the output on
    # jacfwd's next replay of func (where it is gone by then).
    rule.outputs = list(func.outputs)
    with using_config("enable_backprop", True):
        gxs = rule.backward(*us)
        gxs = tuple(gxs) if isinstance(gxs, (tuple, list)) else (gxs,)
        pairs = [(i, gx, tx) for i, (gx, tx) in enumerate(zip(gxs, txs)) if gx is not None]
        pairs = [(i, gx, tx) for i, gx, tx in pairs if tx is not None]
        for i, gx, _ in pairs:
            _check_depends_on_seed(func, i, gx, us)
        _note_fallback(func)  # only once the fallback is known to work
        terms = [(gx * tx).sum() for _, gx, tx in pairs]
    if not terms:
        return (None,) * len(ys)
    (tys,) = gradients(terms, [[np.ones(())] * len(terms)], us, create_graph=True)
    return tuple(tys)


def _note_fallback(func: Function) -> None:
    """Warn, the first time a class takes the double-vjp path, that it does."""
    if type(func) in _noted:
        return
    _noted.add(type(func))
    name = type(func).__name__
    warnings.warn(
        f"{forward_transform.get()}: {name} defines no tangent rule (jvp); its tangents "
        "are computed exactly with two reverse passes (double-vjp). Define "
        f"{name}.jvp(self, xs, y, *txs) to make forward mode a single pass.",
        RuntimeWarning,
        stacklevel=3,
    )


def _check_depends_on_seed(func: Function, index: int, gx: object, us: list[Variable]) -> None:
    """``backward(u)``'s gradient ``index`` must reach ``u`` through recorded ops.

    A correct backward is linear in ``u``, so a result that does not depend on ``u`` can
    only be zero; one that lost the link (NumPy on ``gy.data``, a fresh ``Variable``)
    would make every tangent through this Function silently zero.
    """
    if isinstance(gx, Variable) and _reaches(gx, {grad_key(u) for u in us}):
        return
    name = type(func).__name__
    raise RuntimeError(
        f"{forward_transform.get()}: {name} has no tangent rule (jvp), and its backward's "
        f"gradient for input {index} does not depend on the incoming gradient gy through "
        "minitorch ops (it was computed with NumPy on .data, or wrapped in a new "
        "Variable), so the double-vjp fallback cannot differentiate it. Define "
        f"{name}.jvp(self, xs, y, *txs) (the forward-mode rule: xs the input Variables, y "
        "the output, one tangent per input; return J @ tx written with minitorch ops, "
        "e.g. (x,) = xs; return 3 * x ** 2 * tx), or write backward with minitorch ops on "
        "gy (e.g. return gy * F.cos(x)); return None for an input that gets no gradient"
    )


def _reaches(y: Variable, targets: set[Any]) -> bool:
    """Does the recorded graph behind ``y`` contain a Variable whose id is in ``targets``?"""
    if grad_key(y) in targets:
        return True
    return any(grad_key(x) in targets for func in graph.functions(y) for x in func.inputs)


_forward.fallback = double_vjp
