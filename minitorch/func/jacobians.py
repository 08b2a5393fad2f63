"""Full Jacobians, column by column (forward mode) or row by row (reverse mode).

``jacfwd`` runs one forward pass with tangents per *input* element, ``jacrev`` one
forward pass and then one backward pass per *output* element; both assemble blocks of
shape ``output.shape + input.shape`` for every (output, argument) pair of the pytrees.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import minitorch.ops as F
from minitorch.core import Variable
from minitorch.core import forward as _forward
from minitorch.func import pytree
from minitorch.func.checks import (
    Argnums,
    argnum_positions,
    differentiable,
    leaves_of,
    outputs_of,
    split_aux,
    tangent_of,
)
from minitorch.func.reverse import gradients, lift, nested, transform_scope


def jacobian(
    func: Callable[..., Any], argnums: Argnums, has_aux: bool, name: str, columns: Callable
) -> Callable:
    """The function computing ``func``'s Jacobian w.r.t. ``argnums`` with ``columns``."""

    def wrapper(*args: Any) -> Any:
        positions = argnum_positions(argnums, len(args), name)
        leaves, spec, paths = leaves_of(tuple(args[i] for i in positions), "args", name)
        leaves = [differentiable(x, path, name) for x, path in zip(leaves, paths)]

        def call(xs: list[Variable]) -> Any:
            call_args = list(args)
            for i, x in zip(positions, pytree.unflatten(spec, xs)):
                call_args[i] = x
            return split_aux(func(*call_args), has_aux, name)

        with transform_scope():
            blocks, out_spec, aux = columns(call, leaves, name)
        per_output = [pytree.unflatten(spec, row) for row in blocks]
        if isinstance(argnums, int):
            per_output = [row[0] for row in per_output]
        jac = pytree.unflatten(out_spec, per_output)
        return (jac, aux) if has_aux else jac

    return wrapper


def columns_rev(call: Callable, leaves: list[Any], name: str) -> tuple[list, Any, Any]:
    """One backward pass per output element; ``blocks[o][i]`` has shape ``o.shape + i.shape``."""
    xs = [lift(x) for x in leaves]
    out, aux = call(xs)
    ys, out_spec = outputs_of(out, name)
    blocks = []
    for index, y in enumerate(ys):
        seeds = []
        for j in range(y.size):
            seed = np.zeros(y.size, y.dtype)
            seed[j] = 1
            seeds.append([seed.reshape(y.shape) if k == index else None for k in range(len(ys))])
        rows = gradients(ys, seeds, xs, nested()) if seeds else []
        blocks.append([_stack_rows([r[i] for r in rows], y.shape, x) for i, x in enumerate(xs)])
    return blocks, out_spec, aux


def columns_fwd(call: Callable, leaves: list[Any], name: str) -> tuple[list, Any, Any]:
    """One forward pass with tangents per input element (no backward at all)."""
    columns: list[list[list[Variable]]] = []  # [input i][element j] -> tangent per output
    first: tuple[list[Variable], Any, Any] | None = None
    for i, x in enumerate(leaves):
        per_element = []
        for j in range(_size(x)):
            with _forward.tangent_level() as level:
                xs = [lift(v, False) for v in leaves]
                tangent = np.zeros(_size(x), xs[i].dtype)
                tangent[j] = 1
                level.set(xs[i], Variable(tangent.reshape(xs[i].shape), requires_grad=False))
                out, aux = call(xs)
                ys, out_spec = outputs_of(out, name)
                per_element.append([tangent_of(level, y) for y in ys])
            first = first or (ys, out_spec, aux)
        columns.append(per_element)
    if first is None:  # no input elements at all: evaluate once for the output shapes
        out, aux = call([lift(v, False) for v in leaves])
        ys, out_spec = outputs_of(out, name)
        first = (ys, out_spec, aux)
    ys, out_spec, aux = first
    blocks = [
        [_stack_columns([col[k] for col in columns[i]], y, leaves[i]) for i in range(len(leaves))]
        for k, y in enumerate(ys)
    ]
    return blocks, out_spec, aux


def _stack_rows(rows: list[Variable], out_shape: tuple[int, ...], x: Variable) -> Variable:
    if not rows:
        return Variable(np.zeros(out_shape + x.shape, x.dtype), requires_grad=False)
    return F.reshape(F.stack(rows, axis=0), out_shape + x.shape)


def _stack_columns(cols: list[Variable], y: Variable, x: Any) -> Variable:
    shape = y.shape + tuple(np.shape(x.data if isinstance(x, Variable) else x))
    if not cols:
        return Variable(np.zeros(shape, y.dtype), requires_grad=False)
    return F.reshape(F.stack(cols, axis=-1), shape)


def _size(x: Any) -> int:
    return int(np.size(x.data if isinstance(x, Variable) else x))
