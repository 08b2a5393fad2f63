"""Fixtures of the forward-mode tests: the op table's rows as a parameter."""

from __future__ import annotations

from typing import Any

from op_table import CASES


def pytest_generate_tests(metafunc: Any) -> None:
    if "case" in metafunc.fixturenames:
        metafunc.parametrize("case", CASES, ids=str)
