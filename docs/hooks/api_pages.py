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

The overview ``docs/api/index.md`` holds ``<!-- api: overview -->`` instead: it becomes a
table of every API page (each page under ``docs/api/`` with a package marker), with the
package's one-line summary and links to its main names. A new page under ``docs/api/``
appears there, and in the "API reference" section of the nav, without editing either.
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
OVERVIEW = "overview"
API_SECTION = "API reference"
# A package with at most this many names has each linked in the overview, else its sections.
OVERVIEW_NAMES = 25


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


def object_path(module: ModuleType, name: str, obj: Any) -> str:
    """The dotted path that documents ``module.name`` (also the id of its heading)."""
    path = f"{module.__name__}.{name}"
    # Griffe reads the source: a name hidden by a submodule, or one that the package loads
    # lazily through a module-level __getattr__, is documented where it is defined.
    hidden = is_shadowed(module, name) or name not in vars(module)
    if hidden and hasattr(obj, "__qualname__"):
        path = f"{obj.__module__}.{obj.__qualname__}"
    return path


def summary(module: ModuleType) -> str:
    """The first line of the module's docstring, as Markdown (``code`` -> `code`)."""
    doc = inspect.getdoc(module) or ""
    return doc.splitlines()[0].replace("``", "`") if doc else ""


def block(module: ModuleType, name: str, obj: Any) -> str:
    """The Markdown for one public name."""
    if inspect.ismodule(obj):
        page = obj.__name__.rsplit(".", 1)[-1]
        return f"### `{name}`\n\n{summary(obj)} See [`{obj.__name__}`]({page}.md).\n"
    path = object_path(module, name, obj)
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


def import_package(package: str) -> ModuleType | None:
    """The package, or None if it has not been written yet (a broken import raises)."""
    try:
        return importlib.import_module(package)
    except ModuleNotFoundError as exc:
        if exc.name is None or not package.startswith(exc.name):
            raise
        return None


def sections(module: ModuleType) -> list[tuple[str, list[str]]]:
    """The reference's sections: ``(defining module, its public names)``, in page order.

    The package's own names come first, then module by module in the order the modules
    build on each other; names in import order (the package's namespace), lazily loaded
    names last. Subpackages are left out: they have pages of their own.
    """
    package = module.__name__
    names = public_names(module)
    order = [name for name in vars(module) if name in names]
    order += [name for name in names if name not in order]
    groups: dict[str, list[str]] = {}
    for name in order:
        obj = getattr(module, name)
        if not inspect.ismodule(obj):
            groups.setdefault(defined_in(module, obj), []).append(name)
    modules = layered([where for where in groups if where != package])
    return [(where, groups[where]) for where in [package, *modules] if where in groups]


def subpackages(module: ModuleType) -> list[str]:
    """The public names of ``module`` that are subpackages (or submodules)."""
    return [name for name in public_names(module) if inspect.ismodule(getattr(module, name))]


def reference(package: str) -> str:
    """The Markdown that replaces the marker for ``package``."""
    module = import_package(package)
    if module is None:
        return f"!!! note\n    `{package}` has not been written yet; its reference goes here.\n"
    names = public_names(module)
    if not names:
        return f"!!! note\n    `{package}` has no public names yet.\n"
    missing = [name for name in names if not hasattr(module, name)]
    if missing:
        raise ValueError(f"{package}.__all__ lists {missing}, which the package does not define")
    parts = []
    for where, members in sections(module):
        # An explicit id, so that the API overview can link each section.
        parts.append(f"## `{where}` {{ #{where} }}\n\n{summary(importlib.import_module(where))}\n")
        parts += [block(module, name, getattr(module, name)) for name in members]
    if subpackages(module):
        parts.append(f"## Subpackages of `{package}`\n")
        parts += [block(module, name, getattr(module, name)) for name in subpackages(module)]
    return "\n".join(parts)


def api_pages(config: Any) -> list[tuple[str, str]]:
    """``(page path under docs/, package)`` for every API page, in the nav's order."""
    docs = Path(config["docs_dir"])
    found = {}
    for page in sorted((docs / "api").glob("*.md")):
        match = MARKER.search(page.read_text(encoding="utf-8"))
        if match and match.group(1) != OVERVIEW:
            found[page.relative_to(docs).as_posix()] = match.group(1)
    in_nav = [path for path in nav_paths(config["nav"] or []) if path in found]
    return [(path, found[path]) for path in in_nav + sorted(set(found) - set(in_nav))]


def nav_paths(nav: Any) -> list[str]:
    """Every page path named in a (nested) MkDocs nav, in order."""
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, dict):
        return [path for value in nav.values() for path in nav_paths(value)]
    if isinstance(nav, list):
        return [path for item in nav for path in nav_paths(item)]
    return []


def overview_row(module: ModuleType, link: str) -> str:
    """One row of the overview: the package, its summary, links into its page.

    A package with few names links each of them; a larger one links its sections (the
    modules that define its names), with how many names each holds.
    """
    found = sections(module)
    count = sum(len(members) for _, members in found)
    if count <= OVERVIEW_NAMES:
        links = [
            f"[`{name}`]({link}#{object_path(module, name, getattr(module, name))})"
            for _, members in found
            for name in members
        ]
    else:
        links = [
            f"[`{where.rsplit('.', 1)[-1]}`]({link}#{where}) ({len(members)})"
            for where, members in found
        ]
    links += [f"[`{name}`]({name}.md)" for name in subpackages(module)]
    package = module.__name__
    # The first docstring line often repeats the name: "viz: draw ..." or "(``minitorch.nn``)".
    text = re.sub(rf"^{re.escape(package)}:\s*|\s*\(`{re.escape(package)}`\)", "", summary(module))
    return f"| [`{package}`]({link}) | {text[:1].upper() + text[1:]} | {', '.join(links)} |"


def overview(config: Any, page_path: str) -> str:
    """The Markdown table of the API pages (links relative to ``page_path``)."""
    here = Path(page_path).parent
    rows = ["| Package | What it holds | On its page |", "|---|---|---|"]
    for path, package in api_pages(config):
        link = Path(path).relative_to(here).as_posix()
        module = import_package(package)
        if module is None:
            rows.append(f"| [`{package}`]({link}) | *Not written yet.* | |")
        else:
            rows.append(overview_row(module, link))
    table = "\n".join(rows)
    return f'<div class="api-map" markdown>\n\n{table}\n\n</div>\n'


def on_config(config: Any) -> Any:
    """Import the packages from this checkout; list every API page in the nav.

    An API page that ``mkdocs.yml`` does not list yet is appended to the nav's "API
    reference" section, titled by its package, so a new page never fails the strict build
    as "not in the nav".
    """
    root = str(Path(config["config_file_path"]).resolve().parent)
    if root not in sys.path:
        sys.path.insert(0, root)
    listed = set(nav_paths(config["nav"] or []))
    missing = [{package: path} for path, package in api_pages(config) if path not in listed]
    for item in config["nav"] or []:
        if missing and isinstance(item, dict) and API_SECTION in item:
            item[API_SECTION] = [*(item[API_SECTION] or []), *missing]
            break
    return config


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Replace every API marker on the page."""

    def expand(match: re.Match[str]) -> str:
        if match.group(1) == OVERVIEW:
            return overview(config, str(page.file.src_uri))
        return reference(match.group(1))

    return MARKER.sub(expand, markdown)
