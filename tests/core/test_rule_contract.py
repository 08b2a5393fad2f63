"""The one authoring contract of gradient rules, checked over the whole repository.

``vjp(self, xp, xs, y, *gys)`` and ``jvp(self, xs, y, *txs)``: the namespace of a vjp is
``xp`` (``F`` means ``minitorch.ops`` everywhere else), and a rule receives the output
``y`` instead of reaching for it (no ``F.output(self)``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted(
    path
    for folder in ("minitorch", "tests", "notebooks/src", "viz", "examples", "benchmarks")
    if (ROOT / folder).is_dir()
    for path in (ROOT / folder).rglob("*.py")
)
DOCS = sorted((ROOT / "docs").rglob("*.md"))


def _rules(path: Path) -> list[tuple[str, ast.FunctionDef]]:
    # notebook sources hold IPython magics (``%matplotlib inline``): comment them out
    text = re.sub(r"^%", "# %", path.read_text(encoding="utf-8"), flags=re.M)
    tree = ast.parse(text)
    return [
        (f"{path.relative_to(ROOT)}:{fn.lineno} {cls.name}.{fn.name}", fn)
        for cls in ast.walk(tree)
        if isinstance(cls, ast.ClassDef)
        for fn in cls.body
        if isinstance(fn, ast.FunctionDef)
        and fn.name in ("vjp", "jvp")
        and not (cls.name == "Function" and path.name == "function.py")  # the base: *args
    ]


RULES = [rule for path in SOURCES for rule in _rules(path)]


def test_the_rules_are_found() -> None:
    names = {where.split()[-1] for where, _ in RULES}
    assert {"Mul.vjp", "Mul.jvp", "Exp.vjp", "Exp.jvp", "Conv2d.vjp"} <= names


@pytest.mark.parametrize("where, fn", RULES, ids=[where for where, _ in RULES])
def test_every_rule_follows_the_contract(where: str, fn: ast.FunctionDef) -> None:
    args = [a.arg for a in fn.args.args]
    if fn.name == "vjp":
        assert args[:4] == ["self", "xp", "xs", "y"], f"{where}: vjp(self, xp, xs, y, *gys)"
        names = {node.id for node in ast.walk(fn) if isinstance(node, ast.Name)}
        assert "F" not in names, f"{where}: the namespace of a vjp is xp, not F"
    else:  # a jvp computes with minitorch ops (F.tanh) on Variables: no namespace
        assert args[:3] == ["self", "xs", "y"], f"{where}: jvp(self, xs, y, *txs)"
    calls = [ast.unparse(node) for node in ast.walk(fn) if isinstance(node, ast.Call)]
    assert not [c for c in calls if re.search(r"\.output\(", c)], f"{where}: use y"


@pytest.mark.parametrize("page", DOCS, ids=[str(p.relative_to(ROOT)) for p in DOCS])
def test_docs_teach_the_same_contract(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"def vjp\(self, F\b", text)
    assert not re.search(r"def jvp\(self, t", text)
    assert "F.output(self)" not in text
