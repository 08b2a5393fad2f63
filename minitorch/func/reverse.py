"""The machinery under the transforms: lifting inputs, gradients without side effects,
and the double-vjp tangent rule for Functions that define none.

Reverse mode runs on the ordinary engine (``Variable.backward``). A transform must not
leave gradients behind on the user's Variables or Parameters, and must be able to ask for
the gradient of an *intermediate* Variable (its own copy of an input), so
:func:`gradients` snapshots every ``.grad`` in the graph, runs the engine with
``retain_grad=True`` and puts the snapshot back.
"""

from __future__ import annotations

import contextlib
import contextvars
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from minitorch.core import Config, Function, Variable, using_config
from minitorch.core import forward as _forward
from minitorch.func import pytree

_depth: contextvars.ContextVar[int] = contextvars.ContextVar("minitorch_func_depth", default=0)


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

    def results(self, tree: Any) -> Any:
        """``tree`` as the caller gets it: constants under the caller's ``no_grad``."""
        if self.record or _forward.active_levels():
            return tree
        leaves, spec, _ = pytree.flatten(tree)
        return pytree.unflatten(spec, [_constant(leaf) for leaf in leaves])


def _reaches_outer_graph(outputs: Sequence[Variable], inputs: Sequence[Variable]) -> bool:
    """Does the graph behind ``outputs`` reach a Variable that requires grad and is not
    the transform's own: a leaf other than ``inputs``, or what an input was lifted from?"""
    own = {id(x) for x in inputs}
    pending = [y for y in outputs if id(y) not in own]
    seen: set[int] = set()
    while pending:
        var = pending.pop()
        func = var.creator
        if func is None:
            if var.requires_grad:
                return True
            continue
        if id(func) in seen:
            continue
        seen.add(id(func))
        pending.extend(x for x in func.inputs if id(x) not in own)
    for x in inputs:  # a lifted copy of a Variable hangs on that Variable's graph
        if x.creator is not None and any(v.requires_grad for v in x.creator.inputs):
            return True
    return False


