"""The shared core of the checks for the "build it yourself" notebooks (07-13).

These extend :mod:`checks` (the shared helpers: ``check_close``, ``explain_errors``, ...)
with what the later notebooks need:

* :func:`exercise` — run the student's code; a stub that still raises
  ``NotImplementedError`` says "not done yet", and a Variable/ndarray mix-up becomes one
  line of guidance (:data:`TYPE_HINTS`);
* :func:`check_close_diagnosed` — compare with a reference, and when the answer equals a
  known wrong variant (a forgotten bias correction, ``/`` instead of ``//``), name it;
* :func:`yours_or_reference` — where an exercise builds on an earlier one, use the
  student's earlier answer if it works and a reference version otherwise, and say so
  (:func:`pieces_used` then says how many of the pieces that ran were the student's).

Each notebook's own checks live beside this core, one module per notebook:
``checks_nb08`` (a Function's backward paths), ``checks_nb09`` (modules, loaders),
``checks_nb10`` (optimizers), ``checks_nb11`` (convolution and LSTM pieces),
``checks_nb12`` (forward mode), ``checks_nb13`` (the capstone) and
``checks_nb13_reference`` (the capstone's stand-in pieces).

Every check can be re-run: none of them changes the student's objects except where the
exercise is about changing them (an optimizer's ``step``), and then they work on copies.
"""

from __future__ import annotations

import copy
import functools
import inspect
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import checks
import numpy as np
from checks import CheckFailed, check_close, explain_errors, ok

__all__ = [
    "TYPE_HINTS",
    "check_close_diagnosed",
    "check_connected",
    "check_returns_variables",
    "NotDoneYet",
    "short_errors",
    "pieces_used",
    "refusal_hint",
    "require",
    "exercise",
    "is_done",
    "ok",
    "yours_or_reference",
]

#: ``(pattern, hint)`` pairs for the usual Variable <-> ndarray mix-ups, matched in
#: Python's and NumPy's own messages (never in minitorch's: a reworded library message
#: must not silently lose a hint). minitorch's refusals are recognised by where they were
#: raised instead (:func:`refusal_hint`).
TYPE_HINTS: tuple[tuple[str, str], ...] = (
    (
        "not supported between instances of 'Variable'",
        "this is a Variable: compare its values, `v.data`, not the Variable itself",
    ),
    (
        "'numpy.ndarray' object has no attribute 'creator'",
        "this is an ndarray, not a Variable: build it with minitorch ops (F.<op>) so that "
        "it has a creator",
    ),
    (
        "'numpy.ndarray' object has no attribute",
        "this is an ndarray, not a Variable: use F.<op> on Variables, or read `.data` only "
        "where a plain array is wanted",
    ),
    (
        "'Variable' object has no attribute",
        "this is a Variable: its array is `.data`",
    ),
    (
        "'NoneType' object has no attribute",
        "something is None: a function without `return`, or a `.grad` read before backward()",
    ),
    (
        "maximum recursion depth exceeded",
        "a method calls itself without end: inside __setattr__, set attributes with "
        "object.__setattr__(self, name, value), never self.name = value",
    ),
    (
        "'float' object cannot be interpreted as an integer",
        "a count must be an int: use // (floor division), or math.ceil(...) for rounding up",
    ),
    (
        "memoryview",
        "an ndarray's .data is its raw memory buffer: here the gradient is already an "
        "ndarray, so use p.grad itself, not p.grad.data",
    ),
    (
        "setting an array element with a sequence",
        "a Variable was written into an ndarray: use `.data` on the right-hand side",
    ),
)

#: The Variable methods through which minitorch refuses a comparison or a NumPy call.
_COMPARISONS = frozenset({"__lt__", "__le__", "__gt__", "__ge__", "__bool__"})
_NUMPY_PROTOCOL = frozenset({"__array_ufunc__", "__array_function__", "__array__"})


def refusal_hint(err: BaseException) -> str:
    """A hint for an error that a minitorch Variable's protocol method raised, else ``""``.

    Found by the traceback, not by the message: a frame of ``__lt__`` (and the other
    comparisons) or of ``__array_ufunc__``/``__array_function__`` whose ``self`` is a
    Variable means the student compared a Variable, or gave one to a NumPy function.
    """
    from minitorch import Variable

    kind = ""
    tb = err.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if isinstance(frame.f_locals.get("self"), Variable):
            if frame.f_code.co_name in _COMPARISONS:
                kind = "comparison"
            elif frame.f_code.co_name in _NUMPY_PROTOCOL:
                kind = "numpy"
        tb = tb.tb_next
    if kind == "comparison":
        return "this is a Variable: compare its values, `v.data`, not the Variable itself"
    if kind == "numpy":
        return (
            "this is a Variable: NumPy functions need arrays. Use `.data` for plain numbers, "
            "or the minitorch op (F.exp, F.tanh, `@`, ...) to stay differentiable"
        )
    return ""


