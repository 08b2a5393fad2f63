"""The shape of an elementwise op whose rules are one derivative: ``gx = gy * f'(x)``.

For ``y = f(x)`` applied entry by entry, the Jacobian is diagonal, so the reverse rule
(``gx = gy * f'(x)``) and the forward rule (``ty = tx * f'(x)``) multiply by the same
derivative. :class:`Unary` and :class:`Binary` write that once: an op names its ufunc
and gives ``derivative`` (``derivatives`` for two inputs) against the namespace ``xp``
(NumPy on the fast path, minitorch ops under ``create_graph`` and in forward mode), and
the two rules below use it. A binary op's gradients end with ``sum_to`` (broadcasting).

Complex numbers are out of scope in minitorch: the core refuses complex operands, and
:func:`refuse_complex` lets a composite wrapper refuse one in its own name, turning complex
input into a ``TypeError`` naming the op, instead of a silently wrong real gradient.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from minitorch.core import Function, Variable
from minitorch.core.function import Ops, Value
from minitorch.core.variable import COMPLEX_HINT
from minitorch.ops.arithmetic import Pair, broadcast_error
from minitorch.ops.reshape import add_tangents


def refuse_complex(op: str, *xs: Any) -> None:
    """Raise ``TypeError`` naming ``op`` if an input is complex (minitorch is real-only).

    Raises:
        TypeError: for an input of a complex dtype (the message names the op and dtype).
    """
    for i, x in enumerate(xs):
        if np.asarray(x).dtype.kind == "c":  # the core's own refusal, in the op's name
            raise TypeError(f"{op}: operand {i} has dtype {np.asarray(x).dtype}" + COMPLEX_HINT)


class Unary(Function):
    """y = f(x) entry by entry;  gx = gy * f'(x),  ty = tx * f'(x)."""

    saves = ("inputs",)

    name: ClassVar[str] = ""  # the op, for error messages

    def compute(self, x: np.ndarray) -> np.ndarray:
        """``f(x)`` on an ndarray: the ufunc by default."""
        assert self.ufunc is not None
        return self.ufunc(x)  # type: ignore[no-any-return]

    def derivative(self, xp: Ops, x: Value, y: Value) -> Value:
        """``f'(x)``, given ``x`` and ``y = f(x)`` (ndarrays or Variables, as ``xp``)."""
        raise NotImplementedError

    def forward(self, x: np.ndarray) -> np.ndarray:
        return self.compute(x)

    def vjp(self, xp: Ops, xs: tuple[Value], y: Value, gy: Value) -> Value:
        return gy * self.derivative(xp, xs[0], y)

    def jvp(self, xs: list[Variable], y: Variable, tx: Variable) -> Variable:
        return tx * self.derivative(self.graph_ops, xs[0], y)


class Binary(Function):
    """y = f(x0, x1) entry by entry, broadcasting;  gx0 = sum_to(gy * df/dx0, x0.shape) ..."""

    name: ClassVar[str] = ""

    def derivatives(self, xp: Ops, x0: Value, x1: Value, y: Value) -> tuple[Value, Value]:
        """``(df/dx0, df/dx1)`` at ``x0, x1`` with ``y = f(x0, x1)``."""
        raise NotImplementedError

    def forward(self, x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
        try:
            np.broadcast_shapes(x0.shape, x1.shape)
        except ValueError:
            raise broadcast_error(self.name, x0, x1) from None
        assert self.ufunc is not None
        return self.ufunc(x0, x1)  # type: ignore[no-any-return]

    def vjp(self, xp: Ops, xs: Pair, y: Value, gy: Value) -> tuple[Value | None, Value | None]:
        x0, x1 = xs
        d0, d1 = self.derivatives(xp, x0, x1, y)
        need0, need1 = self.needs_input_grad
        gx0 = xp.sum_to(gy * d0, x0.shape) if need0 else None
        gx1 = xp.sum_to(gy * d1, x1.shape) if need1 else None
        return gx0, gx1

    def jvp(
        self, xs: list[Variable], y: Variable, tx0: Variable | None, tx1: Variable | None
    ) -> Variable | None:
        x0, x1 = xs
        d0, d1 = self.derivatives(self.graph_ops, x0, x1, y)
        t0 = None if tx0 is None else tx0 * d0
        t1 = None if tx1 is None else tx1 * d1
        return add_tangents(y.shape, t0, t1)