def _constant(leaf: Any) -> Any:
    if isinstance(leaf, Variable) and (leaf.requires_grad or leaf.creator is not None):
        return Variable(leaf.data, requires_grad=False)
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

    One engine pass per seed set, on the graph the forward pass recorded once (a ``None``
    seed is a zero one: that output is left out). Every
    ``.grad`` in that graph is as before afterwards. An input the outputs do not depend on
    gets zeros.
    """
    with using_config("enable_backprop", True):
        seeded = [
            [
                (y * seed).sum()
                for y, seed in zip(outputs, seed_set)
                if seed is not None and y.requires_grad
            ]
            for seed_set in seeds
        ]
    saved = _graph_grads(outputs)
    results = []
    try:
        for terms in seeded:
            for var, _ in saved.values():
                var.grad = None
            if terms:
                with using_config("enable_backprop", True):  # even under an outer no_grad
                    total = terms[0]
                    for term in terms[1:]:
                        total = total + term
                    total.backward(retain_grad=True, create_graph=create_graph)
            results.append([_grad_or_zeros(x) for x in inputs])
    finally:
        for var, grad in saved.values():
            var.grad = grad
    return results


def _grad_or_zeros(x: Variable) -> Variable:
    if x.grad is not None:
        return x.grad
    return Variable(np.zeros_like(x.data), requires_grad=False)


def _graph_grads(outputs: Sequence[Variable]) -> dict[int, tuple[Variable, Variable | None]]:
    """Every Variable of the graph behind ``outputs`` (by id) with its current ``.grad``."""
    seen: dict[int, tuple[Variable, Variable | None]] = {id(y): (y, y.grad) for y in outputs}
    funcs = [y.creator for y in outputs if y.creator is not None]
    visited: set[int] = set()
    while funcs:
        func = funcs.pop()
        if id(func) in visited:
            continue
        visited.add(id(func))
        for x in func.inputs:
            seen[id(x)] = (x, x.grad)
            if x.creator is not None:
                funcs.append(x.creator)
        for ref in func.outputs:
            y = ref()
            if y is not None:
                seen[id(y)] = (y, y.grad)
    return seen


_noted: set[type] = set()


def double_vjp(func: Function, txs: Sequence[Variable | None]) -> tuple[Variable | None, ...]:
    """The tangents of a Function without a ``jvp`` rule, from its ``backward`` (exact).

    ``u -> backward(u) = J^T u`` is linear in ``u``, so the gradient of
    ``<backward(u), tx>`` w.r.t. ``u`` is ``J tx``: two reverse passes instead of a rule.
    The first time a class takes this path, a ``RuntimeWarning`` says so.

    Raises:
        RuntimeError: if ``backward`` returns a gradient that does not depend on its
            incoming gradient ``u`` through minitorch ops (it computed with NumPy on
            ``.data``): its derivative in ``u`` would be a silent zero tangent.
    """
    if type(func) not in _noted:
        _noted.add(type(func))
        warnings.warn(
            f"jvp: {type(func).__name__} defines no tangent rule (jvp); its tangents are "
            "computed exactly with two reverse passes (double-vjp). Define "
            f"{type(func).__name__}.jvp to make forward mode a single pass.",
            RuntimeWarning,
            stacklevel=2,
        )
    ys = [func.output(i) for i in range(len(func.outputs))]
    us = [Variable(np.zeros_like(y.data)) for y in ys]
    saved_needs = func.needs_input_grad
    func.needs_input_grad = (True,) * len(func.inputs)  # a tangent may come from a constant
    try:
        with using_config("enable_backprop", True):
            gxs = func.backward(*us)
            gxs = tuple(gxs) if isinstance(gxs, (tuple, list)) else (gxs,)
            pairs = [(i, gx, tx) for i, (gx, tx) in enumerate(zip(gxs, txs)) if gx is not None]
            pairs = [(i, gx, tx) for i, gx, tx in pairs if tx is not None]
            for i, gx, _ in pairs:
                _check_depends_on_seed(func, i, gx, us)
            terms = [(gx * tx).sum() for _, gx, tx in pairs]
    finally:
        func.needs_input_grad = saved_needs
    if not terms:
        return (None,) * len(ys)
    (tys,) = gradients(terms, [[np.ones(())] * len(terms)], us, create_graph=True)
    return tuple(tys)


def _check_depends_on_seed(func: Function, index: int, gx: object, us: list[Variable]) -> None:
    """``backward(u)``'s gradient ``index`` must reach ``u`` through recorded ops.

    A correct backward is linear in ``u``, so a result that does not depend on ``u`` can
    only be zero; one that lost the link (NumPy on ``gy.data``, a fresh ``Variable``)
    would make every tangent through this Function silently zero.
    """
    if isinstance(gx, Variable) and _reaches(gx, {id(u) for u in us}):
        return
    name = type(func).__name__
    raise RuntimeError(
        f"jvp: {name} has no tangent rule (jvp), and its backward's gradient for input "
        f"{index} does not depend on the incoming gradient gy through minitorch ops "
        "(it was computed with NumPy on .data, or wrapped in a new Variable), so the "
        f"double-vjp fallback cannot differentiate it. Define {name}.jvp(self, *tangents) "
        "(the forward-mode rule), or write backward with minitorch ops on gy (e.g. "
        "return gy * F.cos(x)); return None for an input that gets no gradient"
    )


def _reaches(y: Variable, targets: set[int]) -> bool:
    """Does the recorded graph behind ``y`` contain a Variable whose id is in ``targets``?"""
    pending, seen = [y], set()
    while pending:
        var = pending.pop()
        if id(var) in targets:
            return True
        func = var.creator
        if func is None or id(func) in seen:
            continue
        seen.add(id(func))
        pending.extend(func.inputs)
    return False


_forward.fallback = double_vjp
