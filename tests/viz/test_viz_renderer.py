"""viz.renderer: the system dot or graphviz-pure, chosen in code or by the environment."""

from __future__ import annotations

import inspect
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from viz_helpers import HAS_SYSTEM_DOT, svg_texts

import minitorch.ops as F
import viz
import viz.draw
import viz.renderer
from minitorch import Variable

HAS_PURE = viz.renderer.find_graphviz_pure() is not None
requires_pure = pytest.mark.skipif(not HAS_PURE, reason="graphviz-pure is not installed")


@pytest.fixture(autouse=True)
def default_renderer(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts from the default choice and leaves it so."""
    monkeypatch.delenv(viz.renderer.ENV_VAR, raising=False)
    viz.set_renderer("auto")
    yield
    viz.set_renderer("auto")


def hide_system_dot(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A PATH with no ``dot`` (nor anything else) on it."""
    empty = tmp_path / "empty-bin"
    empty.mkdir(exist_ok=True)
    monkeypatch.setenv("PATH", str(empty))
    assert shutil.which("dot") is None


def small_graph() -> Variable:
    x = Variable(np.array([1.0, 2.0]), name="x")
    return (F.tanh(x) * x).sum()


@requires_pure
def test_without_dot_on_path_graphviz_pure_draws(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    hide_system_dot(monkeypatch, tmp_path)
    renderer = viz.get_renderer()
    assert renderer.name == "graphviz-pure" and os.path.isabs(renderer.program)
    path = viz.render(small_graph(), tmp_path / "graph.svg")
    svg = path.read_text(encoding="utf-8")
    assert "graphviz-pure" in svg.split("<svg")[0]  # its version comment
    assert {"x", "Tanh", "Mul", "Sum"} <= set(svg_texts(svg))
    assert viz.render(small_graph(), tmp_path / "graph.png").read_bytes()[:4] == b"\x89PNG"
    data, _ = viz.draw_graph(small_graph())._repr_mimebundle_()
    assert {"image/svg+xml", "image/png"} <= set(data)


@requires_pure
def test_graphviz_pure_writes_no_pdf_and_says_so(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    hide_system_dot(monkeypatch, tmp_path)
    with pytest.raises(ValueError, match="cannot write 'pdf'.*install the Graphviz 'dot'"):
        viz.render(small_graph(), tmp_path / "graph.pdf")
    assert os.listdir(tmp_path) == ["empty-bin"]  # nothing half-written


@pytest.mark.skipif(not (HAS_PURE and HAS_SYSTEM_DOT), reason="needs dot and graphviz-pure")
def test_auto_prefers_the_system_dot_and_both_can_be_chosen() -> None:
    assert viz.get_renderer().name == "dot"
    viz.set_renderer("graphviz-pure")
    assert viz.get_renderer().name == "graphviz-pure"
    pure_svg = viz.draw_graph(small_graph()).pipe("svg").decode()
    viz.set_renderer("dot")
    dot_svg = viz.draw_graph(small_graph()).pipe("svg").decode()
    assert "graphviz-pure" in pure_svg and "graphviz-pure" not in dot_svg
    assert set(svg_texts(pure_svg)) == set(svg_texts(dot_svg))  # the same picture


@requires_pure
def test_the_environment_variable_chooses_and_set_renderer_wins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(viz.renderer.ENV_VAR, "graphviz-pure")
    assert viz.get_renderer().name == "graphviz-pure"
    if HAS_SYSTEM_DOT:
        viz.set_renderer("dot")
        assert viz.get_renderer().name == "dot"


def test_set_renderer_fails_at_once_for_a_missing_renderer(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    hide_system_dot(monkeypatch, tmp_path)
    with pytest.raises(viz.GraphvizNotFoundError) as excinfo:
        viz.set_renderer("dot")  # on this line, not at the first picture
    message = str(excinfo.value)
    assert "'dot' was chosen (by viz.set_renderer)" in message
    assert "sudo apt-get install graphviz" in message and "'graphviz-pure'" in message
    assert viz.renderer.requested_renderer() == "auto"  # the choice is unchanged
    monkeypatch.setattr(viz.renderer, "find_graphviz_pure", lambda: None)
    with pytest.raises(viz.GraphvizNotFoundError, match="'graphviz-pure' was chosen.*pip"):
        viz.set_renderer("graphviz-pure")


@pytest.mark.parametrize("call", ["draw_graph", "render", "BackwardStepper", "get_renderer"])
def test_a_missing_renderer_in_the_environment_fails_at_first_use(
    call: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    hide_system_dot(monkeypatch, tmp_path)
    monkeypatch.setenv(viz.renderer.ENV_VAR, "dot")
    calls = {
        "draw_graph": lambda: viz.draw_graph(small_graph()),  # was: DOT text on display
        "render": lambda: viz.render(small_graph(), tmp_path / "graph.svg"),
        "BackwardStepper": lambda: viz.BackwardStepper(viz.trace_backward(small_graph())),
        "get_renderer": viz.get_renderer,
    }
    with pytest.raises(viz.GraphvizNotFoundError) as excinfo:
        calls[call]()
    message = str(excinfo.value)
    assert "'dot' was chosen (by MINITORCH_VIZ_RENDERER)" in message
    assert "apt-get install graphviz" in message and "'graphviz-pure'" in message
    assert os.listdir(tmp_path) == ["empty-bin"]  # nothing written
    # DOT text needs no renderer, so it is still written.
    assert viz.render(small_graph(), tmp_path / "graph.dot").exists()


def test_unknown_renderer_names_are_rejected_with_the_choices(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(ValueError, match="'auto', 'dot', 'graphviz-pure'"):
        viz.set_renderer("cairo")
    monkeypatch.setenv(viz.renderer.ENV_VAR, "neato")
    with pytest.raises(ValueError, match="MINITORCH_VIZ_RENDERER='neato'"):
        viz.get_renderer()


def test_no_renderer_at_all_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    hide_system_dot(monkeypatch, tmp_path)
    monkeypatch.setattr(viz.renderer, "find_graphviz_pure", lambda: None)
    with pytest.raises(viz.GraphvizNotFoundError, match="pip install graphviz-pure"):
        viz.render(small_graph(), tmp_path / "graph.svg")


@requires_pure
def test_renderer_failure_carries_its_message(monkeypatch: pytest.MonkeyPatch) -> None:
    viz.set_renderer("graphviz-pure")
    with pytest.raises(RuntimeError, match="graphviz-pure -Tsvg failed"):
        viz.renderer.pipe("digraph { a -> }", "svg")


def test_draw_graph_and_render_spell_out_their_options() -> None:
    expected = [
        "show_values", "show_grads", "show_shapes", "verbose", "rankdir", "max_nodes",
        "hide_constants", "legend", "module", "group_modules", "show_memory",
    ]  # fmt: skip
    for func, extra in ((viz.draw_graph, []), (viz.render, ["dpi"]), (viz.to_dot, [])):
        params = inspect.signature(func).parameters
        keywords = [n for n, p in params.items() if p.kind is p.KEYWORD_ONLY]
        assert keywords == expected + extra, func.__name__
        assert all(name in (func.__doc__ or "") for name in expected + extra)
    assert list(viz.draw.RENDER_OPTIONS) == expected + ["dpi"]


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


RENDERER_NAMES = [
    pytest.param("dot", marks=pytest.mark.skipif(not HAS_SYSTEM_DOT, reason="no dot")),
    pytest.param("graphviz-pure", marks=requires_pure),
]


@pytest.mark.parametrize("name", RENDERER_NAMES)
def test_render_png_is_192_dpi_by_default_and_dpi_sets_it(name: str, tmp_path: Path) -> None:
    viz.set_renderer(name)
    graph = small_graph()
    svg = viz.render(graph, tmp_path / "g.svg").read_text(encoding="utf-8")
    width_pt = float(svg.split('width="', 1)[1].split("pt", 1)[0])
    for dpi, path in [
        (192, viz.render(graph, tmp_path / "default.png")),
        (144, viz.render(graph, tmp_path / "a.png", dpi=144)),
        (300, viz.render(graph, tmp_path / "b.PNG", dpi=300.0)),
        (96, viz.render(graph, tmp_path / "c.png", dpi=np.int64(96))),
    ]:
        width_px = png_size(path.read_bytes())[0]
        # Graphviz rounds the page size to whole pixels, plus a pixel of margin.
        assert abs(width_px - width_pt * dpi / 72) <= 3, (name, dpi, width_px, width_pt)


@pytest.mark.parametrize("bad", [0, -96, 20, 5000, float("nan"), float("inf"), True, "high"])
def test_a_bad_dpi_is_a_value_error_naming_it(bad: object, tmp_path: Path) -> None:
    with pytest.raises(ValueError) as excinfo:
        viz.render(small_graph(), tmp_path / "g.png", dpi=bad)  # type: ignore[arg-type]
    assert str(excinfo.value) == (
        f"viz.render: dpi must be a number of pixels per inch from 36 to 1200, got {bad!r}"
    )
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("suffix", [".svg", ".pdf", ".dot"])
def test_dpi_is_for_png_only(suffix: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=f"dpi=150 applies to .png files only, not '{suffix}'"):
        viz.render(small_graph(), tmp_path / f"g{suffix}", dpi=150)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(
    ("suffix", "why"),
    [
        (".svg", "an SVG is a vector picture"),
        (".pdf", "a PDF is a vector picture"),
        (".dot", "a .dot file is the graph's DOT text, which has no pixels"),
    ],
)
def test_the_dpi_error_gives_the_reason_for_that_suffix(
    suffix: str, why: str, tmp_path: Path
) -> None:
    with pytest.raises(ValueError) as excinfo:
        viz.render(small_graph(), tmp_path / f"g{suffix}", dpi=150)
    message = str(excinfo.value)
    assert why in message and "drop dpi= or write a .png" in message
    assert ("SVG" in message) == (suffix == ".svg")  # .dot is not said to be a picture
    assert ("PDF" in message) == (suffix == ".pdf")


def test_a_misspelt_dpi_is_suggested(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="unknown option 'dip' \\(did you mean 'dpi'\\?\\)"):
        viz.render(small_graph(), tmp_path / "g.png", dip=150)


@pytest.mark.parametrize("func", ["draw_graph", "render", "to_dot"])
def test_unknown_options_are_rejected_naming_the_valid_ones(func: str, tmp_path: Path) -> None:
    args: list[object] = [small_graph()]
    if func == "render":
        args.append(tmp_path / "graph.dot")
    with pytest.raises(TypeError) as excinfo:
        getattr(viz, func)(*args, show_grad=True)
    message = str(excinfo.value)
    assert f"viz.{func}: unknown option 'show_grad' (did you mean 'show_grads'?)" in message
    assert "valid options: show_values, show_grads" in message
    assert os.listdir(tmp_path) == []


def test_a_bad_environment_variable_fails_at_the_first_drawing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(viz.renderer.ENV_VAR, "neato")
    with pytest.raises(ValueError, match="MINITORCH_VIZ_RENDERER='neato'.*auto, dot"):
        viz.draw_graph(small_graph())
    monkeypatch.delenv(viz.renderer.ENV_VAR)
    view = viz.draw_graph(small_graph())
    monkeypatch.setenv(viz.renderer.ENV_VAR, "neato")  # changed after drawing: text, no traceback
    bundle = view._repr_mimebundle_()
    assert list(bundle) == ["text/plain"]
    assert bundle["text/plain"].rstrip().endswith("use one of auto, dot, graphviz-pure")


def test_without_any_renderer_auto_still_displays_dot_text(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    hide_system_dot(monkeypatch, tmp_path)
    monkeypatch.setattr(viz.renderer, "find_graphviz_pure", lambda: None)
    bundle = viz.draw_graph(small_graph())._repr_mimebundle_()
    assert list(bundle) == ["text/plain"] and "pip install graphviz-pure" in bundle["text/plain"]
