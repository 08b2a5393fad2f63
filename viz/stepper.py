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
                 "acc": [<Variable node id>], "rows": [[role, gradient, shape, values]],
                 "legend": [<keys of viz.page.LEGEND that this frame's drawing shows>]}]}

Frame 0 is the seed, frames 1..n the steps in engine order, frame n+1 the end. "Done"
Functions and the Variables that hold a gradient follow from the frames before; the end
frame alone also has ``"holds": [<Variable node id>]``, the Variables whose ``.grad`` is
set after the pass (without ``retain_grad`` the intermediate ones keep none). A backward
from a leaf has no steps: just the start and the end.
With ``show_memory=True`` every frame also has ``"held"`` (the bytes the graph still
holds for backward, :func:`viz.memory.held_per_frame`) and ``"memory"`` (that line of
text); without it the frames, and so the page, are exactly as before.

**Names.** Captions, table and drawing name each Variable alike: the name a user gave
(``Variable.name``, a module parameter's path), a small constant's value, else a name
derived from the graph (:mod:`viz.names`: the output ``y`` or ``loss``, an intermediate
by its expression, ``tanh(h)``, or by its Function and a count, ``add3``).

**The view.** A graph that fits the view with every label at 12 px or more is shown
whole and never moves. A bigger one is shown whole at the start and the end (labels too
small to read hidden, and a note saying so), and close up while it steps: the view then
moves only when the active Function would leave it.

**By job:** :mod:`viz.frames` (the frames and captions, no Graphviz), :mod:`viz.page`
(the HTML, from templates in ``viz/assets``), :mod:`viz.export` (PNG and GIF),
:mod:`viz.view` (all of them on one drawing) and :mod:`viz.widget` (the Jupyter widget).

Every number comes from the trace, i.e. from what minitorch's engine actually passed
(:func:`viz.trace_backward`); nothing is recomputed here. The HTML is self-contained (the
SVG inline, the step data as JSON, the controls plain JavaScript shipped in
``viz/assets``), works offline, and is byte-identical for the same input: element ids
are a digest of the content plus a per-process counter. User text (Variable names)
reaches the page only escaped, and the script inserts it with ``textContent``.
"""

from __future__ import annotations

from typing import Any

from viz.export import GIF_MAX_WIDTH, PNG_DPI, picture_bundle
from viz.page import ASSETS, LEGEND, STEPPER_MIME
from viz.view import BIG_GRAPH_NODES, FORMAT, PICTURE_NOTE, StepperView

__all__ = [
    "ASSETS",
    "BIG_GRAPH_NODES",
    "FORMAT",
    "GIF_MAX_WIDTH",
    "LEGEND",
    "PICTURE_NOTE",
    "PNG_DPI",
    "STEPPER_MIME",
    "BackwardStepper",
    "picture_bundle",
]


class BackwardStepper(StepperView):
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
        show_memory: label each Function with the bytes it keeps for backward, and
            show above the drawing the bytes the graph still holds for backward, falling
            frame by frame to 0 (:func:`viz.memory.held_per_frame`).

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
        'Step 2 of 2: Mul.backward received ∂y/∂(x*x) (a scalar)'
        >>> caption.split(" and ", 1)[1].split(". ")[0]
        'sent ∂y/∂x twice, once for each use'
        >>> "http" in stepper.to_html()
        False
    """

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
