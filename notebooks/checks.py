"""Feedback for the exercises of the minitorch course.

Each check either prints one line starting with ``✓`` or raises :class:`CheckFailed` (an
``AssertionError``) with a message that says *what* is wrong and *where*: the first
element that differs, its expected and actual values, the shape that was expected.
nbgrader counts an ``AssertionError`` as a failed test, so the same cells grade a class.

A failing check shows only its message — at most three lines, wrapped to
:data:`WIDTH` columns, no traceback — in Jupyter and in nbgrader's feedback HTML: IPython
asks an exception for ``_render_traceback_()`` before it formats frames, and
:class:`CheckFailed` answers with the message alone. Every check module raises
``CheckFailed(message)``; an ``AssertionError`` raised by a check module inside
:func:`explain_errors` is turned into one.

Only NumPy is needed at import time; the gradient checks import ``minitorch`` when called.
"""

from __future__ import annotations

import inspect
import re
import textwrap
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np


def ok(message: str) -> None:
    """Print a success line.

    Example:
        >>> ok("Cube computes x**3")
        ✓ Cube computes x**3
    """
    print(f"✓ {message}")


#: The column at which a failure message is wrapped: nbgrader's feedback HTML shows error
#: output in a ``<pre>`` that does not wrap, and about 100 columns fit at 1280x720.
WIDTH = 100


class CheckFailed(AssertionError):
    r"""A check that failed: its message is the whole feedback.

    An ``AssertionError``, so nbgrader counts it as a failed test. In IPython (Jupyter,
    nbgrader's autograde) it is shown as its message alone, in red, wrapped at
    :data:`WIDTH` columns: no frames of the checks, of ``contextlib`` or of the student's
    cell (the message names the student's line itself). Messages are written to fit in
    three lines: what is wrong (and where), optionally the student's line, and a hint.

    Example:
        >>> CheckFailed("y differs at index 2: expected 3, got 3.5")._render_traceback_()
        ['\x1b[31m✗ y differs at index 2: expected 3, got 3.5\x1b[0m']
    """

    def _render_traceback_(self) -> list[str]:
        """The lines IPython shows instead of a traceback (its documented hook)."""
        return [f"\x1b[31m{line}\x1b[0m" for line in render(str(self))]


def render(message: str, width: int = WIDTH) -> list[str]:
    r"""The lines a failure ``message`` is shown as: ``✗`` in front, wrapped at ``width``.

    Continuation lines are indented under the text of the line they continue.

    Example:
        >>> render("a differs\n  hint: b", width=20)
        ['✗ a differs', '  hint: b']
    """
    lines: list[str] = []
    for k, line in enumerate(message.splitlines() or [""]):
        text = f"✗ {line}" if k == 0 else line
        indent = " " * (len(text) - len(text.lstrip()) + 2)
        lines.extend(textwrap.wrap(text, width, subsequent_indent=indent) or [""])
    return lines


NOT_DONE = (
    "this exercise is not done yet: replace `raise NotImplementedError()` above with your "
    "code, run that cell (fix any error it shows), then this one"
)


class NotDoneYet(CheckFailed):
    """The check of an exercise whose stub has not been replaced yet.

    A :class:`CheckFailed`, so nbgrader counts it as a failed test like any other.
    """


def check_done(**answers: Any) -> None:
    """Fail with "not done yet" if any answer is still ``None`` (its template value).

    An exercise that asks for values (``ga = gx = None`` above the solution) calls this
    first, so an untouched exercise is reported as such instead of comparing a stale value
    left by an earlier cell.

    Raises:
        NotDoneYet: naming the answers that are still ``None``.

    Example:
        >>> try:  # doctest: +NORMALIZE_WHITESPACE
        ...     check_done(ga=1.0, gx=None)
        ... except NotDoneYet as err:
        ...     print(err)
        gx is still None: this exercise is not done yet: replace `raise NotImplementedError()`
        above with your code, run that cell (fix any error it shows), then this one
    """
    missing = [name for name, value in answers.items() if value is None]
    if missing:
        names = ", ".join(missing)
        verb = "are" if len(missing) > 1 else "is"
        raise NotDoneYet(f"{names} {verb} still None: {NOT_DONE}")


@contextmanager
def explain_errors(what: str, *hints: tuple[str, str]) -> Iterator[None]:
    """Turn an exception from the student's code into a :class:`CheckFailed` with guidance.

    The message names the exception, the student's line that raised it, and the first
    hint whose ``pattern`` occurs in ``"ErrorType: message"``; without one, the usual
    Variable/ndarray mix-ups get a one-line hint of their own (:func:`type_hint`).
    A :class:`CheckFailed` passes unchanged (and an ``AssertionError`` raised by a check
    module becomes one); the stub's bare
    ``NotImplementedError()`` becomes :class:`NotDoneYet` ("this exercise is not done
    yet").

    Args:
        what: the call being checked ("count_functions(y)").
        hints: ``(pattern, hint)`` pairs.

    Example:
        >>> try:
        ...     with explain_errors("f(x)", ("NoneType", "did f return its result?")):
        ...         None.inputs
        ... except CheckFailed as err:
        ...     print(err)
        f(x) failed: AttributeError: 'NoneType' object has no attribute 'inputs'
          in <module>: `None.inputs`
          hint: did f return its result?
    """
    try:
        yield
    except CheckFailed:
        raise
    except AssertionError as err:  # a check module's plain assert / AssertionError
        if _raised_by_a_check(err):
            raise CheckFailed(str(err)) from None
        raise
    except NotImplementedError as err:
        if not str(err):  # the stub's bare `raise NotImplementedError()`
            raise NotDoneYet(f"{what}: {NOT_DONE}") from None
        raise CheckFailed(f"{what} failed: NotImplementedError: {err}") from None
    except Exception as err:
        if isinstance(err, RuntimeError) and _RAW_ARRAYS in str(err):
            raise CheckFailed(_raw_arrays_message(what, str(err))) from None
        text = f"{type(err).__name__}: {' '.join(str(err).split())}"  # one line
        frame, source = _student_frame(err)
        room = WIDTH - len(f"  in {frame.f_code.co_name if frame else ''}: ``")
        shown = source if len(source) <= room else source[: max(room - 3, 20)] + "..."
        line = f"\n  in {frame.f_code.co_name}: `{shown}`" if frame and source else ""
        hint = next((h for pattern, h in hints if pattern in text), "")
        hint = hint or type_hint(err, source, frame)
        hint = f"\n  hint: {hint}" if hint else ""
        tail = line + hint
        for limit in (190, 120, 70, 0):  # the exception's text gives way to line and hint
            message = f"{what} failed: {_shorten(text, limit) if limit else type(err).__name__}"
            if len(render(message + tail)) <= 3:
                break
        if len(render(message + tail)) > 3 and frame and source:
            # a two-line hint: the student's line moves up beside the exception's name
            head = f"{what} failed: {type(err).__name__} in {frame.f_code.co_name}: "
            room = WIDTH - len(head) - 4
            shown = source if len(source) <= room else source[: max(room - 3, 0)] + "..."
            message, tail = (head + f"`{shown}`", hint) if room >= 20 else (message, hint)
        raise CheckFailed(message + tail) from None


