"""viz: draw minitorch graphs and step through their backward pass.

``viz`` reads only minitorch's public graph (``Variable.creator``, ``Function.inputs``,
``Function.outputs``, ``generation``, ``name``); minitorch never imports viz.

* :func:`to_dot` — the graph as DOT text (pure Python, deterministic).
* :func:`draw_graph` / :func:`render` — pictures via Graphviz: the system ``dot``, or
  the ``graphviz-pure`` wheel when ``dot`` is missing (:func:`set_renderer` chooses).
* :func:`trace_backward` and :class:`BackwardStepper` — the backward pass, step by step;
  :class:`StepperWidget` (``viz.widget``, needs ``anywidget``) is the same as a Jupyter widget.
* :mod:`viz.plots` — matplotlib helpers: training curves, decision boundaries, derivatives;
  :func:`attention_heatmap` (:mod:`viz.attention`) — attention weights per head.
"""

from typing import Any

from viz.dot import to_dot
from viz.draw import GraphView, GraphvizNotFoundError, draw_graph, render
from viz.renderer import get_renderer, set_renderer
from viz.stepper import BackwardStepper
from viz.trace import Accumulation, BackwardStep, BackwardTrace, trace_backward

__all__ = [
    "Accumulation",
    "BackwardStep",
    "BackwardStepper",
    "BackwardTrace",
    "GraphView",
    "GraphvizNotFoundError",
    "StepperWidget",
    "draw_graph",
    "get_renderer",
    "render",
    "set_renderer",
    "to_dot",
    "trace_backward",
    "attention_heatmap",
    "plot_decision_boundary",
    "plot_derivatives",
    "plot_history",
]

_PLOTS = ("plot_decision_boundary", "plot_derivatives", "plot_history")


def __getattr__(name: str) -> Any:
    """Load the matplotlib helpers on first use, so ``import viz`` stays quick."""
    if name == "attention_heatmap":
        from viz.attention import attention_heatmap

        return attention_heatmap
    if name in _PLOTS:
        from viz import plots

        return getattr(plots, name)
    if name == "StepperWidget":  # anywidget is optional: import it only when asked for
        from viz.widget import StepperWidget

        return StepperWidget
    raise AttributeError(f"module 'viz' has no attribute {name!r}")
