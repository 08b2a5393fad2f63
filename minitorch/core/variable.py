"""``Variable``: an ndarray plus the bookkeeping reverse-mode autodiff needs.

The class is deliberately thin. It knows its data, its gradient and the Function that
created it (``creator``); it does not know any op. Operators such as ``x + y`` and
methods such as ``x.sum()`` are bound onto it by the one table in
``minitorch/ops/variable_methods.py``, and ``x.backward()`` hands over to the engine in
``minitorch/core/backward.py``. The ``if TYPE_CHECKING:`` block below declares those
bound names so that IDEs, mypy and the API docs still see them. What a Variable refuses
(``float(x)``, ``np.exp(x)``, ``x < y`` ...) and the messages that say what to do
instead live beside it, in the :class:`~minitorch.core.refusals.Refusals` mixin.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Union

import numpy as np

from minitorch.core.graph import functions
from minitorch.core.numpy_hints import check_data_type
from minitorch.core.refusals import Refusals
from minitorch.core.saved import cut

if TYPE_CHECKING:
    from minitorch.core.function import Function

#: Why a complex array is refused, and what to do instead.
COMPLEX_HINT = (
    ": complex numbers are out of scope for minitorch (its ops and gradients are real); "
    "pass the real and imaginary parts (z.real, z.imag) as two real arrays"
)
NUMERIC_KINDS = frozenset("biuf")  # bool, signed/unsigned int, float: complex is out of scope

#: Anything an op accepts as an operand: a Variable, an ndarray or a Python/NumPy scalar.
Operand = Union["Variable", np.ndarray, float, int, np.generic]


class Variable(Refusals):
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
            no modulo or floor-division op. ``==`` and ``!=`` compare two Variables by
            identity and refuse a number or an array (``loss == 0``).

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
        # Left unset until needed (read with getattr): the last fingerprint of ``data``
        # taken by a Function call and the number of optimizer steps applied to it, as
        # one pair (in-place edit detection, core/inplace.py; one slot keeps a Variable
        # at 112 bytes, and freeing a long graph was 5% slower at 120); a mark on
        # gradients made by a first-order backward (differentiating one explains
        # create_graph=True); and, on a create_graph gradient that depends on no input, a
        # weak reference to its leaf (differentiating it gives that leaf zeros).
        "_leaf_state",
        "_first_order_grad",
        "_constant_grad_of",
    )
    _leaf_state: tuple[bytes | None, int]  # (inplace.fingerprint(data), bump_version's count)
    _first_order_grad: bool | str  # str: the minitorch.func transform that made it
    _constant_grad_of: Any  # weakref.ref to a Variable

    def __init__(
        self, data: np.ndarray | None, name: str | None = None, requires_grad: bool = True
    ) -> None:
        if data is not None:
            if type(data) is not np.ndarray:  # the rare case: not a plain ndarray
                check_data_type(data)
            if data.dtype.kind not in NUMERIC_KINDS:
                raise TypeError(
                    f"Variable: data must be numeric (bool, integer or float), got dtype "
                    f"{data.dtype}" + COMPLEX_HINT * (data.dtype.kind == "c")
                )
        # Typed as ndarray: a None placeholder is rare and ops never receive one.
        self.data: np.ndarray = data  # type: ignore[assignment]
        self.name = name
        self.grad: Variable | None = None
        self.creator: Function | None = None
        self.generation = 0
        self.requires_grad = requires_grad

    # -- graph bookkeeping -------------------------------------------------------------
    def clear_grad(self) -> None:
        """Forget the gradient (set ``grad`` to ``None``) before a new backward pass."""
        self.grad = None

    def unchain(self) -> None:
        """Cut the link to the creator: this Variable becomes a leaf, for every op it fed."""
        cut(self)  # the ops that hold only its edge see it too; forward mode drops its tangent
        self.creator = None

    def unchain_backward(self) -> None:
        """Cut every creator link in the graph behind this Variable (iteratively).

        Used for truncated backpropagation through time: the values stay, the history is
        dropped, so memory no longer grows with sequence length.
        """
        for func in list(functions(self)):  # listed first: unchain() cuts the links
            for x in func.inputs:  # Variables, and the edges of values not saved
                x.unchain()
            for ref in func.outputs:  # an intermediate the user still holds, not saved
                y = ref()
                if y is not None and y.creator is func:
                    y.unchain()
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
        data = self.data  # inline: read on every op and every gradient
        return data.shape if data is not None else self._array().shape

    @property
    def ndim(self) -> int:
        """The number of dimensions of ``data``."""
        data = self.data  # inline: read on every op and every gradient
        return data.ndim if data is not None else self._array().ndim

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
        data = self.data  # inline: read on every op and every gradient
        return data.dtype if data is not None else self._array().dtype

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

    def __bool__(self) -> bool:
        """Truth value as NumPy defines it: only for one element, else ``ValueError``."""
        return bool(self._array())

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

        def prod(
            self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False
        ) -> Variable:
            """Product over ``axis``; right with zeros (ops.prod)."""

        def cumsum(self, axis: int | None = None) -> Variable:
            """Running sums along ``axis`` (flattened for None) (ops.cumsum)."""

        def cumprod(self, axis: int | None = None) -> Variable:
            """Running products along ``axis`` (flattened for None) (ops.cumprod)."""

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
    {"__weakref__", "creator", "generation", "_leaf_state"}
    | {"_first_order_grad", "_constant_grad_of"}
)


class _ElementCount(int):
    """``Variable.size``: an int that explains itself when called as PyTorch's ``size()``."""

    __slots__ = ()

    def __call__(self, *dim: Any) -> Any:
        raise TypeError(
            f"Variable.size is the number of elements ({int(self)}, an int as in NumPy), not "
            "PyTorch's size() method: use x.shape for the shape (x.shape[d] for one axis)"
        )


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


def wrap(data: np.ndarray, requires_grad: bool) -> Variable:
    """``Variable(data, requires_grad=...)`` for an array minitorch made itself (an op's
    output, a constant): ``__init__``'s checks of the data's type skipped, paid per op."""
    v = _new_object(Variable)
    v.data = data
    v.name = v.grad = v.creator = None
    v.generation = 0
    v.requires_grad = requires_grad
    return v


_new_object = object.__new__
