"""Hints for the errors a student's code raises in a check: the Variable/ndarray mix-ups
(:func:`type_hint`), the shapes a backward received, the attribute that does not exist.

Used by :func:`checks_core.explain_errors`; it imports nothing from the other checks.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

import numpy as np


def _raw_arrays_message(what: str, error: str) -> str:
    """The engine refused a backward computed on raw arrays: say it as notebook 06 would."""
    kind = " (this is an ndarray, not a Variable)" if "is a ndarray" in error else ""
    return (
        f"almost there: {what}: a gradient computed on raw NumPy arrays{kind} is a "
        "constant: backward(create_graph=True) cannot differentiate it\n"
        "  hint: use Variables (self.inputs, gy) and minitorch ops: no `.data`, no np.*"
    )


def _shorten(text: str, limit: int = 190) -> str:
    """``text`` cut at a word boundary to at most ``limit`` characters (two lines).

    minitorch's messages end with the fix after a last ``"; "``: that part is kept
    whole when it is short, and the middle is cut instead.
    """
    if len(text) <= limit:
        return text
    head, _, fix = text.rpartition("; ")
    if head and len(fix) <= limit * 2 // 3:
        return _cut(head, limit - len(fix) - 4) + "; " + fix
    return _cut(text, limit)


def _cut(text: str, limit: int) -> str:
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > 0 else limit] + " …"


#: The operator each reflected method answers (``2 * x`` calls ``x.__rmul__(2)``), and
#: a way to write it that does not call it again.
_REFLECTED = {
    "__radd__": ("+", "self + other (addition commutes)"),
    "__rmul__": ("*", "self * other (multiplication commutes)"),
    "__rsub__": ("-", "-self + other, or turn other into your type first, then subtract"),
    "__rtruediv__": ("/", "turn other into your type first, then divide"),
    "__rpow__": ("**", "turn other into your type first, then raise it to self"),
    "__rmatmul__": ("@", "turn other into your type first, then multiply"),
}


def type_hint(err: BaseException, line: str = "", frame: Any = None) -> str:
    """One line of guidance for an error that comes from mixing Variables and ndarrays.

    Read from the exception's *type* and the student's line and values, never from the
    wording of a library's message: ``line`` is the student's source line and ``frame``
    its frame, whose names tell which values on the line are Variables. Returns ``""``
    for any other error.

    Example:
        >>> import sys
        >>> from minitorch import Variable
        >>> x = Variable(np.ones(2))
        >>> try:
        ...     np.exp(x)
        ... except TypeError as err:
        ...     frame = sys._getframe()
        ...     type_hint(err, "y = np.exp(x)", frame)
        'this is a Variable: NumPy functions need arrays; use F.exp(...) on Variables'
        >>> type_hint(AttributeError("no", name="creator", obj=np.ones(2)))
        'this is an ndarray, not a Variable: it has no creator; wrap it with Variable(...) or compute it with minitorch ops (F.<op>)'
    """  # noqa: E501
    if (
        isinstance(err, RecursionError)
        and frame is not None
        and (frame.f_code.co_name.startswith("__r") and frame.f_code.co_name.endswith("__"))
    ):
        name = frame.f_code.co_name
        symbol, fix = _REFLECTED.get(name, ("<op>", "it with self on the left"))
        return f"{name} calls itself without end: other {symbol} self calls it again; write {fix}"
    if isinstance(err, RecursionError):
        return (
            "your code calls itself too deeply (recursion): use a loop and an explicit stack "
            "(a list)"
        )
    if isinstance(err, AttributeError):
        return _attribute_hint(err)
    if isinstance(err, NameError) and frame is not None and err.name not in frame.f_globals:
        return f"{err.name} is not defined anywhere: a typo, or a cell that has not run yet?"
    if isinstance(err, NameError) and frame is not None and frame.f_code.co_name != "<module>":
        return (
            f"{getattr(err, 'name', 'a name')} is not defined inside {frame.f_code.co_name}: "
            "names of another method or cell are not visible there; compute it in this one"
        )
    code = _code_only(line)
    if isinstance(err, TypeError) and re.search(r"[^\^]\^[^\^=]", code):
        return "in Python ^ is XOR (bits), not a power: write x**3"
    values = _values_on(line, frame) if line else list(getattr(frame, "f_locals", {}).values())
    if isinstance(err, TypeError | AttributeError) and code.lstrip().startswith("with "):
        if any(inspect.isroutine(v) for v in values) and "()" not in code:
            return "a `with` needs the context manager itself: call the function, with no_grad():"
    if isinstance(err, TypeError) and any(isinstance(v, memoryview) for v in values):
        return "this is an ndarray already (forward receives arrays): drop the .data"
    from minitorch import Variable

    if not isinstance(err, TypeError | ValueError) or not any(
        isinstance(v, Variable)
        or (isinstance(v, list | tuple) and any(isinstance(u, Variable) for u in v))
        for v in values
    ):
        return ""
    if any(
        isinstance(v, list | tuple) and v and all(isinstance(u, Variable) for u in v)
        for v in values
    ):
        return "this is a list of Variables: take its elements, (x,) = self.inputs or x0, x1 = ..."
    if not code:  # no source (plain exec): the values alone say a Variable was involved
        return (
            "this is a Variable: NumPy functions, comparisons and ndarrays need its .data; "
            "use F ops to keep the gradient"
        )
    from minitorch import Function

    classes = [v for v in values if isinstance(v, type) and issubclass(v, Function)]
    if isinstance(err, TypeError) and any(
        re.search(rf"\b{c.__name__}\([^)]", code) for c in classes
    ):
        name = next(c.__name__ for c in classes if re.search(rf"\b{c.__name__}\([^)]", code))
        return f"{name}() makes a Function and a second call applies it: {name}()(x)"
    if isinstance(err, ValueError) and ("@" in code or "matmul" in code):
        return _backward_shapes(frame) or (
            "the shapes do not fit the product: (a, b) @ (b, c) gives (a, c); check order and .T"
        )
    if isinstance(err, ValueError) and re.search(r"[^*]\*[^*]", code):
        return "* multiplies elementwise; a matrix product is @ (F.matmul)"
    if re.search(r"\bVariable\(", code) and isinstance(err, TypeError):
        return "Variable(...) wraps an ndarray; this is a Variable already: use its .data"
    name = re.search(r"\bnp\.(\w+)\(", code)
    if name and name.group(1) in ("asarray", "array", "asanyarray"):
        return "this is a Variable: its ndarray is .data"
    if name:
        import minitorch.ops as F

        op = name.group(1)
        if hasattr(F, op):
            return f"this is a Variable: NumPy functions need arrays; use F.{op}(...) on Variables"
        return f"this is a Variable; minitorch has no np.{op}: use operators (1 / x, x * x), F ops"
    if re.search(r"(?<![=!<>])[<>]=?(?!=)|==|!=", code):
        return "this is a Variable: use .data to compare its values (an ndarray)"
    if re.search(r"%|//", code):
        return "this is a Variable: use .data for % and // (an ndarray; no gradient)"
    if re.search(r"\b(float|int|math\.\w+)\(", code):
        return "this is a Variable: use .data (an ndarray) or .item() (a number)"
    if re.search(r"(\.data|\])\s*[-+*/]?=(?!=)", code):
        return "this is a Variable: an ndarray can only take arrays; use its .data"
    return ""


def _backward_shapes(frame: Any) -> str:
    """In a Function's backward: the shapes of gy and of the inputs, which the gradients
    must have (``""`` elsewhere)."""
    if frame is None or frame.f_code.co_name != "backward":
        return ""
    inputs = getattr(frame.f_locals.get("self"), "inputs", None)
    gy = frame.f_locals.get("gy")
    if not inputs or gy is None:
        return ""
    shapes = ", ".join(str(tuple(np.shape(getattr(u, "data", u)))) for u in inputs)
    return (
        f"(a, b) @ (b, c) gives (a, c): gy is {tuple(np.shape(getattr(gy, 'data', gy)))}, and "
        f"each gradient has its input's shape, {shapes}"
    )


def _attribute_hint(err: AttributeError) -> str:
    """A hint for ``obj.name`` on the wrong kind of object (Python's ``obj``/``name``)."""
    obj, attr = getattr(err, "obj", None), getattr(err, "name", None)
    from minitorch import Variable

    function_only = {"inputs", "outputs", "backward_array", "forward", "generation", "output"}
    if isinstance(obj, Variable) and attr in function_only:
        return "this is a Variable, not a Function: a Variable's Function is its .creator"
    if isinstance(obj, memoryview):
        return "this is an ndarray already (forward receives arrays): drop the .data"
    if isinstance(obj, np.ndarray | np.generic) and attr:
        kind = "an ndarray" if isinstance(obj, np.ndarray) else "a NumPy number"
        return (
            f"this is {kind}, not a Variable: it has no {attr}; wrap it with "
            "Variable(...) or compute it with minitorch ops (F.<op>)"
        )
    return ""


def _code_only(line: str) -> str:
    """``line`` without its string literals and comment (so "<" in a string is no op)."""
    return re.sub(r"#.*$", "", re.sub(r"(\"[^\"]*\"|'[^']*')", "''", line))


def _values_on(line: str, frame: Any) -> list[Any]:
    """The values of the names and attribute chains on ``line`` (``x``, ``x.data``)."""
    if frame is None:
        return []
    scope, values, code = {**frame.f_globals, **frame.f_locals}, [], _code_only(line)
    for match in re.finditer(r"\b([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)", code):
        parts = match.group(1).split(".")
        if parts[0] not in scope:
            continue
        chain: list[Any] = [scope[parts[0]]]
        for attr in parts[1:]:
            if inspect.isroutine(chain[-1]):
                break
            try:
                chain.append(getattr(chain[-1], attr))
            except Exception:
                break
        if code[match.end() :].lstrip().startswith("[") and isinstance(chain[-1], list | tuple):
            chain[-1:] = list(chain[-1])  # subscripted: its elements are on the line
        values.extend(chain)
    return values
