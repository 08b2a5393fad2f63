"""``Variable``: an ndarray plus the bookkeeping reverse-mode autodiff needs.

The class is deliberately thin. It knows its data, its gradient and the Function that
created it (``creator``); it does not know any op. Operators such as ``x + y`` and
methods such as ``x.sum()`` are bound onto it by the one table in
``minitorch/ops/variable_methods.py``, and ``x.backward()`` hands over to the engine in
``minitorch/core/backward.py``. The ``if TYPE_CHECKING:`` block below declares those
bound names so that IDEs, mypy and the API docs still see them.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Union

import numpy as np

if TYPE_CHECKING:
    from minitorch.core.function import Function

NUMERIC_KINDS = frozenset("biufc")  # bool, signed/unsigned int, float, complex

#: Anything an op accepts as an operand: a Variable, an ndarray or a Python/NumPy scalar.
Operand = Union["Variable", np.ndarray, float, int, np.generic]


class Variable:
    """A node of the computational graph holding an ndarray.

    Args:
        data: the value, an ``np.ndarray`` of any shape and dtype (0-d included), or
            ``None`` for a placeholder.
        name: an optional label, shown by ``repr`` tools and ``viz``.
        requires_grad: whether ``backward`` should compute a gradient for this Variable
            when it is a leaf. Variables you create default to ``True``; the constants
            that ops create from ndarrays and scalars (``x * 2.0``) get ``False``, so no
            work is spent on gradients nobody asked for.

    Attributes:
        data: the ndarray.
        name: the label or ``None``.
        grad: the gradient ``dL/dself`` as a Variable with ``data``'s shape, or ``None``
            before ``backward`` has reached this Variable.
        creator: the Function whose output this is; ``None`` for a leaf.
        generation: ``creator.generation + 1`` (0 for leaves): the longest path from a
            leaf, shown in graphs.
        requires_grad: see above; an op's output requires a gradient iff one of its inputs
            does and it was computed outside ``no_grad()`` (results computed under
            ``no_grad()`` are constants, as in PyTorch).

    Raises:
        TypeError: if ``data`` is not an ``np.ndarray`` or ``None`` (wrap scalars with
            ``np.array(2.0)``), or is a ``numpy.ma`` masked array (its mask would be
            ignored: pass ``m.filled(value)``). The operators ``< <= > >= % //`` raise
            it too: comparisons have no gradient (compare ``x.data``), and minitorch has
            no modulo or floor-division op. ``==`` and ``!=`` compare identity.

    Example:
        >>> x = Variable(np.array([1.0, 2.0]), name="x")
        >>> y = (x * x).sum()
        >>> y.backward()
        >>> x.grad
        variable([2. 4.])
    """

    __slots__ = (
        "data",
        "name",
        "grad",
        "creator",
        "generation",
        "requires_grad",
        "__weakref__",
        # Left unset until needed (read with getattr): a copy of ``data`` as recorded by
        # Function calls (in-place edit detection, core/inplace.py); a mark on gradients made by a
        # first-order backward (differentiating one explains create_graph=True); and, on
        # a create_graph gradient that depends on no input, a weak reference to its leaf
        # (differentiating it gives that leaf zeros).
        "_snapshot",
        "_first_order_grad",
        "_constant_grad_of",
    )
    _snapshot: Any  # minitorch.core.inplace.LeafSnapshot
    _first_order_grad: bool
    _constant_grad_of: Any  # weakref.ref to a Variable

    def __init__(
        self, data: np.ndarray | None, name: str | None = None, requires_grad: bool = True
    ) -> None:
        if data is not None:
            if type(data) is not np.ndarray:  # the rare case: not a plain ndarray
                _check_data_type(data)
            if data.dtype.kind not in NUMERIC_KINDS:
                raise TypeError(
                    f"Variable: data must be numeric (bool, integer, float or complex), got "
                    f"dtype {data.dtype}"
                )
        # Typed as ndarray: a None placeholder is rare and ops never receive one.
        self.data: np.ndarray = data  # type: ignore[assignment]
        self.name = name
        self.grad: Variable | None = None
        self.creator: Function | None = None
        self.generation = 0
        self.requires_grad = requires_grad

    # -- graph bookkeeping -------------------------------------------------------------
    def set_creator(self, func: Function) -> None:
        """Record ``func`` as this Variable's creator; generation becomes one more."""
        self.creator = func
        self.generation = func.generation + 1

    def clear_grad(self) -> None:
        """Forget the gradient (set ``grad`` to ``None``) before a new backward pass."""
        self.grad = None

    def unchain(self) -> None:
        """Cut the link to the creator: this Variable becomes a leaf."""
        self.creator = None

    def unchain_backward(self) -> None:
        """Cut every creator link in the graph behind this Variable (iteratively).

        Used for truncated backpropagation through time: the values stay, the history is
        dropped, so memory no longer grows with sequence length.
        """
        from minitorch.core.graph import functions  # core-internal, as in backward()

        for func in list(functions(self)):  # listed first: unchain() cuts the links
            for x in func.inputs:
                x.unchain()
        self.creator = None

    def backward(self, retain_grad: bool = False, create_graph: bool = False) -> None:
        """Compute ``d self / d leaf`` for every leaf that requires a gradient.

        Gradients are *added* to each leaf's ``grad`` (call ``clear_grad`` or an
        optimizer's ``zero_grad`` between steps). ``self`` may have any shape: the seed is
        ``ones_like(self.data)``, i.e. the gradient of ``self.sum()``.

        Args:
            retain_grad: keep the gradients of intermediate Variables too (otherwise only
                leaves keep theirs, which frees memory early).
            create_graph: build the graph of the backward computation itself, so the
                gradients can be differentiated again (higher-order derivatives).

        Raises:
            RuntimeError: inside ``no_grad()``, if ``data`` is ``None``, or if the graph
                was released by ``minitorch.autograd.grad(..., retain_graph=False)``.
            ValueError: if a Function's backward returns the wrong number of gradients or
                a gradient whose shape differs from its input's, or if a leaf's ``.grad``
                cannot take the new gradient (a wrong shape, or no data after
                ``x.grad.data = None``: call ``x.clear_grad()``).
            TypeError: if a gradient reaches a leaf of integer dtype.
            FloatingPointError: under ``detect_anomaly()``, at the first NaN/inf gradient.

        See ``minitorch/core/backward.py`` for the algorithm; ``minitorch.autograd.grad``
        runs the same engine and returns the gradients instead of writing ``.grad``.
        """
        from minitorch.core.backward import run_backward  # core-internal, no cycle at import

        run_backward(self, retain_grad=retain_grad, create_graph=create_graph)

    # -- array-like read-only views ------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        """The shape of ``data``."""
        return self._array().shape

    @property
    def ndim(self) -> int:
        """The number of dimensions of ``data``."""
        return self._array().ndim

    @property
    def size(self) -> int:
        """The number of elements of ``data`` (NumPy's ``size``, an int).

        It is an ``int`` whose call ``x.size()`` (PyTorch's spelling) raises a
        ``TypeError`` pointing to ``x.shape``, instead of "'int' object is not callable".
        """
        return _ElementCount(self._array().size)

    @property
    def dtype(self) -> np.dtype[Any]:
        """The dtype of ``data``."""
        return self._array().dtype

    def __len__(self) -> int:
        return len(self._array())

    def __repr__(self) -> str:
        if self.data is None:
            return "variable(None)"
        body = str(self.data).replace("\n", "\n" + " " * len("variable("))
        return f"variable({body})"

    def item(self) -> Any:
        """Return the single element of ``data`` as a Python scalar.

        Raises:
            ValueError: if ``data`` has more than one element.
        """
        if self._array().size != 1:
            raise ValueError(f"Variable.item: only one-element Variables, got shape {self.shape}")
        return self._array().item()

    def numpy(self) -> np.ndarray:
        """Return ``data`` (the same array, not a copy)."""
        return self._array()

    def __getstate__(self) -> tuple[None, dict[str, Any]]:
        """Pickle (and copy) a Variable as a leaf: its data, name, grad, requires_grad.

        The graph is not saved, as in PyTorch: a Function holds its outputs by weak
        references (which cannot be pickled), and a copied graph would still point at the
        original outputs. So ``pickle.dumps(loss)`` of a computed loss works (a list of
        losses saved for a plot) and the copy has ``creator is None``; its ``grad`` is
        copied the same way. The marks the engine leaves (in-place snapshots, gradient
        marks) are not copied.
        """
        state = {}
        for cls in type(self).__mro__:
            for slot in getattr(cls, "__slots__", ()):
                if slot in _NOT_COPIED or not hasattr(self, slot):
                    continue
                state[slot] = getattr(self, slot)
        state["creator"], state["generation"] = None, 0
        return None, state

    # -- Python number protocols (what ``float(loss)`` and ``f"{loss:.3f}"`` call) -------
    def __float__(self) -> float:
        """Refuse ``float(x)``: it is also how ``math.exp(x)`` would drop the graph.

        PyTorch converts a one-element tensor here, so ``math.exp(x) + 2 * x`` silently
        loses the ``exp`` term's gradient (``math.exp`` calls ``__float__``). minitorch
        asks for the explicit spelling instead: ``x.item()`` for a number (logging), an
        ``F`` op (``F.exp``) to keep the graph. ``f"{loss:.3f}"`` works (``__format__``).

        Raises:
            TypeError: always; it names ``x.item()``, ``x.data`` and the ``F`` ops.

        Example:
            >>> float(Variable(np.array(0.25)))  # doctest: +ELLIPSIS
            Traceback (most recent call last):
            ...
            TypeError: float(x) (also called by math.exp(x), '%f' % x, ...) would ... works
        """
        raise TypeError(
            self._number_message("float(x) (also called by math.exp(x), '%f' % x, ...)")
        )

    def __int__(self) -> int:
        """Refuse ``int(x)``, as ``float(x)``: use ``x.item()`` (then ``int(...)``).

        Raises:
            TypeError: always; it names ``x.item()`` and ``x.data``.
        """
        raise TypeError(self._number_message("int(x)"))

    def _number_message(self, what: str) -> str:
        array = self._array()
        number = (
            f"use x.item() for its number (shape {array.shape})"
            if array.size == 1
            else f"x holds {array.size} elements (shape {array.shape}): use x.data for the array"
        )
        return (
            f"{what} would turn the Variable into a plain number, and no gradient would "
            f"flow through it: {number}, or the minitorch op (F.exp, F.sqrt, ... with "
            'import minitorch.ops as F) to keep the graph; to print it, f"{x:.3f}" works'
        )

    def __format__(self, format_spec: str) -> str:
        """``f"{x:.3f}"``: a one-element Variable formats as its number (PyTorch's rule).

        An empty spec (``f"{x}"``) gives ``str(x)`` (``variable(...)``) for any shape.

        Raises:
            TypeError: for a non-empty spec on a Variable of several elements (names
                ``x.item()`` and ``x.data``).
            ValueError: for a spec the number does not accept (``format(7.5, "d")``).

        Example:
            >>> loss = Variable(np.array(0.123456))
            >>> f"loss {loss:.3f}", f"{loss}"
            ('loss 0.123', 'variable(0.123456)')
        """
        if not format_spec:
            return str(self)
        return format(self._one_element(f"format spec {format_spec!r}"), format_spec)

    def _one_element(self, what: str) -> Any:
        """The single element as a Python number, or a TypeError that points to ``.item()``."""
        array = self._array()
        if array.size != 1:
            raise TypeError(
                f"Variable: {what} needs a Variable of one element (use x.item() for it), "
                f"got shape {array.shape}; for the whole array use x.data"
            )
        return array.item()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """Refuse the silent conversion ``np.asarray(x)`` / ``np.array(x)``.

        Without this, NumPy would walk the Variable as a sequence and build an object
        array of 0-d Variables: slow, and wrong wherever a number array was meant
        (``plt.plot(x, y)``, ``np.dot(x, x)``).

        Raises:
            TypeError: always; it names ``x.data`` (the ndarray) and the ``F`` ops — or,
                when a ``numpy.ma`` masked array asks (``m + x`` with a masked ``m`` on
                the left), says that masks are not supported, as ``x + m`` does.
        """
        masked = _masked_caller_message(sys._getframe(1))
        if masked is not None:
            raise TypeError(masked)
        raise TypeError(
            f"NumPy was given a Variable of shape {self.shape}: use x.data for its ndarray "
            "(no gradient flows through it), or the minitorch op (F.exp, F.sum, ... with "
            "import minitorch.ops as F) to keep the graph"
        )

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """NumPy's hook (NEP 13) for a ufunc called with a Variable among its operands.

        ``a + x`` with an ndarray or NumPy scalar ``a`` runs ``np.add(a, x)``, which lands
        here: the ufuncs behind ``+ - * / ** @`` return Variable's own operator
        (``x.__radd__(a)``), so the result is a Variable with a graph. ``a == x`` and
        ``a != x`` keep Python's identity meaning (``False`` / ``True``), as before this
        hook existed. Every other ufunc (``np.exp``, ``np.maximum``, ``a < x``, ``a += x``
        ...) computes nothing that ``backward`` could follow, so it is refused; a
        comparison (``a < x``) or ``a % x`` / ``a // x`` with the message of ``x < a``
        and ``x % a`` (compare or apply it to ``x.data``). A Variable-Variable or
        Variable-number operation never gets here.

        Raises:
            TypeError: for any other ufunc, method (``np.add.reduce``) or keyword
                (``out=``, ``where=``); the message names the ``minitorch.ops`` function
                to use instead when there is one, else ``x.data``.

        Example:
            >>> import minitorch.ops as F
            >>> x = Variable(np.array([1.0, 2.0]))
            >>> np.ones(2) + x
            variable([2. 3.])
            >>> np.exp(x)
            Traceback (most recent call last):
            ...
            TypeError: np.exp does not record a graph for Variables; use F.exp(x) (import minitorch.ops as F) or x.data for the raw array
        """  # noqa: E501
        name = ufunc.__name__
        if method == "__call__" and not kwargs and len(inputs) == 2:
            a, b = inputs
            if name in _OPERATOR_UFUNCS:
                forward, reflected = _OPERATOR_UFUNCS[name]
                if isinstance(a, Variable):
                    bound, other = getattr(a, forward, None), b
                else:  # then b is the Variable
                    bound, other = getattr(b, reflected, None), a
                if bound is not None:  # None only before minitorch.ops has bound them
                    return bound(other)
            if name == "equal":
                return a is b
            if name == "not_equal":
                return a is not b
        in_place = kwargs.get("out") is not None and method == "__call__"
        if in_place and name in _OPERATOR_SYMBOLS and name != "divmod":  # a += x on an array
            symbol = _OPERATOR_SYMBOLS[name]
            raise TypeError(
                f"np.{name}(..., out=...) cannot store a Variable in an ndarray: in "
                f"`a {symbol}= x` with an ndarray a, use x.data, the raw array (as in "
                f"`p.data -= lr * p.grad.data`), or write `a = a {symbol} x` for a new Variable"
            )
        if method == "__call__" and not kwargs and len(inputs) == 2:  # a < x, a % x, ...
            a, b = inputs
            if name in _COMPARISON_UFUNCS:
                raise TypeError(_comparison_text(_COMPARISON_UFUNCS[name], a, b))
            if name in ("remainder", "floor_divide"):
                what = "modulo" if name == "remainder" else "floor-division"
                raise TypeError(_no_op_refusal(_OPERATOR_SYMBOLS[name], what, a, b))
        label = f"np.{name}" if method == "__call__" else f"np.{name}.{method}"
        f_name = _F_NAMES.get((name, method), name if method == "__call__" else None)
        message = _numpy_refusal(label, f_name, "(x)" if ufunc.nin == 1 else "(...)")
        if name in _OPERATOR_SYMBOLS and method == "__call__":
            symbol = _OPERATOR_SYMBOLS[name]
            message += f" ({symbol!r} between an ndarray and a Variable calls {label})"
        raise TypeError(message)

    def __array_function__(
        self, func: Any, types: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        """NumPy's hook (NEP 18) for a NumPy function (``np.sum``, ``np.concatenate``...).

        The few functions that only read ``x.shape``/``x.dtype`` or call a Variable method
        (``np.shape``, ``np.transpose``, ``np.squeeze``...) run as before; every other one
        is refused, since NumPy cannot record a graph.

        Raises:
            TypeError: naming the ``minitorch.ops`` function to use instead when there is
                one (``np.sum`` -> ``F.sum``, ``np.dot`` -> ``F.matmul``), else ``x.data``.
        """
        name = func.__name__
        if name in _NUMPY_FUNCTIONS_THAT_WORK:
            return func._implementation(*args, **kwargs)
        module = func.__module__.replace("numpy", "np", 1) if func.__module__ else "np"
        label = f"{module}.{name}" if module.startswith("np") else f"np.{name}"
        f_name = _F_NAMES.get((name, "__call__"), name) if module == "np" else None
        raise TypeError(_numpy_refusal(label, f_name, "(...)"))

    def __bool__(self) -> bool:
        """Truth value as NumPy defines it: only for one element, else ``ValueError``."""
        return bool(self._array())

    # -- operators without an op: refused with a message that says what to do ----------
    # ``==`` and ``!=`` are not here on purpose: they keep Python's identity meaning
    # (a Variable is a graph node; ``a == x`` asks whether it is the same node).
    def __lt__(self, other: Any) -> bool:
        """Refused: ``x < y`` has no gradient (``TypeError`` naming ``x.data < ...``)."""
        raise TypeError(_comparison_refusal(self, other, "<", sys._getframe(1)))

    def __le__(self, other: Any) -> bool:
        """Refused: ``x <= y`` has no gradient (``TypeError`` naming ``x.data <= ...``)."""
        raise TypeError(_comparison_refusal(self, other, "<=", sys._getframe(1)))

    def __gt__(self, other: Any) -> bool:
        """Refused: ``x > y`` has no gradient (``TypeError`` naming ``x.data > ...``)."""
        raise TypeError(_comparison_refusal(self, other, ">", sys._getframe(1)))

    def __ge__(self, other: Any) -> bool:
        """Refused: ``x >= y`` has no gradient (``TypeError`` naming ``x.data >= ...``)."""
        raise TypeError(_comparison_refusal(self, other, ">=", sys._getframe(1)))

    def __mod__(self, other: Any) -> Variable:
        """Refused: minitorch has no modulo op (``TypeError`` naming ``x.data % ...``)."""
        raise TypeError(_no_op_refusal("%", "modulo", self, other))

    def __rmod__(self, other: Any) -> Variable:
        """Refused: ``a % x``, as :meth:`__mod__`."""
        raise TypeError(_no_op_refusal("%", "modulo", other, self))

    def __floordiv__(self, other: Any) -> Variable:
        """Refused: minitorch has no floor division op (``x.data // ...`` instead)."""
        raise TypeError(_no_op_refusal("//", "floor-division", self, other))

    def __rfloordiv__(self, other: Any) -> Variable:
        """Refused: ``a // x``, as :meth:`__floordiv__`."""
        raise TypeError(_no_op_refusal("//", "floor-division", other, self))

    def _array(self) -> np.ndarray:
        if self.data is None:
            label = f"Variable {self.name!r}" if self.name else "Variable"
            raise RuntimeError(f"{label} holds no data (data is None)")
        return self.data

    if TYPE_CHECKING:
        # Bound at import time by minitorch/ops/variable_methods.py (the binding table).
        # A test keeps this list equal to the table.
        T: Variable

        def __add__(self, other: Operand) -> Variable:
            """``self + other`` (ops.add)."""

        def __radd__(self, other: Operand) -> Variable:
            """``other + self`` (ops.add)."""

        def __sub__(self, other: Operand) -> Variable:
            """``self - other`` (ops.sub)."""

        def __rsub__(self, other: Operand) -> Variable:
            """``other - self`` (ops.sub)."""

        def __mul__(self, other: Operand) -> Variable:
            """``self * other`` (ops.mul)."""

        def __rmul__(self, other: Operand) -> Variable:
            """``other * self`` (ops.mul)."""

        def __truediv__(self, other: Operand) -> Variable:
            """``self / other`` (ops.div)."""

        def __rtruediv__(self, other: Operand) -> Variable:
            """``other / self`` (ops.div)."""

        def __neg__(self) -> Variable:
            """``-self`` (ops.neg)."""

        def __pow__(self, other: Operand) -> Variable:
            """``self ** other`` (ops.pow)."""

        def __rpow__(self, other: Operand) -> Variable:
            """``other ** self`` (ops.pow)."""

        def reshape(self, *shape: int | Sequence[int]) -> Variable:
            """Reshape; ``x.reshape(2, 3)`` or ``x.reshape((2, 3))`` (ops.reshape)."""

        def transpose(self, *axes: int | Sequence[int]) -> Variable:
            """Permute axes; no axes reverses them (ops.transpose)."""

        def sum(
            self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False
        ) -> Variable:
            """Sum over ``axis`` (ops.sum)."""

        def mean(
            self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False
        ) -> Variable:
            """Mean over ``axis`` (ops.mean)."""

        def exp(self) -> Variable:
            """Elementwise ``e**self`` (ops.exp)."""

        def log(self) -> Variable:
            """Elementwise natural logarithm (ops.log)."""

        def tanh(self) -> Variable:
            """Elementwise hyperbolic tangent (ops.tanh)."""

        def sin(self) -> Variable:
            """Elementwise sine (ops.sin)."""

        def cos(self) -> Variable:
            """Elementwise cosine (ops.cos)."""

        def __matmul__(self, other: Operand) -> Variable:
            """``self @ other`` (ops.matmul)."""

        def __rmatmul__(self, other: Operand) -> Variable:
            """``other @ self`` (ops.matmul)."""

        def __getitem__(self, index: Any) -> Variable:
            """``self[index]``: slices, int/bool arrays, None, ... (ops.get_item)."""

        def __abs__(self) -> Variable:
            """``abs(self)`` (ops.abs)."""

        def max(
            self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False
        ) -> Variable:
            """Maximum over ``axis``; ties share the gradient (ops.max)."""

        def min(
            self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False
        ) -> Variable:
            """Minimum over ``axis``; ties share the gradient (ops.min)."""

        def var(
            self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False, ddof: int = 0
        ) -> Variable:
            """Variance over ``axis`` (ops.var)."""

        def std(
            self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False, ddof: int = 0
        ) -> Variable:
            """Standard deviation over ``axis`` (ops.std)."""

        def astype(self, dtype: Any) -> Variable:
            """Convert to ``dtype``; the gradient is converted back (ops.astype)."""

        def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Variable:
            """Merge axes ``start_dim..end_dim`` into one (ops.flatten)."""

        def squeeze(self, axis: int | Sequence[int] | None = None) -> Variable:
            """Remove size-1 axes (ops.squeeze)."""

        def sqrt(self) -> Variable:
            """Elementwise square root (ops.sqrt)."""

        def square(self) -> Variable:
            """Elementwise ``self * self`` (ops.square)."""

        def abs(self) -> Variable:
            """Elementwise absolute value (ops.abs)."""

        def clip(self, x_min: float | None, x_max: float | None) -> Variable:
            """Limit values to ``[x_min, x_max]`` (ops.clip)."""

        def sigmoid(self) -> Variable:
            """Elementwise logistic function (ops.sigmoid)."""

        def relu(self) -> Variable:
            """Elementwise ``max(self, 0)`` (ops.relu)."""


#: What ``Variable.__getstate__`` leaves out: the graph link and the engine's marks.
_NOT_COPIED = frozenset(
    {"__weakref__", "creator", "generation", "_snapshot", "_first_order_grad", "_constant_grad_of"}
)


class _ElementCount(int):
    """``Variable.size``: an int that explains itself when called as PyTorch's ``size()``."""

    __slots__ = ()

    def __call__(self, *dim: Any) -> Any:
        raise TypeError(
            f"Variable.size is the number of elements ({int(self)}, an int as in NumPy), not "
            "PyTorch's size() method: use x.shape for the shape (x.shape[d] for one axis)"
        )


class _TorchSpelling:
    """A class attribute of Variable for a PyTorch name it lacks: reading it raises.

    ``x.detach`` raises an ``AttributeError`` naming the minitorch spelling, so ``hasattr``
    stays ``False`` as for any missing attribute. A descriptor, not ``__getattr__``: the
    core reads unset slots with ``getattr(x, "_snapshot", None)`` on every Function call,
    and a ``__getattr__`` would run (and cost about 2 µs) on each of those failed lookups.
    """

    def __init__(self, name: str, hint: str) -> None:
        self.name, self.hint = name, hint

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        if obj is None:  # Variable.detach (introspection, docs): the descriptor itself
            return self
        raise AttributeError(
            f"'{type(obj).__name__}' object has no attribute '{self.name}' (a PyTorch name); "
            f"in minitorch {self.hint}"
        )


# PyTorch Tensor attributes a student may try on a Variable, with the minitorch spelling.
_TORCH_SPELLINGS = {
    "detach": "use x.data (the ndarray) or Variable(x.data) (a new leaf, no graph)",
    "view": "use x.reshape(*shape) or F.reshape(x, shape)",
    "dim": "use x.ndim (a property, no parentheses)",
    "numel": "use x.size (a property: the number of elements)",
    "unsqueeze": "use F.expand_dims(x, axis)",
    "permute": "use x.transpose(*axes)",
    "t": "use x.T",
    "tolist": "use x.data.tolist()",
    "grad_fn": "use x.creator (the Function that made x)",
    "is_leaf": "use x.creator is None",
    "requires_grad_": "set x.requires_grad = True",
    "zero_": "use x.clear_grad() for the gradient, or x.data[...] = 0 for the value",
    "retain_grad": "use x.backward(retain_grad=True) (keeps every intermediate gradient)",
    "cpu": "not needed: every Variable holds a NumPy array (x.data)",
    "cuda": "not available: minitorch runs on NumPy (CPU) only",
    "to": "use x.astype(dtype) for a dtype; there are no devices",
    "float": "use x.astype(np.float32), or x.item() for the number of a one-element Variable",
    "double": "use x.astype(np.float64)",
    "long": "use x.astype(np.int64)",
}


for _name, _hint in _TORCH_SPELLINGS.items():
    setattr(Variable, _name, _TorchSpelling(_name, _hint))


# The ufuncs that ndarray's and NumPy scalars' operators call (``a + x`` runs
# ``np.add(a, x)``), with the Variable methods that compute them: (x op b, a op x).
_OPERATOR_UFUNCS = {
    "add": ("__add__", "__radd__"),
    "subtract": ("__sub__", "__rsub__"),
    "multiply": ("__mul__", "__rmul__"),
    "divide": ("__truediv__", "__rtruediv__"),
    "power": ("__pow__", "__rpow__"),
    "matmul": ("__matmul__", "__rmatmul__"),
}
# Every ufunc an operator of ndarray can call, with its symbol (for messages).
_OPERATOR_SYMBOLS = {
    "add": "+",
    "subtract": "-",
    "multiply": "*",
    "divide": "/",
    "power": "**",
    "matmul": "@",
    "floor_divide": "//",
    "remainder": "%",
    "divmod": "divmod",
    "left_shift": "<<",
    "right_shift": ">>",
    "bitwise_and": "&",
    "bitwise_or": "|",
    "bitwise_xor": "^",
    "less": "<",
    "less_equal": "<=",
    "greater": ">",
    "greater_equal": ">=",
}
# NumPy names whose minitorch op is spelt differently; other names are looked up as is.
_F_NAMES: dict[tuple[str, str], str | None] = {
    ("absolute", "__call__"): "abs",
    ("negative", "__call__"): "neg",
    ("power", "__call__"): "pow",
    ("divide", "__call__"): "div",
    ("multiply", "__call__"): "mul",
    ("subtract", "__call__"): "sub",
    ("dot", "__call__"): "matmul",
    ("amax", "__call__"): "max",
    ("amin", "__call__"): "min",
    ("add", "reduce"): "sum",
    ("maximum", "reduce"): "max",
    ("minimum", "reduce"): "min",
}
# NumPy functions that worked on a Variable before __array_function__ existed: they only
# read x.shape / x.ndim / x.size / x.dtype or call a Variable method (the ops call
# np.shape on Variables). Found by calling every np, np.linalg and np.fft function.
_NUMPY_FUNCTIONS_THAT_WORK = frozenset(
    {
        "shape",
        "ndim",
        "size",
        "result_type",
        "common_type",
        "iscomplexobj",
        "isrealobj",
        "transpose",
        "permute_dims",
        "squeeze",
        "flip",
        "unstack",
        "diag_indices_from",
        "tril_indices_from",
        "triu_indices_from",
    }
)


def _numpy_refusal(label: str, f_name: str | None, args: str) -> str:
    """The message for a NumPy function or ufunc given a Variable: what to use instead.

    The op is looked up in ``minitorch.ops`` only if that is already imported (core
    imports nothing above it); without it there is no op to name.
    """
    ops = sys.modules.get("minitorch.ops")
    public = getattr(ops, "__all__", ())
    if f_name is not None and f_name in public:
        fix = f"use F.{f_name}{args} (import minitorch.ops as F) or x.data for the raw array"
    else:
        fix = (
            "minitorch has no op for it: apply it to x.data, the raw array (no gradient "
            "flows through it)"
        )
    return f"{label} does not record a graph for Variables; {fix}"


def _check_data_type(data: Any) -> None:
    """Refuse what is not an ndarray, and masked arrays (whose mask ops would drop)."""
    if not isinstance(data, np.ndarray):
        raise TypeError(
            f"Variable: data must be a numpy.ndarray or None, got "
            f"{type(data).__name__}; wrap scalars and lists with np.array(...)"
        )
    if is_masked(data):
        raise TypeError(masked_message("Variable: data", data))


def is_masked(x: Any) -> bool:
    """Whether ``x`` is a ``numpy.ma.MaskedArray`` (without importing ``numpy.ma``).

    NumPy 2 imports ``numpy.ma`` only when it is first used, so if it is not loaded
    nobody can have made a masked array.
    """
    ma = sys.modules.get("numpy.ma")
    return ma is not None and isinstance(x, ma.MaskedArray)


def masked_message(what: str, x: Any) -> str:
    """The refusal of a masked array: its mask would be dropped; ``filled`` it instead."""
    n_masked = int(np.count_nonzero(np.ma.getmaskarray(x)))
    return (
        f"{what} is a numpy.ma.MaskedArray of shape {x.shape} with {n_masked} masked "
        f"value(s); minitorch computes on plain ndarrays and would silently drop the mask "
        "(the masked entries would count as numbers). Use m.filled(value) for a plain "
        "array with the masked entries replaced (e.g. m.filled(0.0)), or pass a plain "
        "ndarray"
    )


#: The ops behind the ufuncs of the arithmetic operators, as their messages name them.
_UFUNC_OPS = {
    "add": "Add",
    "subtract": "Sub",
    "multiply": "Mul",
    "divide": "Div",
    "power": "Pow",
    "matmul": "MatMul",
}


def _masked_caller_message(frame: Any) -> str | None:
    """The masked-array refusal for ``m + x``, when ``numpy.ma`` asks ``x`` for its array.

    ``m + x`` with a masked ``m`` on the left runs ``m.__add__(x)``, and ``numpy.ma``
    then converts ``x`` with ``np.array`` (Variable's ``__array__``) instead of deferring
    to ``x.__radd__``. The frames of ``numpy.ma`` that are running say which operation it
    is and which operand is masked, so the message is the one ``x + m`` gives (``Add:
    operand 0 is a numpy.ma.MaskedArray ...``). ``None`` when the caller is not
    ``numpy.ma`` or no masked operand is found (the general refusal applies). This runs
    only when the conversion has already failed.
    """
    masked: Any = None
    index, op, outer = 0, None, ""
    while frame is not None and str(frame.f_globals.get("__name__", "")).startswith("numpy.ma"):
        local = frame.f_locals
        ufunc = getattr(local.get("self"), "f", None)  # numpy.ma's operation objects
        if op is None and isinstance(ufunc, np.ufunc):
            op = _UFUNC_OPS.get(ufunc.__name__, f"np.ma.{ufunc.__name__}")
        # Operands are `a, b` in numpy.ma's operations, `self` in MaskedArray's dunders.
        for i, key in ((0, "a"), (1, "b"), (0, "self")):
            if masked is None and is_masked(local.get(key)):
                masked, index = local[key], i
        outer = frame.f_code.co_name
        frame = frame.f_back
    if masked is None:
        return None
    if op is None:  # `m ** x`, `m += x`: a dunder of MaskedArray, or a numpy.ma function
        by_dunder = {forward: ufunc for ufunc, (forward, _) in _OPERATOR_UFUNCS.items()}
        ufunc_name = by_dunder.get(outer.replace("__i", "__", 1), "")
        op = _UFUNC_OPS.get(ufunc_name, f"numpy.ma's {outer}")
    return masked_message(f"{op}: operand {index}", masked)


#: The comparison ufuncs an ndarray's ``a < x`` calls, with their operators.
_COMPARISON_UFUNCS = {"less": "<", "less_equal": "<=", "greater": ">", "greater_equal": ">="}
#: Each comparison and its mirror: Python runs ``1 < x`` as ``x.__gt__(1)``.
_MIRRORED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _comparison_refusal(var: Variable, other: Any, symbol: str, caller: Any) -> str:
    """The message for ``x < 1``, ``1 < x``, ``x >= y``: compare ``.data`` instead.

    Python calls ``x.__gt__(1)`` both for ``x > 1`` and, reflected, for ``1 < x``; the
    comparison instruction of the caller's frame (``caller``) says which one the user
    wrote, so the message repeats that operator and operand order. This runs only when
    the comparison has already failed, never on an arithmetic path.
    """
    written = _written_comparison(caller)
    if written == _MIRRORED[symbol]:  # reflected: the Variable was on the right
        return _comparison_text(written, other, var)
    return _comparison_text(symbol, var, other)


def _comparison_text(symbol: str, left: Any, right: Any) -> str:
    """The refusal of ``left symbol right`` (one of them a Variable), as written."""
    shown = _operand_texts(left, right)
    return (
        f"{symbol!r} between {_operand_kind(left)} and {_operand_kind(right)}: minitorch "
        "records no graph for comparisons (they have no gradient); compare the arrays "
        f"instead: `{shown[0]} {symbol} {shown[1]}` gives a bool ndarray (.data of each "
        "Variable)"
    )


def _no_op_refusal(symbol: str, what: str, left: Any, right: Any) -> str:
    """The message for ``x % 2`` or ``x // 2``: no such op; apply it to ``.data``."""
    shown = _operand_texts(left, right)
    return (
        f"{symbol!r} between {_operand_kind(left)} and {_operand_kind(right)}: minitorch "
        f"has no {what} op, so no gradient is recorded for {symbol}; apply it to the "
        f"arrays instead: `{shown[0]} {symbol} {shown[1]}` gives a plain ndarray (no gradient)"
    )


def _written_comparison(frame: Any) -> str | None:
    """The comparison operator of the instruction ``frame`` is running, if it is one."""
    import dis

    try:
        for instruction in dis.get_instructions(frame.f_code):
            if instruction.offset == frame.f_lasti:
                if instruction.opname != "COMPARE_OP":
                    return None  # operator.gt(x, 1), sorted([x, y]), ...
                text = instruction.argrepr.removeprefix("bool(").removesuffix(")")
                return text if text in _MIRRORED else None
    except (AttributeError, TypeError, ValueError):
        return None
    return None


def _operand_kind(value: Any) -> str:
    """``a Variable of shape (3,)``, ``int``, ``an ndarray of shape (2,)``."""
    if isinstance(value, Variable):
        shape = value.data.shape if isinstance(value.data, np.ndarray) else None
        return f"a Variable of shape {shape}"
    if isinstance(value, np.ndarray):
        return f"an ndarray of shape {value.shape}"
    return type(value).__name__


def _operand_texts(left: Any, right: Any) -> list[str]:
    """How the example in a refusal writes its operands: ``x.data``, ``1``, ``a``.

    A Variable is written with its ``name`` when that is an identifier, else as ``x``
    (then ``y``, skipping a name the other operand uses).
    """
    own = [
        v.name if isinstance(v, Variable) and isinstance(v.name, str) and v.name.isidentifier()
        else None
        for v in (left, right)
    ]  # fmt: skip
    spare = (n for n in ("x", "y", "z") if n not in own)
    texts = []
    for value, name in zip((left, right), own):
        if isinstance(value, Variable):
            texts.append(f"{name or next(spare)}.data")
        elif isinstance(value, (bool, int, float)) and len(repr(value)) <= 12:
            texts.append(repr(value))
        elif isinstance(value, np.generic) and len(str(value)) <= 12:
            texts.append(str(value))
        else:
            texts.append("a")
    return texts


def as_array(x: Any, dtype: Any = None) -> np.ndarray:
    """Return ``x`` as an ndarray (0-d for scalars), without copying ndarrays.

    Args:
        x: an ndarray, a NumPy scalar, a Python number or a nested list.
        dtype: an optional dtype to convert to.
    """
    if isinstance(x, np.ndarray) and (dtype is None or x.dtype == dtype):
        return x
    return np.asarray(x, dtype=dtype)


def as_variable(obj: Any) -> Variable:
    """Return ``obj`` if it is a Variable, else a Variable wrapping ``as_array(obj)``.

    Example:
        >>> as_variable(2.0)
        variable(2.0)
    """
    if isinstance(obj, Variable):
        return obj
    return Variable(as_array(obj))
