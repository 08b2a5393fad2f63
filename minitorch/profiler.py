"""``minitorch.profile()``: what each kind of Function cost — calls, time, FLOPs, memory.

Inside ``with minitorch.profile() as prof:`` every Function call is observed, and after
the block ``prof.table()`` prints one row per Function type, like ``torch.profiler``'s
``key_averages().table()``; ``prof.rows`` holds the same numbers as data.

What is counted, per Function type:

- **calls** and **forward / backward time** (wall-clock seconds, ``time.perf_counter``);
- **FLOPs** of the forward pass: exact for ``MatMul``, ``Linear`` and ``Conv2d``
  (``2·M·N·K`` multiply-adds counted as two operations, plus one addition per output for a
  bias); for every other op one operation per output element (a documented convention:
  elementwise ops and reductions are memory-bound, and their true count varies by a small
  factor — ``exp`` is not one operation in hardware);
- **saved bytes**: the bytes of the arrays the Function keeps for its backward, as its
  ``saves`` declaration says (``minitorch/core/saved.py``: ``exp`` its output, ``sin``
  its input, ``x + c`` nothing);

and for the whole block the **peak live bytes of the graph**: the largest total, at any
moment, of the distinct arrays the recorded ops read or made that are still alive. An
array stops counting when it is freed: when nobody holds its Variable and no Function
saved it (an intermediate nobody needs dies during the forward pass), or when
``backward`` releases the graph.

How it observes: it wraps ``Function.__call__`` and the backward engine's two dispatch
points (``ArrayMode.backward`` and ``GraphMode.backward`` in ``core/backward.py``) for the
duration of the block, and restores them after. Profiles do not nest.

References:
    PyTorch's ``torch.profiler`` (``key_averages().table(sort_by=...)``) for the table's
    shape; FLOP conventions as in fvcore's and PyTorch's FLOP counters (a multiply-add is
    two FLOPs).
"""

from __future__ import annotations

import contextlib
import time
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from minitorch.core import Function, Unsaved, Variable, saved_arrays
from minitorch.core import backward as engine

SORT_KEYS = ("calls", "forward_seconds", "backward_seconds", "flops", "saved_bytes", "name")


@dataclass
class Row:
    """The totals of one Function type.

    Attributes:
        name: the Function's class name (``MatMul``).
        calls: forward calls.
        forward_seconds, backward_seconds: total wall time of its forward calls and its
            backward calls.
        flops: total forward FLOPs (see the module's docstring for the convention).
        saved_bytes: total bytes of the arrays its calls keep for backward.
    """

    name: str
    calls: int = 0
    forward_seconds: float = 0.0
    backward_seconds: float = 0.0
    flops: int = 0
    saved_bytes: int = 0


class Profile:
    """The record of one ``with minitorch.profile() as prof:`` block.

    Attributes:
        peak_bytes: the peak live bytes of the graph during the block.
    """

    def __init__(self) -> None:
        self._rows: dict[str, Row] = {}
        self._sizes: dict[int, int] = {}  # id(array) -> its bytes, while it is alive
        self.live_bytes = 0
        self.peak_bytes = 0

    @property
    def rows(self) -> list[Row]:
        """One :class:`Row` per Function type, most forward time first."""
        return sorted(self._rows.values(), key=lambda r: -r.forward_seconds)

    def table(self, sort_by: str = "forward_seconds", row_limit: int | None = None) -> str:
        """The rows as a fixed-width text table, largest ``sort_by`` first.

        Args:
            sort_by: one of ``calls``, ``forward_seconds``, ``backward_seconds``, ``flops``,
                ``saved_bytes``, ``name`` (alphabetical).
            row_limit: show at most this many rows.

        Raises:
            ValueError: for an unknown ``sort_by`` (the message lists the choices).
        """
        if sort_by not in SORT_KEYS:
            raise ValueError(f"profile.table: sort_by must be one of {SORT_KEYS}, got {sort_by!r}")
        rows = sorted(
            self._rows.values(), key=lambda r: getattr(r, sort_by), reverse=sort_by != "name"
        )[:row_limit]
        head = (
            f"{'Function':<22}{'calls':>7}{'forward':>12}{'backward':>12}"
            f"{'FLOPs':>12}{'saved':>11}"
        )
        lines = [head, "-" * len(head)]
        for r in rows:
            lines.append(
                f"{r.name:<22}{r.calls:>7}{_ms(r.forward_seconds):>12}"
                f"{_ms(r.backward_seconds):>12}{_count(r.flops):>12}{_bytes(r.saved_bytes):>11}"
            )
        lines.append("-" * len(head))
        lines.append(f"peak live bytes of the graph: {_bytes(self.peak_bytes)}")
        return "\n".join(lines)

    def _row(self, func: Function) -> Row:
        name = type(func).__name__
        row = self._rows.get(name)
        if row is None:
            row = self._rows[name] = Row(name)
        return row

    def _forward(self, func: Function, inputs: tuple[Any, ...], seconds: float, out: Any) -> None:
        row = self._row(func)
        row.calls += 1
        row.forward_seconds += seconds
        outputs = (
            [out]
            if isinstance(out, Variable)
            else [y for y in out or () if isinstance(y, Variable)]
        )
        recorded = getattr(func, "inputs", None)  # None: no graph recorded (no_grad, constants)
        operands = recorded if recorded is not None else inputs  # for their shapes
        xs: list[Any] = [x if type(x) is Unsaved else _array_of(x) for x in operands]
        row.flops += flops(func, xs, [y.data for y in outputs])
        if recorded is None:  # nothing is held for a backward
            return
        kept = saved_arrays(func)  # only what its saves declaration keeps
        row.saved_bytes += sum({id(a): a.nbytes for a in kept}.values())
        # Live bytes: each array an op reads or makes counts until it is freed (by the
        # user dropping it, or the graph that saved it), as tracemalloc sees it.
        for array in [x.data for x in func.inputs if type(x) is not Unsaved] + kept:
            self._hold(array)
        for y in outputs:
            self._hold(y.data)

    def _hold(self, array: np.ndarray) -> int:
        key = id(array)
        if key not in self._sizes and isinstance(array, np.ndarray):
            self._sizes[key] = array.nbytes
            self.live_bytes += array.nbytes
            self.peak_bytes = max(self.peak_bytes, self.live_bytes)
            weakref.finalize(array, self._release, key)
        return key

    def _release(self, key: int) -> None:
        self.live_bytes -= self._sizes.pop(key)


