"""Forward mode in the drawing: the tangent computation of a ``minitorch.func.jvp``.

Every tangent rule's ops carry ``Function.created_in_jvp``. This module turns them into
extra DOT attributes: green boxes for those Functions; green ellipses for the values
they produce and for the tangent seeds (leaves, not constants, that feed only tangent
ops), except that a drawn output stays orange, with a green border; and green edges
wherever a tangent flows. Primal values that a rule reads (``cos(x)`` in the
tangent of ``sin``) keep their own colour, with an ordinary edge into the green box, so
forward and reverse mode can be drawn side by side on one expression::

    x, v = Variable(np.array(0.5), name="x"), Variable(np.array(1.0), name="v")
    y, ty = mf.jvp(lambda x: F.sin(x) * x, (x,), (v,))
    viz.draw_graph([y, ty])   # the primal graph, and the tangent graph in green

(the tangent seed must be a Variable that requires a gradient, as here, so that the
tangent computation is recorded as a graph at all).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from viz import style

if TYPE_CHECKING:
    from viz.dot import Overlay
    from viz.graph import Graph


def tangent_overlay(graph: Graph, overlay: Overlay) -> Overlay:
    """``overlay`` plus the tangent colours; the overlay's own entries take precedence."""
    funcs = {fn.id for fn in graph.functions if getattr(fn.func, "created_in_jvp", False)}
    if not funcs:
        return overlay
    consumers: dict[str, set[str]] = {}
    for src, dst in graph.edges:
        consumers.setdefault(src, set()).add(dst)
    tangents = set()
    for vn in graph.variables:
        creator = vn.var.creator
        if creator is not None:
            made_by_rule = graph.func_ids.get(id(creator)) in funcs
        else:  # a seed: a leaf (not a constant such as the 2 of 2 x dx) only rules use
            uses = consumers.get(vn.id, set())
            made_by_rule = vn.kind == "leaf" and bool(uses) and uses <= funcs
        if made_by_rule:
            tangents.add(vn.id)
    kinds = {vn.id: vn.kind for vn in graph.variables}
    node_attrs = {i: style.TANGENT_FUNC for i in funcs}
    node_attrs.update(
        {i: style.TANGENT_OUTPUT if kinds[i] == "output" else style.TANGENT_VAR for i in tangents}
    )
    node_attrs.update(overlay.node_attrs)
    edge_attrs = {
        i: style.TANGENT_EDGE
        for i, (src, dst) in enumerate(graph.edges)
        if src in tangents or src in funcs
    }
    edge_attrs.update(overlay.edge_attrs)
    return replace(overlay, node_attrs=node_attrs, edge_attrs=edge_attrs)
