"""Forward-mode support: tangents that travel with the forward computation.

A *tangent level* is one active forward-mode transform (one ``minitorch.func.jvp``). It
maps each primal Variable to its tangent ``dx`` (a Variable of the same shape). While a
level is active, ``Function.__call__`` hands every op whose inputs carry tangents to
:func:`push_tangents`, which calls the op's tangent rule ``Function.jvp(xs, y, *txs)`` and
records the output tangents on the same level: the dual-number idea, one op at a time.

Levels nest (forward-over-forward). While the rule of level ``k`` runs, only the levels
*outside* it stay active, so the tangent computation is itself an ordinary computation
that the outer levels differentiate — and that the reverse engine records, since the
rules are written with minitorch ops on Variables (forward-over-reverse and back). This
is the "levels" answer to perturbation confusion (Siskind and Pearlmutter, 2005).

A Function with no tangent rule gets one from :data:`fallback`, which
``minitorch.func`` installs (the double-vjp trick); core itself imports nothing above it.
"""

from __future__ import annotations

import contextlib
import contextvars
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

import minitorch.core.inplace as inplace
from minitorch.core.config import _state, _with
from minitorch.core.diagnose import check_jvp_signature
from minitorch.core.graph import functions
from minitorch.core.variable import Variable

if TYPE_CHECKING:
    from minitorch.core.function import Function


class TangentLevel:
    """The tangents of one forward-mode transform, by primal Variable.

    Keyed by ``id``; the primal itself is kept alongside so the id cannot be reused while
    the level lives (a level lives only as long as one ``jvp`` call).

    ``tape``: when a list, every op called while the level is on is appended to it as
    ``(func, inputs, outputs, config state)``, so ``jacfwd`` can push more tangent
    directions through the same single evaluation afterwards; ``stamps`` then holds a
    stamp of every value those ops read, taken when first seen, so that ``jacfwd`` can
    refuse a value edited in place before its replays read it (:func:`check_tape`).

    ``inputs``: the ids of the transform's own inputs (given by :meth:`seed`), which
    ``unchain()`` leaves alone, as reverse mode does: they have no creator to cut.
    """

    __slots__ = ("inputs", "stamps", "tangents", "tape")

    def __init__(self) -> None:
        self.tangents: dict[int, tuple[Variable, Variable]] = {}
        self.tape: list[tuple[Any, ...]] | None = None
        self.stamps: dict[int, tuple[Variable, inplace.Stamp]] = {}
        self.inputs: set[int] = set()

    def set(self, x: Variable, tx: Variable) -> None:
        """Record ``tx`` as the tangent of ``x`` on this level."""
        self.tangents[id(x)] = (x, tx)

    def seed(self, x: Variable, tx: Variable) -> None:
        """Give the transform's input ``x`` its tangent ``tx`` (the direction)."""
        self.inputs.add(id(x))
        self.set(x, tx)

    def get(self, x: Variable) -> Variable | None:
        """The tangent of ``x`` on this level, or ``None`` (a zero tangent)."""
        entry = self.tangents.get(id(x))
        return None if entry is None else entry[1]


_levels: contextvars.ContextVar[tuple[TangentLevel, ...]] = contextvars.ContextVar(
    "minitorch_tangent_levels",
    default=(),  # noqa: B039 (an immutable tuple)
)

#: ``fallback(func, txs) -> tuple of output tangents`` for Functions without ``jvp``.
fallback: Callable[[Function, Sequence[Variable | None]], tuple[Any, ...]] | None = None


def active_levels() -> tuple[TangentLevel, ...]:
    """The tangent levels in force here, outermost first (empty outside any ``jvp``)."""
    return _levels.get()


@contextlib.contextmanager
def tangent_level() -> Iterator[TangentLevel]:
    """Open a new (innermost) tangent level for the duration of a ``with`` block."""
    level = TangentLevel()
    token = _levels.set(_levels.get() + (level,))
    state_token = _state.set(_with(_state.get(), forward_mode=True))
    try:
        yield level
    finally:
        _state.reset(state_token)
        _levels.reset(token)


def push_tangents(func: Function, xs: Sequence[Variable], outputs: list[Variable]) -> None:
    """Compute and record the output tangents of ``func`` on every level that needs them.

    Called by ``Function.__call__`` after the forward pass (and after recording the
    reverse graph, so the tangent computation comes later in every ordering).
    """
    levels = _levels.get()
    for k, level in enumerate(levels):
        if level.tape is not None:
            level.tape.append((func, xs, outputs, _state.get()))
            _stamp_what_the_rule_reads(level, func, xs, outputs)
        push_level(level, levels[:k], func, xs, outputs)


def push_level(
    level: TangentLevel,
    outer: tuple[TangentLevel, ...],
    func: Function,
    xs: Sequence[Variable],
    outputs: list[Variable],
) -> None:
    """Run ``func``'s tangent rule for ``level``, with only the ``outer`` levels on."""
    txs = [level.get(x) for x in xs]
    if all(tx is None for tx in txs):
        return
    _give_rule_its_inputs(func, xs, outputs)
    token = _levels.set(outer)
    try:
        tys = _call_rule(func, xs, outputs, txs)
    finally:
        _levels.reset(token)
    given = {id(v) for v in (*xs, *outputs, *txs) if v is not None}
    for i, (y, ty) in enumerate(zip(outputs, tys)):
        if ty is not None:
            ty = _checked_tangent(func, i, y, ty)
            _mark_rule_graph(ty, given)
            level.set(y, ty)


