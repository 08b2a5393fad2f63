"""Global switches of minitorch: graph building, training mode, anomaly detection.

The switches live in one :mod:`contextvars` variable, so ``no_grad()`` in one thread
(or asyncio task) never switches graph building off in another. ``Config`` is the
familiar DeZero-style face over it: ``Config.enable_backprop`` reads the current
context and assignment changes it.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from dataclasses import dataclass, replace


@dataclass(frozen=True, slots=True)
class _State:
    """One immutable snapshot of every switch; replaced, never mutated."""

    enable_backprop: bool = True
    train: bool = True
    detect_anomaly: bool = False
    in_backward: bool = False  # set by the engine while it runs backward(create_graph=True)
    # Set inside minitorch.func.jvp (core/forward.py's tangent levels), so Function.__call__
    # learns from the one state it reads anyway whether to compute tangents too.
    forward_mode: bool = False
    save_all: bool = False  # every Function keeps every input Variable (see Config)


_state: contextvars.ContextVar[_State] = contextvars.ContextVar(
    "minitorch_config",
    default=_State(),  # noqa: B039 (frozen, never mutated)
)
_NAMES = ("enable_backprop", "train", "detect_anomaly", "save_all")
_derived: dict[tuple[_State, tuple[tuple[str, bool], ...]], _State] = {}


def _with(state: _State, **changes: bool) -> _State:
    """``dataclasses.replace(state, **changes)``, memoised: there are only 16 states.

    ``with no_grad():`` runs once per optimizer step and the engine switches state once per
    ``backward()``; a dictionary lookup is cheaper than building a new dataclass each time.
    """
    key = (state, tuple(changes.items()))
    new = _derived.get(key)
    if new is None:
        new = _derived[key] = replace(state, **changes)
    return new


def current_state() -> _State:
    """Return the switches in force in this thread/context (used by the engine)."""
    return _state.get()


class _ConfigMeta(type):
    """Makes ``Config.<switch>`` read and write the context-local state.

    Each switch is a property of the metaclass, so reading ``Config.train`` takes one
    lookup (``Module.__call__`` reads it on every call), not a ``__getattr__`` fallback.
    """

    @property
    def enable_backprop(cls) -> bool:
        return _state.get().enable_backprop

    @enable_backprop.setter
    def enable_backprop(cls, value: bool) -> None:
        _state.set(_with(_state.get(), enable_backprop=bool(value)))

    @property
    def train(cls) -> bool:
        return _state.get().train

    @train.setter
    def train(cls, value: bool) -> None:
        _state.set(_with(_state.get(), train=bool(value)))

    @property
    def detect_anomaly(cls) -> bool:
        return _state.get().detect_anomaly

    @detect_anomaly.setter
    def detect_anomaly(cls, value: bool) -> None:
        _state.set(_with(_state.get(), detect_anomaly=bool(value)))

    @property
    def save_all(cls) -> bool:
        return _state.get().save_all

    @save_all.setter
    def save_all(cls, value: bool) -> None:
        _state.set(_with(_state.get(), save_all=bool(value)))

    def __getattr__(cls, name: str) -> bool:  # only reached for a name that is no switch
        raise AttributeError(f"Config has no switch {name!r}; switches are {_NAMES}")

    def __setattr__(cls, name: str, value: bool) -> None:
        if name not in _NAMES:
            raise AttributeError(f"Config has no switch {name!r}; switches are {_NAMES}")
        super().__setattr__(name, value)  # the switch's property setter


class Config(metaclass=_ConfigMeta):
    """The switches that change how minitorch computes.

    Attributes:
        enable_backprop: record the graph (inputs, creator, generation) for backward.
            Off inside :func:`no_grad`.
        train: training mode; ``dropout`` and batch norm read it. Off inside
            :func:`test_mode` and after ``Module.eval()``.
        detect_anomaly: record where each Function was created and raise
            ``FloatingPointError`` at the first NaN/inf (see :func:`detect_anomaly`).
        save_all: every Function keeps all its input Variables alive (and so their
            arrays), as before ops declared what they save (``Function.saves``). Off by
            default: intermediates no gradient rule needs are freed during forward. Turn
            it on for a hand-written engine that looks Variables up by identity
            (notebooks 03 and 06) or a picture that shows every intermediate value.

    Each switch is local to the current thread and context (``contextvars``).

    Example:
        >>> Config.enable_backprop
        True
        >>> with no_grad():
        ...     Config.enable_backprop
        False
    """


@contextlib.contextmanager
def using_config(name: str, value: bool) -> Iterator[None]:
    """Set ``Config.<name>`` to ``value`` inside a ``with`` block.

    The previous value comes back on exit, also when the block raises, and blocks nest.

    Args:
        name: ``"enable_backprop"``, ``"train"``, ``"detect_anomaly"`` or ``"save_all"``.
        value: the value inside the block.

    Raises:
        AttributeError: if ``name`` is not a switch.
    """
    if name not in _NAMES:
        raise AttributeError(f"using_config: unknown switch {name!r}; switches are {_NAMES}")
    token = _state.set(_with(_state.get(), **{name: bool(value)}))
    try:
        yield
    finally:
        _state.reset(token)


def no_grad() -> contextlib.AbstractContextManager[None]:
    """Compute without recording the graph (``using_config("enable_backprop", False)``).

    Use it for evaluation and for optimizer updates: nothing is kept for backward.

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> with no_grad():
        ...     y = Variable(np.array(2.0)) * 3.0
        >>> y.creator is None
        True
    """
    return using_config("enable_backprop", False)


def test_mode() -> contextlib.AbstractContextManager[None]:
    """Switch training mode off (``using_config("train", False)``): dropout is identity."""
    return using_config("train", False)


def detect_anomaly() -> contextlib.AbstractContextManager[None]:
    """Find the op that first produces NaN or inf (``using_config("detect_anomaly", True)``).

    Inside the block every Function records the line of *your* code that created it, and

    * forward raises ``FloatingPointError`` as soon as an op outputs NaN/inf, naming the
      Function, the positions of the bad values and that line;
    * backward raises ``FloatingPointError`` at the first Function whose gradient for
      an input contains NaN/inf, naming the Function, the input index, the positions
      and the line where that Function was created.

    It costs a stack walk per op and a finiteness check per array, so use it to debug,
    not to train. Outside the block the checks cost nothing.

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> import minitorch.ops as F
        >>> with detect_anomaly(), np.errstate(divide="ignore"):
        ...     F.log(Variable(np.array([1.0, 0.0])))
        Traceback (most recent call last):
        ...
        FloatingPointError: detect_anomaly: Log.forward produced NaN/inf in output 0 ...
    """
    return using_config("detect_anomaly", True)


class _backward_context:  # noqa: N801 (used as a function: with _backward_context(...))
    """Engine helper: graph building on iff ``create_graph``; mark nodes made in backward.

    A class rather than a generator: it runs once per ``backward()``, and a higher-order
    derivative calls ``backward()`` on graphs of a few nodes.
    """

    __slots__ = ("create_graph", "token")

    def __init__(self, create_graph: bool) -> None:
        self.create_graph = create_graph

    def __enter__(self) -> None:
        state = _with(_state.get(), enable_backprop=self.create_graph, in_backward=True)
        self.token = _state.set(state)

    def __exit__(self, *exc: object) -> None:
        _state.reset(self.token)
