"""``trace_backward``: watch minitorch's own engine run backward, one Function at a time.

Nothing here recomputes a gradient, and nothing is patched: the trace runs minitorch's
engine (``run_backward``) with its observation hook ``on_step``, which the engine calls
after each Function's backward, in its own order, with the gradients the Function
received from its outputs and the gradients it returned for its inputs. Where a Variable receives a
second contribution (a fan-in: the Variable was used twice), the step also records the
running sum — the ``+=`` of the multivariable chain rule.

References:
    A. Griewank, A. Walther, *Evaluating Derivatives*, 2nd ed., SIAM 2008, §3.2
    (reverse mode, adjoint accumulation at fan-in).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from minitorch import Function, Variable
from minitorch.core.backward import run_backward
from viz.graph import Graph, as_outputs, walk
from viz.labels import format_array
from viz.names import derived_names

ArrayOrNone = np.ndarray | None


@dataclass(frozen=True)
class Accumulation:
    """A gradient contribution added to one already waiting at a Variable (fan-in).

    What waits may come from an earlier step (``x`` used by two Functions) or only from
    this same step (one Function using ``x`` twice, as in ``x * x``: both of Mul's
    contributions arrive in one step); ``earlier`` tells the two apart, so a caption
    does not claim the Variable "already held" a gradient it had not.

    Attributes:
        node_id: the Variable's node id in the drawing (``v3``).
        before: the gradient collected so far.
        added: the new contribution.
        total: ``before + added``.
        earlier: whether ``before`` includes a gradient from an earlier step (``False``
            when it holds only what this step sent a moment before).

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> x = Variable(np.array(3.0), name="x")
        >>> (acc,) = trace_backward(x * x)[0].accumulations  # x used twice
        >>> float(acc.before), float(acc.added), float(acc.total)
        (3.0, 3.0, 6.0)
        >>> acc.earlier  # both contributions come from this one Mul
        False
    """

    node_id: str
    before: np.ndarray
    added: np.ndarray
    total: np.ndarray
    earlier: bool = True


@dataclass(frozen=True)
class BackwardStep:
    """One Function's backward call, as the engine made it.

    Attributes:
        index: position in engine order, from 0.
        function: the Function.
        node_id: its node id in the drawing (``f2``).
        grads_in: the upstream gradient of each output (``gy``), as ndarrays.
        grads_out: the gradient returned for each input (``gx``; ``None`` where the
            input needs none).
        input_ids: node id of each input (``None`` for hidden constants).
        output_ids: node id of each output (``None`` if that output is not drawn).
        accumulations: the fan-ins this step caused.

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> x = Variable(np.array(2.0), name="x")
        >>> step = trace_backward(x.exp())[0]
        >>> step.name, step.node_id, step.input_ids, round(float(step.grads_out[0]), 4)
        ('Exp', 'f1', ('v1',), 7.3891)
    """

    index: int
    function: Function
    node_id: str
    grads_in: tuple[ArrayOrNone, ...]
    grads_out: tuple[ArrayOrNone, ...]
    input_ids: tuple[str | None, ...]
    output_ids: tuple[str | None, ...]
    accumulations: tuple[Accumulation, ...] = ()

    @property
    def name(self) -> str:
        """The Function's class name (``Mul``)."""
        return type(self.function).__name__


