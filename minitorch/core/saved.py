"""What a Function keeps for backward, and the stand-in for what it does not.

Each op declares what its gradient rule reads (``Function.saves``): its inputs, its
output, or nothing (``x + c`` needs nothing, ``exp`` its output, ``sin`` its input). The
Function keeps only that, so an intermediate array nobody needs is freed during the
forward pass, as in PyTorch (``ctx.save_for_backward``).

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
        shape, dtype, generation, requires_grad: those of the Variable it stands for.
        ndim, size: from ``shape``, as NumPy's.
        op, position, role: the Function that did not save it, the input index and
            ``"input"`` or ``"output"``: the error message names them.

    Raises:
        RuntimeError: on any use of the value (arithmetic, NumPy functions, ``.data``,
            ``.T`` ...): the op's ``saves`` declaration leaves it out.
    """

    __slots__ = ("creator", "dtype", "generation", "index", "op", "position", "requires_grad",
                 "role", "shape")  # fmt: skip
    __array_priority__ = 1e9  # NumPy leaves the binary operators to us (they raise)

    def __init__(self, x: Any, op: Function, position: int, role: str = "input") -> None:
        # ``x``: the input Variable; for an output, its gradient (which has its shape).
        if role == "input":
            data = x.data
            self.shape: tuple[int, ...] = data.shape
            self.dtype: np.dtype[Any] = data.dtype
            self.creator = creator = x.creator
            single = creator is None or len(creator.outputs) == 1
            self.index = 0 if single else output_index(x)
            self.generation = x.generation
            self.requires_grad = x.requires_grad
        else:
            self.shape, self.dtype = x.shape, x.dtype
            self.creator, self.index, self.generation, self.requires_grad = None, 0, 0, False
        self.op, self.position, self.role = type(op), position, role

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
        if self.creator is None or self.role == "output":
            return None
        y = self.creator.outputs[self.index]()
        return y if y is not None and y.creator is self.creator else None

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


def output_index(y: Variable) -> int:
    """Which output of its creator ``y`` is (``0`` for the usual single output)."""
    refs = y.creator.outputs  # type: ignore[union-attr]
    return next((i for i, ref in enumerate(refs) if ref() is y), 0)


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
    return (creator, x.index if type(x) is Unsaved else output_index(x))  # type: ignore[union-attr]


def edges(func: Function, xs: Sequence[Variable]) -> list[Variable | Unsaved]:
    """``func.inputs`` for a Function that does not save every input.

    A saved input, and every leaf, stays a Variable (the engine writes the leaves'
    ``.grad``); any other input is kept as its edge, an :class:`Unsaved`. For a class
    with its own ``saves_input`` the answers are kept in ``func._kept``.
    """
    if func._input_rule:
        func._kept = kept = tuple([func.saves_input(i) for i in range(len(xs))])
    else:
        kept = (False,) * len(xs)
    return [
        x if keep or x.creator is None else Unsaved(x, func, i)
        for i, (x, keep) in enumerate(zip(xs, kept))
    ]


def rule_inputs(func: Function, arrays: bool) -> tuple[Any, ...]:
    """The ``xs`` a rule gets: each saved input as its array (``arrays``) or Variable,
    the others as :class:`Unsaved` stand-ins (a leaf too, though ``inputs`` holds it: a
    wrong declaration must fail whatever the input was)."""
    xs = func.inputs
    if func._kept is None and func._saves_inputs:  # every input saved: the default
        if not arrays:
            return tuple(xs)
        if len(xs) == 1:  # the usual one or two inputs, inline
            return (xs[0].data,)
        return (xs[0].data, xs[1].data) if len(xs) == 2 else tuple([x.data for x in xs])
    kept = func._kept or (False,) * len(xs)
    return tuple(
        [
            (x.data if arrays else x) if keep else x if type(x) is Unsaved else Unsaved(x, func, i)
            for i, (x, keep) in enumerate(zip(xs, kept))
        ]
    )


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


def rule_outputs(func: Function, gys: tuple[Any, ...], arrays: bool) -> Any:
    """The ``y`` a rule gets (a tuple for several outputs).

    Saved: the output array, or under ``create_graph`` the output Variable: the one the
    user holds or, if it is gone, a new Variable over the saved array whose creator is
    ``func``, so second derivatives through ``y`` stay connected (PyTorch unpacks a
    saved output the same way). Not saved: :class:`Unsaved` stand-ins with the shape and
    dtype of the gradients ``gys``.
    """
    if not func._saves_output:
        ys = [Unsaved(gy, func, i, "output") for i, gy in enumerate(gys)]
    elif arrays:
        return func.saved_output
    else:
        arrays_ = (func.saved_output,) if len(func.outputs) == 1 else func.saved_output
        ys = [_output_variable(func, i, y) for i, y in enumerate(arrays_)]
    return ys[0] if len(ys) == 1 else tuple(ys)


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
    kept = func._kept if func._kept is not None else (func._saves_inputs,) * len(xs)
    arrays = [x.data for x, keep in zip(xs, kept) if keep and type(x) is not Unsaved]
    out = func.saved_output
    if out is not None:
        arrays += list(out) if isinstance(out, tuple) else [out]
    return [a for a in arrays if a is not None]
