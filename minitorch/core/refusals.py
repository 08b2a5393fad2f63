"""The refusals beside the Variable: what it declines to do, and what to do instead.

A Variable is a graph node, so some things an ndarray does would silently drop the
graph: ``float(x)`` (also behind ``math.exp(x)``), ``np.exp(x)``, ``np.asarray(x)``,
``x < y``. :class:`Refusals`, a mixin of :class:`~minitorch.core.variable.Variable`,
refuses each with a message that names the minitorch spelling; the hint tables and the
message builders live here too, so ``variable.py`` shows the Variable itself. Every
function here runs only when something has already been refused, never on a hot path.
"""

from __future__ import annotations

import numbers
import sys
from typing import TYPE_CHECKING, Any

import numpy as np

import minitorch.core.numpy_hints as hints


class Refusals:
    """The NumPy-protocol, number-protocol and comparison refusals of a Variable.

    A mixin without state (``__slots__ = ()``). Also holds PyTorch attribute names a
    Variable lacks (``x.detach``, ``x.view`` ...), each raising an ``AttributeError``
    that names the minitorch spelling.
    """

    __slots__ = ()

    if TYPE_CHECKING:
        data: np.ndarray
        name: str | None

        @property
        def shape(self) -> tuple[int, ...]: ...

        def _array(self) -> np.ndarray: ...

    def __index__(self) -> int:
        """``range(n)``, ``lst[n]`` with an integer one-element Variable ``n``, as PyTorch.

        Raises:
            TypeError: for a float, bool or complex Variable, or one of several elements
                (use ``int(x.item())`` for a float's number, ``x.data`` for an array).

        Example:
            >>> import numpy as np
            >>> from minitorch import Variable
            >>> ["a", "b", "c"][Variable(np.array(2))]
            'c'
        """
        array = self._array()
        if array.dtype.kind in "iu" and array.size == 1:
            return int(array.item())
        if array.size != 1:
            fix = f"it has {array.size} elements (shape {array.shape}); use x.data for the array"
        else:
            fix = f"its dtype is {array.dtype}; use int(x.item()) for its number"
        raise TypeError(
            "only integer Variables of one element can be used as an index (Python's "
            f"__index__, as in range(n) or lst[n]): {fix}"
        )

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
            >>> import numpy as np
            >>> from minitorch import Variable
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

    def __round__(self, ndigits: int | None = None) -> Any:
        """Refuse ``round(x)``, as ``float(x)``: ``round(x.item(), n)`` rounds its number,
        ``np.round(x.data, n)`` its array (rounding has no useful gradient).

        Raises:
            TypeError: always; it names ``x.item()`` and ``x.data``.
        """
        what = "round(x)" if ndigits is None else f"round(x, {ndigits})"
        raise TypeError(self._number_message(what))

    def _number_message(self, what: str) -> str:
        array = self._array()
        number = (
            f"use x.item() for its number (shape {array.shape})"
            if array.size == 1
            else f"x holds {array.size} elements (shape {array.shape}): use x.data for the array"
        )
        spec = "{x:.3f}" if array.size == 1 else "{x}"
        printing = f'to print it, f"{spec}" works'
        return (
            f"{what} would turn the Variable into a plain number, and no gradient would "
            f"flow through it: {number}, or the minitorch op (F.exp, F.sqrt, ... with "
            f"import minitorch.ops as F) to keep the graph; {printing}"
        )

    def __format__(self, format_spec: str) -> str:
        """``f"{x:.3f}"``: a one-element Variable formats as its number (PyTorch's rule).

        An empty spec (``f"{x}"``) gives ``str(x)`` (``variable(...)``) for any shape.

        Raises:
            TypeError: for a non-empty spec on a Variable of several elements (names
                ``x.item()`` and ``x.data``).
            ValueError: for a spec the number does not accept (``format(7.5, "d")``).

        Example:
            >>> import numpy as np
            >>> from minitorch import Variable
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
        masked = hints.masked_caller_message(sys._getframe(1))
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
        ``a != x`` written by the user are refused as ``x == a`` is; compared for a
        container (``x in [a, x]``) they mean identity. Every other ufunc (``np.exp``, ``np.maximum``, ``a < x``, ``a += x``
        ...) computes nothing that ``backward`` could follow, so it is refused; a
        comparison (``a < x``) or ``a % x`` / ``a // x`` with the message of ``x < a``
        and ``x % a`` (compare or apply it to ``x.data``). A Variable-Variable or
        Variable-number operation never gets here.

        Raises:
            TypeError: for any other ufunc, method (``np.add.reduce``) or keyword
                (``out=``, ``where=``); the message names the ``minitorch.ops`` function
                to use instead when there is one, else ``x.data``.

        Example:
            >>> import numpy as np
            >>> from minitorch import Variable
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
            if name in hints.OPERATOR_UFUNCS:
                forward, reflected = hints.OPERATOR_UFUNCS[name]
                if isinstance(a, Refusals):
                    bound, other = getattr(a, forward, None), b
                else:  # then b is the Variable
                    bound, other = getattr(b, reflected, None), a
                if bound is not None:  # None only before minitorch.ops has bound them
                    return bound(other)
            if name in ("equal", "not_equal"):  # a == x with an ndarray or NumPy scalar a
                x, value = (a, b) if isinstance(a, Refusals) else (b, a)
                if _written_equality(sys._getframe(1)):
                    symbol = "==" if name == "equal" else "!="
                    raise TypeError(_equality_refusal(x, value, symbol))
                return (a is b) == (name == "equal")  # for a container: identity
        in_place = kwargs.get("out") is not None and method == "__call__"
        if in_place and name in hints.OPERATOR_SYMBOLS and name != "divmod":  # a += x on an array
            symbol = hints.OPERATOR_SYMBOLS[name]
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
                raise TypeError(_no_op_refusal(hints.OPERATOR_SYMBOLS[name], what, a, b))
        label = f"np.{name}" if method == "__call__" else f"np.{name}.{method}"
        f_name = hints.F_NAMES.get((name, method), name if method == "__call__" else None)
        message = hints.numpy_refusal(label, f_name, "(x)" if ufunc.nin == 1 else "(...)")
        if name in hints.OPERATOR_SYMBOLS and method == "__call__":
            symbol = hints.OPERATOR_SYMBOLS[name]
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
        if name in hints.NUMPY_FUNCTIONS_THAT_WORK:
            return func._implementation(*args, **kwargs)
        module = func.__module__.replace("numpy", "np", 1) if func.__module__ else "np"
        label = f"{module}.{name}" if module.startswith("np") else f"np.{name}"
        f_name = hints.F_NAMES.get((name, "__call__"), name) if module == "np" else None
        raise TypeError(hints.numpy_refusal(label, f_name, "(...)"))

    # -- == and !=: identity between graph nodes, refused against a value ---------------
    def __eq__(self, other: object) -> Any:
        """``x == y`` between Variables: are they the same graph node? (identity, as DeZero)

        Written against a value (``loss == 0``, ``y == 9.0``, ``x == np.ones(3)``, a list
        or a tensor), identity would always answer ``False``, silently, so that is
        refused. Where Python compares for a container (``x in [1.0, x]``,
        ``lst.index(x)``) and for other objects (``None``), identity it is. A Variable
        stays hashable by identity (sets, dict keys).

        Raises:
            TypeError: for ``==`` written with a value on the other side; the message
                names ``x.item() == value`` and ``x.data == value``.
        """
        if isinstance(other, Refusals):
            return self is other
        if _is_value(other) and _written_equality(sys._getframe(1)):
            raise TypeError(_equality_refusal(self, other, "=="))
        return NotImplemented

    def __ne__(self, other: object) -> Any:
        """``x != y``: the negation of ``x == y`` (refused against a value, as ``==``)."""
        if isinstance(other, Refusals):
            return self is not other
        if _is_value(other) and _written_equality(sys._getframe(1)):
            raise TypeError(_equality_refusal(self, other, "!="))
        return NotImplemented

    __hash__ = object.__hash__  # defining __eq__ would otherwise remove it

    # -- operators without an op: refused with a message that says what to do ----------
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

    def __mod__(self, other: Any) -> Any:
        """Refused: minitorch has no modulo op (``TypeError`` naming ``x.data % ...``)."""
        raise TypeError(_no_op_refusal("%", "modulo", self, other))

    def __rmod__(self, other: Any) -> Any:
        """Refused: ``a % x``, as :meth:`__mod__`."""
        raise TypeError(_no_op_refusal("%", "modulo", other, self))

    def __floordiv__(self, other: Any) -> Any:
        """Refused: minitorch has no floor division op (``x.data // ...`` instead)."""
        raise TypeError(_no_op_refusal("//", "floor-division", self, other))

    def __rfloordiv__(self, other: Any) -> Any:
        """Refused: ``a // x``, as :meth:`__floordiv__`."""
        raise TypeError(_no_op_refusal("//", "floor-division", other, self))


class _TorchSpelling:
    """A class attribute of Variable for a PyTorch name it lacks: reading it raises.

    ``x.detach`` raises an ``AttributeError`` naming the minitorch spelling, so ``hasattr``
    stays ``False`` as for any missing attribute. A descriptor, not ``__getattr__``: the
    core reads unset slots with ``getattr(x, "_leaf_state", ...)`` on every Function call,
    and a ``__getattr__`` would run (and cost about 2 µs) on each of those failed lookups.
    """

    def __init__(self, name: str, hint: str, library: str = "PyTorch") -> None:
        self.name, self.hint, self.library = name, hint, library

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        if obj is None:  # Variable.detach (introspection, docs): the descriptor itself
            return self
        raise AttributeError(
            f"'{type(obj).__name__}' object has no attribute '{self.name}' (a "
            f"{self.library} name); in minitorch {self.hint}"
        )


for _name, _hint in hints.TORCH_SPELLINGS.items():
    setattr(Refusals, _name, _TorchSpelling(_name, _hint))
for _name, _hint in hints.DEZERO_SPELLINGS.items():
    setattr(Refusals, _name, _TorchSpelling(_name, _hint, "DeZero"))


def _is_value(other: object) -> bool:
    """A number, array, list/tuple or tensor: what ``x == other`` is meant to compare with."""
    return isinstance(other, (numbers.Number, np.generic, np.ndarray, list, tuple)) or (
        hasattr(type(other), "__array__") and not isinstance(other, Refusals)
    )


def _written_equality(frame: Any) -> bool:
    """Is ``frame`` running an ``==``/``!=`` the user wrote (not ``in``, ``list.index``)?"""
    return _current_comparison(frame) in ("==", "!=")


def _equality_refusal(var: Refusals, other: Any, symbol: str) -> str:
    """The message for ``x == 9.0``, ``loss != 0``, ``a == x``: compare the values."""
    kind = type(other).__name__
    if isinstance(other, np.generic) or (isinstance(other, np.ndarray) and other.ndim == 0):
        kind = "a NumPy number"  # NumPy hands a scalar to __array_ufunc__ as a 0-d array
    elif isinstance(other, np.ndarray):
        kind = f"an ndarray of shape {other.shape}"
    data = var.data
    shape = data.shape if isinstance(data, np.ndarray) else None
    item = "x.item()" if isinstance(data, np.ndarray) and data.size == 1 else "x.data"
    return (
        f"'{symbol}' between a Variable of shape {shape} and {kind}: for Variables, == asks "
        "whether two are the same graph node (identity), so against a value it would "
        f"always be {symbol == '!='}. Compare the values instead: {item} {symbol} value "
        "(np.allclose(x.data, value) for floats computed two ways)"
    )


#: The comparison ufuncs an ndarray's ``a < x`` calls, with their operators.
_COMPARISON_UFUNCS = {"less": "<", "less_equal": "<=", "greater": ">", "greater_equal": ">="}
#: Each comparison and its mirror: Python runs ``1 < x`` as ``x.__gt__(1)``.
_MIRRORED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _comparison_refusal(var: Refusals, other: Any, symbol: str, caller: Any) -> str:
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
    """The ordering operator (``<`` ...) of the instruction ``frame`` is running, if any."""
    text = _current_comparison(frame)
    return text if text in _MIRRORED else None  # not operator.gt(x, 1), sorted([x, y])


def _current_comparison(frame: Any) -> str | None:
    """The operator of the comparison instruction ``frame`` is running, if it is one."""
    import dis

    try:
        for instruction in dis.get_instructions(frame.f_code):
            if instruction.offset == frame.f_lasti:
                if instruction.opname != "COMPARE_OP":
                    return None
                return instruction.argrepr.removeprefix("bool(").removesuffix(")")
    except (AttributeError, TypeError, ValueError):
        return None
    return None


def _operand_kind(value: Any) -> str:
    """``a Variable of shape (3,)``, ``int``, ``an ndarray of shape (2,)``."""
    if isinstance(value, Refusals):
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
        v.name if isinstance(v, Refusals) and isinstance(v.name, str) and v.name.isidentifier()
        else None
        for v in (left, right)
    ]  # fmt: skip
    spare = (n for n in ("x", "y", "z") if n not in own)
    texts = []
    for value, name in zip((left, right), own):
        if isinstance(value, Refusals):
            texts.append(f"{name or next(spare)}.data")
        elif isinstance(value, (bool, int, float)) and len(repr(value)) <= 12:
            texts.append(repr(value))
        elif isinstance(value, np.generic) and len(str(value)) <= 12:
            texts.append(str(value))
        else:
            texts.append("a")
    return texts
