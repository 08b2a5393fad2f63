"""Parametrize the generic op-table tests (``op_harness.OpTableTests``) over ``cases``."""

from __future__ import annotations

from typing import Any


def pytest_generate_tests(metafunc: Any) -> None:
    cls = metafunc.cls
    if "case" in metafunc.fixturenames and cls is not None and hasattr(cls, "cases"):
        metafunc.parametrize("case", list(cls.cases), ids=str)
