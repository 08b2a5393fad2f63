"""``StepperView``: a recorded backward pass on one drawing, as HTML, PNG and GIF.

The view puts the stepper's jobs together: the frames and captions
(:class:`viz.frames.StepFrames`), the one drawing (:meth:`StepperView.dot`, laid out
once by Graphviz), the page (:mod:`viz.page`) and the pictures (:mod:`viz.export`).
:class:`viz.BackwardStepper` is this view plus :meth:`~viz.BackwardStepper.widget`;
the widget (:mod:`viz.widget`) builds on the view, so nothing here imports it.
"""

from __future__ import annotations

import hashlib
import html
import itertools
import json
import os
import sys
from functools import cached_property
from pathlib import Path
from typing import Any

from viz import export, memory, page, renderer, style
from viz.dot import DotOptions, Overlay, write_dot
from viz.draw import INSTALL_HINT, GraphvizNotFoundError, pipe_dot, write_atomic
from viz.frames import StepFrames
from viz.trace import BackwardTrace

_serial = itertools.count(1)
FORMAT = "minitorch-stepper/1"

#: Above this many nodes the stepper says on stderr that it is laying out a big graph.
BIG_GRAPH_NODES = 400

PICTURE_NOTE = "run the cell to step through backward"

#: The interactive drawing's own graph attributes: room for the badges (``pad``), and
#: ranks and nodes closer than ``viz.to_dot``'s, so that more graphs fit the view with
#: every label at 12 px or more.
_STEPPER_GRAPH = '\tgraph [pad="0.25" ranksep=0.25 nodesep=0.22]'


