"""What a Function keeps for backward, and the stand-in for what it does not.

Each op declares what its gradient rule reads (``Function.saves``): its inputs, its
output, or nothing (``x + c`` needs nothing, ``exp`` its output, ``sin`` its input). The
Function keeps only that, so an intermediate array nobody needs is freed during the
forward pass, as in PyTorch (``ctx.save_for_backward``); minitorch's own ops keep values
of at most 1 KiB anyway (:data:`SMALL_VALUE`: an edge would cost what it frees).

A value the Function did not keep is an :class:`Unsaved` in its place: it knows the
shape and dtype (rules need them: ``sum_to(gy, x.shape)``) and, in ``Function.inputs``,
the edge of the graph (the ``creator`` that made the value and which of its outputs it
was), but holds no data. Any other use raises an error naming the op, the input and
its ``saves`` declaration, so a wrong declaration can never give a silently wrong
gradient. Because the Variable may be gone, the engine keys an intermediate gradient
by its edge (:func:`grad_key`), never by the id of the Variable.
"""

from __future__ import annotations

import math
import weakref
from typing import TYPE_CHECKING, Any, NoReturn

from minitorch.core.config import _state

if TYPE_CHECKING:
    from collections.abc import Hashable, Sequence

    import numpy as np

    from minitorch.core.function import Function
    from minitorch.core.variable import Variable


class Unsaved:
    """The place of an input or output a Function did not save: shape and dtype, no data.

    Attributes:
        creator: the Function whose output the value was (``None`` for a leaf): the edge
            the engine and the graph walks follow.
        index: which output of ``creator`` it was.
        shape, dtype: those of the value; ``ndim``, ``size`` from them, as NumPy's.
        generation, requires_grad: as the Variable's (``creator.generation + 1``; an
            op's recorded output requires a gradient).
        op, position, role: the Function that did not save it, its input (or output)
            index and ``"input"`` (or ``"output"``): the error message names them.

    Raises:
        RuntimeError: on any use of the value (arithmetic, NumPy functions, ``.data``,
            ``.T`` ...): the op's ``saves`` declaration leaves it out.
    """

    __slots__ = ("_ref", "creator", "dtype", "index", "op", "position", "shape")
    __array_priority__ = 1e9  # NumPy leaves the binary operators to us (they raise)
    name = grad = None  # what graph pictures read of a Variable (viz shows it "freed")
    role = "input"
    requires_grad = True

    def __init__(self, x: Variable, op: Function, position: int) -> None:
        # Once per op whose input is not saved: kept short (no list, no lookups).
        data = x.data
        self.shape: tuple[int, ...] = data.shape
        self.dtype: np.dtype[Any] = data.dtype
        self.creator = creator = x.creator
        self.index = 0 if creator is None or len(creator.outputs) == 1 else output_index(x)
        self._ref: Any = None if creator is None else creator.outputs[self.index]
        self.op, self.position = type(op), position

    @property
    def origin(self) -> Any:
        """What tells freed values apart, also after a cut: the weak reference to the
        Variable the edge stands for (``creator.outputs[index]`` when it was made), which
        every edge of that value holds. Graph pictures draw one node per origin."""
        return self._ref

    @property
    def generation(self) -> int:
        """``creator.generation + 1``, as the Variable's (0 once the edge is cut)."""
        return 0 if self.creator is None else self.creator.generation + 1

    @property
    def ndim(self) -> int:
        """The number of dimensions, ``len(shape)``."""
        return len(self.shape)

    @property
    def size(self) -> int:
        """The number of elements, the product of ``shape``."""
        return math.prod(self.shape)

    def live(self) -> Variable | None:
        """The Variable this stands for if it still exists (someone holds it), else None."""
        y = None if self._ref is None else self._ref()  # not an output rebuilt in its place
        if y is None or y.creator is self.creator:
            return y
        return y if self.creator is not None and _is_cut(self) else None  # a leaf now

    def unchain(self) -> None:
        """Cut the edge (``Variable.unchain_backward`` cuts every edge of a graph)."""
        self.creator = None

    def refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        """Every use of the value lands here: say which declaration left it out."""
        op = self.op.__name__
        raise RuntimeError(
            f"{op}'s gradient rule used the value of its {self.role} {self.position}, but "
            f"{op} does not save it for backward ({op}.saves = {self.op.saves!r}); only its "
            "shape and dtype are kept. Add what the rule reads to `saves` (or override "
            "saves_input) so that the Function keeps it"
        )

    def __getattr__(self, name: str) -> Any:  # a missing attribute: .data, .T, .reshape ...
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            self.refuse()
        except RuntimeError as err:  # an AttributeError, so getattr(x, name, default) works
            raise AttributeError(f"{name}: {err}") from None

    def __repr__(self) -> str:
        return f"<{self.role} not saved for backward: shape={self.shape} dtype={self.dtype}>"

    __array__ = __array_ufunc__ = __array_function__ = refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = refuse
    __truediv__ = __rtruediv__ = __pow__ = __rpow__ = __matmul__ = __rmatmul__ = refuse
    __neg__ = __pos__ = __abs__ = __getitem__ = __iter__ = __len__ = __float__ = refuse
    __lt__ = __le__ = __gt__ = __ge__ = __bool__ = refuse


