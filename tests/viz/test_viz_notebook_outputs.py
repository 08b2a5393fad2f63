"""The graphs stored in the course notebooks: PNG beside SVG, from the pinned renderer."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

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
