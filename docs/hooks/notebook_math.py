r"""MkDocs hook: typeset the notebooks' ``$...$`` formulas as MathML, offline.

In Jupyter the notebooks' formulas are typeset by MathJax. On this site that would mean
loading MathJax from the internet, and the site must work offline. Browsers render
MathML natively, so this hook converts each ``$...$`` (inline) and ``$$...$$`` (display)
formula in the notebooks' Markdown cells to MathML with ``latex2mathml`` while the site is
built. Code cells and outputs are left alone. A formula that cannot be converted stays as
TeX, so nothing is lost.

The Markdown pages under ``docs/`` get the same treatment: ``pymdownx.arithmatex``
(``generic: true`` in mkdocs.yml) keeps each ``$...$`` / ``$$...$$`` away from Markdown's
emphasis and escapes and wraps it in an ``arithmatex`` element as ``\(...\)`` or
``\[...\]``; this hook replaces each such element by its MathML.
"""

from __future__ import annotations

import html
import logging
import re
from typing import Any

from bs4 import BeautifulSoup, NavigableString
from latex2mathml.converter import convert

log = logging.getLogger("mkdocs.hooks.notebook_math")

# $$display$$ first, then $inline$ (no newline inside; \$ is a literal dollar).
MATH = re.compile(r"\$\$(?P<display>.+?)\$\$|(?<![\\$])\$(?P<inline>[^$\n]+?)(?<!\\)\$", re.DOTALL)
SKIP_PARENTS = {"code", "pre", "script", "style", "math"}


def to_mathml(tex: str, display: bool) -> str | None:
    """MathML for ``tex``, or ``None`` if latex2mathml cannot convert it."""
    try:
        return str(convert(tex.strip(), display="block" if display else "inline"))
    except Exception as exc:  # noqa: BLE001 (a third-party parser: keep the TeX)
        log.info("notebook_math: left %r as TeX (%s)", tex, exc)
        return None


def typeset(text: str) -> str | None:
    """The HTML for a text node with its formulas as MathML (``None``: nothing to do)."""
    parts, end, changed = [], 0, False
    for match in MATH.finditer(text):
        tex = match["display"] if match["display"] is not None else match["inline"]
        mathml = to_mathml(tex, display=match["display"] is not None)
        if mathml is None:
            continue
        parts += [html.escape(text[end : match.start()]), mathml]
        end, changed = match.end(), True
    if not changed:
        return None
    parts.append(html.escape(text[end:]))
    return "".join(parts).replace("\\$", "$")


# arithmatex's generic output: \( inline \) in a span, \[ display \] in a div.
ARITHMATEX = re.compile(r"^\s*\\([(\[])(?P<tex>.*)\\[)\]]\s*$", re.DOTALL)


def typeset_arithmatex(content: str) -> str:
    """Replace every ``arithmatex`` element of a Markdown page by its MathML."""
    soup = BeautifulSoup(content, "html.parser")
    for element in soup.select(".arithmatex"):
        match = ARITHMATEX.match(element.get_text())
        if match is None:
            continue
        display = match.group(1) == "["
        mathml = to_mathml(match["tex"], display=display)
        if mathml is not None:
            element.replace_with(BeautifulSoup(mathml, "html.parser"))
    return str(soup)


def on_page_content(content: str, page: Any, config: Any, files: Any) -> str:
    """Convert the formulas of a page to MathML."""
    if not page.file.src_uri.startswith("notebooks/"):
        return typeset_arithmatex(content) if "arithmatex" in content else content
    if "$" not in content:
        return content
    soup = BeautifulSoup(content, "html.parser")
    for cell in soup.select(".jp-RenderedMarkdown"):
        for node in list(cell.find_all(string=True)):
            if "$" not in node or {p.name for p in node.parents} & SKIP_PARENTS:
                continue
            new = typeset(str(node))
            if new is not None and isinstance(node, NavigableString):
                node.replace_with(BeautifulSoup(new, "html.parser"))
    return str(soup)
