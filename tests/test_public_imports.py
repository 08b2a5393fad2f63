"""The layers above the ops (nn, optim, data, func) use only other packages' public faces.

Issue 17's loose ends: ``nn`` reached into ``minitorch.ops.windows.pair`` and
``minitorch.core.config.current_state``, modules imported each other's ``_private``
helpers, and ``nn/module.py`` imported ``weights`` inside four methods. Each of those is
caught here, from the source (the AST), without running anything.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import minitorch

PACKAGE = Path(minitorch.__file__).parent
LAYERS = ("nn", "optim", "data", "func")


def offences(source: str, package: str) -> list[str]:
    """What a file of ``minitorch.<package>`` imports that it should not, one line each.

    - a ``_private`` name of any minitorch module;
    - a module inside another package (``minitorch.ops.windows``) instead of the package
      itself (``minitorch.ops``) or a top-level module (``minitorch.random``);
    - any minitorch import inside a function or class (a cycle dodged at run time).
    """
    tree = ast.parse(source)
    top_level = {id(node) for node in tree.body}
    for node in tree.body:  # imports under a module-level ``if TYPE_CHECKING:`` count as top
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            top_level |= {id(child) for child in node.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            modules, names = [node.module], [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            modules, names = [alias.name for alias in node.names], []
        else:
            continue
        for module in modules:
            if module != "minitorch" and not module.startswith("minitorch."):
                continue
            parts = module.split(".")
            if len(parts) > 2 and parts[1] != package:
                found.append(f"line {node.lineno}: {module} is inside another package")
            found += [f"line {node.lineno}: {name} is private" for name in names if name[0] == "_"]
            if id(node) not in top_level:
                found.append(f"line {node.lineno}: {module} imported inside a function")
    return found


@pytest.mark.parametrize("package", LAYERS)
def test_the_layers_import_only_public_names_at_module_level(package: str) -> None:
    found = [
        f"{path.relative_to(PACKAGE)} {offence}"
        for path in sorted((PACKAGE / package).glob("*.py"))
        for offence in offences(path.read_text(), package)
    ]
    assert found == []


def test_the_top_level_modules_import_only_public_names_at_module_level() -> None:
    found = [
        f"{path.name} {offence}"
        for path in sorted(PACKAGE.glob("*.py"))  # __init__, gradcheck, history, random
        for offence in offences(path.read_text(), "")
    ]
    assert found == []


@pytest.mark.parametrize(
    ("source", "offence"),
    [
        ("from minitorch.ops.windows import pair", "inside another package"),
        ("from minitorch.core.config import current_state", "inside another package"),
        ("from minitorch.nn.checks import _size", "is private"),
        ("def f():\n    from minitorch.nn import weights", "inside a function"),
    ],
)
def test_the_check_finds_each_kind_of_offence(source: str, offence: str) -> None:
    (found,) = offences(source, "nn")
    assert offence in found


def test_the_check_allows_public_faces_and_type_checking_imports() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "import minitorch.ops as F\n"
        "from minitorch.core import Variable\n"
        "from minitorch.random import default_generator\n"
        "from minitorch.nn.module import Module\n"
        "if TYPE_CHECKING:\n"
        "    from minitorch.nn.weights import WeightFileError\n"
    )
    assert offences(source, "nn") == []
