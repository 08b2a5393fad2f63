"""docs/concepts/memory.md lists which ops save what: the table equals the ``saves``
declarations of minitorch's Function classes (issue 32)."""

from __future__ import annotations

import sys
from pathlib import Path

import minitorch  # noqa: F401 (defines every op class)
import minitorch.checkpointing  # noqa: F401
from minitorch.core import Function

PAGE = Path(__file__).resolve().parents[2] / "docs" / "concepts" / "memory.md"
LABELS = {
    (): "`()`",
    ("output",): '`("output",)`',
    ("inputs",): '`("inputs",)`',
    ("inputs", "output"): '`("inputs", "output")`',
}


def _op_classes() -> dict[str, type[Function]]:
    found: dict[str, type[Function]] = {}
    stack = [Function]
    while stack:
        for cls in stack.pop().__subclasses__():
            stack.append(cls)
            public = not cls.__name__.startswith("_") and cls.__name__ not in ("Unary", "Binary")
            module = sys.modules.get(cls.__module__)  # a class of minitorch's own modules
            own = getattr(module, cls.__name__, None) is cls  # (not one a test made)
            if cls.__module__.startswith("minitorch.") and public and own:
                found[cls.__name__] = cls
    return found


def test_the_table_lists_every_op_under_its_declaration() -> None:
    rows = {}
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        if line.startswith("| `") and "|" in line[1:]:
            label, ops = line.strip("| ").split(" | ")
            if label == "`saves`":  # the header
                continue
            rows[label] = {name.strip(" `") for name in ops.split(",")}
    for name, cls in _op_classes().items():
        label = LABELS[tuple(cls.saves)]
        if cls.saves_input is not Function.saves_input:
            label += " + `saves_input`"
        assert name in rows.get(label, set()), (name, label)
    assert sum(len(ops) for ops in rows.values()) == len(_op_classes())