class UnsavedOutput(Unsaved):
    """The ``y`` a rule gets from a Function whose ``saves`` leaves out the output: one
    per class and output index, made once (``gy`` has the output's shape and dtype)."""

    __slots__ = ()
    role = "output"
    shape = dtype = property(Unsaved.refuse)  # type: ignore[assignment]

    def __init__(self, op: type[Function], position: int) -> None:  # noqa: D107
        self.creator, self._ref, self.index = None, None, 0
        self.op, self.position = op, position

    def __repr__(self) -> str:
        return f"<output {self.position} of {self.op.__name__}: not saved for backward>"


def output_index(y: Variable) -> int:
    """Which output of its creator ``y`` is (``0`` for the usual single output)."""
    refs = y.creator.outputs  # type: ignore[union-attr]
    return next((i for i, ref in enumerate(refs) if ref() is y), 0)


#: Set by the first ``unchain()`` of an op's output: until then no graph walk has a cut
#: edge to look for (:func:`put_back_cut`), so the counting passes skip the check.
cuts_made = False


def cut(y: Variable) -> None:
    """Note on ``y``'s creator that ``y`` was cut from it (``y.unchain()``), so that the
    edges standing for ``y`` in ops that did not keep it see the cut too: ``y`` becomes a
    leaf for every op it fed, whatever its size. Noted by ``y``'s weak reference (the one
    in ``creator.outputs``, which every edge for ``y`` holds), not by output index: an
    output rebuilt later in ``y``'s place (a saved output unpacked under
    ``create_graph``) is not cut. The graph walks apply it (:func:`put_back_cut`). Under
    forward mode ``y``'s tangents go too, whether or not a graph was recorded (inside
    ``jvp`` of constants none is): it is a constant from here on, as ``detach()`` makes
    it in ``torch.func``."""
    global cuts_made
    creator = y.creator
    if creator is not None:
        creator._cut_refs = (*creator._cut_refs, creator.outputs[output_index(y)])
        cuts_made = True
    if _state.get().forward_mode:
        from minitorch.core.forward import cut_tangents  # noqa: PLC0415 (imports Variable)

        cut_tangents(y)


def put_back_cut(func: Function) -> None:
    """Apply the cuts ``unchain()`` noted to ``func``'s inputs: an edge standing for a cut
    Variable that still exists is replaced by that Variable (a leaf now, as for the ops
    that held it itself); one whose Variable is gone is cut (``creator = None``). Called
    by the graph walks when :data:`cuts_made`; once applied, a cut stays."""
    inputs = func.inputs
    for i, x in enumerate(inputs):
        if type(x) is Unsaved and x.creator is not None and x.creator._cut_refs and _is_cut(x):
            y = x._ref()
            if y is None:
                x.creator = None
            else:
                inputs[i] = y


def _is_cut(x: Unsaved) -> bool:
    """Whether ``x``'s Variable was cut from its creator (by identity: refs compare
    their referents, and a Variable's == is elementwise)."""
    return any(ref is x._ref for ref in x.creator._cut_refs)  # type: ignore[union-attr]


