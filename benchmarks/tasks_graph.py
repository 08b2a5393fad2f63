"""Tasks that stress the graph machinery, not the arithmetic (issue 2, issue 11 T1/T2/T5/T7).

* T1 per-op overhead: a chain cycling ``x + 0.01``, ``x * 0.99``, ``sin`` on shape (8,).
* T2 deep chain: ``y = y * 1.0000001`` N times on a 0-d array; forward and backward per node.
* T5 higher order: the 4th derivative of tanh at 1.0 by repeated ``create_graph`` backward.
* T7 wide fan-in: the sum of n separately computed terms ``x * c_i`` of one input.

Every timing includes releasing the graph (``del``), which is part of the cost of a step.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks import peers
from benchmarks.harness import Case, Step, Target

_now = time.perf_counter


# -- T1 per-op overhead -------------------------------------------------------------------
def per_op_case(n_ops: int) -> Case:
    cycles = n_ops // 3
    ops = 3 * cycles
    x0 = np.linspace(-1.0, 1.0, 8)

    def per_op(t0: float, t1: float, t2: float) -> dict[str, float]:
        return {
            "fwd+bwd": (t2 - t0) / ops * 1e6,
            "fwd": (t1 - t0) / ops * 1e6,
            "bwd": (t2 - t1) / ops * 1e6,
        }

    def minitorch() -> Step:
        import minitorch.ops as F
        from minitorch import Variable

        x = Variable(x0.copy())

        def step() -> tuple[dict[str, float], Any]:
            x.grad = None
            t0 = _now()
            y = x
            for _ in range(cycles):
                y = F.sin((y + 0.01) * 0.99)
            loss = F.sum(y)
            t1 = _now()
            loss.backward()
            del y, loss
            t2 = _now()
            return per_op(t0, t1, t2), x.grad.data.copy()

        return step

    def numpy() -> Step:
        def step() -> tuple[dict[str, float], Any]:
            t0 = _now()
            saved = []
            y = x0
            for _ in range(cycles):
                y = (y + 0.01) * 0.99
                saved.append(y)
                y = np.sin(y)
            t1 = _now()
            gx = np.ones_like(y)
            for s in reversed(saved):
                gx = gx * np.cos(s) * 0.99
            del saved, y
            t2 = _now()
            return per_op(t0, t1, t2), gx

        return step

    def dezero() -> Step:
        dz = peers.dezero()
        df = dz.functions
        x = dz.Variable(x0.copy())

        def step() -> tuple[dict[str, float], Any]:
            x.cleargrad()
            t0 = _now()
            y = x
            for _ in range(cycles):
                y = df.sin((y + 0.01) * 0.99)
            loss = df.sum(y)
            t1 = _now()
            loss.backward()
            del y, loss
            t2 = _now()
            return per_op(t0, t1, t2), x.grad.data.copy()

        return step

    def torch() -> Step:
        th = peers.torch()
        x = th.tensor(x0.copy(), requires_grad=True)

        def step() -> tuple[dict[str, float], Any]:
            x.grad = None
            t0 = _now()
            y = x
            for _ in range(cycles):
                y = th.sin((y + 0.01) * 0.99)
            loss = y.sum()
            t1 = _now()
            loss.backward()
            del y, loss
            t2 = _now()
            return per_op(t0, t1, t2), x.grad.numpy().copy()

        return step

    return Case(
        task="T1",
        name=f"per-op overhead: {ops:,} ops (+0.01, *0.99, sin) on (8,), fwd+bwd",
        unit="µs/op",
        metrics=("fwd+bwd", "fwd", "bwd"),
        impls={"minitorch": minitorch, "numpy": numpy, "dezero": dezero, "torch": torch},
        targets=[Target("fwd+bwd", "torch", 0.8), Target("fwd+bwd", "dezero", 0.5)],
        min_rounds=25,  # ~0.1 s per framework a round: 5 rounds move the ratios by 5%
    )


# -- T2 deep chain ------------------------------------------------------------------------
def chain_case(
    n: int, with_dezero: bool, before_free: Callable[[Any], None] | None = None
) -> Case:
    """T2. ``bwd+free`` is what a step pays after its forward pass: a backward that reads
    less of the graph leaves more of it out of cache for ``del``, so ``bwd`` and ``free``
    can trade time (``benchmarks/free_control.py`` shows it). ``before_free(y)``, if
    given, runs untimed between the two in minitorch's step (that control's hook)."""
    factor = 1.0000001

    def per_node(t0: float, t1: float, t2: float, t3: float, hook: float = 0) -> dict[str, float]:
        # t0, forward, t1, backward, t2, [before_free: hook seconds], del, t3
        return {
            "bwd": (t2 - t1) / n * 1e6,
            "fwd": (t1 - t0) / n * 1e6,
            "free": (t3 - t2 - hook) / n * 1e6,
            "bwd+free": (t3 - t1 - hook) / n * 1e6,
        }

    def minitorch() -> Step:
        from minitorch import Variable

        x = Variable(np.array(1.0))

        def step() -> tuple[dict[str, float], Any]:
            x.grad = None
            t0 = _now()
            y = x
            for _ in range(n):
                y = y * factor
            t1 = _now()
            y.backward()
            t2 = _now()
            hook = 0.0
            if before_free is not None:
                before_free(y)
                hook = _now() - t2
            del y
            t3 = _now()
            return per_node(t0, t1, t2, t3, hook), x.grad.data.copy()

        return step

    def numpy() -> Step:
        def step() -> tuple[dict[str, float], Any]:
            t0 = _now()
            y = np.array(1.0)
            for _ in range(n):
                y = y * factor
            t1 = _now()
            gx = np.array(1.0)
            for _ in range(n):
                gx = gx * factor
            t2 = _now()
            del y
            t3 = _now()
            return per_node(t0, t1, t2, t3), gx

        return step

    def dezero() -> Step:
        dz = peers.dezero()
        x = dz.Variable(np.array(1.0))

        def step() -> tuple[dict[str, float], Any]:
            x.cleargrad()
            t0 = _now()
            y = x
            for _ in range(n):
                y = y * factor
            t1 = _now()
            y.backward()
            t2 = _now()
            del y
            t3 = _now()
            return per_node(t0, t1, t2, t3), x.grad.data.copy()

        return step

    def torch() -> Step:
        th = peers.torch()
        x = th.tensor(1.0, dtype=th.float64, requires_grad=True)

        def step() -> tuple[dict[str, float], Any]:
            x.grad = None
            t0 = _now()
            y = x
            for _ in range(n):
                y = y * factor
            t1 = _now()
            y.backward()
            t2 = _now()
            del y
            t3 = _now()
            return per_node(t0, t1, t2, t3), x.grad.numpy().copy()

        return step

    impls = {"minitorch": minitorch, "numpy": numpy, "torch": torch}
    if with_dezero:
        impls["dezero"] = dezero
    return Case(
        task="T2",
        name=f"deep chain: y = y * 1.0000001, N = {n:,} on a 0-d array",
        unit="µs/node",
        metrics=("bwd", "fwd", "free", "bwd+free"),
        impls=impls,
        targets=[Target("bwd", "torch", 1.0), Target("fwd", "torch", 1.0)],
        rtol=1e-9,
        warmup=n < 1_000_000,
        # A round of 10-100 ms: 5 were noise, and freeing (0.2-0.3 ms at N = 1,000) still
        # spreads +-30% from round to round at 25 rounds (the median's 95% interval about
        # +-7%); 100 rounds narrow it to about +-3% for 5 s (N = 1,000) and 45 s (10,000).
        min_rounds=100 if n <= 10_000 else 0,
    )


# -- T5 higher order ----------------------------------------------------------------------
def higher_order_case(order: int = 4, reps: int = 50) -> Case:
    """T5, timed as ``reps`` back-to-back repetitions per round (the time of one).

    Back to back, as in a user's loop and in any independent harness: ``backward``
    with ``create_graph=True`` leaves ``x -> x.grad -> its graph -> x``, a reference cycle
    that only Python's cyclic collector frees. Timed one repetition per round, after the
    harness's untimed ``gc.collect()``, that cost was invisible (0.92x PyTorch here, where
    a harness looping without collecting read 1.57x); now it is inside the timing.
    """

    def micro(t0: float, t1: float) -> dict[str, float]:
        return {"total": (t1 - t0) / reps * 1e6}

    def repeat(once: Any) -> Step:
        def step() -> tuple[dict[str, float], Any]:
            t0 = _now()
            for _ in range(reps):
                value = once()
            t1 = _now()
            return micro(t0, t1), value

        return step

    def minitorch() -> Step:
        import minitorch.ops as F
        from minitorch import Variable

        def once() -> Any:
            x = Variable(np.array(1.0))
            g = F.tanh(x)
            for _ in range(order):
                x.grad = None
                g.backward(create_graph=True)
                g = x.grad
            return g.data

        return repeat(once)

    def numpy() -> Step:
        def once() -> Any:
            # The closed form d4/dx4 tanh = 8 t (1 - t^2)(2 - 3 t^2): the floor is a formula.
            t = np.tanh(np.array(1.0))
            return 8 * t * (1 - t**2) * (2 - 3 * t**2)

        return repeat(once)

    def dezero() -> Step:
        dz = peers.dezero()

        def once() -> Any:
            x = dz.Variable(np.array(1.0))
            g = dz.functions.tanh(x)
            for _ in range(order):
                x.cleargrad()
                g.backward(create_graph=True)
                g = x.grad
            return g.data

        return repeat(once)

    def torch() -> Step:
        th = peers.torch()

        def once() -> Any:
            x = th.tensor(1.0, dtype=th.float64, requires_grad=True)
            g = th.tanh(x)
            for _ in range(order):
                (g,) = th.autograd.grad(g, x, create_graph=True)
            return g.detach().numpy().copy()

        return repeat(once)

    impls = {"minitorch": minitorch, "numpy": numpy, "dezero": dezero, "torch": torch}
    return Case(
        task="T5",
        name=f"higher order: d{order}/dx{order} tanh(x) at 1.0 by repeated create_graph",
        unit="µs",
        metrics=("total",),
        impls=impls,
        targets=[Target("total", "torch", 1.0)],
        rtol=1e-9,
        min_rounds=25,  # one round is ~25 ms per framework: 5 rounds were all noise
        note=(
            f"{reps} repetitions back to back per round, at least 25 rounds, so the reference "
            "cycles that create_graph leaves are collected inside the timing; numpy = the "
            "closed form 8t(1-t²)(2-3t²), a correctness reference, not a floor"
        ),
    )


# -- T7 wide fan-in -----------------------------------------------------------------------
def fan_in_case(n: int) -> Case:
    consts = [1.0 + i / n for i in range(n)]
    nodes = 2 * n - 1  # n products and n - 1 additions

    def per_node(t0: float, t1: float, t2: float) -> dict[str, float]:
        return {"bwd": (t2 - t1) / nodes * 1e6, "fwd": (t1 - t0) / nodes * 1e6}

    def make(variable: Any, clear: Any, grad: Any) -> Step:
        x = variable(np.array(0.5))

        def step() -> tuple[dict[str, float], Any]:
            clear(x)
            t0 = _now()
            terms = [x * c for c in consts]
            total = terms[0]
            for term in terms[1:]:
                total = total + term
            del terms
            t1 = _now()
            total.backward()
            del total
            t2 = _now()
            return per_node(t0, t1, t2), grad(x)

        return step

    def minitorch() -> Step:
        from minitorch import Variable

        return make(Variable, lambda x: x.clear_grad(), lambda x: x.grad.data.copy())

    def numpy() -> Step:
        def step() -> tuple[dict[str, float], Any]:
            x = np.array(0.5)
            t0 = _now()
            terms = [x * c for c in consts]
            total = terms[0]
            for term in terms[1:]:
                total = total + term
            t1 = _now()
            gx = np.array(0.0)
            g_total = np.array(1.0)
            for c in consts:
                gx = gx + g_total * c
            t2 = _now()
            return per_node(t0, t1, t2), gx

        return step

    def dezero() -> Step:
        dz = peers.dezero()
        return make(dz.Variable, lambda x: x.cleargrad(), lambda x: x.grad.data.copy())

    def torch() -> Step:
        th = peers.torch()

        def variable(a: np.ndarray) -> Any:
            return th.tensor(a, requires_grad=True)

        def clear(x: Any) -> None:
            x.grad = None

        return make(variable, clear, lambda x: x.grad.numpy().copy())

    return Case(
        task="T7",
        name=f"wide fan-in: sum of n = {n:,} terms x * c_i of one input",
        unit="µs/node",
        metrics=("bwd", "fwd"),
        impls={"minitorch": minitorch, "numpy": numpy, "dezero": dezero, "torch": torch},
        targets=[Target("bwd", "torch", 1.5)],
        rtol=1e-9,
        min_rounds=25,  # a round of 10-80 ms for minitorch: 5 rounds were noise
    )
