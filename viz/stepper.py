"""``BackwardStepper``: step through a recorded backward pass, in Jupyter or a browser.

Each frame is the graph of the trace with one step highlighted: the Function whose
backward runs (red box), the edges its gradients travel along (red: sent to the inputs,
labelled with the value; blue: received from the outputs), and the Variables that
receive a gradient (double red border when a second contribution is added — a fan-in).
Frame 0 shows the seed, the last frame the finished gradients.

The HTML is one self-contained block: every frame's SVG is embedded, and a range slider
plus previous/next buttons switch frames with a few lines of plain inline JavaScript —
no CDN, no widget state — so it works offline, in exported notebooks and in the docs.
Element ids are derived from the content and a per-process counter, so they are unique
on a page and the same on every run (stable notebook outputs).
"""

from __future__ import annotations

import hashlib
import html
import io
import itertools
import os
import re
from pathlib import Path

from viz import style
from viz.dot import DotOptions, Overlay, write_dot
from viz.draw import GraphvizNotFoundError, pipe_dot, write_atomic
from viz.labels import escape, format_array
from viz.trace import BackwardTrace

_serial = itertools.count(1)

_SCRIPT = """<script>(function () {
  var root = document.getElementById("%(id)s");
  var frames = root.querySelectorAll(".mts-frame");
  var slider = document.getElementById("%(id)s-slider");
  var label = document.getElementById("%(id)s-label");
  function show(k) {
    k = Math.max(0, Math.min(frames.length - 1, k));
    for (var i = 0; i < frames.length; i++) {
      frames[i].style.display = i === k ? "block" : "none";
    }
    slider.value = k;
    label.textContent = "frame " + k + " / " + (frames.length - 1);
    root.setAttribute("data-frame", k);
  }
  document.getElementById("%(id)s-prev").addEventListener("click", function () {
    show(Number(slider.value) - 1);
  });
  document.getElementById("%(id)s-next").addEventListener("click", function () {
    show(Number(slider.value) + 1);
  });
  slider.addEventListener("input", function () { show(Number(slider.value)); });
  show(0);
})();</script>"""