def grad_key(x: Variable | Unsaved) -> Hashable:
    """Where the engine accumulates ``x``'s gradient.

    A leaf by its id (the graph holds every leaf, so the id is never reused meanwhile);
    an op's output by its edge, the creator (or ``(creator, index)`` for one of several
    outputs), because the Variable itself may be gone.
    """
    creator = x.creator
    if creator is None:
        return id(x)
    if len(creator.outputs) == 1:
        return creator
    return (creator, x.index if isinstance(x, Unsaved) else output_index(x))


def edges(func: Function, xs: Sequence[Variable]) -> list[Any]:
    """``func.inputs`` for a Function that does not save every input.

    A saved input, and every leaf, stays a Variable (the engine writes the leaves'
    ``.grad``); any other input is kept as its edge, an :class:`Unsaved`. Which inputs
    are saved (``func._kept``) is asked once per class and ``needs_input_grad``: a
    class's own ``saves_input`` must depend on nothing else.

    For minitorch's own ops, an input of at most :data:`SMALL_VALUE` bytes stays a
    Variable too: its edge, a Python object of its own, would cost about the memory it
    frees and a tenth of the op's time (scalar graphs, small batches, every higher
    derivative of a scalar); their rules then get the value itself, so the op tests
    check each declaration with ``SMALL_VALUE = -1`` (an edge at every size). A Function
    written outside minitorch gets an edge for every input it does not save, so that a
    wrong declaration fails on its first call, whatever the size.
    """
    found = func._kept_for.get(func.needs_input_grad)
    if found is None:
        found = _kept(func, len(xs))
    func._kept, unkept = found
    small = SMALL_VALUE if func._trusted else -1
    inputs: list[Any] | None = None  # a copy of xs, made at the first edge (xs is read again)
    for i in unkept:  # Sigmoid's x, Add's both, Linear's b ...: only these may be edges
        x = xs[i]
        if x.creator is not None and x.data.nbytes > small:
            if inputs is None:
                inputs = list(xs)
            inputs[i] = _edge(x, func, i)
    if inputs is None:
        return xs if type(xs) is list else list(xs)
    return inputs


def _edge(x: Variable, func: Function, position: int) -> Unsaved:
    """``Unsaved(x, func, position)`` for an op's output ``x``, without the class call (one
    per edge of every graph: the type call and ``__init__`` frame cost a fifth of it)."""
    edge = _new_object(Unsaved)
    data = x.data
    edge.shape, edge.dtype = data.shape, data.dtype
    edge.creator = creator = x.creator
    edge.index = index = 0 if len(creator.outputs) == 1 else output_index(x)  # type: ignore[union-attr]
    edge._ref = creator.outputs[index]  # type: ignore[union-attr]
    edge.op, edge.position = type(func), position
    return edge


_new_object = object.__new__

#: Bytes of data up to which an input of one of minitorch's ops stays a Variable where
#: the op does not save it (:func:`edges`); ``-1`` makes every such input an edge.
SMALL_VALUE = 1024


def _kept(func: Function, n_inputs: int) -> tuple[tuple[bool, ...], tuple[int, ...]]:
    """Which of ``n_inputs`` inputs ``func`` saves (its ``saves_input``), and the indices
    of the others, cached per class and ``needs_input_grad``."""
    if func._input_rule:
        kept = tuple(map(func.saves_input, range(n_inputs)))
    else:
        kept = (func._saves_inputs,) * n_inputs
    found = kept, tuple(i for i, keep in enumerate(kept) if not keep)
    type(func)._kept_for[func.needs_input_grad] = found
    return found


