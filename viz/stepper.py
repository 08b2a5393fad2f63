"""``BackwardStepper``: step through a recorded backward pass, in Jupyter or a browser.

**One layout, steps as data.** The graph of the trace is laid out *once* by Graphviz, with
labels that never change during the pass (names and shapes, no gradients), so no node
moves between steps. Each step is then a small description — :meth:`BackwardStepper.frames`
— that the page applies to that one drawing: which Function runs, which backward arrows
carry a gradient, which Variables receive one and where a fan-in adds up (``+=``). The
gradients themselves go into a table beside the drawing.

The drawing holds, besides the usual forward edges, one dashed *backward arrow* per edge,
pointing the way the gradient travels: from a Function to each input (what it sends, red)
and from each output into the Function (what it received, blue). They are hidden except
at the step that uses them, and have ``constraint=false`` so they do not change the ranks.

The frame format (``"minitorch-stepper/1"``, plain JSON) is::

    {"format": "minitorch-stepper/1", "prefix": <element id + "-">, "output": <node id>,
     "variables": [<node ids>], "functions": [<node ids>], "edges": [<edge indices>],
     "frames": [{"counter": "start" | "step k of n" | "end", "caption": <sentences>,
                 "active": <Function node id or null>, "recv": [<edge index>],
                 "send": [<edge index>], "got": [<Variable node id>],
                 "acc": [<Variable node id>], "rows": [[role, gradient, shape, values]]}]}

Frame 0 is the seed, frames 1..n the steps in engine order, frame n+1 the end. "Done"
Functions and the Variables that hold a gradient follow from the frames before; the end
frame alone also has ``"holds": [<Variable node id>]``, the Variables whose ``.grad`` is
set after the pass (without ``retain_grad`` the intermediate ones keep none). A backward
from a leaf has no steps: just the start and the end.

Every number comes from the trace, i.e. from what minitorch's engine actually passed
(:func:`viz.trace_backward`); nothing is recomputed here. The HTML is self-contained (the
SVG inline, the step data as JSON, the controls plain JavaScript shipped in
``viz/assets``), works offline, and is byte-identical for the same input: element ids
are a digest of the content plus a per-process counter. User text (Variable names)
reaches the page only escaped, and the script inserts it with ``textContent``.
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import itertools
import json
import os
import re
import sys
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from viz import renderer, style
from viz.dot import DotOptions, Overlay, creator_names, unnamed_variables, write_dot
from viz.draw import GraphvizNotFoundError, pipe_dot, write_atomic
from viz.labels import format_array
from viz.trace import BackwardStep, BackwardTrace

_serial = itertools.count(1)
ASSETS = Path(__file__).resolve().parent / "assets"
FORMAT = "minitorch-stepper/1"

#: Above this many nodes the stepper says on stderr that it is laying out a big graph.
BIG_GRAPH_NODES = 400

PICTURE_NOTE = "run the cell to step through backward"

#: Pixels per inch of the stepper's PNGs, the still picture and the GIF's frames: the
#: same as ``viz.render``'s PNGs, twice Graphviz's 96, so their labels stay sharp on a
#: projector and a HiDPI screen. A notebook shows the picture at half its pixel size,
#: the size a 96-dpi picture had (see :func:`picture_bundle`).
PNG_DPI = renderer.DEFAULT_DPI
#: A GIF wider than this many pixels is drawn at a lower dpi instead (a big graph at
#: 192 dpi gives a file of many megabytes): twice a 1280-px projector's width.
GIF_MAX_WIDTH = 2560

#: The MIME type under which :class:`viz.StepperWidget` also stores the static stepper
#: (:meth:`BackwardStepper.to_html`) in a notebook. Jupyter front ends skip a type they
#: have no renderer for, so a notebook still shows the widget, or its picture when
#: untrusted; the docs site (``docs/hooks/notebook_steppers.py``) shows it instead of
#: the picture, live. It is not ``text/html`` on purpose: JupyterLab renders that in an
#: untrusted notebook as sanitised text soup.
STEPPER_MIME = "application/vnd.minitorch.stepper+html"

LEGEND = (
    ("func-active", "red box: the Function whose backward runs now"),
    ("recv", "blue dashed arrow: the gradient it received"),
    ("send", "red dashed arrow: a gradient it sends to an input"),
    ("var-got", "red outline: a Variable receiving a gradient now"),
    ("badge-acc", "+= : added to the gradient collected before (fan-in)"),
    ("badge-has", "\u2202 : has its gradient (at the end: kept in .grad)"),
    ("func-done", "faded: a Function already done"),
)

_LEGEND_SWATCH = {
    "func-active": '<rect x="3" y="3" width="30" height="14" rx="4" fill="#fff2ae" '
    'stroke="#d7301f" stroke-width="3"/>',
    "recv": '<path d="M2 10H28" stroke="#2171b5" stroke-width="2.5" stroke-dasharray="5,2"/>'
    '<path d="M27 5L35 10L27 15Z" fill="#2171b5"/>',
    "send": '<path d="M2 10H28" stroke="#d7301f" stroke-width="2.5" stroke-dasharray="5,2"/>'
    '<path d="M27 5L35 10L27 15Z" fill="#d7301f"/>',
    "var-got": '<ellipse cx="18" cy="10" rx="15" ry="7" fill="#eeeeee" stroke="#d7301f" '
    'stroke-width="3"/>',
    "badge-acc": '<rect x="7" y="2" width="22" height="15" rx="7" fill="#d7301f"/>'
    '<text x="18" y="13.5" text-anchor="middle" fill="#fff" font-size="11" '
    'font-weight="bold" font-family="Helvetica, Arial, sans-serif">+=</text>',
    "badge-has": '<rect x="7" y="2" width="22" height="15" rx="7" fill="#238b45"/>'
    '<text x="18" y="13.5" text-anchor="middle" fill="#fff" font-size="11" '
    'font-weight="bold" font-family="Helvetica, Arial, sans-serif">\u2202</text>',
    "func-done": '<rect x="3" y="3" width="30" height="14" rx="4" fill="#fff2ae" '
    'stroke="#555" opacity="0.4"/>',
}


def _asset(name: str) -> str:
    return (ASSETS / name).read_text(encoding="utf-8")


class BackwardStepper:
    """An interactive view of a :class:`~viz.trace.BackwardTrace`, one step at a time.

    In Jupyter it displays as self-contained HTML (:meth:`widget` gives the anywidget
    version with a synced ``step``); :meth:`save_html` writes the same view as a page.
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
        >>> x = Variable(np.array(2.0), name="x")
        >>> y = x * x + x
        >>> y.name = "y"
        >>> stepper = BackwardStepper(trace_backward(y))
        >>> [frame["counter"] for frame in stepper.frames()]
        ['start', 'step 1 of 2', 'step 2 of 2', 'end']
        >>> caption = stepper.frames()[2]["caption"]
        >>> caption.split(" and ")[0]
        'Step 2 of 2: Mul.backward received ∂y/∂v2 (a scalar; v2 is its output)'
        >>> caption.split(" and ", 1)[1].split(". ")[0]
        'sent ∂y/∂x twice, once for each use'
        >>> "http" in stepper.to_html()
        False
    """

    def __init__(
        self,
        trace: BackwardTrace,
        *,
        show_values: bool = False,
        show_shapes: bool = True,
        rankdir: str = "TB",
        title: str | None = None,
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
            show_values=show_values, show_shapes=show_shapes, rankdir=rankdir
        )
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
        overlay = Overlay()
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
        text = "\n".join([head, graph_line, '\tgraph [pad="0.25"]', rest])  # badges' room
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
        return _clean_svg(svg, self.element_id + "-")

    def picture_png(self) -> bytes:
        """The start frame as a PNG, with the line "run the cell to step through backward".

        This is what a notebook shows where the interactive view cannot run (an untrusted
        notebook, a viewer without JavaScript). Drawn at :data:`PNG_DPI` (192), at most
        1344 × 960 px.

        Raises:
            GraphvizNotFoundError: if no Graphviz renderer is available.
        """
        return pipe_dot(self.dot(picture=True), "png", dpi=PNG_DPI)

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
        ``.grad`` is set after the pass). See the module docstring for the whole format.
        """
        return json.loads(json.dumps(self._frames()))

    def captions(self) -> list[str]:
        """The caption of every frame, in order."""
        return [frame["caption"] for frame in self._frames()]

    @cached_property
    def _names(self) -> dict[str, str]:
        """Node id -> the name its node shows (the captions use exactly these)."""
        return {vn.id: self.trace.name_of(vn.id) for vn in self.trace.graph.variables}

    @cached_property
    def _creators(self) -> dict[str, str]:
        return creator_names(self.trace.graph)

    @cached_property
    def _out_id(self) -> str | None:
        return self.trace.graph.var_id(self.trace.output)

    def _d(self, node_id: str | None) -> str:
        """``∂loss/∂x``: the derivative of the output with respect to a Variable."""
        out = self._names.get(self._out_id or "", "y")
        return f"\u2202{out}/\u2202{self._names.get(node_id or '', '?')}"

    def _frames(self) -> list[dict[str, Any]]:
        if "_frame_cache" not in self.__dict__:
            trace = self.trace
            n = len(trace)
            frames = [self._start_frame()]
            frames += [self._step_frame(step, n) for step in trace.steps]
            frames.append(self._end_frame())
            self.__dict__["_frame_cache"] = frames
        cached: list[dict[str, Any]] = self.__dict__["_frame_cache"]
        return cached

    def _start_frame(self) -> dict[str, Any]:
        trace = self.trace
        n = len(trace)
        out_id = trace.graph.var_id(trace.output)
        name = self._names.get(out_id or "", "the output")
        if self._unnamed(out_id) and out_id in self._creators:
            name += f" (made by {self._creators[out_id]})"
        seed = trace.seed if trace.seed is not None else np.ones(())
        shape = _shape_words(seed)
        ones = "1" if seed.ndim == 0 else f"ones ({shape})"
        if n == 0 and not trace.output.requires_grad:
            # The one backward that runs no Function and starts from no seed: a
            # create_graph gradient that depends on no input (relu's, x + c's).
            caption = (
                f"Start: backward begins at the output {name}, which needs no gradient: it "
                "depends on no Variable that does, so there is no Function whose backward "
                "could run. Press \u2192 (or next) to see the end."
            )
            return _frame("start", caption, None, [], [], [], [], [])
        caption = (
            f"Start: backward begins at the output {name}, seeded with {self._d(out_id)} "
            f"= {ones}. "
        )
        if n == 0:  # the output is a leaf: the seed is its whole gradient
            caption += (
                f"{name} is a leaf (no Function made it), so there is no Function whose "
                f"backward could run: the seed itself is {name}'s gradient. Press \u2192 "
                "(or next) to see the end."
            )
        elif n == 1:
            caption += (
                f"Press \u2192 (or next) to run {trace.steps[0].name}.backward, the only "
                "Function in this pass."
            )
        else:
            caption += "Press \u2192 (or next) to run the first Function's backward."
        rows = [["seed", self._d(out_id), _shape_cell(seed), _values(seed)]]
        return _frame("start", caption, None, [], [], [out_id] if out_id else [], [], rows)

    def _step_frame(self, step: BackwardStep, n: int) -> dict[str, Any]:
        graph = self.trace.graph
        edges = graph.edges
        incoming = [i for i, (_, dst) in enumerate(edges) if dst == step.node_id]
        outgoing = [i for i, (src, _) in enumerate(edges) if src == step.node_id]
        counter = f"step {step.index + 1} of {n}"
        rows: list[list[str]] = []
        received = []
        for position, (out_id, gy) in enumerate(zip(step.output_ids, step.grads_in)):
            if gy is None:
                continue
            if out_id is None:  # an output the graph to the output does not go through
                # (unused, or gone): the engine hands the Function zeros in its place.
                which = _ordinal(position + 1)
                received.append(
                    f"zeros ({_shape_words(gy)}) for its {which} output, which no path to "
                    f"{self._names.get(self._out_id or '', 'the output')} goes through"
                )
                rows.append(["received", f"zeros: {which} output, unused", _shape_cell(gy),
                             _values(gy)])  # fmt: skip
                continue
            shown = self._names.get(out_id, "?")
            where = f"; {shown} is its output" if self._unnamed(out_id) else ""
            received.append(f"{self._d(out_id)} ({_shape_words(gy)}{where})")
            rows.append(["received", self._d(out_id), _shape_cell(gy), _values(gy)])
        sent_ids: list[str] = []
        send = []
        for edge_index, node_id, gx in zip(incoming, step.input_ids, step.grads_out):
            if gx is None or node_id is None:
                continue
            send.append(edge_index)
            sent_ids.append(node_id)
            rows.append(["sent", self._d(node_id), _shape_cell(gx), _values(gx)])
        text = f"{counter.capitalize()}: {step.name}.backward received "
        text += _join(_few(received)) if received else "its output's gradient"
        text += "," if len(received) > 1 else ""  # "a and b, and sent c": one list each
        if sent_ids:
            text += " and sent " + _join(_few(self._sent_phrases(sent_ids))) + "."
        else:
            text += " and sent nothing: none of its inputs needs a gradient."
        totals: dict[str, np.ndarray] = {}
        earlier: dict[str, bool] = {}
        for acc in step.accumulations:  # the last sum per Variable (x used twice: two)
            totals[acc.node_id] = acc.total
            earlier[acc.node_id] = earlier.get(acc.node_id, False) or acc.earlier
        # The common fan-in (one contribution on top of an earlier step's) in one sentence
        # for all the Variables it happens to, so a Function with many inputs keeps a
        # caption of a few lines; the rarer kinds get a sentence each.
        plain = [i for i in totals if earlier[i] and sent_ids.count(i) == 1]
        if len(plain) > 1:
            names = _join(_few([self._names.get(i, "?") for i in plain]))
            text += (
                f" {names} each already received a gradient in an earlier step, so what "
                "arrives now is added to each (+=)."
            )
        for node_id, total in totals.items():
            rows.append(["added", self._d(node_id) + " (sum)", _shape_cell(total),
                         _values(total)])  # fmt: skip
            if len(plain) > 1 and node_id in plain:
                continue
            text += " " + self._sum_sentence(step, node_id, sent_ids.count(node_id),
                                             earlier[node_id])  # fmt: skip
        acc_ids = list(totals)
        got = list(dict.fromkeys(sent_ids))
        return _frame(counter, text, step.node_id, outgoing, send, got, acc_ids, rows)

    def _sum_sentence(self, step: BackwardStep, node_id: str, k: int, earlier: bool) -> str:
        """Why gradients are added at ``node_id`` in this step, ending in ``(+=)``.

        Either the Variable already held a gradient from an earlier step, or one Function
        used it ``k`` times (``x * x``) and its ``k`` contributions of this one step are
        added — then nothing was held before, and the caption must not say so.
        """
        name = self._names.get(node_id, "?")
        number = _NUMBER_WORDS.get(k, str(k))
        # "received", not "held": what a leaf held *before* this backward is the end
        # frame's story (the engine adds this pass's sum to it once, at the very end).
        if earlier and k == 1:
            return (
                f"{name} already received a gradient in an earlier step, so what arrives "
                "now is added to it (+=)."
            )
        if earlier:
            return (
                f"{name} already received a gradient in an earlier step; the {number} "
                f"contributions {step.name} sends now are added to it (+=)."
            )
        n_inputs = len(step.input_ids)
        if k == n_inputs == 2:
            which = "both inputs"
        elif k == n_inputs:
            which = f"all {number} inputs"
        else:
            which = f"{number} of the inputs"
        return (
            f"{which.capitalize()} of {step.name} are {name}: the {number} contributions "
            "are added (+=)."
        )

    def _sent_phrases(self, node_ids: list[str]) -> list[str]:
        """``∂loss/∂x`` once per Variable, saying "twice" where an input is used twice."""
        counts: dict[str, int] = {}
        for node_id in node_ids:
            counts[node_id] = counts.get(node_id, 0) + 1
        words = {2: "twice", 3: "three times"}
        return [
            self._d(node_id)
            + (f" {words.get(k, f'{k} times')}, once for each use" if k > 1 else "")
            + (f" ({self._where(node_id)})" if self._unnamed(node_id) else "")
            for node_id, k in counts.items()
        ]

    def _unnamed(self, node_id: str | None) -> bool:
        """Whether the drawing shows only the node id, as for a Function's unnamed output.

        Then a caption says where the node is (:meth:`_where`): ``v7`` alone does not
        tell a student which ellipse to look at.
        """
        return node_id is not None and node_id in self._automatic

    @cached_property
    def _automatic(self) -> set[str]:
        """The node ids drawn with an automatic label (``v7``), see :func:`unnamed_variables`."""
        return unnamed_variables(self.trace.graph)

    def _where(self, node_id: str) -> str:
        """``v7 is the output of Mul`` (``v7 is a leaf`` when no Function made it)."""
        made_by = self._creators.get(node_id)
        name = self._names[node_id]
        return f"{name} is the output of {made_by}" if made_by else f"{name} is a leaf"

    def _end_frame(self) -> dict[str, Any]:
        trace = self.trace
        n = len(trace)
        leaves = [vn.id for vn in trace.graph.variables if vn.id in trace.leaf_grads]
        names = [self._names[i] for i in leaves]
        out_id = trace.graph.var_id(trace.output)
        if n == 0 and not trace.output.requires_grad:
            name = self._names.get(out_id or "", "the output")
            caption = (
                f"End: backward ran no Function: {name} needs no gradient, so none flowed "
                "through this graph (backward only added zeros to the .grad of the leaf "
                f"whose gradient {name} is)."
            )
        elif n == 0:
            caption = "End: backward ran no Function"
            caption += f": the seed went straight into {names[0]}.grad." if names else "."
        else:
            steps = "step" if n == 1 else "steps"
            caption = f"End: backward is done after {n} {steps}."
            if len(names) == 1:
                caption += f" The leaf {names[0]} now holds its gradient in .grad."
            elif names:
                caption += f" The leaves {_join(_few(names))} now hold their gradients in .grad."
        held = [self._names[i] for i in leaves if i in trace.grads_before]
        if held:  # the repeated-backward mistake: gradients add up across passes
            what = "the seed" if n == 0 else "this pass's sum"
            if len(held) == 1:
                who, to = f"{held[0]} already", "it"
            elif len(held) == len(names):
                who, to = "Each of them already", "each"
            else:
                who, to = f"{_join(_few(held))} each already", "each"
            caption += (
                f" {who} held a gradient before this backward, so {what} was added to "
                f"{to}; call clear_grad() (or zero_grad()) between passes to start from zero."
            )
        if trace.retain_grad and any(i not in trace.leaf_grads for i in trace.with_grad):
            caption += " With retain_grad=True the intermediate Variables keep theirs too."
        if trace.create_graph and names:
            caption += (
                " With create_graph=True each .grad is a Variable with a graph of its own: "
                "it can be differentiated again."
            )
        rows: list[list[str]] = []
        for i in leaves:
            grad = trace.leaf_grads[i]
            if i in trace.grads_before:  # what it held, so the table shows the sum
                before = trace.grads_before[i]
                rows.append(["before", f"{self._names[i]}.grad before", _shape_cell(before),
                             _values(before)])  # fmt: skip
            rows.append(["grad", f"{self._names[i]}.grad", _shape_cell(grad), _values(grad)])
        frame = _frame("end", caption, None, [], [], [], [], rows)
        frame["holds"] = list(trace.with_grad)  # only these keep a gradient in .grad
        return frame

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
        eid = self.element_id
        first = self._frames()[0]
        svg = self._svg
        if svg is None:
            drawing = (
                '<p class="mts-nodot">Install Graphviz to see the drawing: '
                f"{html.escape(_install_hint())}</p><pre>{html.escape(self.dot())}</pre>"
            )
        else:
            drawing = svg
        rows = "".join(
            f'<tr class="mts-row-{html.escape(row[0])}"><th>{html.escape(row[0])}</th>'
            + "".join(f"<td>{html.escape(cell)}</td>" for cell in row[1:])
            + "</tr>"
            for row in first["rows"]
        )
        legend = "".join(
            f'<li><svg width="38" height="20" viewBox="0 0 38 20" aria-hidden="true">'
            f"{_LEGEND_SWATCH[key]}</svg><span>{html.escape(text)}</span></li>"
            for key, text in LEGEND
        )
        n_frames = len(self)
        return "\n".join(
            [
                f'<div id="{eid}" class="minitorch-stepper" tabindex="0" data-step="0" '
                'data-lm-suppress-shortcuts="true" role="group" '
                'aria-label="backward stepper; click it, then press the right arrow key">',
                f"<style>{_asset('stepper.css')}</style>",
                f'<p class="mts-title">{html.escape(self.title)}</p>' if self.title else "",
                '<div class="mts-bar">',
                '<button type="button" data-act="first" title="first frame (Home)">first</button>',
                '<button type="button" data-act="prev" title="previous (&#8592;, PageUp)">'
                "&#9664; prev</button>",
                f'<span class="mts-counter" aria-live="polite">{first["counter"]}</span>',
                '<button type="button" data-act="next" '
                'title="next (&#8594;, PageDown, Space)">next &#9654;</button>',
                '<button type="button" data-act="last" title="last frame (End)">last</button>',
                f'<input type="range" class="mts-slider" min="0" max="{n_frames - 1}" '
                'value="0" step="1" aria-label="frame"/>',
                '<span class="mts-hint">click, then &#8592; &#8594;</span>',
                '<span class="mts-spacer"></span>',
                '<button type="button" data-act="zoomout" title="zoom out (-)">&#8722;</button>',
                '<button type="button" data-act="fit" title="fit the whole graph (0)">fit'
                "</button>",
                '<button type="button" data-act="zoomin" title="zoom in (+)">+</button>',
                '<button type="button" data-act="full" title="full screen (f)">'
                "full screen</button>",
                "</div>",
                f'<p class="mts-caption">{html.escape(first["caption"])}</p>',
                '<div class="mts-main">',
                f'<div class="mts-view"><div class="mts-canvas">{drawing}</div></div>',
                '<div class="mts-side">',
                '<table class="mts-table"><caption>gradients in this step</caption>'
                "<thead><tr><th></th><th>gradient</th><th>shape</th><th>values</th></tr>"
                f"</thead><tbody>{rows}</tbody></table>",
                f'<ul class="mts-legend">{legend}</ul>',
                "</div>",
                "</div>",
                "</div>",
            ]
        )

    def to_html(self) -> str:
        """The self-contained HTML block (what Jupyter displays): markup, data, script."""
        return self._html

    @cached_property
    def _html(self) -> str:
        block = self.block_html()
        if self._svg is None:
            return block
        data = _json_for_script(self.data())
        script = (
            f'<script type="application/json" id="{self.element_id}-data">{data}</script>\n'
            f"<script>{_asset('stepper.js')}\n"
            "(function () {\n"
            # This copy's own block: the same stepper shown twice (two cells, or one
            # output displayed again) has one id twice, and getElementById found only
            # the first (the second copy's buttons and keys did nothing).
            # (currentScript is null where a front end evaluates the script itself.)
            f'  var id = "{self.element_id}", me = document.currentScript;\n'
            "  var data = me && me.previousElementSibling, root = data;\n"
            "  while (root && root.id !== id) root = root.previousElementSibling;\n"
            '  if (!root || !data || data.id !== id + "-data") {\n'
            "    root = document.getElementById(id);\n"
            '    data = document.getElementById(id + "-data");\n'
            "  }\n"
            "  if (!root || !data || root.minitorchStepper) return;  // already running\n"
            "  root.minitorchStepper = minitorchStepper(root, JSON.parse(data.textContent), {});\n"
            "})();</script>"
        )
        return block + "\n" + script

    def _repr_html_(self) -> str:
        return self.to_html()

    def save_html(self, path: str | os.PathLike[str]) -> Path:
        """Write a standalone page with the stepper filling the window (works offline).

        Returns:
            The path written.
        """
        body = self.to_html().replace(
            'class="minitorch-stepper"', 'class="minitorch-stepper mts-page"', 1
        )
        page = (
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{html.escape(self.title or 'minitorch: backward, step by step')}</title>\n"
            "<style>body { margin: 8px; }</style>\n</head>\n<body>\n"
            f"{body}\n"
            "<script>document.querySelector('.minitorch-stepper').focus();</script>\n"
            "</body>\n</html>\n"
        )
        path = Path(path)
        write_atomic(path, page.encode("utf-8"))
        return path

    def widget(self) -> Any:
        """The same view as an anywidget widget, with the step synced to Python.

        Returns:
            A :class:`viz.widget.StepperWidget` (``widget.step = 3`` moves the view).

        Raises:
            ImportError: if ``anywidget`` is not installed (it comes with the ``viz``
                extra: ``pip install 'minitorch[viz]'``).
        """
        from viz.widget import StepperWidget

        return StepperWidget(self)

    def save_gif(self, path: str | os.PathLike[str], duration_ms: int = 1500) -> Path:
        """Write an animated GIF of the frames (for slides); needs Graphviz and Pillow.

        Every frame is the same layout — the same DOT structure, only colours and line
        styles differ, which Graphviz's layout ignores — with the step's highlights
        drawn in and its whole caption written underneath. Drawn at :data:`PNG_DPI` (192,
        as ``viz.render``'s PNGs; the caption's type scaled to match), or at a lower dpi
        where that would be wider than :data:`GIF_MAX_WIDTH` pixels.

        Raises:
            GraphvizNotFoundError: if no Graphviz renderer is available.
        """
        import textwrap

        from PIL import Image, ImageDraw

        def draw(k: int, dpi: float) -> Any:
            png = pipe_dot(self._frame_dot(k), "png", dpi=round(dpi, 1))
            return Image.open(io.BytesIO(png)).convert("RGB")

        dpi = PNG_DPI
        first = draw(0, dpi)
        if first.width > GIF_MAX_WIDTH:  # one layout: every frame has the first's size
            dpi = max(renderer.DPI_RANGE[0], dpi * GIF_MAX_WIDTH / first.width)
            first = draw(0, dpi)
        pictures = [first] + [draw(k, dpi) for k in range(1, len(self))]
        scale = dpi / 96  # the caption grows with the drawing: 15 px type at 96 dpi
        width = max(max(p.width for p in pictures), round(480 * scale))
        font = _caption_font(round(15 * scale))
        step, margin = round(20 * scale), round(10 * scale)
        line_chars = max(40, int(width // (8 * scale)))
        # Every line of every caption is drawn (none cut off); all frames get room for the
        # longest one, at least six lines, so the GIF keeps one size.
        wrapped = [textwrap.wrap(frame["caption"], line_chars) for frame in self._frames()]
        n_lines = max([6, *map(len, wrapped)])
        frames = []
        for picture, lines in zip(pictures, wrapped):
            canvas = Image.new(
                "RGB", (width, picture.height + 2 * margin + step * n_lines), "white"
            )
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

    def _frame_dot(self, k: int) -> str:
        """The drawing with frame ``k``'s highlights drawn in (for the GIF).

        Same nodes, edges and backward arrows as :meth:`dot` in the same order; only
        colours, pen widths and which arrows are invisible change, so the layout is the
        same in every frame.
        """
        frames = self._frames()
        frame = frames[k]
        graph = self.trace.graph
        done = {f["active"] for f in frames[1:k] if f["active"]}
        if k == len(frames) - 1:
            done = {f["active"] for f in frames if f["active"]}
        overlay = Overlay()
        for node_id in done:
            overlay.node_attrs[node_id] = style.DONE_FUNC
        if frame["active"]:
            overlay.node_attrs[frame["active"]] = style.CURRENT_FUNC
        for node_id in frame["got"] + frame["acc"]:
            overlay.node_attrs[node_id] = 'color="#d7301f" penwidth=3.5'
        text = write_dot(graph, self.options, overlay)
        func_ids = {fn.id for fn in graph.functions}
        shown = set(frame["send"]) | set(frame["recv"])
        arrows = []
        for i, (src, dst) in enumerate(graph.edges):
            colour = "#d7301f" if dst in func_ids else "#2171b5"
            look = f'style=dashed color="{colour}"' if i in shown else "style=invis"
            arrows.append(f"\t{dst} -> {src} [constraint=false penwidth=2.5 {look}]")
        return text[:-2] + "\n".join(arrows) + ("\n" if arrows else "") + "}\n"


def _frame(
    counter: str,
    caption: str,
    active: str | None,
    recv: list[int],
    send: list[int],
    got: list[str],
    acc: list[str],
    rows: list[list[str]],
) -> dict[str, Any]:
    return {
        "counter": counter,
        "caption": caption,
        "active": active,
        "recv": recv,
        "send": send,
        "got": got,
        "acc": acc,
        "rows": rows,
    }


_NUMBER_WORDS = {2: "two", 3: "three", 4: "four"}


def _ordinal(k: int) -> str:
    """``first``, ``second``, ``third``, then ``4th``, ``11th``, ``22nd``."""
    words = {1: "first", 2: "second", 3: "third"}
    if k in words:
        return words[k]
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def _join(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _few(names: list[str], most: int = 6) -> list[str]:
    """At most ``most`` names: the first ones and "k more" (a caption stays short)."""
    return names if len(names) <= most else [*names[: most - 1], f"{len(names) - most + 1} more"]


def _shape_words(a: np.ndarray) -> str:
    """``a scalar`` or ``shape 4×10``."""
    a = np.asarray(a)
    return "a scalar" if a.ndim == 0 else "shape " + "\u00d7".join(map(str, a.shape))


def _shape_cell(a: np.ndarray) -> str:
    a = np.asarray(a)
    return "scalar" if a.ndim == 0 else "\u00d7".join(map(str, a.shape))


def _values(a: np.ndarray) -> str:
    """The values when there are at most 6, else the minimum and maximum."""
    a = np.asarray(a)
    if a.size <= 6 or a.dtype.kind not in "biuf":
        return format_array(a)
    return f"min {format_array(np.asarray(a.min()))}, max {format_array(np.asarray(a.max()))}"


def _install_hint() -> str:
    from viz.draw import INSTALL_HINT

    return INSTALL_HINT


def _json_for_script(data: Any) -> str:
    """JSON that is safe inside ``<script>``: ``<``, ``>`` and ``&`` as \\u escapes."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def picture_bundle(stepper: BackwardStepper) -> tuple[str, dict[str, int]] | None:
    """The start-frame PNG as base64 text and the size a notebook shows it at, or ``None``.

    The size (``{"width": ..., "height": ...}`` in CSS pixels, a notebook's
    ``image/png`` metadata) is the PNG's at 96 dpi: drawn at :data:`PNG_DPI`, it is shown
    as large as before, with twice the pixels (sharp on a HiDPI screen or a projector).
    """
    try:
        png = stepper.picture_png()
    except GraphvizNotFoundError:
        return None
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    shown = {"width": round(width * 96 / PNG_DPI), "height": round(height * 96 / PNG_DPI)}
    return base64.b64encode(png).decode("ascii"), shown


_PROLOG = re.compile(r"<\?xml.*?\?>|<!DOCTYPE.*?>|<!--.*?-->", re.DOTALL)
_XMLNS = re.compile(r'\s+xmlns(:xlink)?="[^"]*"')
_ID = re.compile(r'\bid="')


def _clean_svg(svg: str, id_prefix: str) -> str:
    """Graphviz SVG made fit for inline HTML: no prolog, no namespace URLs, unique ids."""
    svg = _PROLOG.sub("", svg)
    svg = _XMLNS.sub("", svg)
    return _ID.sub(f'id="{id_prefix}', svg).strip()


def _caption_font(size: int) -> Any:
    """DejaVu Sans from matplotlib's own fonts (it has ∂ and ×), else Pillow's default."""
    from PIL import ImageFont

    try:
        import matplotlib

        path = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
        return ImageFont.truetype(str(path), size)
    except (ImportError, OSError):
        return ImageFont.load_default(size=size)
