"""The core of the course's feedback: what a check prints, what it raises and how.

``ok`` prints the one ``✓`` line; :class:`CheckFailed` (an ``AssertionError``) carries a
message of at most three lines; :func:`explain_errors` turns an exception from the
student's code into one, with a hint (``checks_hints``). See ``checks.py`` for the
whole family.
"""

from __future__ import annotations

import textwrap
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from checks_hints import _raw_arrays_message, _shorten, type_hint


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
