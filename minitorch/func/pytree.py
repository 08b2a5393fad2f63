"""Pytrees: nested tuples, lists and dicts whose leaves are Variables or ndarrays.

The transforms accept and return such nests (``f(params_dict, x)``), as JAX and
``torch.func`` do. :func:`flatten` lists the leaves with a path for error messages
(``primals[0]['W']``); :func:`unflatten` rebuilds the same nest around new leaves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TreeSpec:
    """The shape of a nest without its leaves: ``kind`` is leaf, tuple, list or dict."""

    kind: str
    children: tuple[TreeSpec, ...] = ()
    keys: tuple[Any, ...] = ()

    @property
    def num_leaves(self) -> int:
        """How many leaves a nest of this shape holds."""
        if self.kind == "leaf":
            return 1
        return sum(child.num_leaves for child in self.children)


def describe(spec: TreeSpec) -> str:
    """The nest written out with ``*`` for each leaf, for error messages.

    Example:
        >>> describe(flatten(({"W": 1, "b": 2}, [3]))[1])
        "({'W': *, 'b': *}, [*])"
    """
    if spec.kind == "leaf":
        return "*"
    items = [describe(child) for child in spec.children]
    if spec.kind == "dict":
        return "{" + ", ".join(f"{key!r}: {item}" for key, item in zip(spec.keys, items)) + "}"
    if spec.kind == "tuple":
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return "[" + ", ".join(items) + "]"


def mismatch_message(name: str, what: str, got: TreeSpec, want: str, expected: TreeSpec) -> str:
    """``what`` (structure ``got``) does not match ``want`` (structure ``expected``)."""
    message = (
        f"{name}: {what} must have the same structure as {want}: got {describe(got)}, "
        f"expected {describe(expected)} (* is one array)"
    )
    if _keys_sorted(got) == _keys_sorted(expected):
        message += "; the dicts hold the same keys in another order, and the order counts"
    return message


def _keys_sorted(spec: TreeSpec) -> TreeSpec:
    """``spec`` with every dict's entries in the order of their keys' ``repr``."""
    children = tuple(_keys_sorted(child) for child in spec.children)
    if spec.kind != "dict":
        return TreeSpec(spec.kind, children)
    pairs = sorted(zip(spec.keys, children), key=lambda pair: repr(pair[0]))
    return TreeSpec("dict", tuple(c for _, c in pairs), tuple(k for k, _ in pairs))


def flatten(tree: Any, path: str = "") -> tuple[list[Any], TreeSpec, list[str]]:
    """Return ``(leaves, spec, paths)``; anything not a tuple/list/dict is a leaf.

    Example:
        >>> leaves, spec, paths = flatten(({"W": 1, "b": 2}, [3]), "x")
        >>> leaves, paths
        ([1, 2, 3], ["x[0]['W']", "x[0]['b']", 'x[1][0]'])
    """
    if isinstance(tree, (tuple, list)):
        leaves: list[Any] = []
        paths: list[str] = []
        children = []
        for i, item in enumerate(tree):
            sub_leaves, spec, sub_paths = flatten(item, f"{path}[{i}]")
            leaves += sub_leaves
            paths += sub_paths
            children.append(spec)
        kind = "tuple" if isinstance(tree, tuple) else "list"
        return leaves, TreeSpec(kind, tuple(children)), paths
    if isinstance(tree, dict):
        leaves, paths, children = [], [], []
        for key, item in tree.items():
            sub_leaves, spec, sub_paths = flatten(item, f"{path}[{key!r}]")
            leaves += sub_leaves
            paths += sub_paths
            children.append(spec)
        return leaves, TreeSpec("dict", tuple(children), tuple(tree.keys())), paths
    return [tree], TreeSpec("leaf"), [path]


def unflatten(spec: TreeSpec, leaves: list[Any]) -> Any:
    """Rebuild the nest described by ``spec`` around ``leaves`` (in flatten's order)."""
    if len(leaves) != spec.num_leaves:
        raise ValueError(f"unflatten: {len(leaves)} leaves for a tree of {spec.num_leaves}")
    it = iter(leaves)
    return _build(spec, it)


def _build(spec: TreeSpec, it: Any) -> Any:
    if spec.kind == "leaf":
        return next(it)
    items = [_build(child, it) for child in spec.children]
    if spec.kind == "tuple":
        return tuple(items)
    if spec.kind == "list":
        return items
    return dict(zip(spec.keys, items))
