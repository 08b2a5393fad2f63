"""Shared helpers for the viz tests."""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET

import pytest

from viz.renderer import GraphvizNotFoundError, get_renderer


def _has_renderer() -> bool:
    try:
        get_renderer()
    except (GraphvizNotFoundError, ValueError):
        return False
    return True


#: A Graphviz renderer runs: the system ``dot`` or the ``graphviz-pure`` wheel (a viz
#: dependency, so this is true after ``make venv``).
HAS_RENDERER = _has_renderer()
requires_renderer = pytest.mark.skipif(
    not HAS_RENDERER,
    reason="no Graphviz renderer: pip install graphviz-pure (or apt-get install graphviz)",
)
#: Older names, kept for the tests that use them: "a renderer runs", not "dot" itself.
HAS_DOT = HAS_RENDERER
requires_dot = requires_renderer

#: The system ``dot`` program itself (needed for PDF output only).
HAS_SYSTEM_DOT = shutil.which("dot") is not None
requires_system_dot = pytest.mark.skipif(
    not HAS_SYSTEM_DOT,
    reason="the Graphviz 'dot' program is not installed (apt-get install graphviz)",
)

NODE_LINE = re.compile(r"^\t+([vf]\d+) \[label=<(.*)> (shape=.*)\]$")


def node_lines(dot: str) -> dict[str, str]:
    """Node id -> the label text of every Variable/Function node statement."""
    found = {}
    for line in dot.split("\n"):  # not splitlines(): it also splits at U+2028 and friends
        match = NODE_LINE.match(line)
        if match:
            found[match.group(1)] = match.group(2)
    return found


def svg_texts(svg: str) -> list[str]:
    """Every visible text of a Graphviz SVG, as the browser would show it."""
    root = ET.fromstring(svg)
    return ["".join(el.itertext()) for el in root.iter("{http://www.w3.org/2000/svg}text")]


def svg_node_count(svg: str) -> int:
    root = ET.fromstring(svg)
    groups = root.iter("{http://www.w3.org/2000/svg}g")
    return sum(1 for g in groups if g.get("class") == "node")
