"""T2's ``before_free`` hook and the free control's graph walk (benchmarks/free_control.py)."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from benchmarks import free_control, tasks_graph
from minitorch import Variable


def test_t2_hook_runs_between_backward_and_free_untimed() -> None:
    seen: list[Any] = []

    def slow_hook(y: Any) -> None:
        seen.append(free_control.touch_graph(y))
        time.sleep(0.02)  # 1,000 µs per node over 20 nodes, if it leaked into a metric

    case = tasks_graph.chain_case(20, with_dezero=False, before_free=slow_hook)
    metrics, grad = case.impls["minitorch"]()()
    assert seen == [20]  # once, on the whole graph: before del
    assert max(metrics.values()) < 500, metrics
    assert np.isclose(metrics["bwd+free"], metrics["bwd"] + metrics["free"])
    assert np.isclose(grad, 1.0000001**20)


def test_t2_reports_bwd_plus_free_for_every_framework() -> None:
    case = tasks_graph.chain_case(10, with_dezero=False)
    for name in ("minitorch", "numpy"):
        metrics, _ = case.impls[name]()()
        assert set(metrics) == set(case.metrics) == {"bwd", "fwd", "free", "bwd+free"}
        assert np.isclose(metrics["bwd+free"], metrics["bwd"] + metrics["free"])


def test_touch_graph_visits_each_function_once() -> None:
    x = Variable(np.arange(3.0))
    shared = x * 2.0  # read by both branches below: visited once
    y = (shared.exp() + shared * 3.0).sum()
    assert free_control.touch_graph(y) == 5  # Mul, Exp, Mul, Add, Sum
    big = Variable(np.ones(4096))  # over 1 KiB: an op may keep only an edge, no data
    assert free_control.touch_graph((big.exp() * 2.0 + 1.0).sum()) == 4
    assert free_control.touch_graph(x) == 0
