"""The stepper's frame model: what each step of a backward pass shows, and its captions.

A :class:`StepFrames` turns a :class:`~viz.trace.BackwardTrace` into the frames that
:class:`viz.BackwardStepper` shows on its one drawing (the format is described in
:mod:`viz.stepper`): frame 0 the seed, frames 1..n the steps in engine order, frame n+1
the end, each with its caption in plain English and the rows of its gradient table.
Nothing here draws or needs Graphviz: the frames are plain data, computed from the trace
and the names the drawing gives its nodes.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np

from viz.labels import format_array
from viz.names import creator_names, is_plain, unnamed_variables
from viz.trace import BackwardStep, BackwardTrace


class StepFrames:
    """The frames of a backward pass: the start, one per step, the end.

    Args:
        trace: the result of :func:`viz.trace_backward`.

    Attributes:
        trace: the trace.

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> from viz import trace_backward
        >>> x = Variable(np.array(2.0), name="x")
        >>> frames = StepFrames(trace_backward(x * x)).frames()
        >>> [frame["counter"] for frame in frames]
        ['start', 'step 1 of 1', 'end']
    """

    def __init__(self, trace: BackwardTrace) -> None:
        self.trace = trace

    def frames(self) -> list[dict[str, Any]]:
        """The frames, computed once (the caller must not change them)."""
        return self._frames

    @cached_property
    def _frames(self) -> list[dict[str, Any]]:
        trace = self.trace
        n = len(trace)
        frames = [self._start_frame()]
        frames += [self._step_frame(step, n) for step in trace.steps]
        frames.append(self._end_frame())
        _add_legends(frames)
        return frames

    def captions(self) -> list[str]:
        """The caption of every frame, in order."""
        return [frame["caption"] for frame in self._frames]

    @cached_property
    def _naming(self) -> tuple[dict[str, str], set[str]]:
        return self.trace.naming()

    @property
    def _names(self) -> dict[str, str]:
        """Node id -> the name its node shows (the captions use exactly these)."""
        return self._naming[0]

    @cached_property
    def derived(self) -> dict[str, str]:
        """Node id -> name, for the Variables the user did not name (``y``, ``tanh(h)``).

        Named from the output the stepper starts at; the drawing shows these, so that a
        graph with several outputs names them as the captions do (see :mod:`viz.names`).
        """
        unnamed = unnamed_variables(self.trace.graph)
        return {i: name for i, name in self._names.items() if i in unnamed}

    @cached_property
    def _creators(self) -> dict[str, str]:
        return creator_names(self.trace.graph)

    @cached_property
    def _out_id(self) -> str | None:
        return self.trace.graph.var_id(self.trace.output)

    def _d(self, node_id: str | None) -> str:
        """``∂loss/∂x``: the derivative of the output with respect to a Variable."""
        out = self._names.get(self._out_id or "", "y")
        out = out if is_plain(out) else f"({out})"  # ∂(dy/dx)/∂x, not ∂dy/dx/∂x
        name = self._names.get(node_id or "", "?")
        if not is_plain(name):  # ∂y/∂(x*2.0), not ∂y/∂x*2.0; also a name you gave: a+b
            name = f"({name})"
        return f"\u2202{out}/\u2202{name}"

    def _start_frame(self) -> dict[str, Any]:
        trace = self.trace
        n = len(trace)
        out_id = trace.graph.var_id(trace.output)
        name = self._names.get(out_id or "", "the output")
        if out_id in self.derived and out_id in self._creators:
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
        """Whether the node is named only by a Function and a count (``add3``).

        Then a caption says where the node is (:meth:`_where`): ``add3`` alone does not
        tell a student which ellipse to look at.
        """
        return node_id is not None and node_id in self._automatic

    @property
    def _automatic(self) -> set[str]:
        """The node ids named only by a Function and a count (``add3``, :mod:`viz.names`)."""
        return self._naming[1]

    def _where(self, node_id: str) -> str:
        """``mul3 is the output of Mul`` (``leaf2 is a leaf`` when no Function made it)."""
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
    """``a scalar`` or ``shape (4, 10)``, written as the nodes write shapes."""
    a = np.asarray(a)
    return "a scalar" if a.ndim == 0 else f"shape {a.shape}"


def _shape_cell(a: np.ndarray) -> str:
    """``scalar`` or ``(4, 10)``, as the nodes write it."""
    a = np.asarray(a)
    return "scalar" if a.ndim == 0 else str(a.shape)


def _add_legends(frames: list[dict[str, Any]]) -> None:
    """Give each frame ``"legend"``: the keys of :data:`viz.page.LEGEND` it shows.

    Only what the frame's drawing has: the red box while a Function runs, the arrows it
    uses, the outline of the Variables receiving now, ``+=`` where a fan-in adds up,
    ``∂`` once some Variable holds a gradient, the faded box once a Function is done.
    """
    holds = done = False
    for k, frame in enumerate(frames):
        holds = holds or bool(frame["got"])
        if "holds" in frame:  # the end: what keeps a .grad
            holds = bool(frame["holds"])
        done = done or (k == len(frames) - 1 and any(f["active"] for f in frames))
        shown = {
            "func-active": frame["active"] is not None,
            "recv": bool(frame["recv"]),
            "send": bool(frame["send"]),
            "var-got": bool(frame["got"]),
            "badge-acc": bool(frame["acc"]),
            "badge-has": holds,
            "func-done": done,
        }
        frame["legend"] = [key for key, on in shown.items() if on]
        done = done or frame["active"] is not None  # done from the next frame on


def _values(a: np.ndarray) -> str:
    """The values when there are at most 6, else the minimum and maximum."""
    a = np.asarray(a)
    if a.size <= 6 or a.dtype.kind not in "biuf":
        return format_array(a)
    return f"min {format_array(np.asarray(a.min()))}, max {format_array(np.asarray(a.max()))}"