def rule_inputs(func: Function, arrays: bool) -> tuple[Any, ...]:
    """The ``xs`` a rule gets: each saved input as its array (``arrays``) or Variable,
    the others as :class:`Unsaved` stand-ins (a leaf too, though ``inputs`` holds it: a
    wrong declaration must fail whatever the input was). minitorch's own ops, whose
    declarations the op tests check on intermediate inputs, get a leaf as it is."""
    xs: list[Any] = func.inputs
    if func._trusted:
        return _as_given(xs) if arrays else tuple(xs)
    kept = func._kept
    if kept is None and func._saves_inputs:  # every input saved: the default
        if not arrays:
            return tuple(xs)
        if len(xs) == 1:  # the usual one or two inputs, inline
            return (xs[0].data,)
        return (xs[0].data, xs[1].data) if len(xs) == 2 else tuple([x.data for x in xs])
    if len(xs) == 2 and kept is None:  # x + c: nothing saved
        x0, x1 = xs
        return (x0 if type(x0) is Unsaved else Unsaved(x0, func, 0),
                x1 if type(x1) is Unsaved else Unsaved(x1, func, 1))  # fmt: skip
    if len(xs) == 2 and kept is not None:  # x * c: one saved, one not
        x0, x1 = xs
        x0 = (x0.data if arrays else x0) if kept[0] else _stand_in(x0, func, 0)
        x1 = (x1.data if arrays else x1) if kept[1] else _stand_in(x1, func, 1)
        return (x0, x1)
    kept = kept or (False,) * len(xs)
    return tuple(
        [
            (x.data if arrays else x) if keep else _stand_in(x, func, i)
            for i, (x, keep) in enumerate(zip(xs, kept))
        ]
    )


def _as_given(xs: list[Any]) -> tuple[Any, ...]:
    """Each input's array, or its :class:`Unsaved` where ``inputs`` holds one."""
    if len(xs) == 1:  # the usual one or two inputs, inline
        x = xs[0]
        return (x if type(x) is Unsaved else x.data,)
    if len(xs) == 2:
        x0, x1 = xs
        return (x0 if type(x0) is Unsaved else x0.data,
                x1 if type(x1) is Unsaved else x1.data)  # fmt: skip
    return tuple([x if type(x) is Unsaved else x.data for x in xs])


def _stand_in(x: Any, func: Function, i: int) -> Unsaved:
    return x if type(x) is Unsaved else Unsaved(x, func, i)


def declare(cls: type[Function], base: type[Function]) -> None:
    """Read a Function class's ``saves`` once, when the class is defined.

    Raises:
        TypeError: if ``saves`` is not a tuple of ``"inputs"`` and/or ``"output"``.
    """
    if isinstance(cls.saves, str) or not set(cls.saves) <= {"inputs", "output"}:
        raise TypeError(
            f"{cls.__name__}.saves = {cls.saves!r}: give a tuple of 'inputs' and/or "
            "'output', e.g. saves = ('output',) or saves = ()"
        )
    cls._saves_inputs = "inputs" in cls.saves
    cls._saves_output = "output" in cls.saves
    cls._input_rule = cls.saves_input is not base.saves_input  # decided per call
    cls._keeps_inputs = cls._saves_inputs and not cls._input_rule
    cls._kept_for = {}  # needs_input_grad -> what saves_input answered (saved._kept)
    cls._unsaved_y = None if cls._saves_output else UnsavedOutput(cls, 0)
    cls._trusted = cls.__module__.startswith("minitorch.")
    cls._ufunc_op = cls._trusted and cls.ufunc is not None  # inputs no bigger than output


def default_rule(rule: Any) -> Any:
    """Mark ``rule`` as a ``backward_array`` minitorch chose (a subclass may get another)."""
    rule.default_array_rule = True
    return rule


@default_rule
def vjp_on_arrays(func: Function, *gys: np.ndarray) -> Any:
    """The default ``backward_array``: ``func.vjp`` on NumPy with the saved arrays."""
    if func._saves_output:
        y = func.saved_output
    else:
        y = func._unsaved_y if len(gys) == 1 else rule_outputs(func, gys, True)
    return func.vjp(func.array_ops, rule_inputs(func, True), y, *gys)


def array_rule(cls: type[Function]) -> Any:
    """The ``backward_array`` a class that writes none gets: :func:`vjp_on_arrays`, or
    for the usual kinds (every input as kept, one output) a copy of it specialised on the
    class's declaration, since it runs once per node of every first-order backward."""
    return _vjp_as_kept if cls._keeps_inputs or cls._trusted else vjp_on_arrays


