"""viz.draw_graph and viz.render: notebook display, files, missing binary, bad suffix."""

from __future__ import annotations

import base64
import os
import re
from pathlib import Path

import graphviz
import numpy as np
import pytest
from viz_helpers import requires_renderer, requires_system_dot, svg_texts

import minitorch.ops as F
import viz
import viz.renderer
from minitorch import Variable


def small_graph() -> Variable:
    x = Variable(np.array([1.0, 2.0]), name="x")
    return (F.tanh(x) * x).sum()


def test_draw_graph_is_a_digraph_whose_source_is_to_dot() -> None:
    view = viz.draw_graph(small_graph(), show_values=True)
    assert isinstance(view, graphviz.Digraph)
    assert view.source == viz.to_dot(small_graph(), show_values=True)


def test_repr_has_no_memory_address() -> None:
    text = repr(viz.draw_graph(small_graph()))
    assert text == "<viz.GraphView 7 nodes: 4 Variables, 3 Functions>"
    assert "0x" not in text


def hide_every_renderer(monkeypatch: pytest.MonkeyPatch) -> None:
    """No ``dot`` on PATH and no graphviz-pure either: nothing can render."""
    monkeypatch.setenv("PATH", "")
    monkeypatch.setattr(viz.renderer, "find_graphviz_pure", lambda: None)


@requires_renderer
def test_jupyter_display_is_svg_and_png_with_the_names() -> None:
    data, metadata = viz.draw_graph(small_graph())._repr_mimebundle_()
    assert set(data) == {"image/svg+xml", "image/png", "text/plain"}
    assert "x" in svg_texts(data["image/svg+xml"])
    assert "Tanh" in svg_texts(data["image/svg+xml"])
    png = base64.b64decode(data["image/png"])
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    # shown at the SVG's size (pt -> CSS px), drawn with twice as many pixels
    width_pt = float(re.search(r'width="([0-9.]+)pt"', data["image/svg+xml"])[1])  # type: ignore[index]
    assert metadata["image/png"]["width"] == round(width_pt * 4 / 3)
    png_width = int.from_bytes(png[16:20], "big")  # the IHDR chunk's width
    assert abs(png_width - 2 * metadata["image/png"]["width"]) <= 4


def test_jupyter_display_without_any_renderer_shows_source_and_install_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hide_every_renderer(monkeypatch)
    bundle = viz.draw_graph(small_graph())._repr_mimebundle_()
    assert list(bundle) == ["text/plain"]
    text = bundle["text/plain"]
    assert text.startswith("digraph minitorch {")
    assert text.rstrip().splitlines()[-1].startswith("// pip install graphviz-pure")
    assert "apt-get install graphviz" in text


@requires_renderer
@pytest.mark.parametrize("suffix, magic", [(".svg", b"<?xml"), (".png", b"\x89PNG")])
def test_render_writes_the_format_of_the_suffix(tmp_path: Path, suffix: str, magic: bytes) -> None:
    path = viz.render(small_graph(), tmp_path / f"graph{suffix}")
    assert path.read_bytes().startswith(magic)
    assert os.listdir(tmp_path) == [f"graph{suffix}"]  # no temporary file left behind


@requires_system_dot
def test_render_pdf_with_the_system_dot(tmp_path: Path) -> None:
    viz.set_renderer("dot")
    try:
        path = viz.render(small_graph(), tmp_path / "graph.pdf")
    finally:
        viz.set_renderer("auto")
    assert path.read_bytes().startswith(b"%PDF")


def test_render_dot_needs_no_binary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    path = viz.render(small_graph(), str(tmp_path / "graph.dot"), show_grads=True)
    assert path.read_text(encoding="utf-8") == viz.to_dot(small_graph(), show_grads=True)


def test_render_unknown_suffix_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(
        ValueError, match=r"unknown file suffix '\.jpeg'.*\.svg, \.png, \.pdf, \.dot"
    ):
        viz.render(small_graph(), tmp_path / "graph.jpeg")
    assert os.listdir(tmp_path) == []


def test_render_without_dot_names_the_program_and_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hide_every_renderer(monkeypatch)
    with pytest.raises(viz.GraphvizNotFoundError, match="pip install graphviz-pure"):
        viz.render(small_graph(), tmp_path / "graph.svg")
    assert os.listdir(tmp_path) == []


@requires_renderer
def test_render_replaces_an_existing_file_atomically(tmp_path: Path) -> None:
    target = tmp_path / "graph.svg"
    target.write_text("old")
    viz.render(small_graph(), target)
    assert target.read_text(encoding="utf-8").startswith("<?xml")
    assert sorted(os.listdir(tmp_path)) == ["graph.svg"]


def test_render_into_a_missing_folder_fails_clearly(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="does not exist"):
        viz.render(small_graph(), tmp_path / "nope" / "graph.dot")


def test_render_over_a_folder_names_the_path_not_the_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "graph.dot"
    target.mkdir()
    with pytest.raises(IsADirectoryError) as excinfo:
        viz.render(small_graph(), target)
    assert str(excinfo.value) == f"viz: cannot write {target}: it is a folder"
    assert os.listdir(tmp_path) == ["graph.dot"]  # the temporary file is gone


def test_render_into_a_file_as_folder_says_so(tmp_path: Path) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    with pytest.raises(NotADirectoryError, match=f"{blocker} is a file, not a folder"):
        viz.render(small_graph(), blocker / "graph.dot")
