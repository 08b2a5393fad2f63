"""Colours and shapes of the drawing, and the legend that explains them.

One colour per meaning, chosen to stay distinguishable in grey-scale print and for the
common colour-vision deficiencies (blue / orange / purple, after ColorBrewer):

* leaves and parameters (what backward computes gradients for) — blue ellipses;
* intermediate results — light grey ellipses;
* the outputs you asked to draw — orange ellipses;
* constants that ops created from numbers (no gradient) — white, dashed;
* nodes that ``backward(create_graph=True)`` created — purple: the graph of the
  gradient itself, which a second backward differentiates;
* Functions — yellow boxes (purple boxes when created in backward);
* the tangent computation of forward mode (``minitorch.func.jvp``) — green boxes,
  ellipses and edges (see ``viz/tangents.py``).

References:
    C. Brewer, ColorBrewer 2.0, https://colorbrewer2.org
"""

from __future__ import annotations

#: Node attributes per Variable kind (see viz.graph.VAR_KINDS).
VAR_STYLE = {
    "leaf": 'shape=ellipse style=filled fillcolor="#9ecae1"',
    "intermediate": 'shape=ellipse style=filled fillcolor="#eeeeee"',
    "output": 'shape=ellipse style=filled fillcolor="#fdae6b"',
    "constant": 'shape=ellipse style=dashed color="#888888" fontcolor="#555555"',
    "backward": 'shape=ellipse style=filled fillcolor="#dadaeb"',
}
FUNC_STYLE = 'shape=box style="rounded,filled" fillcolor="#fff2ae"'
BACKWARD_FUNC_STYLE = 'shape=box style="rounded,filled" fillcolor="#bcbddc"'

#: Forward mode (viz/tangents.py): the tangent computation of a jvp, in green — a fourth
#: ColorBrewer hue, apart from the blue/orange/purple ones in grey-scale too.
TANGENT_FUNC = 'fillcolor="#a1d99b" color="#238b45"'
TANGENT_VAR = 'style=filled fillcolor="#c7e9c0" color="#238b45"'
TANGENT_OUTPUT = 'color="#238b45" penwidth=2.5'
TANGENT_EDGE = 'color="#238b45" penwidth=1.8'

#: Legend entries: (node kind, HTML table-cell attributes, text). The cells copy the
#: node colours; only the kinds a graph contains are listed (see viz.dot).
LEGEND = (
    ("leaf", 'BGCOLOR="#9ecae1" STYLE="rounded"', "leaf / parameter"),
    ("intermediate", 'BGCOLOR="#eeeeee" STYLE="rounded"', "intermediate"),
    ("output", 'BGCOLOR="#fdae6b" STYLE="rounded"', "output"),
    ("constant", 'COLOR="#888888" STYLE="dashed"', "constant (no grad)"),
    ("backward", 'BGCOLOR="#dadaeb" STYLE="rounded"', "made by backward"),
    ("func", 'BGCOLOR="#fff2ae"', "Function"),
    ("backward_func", 'BGCOLOR="#bcbddc"', "Function made by backward"),
    ("tangent", 'BGCOLOR="#a1d99b" STYLE="rounded"', "tangent computation (jvp)"),
)
#: Font size of the legend and of notes under the graph.
NOTE_SIZE = 9

GRAPH_ATTRS = 'fontname="Helvetica" fontsize=11 nodesep=0.3 ranksep=0.35'
NODE_ATTRS = 'fontname="Helvetica" fontsize=11 margin="0.08,0.04" height=0.3'
EDGE_ATTRS = 'color="#555555" arrowsize=0.7 fontname="Helvetica" fontsize=10'

#: Stepper highlights.
CURRENT_FUNC = 'color="#d7301f" penwidth=3.5'
DONE_FUNC = 'color="#aaaaaa" fontcolor="#888888"'
CARRY_EDGE = 'color="#d7301f" penwidth=2.5'
UPSTREAM_EDGE = 'color="#2171b5" penwidth=2.5'
ACCUMULATE_VAR = 'peripheries=2 color="#d7301f" penwidth=3'
RECEIVE_VAR = 'color="#d7301f" penwidth=2'

RANKDIRS = ("TB", "BT", "LR", "RL")