#: What the engine says when backward(create_graph=True) meets a backward on raw arrays.
_RAW_ARRAYS = "would give silent zeros"


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


def check_is_variable(name: str, value: Any) -> None:
    """Assert that ``value`` is a minitorch ``Variable``, with a one-line hint otherwise.

    Raises:
        CheckFailed: "... is an ndarray: use F.<op> ..." for an array, "... is None:
            did you forget to return" for ``None``.

    Example:
        >>> try:
        ...     check_is_variable("your gradient", np.ones(2))
        ... except CheckFailed as err:
        ...     print(err)
        your gradient is an ndarray, not a Variable: compute it with minitorch ops (F.<op>, +, *) on Variables, not with NumPy or .data
    """  # noqa: E501
    from minitorch import Variable

    if isinstance(value, Variable):
        return
    if value is None:
        raise CheckFailed(f"{name} is None: did you forget to `return` the result?")
    from minitorch import Function

    if isinstance(value, Function):
        kind = type(value).__name__
        raise CheckFailed(f"{name} is a {kind} Function, not its result: apply it, {kind}()(x)")
    if isinstance(value, np.ndarray | np.generic | float | int):
        kind = "an ndarray" if isinstance(value, np.ndarray) else "a number"
        raise CheckFailed(
            f"{name} is {kind}, not a Variable: compute it with minitorch ops (F.<op>, +, *) "
            "on Variables, not with NumPy or .data"
        )
    raise CheckFailed(f"{name} should be a Variable, got {type(value).__name__}")


def check_is_array(name: str, value: Any) -> None:
    """Assert that ``value`` is a NumPy ndarray, with a one-line hint for a Variable.

    Example:
        >>> from minitorch import Variable
        >>> try:
        ...     check_is_array("your estimate", Variable(np.ones(2)))
        ... except CheckFailed as err:
        ...     print(err)
        your estimate is a Variable: use .data to get its ndarray
    """
    if isinstance(value, np.ndarray):
        return
    if value is None:
        raise CheckFailed(f"{name} is None: did you forget to `return` the result?")
    if hasattr(value, "creator") and hasattr(value, "data"):
        raise CheckFailed(f"{name} is a Variable: use .data to get its ndarray")
    if isinstance(value, np.generic | float | int):
        raise CheckFailed(f"{name} is a single number ({type(value).__name__}), not an ndarray")
    raise CheckFailed(f"{name} should be an ndarray, got {type(value).__name__}")