def _raised_by_library_default(err: BaseException) -> bool:
    """True if ``err`` comes from a default method of minitorch's Function (none defined)."""
    tb = err.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return False
    frame = tb.tb_frame
    module = str(frame.f_globals.get("__name__", ""))
    return module.startswith("minitorch.core") and frame.f_code.co_name in (
        "vjp",
        "jvp",
        "backward",
        "backward_array",
        "forward",
    )


class NotDoneYet(checks.NotDoneYet, NotImplementedError):
    """An 08-13 exercise that is not done yet: shown as its message alone, no traceback.

    A :class:`checks.NotDoneYet` (so IPython renders the message only, and nbgrader counts
    a failed test) that is also a ``NotImplementedError``, as an untouched stub's own error
    is: code that catches ``NotImplementedError`` (``yours_or_reference``, the graders)
    still sees it as one.
    """


#: The same words as notebooks 01-07's (``checks.NOT_DONE``), after the call checked.
NOT_DONE = "{what}: " + checks.NOT_DONE.replace("{", "{{").replace("}", "}}")


@contextmanager
def exercise(what: str, *hints: tuple[str, str]) -> Iterator[None]:
    """Run the student's code for ``what``, turning errors into guidance.

    * ``NotImplementedError`` from an untouched stub becomes :class:`NotDoneYet` ("this
      exercise is not done yet"; still a ``NotImplementedError``, so nbgrader and the
      run-until-the-first-exercise test see the same type), shown without a traceback;
    * any other exception becomes an ``AssertionError`` naming the exception, the
      student's line and the first matching hint — ``hints`` first, then
      :data:`TYPE_HINTS`;
    * a :class:`checks.CheckFailed` passes unchanged, a plain ``AssertionError`` becomes
      one (its message alone, no frames).

    Example:
        >>> with exercise("f(x)"):  # doctest: +ELLIPSIS
        ...     raise NotImplementedError()
        Traceback (most recent call last):
        ...
        checks_build.NotDoneYet: f(x): this exercise is not done yet. Replace ...
    """
    try:
        try:
            yield
        except NameError as err:
            tb = err.__traceback__
            while tb is not None and tb.tb_next is not None:
                tb = tb.tb_next
            if tb is not None and tb.tb_frame.f_code.co_name in ("<module>", "<lambda>"):
                # raised at a cell's top level, not inside the student's function: a name
                # the exercise defines is missing
                raise NotDoneYet(NOT_DONE.format(what=what) + f" ({err})") from None
            raise
    except NotImplementedError as err:
        if _raised_by_library_default(err):  # the class defines no such method yet
            raise NotDoneYet(NOT_DONE.format(what=what) + f" ({err})") from None
        if isinstance(err, NotDoneYet):
            raise
        if str(err) and "not done yet" not in str(err):  # a library's own: keep it
            raise CheckFailed(f"{what} failed: NotImplementedError: {err}") from None
        raise NotDoneYet(str(err) if str(err) else NOT_DONE.format(what=what)) from None
    except CheckFailed:
        raise
    except AssertionError as err:  # a plain assert: its message, shown without frames
        raise CheckFailed(str(err) or f"{what} failed an assertion") from None
    except Exception as err:
        refusal = refusal_hint(err)
        found = (("", refusal),) if refusal else ()  # "" occurs in every message
        with explain_errors(what, *found, *hints, *TYPE_HINTS):
            raise err from None


def short_errors(namespace: dict[str, Any]) -> None:
    """Make every public function of a check module fail with a short message only.

    Called at the end of ``checks_nb08`` ... ``checks_nb13`` with ``globals()``: each
    public function defined there is wrapped in :func:`exercise`, so whatever escapes a
    check — a stub's ``NotImplementedError``, a plain ``AssertionError``, a ``TypeError``
    from the student's object — is shown as at most three lines, never as frames of the
    check modules and ``contextlib``.
    """
    module = namespace["__name__"]
    for name, f in list(namespace.items()):
        if name.startswith("_") or not inspect.isfunction(f) or f.__module__ != module:
            continue
        if inspect.isgeneratorfunction(f) or hasattr(f, "__wrapped__"):
            continue  # context managers (and functions wrapped already) stay as they are
        namespace[name] = _shown_short(f)


#: How many wrapped check functions are running: only the outermost one (the call in the
#: check cell) shortens what escapes, so a check that catches an error of another (a
#: ``ValueError`` it diagnoses) still sees the error itself.
_DEPTH = [0]


