"""Joining arrays: concatenate (along an existing axis) and stack (along a new one).

Each input's gradient is the slice of ``gy`` it filled (:class:`SliceAxis`), and the
gradient of that slice puts it back in zeros (:class:`SliceAxisGrad`): the pair are each
other's vjp, so every derivative order stays a graph of these two.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minitorch.core import Function, Operand, Variable
from minitorch.core.function import Ops, Value
from minitorch.ops.reshape import Shape, expand_dims, numpy_keywords


class Concatenate(Function):
    """y = [x0, x1, ...] joined along ``axis``;  gx_i = the slice of gy that x_i filled."""

    saves = ()

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, *xs: np.ndarray) -> np.ndarray:
        try:
            y = np.concatenate(xs, axis=self.axis)
        except (ValueError, np.exceptions.AxisError):
            raise ValueError(_join_error(xs, self.axis)) from None
        self.axis_ = self.axis % y.ndim
        self.bounds = tuple(np.cumsum([x.shape[self.axis_] for x in xs])[:-1].tolist())
        return y

    def jvp(self, xs: Sequence[Variable], y: Variable, *txs: Variable | None) -> Variable:
        # a constant input moves nothing: its slot of the tangent is 0
        parts = [Variable(np.zeros_like(x.data)) if t is None else t for x, t in zip(xs, txs)]
        return Concatenate(self.axis)(*parts)

    def vjp(self, xp: Ops, xs: tuple[Value, ...], y: Value, gy: Value) -> tuple[Value | None, ...]:
        # One single-output slice per input, not one multi-output split: a gradient that
        # is dropped (an input needing none) must not break a later second-order backward.
        starts = (0,) + self.bounds
        stops = self.bounds + (gy.shape[self.axis_],)
        return tuple(
            xp.apply(SliceAxis(start, stop, self.axis_), gy) if need else None
            for start, stop, need in zip(starts, stops, self.needs_input_grad)
        )


def _join_error(xs: Sequence[np.ndarray], axis: int) -> str:
    """Why ``np.concatenate`` refused: 0-d inputs, an axis out of range, or the shapes."""
    shapes = ", ".join(str(x.shape) for x in xs)
    ndim = min(x.ndim for x in xs)
    if ndim == 0:
        return (
            f"concatenate: cannot join 0-d arrays (shapes {shapes}): they have no axis to "
            "join along; stack them into a new axis instead (F.stack)"
        )
    if not -ndim <= axis < ndim:
        return (
            f"concatenate: axis {axis} is out of range for arrays of {ndim} dims (shapes "
            f"{shapes}): use an axis in {-ndim}..{ndim - 1}"
        )
    return f"concatenate: cannot join shapes {shapes} along axis {axis}"


class SliceAxis(Function):
    """y = x[start:stop] along ``axis`` (a copy);  gx = gy placed in zeros of x's shape."""

    saves = ()

    def __init__(self, start: int, stop: int, axis: int) -> None:
        self.start, self.stop, self.axis = start, stop, axis

    def forward(self, x: np.ndarray) -> np.ndarray:
        self.x_shape = x.shape
        return x[_axis_slice(self.start, self.stop, self.axis)].copy()

    def jvp(self, xs: Sequence[Variable], y: Variable, tx: Variable) -> Variable:
        return SliceAxis(self.start, self.stop, self.axis)(tx)

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gy: Value) -> Value:
        return xp.apply(SliceAxisGrad(self.start, self.stop, self.axis, self.x_shape), gy)


class SliceAxisGrad(Function):
    """gx = zeros(x_shape) with gy at ``start:stop`` along ``axis``;  ggy = ggx sliced."""

    saves = ()

    def __init__(self, start: int, stop: int, axis: int, x_shape: Shape) -> None:
        self.start, self.stop, self.axis, self.x_shape = start, stop, axis, x_shape

    def forward(self, gy: np.ndarray) -> np.ndarray:
        gx = np.zeros(self.x_shape, dtype=gy.dtype)
        gx[_axis_slice(self.start, self.stop, self.axis)] = gy
        return gx

    def jvp(self, xs: Sequence[Variable], y: Variable, tgy: Variable) -> Variable:
        return SliceAxisGrad(self.start, self.stop, self.axis, self.x_shape)(tgy)

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, ggx: Value) -> Value:
        return xp.apply(SliceAxis(self.start, self.stop, self.axis), ggx)


