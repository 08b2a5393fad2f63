"""viz.draw_graph and viz.render: notebook display, files, missing binary, bad suffix."""

from __future__ import annotations

import os
from pathlib import Path

import graphviz
import numpy as np
import pytest
from viz_helpers import requires_dot, svg_texts

import minitorch.ops as F
import viz
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


@requires_dot
def test_jupyter_display_is_svg_with_the_names() -> None:
    bundle = viz.draw_graph(small_graph())._repr_mimebundle_()
    assert set(bundle) == {"image/svg+xml", "text/plain"}
    assert "x" in svg_texts(bundle["image/svg+xml"])
    assert "Tanh" in svg_texts(bundle["image/svg+xml"])


def test_jupyter_display_without_dot_shows_source_and_install_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PATH", "")
    bundle = viz.draw_graph(small_graph())._repr_mimebundle_()
    assert list(bundle) == ["text/plain"]
    text = bundle["text/plain"]
    assert text.startswith("digraph minitorch {")
    assert text.rstrip().splitlines()[-1].startswith("// install the Graphviz 'dot' program")
    assert "apt-get install graphviz" in text


@requires_dot
@pytest.mark.parametrize(
    "suffix, magic", [(".svg", b"<?xml"), (".png", b"\x89PNG"), (".pdf", b"%PDF")]
)
def test_render_writes_the_format_of_the_suffix(tmp_path: Path, suffix: str, magic: bytes) -> None:
    path = viz.render(small_graph(), tmp_path / f"graph{suffix}")
    assert path.read_bytes().startswith(magic)
    assert os.listdir(tmp_path) == [f"graph{suffix}"]  # no temporary file left behind


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
    monkeypatch.setenv("PATH", "")
    with pytest.raises(viz.GraphvizNotFoundError, match="'dot' program was not found"):
        viz.render(small_graph(), tmp_path / "graph.svg")
    assert os.listdir(tmp_path) == []


@requires_dot
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
