"""Argument checks and conversions shared by the transforms.

Every error names the transform (``name``) and the argument, by its pytree path
(``primals[1]``, ``args[0]['W']``, ``output[1]``), so a mistake points at itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch.core import Variable
from minitorch.core import forward as _forward
from minitorch.func import pytree

#: ``argnums``: one argument position or a tuple of them (torch.func's convention).
Argnums = int | tuple[int, ...]


def leaves_of(tree: Any, what: str, name: str) -> tuple[list[Any], pytree.TreeSpec, list[str]]:
    """The leaves of ``primals``/``tangents``/``args`` (each a Variable or ndarray)."""
    if what in ("primals", "tangents") and not isinstance(tree, (tuple, list)):
        raise TypeError(
            f"{name}: {what} must be a tuple (or list) of arguments, got "
            f"{type(tree).__name__}; write ({what[:-1]},) for one argument"
        )
    leaves, spec, paths = pytree.flatten(tuple(tree), what)
    for leaf, path in zip(leaves, paths):
        if not isinstance(leaf, (Variable, np.ndarray)):
            raise TypeError(
                f"{name}: {path} is a {type(leaf).__name__}; pass Variables or ndarrays "
                "(or tuples/lists/dicts of them)"
            )
    return leaves, spec, paths


def differentiable(x: Variable | np.ndarray, path: str, name: str) -> Variable | np.ndarray:
    """``x`` itself, if it is floating point (only those carry derivatives)."""
    dtype = x.dtype
    if dtype.kind != "f":
        raise TypeError(
            f"{name}: {path} has dtype {dtype}; only floating-point inputs can be "
            "differentiated (convert with .astype(float))"
        )
    return x


def tangent_for(x: Variable, tx: Any, path: str, name: str) -> Variable:
    """``tx`` as a tangent Variable for ``x`` (checked: shape and floating dtype)."""
    check_like(x, tx, path, name)
    return tx if isinstance(tx, Variable) else Variable(tx, requires_grad=False)


def check_like(y: Variable, t: Any, path: str, name: str) -> None:
    """A tangent must be an array of its primal's shape, a cotangent (``vjp_fn``) one of
    its output's shape; both floating point."""
    if not isinstance(t, (Variable, np.ndarray)):
        raise TypeError(f"{name}: {path} is a {type(t).__name__}; pass a Variable or ndarray")
    of, kind = ("output", "cotangents") if name == "vjp_fn" else ("primal", "tangents")
    if t.shape != y.shape:
        raise ValueError(
            f"{name}: {path} has shape {t.shape} but must match its {of}'s shape {y.shape}"
        )
    if t.dtype.kind != "f":
        raise TypeError(f"{name}: {path} has dtype {t.dtype}; {kind} must be floating point")


def split_aux(result: Any, has_aux: bool, name: str) -> tuple[Any, Any]:
    """``(output, aux)``: the pair the function returns with ``has_aux``, checked."""
    if not has_aux:
        return result, None
    if not isinstance(result, tuple) or len(result) != 2:
        raise TypeError(
            f"{name}(has_aux=True): the function must return a tuple (output, aux), got "
            f"{type(result).__name__}"
            + (f" of length {len(result)}" if isinstance(result, tuple) else "")
        )
    return result


def outputs_of(out: Any, name: str) -> tuple[list[Variable], pytree.TreeSpec]:
    """The leaves of what the function returned, as floating-point Variables."""
    leaves, spec, paths = pytree.flatten(out, "output")
    ys = []
    for leaf, path in zip(leaves, paths):
        if isinstance(leaf, np.ndarray):
            leaf = Variable(leaf, requires_grad=False)
        if not isinstance(leaf, Variable):
            raise TypeError(
                f"{name}: the function returned a {type(leaf).__name__} as {path}; return a "
                "Variable or ndarray (or a tuple/list/dict of them)" + _numpy_hint(leaf, name)
            )
        if leaf.dtype.kind != "f":
            raise TypeError(
                f"{name}: {path} has dtype {leaf.dtype}, which is not differentiable; return "
                "floating-point values (return integers through has_aux=True)"
            )
        ys.append(leaf)
    return ys, spec


def _numpy_hint(leaf: Any, name: str) -> str:
    """Why a NumPy scalar came back: arguments outside ``argnums`` are plain arrays."""
    if not isinstance(leaf, np.generic) or name in ("jvp", "vjp", "hvp"):
        return ""
    return (
        ". Arguments not in argnums are passed to the function as given (plain ndarrays, "
        "not Variables), so NumPy arithmetic on them alone gives NumPy values: include "
        "the argument you differentiate in argnums, and compute the output from it"
    )


def scalar_output(out: Any, name: str) -> Variable:
    """The one-element output ``grad`` differentiates (a loss), checked."""
    ys, spec = outputs_of(out, name)
    if spec.kind != "leaf":
        raise TypeError(
            f"{name}: the function must return a single Variable, got a {spec.kind}; "
            "use has_aux=True to return extra values, or jacrev for several outputs"
        )
    (y,) = ys
    if y.size != 1:
        raise ValueError(
            f"{name}: the function must return one element (a loss), got shape {y.shape}; "
            "reduce it (e.g. .sum()) or use jacrev/vjp"
        )
    return y


def argnum_positions(argnums: Argnums, n_args: int, name: str) -> tuple[int, ...]:
    """``argnums`` as a tuple of non-negative positions, checked against ``n_args``."""
    raw = (argnums,) if isinstance(argnums, int) else argnums
    if not isinstance(raw, tuple) or not raw or not all(type(a) is int for a in raw):
        raise TypeError(
            f"{name}: argnums must be an int or a non-empty tuple of ints, got {argnums!r}"
        )
    positions = []
    for a in raw:
        if not -n_args <= a < n_args:
            raise ValueError(
                f"{name}: argnums={argnums!r} is out of range for a call with {n_args} "
                "positional argument(s)"
            )
        positions.append(a % n_args)
    if len(set(positions)) != len(positions):
        raise ValueError(f"{name}: argnums={argnums!r} names an argument twice")
    return tuple(positions)


def tangent_of(level: _forward.TangentLevel, y: Variable) -> Variable:
    """The tangent of ``y`` on ``level``: zeros if ``y`` does not depend on the input."""
    ty = level.get(y)
    return Variable(np.zeros_like(y.data), requires_grad=False) if ty is None else ty
