"""Detecting in-place edits of leaf inputs between a forward call and its backward.

A leaf Variable (``creator is None``: a Parameter, an input batch) is what users edit in
place — ``x.data[...] = 5``, an optimizer step, ``x.data = new`` — and backward would
then silently compute the gradient at the new values. So each Function that records a
graph remembers the values of its leaf inputs, and the engine compares them before that
Function's backward (PyTorch keeps a version counter per tensor for the same purpose;
NumPy writes are invisible to us, so the values themselves are compared).

A small array (under 64 kB: a bias, a 0-d constant, the seeds of repeated
``create_graph``) is recorded by each Function that uses it as its bytes, shape and dtype
(``tobytes()`` is cheaper than any shared bookkeeping). A large one — a weight matrix —
is copied once per value instead: each large leaf owns one :class:`LeafSnapshot`, a
private copy of its array and a version number. A forward call that finds the values
unchanged reuses the copy (a weight used at every step of an RNN is copied once); one that
finds them changed copies them into the same buffer (no new allocation per training
step) and increments the version, so the older graphs that recorded the previous version
know their values are gone.
Comparisons are bit for bit (a NaN equals itself): O(size), without temporary copies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from minitorch.core.variable import Variable

if TYPE_CHECKING:
    from minitorch.core.function import Function

#: One per leaf input: ``(input index, array, shape, dtype, bytes)`` for a small array,
#: ``(input index, the leaf's snapshot, its version at the forward call)`` for a large one.
Recorded = tuple[Any, ...]
_SMALL = 1 << 16  # bytes: below this, comparing two ``tobytes()`` is the cheapest way
_HEAD = 1 << 13  # words compared first: after an optimizer step they already differ


class LeafSnapshot:
    """The values of one large leaf's array as the forward calls that used it saw them.

    Attributes:
        data: the leaf's array at the time (``x.data`` may be replaced later).
        copy: a private C-contiguous copy of its values.
        version: how many times the values were found changed and copied again.
    """

    __slots__ = ("copy", "data", "version")

    def __init__(self, data: np.ndarray) -> None:
        self.data = data
        self.copy = np.array(data, order="C", copy=True)
        self.version = 0

    def still_holds(self, data: np.ndarray) -> bool:
        """Whether ``data`` (the array this snapshot copied) has the values of the copy."""
        copy = self.copy
        if data.shape != copy.shape or data.dtype != copy.dtype:  # `x.data.dtype = ...`
            return False
        return same_values(data, copy)

    def take(self, data: np.ndarray) -> None:
        """Copy the changed values of ``data`` into this snapshot, as a new version."""
        np.copyto(self.copy, data)
        self.version += 1


def _same_layout(snapshot: LeafSnapshot, data: np.ndarray) -> bool:
    return data.shape == snapshot.copy.shape and data.dtype == snapshot.copy.dtype


def same_values(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether ``a`` and ``b`` (same shape and dtype) hold the same bytes.

    Large contiguous arrays are compared as machine words, the first few thousand first,
    so a changed weight is rejected early and no ``tobytes()`` copy is made.
    """
    if a.nbytes < _SMALL or not (a.flags.c_contiguous and b.flags.c_contiguous):
        return a.tobytes() == b.tobytes()
    word = np.uint64 if a.nbytes % 8 == 0 else np.uint8
    x, y = a.reshape(-1).view(word), b.reshape(-1).view(word)
    return bool(np.array_equal(x[:_HEAD], y[:_HEAD]) and np.array_equal(x[_HEAD:], y[_HEAD:]))


def record_leaves(xs: Any, operands: tuple[Any, ...]) -> tuple[Recorded, ...] | None:
    """Snapshot the leaf inputs of a Function that is recording its graph.

    ``xs`` are its input Variables, ``operands`` what the caller passed. Constants that
    ``as_inputs`` made from operands are private and skipped: numbers and lists become
    new arrays, and an ndarray operand was copied before forward (backward then uses the
    forward point's values and nothing needs comparing).
    """
    recorded: list[Recorded] | None = None
    for i, x in enumerate(xs):
        if x.creator is not None:
            continue
        if operands[i] is not x:  # a constant made by as_inputs: a private array
            continue
        data = x.data
        if data.nbytes < _SMALL:
            record: Recorded = (i, data, data.shape, data.dtype, data.tobytes())
        else:
            record = (i, *_large_snapshot(x, data))
        if recorded is None:
            recorded = [record]
        else:
            recorded.append(record)
    return None if recorded is None else tuple(recorded)


