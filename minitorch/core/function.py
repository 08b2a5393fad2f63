"""``Function``: the base class of every differentiable op.

A Function is called on Variables (or ndarrays and scalars), runs ``forward`` on the
raw ndarrays, wraps the results in Variables and — when graph building is on and some
input needs a gradient — records itself as their ``creator``. Outputs are held through
weak references, so the graph never keeps a result alive that the user dropped and
``Variable -> creator -> outputs -> Variable`` forms no reference cycle.
"""

from __future__ import annotations

import weakref
from typing import Any, ClassVar

import numpy as np

import minitorch.core.diagnose as diagnose
import minitorch.core.saved as saved
from minitorch.core.config import _State, _state
from minitorch.core.forward import push_tangents
from minitorch.core.inplace import Recorded, check_unchanged, record_leaves
from minitorch.core.operands import as_constant as as_constant  # re-exported for the ops
from minitorch.core.operands import as_inputs
from minitorch.core.variable import Variable, wrap

#: What a ``vjp`` computes with: an ndarray on the fast path, a Variable under create_graph.
Value = Any
#: The namespace ``xp`` a ``vjp`` is written against (see ``minitorch.ops.namespaces``).
Ops = Any
# needs_input_grad for one or two inputs, shared instead of a new tuple per op.
_NEEDS: dict[Any, tuple[bool, ...]] = {
    False: (False,),
    True: (True,),
    **{(a, b): (a, b) for a in (False, True) for b in (False, True)},
}