class StepperView:
    """An interactive view of a :class:`~viz.trace.BackwardTrace`, one step at a time.

    :class:`viz.BackwardStepper` is this view with a ``widget()`` method; use that one.
    In Jupyter it displays as self-contained HTML; :meth:`save_html` writes the same
    view as a page.
    Keys when it has the focus (click it): → / PageDown / Space next, ← / PageUp
    previous, Home / End first / last, + / − / 0 zoom, f full screen.

    Args:
        trace: the result of :func:`viz.trace_backward`.
        show_values: also print each Variable's (forward) values in its node; they do
            not change during backward, so the layout stays fixed.
        show_shapes: print shapes and dtypes in the nodes.
        rankdir: graph direction, as in :func:`viz.to_dot`.
        title: one line shown above the controls (and as the page title of
            :meth:`save_html`), e.g. what the graph is; plain text.
        show_memory: label each Function with the bytes it keeps for backward (as
            :func:`viz.to_dot`), and show above the drawing, on every frame, the bytes
            the graph still holds for backward: what the Functions whose backward has
            not run yet keep, each array once (:func:`viz.memory.held_per_frame`).

    Attributes:
        trace: the trace.
        element_id: the id of the HTML block (deterministic).

    Raises:
        TypeError: if ``trace`` is not a BackwardTrace.
        ValueError: for an unknown ``rankdir``, or an unknown name in
            ``MINITORCH_VIZ_RENDERER``.
        GraphvizNotFoundError: if the renderer chosen by name (``MINITORCH_VIZ_RENDERER``)
            is not installed. With ``auto`` and no Graphviz, the view shows DOT text and
            what to install instead.

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> from viz import trace_backward
        >>> view = StepperView(trace_backward(Variable(np.array(2.0), name="x") * 3.0))
        >>> len(view), "http" in view.to_html()
        (3, False)
    """

    def __init__(
        self,
        trace: BackwardTrace,
        *,
        show_values: bool = False,
        show_shapes: bool = True,
        rankdir: str = "TB",
        title: str | None = None,
        show_memory: bool = False,
    ) -> None:
        if not isinstance(trace, BackwardTrace):
            raise TypeError(
                f"viz.BackwardStepper: expected the result of viz.trace_backward, "
                f"got {type(trace).__name__}"
            )
        if rankdir not in style.RANKDIRS:
            raise ValueError(f"viz: rankdir must be one of {style.RANKDIRS}, got {rankdir!r}")
        if title is not None and not isinstance(title, str):
            raise TypeError(
                f"viz.BackwardStepper: title must be a str, got {type(title).__name__}"
            )
        renderer.check_choice()  # a renderer chosen by name but missing: say so now
        self.trace = trace
        self.title = title
        self.options = DotOptions(
            show_values=show_values,
            show_shapes=show_shapes,
            rankdir=rankdir,
            show_memory=show_memory,
        )
        self.steps = StepFrames(trace)
        digest = hashlib.sha1(
            (self.dot() + json.dumps(self._frames(), sort_keys=True)).encode("utf-8")
        ).hexdigest()[:10]
        self.element_id = f"minitorch-stepper-{digest}-{next(_serial)}"

    def __repr__(self) -> str:
        return f"<viz.BackwardStepper {len(self.trace)} steps>"

    def __len__(self) -> int:
        """The number of frames: the start, one per step, the end."""
        return len(self.trace) + 2

    # -- the one drawing -----------------------------------------------------------------
    def dot(self, picture: bool = False) -> str:
        """The DOT text of the one drawing every step is shown on.

        Args:
            picture: the still picture instead (:meth:`picture_png`): the start frame's
                highlights drawn in, the backward arrows left out, and the line "run the
                cell to step through backward" under it.

        Returns:
            DOT text: :func:`viz.dot.write_dot`'s graph with element ids on nodes and
            edges, plus one dashed backward arrow per edge (``id="g_<edge index>"``).
        """
        graph = self.trace.graph
        overlay = Overlay(names=self.steps.derived)
        for vn in graph.variables:
            overlay.node_attrs[vn.id] = f'id="n_{vn.id}"'
        for fn in graph.functions:
            overlay.node_attrs[fn.id] = f'id="n_{fn.id}"'
        if picture:
            out_id = graph.var_id(self.trace.output)
            if out_id is not None:
                overlay.node_attrs[out_id] += f" {style.RECEIVE_VAR}"
            overlay.caption = PICTURE_NOTE
        for i in range(len(graph.edges)):
            overlay.edge_attrs[i] = f'id="e_{i}"'
        text = write_dot(graph, self.options, overlay)
        head, graph_line, rest = text.split("\n", 2)
        if picture:  # the note on top, in large type; at most 7×5 in (1344×960 px)
            note = '\tgraph [labelloc=t fontsize=16 size="7,5"]'
            return "\n".join([head, graph_line, note, rest])
        func_ids = {fn.id for fn in graph.functions}
        arrows = []
        for i, (src, dst) in enumerate(graph.edges):
            colour = "#d7301f" if dst in func_ids else "#2171b5"  # sent : received
            arrows.append(
                f'\t{dst} -> {src} [id="g_{i}" class="mts-grad" constraint=false '
                f'style=dashed color="{colour}" penwidth=2.5 arrowsize=0.9]'
            )
        assert text.endswith("}\n")
        text = "\n".join([head, graph_line, _STEPPER_GRAPH, rest])
        return text[:-2] + "\n".join(arrows) + ("\n" if arrows else "") + "}\n"

    @cached_property
    def _svg(self) -> str | None:
        nodes = len(self.trace.graph.variables) + len(self.trace.graph.functions)
        if nodes > BIG_GRAPH_NODES:
            print(
                f"viz.BackwardStepper: laying out {nodes} nodes once for all "
                f"{len(self.trace)} steps (a big graph takes a few seconds; a smaller batch "
                "or fewer layers gives a drawing that is easier to read)",
                file=sys.stderr,
            )
        try:
            svg = pipe_dot(self.dot(), "svg").decode("utf-8")
        except GraphvizNotFoundError:
            return None
        return page.clean_svg(svg, self.element_id + "-")

    def picture_png(self) -> bytes:
        """The start frame as a PNG (:func:`viz.export.picture_png`)."""
        return export.picture_png(self)

    def save_gif(self, path: str | os.PathLike[str], duration_ms: int = 1500) -> Path:
        """Write an animated GIF of the frames (:func:`viz.export.save_gif`)."""
        return export.save_gif(self, path, duration_ms)

    # -- the steps as data ---------------------------------------------------------------
    def frames(self) -> list[dict[str, Any]]:
        """The step data: one dict per frame (the start, each step, the end).

        Each has ``counter`` ("start", "step k of n", "end"), ``caption`` (plain
        sentences naming the Variables), ``active`` (the Function node id or ``None``),
        ``recv`` / ``send`` (edge indices of the backward arrows in use), ``got`` (the
        Variables receiving a gradient), ``acc`` (those where a fan-in adds up) and
        ``rows`` (the gradient table: role, gradient, shape, values; role is "seed",
        "received", "sent", "added", or at the end "grad" and "before" for what a leaf
        held before this backward); the end frame also ``holds`` (the Variables whose
        ``.grad`` is set after the pass); with ``show_memory``, every frame also
        ``held`` (bytes still held for backward) and ``memory`` (its line). See
        :mod:`viz.stepper` for the whole format.
        """
        return json.loads(json.dumps(self._frames()))

    def captions(self) -> list[str]:
        """The caption of every frame, in order."""
        return [frame["caption"] for frame in self._frames()]

        return self.steps.captions()

    def _frames(self) -> list[dict[str, Any]]:
        if self.options.show_memory:
            return self._memory_frames
        return self.steps.frames()

    @cached_property
    def _memory_frames(self) -> list[dict[str, Any]]:
        """The frames, each with ``held`` (bytes) and ``memory`` (its line of text)."""
        frames = [dict(frame) for frame in self.steps.frames()]
        held = memory.held_per_frame(self.trace)
        lines = memory.frame_lines(self.trace, held)
        for frame, nbytes, line in zip(frames, held, lines):
            frame["held"], frame["memory"] = nbytes, line
        return frames

    def data(self) -> dict[str, Any]:
        """Everything the script needs: the frames plus the ids of nodes and arrows."""
        graph = self.trace.graph
        return {
            "format": FORMAT,
            "prefix": self.element_id + "-",
            "output": graph.var_id(self.trace.output),
            "variables": [vn.id for vn in graph.variables],
            "functions": [fn.id for fn in graph.functions],
            "edges": list(range(len(graph.edges))),
            "frames": self._frames(),
        }

    # -- HTML ----------------------------------------------------------------------------
    def block_html(self) -> str:
        """The stepper's markup (style, controls, drawing, table, legend), no script.

        The widget puts exactly this into its view; :meth:`to_html` adds the step data
        and the script.
        """
        svg = self._svg
        if svg is None:
            drawing = (
                '<p class="mts-nodot">Install Graphviz to see the drawing: '
                f"{html.escape(INSTALL_HINT)}</p><pre>{html.escape(self.dot())}</pre>"
            )
        else:
            drawing = svg
        return page.block_html(self.element_id, self.title, drawing, self._frames()[0], len(self))

    def to_html(self) -> str:
        """The self-contained HTML block (what Jupyter displays): markup, data, script."""
        return self._html

    @cached_property
    def _html(self) -> str:
        block = self.block_html()
        if self._svg is None:
            return block
        return block + "\n" + page.script_html(self.element_id, self.data())

    def _repr_html_(self) -> str:
        return self.to_html()

    def save_html(self, path: str | os.PathLike[str]) -> Path:
        """Write a standalone page with the stepper filling the window (works offline).

        Returns:
            The path written.
        """
        title = self.title or "minitorch: backward, step by step"
        path = Path(path)
        write_atomic(path, page.page_html(title, self.to_html()).encode("utf-8"))
        return path