@dataclass
class BackwardTrace:
    """The backward pass of one output, step by step (see :func:`trace_backward`).

    Attributes:
        output: the Variable backward started from.
        graph: the walked graph (node ids shared with :func:`viz.to_dot`).
        steps: the :class:`BackwardStep` records in engine order.
        seed: the starting gradient ``ones_like(output)``; ``None`` when the output
            needs no gradient (then backward runs no Function and seeds nothing).
        grads_before: node id -> the ``grad`` a leaf already held before the pass (a
            copy): backward adds to it, which the stepper's last frame says.
        leaf_grads: node id -> the leaf's ``grad`` after the pass (copied from the
            engine's result, ``x.grad.data``).
        with_grad: the node ids of the Variables whose ``grad`` is set after the pass,
            in drawing order: the leaves that got one, and with ``retain_grad=True`` the
            intermediate Variables too (without it, their gradients are dropped).
        retain_grad: the ``retain_grad`` the pass ran with.
        create_graph: the ``create_graph`` the pass ran with (then every gradient is a
            Variable with a graph of its own; the trace records its values).

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> x = Variable(np.array(2.0), name="x")
        >>> trace = trace_backward(x * 3.0)
        >>> trace, print(trace)
        step 1/1: Mul.backward; received gy = 1.0; sends x gets 3.0
        (<viz.BackwardTrace 1 steps>, None)
        >>> {k: float(v) for k, v in trace.grads_after(1).items()}
        {'v3': 1.0, 'v1': 3.0}
    """

    output: Variable
    graph: Graph
    steps: list[BackwardStep] = field(default_factory=list)
    seed: np.ndarray | None = None
    leaf_grads: dict[str, np.ndarray] = field(default_factory=dict)
    grads_before: dict[str, np.ndarray] = field(default_factory=dict)
    with_grad: tuple[str, ...] = ()
    retain_grad: bool = False
    create_graph: bool = False
    _naming: tuple[dict[str, str], set[str]] | None = field(
        default=None, repr=False, compare=False
    )

    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self) -> Iterator[BackwardStep]:
        return iter(self.steps)

    def __getitem__(self, index: int) -> BackwardStep:
        return self.steps[index]

    def __repr__(self) -> str:
        return f"<viz.BackwardTrace {len(self.steps)} steps>"

    def grads_after(self, k: int) -> dict[str, np.ndarray]:
        """Node id -> the gradient collected at each Variable after the first ``k`` steps."""
        out_id = self.graph.var_id(self.output)
        grads: dict[str, np.ndarray] = {}
        if out_id is not None and self.seed is not None:
            grads[out_id] = self.seed
        for step in self.steps[:k]:
            for node_id, gx in zip(step.input_ids, step.grads_out):
                if node_id is not None and gx is not None:
                    grads[node_id] = gx if node_id not in grads else grads[node_id] + gx
        return grads

    def name_of(self, node_id: str | None) -> str:
        """The name a Variable node is drawn with, exactly as the drawing shows it.

        Its parameter path or ``name``, a small constant's value, else the name
        :func:`viz.names.derived_names` gives it, the output being the one backward
        started from (as the stepper names it). ``"?"`` for an unknown id.
        """
        return self.naming()[0].get(node_id or "", "?")

    def naming(self) -> tuple[dict[str, str], set[str]]:
        """:func:`viz.names.derived_names` of the graph from this output, taken once (by
        :func:`trace_backward`, before backward runs), so every caption and frame uses
        the same names."""
        if self._naming is None:
            self._naming = derived_names(self.graph, self.graph.var_id(self.output))
        return self._naming

    def describe(self, k: int) -> str:
        """One line of text saying what step ``k`` (from 0) did."""
        step = self.steps[k]
        parts = [f"step {k + 1}/{len(self.steps)}: {step.name}.backward"]
        gys = ", ".join(format_array(g) for g in step.grads_in)
        parts.append(f"received gy = {gys}")
        sent = [
            f"{self.name_of(nid)} gets {format_array(g)}"
            for nid, g in zip(step.input_ids, step.grads_out)
            if g is not None
        ]
        parts.append("sends " + ("; ".join(sent) if sent else "nothing"))
        for acc in step.accumulations:
            parts.append(
                f"{self.name_of(acc.node_id)} accumulates {format_array(acc.before)} + "
                f"{format_array(acc.added)} = {format_array(acc.total)}"
            )
        return "; ".join(parts)

    def __str__(self) -> str:
        if not self.steps:  # printing nothing would look like a failure
            return "no steps: backward ran no Function"
        return "\n".join(self.describe(k) for k in range(len(self.steps)))


