"""The stepper's page: its HTML, filled in from templates in ``viz/assets``.

``assets/stepper.html`` is the stepper's block (style, controls, drawing, gradient
table, legend); ``assets/page.html`` the standalone page around it; ``stepper.css`` and
``stepper.js`` its style and script. The functions here only fill those templates in:
every piece of user text (Variable names, the title, captions) goes in escaped, and the
step data goes in as JSON that cannot close its ``<script>``.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from string import Template
from typing import Any

#: The folder of the stepper's template, style and script (shipped with the package).
ASSETS = Path(__file__).resolve().parent / "assets"

#: The MIME type under which :class:`viz.StepperWidget` also stores the static stepper
#: (:meth:`BackwardStepper.to_html`) in a notebook. Jupyter front ends skip a type they
#: have no renderer for, so a notebook still shows the widget, or its picture when
#: untrusted; the docs site (``docs/hooks/notebook_steppers.py``) shows it instead of
#: the picture, live. It is not ``text/html`` on purpose: JupyterLab renders that in an
#: untrusted notebook as sanitised text soup.
STEPPER_MIME = "application/vnd.minitorch.stepper+html"

#: The legend: (key, text). A frame's ``"legend"`` lists the keys it shows.
LEGEND = (
    ("func-active", "red box: the Function whose backward runs now"),
    ("recv", "blue dashed arrow: the gradient it received"),
    ("send", "red dashed arrow: a gradient it sends to an input"),
    ("var-got", "red outline: a Variable receiving a gradient now"),
    ("badge-acc", "+= : added to the gradient collected before (fan-in)"),
    ("badge-has", "\u2202 : has its gradient (at the end: kept in .grad)"),
    ("func-done", "faded: a Function already done"),
)

_SWATCH = {
    "func-active": '<rect x="3" y="3" width="30" height="14" rx="4" fill="#fff2ae" '
    'stroke="#d7301f" stroke-width="3"/>',
    "recv": '<path d="M2 10H28" stroke="#2171b5" stroke-width="2.5" stroke-dasharray="5,2"/>'
    '<path d="M27 5L35 10L27 15Z" fill="#2171b5"/>',
    "send": '<path d="M2 10H28" stroke="#d7301f" stroke-width="2.5" stroke-dasharray="5,2"/>'
    '<path d="M27 5L35 10L27 15Z" fill="#d7301f"/>',
    "var-got": '<ellipse cx="18" cy="10" rx="15" ry="7" fill="#eeeeee" stroke="#d7301f" '
    'stroke-width="3"/>',
    "badge-acc": '<rect x="7" y="2" width="22" height="15" rx="7" fill="#d7301f"/>'
    '<text x="18" y="13.5" text-anchor="middle" fill="#fff" font-size="12" '
    'font-weight="bold" font-family="Helvetica, Arial, sans-serif">+=</text>',
    "badge-has": '<rect x="7" y="2" width="22" height="15" rx="7" fill="#238b45"/>'
    '<text x="18" y="13.5" text-anchor="middle" fill="#fff" font-size="12" '
    'font-weight="bold" font-family="Helvetica, Arial, sans-serif">\u2202</text>',
    "func-done": '<rect x="3" y="3" width="30" height="14" rx="4" fill="#fff2ae" '
    'stroke="#555" opacity="0.4"/>',
}


def asset(name: str) -> str:
    """The text of one file of ``viz/assets`` (``"stepper.js"``, ``"stepper.html"``...).

    Raises:
        FileNotFoundError: if there is no such file.
    """
    return (ASSETS / name).read_text(encoding="utf-8")


def block_html(
    element_id: str,
    title: str | None,
    drawing: str,
    first: dict[str, Any],
    n_frames: int,
) -> str:
    """The stepper's markup from ``assets/stepper.html``, showing frame ``first``.

    Args:
        element_id: the id of the block (the script finds it by this id).
        title: the line above the controls (plain text), or ``None``.
        drawing: the inline SVG, or the HTML that says what to install instead.
        first: the first frame (its counter, caption, table rows and legend keys).
        n_frames: how many frames the slider walks through.

    Returns:
        The block, ending without a newline.
    """
    rows = "".join(
        f'<tr class="mts-row-{html.escape(row[0])}"><th>{html.escape(row[0])}</th>'
        + "".join(f"<td>{html.escape(cell)}</td>" for cell in row[1:])
        + "</tr>"
        for row in first["rows"]
    )
    shown = set(first.get("legend", ()))
    legend = "".join(
        f'<li data-key="{key}"{"" if key in shown else " hidden"}>'
        f'<svg width="38" height="20" viewBox="0 0 38 20" aria-hidden="true">'
        f"{_SWATCH[key]}</svg><span>{html.escape(text)}</span></li>"
        for key, text in LEGEND
    )
    return (
        Template(asset("stepper.html"))
        .substitute(
            eid=element_id,
            css=asset("stepper.css"),
            title=f'<p class="mts-title">{html.escape(title)}</p>' if title else "",
            counter=html.escape(first["counter"]),
            last=n_frames - 1,
            caption=html.escape(first["caption"]),
            drawing=drawing,
            rows=rows,
            legend=legend,
            memory=memory_html(first),
        )
        .rstrip("\n")
    )


def memory_html(frame: dict[str, Any]) -> str:
    """The memory line of a stepper that shows memory (``""`` for one that does not).

    It shows ``frame["memory"]`` and a bar at ``frame["held"]`` of the first frame's
    bytes; ``assets/memory.js`` updates both on every frame, ``assets/memory.css``
    styles them.
    """
    if "memory" not in frame:
        return ""
    return (
        f'<style>{asset("memory.css")}</style><p class="mts-memory">'
        '<span class="mts-memory-bar" aria-hidden="true"><span style="width:100%">'
        f'</span></span><span class="mts-memory-text">{html.escape(frame["memory"])}</span>'
        "</p>\n"
    )


def script_html(element_id: str, data: Any) -> str:
    """The step data and the script that runs the block ``element_id``.

    The script starts this copy's own block: the same stepper shown twice (two cells,
    or one output displayed again) has one id twice, and ``getElementById`` finds only
    the first (``currentScript`` is null where a front end evaluates the script itself).
    """
    return (
        f'<script type="application/json" id="{element_id}-data">{json_for_script(data)}'
        "</script>\n"
        f"<script>{asset('stepper.js')}\n"
        + (asset("memory.js") if "memory" in data["frames"][0] else "")
        + "(function () {\n"
        f'  var id = "{element_id}", me = document.currentScript;\n'
        "  var data = me && me.previousElementSibling, root = data;\n"
        "  while (root && root.id !== id) root = root.previousElementSibling;\n"
        '  if (!root || !data || data.id !== id + "-data") {\n'
        "    root = document.getElementById(id);\n"
        '    data = document.getElementById(id + "-data");\n'
        "  }\n"
        "  if (!root || !data || root.minitorchStepper) return;  // already running\n"
        + (_MEMORY_START if "memory" in data["frames"][0] else _START)
        + "})();</script>"
    )


_START = "  root.minitorchStepper = minitorchStepper(root, JSON.parse(data.textContent), {});\n"
_MEMORY_START = (
    "  var parsed = JSON.parse(data.textContent);\n"
    "  root.minitorchStepper = minitorchStepper(root, parsed, "
    "{onStep: minitorchMemory(root, parsed)});\n"
)


def page_html(title: str, block: str) -> str:
    """A standalone page (``assets/page.html``) with the stepper filling the window."""
    body = block.replace('class="minitorch-stepper"', 'class="minitorch-stepper mts-page"', 1)
    return Template(asset("page.html")).substitute(title=html.escape(title), body=body)


def json_for_script(data: Any) -> str:
    """JSON that is safe inside ``<script>``: ``<``, ``>`` and ``&`` as \\u escapes."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


_PROLOG = re.compile(r"<\?xml.*?\?>|<!DOCTYPE.*?>|<!--.*?-->", re.DOTALL)
_XMLNS = re.compile(r'\s+xmlns(:xlink)?="[^"]*"')
_ID = re.compile(r'\bid="')


def clean_svg(svg: str, id_prefix: str) -> str:
    """Graphviz SVG made fit for inline HTML: no prolog, no namespace URLs, unique ids."""
    svg = _PROLOG.sub("", svg)
    svg = _XMLNS.sub("", svg)
    return _ID.sub(f'id="{id_prefix}', svg).strip()