def _shown_short(f: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(f)
    def checked(*args: Any, **kwargs: Any) -> Any:
        if _DEPTH[0]:
            return f(*args, **kwargs)
        _DEPTH[0] += 1
        try:
            with exercise(f.__name__):
                return f(*args, **kwargs)
        finally:
            _DEPTH[0] -= 1

    return checked


def require(what: str, answer: Any) -> None:
    """Say "not done yet" if the student's ``answer`` is ``None``.

    Check cells pass the student's names as ``globals().get("name")``: a cell that never
    defined the name (not run yet, or stopped by a syntax error) then gives ``None`` here
    and the check says so, instead of a ``NameError`` in the check cell.

    Raises:
        NotDoneYet: "this exercise is not done yet", naming ``what``.
    """
    if answer is None:
        raise NotDoneYet(
            f"{what} is not defined: its cell has not run, or it stopped with an error (such "
            "as a SyntaxError) before defining it. Fix and run that cell: until then this "
            "exercise is not done yet"
        )


def _array(name: str, value: Any) -> np.ndarray:
    """``value`` (a number, an ndarray or a Variable) as a float64 array, or a clear error."""
    if value is None:
        raise CheckFailed(f"{name} is None: did you forget to `return` the result?")
    try:
        return np.asarray(getattr(value, "data", value), dtype=np.float64)
    except (TypeError, ValueError):
        raise CheckFailed(
            f"{name} should be a number or an array, got {type(value).__name__}"
        ) from None


def is_done(probe: Callable[[], Any]) -> bool:
    """True if ``probe()`` runs without raising ``NotImplementedError`` (or anything else)."""
    try:
        probe()
    except Exception:
        return False
    return True


#: What :func:`yours_or_reference` chose for each name: True where the student's piece ran.
CHOSEN: dict[str, bool] = {}


def yours_or_reference(name: str, yours: Any, reference: Any, probe: Callable[[Any], Any]) -> Any:
    """Return ``yours`` if ``probe(yours)`` passes, else ``reference``, and say which.

    Used where one exercise builds on an earlier one: an unfinished earlier exercise must
    not fail the later one (nbgrader would take two points for one mistake). Pass the
    student's object as ``globals().get("Name")``, so that a cell that never defined it (a
    syntax error) gives ``None`` here instead of a ``NameError`` in the calling cell.

    Args:
        name: what is chosen ("TwoLayerNet").
        yours: the student's object, or ``None`` when the name is not defined.
        reference: a working version.
        probe: raises (``AssertionError``, ``NotImplementedError``, ...) if ``yours`` is
            not usable.

    Returns:
        ``yours`` or ``reference``; the choice is recorded in :data:`CHOSEN` for
        :func:`pieces_used`.

    Example:
        >>> yours_or_reference("f", "abs", abs, lambda f: f(-1))
        using the reference f for now (yours: TypeError: 'str' object is not callable)
        <built-in function abs>
    """
    reason = ""
    if yours is None:
        reason = "not defined: its cell did not run, or stopped with an error"
    else:
        try:
            probe(yours)
        except Exception as err:
            first = str(err).splitlines()[0] if str(err) else ""
            is_stub = isinstance(err, NotImplementedError)
            reason = "not done yet" if is_stub else f"{type(err).__name__}: {first}"
    CHOSEN[name] = not reason
    if reason:
        print(f"using the reference {name} for now (yours: {reason})")
        return reference
    print(f"using your {name}")
    return yours


def pieces_used(*names: str) -> str:
    """Say how many of the pieces ``names`` that just ran were the student's own.

    Reads what :func:`yours_or_reference` recorded, so a success line states what actually
    ran ("with 4 of your pieces and 2 stand-ins (Linear, Adam)"), never more.

    Example:
        >>> CHOSEN.update(a=True, b=False)
        >>> pieces_used("a", "b")
        'with 1 of your pieces and 1 stand-in (b)'
    """
    stand_ins = [n for n in names if not CHOSEN.get(n, False)]
    mine = len(names) - len(stand_ins)
    if len(names) == 1:
        return f"with your {names[0]}" if mine else f"with the reference {names[0]}"
    if not stand_ins:
        return f"with all {mine} of your pieces" if mine > 1 else "with your own piece"
    listed = ", ".join(stand_ins)
    plural = "s" if len(stand_ins) > 1 else ""
    if mine == 0:
        return f"with stand-ins only ({listed}): none of your pieces passed its check yet"
    return f"with {mine} of your pieces and {len(stand_ins)} stand-in{plural} ({listed})"


def check_close_diagnosed(
    name: str,
    got: Any,
    expected: Any,
    mistakes: dict[str, Any] | list[tuple[str, Any]] | None = None,
    atol: float = 1e-6,
    rtol: float = 1e-5,
    hint: Any = "",
) -> None:
    """:func:`checks.check_close`, but first recognise known wrong answers.

    Args:
        name: what is checked.
        got: the student's value.
        expected: the right value.
        mistakes: ``{hint: value}`` (or a list of such pairs); if ``got`` equals
            ``value`` (and ``value`` differs from ``expected``), the message is that hint.
        atol: absolute tolerance.
        rtol: relative tolerance.
        hint: passed on to ``check_close`` for other wrong answers.

    Example:
        >>> check_close_diagnosed("x", 2.5, 2.0, {"used / instead of //": 2.5})
        Traceback (most recent call last):
        ...
        checks.CheckFailed: x is 2.5 but should be 2: used / instead of //
    """
    got_array = _array(name, got)
    expected_array = _array("the reference", expected)
    pairs = mistakes.items() if isinstance(mistakes, dict) else (mistakes or [])
    for text, value in pairs:
        wrong = np.asarray(value, dtype=np.float64)
        if wrong.shape != got_array.shape:
            continue
        if wrong.shape == expected_array.shape and np.allclose(wrong, expected_array, atol=atol):
            continue  # this "mistake" gives the right answer here: it tells nothing
        if np.allclose(got_array, wrong, atol=atol, rtol=rtol):
            scalar = got_array.size == 1 and expected_array.size == 1
            shown = f"{got_array.item():.6g}" if scalar else "wrong"
            should = f" but should be {expected_array.item():.6g}" if scalar else ""
            raise CheckFailed(f"{name} is {shown}{should}: {text}")
    check_close(name, got, expected, atol=atol, rtol=rtol, hint=hint)


def _numeric_gradient(f: Callable[..., Any], arrays: list[np.ndarray], k: int) -> np.ndarray:
    """Central differences of ``sum(f(*arrays))`` with respect to ``arrays[k]``."""
    from minitorch import Variable, no_grad

    eps = 1e-6
    grad = np.zeros_like(arrays[k])
    for index in np.ndindex(arrays[k].shape):
        values = []
        for step in (eps, -eps):
            shifted = [a.copy() for a in arrays]
            shifted[k][index] += step
            with no_grad():
                values.append(float(np.sum(f(*[Variable(a) for a in shifted]).data)))
        grad[index] = (values[0] - values[1]) / (2 * eps)
    return grad


def check_returns_variables(name: str, make: Callable[[], Any], *inputs: np.ndarray) -> None:
    """Assert that ``backward`` of a Function returns Variables (or None), not ndarrays.

    A backward on ndarrays gives the right numbers on a first-order backward, but it cannot
    be differentiated again (``create_graph=True``, notebook 06). For a Function whose
    gradients do not depend on its inputs (an addition), the second-order check cannot see
    that, so this looks at the types directly.
    """
    from minitorch import Variable

    f = make()
    with exercise(f"{name}.backward"):
        y = f(*[Variable(np.array(a, dtype=np.float64)) for a in inputs])
        grads = f.backward(Variable(np.ones(y.shape)))
    grads = grads if isinstance(grads, (tuple, list)) else (grads,)
    for k, g in enumerate(grads):
        if g is not None and not isinstance(g, Variable):
            raise CheckFailed(
                f"your {name}.backward returns a {type(g).__name__} for input {k}: this is "
                "an ndarray, so backward(create_graph=True) cannot differentiate it. Work on "
                "the Variables (gy, self.inputs) with minitorch ops (F.sum_to, @, .T)"
            )


def check_connected(name: str, f: Callable[..., Any], *inputs: np.ndarray) -> None:
    """Assert that every input reaches the output through the graph (no ``.data`` cut)."""
    from minitorch import Variable

    variables = [Variable(np.array(a, dtype=np.float64)) for a in inputs]
    with exercise(name):
        result = f(*variables)
        outputs = list(result) if isinstance(result, (tuple, list)) else [result]
        total = outputs[0].sum()
        for y in outputs[1:]:
            total = total + y.sum()
        total.backward()
    for k, v in enumerate(variables):
        if v.grad is None:
            raise CheckFailed(
                f"your {name}'s result does not depend on input {k} in the graph, so it gets "
                "no gradient: a `.data` (or an np.* function) cut the graph. Use Variables "
                "and minitorch ops throughout"
            )


def float_weights(*arrays: np.ndarray) -> list[np.ndarray]:
    """float64 copies (gradcheck needs float64)."""
    return [np.array(a, dtype=np.float64) for a in arrays]


def rounded(value: float) -> float:
    """``value`` rounded to 2 decimals (for stable printed numbers)."""
    return math.floor(value * 100 + 0.5) / 100


def copy_params(params: list[Any]) -> list[Any]:
    """Deep copies of Variables (checks never change the student's objects)."""
    return [copy.deepcopy(p) for p in params]
