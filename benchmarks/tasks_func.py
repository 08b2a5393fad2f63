"""Task J: full Jacobians by forward and by reverse mode (issue 18), against ``torch.func``.

``f(x) = tanh(A @ x)`` with ``A`` of shape ``(m, n)``: the Jacobian is ``m x n``.

* *tall* (``n`` small, ``m`` large): ``jacfwd`` needs ``n`` forward passes with tangents,
  ``jacrev`` one forward and ``m`` backward passes, so forward mode should win;
* *wide* (``n`` large, ``m`` small): the other way round.

One row per shape and mode, so the table shows both modes on both shapes, with
minitorch's paired ratio to PyTorch. ``torch.func.jacfwd``/``jacrev`` batch their passes
with ``vmap`` (one vectorised pass) while minitorch runs them one by one, so the ratios
measure that difference too. No target: the point is the shape effect. The NumPy row is
the closed form ``diag(1 - tanh^2) A``: a correctness reference, not a floor.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from benchmarks import peers
from benchmarks.harness import Case, Step

_now = time.perf_counter


def jacobian_cases(quick: bool) -> list[Case]:
    """Tall and wide, each by ``jacfwd`` and by ``jacrev`` (smaller with ``quick``)."""
    few, many = (4, 64) if quick else (8, 256)
    return [
        _case(kind, n, m, mode)
        for kind, n, m in (("tall", few, many), ("wide", many, few))
        for mode in ("jacfwd", "jacrev")
    ]


def _case(kind: str, n: int, m: int, mode: str) -> Case:
    rng = np.random.default_rng(18)
    A = rng.standard_normal((m, n)) / np.sqrt(n)
    x0 = rng.standard_normal(n)

    def minitorch() -> Step:
        import minitorch.func as mf
        import minitorch.ops as F

        transform = getattr(mf, mode)

        def f(x: Any) -> Any:
            return F.tanh(F.matmul(A, x))

        def step() -> tuple[dict[str, float], Any]:
            t0 = _now()
            jac = transform(f)(x0).data
            t1 = _now()
            return {"total": (t1 - t0) * 1e3}, jac

        return step

    def numpy() -> Step:
        def step() -> tuple[dict[str, float], Any]:
            t0 = _now()
            jac = (1 - np.tanh(A @ x0) ** 2)[:, None] * A
            t1 = _now()
            return {"total": (t1 - t0) * 1e3}, jac

        return step

    def torch() -> Step:
        th = peers.torch()
        A_t, x_t = th.tensor(A), th.tensor(x0)
        transform = getattr(th.func, mode)

        def f(x: Any) -> Any:
            return th.tanh(A_t @ x)

        def step() -> tuple[dict[str, float], Any]:
            t0 = _now()
            jac = transform(f)(x_t)
            t1 = _now()
            return {"total": (t1 - t0) * 1e3}, jac.numpy().copy()

        return step

    passes = f"{n} forward passes" if mode == "jacfwd" else f"1 forward + {m} backward passes"
    winner = "jacfwd" if n < m else "jacrev"
    return Case(
        task="J",
        name=f"{mode} of tanh(A @ x), {kind}: {m} outputs x {n} inputs ({passes})",
        unit="ms",
        metrics=("total",),
        impls={"minitorch": minitorch, "numpy": numpy, "torch": torch},
        rtol=1e-10,
        note=f"{kind}: {winner} should win; numpy = the closed form (a reference, not a floor)",
    )