def _large_snapshot(x: Variable, data: np.ndarray) -> tuple[LeafSnapshot, int]:
    """The snapshot of a large leaf, copied again only if its values changed."""
    snapshot = getattr(x, "_snapshot", None)
    if snapshot is None or snapshot.data is not data or not _same_layout(snapshot, data):
        snapshot = LeafSnapshot(data)
        x._snapshot = snapshot
    elif not snapshot.still_holds(data):
        snapshot.take(data)
    return snapshot, snapshot.version


def check_unchanged(func: Function, checked: set[tuple[int, int]] | None = None) -> None:
    """Raise if a leaf input of ``func`` was edited since ``func``'s forward call.

    Args:
        func: a Function whose ``leaf_snapshots`` were recorded by :func:`record_leaves`.
        checked: ``(id(snapshot), version)`` pairs already found unchanged in this backward
            pass; a weight used by many Functions is then compared once per pass.

    Raises:
        RuntimeError: naming the Function, the input and what to do instead.
    """
    for record in func.leaf_snapshots or ():
        if len(record) == 5:  # a small array: its own bytes, shape and dtype
            i, data, shape, dtype, blob = record
            x = func.inputs[i]
            now = x.data
            if not isinstance(now, np.ndarray):
                raise RuntimeError(_not_an_array_message(func, i, x))
            if now.shape != shape or now.dtype != dtype or now.tobytes() != blob:
                raise RuntimeError(_modified_message(func, i, x, now is data))
            continue
        i, snapshot, version = record
        key = (id(snapshot), version)
        if checked is not None and key in checked:
            continue
        x = func.inputs[i]
        now = x.data
        if not isinstance(now, np.ndarray):
            raise RuntimeError(_not_an_array_message(func, i, x))
        if version != snapshot.version:  # changed (and copied again) by a later forward
            raise RuntimeError(_modified_message(func, i, x, now is snapshot.data))
        if now is snapshot.data:
            if not snapshot.still_holds(now):
                raise RuntimeError(_modified_message(func, i, x, True))
        else:  # replaced: fine if by equal values
            saved = snapshot.copy
            if now.shape != saved.shape or now.dtype != saved.dtype or not same_values(now, saved):
                raise RuntimeError(_modified_message(func, i, x, False))
        if checked is not None:
            checked.add(key)


def _not_an_array_message(func: Function, index: int, x: Variable) -> str:
    label = f"Variable {x.name!r}" if x.name else "a Variable"
    hint = (
        " Did an update write x.data = x.data - lr * x.grad? Use the gradient's array: "
        "x.grad.data."
        if isinstance(x.data, Variable)
        else ""
    )
    return (
        f"backward(): input {index} of {type(func).__name__} ({label}) no longer holds an "
        f"ndarray: its data was replaced by a {type(x.data).__name__} after the forward "
        f"pass.{hint} Keep .data an ndarray, and change it only after backward()"
    )


def _modified_message(func: Function, index: int, x: Variable, same_array: bool) -> str:
    label = f"Variable {x.name!r}" if x.name else "a Variable"
    how = (
        "its array was written to in place (e.g. x.data[...] = value, or an optimizer step)"
        if same_array
        else "its data was replaced (x.data = new array) by an array of different values, "
        "shape or dtype"
    )
    return (
        f"backward(): input {index} of {type(func).__name__} ({label}, shape {x.shape}) was "
        f"modified after the forward pass: {how}. The gradient would be computed at the "
        "new values, not at the point of the forward pass. Change inputs and parameters "
        "only after backward() (forward -> backward -> optimizer step), or run the forward "
        "pass again"
    )