@default_rule
def _vjp_as_kept(func: Function, gy: np.ndarray, *more: np.ndarray) -> Any:
    # vjp_on_arrays for one output and every input as kept: inline, no per-input checks.
    if more:
        return vjp_on_arrays(func, gy, *more)
    xs = func.inputs
    arrays: tuple[Any, ...]
    if len(xs) == 2:
        x0, x1 = xs
        arrays = (x0 if type(x0) is Unsaved else x0.data, x1 if type(x1) is Unsaved else x1.data)
    elif len(xs) == 1:
        x = xs[0]
        arrays = (x if type(x) is Unsaved else x.data,)
    else:
        arrays = _as_given(xs)
    y = func.saved_output if func._saves_output else func._unsaved_y
    return func.vjp(func.array_ops, arrays, y, gy)


def graph_rule(cls: type[Function], base: type[Function]) -> Any:
    """What ``backward(create_graph=True)`` runs for one of minitorch's own classes: its
    ``backward``, or for an op written as a ``vjp`` that vjp on its inputs as kept."""
    if cls.backward is base.backward and cls.vjp is not base.vjp and cls._trusted:
        return _graph_vjp_as_kept
    return cls.backward


def _graph_vjp_as_kept(func: Function, gy: Variable, *more: Variable) -> Any:
    # Function.backward for one output and every input as kept (a Variable or an Unsaved).
    if more:
        return type(func).backward(func, gy, *more)
    if func._saves_output:  # the output the user holds, else unpacked from its array
        y = func.outputs[0]()
        if y is None or y.creator is not func:
            y = rule_output(func, 0)
    else:
        y = func._unsaved_y
    return func.vjp(func.graph_ops, func.inputs, y, gy)


def rule_outputs(func: Function, gys: tuple[Any, ...], arrays: bool) -> Any:
    """The ``y`` a rule gets (a tuple for several outputs).

    Saved: the output array, or under ``create_graph`` the output Variable: the one the
    user holds or, if it is gone, a new Variable over the saved array whose creator is
    ``func``, so second derivatives through ``y`` stay connected (PyTorch unpacks a
    saved output the same way). Not saved: :class:`UnsavedOutput` stand-ins.
    """
    if not func._saves_output:
        if len(gys) == 1:
            return func._unsaved_y
        return tuple(UnsavedOutput(type(func), i) for i in range(len(gys)))
    if arrays:
        return func.saved_output
    arrays_ = (func.saved_output,) if len(func.outputs) == 1 else func.saved_output
    ys = [_output_variable(func, i, y) for i, y in enumerate(arrays_)]
    return ys[0] if len(ys) == 1 else tuple(ys)


def rule_output(func: Function, i: int) -> Variable:
    """Output ``i`` of ``func`` as a Variable, unpacked from the saved array if it is gone."""
    saved = func.saved_output
    return _output_variable(func, i, saved if len(func.outputs) == 1 else saved[i])


def _output_variable(func: Function, i: int, array: np.ndarray) -> Variable:
    from minitorch.core.variable import Variable  # (variable.py imports this module)

    y = func.outputs[i]()
    if y is None or y.creator is not func:  # gone (or unchained): unpack the saved array
        y = Variable(array)
        y.creator, y.generation = func, func.generation + 1
        func.outputs[i] = weakref.ref(y)  # its output index (grad_key) is found again
    return y


def saved_arrays(func: Function) -> list[Any]:
    """The arrays ``func`` keeps for its backward: its saved inputs' and output(s).

    What the profiler and ``viz``'s ``show_memory`` count as "saved for backward"
    (leaves an op does not save are held by the graph, but they belong to the user).
    """
    xs = func.inputs or ()
    kept = func._kept
    if kept is None and xs and func.needs_input_grad:  # every input kept without asking
        found = func._kept_for.get(func.needs_input_grad)  # (x * 0.99 on small values)
        kept = (found or _kept(func, len(xs)))[0]
    kept = kept if kept is not None else (func._saves_inputs,) * len(xs)
    arrays = [x.data for x, keep in zip(xs, kept) if keep and type(x) is not Unsaved]
    out = func.saved_output
    if out is not None:
        arrays += list(out) if isinstance(out, tuple) else [out]
    return [a for a in arrays if a is not None]
