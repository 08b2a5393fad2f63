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

This module gathers the family, one theme per module, so that a notebook imports every
check from ``checks``:

* ``checks_core`` — ``ok``, :class:`CheckFailed`, ``render``, ``explain_errors``, the
  type checks, ``time_limit``;
* ``checks_hints`` — the hints for a student's error (Variable/ndarray mix-ups);
* ``checks_values`` — ``check_close``, ``check_forward``, ``check_defined`` and their hints;
* ``checks_gradients`` — ``check_gradient`` and the diagnosis of a wrong backward;
* ``checks_trace`` — the engine's order of calls and a student's schedule;
* ``checks_nbNN`` — the checks of one notebook.
"""

from __future__ import annotations

from checks_core import (
    NOT_DONE,
    WIDTH,
    CheckFailed,
    NotDoneYet,
    check_done,
    check_is_array,
    check_is_variable,
    check_true,
    explain_errors,
    ok,
    render,
    time_limit,
)
from checks_gradients import (
    _method_message,
    check_backward_is_differentiable,
    check_gradient,
    gradient_diagnosis,
)
from checks_hints import type_hint
from checks_trace import backward_calls, schedule_problem, traced
from checks_values import (
    Hint,
    check_close,
    check_defined,
    check_forward,
    difference_hint,
    ratio_hint,
)

__all__ = [
    "NOT_DONE",
    "WIDTH",
    "CheckFailed",
    "Hint",
    "NotDoneYet",
    "_method_message",
    "backward_calls",
    "check_backward_is_differentiable",
    "check_close",
    "check_defined",
    "check_done",
    "check_forward",
    "check_gradient",
    "check_is_array",
    "check_is_variable",
    "check_true",
    "difference_hint",
    "explain_errors",
    "gradient_diagnosis",
    "ok",
    "ratio_hint",
    "render",
    "schedule_problem",
    "time_limit",
    "traced",
    "type_hint",
]
