"""The hint tables of the NumPy refusals, and the masked-array checks.

What :class:`~minitorch.core.refusals.Refusals` needs to say what to use instead of a
NumPy function or ufunc given a Variable (``np.sum`` -> ``F.sum``), and the refusal of
``numpy.ma`` masked arrays, whose mask minitorch's ops would silently drop.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

# The ufuncs that ndarray's and NumPy scalars' operators call (``a + x`` runs
# ``np.add(a, x)``), with the Variable methods that compute them: (x op b, a op x).
OPERATOR_UFUNCS = {
    "add": ("__add__", "__radd__"),
    "subtract": ("__sub__", "__rsub__"),
    "multiply": ("__mul__", "__rmul__"),
    "divide": ("__truediv__", "__rtruediv__"),
    "power": ("__pow__", "__rpow__"),
    "matmul": ("__matmul__", "__rmatmul__"),
}
# Every ufunc an operator of ndarray can call, with its symbol (for messages).
OPERATOR_SYMBOLS = {
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
F_NAMES: dict[tuple[str, str], str | None] = {
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
NUMPY_FUNCTIONS_THAT_WORK = frozenset(
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


def numpy_refusal(label: str, f_name: str | None, args: str) -> str:
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


def check_data_type(data: Any) -> None:
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


def masked_caller_message(frame: Any) -> str | None:
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
        by_dunder = {forward: ufunc for ufunc, (forward, _) in OPERATOR_UFUNCS.items()}
        ufunc_name = by_dunder.get(outer.replace("__i", "__", 1), "")
        op = _UFUNC_OPS.get(ufunc_name, f"numpy.ma's {outer}")
    return masked_message(f"{op}: operand {index}", masked)


# PyTorch Tensor attributes a student may try on a Variable, with the minitorch spelling.
TORCH_SPELLINGS = {
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
    "zero_grad": "use x.clear_grad() (zero_grad() is on optimizers and modules)",
}
# DeZero's, which minitorch's names follow except where PEP 8 asks for an underscore.
DEZERO_SPELLINGS = {
    "cleargrad": "use x.clear_grad()",
}
