"""MkDocs hook: expand ``<!-- api: package -->`` into mkdocstrings blocks, one per public name.

Each page under ``docs/api/`` holds a short introduction and one marker line such as
``<!-- api: minitorch.ops -->``. This hook imports the package, takes its public names
(``__all__``, or else the functions and classes it defines), groups them by the module
that defines them, and writes a ``::: path`` block for each name, which mkdocstrings then
renders from the docstring.

Why not a single ``::: minitorch.ops``? Griffe, the docstring loader, cannot hold a
submodule and a member of the same name: ``minitorch.ops.reshape`` is both the module
``reshape.py`` and the function ``reshape``, and the module wins, so the function would
silently vanish. For such names the block uses the defining path
(``minitorch.ops.reshape.reshape``). A package that has not been written yet gets a
note instead of failing the build; one that exists but fails to import fails it.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

MARKER = re.compile(r"^<!-- api: ([\w.]+) -->$", re.MULTILINE)


def public_names(module: ModuleType) -> list[str]:
    """``__all__`` if the module has one, else the functions/classes it defines."""
    names = getattr(module, "__all__", None)
    if names is not None:
        return list(names)
    return [
        name
        for name, obj in vars(module).items()
        if not name.startswith("_")
        and (inspect.isfunction(obj) or inspect.isclass(obj))
        and obj.__module__ == module.__name__
    ]


def is_shadowed(module: ModuleType, name: str) -> bool:
    """Whether ``module`` has a submodule called ``name`` (Griffe would show that)."""
    folders = getattr(module, "__path__", None) or []
    return any((Path(f) / f"{name}.py").exists() or (Path(f) / name).is_dir() for f in folders)


def defined_in(module: ModuleType, obj: Any) -> str:
    """The module that defines ``obj`` (the package itself for plain attributes)."""
    if inspect.isfunction(obj) or inspect.isclass(obj):
        return str(obj.__module__)
    return module.__name__


def block(module: ModuleType, name: str, obj: Any) -> str:
    """The Markdown for one public name."""
    if inspect.ismodule(obj):
        page = obj.__name__.rsplit(".", 1)[-1]
        return f"### `{name}`\n\nThe package [`{obj.__name__}`]({page}.md).\n"
    path = f"{module.__name__}.{name}"
    # Griffe reads the source: a name hidden by a submodule, or one that the package loads
    # lazily through a module-level __getattr__, is documented where it is defined.
    hidden = is_shadowed(module, name) or name not in vars(module)
    if hidden and hasattr(obj, "__qualname__"):
        path = f"{obj.__module__}.{obj.__qualname__}"
    options = "" if callable(obj) else "\n    options:\n      show_if_no_docstring: true"
    return f"::: {path}{options}\n"


def imported_siblings(module_name: str, candidates: set[str]) -> set[str]:
    """Which of ``candidates`` the source of ``module_name`` imports."""
    origin = getattr(sys.modules.get(module_name), "__file__", None)
    if origin is None:
        return set()
    found = set()
    for node in ast.walk(ast.parse(Path(origin).read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return (found & candidates) - {module_name}


def layered(modules: list[str]) -> list[str]:
    """Sort modules so that each comes after the sibling modules it imports.

    The depth of a module is the length of its longest chain of imports among
    ``modules``; ties keep the given order. For ``minitorch.ops`` this is the order the
    op modules build on each other: reshape, arithmetic, math, reduce, ...
    """
    deps = {name: imported_siblings(name, set(modules)) for name in modules}
    depth: dict[str, int] = {}

    def depth_of(name: str, seen: frozenset[str] = frozenset()) -> int:
        if name not in depth:
            below = [depth_of(d, seen | {name}) for d in deps[name] if d not in seen]
            depth[name] = 1 + max(below, default=-1)
        return depth[name]

    return sorted(modules, key=lambda name: (depth_of(name), modules.index(name)))


def reference(package: str) -> str:
    """The Markdown that replaces the marker for ``package``."""
    try:
        module = importlib.import_module(package)
    except ModuleNotFoundError as exc:
        if exc.name is None or not package.startswith(exc.name):
            raise
        return f"!!! note\n    `{package}` has not been written yet; its reference goes here.\n"
    names = public_names(module)
    if not names:
        return f"!!! note\n    `{package}` has no public names yet.\n"
    missing = [name for name in names if not hasattr(module, name)]
    if missing:
        raise ValueError(f"{package}.__all__ lists {missing}, which the package does not define")
    # Import order (the order of the package's namespace); lazily loaded names last.
    order = [name for name in vars(module) if name in names]
    order += [name for name in names if name not in order]
    groups: dict[str, list[str]] = {}
    for name in order:
        groups.setdefault(defined_in(module, getattr(module, name)), []).append(name)
    parts = []
    # The package's own names (attributes, subpackages) first, then module by module.
    modules = layered([where for where in groups if where != package])
    for where in [package, *modules] if package in groups else modules:
        doc = inspect.getdoc(importlib.import_module(where)) or ""
        parts.append(f"## `{where}`\n\n{doc.splitlines()[0] if doc else ''}\n")
        parts += [block(module, name, getattr(module, name)) for name in groups[where]]
    return "\n".join(parts)


def on_config(config: Any) -> Any:
    """Import the packages from this checkout, whatever environment runs mkdocs."""
    root = str(Path(config["config_file_path"]).resolve().parent)
    if root not in sys.path:
        sys.path.insert(0, root)
    return config


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Replace every API marker on the page."""
    return MARKER.sub(lambda match: reference(match.group(1)), markdown)