def cut_tangents(y: Variable) -> None:
    """``y.unchain()`` under forward mode: ``y`` is a constant from here on, so its tangent
    on every level is zero (as ``torch.func.jvp`` gives through ``detach``); a level that
    keeps a tape notes the cut there, so that ``jacfwd``'s replay cuts at the same point.
    A level's own input keeps its tangent: reverse mode has no link to cut there either."""
    for level in _levels.get():
        if id(y) in level.inputs:
            continue
        level.tangents.pop(id(y), None)
        if level.tape is not None:
            level.tape.append((None, (), [y], None))  # no Function: the cut of y


def replay(tape: list[tuple[Any, ...]], level: TangentLevel) -> None:
    """Push ``level``'s tangents through the ops of ``tape`` again (``jacfwd``'s further
    directions): each op's rule, in the order the ops ran, under the config it ran with,
    with the levels that are on now as the outer ones. No op's forward runs again."""
    outer = _levels.get()
    for func, xs, outputs, state in tape:
        if func is None:  # cut_tangents: outputs[0] was unchained here
            if id(outputs[0]) not in level.inputs:
                level.tangents.pop(id(outputs[0]), None)
            continue
        token = _state.set(state)
        try:
            push_level(level, outer, func, xs, outputs)
        finally:
            _state.reset(token)


def _stamp_what_the_rule_reads(
    level: TangentLevel, func: Function, xs: Sequence[Variable], outputs: list[Variable]
) -> None:
    """Stamp the values ``func``'s tangent rule may read when ``jacfwd`` replays it: its
    inputs and its outputs (``Div``'s rule reads ``y`` though its backward does not save
    it, so every output counts), each when first seen. An op with no input tangent on
    this level is skipped on replay too (whether an input carries a tangent is the same
    for every direction), so it reads nothing; an input is stamped only when an op with
    a tangent first reads it, so a leaf edited before such a use is no edit at all."""
    if all(level.get(x) is None for x in xs):
        return
    inplace.stamp_new(level.stamps, (*xs, *outputs))


def check_tape(level: TangentLevel, name: str) -> None:
    """Before ``jacfwd`` replays ``level``'s tape: every value its ops read must still hold
    what they read when they ran (the first column was computed then).

    Raises:
        RuntimeError: naming the transform, the op, the value and the edit.
    """
    for func, xs, outputs, _ in level.tape or ():
        if func is None:
            continue
        for k, v in enumerate((*xs, *outputs)):
            entry = level.stamps.get(id(v))
            if entry is not None and inplace.stamp_changed(v.data, entry[1]):
                role, index = ("input", k) if k < len(xs) else ("output", k - len(xs))
                raise RuntimeError(inplace.replay_modified_message(name, func, role, index, v))


def _mark_rule_graph(ty: Variable, given: set[int]) -> None:
    """Flag the Functions a tangent rule just made (``created_in_jvp``, for ``viz``).

    The rule sees only its op's inputs, outputs and input tangents (``given``), so
    walking back from its result until one of those is reached finds exactly its ops.
    """
    if id(ty) in given:
        return

    def made_before(x: Variable) -> bool:  # given to the rule, or marked by an earlier one
        return id(x) in given or bool(x.creator and x.creator.created_in_jvp)

    for func in functions(ty, stop=made_before):
        func.created_in_jvp = True


def _give_rule_its_inputs(func: Function, xs: Sequence[Variable], outputs: list[Variable]) -> None:
    """A Function that recorded no graph (constants in) still lets the fallback read
    ``self.inputs`` and ``self.output(i)``, exactly as ``backward`` does."""
    if getattr(func, "inputs", None) is None:
        func.inputs = list(xs)
        func.outputs = [weakref.ref(y) for y in outputs]
        func.needs_input_grad = (False,) * len(xs)


def _call_rule(
    func: Function, xs: Sequence[Variable], outputs: list[Variable], txs: list[Variable | None]
) -> tuple[Any, ...]:
    """The output tangents: ``func.jvp(xs, y, *txs)``, or the fallback's."""
    from minitorch.core.function import Function  # the base class, to see an override

    if type(func).jvp is Function.jvp:
        if fallback is None:
            raise RuntimeError(
                f"{type(func).__name__} has no tangent rule (jvp) and no fallback is "
                "installed; import minitorch.func"
            )
        return tuple(fallback(func, txs))
    if type(func) not in _rules_checked:  # once per class: jvp(self, xs, y, *txs)?
        check_jvp_signature(func, len(xs))
        _rules_checked.add(type(func))
    tys = func.jvp(xs, outputs[0] if len(outputs) == 1 else tuple(outputs), *txs)
    tys = tuple(tys) if isinstance(tys, (tuple, list)) else (tys,)
    if len(tys) != len(func.outputs):
        raise ValueError(
            f"{type(func).__name__}.jvp returned {len(tys)} tangent(s) for "
            f"{len(func.outputs)} output(s); return one per output (None for a zero tangent)"
        )
    return tys


_rules_checked: set[type] = set()  # Function classes whose jvp signature fits


def _checked_tangent(func: Function, index: int, y: Variable, ty: Any) -> Variable:
    """A tangent must be a Variable with its output's shape (and floating dtype)."""
    if not isinstance(ty, Variable):
        ty = Variable(np.asarray(ty), requires_grad=False)
    if ty.shape != y.shape:
        raise ValueError(
            f"{type(func).__name__}.jvp: the tangent of output {index} has shape {ty.shape} "
            f"but the output has shape {y.shape}; broadcast it with broadcast_to(t, y.shape)"
        )
    if ty.dtype != y.dtype and y.dtype.kind == "f":
        ty = ty.astype(y.dtype)
    return ty
