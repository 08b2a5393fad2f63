"""viz: draw minitorch graphs and step through their backward pass.

``viz`` reads only minitorch's public graph (``Variable.creator``, ``Function.inputs``,
``Function.outputs``, ``generation``, ``name``); minitorch never imports viz.

* :func:`to_dot` — the graph as DOT text (pure Python, deterministic).
* :func:`draw_graph` / :func:`render` — pictures via the Graphviz ``dot`` program.
* :func:`trace_backward` and :class:`BackwardStepper` — the backward pass, step by step.
* :mod:`viz.plots` — matplotlib helpers: training curves, decision boundaries, derivatives.
"""

from viz.dot import to_dot
from viz.draw import GraphView, GraphvizNotFoundError, draw_graph, render
from viz.stepper import BackwardStepper
from viz.trace import Accumulation, BackwardStep, BackwardTrace, trace_backward

__all__ = [
    "Accumulation",
    "BackwardStep",
    "BackwardStepper",
    "BackwardTrace",
    "GraphView",
    "GraphvizNotFoundError",
    "draw_graph",
    "render",
    "to_dot",
    "trace_backward",
]