class Function:
    """Base class of differentiable ops: subclass it and define ``forward``/``backward``.

    Subclasses define:

    * ``forward(*xs: np.ndarray) -> np.ndarray | tuple[np.ndarray, ...]`` — pure NumPy.
    * ``backward(*gys: Variable) -> Variable | tuple`` — the vector-Jacobian product
      written with minitorch ops, so it is itself differentiable (``create_graph=True``).
      Return ``None`` for an input that has no gradient (an integer index, a label).
    * optionally ``backward_array(*gys: np.ndarray)`` — the same formula on raw arrays, the
      fast path of ordinary first-order backward. Without it, first-order backward runs
      ``backward`` on constant Variables with graph building off.
    * optionally ``jvp(xs, y, *txs)`` — the tangent rule of forward mode
      (``minitorch.func.jvp``): given the input Variables ``xs``, the output ``y`` (a tuple
      for several outputs) and one tangent per input (``None`` for a zero one), the output
      tangents ``J @ tx``, written with minitorch ops.

    Or, instead of both backwards, the formula once: ``vjp(xp, xs, y, *gys)``, written
    against the namespace ``xp`` — NumPy (:attr:`array_ops`) with the input and output
    ndarrays on the fast path, minitorch ops (:attr:`graph_ops`) with the input and output
    Variables under ``create_graph``. The default ``backward`` and ``backward_array`` call
    it. This is how minitorch's own ops are written (HIPS/autograd's ``anp``, DeZero's
    ``xp``). Which backward a class uses is decided once, when the class is defined (see
    :meth:`__init_subclass__`); an error raised inside any of them reaches the caller.

    An instance records **one** call: create a new one per use, ``Square()(x)``. Calling
    an instance again after it recorded a graph raises ``RuntimeError`` (it would
    overwrite the first graph's inputs and saved state); ``Square(x)`` (the class called
    on the input) raises a ``TypeError`` saying so; a ``backward`` that returns a bare
    ``None`` for inputs that need a gradient raises ``TypeError`` ("did you forget
    ``return``?"). Leaf inputs edited in place before this Function's backward make that
    backward raise ``RuntimeError`` (see :meth:`check_leaves_unchanged`).

    What backward keeps is declared by :attr:`saves` (``core/saved.py``,
    ``docs/concepts/memory.md``): everything by default; minitorch's ops keep what their
    rules read (``Add.saves = ()``, ``Exp.saves = ("output",)``), so the rest is freed.

    Attributes:
        inputs: one edge per input (a list): the Variable if it is saved, a leaf, or small
            (at most 1 KiB, for minitorch's ops: ``saved.edges``), else an ``Unsaved`` with its
            ``creator``, ``generation``, ``shape``, ``dtype``, ``requires_grad``, no data.
        saved_output: the output array (a tuple for several), if ``saves`` has "output".
        outputs: weak references to the output Variables; use ``output(i)``.
        generation: ``max(input.generation)``; the engine and ``viz`` read it.
        needs_input_grad: one bool per input: does that input need a gradient? A
            ``backward_array`` may skip work (and return ``None``) where it is False.
        created_in_backward: True if made while ``backward(create_graph=True)`` ran —
            ``viz`` colours these nodes.
        created_in_jvp: True if made by a tangent rule under ``minitorch.func.jvp`` (the
            tangent computation of forward mode) — ``viz`` draws these in their own colour.
        created_at: under ``detect_anomaly()``, the user's source line ("file:line in fn").
        ufunc: a class attribute, ``None`` by default: the NumPy ufunc ``forward`` applies
            to its inputs (``np.add``), if it is one. A Python number among the operands
            (``f(x, 300)``) then gets the dtype that ufunc converts it to, as NumPy does
            for ``np.add(x.data, 300)`` (NEP 50; e.g. ``np.true_divide`` divides int8 by
            300 in float64); without it, the dtype ``np.result_type`` gives it.

    Example:
        >>> class Square(Function):
        ...     def forward(self, x):
        ...         return x ** 2
        ...     def backward(self, gy):
        ...         (x,) = self.inputs
        ...         return 2 * x * gy
        >>> x = Variable(np.array(3.0))
        >>> y = Square()(x)
        >>> y.backward()
        >>> x.grad
        variable(6.0)
    """

    inputs: list[Variable]
    # Empty until the call that records the graph: a second call then raises (see
    # __call__), because recording again would overwrite the first graph's links.
    outputs: list[weakref.ReferenceType[Variable]] = []  # noqa: RUF012 (never mutated)
    generation: int = 0
    needs_input_grad: tuple[bool, ...] = ()
    created_in_backward: bool = False
    created_in_jvp: bool = False
    created_at: str | None = None
    #: True for ``other + x`` or ``other * x`` run as ``x.__radd__(other)``: the inputs are
    #: ``(x, other)``, and messages number the operands as written (``operand 0``: other).
    reflected: bool = False
    #: Set by ``autograd.grad(..., retain_graph=False)``: a later backward through this
    #: Function raises, as one through PyTorch's freed graph does.
    released: bool = False
    output_meta: list[tuple[tuple[int, ...], np.dtype[Any]]] = []
    #: The NumPy ufunc ``forward`` computes, if it is one (``np.add`` for ``Add``): a
    #: Python-number operand then takes the dtype that ufunc gives it (see ``as_inputs``).
    ufunc: ClassVar[np.ufunc | None] = None
    #: What the gradient rule reads, kept for backward: ``"inputs"``, ``"output"``, both
    #: (the default) or neither (``()``: ``x + c``); shapes and dtypes are always kept.
    saves: ClassVar[tuple[str, ...]] = ("inputs", "output")
    _saves_inputs = _saves_output = True  # from saves, per class (saved.declare)
    _keeps_inputs = True  # every input kept: saves has "inputs" and no saves_input hook
    _input_rule = False  # the class overrides saves_input: asked per call, kept in _kept
    _kept: tuple[bool, ...] | None = None
    _kept_for: ClassVar[dict[tuple[bool, ...], Any]] = {}
    _trusted = False  # minitorch's own op: its declaration is tested (saved.rule_inputs)
    _ufunc_op = False  # one of minitorch's ops whose forward is its ufunc (Add, Mul ...)
    _cut_refs: tuple[Any, ...] = ()  # weak refs of the outputs unchain() cut (saved.cut)
    _unsaved_y: Any = None  # the y stand-in of a class that does not save its output
    saved_output: Any = None
    #: The two namespaces ``vjp`` is written against, bound once by ``minitorch.ops``
    #: (core imports no ops): NumPy kernels on ndarrays, and minitorch ops on Variables.
    array_ops: ClassVar[Any] = None
    graph_ops: ClassVar[Any] = None
    # What every leaf input held when the graph was recorded (its bytes, or for a large
    # one a fingerprint and its version: core/inplace.py); the engine checks them before
    # this Function's backward (in-place edits).
    leaf_snapshots: tuple[Recorded, ...] | None = None
    #: What ``backward(create_graph=True)`` runs: ``backward``, or for a class whose
    #: ``backward`` was written outside minitorch, that backward checked for a graph
    #: back to ``gy`` (``diagnose.checked_graph_backward``); set per class below.
    graph_backward: Any

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Decide once per class which backward first-order ``backward()`` runs.

        Its own ``backward_array`` if it defines one; else its ``vjp`` on ndarrays (the
        default ``backward_array``); else, for a class that defines only ``backward``,
        that ``backward`` on constant Variables with graph building off.
        """
        super().__init_subclass__(**kwargs)
        saved.declare(cls, Function)  # what backward keeps: from cls.saves, checked
        if getattr(cls.backward_array, "default_array_rule", False):  # not written here
            only_backward = cls.vjp is Function.vjp and cls.backward is not Function.backward
            cls.backward_array = (  # type: ignore[method-assign]
                _backward_on_constants if only_backward else saved.array_rule(cls)
            )
        owner = next(k for k in cls.__mro__ if "backward" in k.__dict__)  # create_graph runs
        mine = owner.__module__.startswith("minitorch.")  # graph_backward: a user's checked
        checked = diagnose.checked_graph_backward
        cls.graph_backward = saved.graph_rule(cls, Function) if mine else checked
        # A Function written outside minitorch without its own __init__ gets one that
        # explains ``Square(x)`` (the class called on the input, forgetting the ``()``).
        # minitorch's own ops keep object's C-level __init__: no cost per op.
        if "__init__" not in cls.__dict__ and not cls.__module__.startswith("minitorch."):
            if getattr(cls, "__init__", object.__init__) is object.__init__:
                cls.__init__ = diagnose.init_without_arguments  # type: ignore[method-assign, assignment]

    def __call__(self, *inputs: Any) -> Any:
        # This runs once per op, so it is written for speed: one pass over the inputs, no
        # lists for the usual one or two inputs, one ContextVar read per call.
        if self.outputs:
            raise RuntimeError(diagnose.called_twice_message(self))
        xs: tuple[Any, ...] | list[Variable] = inputs
        convert = has_leaf = False  # an operand to wrap; a leaf the user can edit in place
        generation = 0  # max(input.generation); a constant made from an operand has 0
        for x in inputs:
            if isinstance(x, Variable):
                if x.creator is None:
                    has_leaf = True
                if x.generation > generation:
                    generation = x.generation
            else:
                convert = True  # a number, list or ndarray: as_inputs makes it a constant
        if convert:
            xs = as_inputs(inputs, self)
        n_inputs = len(xs)
        if n_inputs == 1:
            ys = self.forward(xs[0].data)
        elif n_inputs == 2:
            ys = self.forward(xs[0].data, xs[1].data)
        else:
            ys = self.forward(*[x.data for x in xs])
        if type(ys) is not np.ndarray and isinstance(ys, np.generic):  # 0-d arithmetic
            ys = np.asarray(ys)  # gives a NumPy scalar
        if type(ys) is np.ndarray:  # minitorch's ops make numeric arrays: no checks
            outputs = [wrap(ys, True) if self._trusted else Variable(ys)]
        else:
            outputs = diagnose.as_outputs(ys, self)
        state = _state.get()
        if state.detect_anomaly:
            diagnose.check_forward_anomaly(self, outputs)
        if state.enable_backprop:
            if n_inputs == 1:
                needs = _NEEDS.get(xs[0].requires_grad)
            elif n_inputs == 2:
                needs = _NEEDS.get((xs[0].requires_grad, xs[1].requires_grad))
            else:
                needs = None
            if needs is None:
                needs = tuple([bool(x.requires_grad) for x in xs])
            if True in needs:
                self._record(xs, outputs, needs, state, generation)
                if has_leaf:  # remember the leaves' values (in-place edit detection)
                    self.leaf_snapshots = record_leaves(xs, inputs, self, outputs)
                if state.forward_mode:  # minitorch.func.jvp is on: tangents too
                    push_tangents(self, xs, outputs)
                return outputs[0] if len(outputs) == 1 else outputs
        # Nothing recorded (no_grad, or only constants in): as in PyTorch, the outputs are
        # constants, so a later backward neither reaches nor expects a gradient for them.
        for y in outputs:
            y.requires_grad = False
        if state.enable_backprop:
            diagnose.pass_on_gradient_marks(xs, outputs)
        if state.forward_mode:  # forward mode is not switched off by no_grad(), as in PyTorch
            push_tangents(self, xs, outputs)
        return outputs[0] if len(outputs) == 1 else outputs

    def _record(
        self,
        xs: tuple[Variable, ...] | list[Variable],
        outputs: list[Variable],
        needs: tuple[bool, ...],
        state: _State,
        generation: int,
    ) -> None:
        """Link the graph: inputs (only what ``saves`` declares; the others as their edges,
        ``saved.edges``), generation, the saved output array, weak refs to the outputs."""
        self.needs_input_grad = needs
        # Every input kept: the default, or small values (saved.edges keeps them for
        # minitorch's ops, and the inputs of its ufunc ops are no bigger than the output).
        small = self._ufunc_op and outputs[0].data.nbytes <= saved.SMALL_VALUE
        if self._keeps_inputs or state.save_all or small:
            self.inputs = xs if type(xs) is list else list(xs)
        else:
            self.inputs = saved.edges(self, xs)
        self.generation = generation
        if len(outputs) == 1:  # almost every op: no loops
            y = outputs[0]
            y.creator, y.generation = self, generation + 1
            self.outputs = [_weak(y)]
            if self._saves_output:
                self.saved_output = y.data
        else:
            for y in outputs:
                y.creator, y.generation = self, generation + 1
            self.outputs = [_weak(y) for y in outputs]
            if self._saves_output:
                self.saved_output = tuple([y.data for y in outputs])
            # so backward can make zeros for an output that was dropped
            self.output_meta = [(y.data.shape, y.data.dtype) for y in outputs]
        if state.in_backward:
            self.created_in_backward = True
        if state.detect_anomaly:
            self.created_at = diagnose.user_frame()

    def saves_input(self, i: int) -> bool:
        """Does backward need input ``i``'s value? ``"inputs" in saves``, unless overridden
        for one needed only sometimes (``Mul``): it may read only ``needs_input_grad``."""
        return self._saves_inputs

    def check_leaves_unchanged(self, checked: set[tuple[int, int]] | None = None) -> None:
        """Raise if a leaf input was edited in place since the forward call.

        The engine calls this before running this Function's backward. Detected: a
        changed shape or dtype, an optimizer step, and changed values (a write through
        any view of the array, or ``x.data = new``) — every change for a small leaf, and
        for a large one every change its fingerprint sees (``minitorch/core/inplace.py``
        says exactly which). Intermediate results are not checked; see
        ``docs/when-things-go-wrong.md``.

        Args:
            checked: ``(id(array), id(fingerprint))`` of the large leaves already found
                unchanged in this pass (a weight used at every RNN step is checked once).

        Raises:
            RuntimeError: naming the Function, the input and what to do instead.
        """
        check_unchanged(self, checked)

    # -- to be defined by subclasses -----------------------------------------------------
    def forward(self, *xs: Any, **kwargs: Any) -> Any:
        """Compute the outputs from the input ndarrays (pure NumPy)."""
        raise NotImplementedError(f"{type(self).__name__}.forward is not defined")

    def backward(self, *gys: Any, **kwargs: Any) -> Any:
        """Return the gradients w.r.t. each input, given those w.r.t. each output.

        By default: :meth:`vjp` evaluated with minitorch ops on the input Variables, so
        the gradients are differentiable.

        Raises:
            NotImplementedError: if the subclass defines neither ``backward`` nor ``vjp``.
        """
        if type(self).vjp is Function.vjp:  # before reading inputs: say what is missing
            self.vjp()
        xs, y = saved.rule_inputs(self, False), saved.rule_outputs(self, gys, False)
        return self.vjp(self.graph_ops, xs, y, *gys)

    @saved.default_rule
    def backward_array(self, *gys: Any, **kwargs: Any) -> Any:
        """Fast path of ``backward`` on raw ndarrays (no graph is built).

        By default: :meth:`vjp` evaluated with NumPy on the input and output arrays. A
        class that defines only ``backward`` runs that ``backward`` on constants instead
        (decided when the class is defined).
        """
        return saved.vjp_on_arrays(self, *gys)

    def vjp(self, *args: Any, **kwargs: Any) -> Any:
        """``vjp(xp, xs, y, *gys)``: the vector-Jacobian product, written once.

        ``xp`` is a namespace of array functions (``xp.exp``, ``xp.sum_to``,
        ``xp.reshape`` ...) that are NumPy's on the fast path and minitorch's ops under
        ``create_graph``; ``xs`` holds the inputs and ``y`` the output (a tuple for
        several outputs) in the same kind (ndarrays or Variables), ``gys`` the gradients
        of the outputs. Arithmetic operators work on both kinds. An input or output
        that ``saves`` leaves out is an ``Unsaved`` (its shape and dtype only). Return
        one gradient per input (``None`` for an input without one).
        """
        raise NotImplementedError(
            f"{type(self).__name__}.backward is not defined (define backward, or vjp)"
        )

    def jvp(self, *args: Any, **kwargs: Any) -> Any:
        """``jvp(xs, y, *txs)``: optional tangent rule (forward mode).

        Receives the input Variables ``xs``, the output Variable ``y`` (a tuple for
        several outputs) and one tangent per input (a Variable of the input's shape, or
        ``None`` for an input without one); returns one tangent per output (``None`` for
        zero), written with minitorch ops so forward mode nests. Without it,
        ``minitorch.func.jvp`` uses two reverse passes.
        """
        raise NotImplementedError

    # -- accessors for op authors --------------------------------------------------------
    @property
    def input_arrays(self) -> tuple[Any, ...]:
        """The inputs' ndarrays, in order (an ``Unsaved`` for one not saved)."""
        return saved.rule_inputs(self, True)

    def output(self, i: int = 0) -> Variable:
        """Return the ``i``-th output Variable.

        Outputs are held weakly; one that is gone is unpacked again from its saved array
        when ``saves`` has ``"output"`` (the default), connected to this Function.

        Raises:
            RuntimeError: if that output is gone and was not saved.
        """
        y = self.outputs[i]()
        if y is None and self._saves_output and self.saved_output is not None:
            y = saved.rule_output(self, i)
        if y is None:
            raise RuntimeError(
                f"{type(self).__name__}.output({i}): the output Variable no longer exists; "
                "store the value you need on self in forward()"
            )
        return y

    def __repr__(self) -> str:
        return f"<{type(self).__name__} generation={self.generation}>"


_weak = weakref.ref  # read once per op in _record


@saved.default_rule
def _backward_on_constants(func: Function, *gys: np.ndarray) -> Any:
    """First-order backward of a Function that defines only ``backward``.

    Its ``backward`` runs on constant Variables; the engine has switched graph building
    off, so this records nothing. The results are unwrapped to ndarrays.
    """
    gxs = func.backward(*[Variable(gy, requires_grad=False) for gy in gys])
    if isinstance(gxs, (tuple, list)):
        return tuple([gx.data if isinstance(gx, Variable) else gx for gx in gxs])
    return gxs.data if isinstance(gxs, Variable) else gxs