@contextmanager
def time_limit(seconds: float, message: str) -> Iterator[None]:
    """Fail with ``message`` if the block runs longer than ``seconds`` (a loop that never ends).

    Uses ``SIGALRM``, so it works in the main thread on Linux and macOS (where Jupyter runs
    cells); elsewhere the block simply runs without a limit.

    Raises:
        CheckFailed: with ``message`` when the time is up.

    Example:
        >>> with time_limit(5, "too slow"):
        ...     sum(range(10))
        45
    """
    import signal
    import threading

    if (
        not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise CheckFailed(message)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


_LIBRARY_MARKERS = ("site-packages", "/minitorch/", "/numpy/")


def _raised_by_a_check(err: BaseException) -> bool:
    """True if ``err`` was raised in a check module (a ``checks*.py`` beside this file)."""
    frames = traceback.extract_tb(err.__traceback__)
    if not frames:
        return False
    path = Path(frames[-1].filename)
    return path.parent == Path(__file__).parent and path.name.startswith("checks")


def _student_frame(err: BaseException) -> tuple[Any, str]:
    """The innermost frame outside the libraries and the checks, and its source line."""
    tb, found = err.__traceback__, (None, "")
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename.replace("\\", "/")
        if not (
            Path(filename).parent == Path(__file__).parent
            and Path(filename).name.startswith("checks")
        ) and not any(m in filename for m in _LIBRARY_MARKERS):
            import linecache

            line = linecache.getline(tb.tb_frame.f_code.co_filename, tb.tb_lineno).strip()
            found = (tb.tb_frame, line)
        tb = tb.tb_next
    return found


def _array(name: str, value: Any) -> np.ndarray:
    if value is None:
        raise CheckFailed(f"{name} is None: did you forget to `return` the result?")
    data = getattr(value, "data", value)  # a minitorch Variable or an array
    try:
        return np.asarray(data, dtype=np.float64)
    except (TypeError, ValueError):
        raise CheckFailed(
            f"{name} should be a number or an array, got {type(value).__name__}"
        ) from None


def _index(index: tuple[int, ...]) -> str:
    if len(index) == 0:
        return ""
    return f" at index {index[0]}" if len(index) == 1 else f" at index {index}"


Hint = str | Callable[[np.ndarray, np.ndarray], str]


def check_close(
    name: str,
    got: Any,
    expected: Any,
    atol: float = 1e-6,
    rtol: float = 1e-5,
    hint: Hint = "",
    mistakes: dict[str, Any] | None = None,
) -> None:
    """Assert that ``got`` equals ``expected`` elementwise (within tolerances).

    Args:
        name: what is being checked, used in the messages ("your Cube's forward").
        got: a number, an ndarray or a Variable.
        expected: the reference value.
        atol: absolute tolerance.
        rtol: relative tolerance.
        hint: appended to a failure message; a function ``hint(got, expected)`` of the two
            arrays chooses the hint from the kind of error (see :func:`ratio_hint`).
        mistakes: ``{hint: wrong value}``: when ``got`` equals a wrong value (computed in
            the check, from the mistake it names), that hint is given instead.

    Raises:
        CheckFailed: naming the shape mismatch, or the first differing index with the
            expected and actual values.

    Example:
        >>> try:
        ...     check_close("y", np.array([1.0, 2.0, 3.5]), np.array([1.0, 2.0, 3.0]))
        ... except CheckFailed as err:
        ...     print(err)
        y differs at index 2: expected 3, got 3.5 (1 of 3 elements differ)
    """
    got_array, expected_array = _array(name, got), _array("the reference", expected)
    if got_array.shape != expected_array.shape:
        suffix = "" if callable(hint) or not hint else f"\n  hint: {hint}"
        raise CheckFailed(
            f"{name} has shape {got_array.shape} but should have shape "
            f"{expected_array.shape}{suffix}"
        )
    bad = ~np.isclose(got_array, expected_array, atol=atol, rtol=rtol)
    if bad.any():
        text = _matching_mistake(got_array, expected_array, mistakes or {}, atol, rtol)
        if not text and _opposite(got_array, expected_array, atol, rtol):
            text = (
                "the opposite sign everywhere: a minus sign missing or extra, or a difference "
                "reversed"
            )
        if not text and not callable(hint):
            text = _constant_factor(got_array, expected_array)
        text = text or (hint(got_array, expected_array) if callable(hint) else hint)
        suffix = f"\n  hint: {text}" if text else ""
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise CheckFailed(
            f"{name} differs{_index(index)}: expected {expected_array[index]:.6g}, "
            f"got {got_array[index]:.6g}{_count(bad)}{suffix}"
        )


def _constant_factor(got: np.ndarray, expected: np.ndarray) -> str:
    """ "exactly c times the right value everywhere" when ``got`` is ``c * expected``."""
    nonzero = np.abs(expected) > 1e-12
    if nonzero.sum() < 2 or not np.allclose(got[~nonzero], 0) or not np.all(np.isfinite(got)):
        return ""  # one number is always some multiple of another: say nothing
    ratios = got[nonzero] / expected[nonzero]
    if np.allclose(ratios, ratios[0], rtol=1e-6) and not np.isclose(ratios[0], 1.0):
        return f"exactly {ratios[0]:.4g} times the right value everywhere: a factor is off"
    return ""


def _opposite(got: np.ndarray, expected: np.ndarray, atol: float, rtol: float) -> bool:
    """True if ``got`` is ``-expected`` (and ``expected`` is not zero)."""
    return bool(
        np.any(np.abs(expected) > atol) and np.allclose(got, -expected, atol=atol, rtol=rtol)
    )


def check_forward(name: str, make: Callable[[], Any], *arrays: np.ndarray) -> np.ndarray:
    """Call ``make().forward`` on copies of ``arrays`` directly and check what it returns.

    ``forward`` receives ndarrays and must return a new ndarray, leaving its inputs as
    they are; calling the Function wraps the result in a Variable.

    Returns:
        what ``forward`` returned.

    Raises:
        CheckFailed: naming ``None`` (no ``return``), a Variable, another type, or an
            input changed in place.

    Example:
        >>> from minitorch import Function
        >>> class Twice(Function):
        ...     def forward(self, x):
        ...         x *= 2
        ...         return x
        >>> try:
        ...     check_forward("Twice", Twice, np.ones(2))
        ... except CheckFailed as err:
        ...     print(str(err)[:60])
        Twice.forward changed its input array in place (x *= …, x[..
    """
    from minitorch import Variable

    copies = [np.array(a, dtype=np.float64) for a in arrays]
    with explain_errors(f"{name}().forward(x)"):
        out = make().forward(*copies)
    if out is None:
        raise CheckFailed(f"{name}.forward returned None: did you forget to `return` the result?")
    if isinstance(out, Variable):
        raise CheckFailed(
            f"{name}.forward returned a Variable\n  hint: forward receives ndarrays and returns "
            f"an ndarray computed with NumPy; calling {name}() wraps it in a Variable"
        )
    if not isinstance(out, np.ndarray | np.generic | float | int):
        raise CheckFailed(
            f"{name}.forward returned a {type(out).__name__}: return one ndarray, computed "
            "with NumPy on the whole array (no Python loop or list)"
        )
    for a, c in zip(arrays, copies):
        if not np.array_equal(np.asarray(a, dtype=np.float64), c, equal_nan=True):
            raise CheckFailed(
                f"{name}.forward changed its input array in place (x *= …, x[...] = …, "
                "x **= …)\n  hint: compute a new array and return it; the inputs belong to "
                "the graph"
            )
    return np.asarray(out)


def _matching_mistake(
    got: np.ndarray, expected: np.ndarray, mistakes: dict[str, Any], atol: float, rtol: float
) -> str:
    """The hint of the first wrong value ``got`` equals (and ``expected`` does not)."""
    for text, value in mistakes.items():
        try:
            wrong = np.asarray(getattr(value, "data", value), dtype=np.float64)
        except (TypeError, ValueError):
            continue
        if wrong.shape != got.shape or np.allclose(wrong, expected, atol=atol, rtol=rtol):
            continue
        if np.allclose(got, wrong, atol=atol, rtol=rtol, equal_nan=True):
            return text
    return ""


def check_defined(namespace: dict[str, Any], *names: str, functions: bool = True) -> None:
    """Fail with "not done yet" if the exercise cell did not define ``names``.

    A check cell reads the student's names through this (and ``globals().get``), so an
    exercise cell that never ran, or stopped at a ``SyntaxError``, costs only its own
    check. The exercises define functions and classes: with ``functions`` (the default)
    a name bound to something else — a list a demo cell left under the same name, when the
    student's ``def`` stopped at a ``SyntaxError`` — is reported as such, not as the
    ``TypeError: 'list' object is not callable`` that calling it would give.

    Raises:
        NotDoneYet: naming the missing names, or the first one that is not callable.

    Example:
        >>> try:
        ...     check_defined({}, "Cube")
        ... except NotDoneYet as err:
        ...     print(str(err)[:63])
        Cube is not defined: run the exercise cell above (fix any error
    """
    missing = [name for name in names if name not in namespace]
    if missing:
        raise NotDoneYet(
            f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not defined: run "
            "the exercise cell above (fix any error it shows, such as a SyntaxError); until "
            "then this exercise is not done yet"
        )
    wrong = [name for name in names if functions and not callable(namespace[name])]
    if wrong:
        kind = type(namespace[wrong[0]]).__name__
        raise NotDoneYet(
            f"{wrong[0]} is not a function: its cell has not run, or it stopped with an error "
            f"(such as a SyntaxError) before `def {wrong[0]}`, so {wrong[0]} is still the "
            f"{kind} an earlier cell gave that name. Fix and run the exercise cell"
        )


def ratio_hint(too_large: str, too_small: str, otherwise: str = "") -> Hint:
    """A hint for :func:`check_close` that depends on the direction of the error.

    ``too_large`` is given when the first differing element (the one the message names)
    is larger in size than expected with the same sign, ``too_small`` when it is smaller,
    ``otherwise`` else.

    Example:
        >>> hint = ratio_hint("counted twice?", "a contribution lost?")
        >>> hint(np.array([1.0, 1.28]), np.array([1.0, 2.25]))
        'a contribution lost?'
    """

    def hint(got: np.ndarray, expected: np.ndarray) -> str:
        bad = np.argwhere(~np.isclose(got, expected))
        if len(bad) == 0:
            return otherwise
        index = tuple(bad[0])
        g, e = got[index], expected[index]
        if abs(g) > abs(e) and np.sign(g) == np.sign(e):
            return too_large
        return too_small if abs(g) < abs(e) else otherwise

    return hint


def difference_hint(h: float, one_sided: Any = None) -> Hint:
    """A hint for :func:`check_close` that names the usual mistakes in a central difference
    with step ``h``: dividing by ``h`` instead of ``2h``, a one-sided difference, brackets.

    ``one_sided``: the one-sided estimates of the checked function (computed in the check);
    when given, a value off by about ``h`` is called one-sided only if it is one of them.

    Example:
        >>> difference_hint(1e-4)(np.array([6.0]), np.array([3.0]))
        'exactly twice the derivative: divide by 2*h, the distance from x-h to x+h'
    """

    def hint(got: np.ndarray, expected: np.ndarray) -> str:
        nonzero = expected != 0
        ratio = got[nonzero] / expected[nonzero]
        if ratio.size and np.allclose(ratio, 2.0, rtol=1e-3):
            return "exactly twice the derivative: divide by 2*h, the distance from x-h to x+h"
        if ratio.size and np.allclose(ratio, 0.5, rtol=1e-3):
            return "exactly half the derivative: divide by 2*h, not by 4*h"
        if ratio.size and np.allclose(ratio, 2 * h, rtol=1e-3):
            return "about 2*h times the derivative: you did not divide by 2*h"
        if ratio.size and np.allclose(ratio, h * h, rtol=1e-3):
            return "about h*h times the derivative: `d / 2 * h` multiplies by h; write d / (2 * h)"
        error, scale = np.abs(got - expected), 1 + np.abs(expected)
        if np.all(error < 10 * h * scale):
            if one_sided is not None and not any(
                np.allclose(got, np.asarray(v, dtype=float), rtol=1e-6, atol=1e-9)
                for v in one_sided
            ):
                return "close, but off by about h: compute (f(x+h) - f(x-h)) / (2*h) exactly"
            return (
                "off by a few times h: that is a one-sided difference such as "
                "(f(x+h) - f(x)) / h; step to both sides, x+h and x-h"
            )
        if np.any(np.abs(got) > 10 * scale) or np.any(np.abs(got) < 0.1 * np.abs(expected)):
            return (
                "far off: check the brackets; `a - b / (2 * h)` divides only b; write "
                "`(y_plus - y_minus) / (2 * h)`"
            )
        return "compute (f(x+h) - f(x-h)) / (2*h) from the outputs' .data"

    return hint


def _count(bad: np.ndarray) -> str:
    return f" ({int(bad.sum())} of {bad.size} elements differ)" if bad.size > 1 else ""


def check_gradient(
    name: str,
    f: Callable[..., Any],
    *inputs: Any,
    mistakes: dict[str, Callable[..., Any]] | None = None,
) -> None:
    """Assert that the backward of ``f`` agrees with finite differences at ``inputs``.

    The course's Functions define ``backward`` (minitorch ops), which both a plain
    ``backward()`` and ``backward(create_graph=True)`` run, and messages name it. A
    Function that also defines ``backward_array`` (NumPy, then used by a plain
    ``backward()``) has two paths: both are checked, so a mistake in either one is found,
    and named as a mistake *there*. Two passes, so the message is easy to read and the
    check is hard to fool:

    1. the gradient of ``sum(f(*inputs))`` on both paths — for an elementwise ``f`` this
       is simply ``f'(x)`` at every element, the number a student can work out by hand;
    2. ``minitorch.gradcheck``, which weights the outputs randomly so that no error can
       cancel out in the sum (it checks both paths too).

    Either way the message names the method that is wrong, the input, the index, the
    finite-difference value, the wrong value and, when only one method is wrong, the value
    of the other one to compare with.

    ``mistakes``: ``{hint: wrong(*arrays)}``, where ``wrong`` computes (with NumPy) the
    gradients of ``sum(f(x))`` that a known mistake gives, one per input; a gradient equal
    to one of them gets that hint.

    Raises:
        CheckFailed: if a gradient differs or backward fails.

    Example:
        >>> import minitorch.ops as F
        >>> check_gradient("tanh", F.tanh, np.array([0.5, -1.0]))

    References:
        Nocedal and Wright, *Numerical Optimization*, 2nd ed., section 8.1 (central
        differences).
    """
    from minitorch.gradcheck import GradcheckError, gradcheck

    try:
        with explain_errors(f"backward of your {name}"):
            _check_sum_gradient(name, f, inputs, mistakes or {})
            gradcheck(f, *inputs)
    except GradcheckError as err:
        raise CheckFailed(_gradcheck_message(name, err, inputs)) from None


def _which(k: int, inputs: tuple[Any, ...]) -> str:
    return f" for input {k}" if len(inputs) > 1 else ""


#: How each backward method is used, for the messages.
_USED_BY = {
    "backward_array": "used by a plain backward()",
    "backward": "used by backward(create_graph=True)",
}


def _gradcheck_message(name: str, err: Any, inputs: tuple[Any, ...]) -> str:
    """A GradcheckError (randomly weighted outputs) as a message naming the wrong method."""
    where = f"{_which(err.input_index, inputs)}{_index(err.index)}"
    expected = f"expected {err.numeric:.4g} (finite differences)"
    values = {"backward_array": err.first_order, "backward": err.create_graph}
    return _method_message(
        name, where + " (for randomly weighted outputs)", expected, err.path, values
    )


def _method_message(
    name: str, where: str, expected: str, path: str, values: dict[str, float], method: str = ""
) -> str:
    """Say which of the student's two backward methods is wrong, and what to compare.

    ``path``: "backward_array" or "backward" (only that method is wrong) or "both";
    ``values``: each method's value at the element (NaN for one that was not run);
    ``method``: the one backward method the Function defines, if it has one only.
    """
    if path in _USED_BY:
        other = "backward" if path == "backward_array" else "backward_array"
        right = (
            ""
            if np.isnan(values[other])
            else (f"; your {other} ({_USED_BY[other]}) gives {values[other]:.4g}, the right value")
        )
        return (
            f"gradient of your {name}.{path} ({_USED_BY[path]}) differs{where}: {expected}, "
            f"got {values[path]:.4g} (your {path}){right}\n  hint: backward and "
            f"backward_array must compute the same formula; compare your {path} with your "
            f"{other}"
        )
    fast, slow = values["backward_array"], values["backward"]
    if np.isnan(slow) or np.isclose(fast, slow, atol=1e-5, rtol=1e-4):
        yours = f"your {method}" if method else "yours"
        return f"gradient of your {name} differs{where}: {expected}, got {fast:.4g} ({yours})"
    return (
        f"both backward methods of your {name} are wrong{where}: {expected}, got "
        f"{slow:.4g} from your backward and {fast:.4g} from your backward_array"
    )


def _known_mistake(
    got: np.ndarray, k: int, arrays: list[np.ndarray], mistakes: dict[str, Callable[..., Any]]
) -> str:
    """The hint of the first known mistake whose gradient for input ``k`` is ``got``."""
    for text, wrong in mistakes.items():
        values = wrong(*arrays)
        values = values if isinstance(values, list | tuple) else [values]
        value = np.asarray(values[k], dtype=np.float64)
        if value.shape == got.shape and np.allclose(got, value, atol=1e-5, rtol=1e-4):
            return text
    return ""


def gradient_diagnosis(got: np.ndarray, right: list[np.ndarray], k: int) -> str:
    """What a wrong gradient ``got`` of input ``k`` looks like, next to the right ones.

    ``right`` holds the right gradient of every input. Says only what the numbers show
    (another input's gradient, the opposite sign, a constant factor, zero), so it never
    names a cause the numbers do not show. Returns ``""`` when none applies.

    Example:
        >>> gradient_diagnosis(np.array([-1.0, 2.0]), [np.array([1.0, -2.0])], 0)
        'every element has the wrong sign: a minus sign is missing or extra'
    """
    expected = right[k]
    if got.shape != expected.shape or not np.all(np.isfinite(got)):
        return ""

    def same(a: np.ndarray, b: np.ndarray) -> bool:
        return bool(np.allclose(a, b, atol=1e-5, rtol=1e-4))

    for j, other in enumerate(right):
        if j != k and other.shape == got.shape and same(got, other) and not same(other, expected):
            return (
                f"this is input {j}'s gradient: return one gradient per input, in the order "
                "of self.inputs"
            )
    if same(got, -expected):
        return "every element has the wrong sign: a minus sign is missing or extra"
    if same(got, 0 * got) and not same(expected, 0 * expected):
        return "your gradient is 0 there: is a term missing?"
    nonzero = np.abs(expected) > 1e-8
    if nonzero.any() and same(got[~nonzero], 0 * got[~nonzero]):
        ratios = got[nonzero] / expected[nonzero]
        if same(ratios, np.full_like(ratios, ratios[0])) and not np.isclose(ratios[0], 1):
            return f"exactly {ratios[0]:.4g} times the right value: a constant factor is off"
    return ""


def _sum_gradients(
    f: Callable[..., Any], arrays: list[np.ndarray], create_graph: bool, weight: float = 1.0
) -> tuple[list[Any], list[Any]]:
    """The inputs' gradients of ``weight * sum(f(x))`` (None where none came) and f's
    outputs."""
    from minitorch import Variable

    variables = [Variable(a.copy()) for a in arrays]
    result = f(*variables)
    outputs = list(result) if isinstance(result, (list, tuple)) else [result]
    total = outputs[0].sum()
    for y in outputs[1:]:
        total = total + y.sum()
    if weight != 1.0:
        total = total * weight
    total.backward(create_graph=create_graph)
    grads = [None if v.grad is None else np.asarray(v.grad.data, np.float64) for v in variables]
    return grads, outputs


def _own_method(outputs: list[Any]) -> str:
    """The backward method the student's Function defines itself: ``"backward"`` (the
    course's), ``"vjp"`` or ``"backward_array"``; ``""`` for minitorch's own ops."""
    from minitorch import Function
    from minitorch.core.graph import functions

    for func in functions(*outputs):
        cls = type(func)
        if cls.__module__.startswith("minitorch."):
            continue
        for method in ("backward", "vjp", "backward_array"):
            if getattr(cls, method) is not getattr(Function, method):
                return method
    return ""


def _defines_backward_array(outputs: list[Any]) -> bool:
    """True if a Function on the graph wrote its own ``backward_array`` (a second path).

    Every subclass gets one (``Function.__init_subclass__`` picks the rule a plain
    ``backward()`` runs), so one written by hand is told by its name.
    """
    from minitorch.core.graph import functions

    return any(
        type(func).backward_array.__name__ == "backward_array" for func in functions(*outputs)
    )


def _defines_backward(outputs: list[Any]) -> bool:
    """False if a Function on the graph defines only ``backward_array`` (no create_graph)."""
    from minitorch import Function
    from minitorch.core.graph import functions

    for func in functions(*outputs):
        cls = type(func)
        if cls.backward is Function.backward and cls.vjp is Function.vjp:
            return False
    return True


def _check_direct_gradients(name: str, f: Callable[..., Any], arrays: list[np.ndarray]) -> None:
    """Call the backward of the Function ``f`` applies to the inputs directly, so that a
    gradient of the wrong shape or number is named before the engine refuses it."""
    from minitorch import Variable, no_grad

    variables = [Variable(a.copy()) for a in arrays]
    result = f(*variables)
    outputs = list(result) if isinstance(result, list | tuple) else [result]
    creator = getattr(outputs[0], "creator", None)
    if creator is None or any(all(u is not v for v in variables) for u in creator.inputs):
        return  # not one Function of the inputs: the engine's own checks apply
    seeds = [np.ones(y.shape) for y in outputs]
    try:
        gxs = creator.backward_array(*seeds)
    except NotImplementedError:
        with no_grad():
            gxs = creator.backward(*[Variable(g) for g in seeds])
    gxs = gxs if isinstance(gxs, (tuple, list)) else (gxs,)
    n = len(creator.inputs)
    if len(gxs) != n:
        raise CheckFailed(
            f"your {name}.backward returns {len(gxs)} gradient(s) for {n} input(s)\n  hint: "
            "return one gradient per input, as a tuple (g0, g1, ...)"
        )
    shapes = [u.shape for u in creator.inputs]
    for k, (u, g) in enumerate(zip(creator.inputs, gxs)):
        shape = np.shape(g.data if isinstance(g, Variable) else g) if g is not None else None
        if shape is None or shape == u.shape:
            continue
        hint = "each gradient must have the shape of its input"
        given = [np.shape(v.data if isinstance(v, Variable) else v) for v in gxs]
        swapped = [j for j in range(n) if j != k and shapes[j] == shape and given[j] == u.shape]
        wrong_axis = _summed_wrong_axis(u.shape, shape, tuple(outputs[0].shape))
        if _broadcasts(u.shape, shape):
            hint = "this input was broadcast: reduce gy to its shape, F.sum_to(gy, b.shape) for b"
        elif wrong_axis:
            hint = wrong_axis
        elif swapped:
            hint = (
                f"this has input {swapped[0]}'s shape and that one this one's: return the "
                "gradients in the order of self.inputs"
            )
        elif len(shape) == 2 and shape == u.shape[::-1]:
            hint = "this has the transposed shape: check where the .T goes"
        raise CheckFailed(
            f"gradient of your {name}{_which(k, tuple(arrays))} has shape {shape} but the "
            f"input has shape {u.shape}\n  hint: {hint}"
        )


def _summed_wrong_axis(
    shape: tuple[int, ...], got: tuple[int, ...], out: tuple[int, ...]
) -> str:
    """A hint if ``got`` is the output's shape ``out`` less one axis along which an input of
    ``shape`` was *not* broadcast: gy was summed over the wrong axis."""
    lead = len(out) - len(shape)
    if lead < 0 or len(got) != len(out) - 1 or not _broadcasts(shape, out):
        return ""
    spread = [i for i in range(len(out)) if i < lead or shape[i - lead] == 1 != out[i]]
    summed = [i for i in range(len(out)) if out[:i] + out[i + 1 :] == got]
    if not summed or any(i in spread for i in summed) or not spread:
        return ""
    axes = ", ".join(str(i) for i in spread)
    return (
        f"gy was summed over axis {summed[0]}, but the input was repeated along axis {axes}: "
        "sum over that, F.sum_to(gy, its shape)"
    )


def _broadcasts(small: tuple[int, ...], big: tuple[int, ...]) -> bool:
    """True if ``small`` broadcasts to the larger ``big`` (NumPy's rules)."""
    if len(small) > len(big) or small == big:
        return False
    return all(s in (1, b) for s, b in zip(small[::-1], big[::-1]))


def _check_sum_gradient(
    name: str,
    f: Callable[..., Any],
    inputs: tuple[Any, ...],
    mistakes: dict[str, Callable[..., Any]] | None = None,
) -> None:
    """Pass 1 of :func:`check_gradient`: ``sum(f(x))``'s gradient on each path vs numbers."""
    from minitorch.gradcheck import numerical_grad

    arrays = [np.array(x, dtype=np.float64) for x in inputs]
    _check_direct_gradients(name, f, arrays)
    fast, outputs = _sum_gradients(f, arrays, create_graph=False)
    # Two paths to compare only where a Function defines backward_array beside backward
    # (or vjp); with one of them alone, both kinds of backward() run that one method.
    two = _defines_backward(outputs) and _defines_backward_array(outputs)
    slow = _sum_gradients(f, arrays, True)[0] if two else None
    method = _own_method(outputs)
    ones = [np.ones(y.shape) for y in outputs]
    numerics = [numerical_grad(f, arrays, k, ones) for k in range(len(arrays))]
    for k in range(len(arrays)):
        got = {"backward_array": fast[k]}
        if slow is not None:
            got["backward"] = slow[k]
        if any(g is None for g in got.values()):
            raise CheckFailed(
                f"your {name} gave no gradient{_which(k, inputs)}: does backward return "
                "one gradient per input?"
            )
        numeric = numerics[k]
        for g in got.values():
            if g.shape != numeric.shape:
                raise CheckFailed(
                    f"gradient of your {name}{_which(k, inputs)} has shape {g.shape}, but "
                    f"the input has shape {numeric.shape}"
                )
        bad = {m: ~np.isclose(g, numeric, atol=1e-5, rtol=1e-4) for m, g in got.items()}
        wrong = [m for m, b in bad.items() if b.any()]
        if not wrong:
            continue
        either = np.logical_or.reduce([bad[m] for m in wrong])
        index = tuple(int(i) for i in np.argwhere(either)[0])
        path = wrong[0] if len(wrong) == 1 and slow is not None else "both"
        values = {m: float(got[m][index]) if m in got else float("nan") for m in _USED_BY}
        where = f"{_which(k, inputs)}{_index(index)}"
        expected = f"expected {numeric[index]:.4g} (finite differences)"
        message = _method_message(name, where, expected, path, values, method)
        message += _count(either) if path == "both" else ""
        only_one = path != "both" or slow is None or np.allclose(got["backward"], fast[k])
        diagnosis = _known_mistake(got[wrong[0]], k, arrays, mistakes or {})
        if not diagnosis and only_one:
            diagnosis = gradient_diagnosis(got[wrong[0]], numerics, k)
        raise CheckFailed(message + (f"\n  hint: {diagnosis}" if diagnosis else ""))
    _check_gy_is_used(name, f, arrays, fast, slow is not None, method)


def _check_gy_is_used(
    name: str,
    f: Callable[..., Any],
    arrays: list[np.ndarray],
    plain: list[Any],
    both: bool,
    method: str = "",
) -> None:
    """Fail if doubling the output's gradient ``gy`` does not double the inputs' ones.

    ``both``: the Function has two backward methods (each is checked and named);
    ``method``: else the one it defines, named in the message.
    """
    single = f"{name}.{method}" if method else name
    for create_graph in (False, True) if both else (False,):
        doubled = _sum_gradients(f, arrays, create_graph, weight=2.0)[0]
        for k, (g1, g2) in enumerate(zip(plain, doubled)):
            if g1 is None or g2 is None or np.allclose(g2, 2 * g1, atol=1e-8, rtol=1e-6):
                continue
            path = "backward" if create_graph else "backward_array"
            used = f"{name}.{path}" if both else single
            what = (
                "ignores gy"
                if np.allclose(g2, g1, atol=1e-8, rtol=1e-6)
                else "is not proportional to gy"
            )
            raise CheckFailed(
                f"your {used}{_which(k, tuple(arrays))} {what}: with gy doubled, its gradient "
                "should double\n  hint: multiply the local derivative by gy, the gradient "
                "arriving from the output (the chain rule)"
            )


def check_backward_is_differentiable(name: str, f: Callable[..., Any], *inputs: Any) -> None:
    """Assert that the backward of ``f`` gives the right values and can be differentiated.

    ``backward`` is what ``backward(create_graph=True)`` runs, and second derivatives
    (notebook 06) differentiate what it returns. Three steps, for a precise message:

    1. the gradient from ``backward(create_graph=True)`` (and from a plain ``backward()``)
       must agree with finite differences — a wrong ``backward`` is reported as wrong even
       when ``backward_array`` is right, naming both values;
    2. every input's gradient must then have a creator: a backward that computes on raw
       arrays (``.data``, ``np.exp``) gives the right numbers but cuts the graph, so
       ``backward(create_graph=True)`` records nothing and second derivatives come out as
       zero;
    3. ``minitorch.gradcheck.gradgradcheck`` compares the first derivatives (randomly
       weighted) and then the second derivatives with finite differences, which catches a
       backward that is only partly built from raw arrays.

    Raises:
        CheckFailed: naming the method, the input, the index, the expected and the
            actual (first or second) derivative.

    Example:
        >>> import minitorch.ops as F
        >>> check_backward_is_differentiable("tanh", F.tanh, np.array([0.5, -1.0]))
    """
    from minitorch import Variable
    from minitorch.gradcheck import GradcheckError, gradgradcheck

    advice = (
        "use only Variables (self.inputs, self.output(), gy) and minitorch ops: no `.data`, "
        "no np.*"
    )
    with explain_errors(f"backward of your {name}"):
        _check_sum_gradient(name, f, inputs)  # step 1: the values, before praising them
    variables = [Variable(np.array(x, dtype=np.float64)) for x in inputs]
    with explain_errors(f"backward of your {name}"):
        result = f(*variables)
        outputs = list(result) if isinstance(result, (list, tuple)) else [result]
        total = outputs[0].sum()
        for y in outputs[1:]:
            total = total + y.sum()
        total.backward(create_graph=True)
    for k, v in enumerate(variables):
        if v.grad is not None and v.grad.creator is None:
            raise CheckFailed(
                f"almost there: your {name}'s gradient{_which(k, inputs)} has the right values "
                "but "
                "was computed on raw NumPy arrays: create_graph=True cannot differentiate it ("
                f"notebook 06)\n  hint: {advice}"
            )
    try:
        with explain_errors(f"backward of your {name}"):
            gradgradcheck(f, *inputs)
    except GradcheckError as err:
        if err.order == 1:  # the first derivative, for randomly weighted outputs
            raise CheckFailed(_gradcheck_message(name, err, inputs)) from None
        raise CheckFailed(
            f"second derivative of your {name} differs{_which(err.input_index, inputs)}"
            f"{_index(err.index)}: expected {err.numeric:.4g} (finite differences), got "
            f"{err.analytic:.4g} (your backward, differentiated)\n  hint: a part computed "
            f"on raw arrays counts as a constant; {advice}"
        ) from None


def _functions(outputs: list[Any]) -> list[Any]:
    """Every Function on the graph behind ``outputs``, each once (minitorch's one walk)."""
    from minitorch.core.graph import functions

    return list(functions(*[y for y in outputs if hasattr(y, "creator")]))


@contextmanager
def traced(*outputs: Any) -> Iterator[list[Any]]:
    """Record the Functions behind ``outputs`` as a student's engine runs them.

    Each Function's ``backward`` and ``backward_array`` are wrapped (on the instance) for
    the ``with`` block; the yielded list gets each Function when one of them is called.
    :func:`schedule_problem` reads it.

    Example:
        >>> import minitorch.ops as F
        >>> from minitorch import Variable
        >>> y = F.exp(Variable(np.array(1.0)))
        >>> with traced(y) as calls:
        ...     _ = y.creator.backward_array(np.ones(()))
        >>> [type(f).__name__ for f in calls]
        ['Exp']
    """
    calls = _Calls()
    functions = _functions(list(outputs))

    def wrap(f: Any, method: Any, into: list[Any]) -> Any:
        def called(*args: Any, **kwargs: Any) -> Any:
            into.append(f)
            return method(*args, **kwargs)

        return called

    for f in functions:
        f.backward_array = wrap(f, f.backward_array, calls)
        f.backward = wrap(f, f.backward, calls)
        f.output = wrap(f, f.output, calls.looked_up)
    try:
        yield calls
    finally:
        for f in functions:
            for name in ("backward_array", "backward", "output"):
                vars(f).pop(name, None)


class _Calls(list):  # type: ignore[type-arg]
    """The Functions whose backward ran, in order; ``looked_up``: whose output() was read."""

    def __init__(self) -> None:
        super().__init__()
        self.looked_up: list[Any] = []


@contextmanager
def backward_calls() -> Iterator[list[tuple[Any, bool]]]:
    """Record every ``Variable.backward`` call of the block as ``(variable, create_graph)``.

    For checks of exercises that call ``backward`` themselves: whether the first pass had
    ``create_graph=True``, and what the second pass differentiated, tell their mistakes
    apart without reading any message.

    Example:
        >>> from minitorch import Variable
        >>> x = Variable(np.array(2.0))
        >>> with backward_calls() as calls:
        ...     (x * x).backward(create_graph=True)
        >>> [create_graph for _, create_graph in calls]
        [True]
    """
    from minitorch import Variable

    calls: list[tuple[Any, bool]] = []
    original = Variable.backward

    def recording(self: Any, retain_grad: bool = False, create_graph: bool = False) -> None:
        calls.append((self, bool(create_graph)))
        return original(self, retain_grad=retain_grad, create_graph=create_graph)

    Variable.backward = recording  # type: ignore[method-assign]
    try:
        yield calls
    finally:
        Variable.backward = original  # type: ignore[method-assign]


def schedule_problem(
    calls: list[Any], *outputs: Any, order: str = "", finished: bool = True
) -> str:
    """What is wrong with the order in which an engine ran the Functions (``""`` if
    nothing): one ran more than once, one never ran, or one ran before a Function that
    uses its output (so before all its gradient had arrived); ``order`` is added to the
    last: how the exercise's engine keeps the order. ``finished=False`` (the engine
    stopped with an error): a Function that has not run yet is no problem.

    Example:
        >>> import minitorch.ops as F
        >>> from minitorch import Variable
        >>> x = Variable(np.array(1.0))
        >>> a = F.exp(x)
        >>> y = F.sin(a)
        >>> schedule_problem([a.creator, y.creator], y)
        'Exp ran before Sin, which uses its output: run a Function only after all its users'
    """
    functions = _functions(list(outputs))
    counts = {id(f): 0 for f in functions}
    for f in calls:
        counts[id(f)] = counts.get(id(f), 0) + 1
    for f in functions:
        if counts[id(f)] > 1:
            return (
                f"{type(f).__name__} ran {counts[id(f)]} times: run each Function once, after "
                "all its gradient has arrived"
            )
    for f in functions if finished else []:
        if counts[id(f)] == 0:
            return (
                f"{type(f).__name__} never ran: every Function between y and the leaves must "
                "run once"
            )
    looked_up = getattr(calls, "looked_up", [])
    f = looked_up[-1] if looked_up else None  # the last Function the engine took up
    ran = sum(g is f for g in calls)
    if not finished and f is not None and sum(g is f for g in looked_up) > ran:
        users = [g for g in functions if any(u.creator is f for u in g.inputs)]
        if ran:
            return (
                f"{type(f).__name__} was taken a second time after it ran: queue each Function "
                "once (track id(f))"
            )
        waiting = [g for g in users if all(c is not g for c in calls)]
        if waiting:
            return (
                f"{type(f).__name__} was taken before {type(waiting[0]).__name__}, which uses its "
                f"output: run a Function only after all its users{order and '; ' + order}"
            )
    position = {id(f): i for i, f in enumerate(calls)}
    for f in functions:
        for u in f.inputs:
            g = u.creator
            if g is not None and id(g) in position and position[id(g)] < position.get(id(f), -1):
                return (
                    f"{type(g).__name__} ran before {type(f).__name__}, which uses its output: "
                    f"run a Function only after all its users{order and '; ' + order}"
                )
    return ""


def check_true(condition: bool, message: str) -> None:
    """Assert ``condition``; ``message`` explains what is wrong when it is False.

    Example:
        >>> try:
        ...     check_true(1 + 1 == 3, "1 + 1 should be 3")
        ... except CheckFailed as err:
        ...     print(err)
        1 + 1 should be 3
    """
    if not condition:
        raise CheckFailed(message)
