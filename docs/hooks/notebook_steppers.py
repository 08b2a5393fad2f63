"""MkDocs hook: the backward steppers on the notebook pages step live, from disk too.

In a notebook, ``viz.StepperWidget`` displays as a Jupyter widget. Its stored output holds
three other forms of it as well: a PNG of the start frame (what JupyterLab shows in an
untrusted notebook), fixed ``text/plain``, and, under the MIME type
``viz.stepper.STEPPER_MIME``, the static stepper of ``BackwardStepper.to_html()`` — the
same drawing and step data with its own script, which needs no kernel and no network.
mkdocs-jupyter (nbconvert) renders no widget without stored widget state, and no MIME type
it does not know, so on its own it shows the PNG: a still picture.

This hook puts the static stepper in that picture's place on the notebook's page. It finds
the output by the cell's id (nbconvert gives each cell ``id="cell-id=<id>"``) and the
output's position in the cell, checks that it is the picture it replaces, and inserts the
stored HTML byte for byte (BeautifulSoup would rewrite the inline SVG and script). The
stepper's text is kept out of the search index, like the prompts.

The published copy of the notebook (the ``.ipynb`` beside the page) stays as it is. Putting
the stepper there as ``text/html`` would be simpler but wrong: JupyterLab prefers
``text/html`` to the picture and renders it in an untrusted notebook, i.e. any downloaded
one, as sanitised text soup.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bs4 import BeautifulSoup, Comment
from mkdocs.exceptions import PluginError

from viz.stepper import STEPPER_MIME

# The classes nbconvert gives a text/html result, so the theme treats it as one.
OUTPUT_CLASSES = (
    "jp-RenderedHTMLCommon jp-RenderedHTML jp-OutputArea-output jp-OutputArea-executeResult"
)
SLOT = "minitorch-stepper-slot-{}"


def joined(value: Any) -> str:
    """A notebook string field, stored as a string or a list of lines."""
    return "".join(value) if isinstance(value, list) else str(value)


def stepper_outputs(notebook: dict[str, Any]) -> list[tuple[str, int, dict[str, Any]]]:
    """``(cell id, output index, output data)`` of every output that holds a stepper.

    Raises:
        PluginError: if such a cell has no id (nbformat 4.5 notebooks always have one).
    """
    found = []
    for k, cell in enumerate(notebook.get("cells", [])):
        for index, output in enumerate(cell.get("outputs", [])):
            if STEPPER_MIME not in output.get("data", {}):
                continue
            if not cell.get("id"):
                raise PluginError(
                    f"notebook_steppers: code cell {k} holds a stepper but has no cell id "
                    "(re-run scripts/run_notebooks.py, which writes nbformat 4.5 ids)"
                )
            found.append((str(cell["id"]), index, output["data"]))
    return found


def insert_steppers(content: str, notebook: dict[str, Any], name: str) -> str:
    """The page ``content`` with each stored stepper of ``notebook`` in its output's place.

    Args:
        content: the HTML that mkdocs-jupyter rendered from ``notebook``.
        notebook: the notebook (parsed JSON).
        name: the notebook's name, for the errors.

    Raises:
        PluginError: if a stepper's output is not on the page, or is not the picture of
            that output (the page and the notebook disagree).
    """
    outputs = stepper_outputs(notebook)
    if not outputs:
        return content
    soup = BeautifulSoup(content, "html.parser")
    stored = []
    for cell_id, index, data in outputs:
        cell = soup.find(id=f"cell-id={cell_id}")
        children = cell.select(".jp-OutputArea-child") if cell is not None else []
        if index >= len(children):
            raise PluginError(
                f"notebook_steppers: {name}: cell {cell_id!r} has no output {index} on the page"
            )
        shown = children[index].select_one(".jp-OutputArea-output")
        png = joined(data.get("image/png", ""))
        image = shown.find("img") if shown is not None else None
        if shown is None or (png and (image is None or not image.get("src", "").endswith(png))):
            raise PluginError(
                f"notebook_steppers: {name}: output {index} of cell {cell_id!r} on the page "
                "is not the stepper's stored picture"
            )
        slot = soup.new_tag("div", attrs={"class": OUTPUT_CLASSES, "data-mime-type": "text/html"})
        slot["data-search-exclude"] = ""
        slot.append(Comment(SLOT.format(len(stored))))
        shown.replace_with(slot)
        stored.append(joined(data[STEPPER_MIME]))
    page = str(soup)
    for k, stepper_html in enumerate(stored):
        marker = f"<!--{SLOT.format(k)}-->"
        assert page.count(marker) == 1, marker
        page = page.replace(marker, "\n" + stepper_html + "\n")
    return page


def on_page_content(content: str, page: Any, config: Any, files: Any) -> str:
    """Show the live stepper in place of its picture on a notebook page."""
    source = page.file.abs_src_path
    if not str(page.file.src_uri).endswith(".ipynb") or source is None:
        return content
    text = Path(source).read_text(encoding="utf-8")
    if STEPPER_MIME not in text:
        return content
    return insert_steppers(content, json.loads(text), Path(source).name)
