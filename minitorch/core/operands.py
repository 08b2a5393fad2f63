"""The operand rule: how numbers, lists and ndarrays become a Function's inputs.

``Function.__call__`` hands every operand that is not a Variable to :func:`as_inputs`,
which applies one dtype rule, NumPy 2's (NEP 50), so that ``op(x, 2)`` has the dtype and
values NumPy gives ``x.data`` with ``2``; :func:`as_constant` is how ops keep indices,
masks and bounds. The messages of a refused operand name the op and the operand as the
user wrote them.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy as np

from minitorch.core.config import _state
from minitorch.core.numpy_hints import is_masked, masked_message
from minitorch.core.variable import COMPLEX_HINT, NUMERIC_KINDS, Variable, wrap

if TYPE_CHECKING:
    from minitorch.core.function import Function


def as_inputs(inputs: tuple[Any, ...], func: Function) -> list[Variable]:
    """Every operand as a Variable: Variables as they are, anything else as a constant.

    One dtype rule, NumPy 2's (NEP 50), so that ``op(x, 2)`` has the dtype and values
    NumPy gives ``x.data`` with ``2``:

    * a Python ``bool``, ``int``, ``float`` or ``complex`` (exactly these types) is "weak":
      it takes the dtype the Function's :attr:`Function.ufunc` converts it to next to the
      other operands (``np.add``: ``int8_x + 3`` stays int8; ``np.true_divide``:
      ``int8_x / 300`` divides in float64), or, for a Function without a ufunc, the dtype
      ``np.result_type`` gives it (``float32_x * 0.99`` stays float32);
    * everything else (ndarrays, lists, NumPy scalars, and subclasses of int or float such
      as an ``enum.IntEnum``, which NumPy converts like arrays) keeps its own dtype; it is
      copied while a graph may be recorded (:func:`as_constant`).

    Raises:
        TypeError: for an operand that is not numeric, or a ``numpy.ma`` masked array
            (names the op and the operand).
        OverflowError: for a Python int out of range of the dtype it is to take
            (``int8_x + 300``, ``x + 10**19``), where NumPy 2 raises too; the message names
            the op, the operand and the dtype.
    """
    if len(inputs) == 2:  # `x * 0.99`, `2 * x`, `1 - x`: the commonest cases, answered first
        x0, x1 = inputs  # a Python int or float next to a float array takes its dtype
        if type(x1) in _INT_OR_FLOAT and isinstance(x0, Variable) and x0.data.dtype.kind == "f":
            if func.ufunc is None or func.ufunc in _FLOAT_LOOPS:
                constant = _CONSTANT_ARRAYS.get((type(x1), x1, x0.data.dtype))  # seen before
                if constant is None:
                    constant = _number_array(func, 1, x1, x0.data.dtype)
                return [x0, wrap(constant, False)]
        elif type(x0) in _INT_OR_FLOAT and isinstance(x1, Variable) and x1.data.dtype.kind == "f":
            if func.ufunc is None or func.ufunc in _FLOAT_LOOPS:
                constant = _CONSTANT_ARRAYS.get((type(x0), x0, x1.data.dtype))
                if constant is None:
                    constant = _number_array(func, 0, x0, x1.data.dtype)
                return [wrap(constant, False), x1]
    xs: list[Any] = []
    has_number = False
    for i, x in enumerate(inputs):
        if isinstance(x, Variable):
            xs.append(x)
        elif type(x) in _PYTHON_NUMBERS:  # converted below, once all other dtypes are known
            if type(x) is complex:
                raise TypeError(
                    f"{type(func).__name__}: operand {written(func, i)} is {x!r}" + COMPLEX_HINT
                )
            xs.append(x)
            has_number = True
        else:
            xs.append(wrap(_operand_array(func, inputs, i), False))  # checked: numeric
    if has_number:
        dtypes = _weak_dtypes(func.ufunc, tuple([_kind(x) for x in xs]))
        for i, x in enumerate(xs):
            if not isinstance(x, Variable):
                xs[i] = Variable(_number_array(func, i, x, dtypes[i]), requires_grad=False)
    return xs


def as_constant(value: Any, what: str, dtype: Any = None, copy: bool = True) -> np.ndarray:
    """An operand, index, mask, condition or bound as the ndarray a Function keeps.

    A Function keeps these until its backward (and ``viz`` shows them), so by default
    they are copied: the graph holds the forward point, and editing the caller's array
    (or a Variable's ``.data``) before backward can move neither a gradient nor a mask.
    ``copy=False`` (nothing is recorded, under ``no_grad()``) shares memory where NumPy
    can. A Variable gives its ``data`` (a constant: no gradient flows through it).

    Args:
        value: a Variable, ndarray, list, memoryview, NumPy scalar ...
        what: how messages name the value, e.g. ``"where: condition"``.
        dtype: an optional dtype to convert to (``bool`` for a condition).
        copy: copy always (the default), or only where NumPy must.

    Raises:
        TypeError: for a ``numpy.ma`` masked array, whose mask would be dropped (the
            message names ``what`` and says to use ``m.filled(value)``).
    """
    if isinstance(value, Variable):
        value = value.data
    elif is_masked(value):
        raise TypeError(masked_message(what, value))
    return np.array(value, dtype=dtype, copy=True if copy else None)


def _operand_array(func: Function, inputs: tuple[Any, ...], index: int) -> np.ndarray:
    """The constant array of an operand that is neither a Variable nor a Python number."""
    x = inputs[index]
    if is_masked(x):  # refused before the conversion below turns errors into type errors
        raise TypeError(masked_message(_operand_name(func, index), x))
    try:  # as_constant, without its checks of a Variable and a masked array (done)
        array = np.array(x, copy=True if _state.get().enable_backprop else None)
    except (TypeError, ValueError) as exc:
        raise TypeError(_operand_message(func, inputs, x)) from exc
    kind = array.dtype.kind
    if kind == "c":
        raise TypeError(f"{_operand_name(func, index)} has dtype {array.dtype}" + COMPLEX_HINT)
    if kind not in NUMERIC_KINDS:
        raise TypeError(_operand_message(func, inputs, x))
    return array


def _operand_name(func: Function, index: int) -> str:
    return f"{type(func).__name__}: operand {written(func, index)}"


#: The Python number types NumPy 2 treats as weak (NEP 50) — exactly these, not their
#: subclasses: ``np.float64`` and an ``enum.IntEnum`` member are converted like arrays.
_PYTHON_NUMBERS = frozenset({bool, int, float, complex})
_INT_OR_FLOAT = frozenset({int, float})  # exactly these types (bool is not one of them)
#: The ufuncs whose loop for (float array, Python int or float) is the float dtype: the
#: fast path of ``as_inputs`` converts the number straight to the array's dtype.
_FLOAT_LOOPS = frozenset(
    {np.add, np.subtract, np.multiply, np.true_divide, np.power, np.maximum, np.minimum}
)

# The 0-d arrays of Python-number operands, shared and read-only: ``y * 0.99`` in a loop
# converts 0.99 once. Each op still gets a Variable of its own (graphs draw one node per
# use). Zero and NaN are not cached: -0.0 == 0.0 and nan != nan as dictionary keys.
_CONSTANT_ARRAYS: dict[tuple[Any, Any, np.dtype[Any]], np.ndarray] = {}


def _constant_array(value: Any, dtype: np.dtype[Any]) -> np.ndarray:
    """``np.asarray(value, dtype)`` for a Python number, read-only, cached."""
    if not value or value != value:
        return np.asarray(value, dtype)
    key = (type(value), value, dtype)
    array = _CONSTANT_ARRAYS.get(key)
    if array is None:
        array = np.asarray(value, dtype)
        array.flags.writeable = False
        if len(_CONSTANT_ARRAYS) >= 1024:  # a loop over many different numbers
            _CONSTANT_ARRAYS.clear()
        _CONSTANT_ARRAYS[key] = array
    return array


def _number_array(func: Function, index: int, value: Any, dtype: np.dtype[Any]) -> np.ndarray:
    """The constant of the Python-number operand ``index``, or a clear OverflowError.

    NumPy 2 refuses a Python int that the dtype it is to take cannot hold (``int8 + 300``
    is an ``OverflowError``, not a silent wrap-around or a wider dtype); so does this, and
    says which op, which operand and which dtype.
    """
    try:
        return _constant_array(value, dtype)
    except OverflowError:
        shown = f"{value!r:.40}" + ("..." if len(repr(value)) > 40 else "")
        if dtype.kind in "iub" and -(2**63) <= value < 2**63:
            fix = (
                "convert the Variable first (x.astype(np.int64), or to float), or pass "
                f"the number with the dtype you mean (np.int64({shown}))"
            )
        elif dtype.kind in "iub":  # not even int64 holds it
            fix = "convert the Variable to float first (x.astype(float)), or pass a float"
        else:
            fix = "use a float (it rounds to the nearest one, or to inf) instead of the int"
        # NumPy's ufuncs raise here too; np.where and others silently wrap the number.
        numpy = ", and NumPy raises OverflowError here too" if func.ufunc is not None else ""
        raise OverflowError(
            f"{type(func).__name__}: operand {written(func, index)}, the Python "
            f"{type(value).__name__} "
            f"{shown}, is out of range for {dtype}, the dtype it takes next to the other "
            f"operand(s) (NumPy 2, NEP 50){numpy}; {fix}"
        ) from None


@functools.cache
def _weak_dtypes(ufunc: Any, kinds: tuple[Any, ...]) -> tuple[Any, ...]:
    """The dtype each operand takes: ``kinds`` holds a dtype, or a Python number's type.

    With a ufunc, its own resolution decides (``ufunc.resolve_dtypes``, where the types
    ``int``, ``float`` and ``complex`` stand for weak Python scalars): the dtypes of the
    loop NumPy would run. Without one, or where no loop fits (forward then raises
    NumPy's own error), a number takes ``np.result_type`` of its type and the arrays'
    dtypes. Under NEP 50 only the type matters, not the value, so the answer is cached
    per (ufunc, kinds) — ``x * 0.99`` in a loop asks NumPy once.
    """
    if isinstance(ufunc, np.ufunc) and ufunc.nin == len(kinds) and None not in kinds:
        # A Python bool is no weak scalar in NEP 50: it is np.bool_ (the lowest type).
        signature = tuple([np.dtype(bool) if k is bool else k for k in kinds])
        try:
            return tuple(ufunc.resolve_dtypes(signature + (None,) * ufunc.nout)[: ufunc.nin])
        except (TypeError, ValueError):
            pass
    strong = [k for k in kinds if isinstance(k, np.dtype)]
    return tuple([_result_type(k, strong) if isinstance(k, type) else k for k in kinds])


def _result_type(kind: Any, dtypes: list[np.dtype[Any]]) -> np.dtype[Any]:
    """``np.result_type`` of a (weak) Python number of type ``kind`` and ``dtypes``."""
    return np.result_type(kind(0), *dtypes) if dtypes else np.asarray(kind(0)).dtype


def _kind(x: Any) -> Any:
    """An operand's part in the dtype rule: a Python number's type, or a Variable's dtype.

    ``None`` stands for a Variable without data (its op fails in forward).
    """
    if not isinstance(x, Variable):
        return type(x)
    return None if x.data is None else x.data.dtype


def _operand_message(func: Function, inputs: tuple[Any, ...], x: Any) -> str:
    index = written(func, next(i for i, v in enumerate(inputs) if v is x))
    return (
        f"{type(func).__name__}: operand {index} has unsupported type {type(x).__name__} "
        f"({x!r:.40}); use a Variable, an ndarray, a number or a list of numbers"
    )


def written(func: Function, index: int) -> int:
    """The number of operand ``index`` as the user wrote it.

    ``2 * x`` runs as ``x.__rmul__(2)``, and a commutative op keeps ``x`` as input 0
    (``func.reflected`` is then true); the messages say operand 0 for the ``2``, the
    left operand, as written.
    """
    return 1 - index if func.reflected and index in (0, 1) else index