def _axis_slice(start: int, stop: int, axis: int) -> tuple[slice, ...]:
    """The index ``[:, ..., :, start:stop]`` with the slice at position ``axis``."""
    return (slice(None),) * axis + (slice(start, stop),)


@numpy_keywords  # F.concatenate(xs, dim=1), PyTorch's spelling (torch.cat), names axis=
def concatenate(xs: Sequence[Operand], axis: int = 0) -> Variable:
    """Join a sequence of arrays along an existing axis (``np.concatenate``).

    Shapes:
        ``x_i`` of equal shapes except along ``axis`` -> the sizes along ``axis`` added;
        each gradient is the matching slice of ``gy``.

    Args:
        xs: a non-empty sequence of Variables/ndarrays of the same ndim (at least 1).
        axis: the axis to join along (negative allowed).

    Returns:
        A Variable of the promoted dtype.

    Raises:
        ValueError: if ``xs`` is empty or the shapes do not fit (all shapes are named).
        TypeError: for PyTorch's ``dim=`` (``torch.cat(xs, dim=1)``): the message names
            ``axis=``; for an ``axis`` that is not an int (``concatenate(a, b)`` instead
            of ``concatenate([a, b])``): the message says so.

    Example:
        >>> concatenate([Variable(np.zeros((2, 1))), Variable(np.ones((2, 2)))], axis=1)
        variable([[0. 1. 1.]
                  [0. 1. 1.]])
    """
    _check_sequence_call("concatenate", xs, axis)
    if len(xs) == 0:
        raise ValueError("concatenate: need at least one array")
    return Concatenate(int(axis))(*xs)


def _check_sequence_call(name: str, xs: Any, axis: Any) -> None:
    """``concatenate(a, b)`` passes ``b`` as ``axis``: say the arrays go in one sequence."""
    if isinstance(axis, (int, np.integer)):
        return
    raise TypeError(
        f"{name}: axis is a {type(axis).__name__}, not an int. {name} takes one sequence "
        f"of arrays and then the axis: F.{name}([a, b]) or F.{name}([a, b], axis=1), not "
        f"F.{name}(a, b)"
    )


@numpy_keywords  # F.stack(xs, dim=1), PyTorch's spelling, names axis=
def stack(xs: Sequence[Operand], axis: int = 0) -> Variable:
    """Join arrays of one shape along a new axis (``np.stack``).

    A composition: ``expand_dims`` each input at ``axis``, then ``concatenate``.

    Shapes:
        ``k`` inputs of shape ``s`` -> ``s`` with ``k`` inserted at ``axis``.

    Args:
        xs: a non-empty sequence of Variables/ndarrays of the same shape.
        axis: the position of the new axis in the result (negative allowed).

    Returns:
        A Variable of the promoted dtype.

    Raises:
        ValueError: if ``xs`` is empty, the shapes differ (all shapes are named) or
            ``axis`` is not an int in ``-(ndim + 1)..ndim`` for inputs of ``ndim`` dims.
        TypeError: for PyTorch's ``dim=``: the message names ``axis=``.

    Example:
        >>> stack([Variable(np.zeros(3)), Variable(np.ones(3))], axis=1).shape
        (3, 2)
    """
    if len(xs) == 0:
        raise ValueError("stack: need at least one array")
    shapes = [x.shape if isinstance(x, Variable) else np.shape(x) for x in xs]
    if any(s != shapes[0] for s in shapes):
        raise ValueError(
            f"stack: all inputs must have one shape, got {', '.join(map(str, shapes))}"
        )
    ndim = len(shapes[0]) + 1  # the result's: the new axis counts
    if not isinstance(axis, (int, np.integer)) or not -ndim <= axis < ndim:
        # Checked here, not left to expand_dims: its message would name an op the caller
        # never called.
        raise ValueError(
            f"stack: axis {axis!r} is out of range for stacking inputs of shape "
            f"{shapes[0]}: the result has {ndim} dims, so axis must be an int in "
            f"{-ndim}..{ndim - 1}"
        )
    return concatenate([expand_dims(x, axis) for x in xs], axis)
