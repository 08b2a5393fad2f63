"""Architecture rules: core imports nothing above it; one table binds Variable's methods."""

from __future__ import annotations

import ast
from pathlib import Path

import minitorch
from minitorch.ops.variable_methods import VARIABLE_METHODS

PACKAGE = Path(minitorch.__file__).parent
FORBIDDEN = ("minitorch.ops", "minitorch.nn", "minitorch.optim", "minitorch.data", "viz")


def imported_modules(path: Path) -> list[str]:
    """Every module named by an import statement anywhere in the file (functions too)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
            names += [f"{node.module}.{alias.name}" for alias in node.names]
    return names


def test_core_imports_nothing_from_the_layers_above() -> None:
    offenders = []
    for path in sorted((PACKAGE / "core").glob("*.py")):
        for name in imported_modules(path):
            if name.startswith(FORBIDDEN) or name in ("minitorch", "minitorch.gradcheck"):
                offenders.append(f"{path.name}: {name}")
    assert offenders == []


def test_minitorch_never_imports_viz() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE)}: {name}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for name in imported_modules(path)
        if name == "viz" or name.startswith("viz.")
    ]
    assert offenders == []


def declared_variable_methods() -> set[str]:
    """Names declared in the ``if TYPE_CHECKING:`` block of the Variable class."""
    tree = ast.parse((PACKAGE / "core" / "variable.py").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Variable")
    names: set[str] = set()
    for node in cls.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    names.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    names.add(item.target.id)
    return names


def test_declared_variable_methods_equal_the_binding_table() -> None:
    assert declared_variable_methods() == set(VARIABLE_METHODS)


def test_every_table_entry_is_installed_on_variable() -> None:
    for name, method in VARIABLE_METHODS.items():
        assert minitorch.Variable.__dict__[name] is method, name
