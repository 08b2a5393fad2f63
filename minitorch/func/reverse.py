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

import numpy as np

from minitorch.core import Function, Variable, using_config
from minitorch.core import forward as _forward

_depth: contextvars.ContextVar[int] = contextvars.ContextVar("minitorch_func_depth", default=0)


@contextlib.contextmanager
def transform_scope() -> Iterator[None]:
    """Mark that a transform is running, so inner transforms keep their results
    differentiable (``grad(grad(f))``)."""
    token = _depth.set(_depth.get() + 1)
    try:
        yield
    finally:
        _depth.reset(token)


def nested(inside: bool = True) -> bool:
    """Will the result be differentiated again (an outer transform is running)?

    ``inside``: asked from within the transform's own :func:`transform_scope`.
    """
    return _depth.get() > int(inside) or bool(_forward.active_levels())


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
                with using_config("enable_backprop", True):
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
            terms = [
                (gx * tx).sum() for gx, tx in zip(gxs, txs) if gx is not None and tx is not None
            ]
    finally:
        func.needs_input_grad = saved_needs
    if not terms:
        return (None,) * len(ys)
    (tys,) = gradients(terms, [[np.ones(())] * len(terms)], us, create_graph=True)
    return tuple(tys)


_forward.fallback = double_vjp
