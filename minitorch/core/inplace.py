"""Detecting in-place edits of leaf inputs between a forward call and its backward.

A leaf Variable (``creator is None``: a Parameter, an input batch) is what users edit in
place — ``x.data[...] = 5``, an optimizer step, ``x.data = new`` — and backward would
then silently compute the gradient at the new values. So each Function that records a
graph remembers what its leaf inputs held, and the engine checks them before that
Function's backward. PyTorch keeps a version counter per tensor for the same purpose; a
NumPy write (``x.data[0] = 5``) is invisible to Python, so minitorch looks at the values:

* A **small** array (under 64 kB: a bias, a 0-d constant) is remembered as its bytes,
  shape and dtype, and compared bit for bit: every change is caught.
* A **large** float32/float64 array (a weight matrix) is remembered by a *fingerprint*,
  not a copy: for each block of :data:`BLOCK` consecutive elements, the sum of its
  elements' bit patterns as unsigned integers (modulo ``2**64``, or ``2**32`` for
  float32) and the sum of its values times fixed random weights ``±[1, 2)``. That is
  two numbers per 512 elements (0.4% of the array), one pass over memory at the
  forward call and one before backward. A large array of another dtype (integers,
  bool, float16) is remembered as its bytes, as a small one.
* A large leaf that the Function's rule does not read (``Function.saves``: ``w * 3.0``
  keeps ``3.0``; a first layer keeps its data batch, not its weight) and that no output
  is a view of gets no fingerprint: through that Function, new values cannot move a
  gradient (PyTorch, too, checks only what it saved for backward). Its shape, dtype and
  version are checked. The leaf of a view (``w.T``, ``w[1:]``) is fingerprinted: the
  ops after it read its memory.
* The optimizers count their steps on each parameter (:func:`bump_version`), and a
  step between the forward call and backward is refused by that count alone for a
  large leaf, even one that changed nothing (a small one by its bytes: when it did).

What the fingerprint always catches (each provable from its two sums): any change of
one element of a block, however small (its bit pattern changes, so the integer sum of
the block changes); any edit that moves a block's weighted sum by more than its rounding
error (in practice about ``1e-15`` of the block's sum of absolute values, ``2e-13`` at
worst) — as fills, sign flips, scaling and new random draws do unless their changes
cancel exactly against the fixed weights, and swaps or shifts of elements that differ by
more than about a thousand times that rounding (two weights of the same sign differ by
at least 0.001). What it can miss: an edit that changes two or more elements
of one block so that both sums stay the same — bit patterns that cancel modulo ``2**64``
*and* values so close to the old ones that the weighted sum does not move (one element
one ulp up and another one ulp down) — and any change inside a block that already holds
a NaN or an infinity, unless the integer sum sees it. The gradient such a miss leaves is
then off by about the rounding of the values themselves, except in the NaN/inf blocks.
``Function.check_leaves_unchanged`` states the contract, ``docs/when-things-go-wrong.md``
the cost.

``jacfwd`` needs more: it computes its first column while the function runs and the
others afterwards, by replaying the ops' tangent rules on the values those ops saw. So
there every value an op reads (inputs and outputs, intermediates included) gets a
*stamp* of the same kind (:func:`stamp_new`), checked once before the replays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from minitorch.core.variable import Variable

if TYPE_CHECKING:
    from minitorch.core.function import Function

#: One per leaf input: ``(input index, array, shape, dtype, bytes)`` for a small array,
#: ``(input index, array, shape, dtype, fingerprint, version)`` for a large one.
Recorded = tuple[Any, ...]
SMALL = 1 << 16  # bytes: below this, comparing two ``tobytes()`` is the cheapest way
BLOCK = 512  # elements per block of a fingerprint: 2 numbers per block
CHUNK = 128  # blocks summed at a time (512 kB of float64: in the core's L2 cache)


def _block_weights(seed: int = 20241) -> np.ndarray:
    """``BLOCK`` weights in ``±[1, 2)``, fixed (a fingerprint must not depend on the run).

    Any two of the same sign differ by at least ``0.5 / BLOCK``, so swapping two elements
    of a block moves its weighted sum by about ``0.001 * |difference|`` or more; the jitter
    leaves no exact linear relation between them for an edit to fall into.
    """
    rng = np.random.default_rng(seed)
    levels = rng.permutation(BLOCK) + rng.uniform(0.25, 0.75, BLOCK)
    return (1.0 + levels / BLOCK) * rng.choice([-1.0, 1.0], BLOCK)  # type: ignore[no-any-return]


_WEIGHTS64 = _block_weights()
#: The weights of the weighted sums, and the unsigned view of the bit patterns, per dtype.
_FINGERPRINTED = {
    np.dtype(np.float64): (_WEIGHTS64, np.uint64),
    np.dtype(np.float32): (_WEIGHTS64.astype(np.float32), np.uint32),
}


def fingerprint(data: np.ndarray) -> bytes:
    """Two sums per block of :data:`BLOCK` elements of a float32/float64 array, as bytes.

    For each block: the sum of its elements' bit patterns read as unsigned integers
    (wrapping, so exact: one changed element always changes it) and the sum of its
    values times fixed weights in ``±[1, 2)`` (which a swap, fill or sign flip moves).
    The last, shorter block is summed the same way. Deterministic: the same values in
    any memory layout give the same bytes. Both sums are taken a chunk of
    :data:`CHUNK` blocks at a time, so the second reads the chunk from the cache: the
    cost is about one pass over the array's memory.

    Raises:
        KeyError: for any other dtype (the caller keeps such arrays' bytes instead).
    """
    weights, word = _FINGERPRINTED[data.dtype]
    flat = data.reshape(-1)  # a copy only if data is not contiguous
    n = flat.size - flat.size % BLOCK
    blocks, tail = flat[:n].reshape(-1, BLOCK), flat[n:]
    bits = np.empty(len(blocks) + 1, word)
    weighted = np.empty(len(blocks) + 1, data.dtype)
    for start in range(0, len(blocks), CHUNK):
        rows = slice(start, min(start + CHUNK, len(blocks)))
        chunk = blocks[rows]
        np.add.reduce(chunk.view(word), axis=1, dtype=word, out=bits[rows])
        np.matmul(chunk, weights, out=weighted[rows])
    bits[-1] = np.add.reduce(tail.view(word), dtype=word)
    weighted[-1] = tail @ weights[: tail.size]
    return bits.tobytes() + weighted.tobytes()


#: A Variable's ``_leaf_state`` before any: no fingerprint taken, no optimizer step.
_NO_STATE: tuple[bytes | None, int] = (None, 0)


def bump_version(x: Variable) -> None:
    """Count a write into ``x.data`` (the optimizers call this after each update).

    A graph recorded before the write then refuses to backpropagate through ``x``,
    whatever the new values are: an optimizer step between forward and backward.
    """
    last, version = getattr(x, "_leaf_state", _NO_STATE)
    x._leaf_state = (last, version + 1)


def record_leaves(
    xs: Any,
    operands: tuple[Any, ...],
    func: Function | None = None,
    outputs: Sequence[Variable] = (),
) -> tuple[Recorded, ...] | None:
    """Remember the leaf inputs of a Function that is recording its graph.

    ``xs`` are its input Variables, ``operands`` what the caller passed, ``func`` the
    Function (which inputs its rule reads: ``Function._kept``), ``outputs`` its results.
    Constants that ``as_inputs`` made from operands are private and skipped: numbers and
    lists become new arrays, and an ndarray operand was copied before forward (backward
    then uses the forward point's values and nothing needs comparing). A large leaf that
    the rule does not read and that no output is a view of (the weight of a first
    layer, whose ``gW = gy.T @ x`` reads only the data) is recorded without a
    fingerprint: new values there cannot move a gradient, so only its version (an
    optimizer step), shape and dtype are checked, as PyTorch checks only what it saved
    for backward. A view (``w.T``, ``w[1:]``, ``reshape``) shares the leaf's memory with
    the ops after it, which read it, so the leaf of a view is fingerprinted. Only
    minitorch's own ops, whose declarations the op tests check, skip a fingerprint: a
    Function written elsewhere may keep an input on ``self`` that ``saves`` leaves out.
    """
    kept = func._kept if func is not None and func._trusted else None
    recorded: list[Recorded] | None = None
    for i, x in enumerate(xs):
        if x.creator is not None:
            continue
        if operands[i] is not x:  # a constant made by as_inputs: a private array
            continue
        data = x.data
        if data.nbytes < SMALL or data.dtype not in _FINGERPRINTED:
            record: Recorded = (i, data, data.shape, data.dtype, data.tobytes())
        else:
            version = getattr(x, "_leaf_state", _NO_STATE)[1]
            seen = kept is None or kept[i] or _viewed(data, outputs)
            record = (i, data, data.shape, data.dtype, _shared(x, data) if seen else None, version)
        if recorded is None:
            recorded = [record]
        else:
            recorded.append(record)
    return None if recorded is None else tuple(recorded)


def _viewed(data: np.ndarray, outputs: Sequence[Variable]) -> bool:
    """Does an output share memory with ``data`` (a view of the leaf, read by later ops)?"""
    return any(np.may_share_memory(y.data, data) for y in outputs)


def _shared(x: Variable, data: np.ndarray) -> bytes:
    """``fingerprint(data)``, the same object as the last one ``x`` had if they are equal.

    Every Function that saw the same values of a weight (an RNN's, at every time step)
    then holds the same bytes object, which the engine checks once per backward pass.
    """
    now = fingerprint(data)
    last, version = getattr(x, "_leaf_state", _NO_STATE)
    if last is not None and last == now:
        return last
    x._leaf_state = (now, version)
    return now


def check_unchanged(func: Function, checked: set[tuple[int, int]] | None = None) -> None:
    """Raise if a leaf input of ``func`` was edited since ``func``'s forward call.

    Args:
        func: a Function whose ``leaf_snapshots`` were recorded by :func:`record_leaves`.
        checked: ``(id(array), id(fingerprint))`` pairs already found unchanged in this
            backward pass; a weight used by many Functions is then checked once per pass.

    Raises:
        RuntimeError: naming the Function, the input and what to do instead.
    """
    for record in func.leaf_snapshots or ():
        x = func.inputs[record[0]]
        now = x.data
        if not isinstance(now, np.ndarray):
            raise RuntimeError(_not_an_array_message(func, record[0], x))
        if len(record) == 5:  # a small array: its own bytes, shape and dtype
            i, data, shape, dtype, blob = record
            if now.shape != shape or now.dtype != dtype or now.tobytes() != blob:
                raise RuntimeError(_modified_message(func, i, x, now is data))
            continue
        i, data, shape, dtype, blob, version = record
        if getattr(x, "_leaf_state", _NO_STATE)[1] != version:  # an optimizer step since?
            raise RuntimeError(_modified_message(func, i, x, now is data))
        key = (id(now), id(blob))
        if checked is not None and key in checked:
            continue
        if blob is None:  # a leaf the rule does not read: no fingerprint was taken
            if now.shape != shape or now.dtype != dtype:
                raise RuntimeError(_modified_message(func, i, x, now is data))
            continue
        if now.shape != shape or now.dtype != dtype or fingerprint(now) != blob:
            raise RuntimeError(_modified_message(func, i, x, now is data))
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


#: What ``jacfwd``'s replay checks of one value: ``(array, shape, dtype, bytes)``, the
#: bytes being the array's own (small, or not float32/float64) or its fingerprint.
Stamp = tuple[Any, ...]


def _stamp(data: Any) -> Stamp:
    if not isinstance(data, np.ndarray):
        return (data, None, None, None)
    if data.nbytes < SMALL or data.dtype not in _FINGERPRINTED:
        return (data, data.shape, data.dtype, data.tobytes())
    return (data, data.shape, data.dtype, fingerprint(data))


def stamp_new(stamps: dict[int, tuple[Variable, Stamp]], values: Sequence[Variable]) -> None:
    """Stamp each of ``values`` not stamped yet (by ``id``; the Variable is kept with its
    stamp, so the id stays its own): what the ops on a ``jacfwd`` tape read."""
    for v in values:
        if id(v) not in stamps:
            stamps[id(v)] = (v, _stamp(v.data))


def stamp_changed(now: Any, stamp: Stamp) -> bool:
    """Does ``now`` (a value's ``data`` at replay) differ from what ``stamp`` saw?"""
    data, shape, dtype, blob = stamp
    if not isinstance(now, np.ndarray) or shape is None:
        return now is not data
    if now.shape != shape or now.dtype != dtype:
        return True
    small = now.nbytes < SMALL or now.dtype not in _FINGERPRINTED
    return (now.tobytes() if small else fingerprint(now)) != blob


def replay_modified_message(name: str, func: Function, role: str, index: int, v: Variable) -> str:
    """The error of ``jacfwd`` (``name``) for ``func``'s ``role`` ("input"/"output")
    ``index``, the Variable ``v``, edited in place after ``func`` ran."""
    label = f"Variable {v.name!r}" if v.name else "a Variable"
    return (
        f"{name}: {role} {index} of {type(func).__name__} ({label}, shape {v.shape}) was "
        f"modified in place after {type(func).__name__} ran (x.data[...] = value, or x.data "
        f"= new array). {name} computes the Jacobian's first column while the function "
        "runs and the others afterwards, through the ops it ran, at the values they saw: "
        "those columns would use the new values. Edit a copy (x.data.copy()) instead, or "
        "make the change before the value is first used; jacrev refuses the same edit of "
        "a leaf when it runs backward"
    )