def trace_backward(
    output: Variable, *, retain_grad: bool = False, create_graph: bool = False
) -> BackwardTrace:
    """Run ``output.backward()`` on minitorch's engine and record every step.

    The gradients end up in the leaves' ``grad`` exactly as after a plain
    ``output.backward()`` (added to what was there, as always); the trace additionally
    keeps what flowed along every edge, in the engine's order.

    Args:
        output: the Variable to differentiate (any shape; the seed is ``ones_like``).
        retain_grad: passed on to ``backward``.
        create_graph: passed on to ``backward``; the recorded gradients are the values
            of the gradient Variables.

    Returns:
        A :class:`BackwardTrace`; ``len(trace)`` is the number of Functions run.

    Raises:
        TypeError: if ``output`` is not a Variable.
        RuntimeError, ValueError: whatever ``backward`` raises (e.g. inside ``no_grad``).

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> x = Variable(np.array(3.0), name="x")
        >>> y = x * x + x
        >>> trace = trace_backward(y)
        >>> [step.name for step in trace]
        ['Add', 'Mul']
        >>> float(x.grad.data)
        7.0
    """
    (output,) = as_outputs(output, "viz.trace_backward")
    graph = walk([output])
    trace = BackwardTrace(
        output,
        graph,
        # No seed where the engine starts from none: an output needing no gradient (a
        # create_graph gradient that depends on no input) runs no Function at all.
        seed=np.ones_like(output.data) if output.requires_grad else None,
        retain_grad=retain_grad,
        create_graph=create_graph,
    )
    for vn in graph.variables:
        if vn.var.creator is None and vn.var.grad is not None:
            trace.grads_before[vn.id] = np.array(vn.var.grad.data, copy=True)
    trace.naming()  # the names of the graph as the forward pass left it
    recorder = _Recorder(trace)
    run_backward(
        output, retain_grad=retain_grad, create_graph=create_graph, on_step=recorder.record
    )
    for vn in graph.variables:
        if vn.var.creator is None and vn.var.grad is not None:
            trace.leaf_grads[vn.id] = np.array(vn.var.grad.data, copy=True)
    trace.with_grad = tuple(vn.id for vn in graph.variables if vn.var.grad is not None)
    return trace


class _Recorder:
    """The engine's ``on_step`` observer: turns each backward call into a BackwardStep."""

    def __init__(self, trace: BackwardTrace) -> None:
        self.trace = trace
        self.received: dict[str, np.ndarray] = {}  # node id -> gradient collected so far
        out_id = trace.graph.var_id(trace.output)
        if out_id is not None and trace.seed is not None:
            self.received[out_id] = trace.seed

    def record(self, func: Function, gys: tuple[Any, ...], gxs: tuple[Any, ...]) -> None:
        """Append the BackwardStep of one call, noting fan-in accumulations."""
        graph = self.trace.graph
        # The engine drops gradients for inputs that need none (constants); so do we.
        needs = func.needs_input_grad
        grads_out = tuple(_array(g) if need else None for g, need in zip(gxs, needs))
        input_ids = tuple(graph.var_id(x) for x in func.inputs)
        outputs = [ref() for ref in func.outputs]
        accumulations = []
        held_earlier = {nid for nid in input_ids if nid is not None and nid in self.received}
        for node_id, gx in zip(input_ids, grads_out):
            if node_id is None or gx is None:
                continue
            before = self.received.get(node_id)
            self.received[node_id] = gx if before is None else before + gx
            if before is not None:
                accumulations.append(
                    Accumulation(
                        node_id, before, gx, self.received[node_id], node_id in held_earlier
                    )
                )
        func_id = graph.func_id(func)
        assert func_id is not None, "every Function of the walked graph has an id"
        self.trace.steps.append(
            BackwardStep(
                index=len(self.trace.steps),
                function=func,
                node_id=func_id,
                grads_in=tuple(_array(g) for g in gys),
                grads_out=grads_out,
                input_ids=input_ids,
                output_ids=tuple(graph.output_id(func, i) for i in range(len(outputs))),
                accumulations=tuple(accumulations),
            )
        )


def _array(g: Any) -> ArrayOrNone:
    """A copy of a gradient as an ndarray (Variables give their data)."""
    if g is None:
        return None
    data = g.data if isinstance(g, Variable) else g
    return np.array(data, copy=True)