class BackwardStepper:
    """An interactive, self-contained view of a :class:`~viz.trace.BackwardTrace`.

    Args:
        trace: the result of :func:`viz.trace_backward`.
        show_values: show each Variable's values in the frames.
        show_shapes: show shapes and dtypes.
        rankdir: graph direction, as in :func:`viz.to_dot`.

    Attributes:
        element_id: the id of the HTML block (deterministic).

    Raises:
        TypeError: if ``trace`` is not a BackwardTrace.
        ValueError: for an unknown ``rankdir``.

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> from viz import trace_backward
        >>> x = Variable(np.array(2.0), name="x")
        >>> stepper = BackwardStepper(trace_backward(x * x + x))
        >>> len(stepper.frames())  # the seed, two steps, the result
        4
        >>> "http" in stepper.to_html()
        False
    """

    def __init__(
        self,
        trace: BackwardTrace,
        *,
        show_values: bool = True,
        show_shapes: bool = True,
        rankdir: str = "TB",
    ) -> None:
        if not isinstance(trace, BackwardTrace):
            raise TypeError(
                f"viz.BackwardStepper: expected the result of viz.trace_backward, "
                f"got {type(trace).__name__}"
            )
        if rankdir not in style.RANKDIRS:
            raise ValueError(f"viz: rankdir must be one of {style.RANKDIRS}, got {rankdir!r}")
        self.trace = trace
        self.options = DotOptions(
            show_values=show_values, show_shapes=show_shapes, rankdir=rankdir
        )
        self._frames: list[str] | None = None
        digest = hashlib.sha1("".join(self.frames()).encode("utf-8")).hexdigest()[:10]
        self.element_id = f"minitorch-stepper-{digest}-{next(_serial)}"
        self._html: str | None = None

    def __repr__(self) -> str:
        return f"<viz.BackwardStepper {len(self.trace)} steps>"

    def captions(self) -> list[str]:
        """One line of text per frame: what happens in it."""
        n = len(self.trace)
        texts = ["start: backward seeds the output's gradient with ones (dy/dy = 1)"]
        texts += [self.trace.describe(k) for k in range(n)]
        texts.append(f"done: {n} Functions ran; each leaf now holds its gradient")
        return texts

    def frames(self) -> list[str]:
        """The DOT text of every frame (``len(trace) + 2`` of them)."""
        if self._frames is None:
            self._frames = [
                write_dot(self.trace.graph, self.options, self._overlay(k, caption))
                for k, caption in enumerate(self.captions())
            ]
        return list(self._frames)

    def _overlay(self, k: int, caption: str) -> Overlay:
        trace, graph = self.trace, self.trace.graph
        n_done = min(k, len(trace))
        grads = trace.grads_after(n_done)
        overlay = Overlay(caption=caption)
        for vn in graph.variables:
            if vn.id in grads:
                overlay.grads[vn.id] = "grad: " + format_array(grads[vn.id])
            elif vn.kind == "constant":
                overlay.grads[vn.id] = "grad: none (constant)"
            else:
                overlay.grads[vn.id] = "grad: not computed yet"
        finished = k - 1 if 1 <= k <= len(trace) else n_done  # steps before the current one
        for step in trace.steps[:finished]:
            overlay.node_attrs[step.node_id] = style.DONE_FUNC
        if 1 <= k <= len(trace):
            self._highlight(trace.steps[k - 1].index, overlay)
        return overlay

    def _highlight(self, index: int, overlay: Overlay) -> None:
        step = self.trace.steps[index]
        edges = self.trace.graph.edges
        overlay.node_attrs[step.node_id] = style.CURRENT_FUNC
        incoming = [i for i, (_, dst) in enumerate(edges) if dst == step.node_id]
        for edge_index, gx in zip(incoming, step.grads_out):
            if gx is not None:
                value = escape(format_array(gx))
                overlay.edge_attrs[edge_index] = f"{style.CARRY_EDGE} label=<{value}>"
        for i, (src, _) in enumerate(edges):
            if src == step.node_id:
                overlay.edge_attrs[i] = style.UPSTREAM_EDGE
        for node_id, gx in zip(step.input_ids, step.grads_out):
            if node_id is not None and gx is not None:
                overlay.node_attrs[node_id] = style.RECEIVE_VAR
        for acc in step.accumulations:
            overlay.node_attrs[acc.node_id] = style.ACCUMULATE_VAR
            overlay.grads[acc.node_id] = (
                f"grad: {format_array(acc.before)} + {format_array(acc.added)}"
                f" = {format_array(acc.total)}"
            )

    # -- HTML ---------------------------------------------------------------------------
    def to_html(self) -> str:
        """The self-contained HTML block (what Jupyter displays)."""
        if self._html is None:
            self._html = self._build_html()
        return self._html

    def _repr_html_(self) -> str:
        return self.to_html()

    def _build_html(self) -> str:
        eid = self.element_id
        n_frames = len(self.trace) + 2
        parts = [
            f'<div id="{eid}" class="minitorch-stepper" data-frame="0" '
            'style="font-family: sans-serif">',
            '<div class="mts-controls" style="margin-bottom: 4px">',
            f'<button type="button" id="{eid}-prev">&#9664; prev</button> ',
            f'<input type="range" id="{eid}-slider" min="0" max="{n_frames - 1}" value="0" '
            'step="1" style="vertical-align: middle; width: 240px"/> ',
            f'<button type="button" id="{eid}-next">next &#9654;</button> ',
            f'<span id="{eid}-label">frame 0 / {n_frames - 1}</span>',
            "</div>",
        ]
        frames = [self._frame_html(k, dot, caption) for k, (dot, caption) in enumerate(
            zip(self.frames(), self.captions())
        )]  # fmt: skip
        parts += frames
        if any("<pre>" in frame for frame in frames):
            parts.append(
                "<p>Install the Graphviz 'dot' program to see pictures instead of DOT text.</p>"
            )
        parts.append(_SCRIPT % {"id": eid})
        parts.append("</div>")
        return "\n".join(parts)

    def _frame_html(self, k: int, dot: str, caption: str) -> str:
        """One frame: a div with the caption and the SVG (or the DOT text without dot)."""
        eid = self.element_id
        current = self.trace.steps[k - 1].name if 1 <= k <= len(self.trace) else ""
        try:
            body = _clean_svg(pipe_dot(dot, "svg").decode("utf-8"), f"{eid}-{k}-")
        except GraphvizNotFoundError:
            body = f"<pre>{html.escape(dot)}</pre>"
        return (
            f'<div class="mts-frame" id="{eid}-frame-{k}" data-step="{k}" '
            f'data-function="{html.escape(current)}" '
            f'style="display: {"block" if k == 0 else "none"}">\n'
            f'<p class="mts-caption">{html.escape(caption)}</p>\n{body}\n</div>'
        )

    def save_html(self, path: str | os.PathLike[str]) -> Path:
        """Write a standalone HTML page with the stepper (works offline); return the path."""
        page = (
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            "<title>minitorch: backward, step by step</title>\n</head>\n<body>\n"
            f"{self.to_html()}\n</body>\n</html>\n"
        )
        path = Path(path)
        write_atomic(path, page.encode("utf-8"))
        return path

    def save_gif(self, path: str | os.PathLike[str], duration_ms: int = 1500) -> Path:
        """Write an animated GIF of the frames (for slides); needs ``dot`` and Pillow.

        Raises:
            GraphvizNotFoundError: if the ``dot`` program is missing.
        """
        from PIL import Image

        images = [
            Image.open(io.BytesIO(pipe_dot(dot, "png"))).convert("RGB") for dot in self.frames()
        ]
        width = max(image.width for image in images)
        height = max(image.height for image in images)
        padded = []
        for image in images:  # frames differ slightly in size; pad them onto one canvas
            canvas = Image.new("RGB", (width, height), "white")
            canvas.paste(image, ((width - image.width) // 2, 0))
            padded.append(canvas)
        buffer = io.BytesIO()
        padded[0].save(
            buffer,
            format="GIF",
            save_all=True,
            append_images=padded[1:],
            duration=duration_ms,
            loop=0,
        )
        path = Path(path)
        write_atomic(path, buffer.getvalue())
        return path


_PROLOG = re.compile(r"<\?xml.*?\?>|<!DOCTYPE.*?>|<!--.*?-->", re.DOTALL)
_XMLNS = re.compile(r'\s+xmlns(:xlink)?="[^"]*"')
_ID = re.compile(r'\bid="')


def _clean_svg(svg: str, id_prefix: str) -> str:
    """Graphviz SVG made fit for inline HTML: no prolog, no namespace URLs, unique ids."""
    svg = _PROLOG.sub("", svg)
    svg = _XMLNS.sub("", svg)
    return _ID.sub(f'id="{id_prefix}', svg).strip()
