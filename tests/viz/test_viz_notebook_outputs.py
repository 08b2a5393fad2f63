"""The graphs and steppers stored in the course notebooks.

A graph: PNG beside SVG, from the pinned renderer. A stepper widget: the picture an
untrusted JupyterLab shows, the static stepper for the docs site, and never ``text/html``
(JupyterLab would prefer it to the picture and show it as sanitised text soup).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from viz.stepper import STEPPER_MIME

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("[0-9]*.ipynb"))


def graph_outputs(path: Path) -> list[tuple[int, dict, dict]]:
    """(cell index, data, metadata) of every stored output that holds an SVG picture."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    found = []
    for i, cell in enumerate(notebook["cells"]):
        for output in cell.get("outputs", []):
            if "image/svg+xml" in output.get("data", {}):
                found.append((i, output["data"], output.get("metadata", {})))
    return found


def test_some_notebooks_store_graphs() -> None:
    assert sum(len(graph_outputs(path)) for path in NOTEBOOKS) >= 4  # notebooks 05 and 06


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_stored_graph_has_a_png_beside_its_svg(path: Path) -> None:
    for cell, data, metadata in graph_outputs(path):
        where = f"{path.name}, cell {cell}"
        text = "".join(data.get("text/plain", []))
        assert text.startswith("<viz.GraphView"), where  # a fixed repr, no memory address
        png = base64.b64decode("".join(data["image/png"]))
        assert png.startswith(b"\x89PNG\r\n\x1a\n"), where
        width = metadata["image/png"]["width"]
        assert abs(int.from_bytes(png[16:20], "big") - 2 * width) <= 4, where  # 2x, sharp
        svg = "".join(data["image/svg+xml"])
        assert "(graphviz-pure)" in svg.split("<svg")[0], f"{where}: not the pinned renderer"


def stepper_outputs(path: Path) -> list[tuple[int, dict]]:
    """(cell index, data) of every stored output that holds a stepper widget."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    return [
        (i, output["data"])
        for i, cell in enumerate(notebook["cells"])
        for output in cell.get("outputs", [])
        if "application/vnd.jupyter.widget-view+json" in output.get("data", {})
    ]


def test_notebook_05_stores_a_stepper_widget() -> None:
    (path,) = [p for p in NOTEBOOKS if p.name.startswith("05_")]
    assert len(stepper_outputs(path)) == 1


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_stored_stepper_is_a_picture_in_jupyter_and_live_on_the_site(path: Path) -> None:
    for cell, data in stepper_outputs(path):
        where = f"{path.name}, cell {cell}"
        assert set(data) == {
            "application/vnd.jupyter.widget-view+json", "image/png", "text/plain", STEPPER_MIME,
        }, where  # fmt: skip
        assert base64.b64decode("".join(data["image/png"])).startswith(b"\x89PNG"), where
        page = "".join(data[STEPPER_MIME])
        assert page.startswith('<div id="minitorch-stepper-'), where
        assert "<svg" in page and "minitorchStepper(root, data" in page, where  # live
        assert "http://" not in page and "https://" not in page, where  # offline