def flops(func: Function, xs: list[np.ndarray], ys: list[np.ndarray]) -> int:
    """The forward FLOPs of one call: exact for MatMul, Linear, Conv2d; else output size.

    Args:
        func: the Function (its class name picks the rule).
        xs: its input arrays; ys: its output arrays.

    Example:
        >>> import numpy as np
        >>> from minitorch.ops.linalg import MatMul
        >>> flops(MatMul(), [np.ones((2, 3)), np.ones((3, 4))], [np.ones((2, 4))])
        48
    """
    name = type(func).__name__
    out = int(sum(y.size for y in ys))
    if name == "MatMul" and len(xs) == 2:
        return 2 * out * int(xs[0].shape[-1])
    if name == "Linear" and len(xs) >= 2:  # x (*, in) @ W.T (out, in) [+ b]
        return 2 * out * int(xs[1].shape[1]) + (out if len(xs) == 3 else 0)
    if name == "Conv2d" and len(xs) >= 2:  # W (C_out, C_in, KH, KW)
        _, c_in, kh, kw = xs[1].shape
        return 2 * out * int(c_in * kh * kw) + (out if len(xs) == 3 else 0)
    return out


_active: list[Profile] = []


@contextlib.contextmanager
def profile() -> Iterator[Profile]:
    """Record every Function call in the block; yields the :class:`Profile`.

    Returns:
        A context manager; ``prof.table(sort_by=...)`` and ``prof.rows`` after the block.

    Raises:
        RuntimeError: if a profile is already running (profiles do not nest).

    Example:
        >>> import numpy as np, minitorch
        >>> x = minitorch.Variable(np.ones((4, 3)))
        >>> W = minitorch.Variable(np.ones((3, 2)))
        >>> with minitorch.profile() as prof:
        ...     y = (x @ W).sum()
        ...     y.backward()
        >>> [(r.name, r.calls, r.flops) for r in sorted(prof.rows, key=lambda r: r.name)]
        [('MatMul', 1, 48), ('Sum', 1, 1)]
    """
    if _active:
        raise RuntimeError("minitorch.profile: a profile is already running (they do not nest)")
    prof = Profile()
    call, array_backward, graph_backward = (
        Function.__call__,
        engine.ArrayMode.backward,
        engine.GraphMode.backward,
    )

    def observed_call(func: Function, *inputs: Any) -> Any:
        start = time.perf_counter()
        out = call(func, *inputs)
        prof._forward(func, inputs, time.perf_counter() - start, out)
        return out

    def timed(method: Any) -> Any:  # method(owner): the rule of a Function or its class
        def backward(owner: Any) -> Any:
            run = method(owner)  # bound to a Function, or its class's: called with one

            def timed_run(*args: Any) -> Any:
                start = time.perf_counter()
                try:
                    return run(*args)
                finally:
                    func = owner if isinstance(owner, Function) else args[0]
                    prof._row(func).backward_seconds += time.perf_counter() - start

            return timed_run

        return staticmethod(backward)

    _active.append(prof)
    Function.__call__ = observed_call  # type: ignore[method-assign, assignment]
    engine.ArrayMode.backward = timed(array_backward)  # type: ignore[method-assign]
    engine.GraphMode.backward = timed(graph_backward)  # type: ignore[method-assign]
    try:
        yield prof
    finally:
        Function.__call__ = call  # type: ignore[method-assign]
        engine.ArrayMode.backward = staticmethod(array_backward)  # type: ignore[method-assign]
        engine.GraphMode.backward = staticmethod(graph_backward)  # type: ignore[method-assign]
        _active.pop()


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms"


def _count(n: int) -> str:
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= size:
            return f"{n / size:.2f}{unit}"
    return str(n)


def _bytes(n: int) -> str:
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("kB", 1 << 10)):
        if n >= size:
            return f"{n / size:.2f} {unit}"
    return f"{n} B"


__all__ = ["Profile", "Row", "flops", "profile"]


def _array_of(x: Any) -> np.ndarray:
    """An operand's array: a Variable's data, anything else (a number, a list) as NumPy's."""
    return x.data if isinstance(x, Variable) else np.asarray(x)
