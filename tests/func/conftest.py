"""Fixtures of the forward-mode tests: the op table's rows as a parameter."""

from __future__ import annotations

from typing import Any

import numpy as np
from op_table import CASES


def pytest_generate_tests(metafunc: Any) -> None:
    if "case" in metafunc.fixturenames:
        metafunc.parametrize("case", CASES, ids=str)


def central_difference(fn: Any, xs: list[np.ndarray], vs: list[np.ndarray], eps: float) -> Any:
    """``(f(x + eps v) - f(x - eps v)) / (2 eps)``: the directional derivative, numerically."""
    plus = fn(*[np.asarray(x + eps * v) for x, v in zip(xs, vs)])
    minus = fn(*[np.asarray(x - eps * v) for x, v in zip(xs, vs)])
    return (np.asarray(plus) - np.asarray(minus)) / (2 * eps)
