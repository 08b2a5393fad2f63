"""Griffe extension: read minitorch's docstrings the way they are written.

minitorch's docstrings head their doctests ``Example:`` (STYLE.md); Griffe's Google
parser only knows ``Examples:`` and would show the ``>>>`` lines as a quoted paragraph.
This extension renames the heading before parsing, so the examples render as code.
It also turns Sphinx roles (``:class:`Dataset```, ``:func:`no_grad```) into plain code
spans, since the site is Markdown.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

EXAMPLE_HEADING = re.compile(r"^(\s*)Example:\s*$", re.MULTILINE)
SPHINX_ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|exc|obj):`~?([^`]+)`")


class MinitorchDocstrings(griffe.Extension):
    """Normalise each docstring once the object tree is complete."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rewrite ``obj``'s docstring text in place (before it is parsed)."""
        docstring = obj.docstring
        if docstring is None:
            return
        text = EXAMPLE_HEADING.sub(r"\1Examples:", docstring.value)
        docstring.value = SPHINX_ROLE.sub(r"`\1`", text)
