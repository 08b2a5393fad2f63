"""Full Jacobians, column by column (forward mode) or row by row (reverse mode).

``jacfwd`` runs the function once and pushes one tangent per *input* element through
the ops it called, ``jacrev`` runs it once and then one backward pass per *output*
element; both assemble blocks of shape ``output.shape + input.shape`` for every
(output, argument) pair of the pytrees.
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
from minitorch.func.reverse import Boundary, forward_named, gradients, lift, transform_scope


def jacobian(
    func: Callable[..., Any], argnums: Argnums, has_aux: bool, name: str, columns: Callable
) -> Callable:
    """The function computing ``func``'s Jacobian w.r.t. ``argnums`` with ``columns``."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        positions = argnum_positions(argnums, len(args), name)
        leaves, spec, paths = leaves_of(tuple(args[i] for i in positions), "args", name)
        leaves = [differentiable(x, path, name) for x, path in zip(leaves, paths)]

        def call(xs: list[Variable]) -> Any:
            call_args = list(args)
            for i, x in zip(positions, pytree.unflatten(spec, xs)):
                call_args[i] = x
            return split_aux(func(*call_args, **kwargs), has_aux, name)

        with transform_scope() as boundary:
            blocks, out_spec, aux = columns(call, leaves, boundary, name)
        blocks, aux = boundary.results((blocks, aux), name)
        per_output = [pytree.unflatten(spec, row) for row in blocks]
        if isinstance(argnums, int):
            per_output = [row[0] for row in per_output]
        jac = pytree.unflatten(out_spec, per_output)
        return (jac, aux) if has_aux else jac

    return wrapper


def columns_rev(
    call: Callable, leaves: list[Any], boundary: Boundary, name: str
) -> tuple[list, Any, Any]:
    """One backward pass per output element; ``blocks[o][i]`` has shape ``o.shape + i.shape``."""
    xs = [lift(x) for x in leaves]
    out, aux = call(xs)
    ys, out_spec = outputs_of(out, name)
    create_graph = boundary.create_graph(ys, xs)
    blocks = []
    for index, y in enumerate(ys):
        seeds = []
        for j in range(y.size):
            seed = np.zeros(y.size, y.dtype)
            seed[j] = 1
            seeds.append([seed.reshape(y.shape) if k == index else None for k in range(len(ys))])
        rows = gradients(ys, seeds, xs, create_graph) if seeds else []
        blocks.append([_stack_rows([r[i] for r in rows], y.shape, x) for i, x in enumerate(xs)])
    return blocks, out_spec, aux


def columns_fwd(
    call: Callable, leaves: list[Any], boundary: Boundary, name: str
) -> tuple[list, Any, Any]:
    """One evaluation of the function, then one tangent push per input element.

    The function runs once, with a tangent level carrying the first direction and a tape
    of the ops it calls; every further direction (a one-hot tangent on one input
    element) is pushed through the taped ops' tangent rules (:func:`forward.replay`),
    without running any op's forward again. So randomness (a dropout mask) and side
    effects (a BatchNorm's running statistics) happen once, as in one call of the
    function, and every column is the derivative of that one realisation.
    """
    xs = [lift(v, False) for v in leaves]
    directions = [(i, j) for i, x in enumerate(xs) for j in range(x.size)]
    columns: list[list[Variable]] = []  # [direction] -> tangent per output
    with forward_named(name), _forward.tangent_level() as live:
        live.tape = []
        if directions:
            _seed(live, xs, directions[0])
        out, aux = call(xs)
        ys, out_spec = outputs_of(out, name)
        tape = live.tape
    if directions:
        columns.append([tangent_of(live, y) for y in ys])
    if len(directions) > 1:  # the replays must see what the first column saw
        _forward.check_tape(live, name)
    with forward_named(name):
        for direction in directions[1:]:
            level = _forward.TangentLevel()
            _seed(level, xs, direction)
            _forward.replay(tape, level)
            columns.append([tangent_of(level, y) for y in ys])
    blocks = []
    for k, y in enumerate(ys):
        row, start = [], 0
        for x in xs:
            row.append(_stack_columns([col[k] for col in columns[start : start + x.size]], y, x))
            start += x.size
        blocks.append(row)
    return blocks, out_spec, aux


def _seed(level: _forward.TangentLevel, xs: list[Variable], direction: tuple[int, int]) -> None:
    """Give input element ``direction = (input i, element j)`` the tangent 1 on ``level``."""
    i, j = direction
    tangent = np.zeros(xs[i].size, xs[i].dtype)
    tangent[j] = 1
    level.seed(xs[i], Variable(tangent.reshape(xs[i].shape), requires_grad=False))


def _stack_rows(rows: list[Variable], out_shape: tuple[int, ...], x: Variable) -> Variable:
    if not rows:
        return Variable(np.zeros(out_shape + x.shape, x.dtype), requires_grad=False)
    return F.reshape(F.stack(rows, axis=0), out_shape + x.shape)


def _stack_columns(cols: list[Variable], y: Variable, x: Any) -> Variable:
    shape = y.shape + tuple(np.shape(x.data if isinstance(x, Variable) else x))
    if not cols:
        return Variable(np.zeros(shape, y.dtype), requires_grad=False)
    return F.reshape(F.stack(cols, axis=-1), shape)
