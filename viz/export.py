"""The stepper as pictures: the still PNG a notebook shows before it runs, and a GIF.

Both are drawn by Graphviz from the stepper's one layout: the GIF's frames differ only
in colours, pen widths and which backward arrows are invisible, which Graphviz's layout
ignores, so no node moves from one frame to the next.
"""

from __future__ import annotations

import base64
import io
import os
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

from viz import renderer, style
from viz.dot import Overlay, write_dot
from viz.draw import GraphvizNotFoundError, pipe_dot, write_atomic

if TYPE_CHECKING:
    from viz.view import StepperView

#: Pixels per inch of the stepper's PNGs, the still picture and the GIF's frames: the
#: same as ``viz.render``'s PNGs, twice Graphviz's 96, so their labels stay sharp on a
#: projector and a HiDPI screen. A notebook shows the picture at half its pixel size,
#: the size a 96-dpi picture had (see :func:`picture_bundle`).
PNG_DPI = renderer.DEFAULT_DPI
#: A GIF wider than this many pixels is drawn at a lower dpi instead (a big graph at
#: 192 dpi gives a file of many megabytes): twice a 1280-px projector's width.
GIF_MAX_WIDTH = 2560


def picture_png(stepper: StepperView) -> bytes:
    """The start frame as a PNG, with the line "run the cell to step through backward".

    This is what a notebook shows where the interactive view cannot run (an untrusted
    notebook, a viewer without JavaScript). Drawn at :data:`PNG_DPI` (192), at most
    1344 × 960 px.

    Raises:
        GraphvizNotFoundError: if no Graphviz renderer is available.
    """
    return pipe_dot(stepper.dot(picture=True), "png", dpi=PNG_DPI)


def picture_bundle(stepper: StepperView) -> tuple[str, dict[str, int]] | None:
    """The start-frame PNG as base64 text and the size a notebook shows it at, or ``None``.

    The size (``{"width": ..., "height": ...}`` in CSS pixels, a notebook's
    ``image/png`` metadata) is the PNG's at 96 dpi: drawn at :data:`PNG_DPI`, it is shown
    as large as before, with twice the pixels (sharp on a HiDPI screen or a projector).
    """
    try:
        png = picture_png(stepper)
    except GraphvizNotFoundError:
        return None
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    shown = {"width": round(width * 96 / PNG_DPI), "height": round(height * 96 / PNG_DPI)}
    return base64.b64encode(png).decode("ascii"), shown


def save_gif(stepper: StepperView, path: str | os.PathLike[str], duration_ms: int = 1500) -> Path:
    """Write an animated GIF of the frames (for slides); needs Graphviz and Pillow.

    Every frame is the same layout with the step's highlights drawn in
    (:func:`frame_dot`) and its whole caption written underneath (after the memory
    line, for a stepper made with ``show_memory=True``). Drawn at
    :data:`PNG_DPI` (192, as ``viz.render``'s PNGs; the caption's type scaled to match),
    or at a lower dpi where that would be wider than :data:`GIF_MAX_WIDTH` pixels.

    Returns:
        The path written.

    Raises:
        GraphvizNotFoundError: if no Graphviz renderer is available.
    """
    from PIL import Image, ImageDraw

    def draw(k: int, dpi: float) -> Any:
        png = pipe_dot(frame_dot(stepper, k), "png", dpi=round(dpi, 1))
        return Image.open(io.BytesIO(png)).convert("RGB")

    dpi = PNG_DPI
    first = draw(0, dpi)
    if first.width > GIF_MAX_WIDTH:  # one layout: every frame has the first's size
        dpi = max(renderer.DPI_RANGE[0], dpi * GIF_MAX_WIDTH / first.width)
        first = draw(0, dpi)
    pictures = [first] + [draw(k, dpi) for k in range(1, len(stepper))]
    scale = dpi / 96  # the caption grows with the drawing: 15 px type at 96 dpi
    width = max(max(p.width for p in pictures), round(480 * scale))
    font = caption_font(round(15 * scale))
    step, margin = round(20 * scale), round(10 * scale)
    line_chars = max(40, int(width // (8 * scale)))
    # Every line of every caption is drawn (none cut off); all frames get room for the
    # longest one, at least six lines, so the GIF keeps one size.
    wrapped = [  # with show_memory, the memory line comes first
        textwrap.wrap(frame.get("memory", ""), line_chars)
        + textwrap.wrap(frame["caption"], line_chars)
        for frame in stepper.frames()
    ]
    n_lines = max([6, *map(len, wrapped)])
    frames = []
    for picture, lines in zip(pictures, wrapped):
        canvas = Image.new("RGB", (width, picture.height + 2 * margin + step * n_lines), "white")
        canvas.paste(picture, ((width - picture.width) // 2, 0))
        pen = ImageDraw.Draw(canvas)
        for i, line in enumerate(lines):
            pen.text((margin, picture.height + margin + step * i), line, fill="black",
                     font=font)  # fmt: skip
        frames.append(canvas)
    buffer = io.BytesIO()
    frames[0].save(
        buffer, format="GIF", save_all=True, append_images=frames[1:],
        duration=duration_ms, loop=0, optimize=True,
    )  # fmt: skip
    path = Path(path)
    write_atomic(path, buffer.getvalue())
    return path


def frame_dot(stepper: StepperView, k: int) -> str:
    """The drawing with frame ``k``'s highlights drawn in (for the GIF).

    Same nodes, edges and backward arrows as the stepper's ``dot()`` in the same order;
    only colours, pen widths and which arrows are invisible change, so the layout is
    the same in every frame.
    """
    frames = stepper.frames()
    frame = frames[k]
    graph = stepper.trace.graph
    done = {f["active"] for f in frames[1:k] if f["active"]}
    if k == len(frames) - 1:
        done = {f["active"] for f in frames if f["active"]}
    overlay = Overlay(names=stepper.steps.derived)
    for node_id in done:
        overlay.node_attrs[node_id] = style.DONE_FUNC
    if frame["active"]:
        overlay.node_attrs[frame["active"]] = style.CURRENT_FUNC
    for node_id in frame["got"] + frame["acc"]:
        overlay.node_attrs[node_id] = 'color="#d7301f" penwidth=3.5'
    text = write_dot(graph, stepper.options, overlay)
    func_ids = {fn.id for fn in graph.functions}
    shown = set(frame["send"]) | set(frame["recv"])
    arrows = []
    for i, (src, dst) in enumerate(graph.edges):
        colour = "#d7301f" if dst in func_ids else "#2171b5"
        look = f'style=dashed color="{colour}"' if i in shown else "style=invis"
        arrows.append(f"\t{dst} -> {src} [constraint=false penwidth=2.5 {look}]")
    return text[:-2] + "\n".join(arrows) + ("\n" if arrows else "") + "}\n"


def caption_font(size: int) -> Any:
    """DejaVu Sans from matplotlib's own fonts (it has ∂ and ×), else Pillow's default."""
    from PIL import ImageFont

    try:
        import matplotlib

        path = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
        return ImageFont.truetype(str(path), size)
    except (ImportError, OSError):
        return ImageFont.load_default(size=size)
