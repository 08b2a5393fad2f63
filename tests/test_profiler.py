"""``minitorch.profile()``: per-Function calls, time, FLOPs and the graph's memory."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import minitorch
import minitorch.ops as F
from minitorch import Function, Variable, nn


def by_name(prof: minitorch.profiler.Profile) -> dict[str, minitorch.profiler.Row]:
    return {row.name: row for row in prof.rows}


def test_linear_flops_are_the_analytic_count() -> None:
    layer = nn.Linear(30, 20, rng=0)
    x = np.ones((8, 30), dtype=np.float32)
    with minitorch.profile() as prof:
        layer(x).sum().backward()
    row = by_name(prof)["Linear"]
    assert row.calls == 1
    assert row.flops == 2 * 8 * 30 * 20 + 8 * 20  # multiply-adds, then the bias


def test_conv2d_flops_are_the_analytic_count() -> None:
    conv = nn.Conv2d(3, 4, 3, padding=1, rng=0)
    x = np.ones((2, 3, 5, 5), dtype=np.float32)
    with minitorch.profile() as prof:
        conv(x).sum().backward()
    rows = by_name(prof)
    assert "Conv2d" in rows, list(rows)
    out_elements = 2 * 4 * 5 * 5
    assert rows["Conv2d"].flops == 2 * out_elements * 3 * 3 * 3 + out_elements


def test_matmul_flops_count_batched_products() -> None:
    a, b = Variable(np.ones((5, 2, 3))), Variable(np.ones((3, 4)))
    with minitorch.profile() as prof:
        F.matmul(a, b)
    assert by_name(prof)["MatMul"].flops == 2 * 5 * 2 * 4 * 3


def test_calls_and_backward_time_are_recorded_per_type() -> None:
    x = Variable(np.linspace(-1, 1, 10))
    with minitorch.profile() as prof:
        y = F.tanh(F.tanh(x)).sum()
        y.backward()
    rows = by_name(prof)
    assert rows["Tanh"].calls == 2 and rows["Sum"].calls == 1
    assert rows["Tanh"].backward_seconds > 0 and rows["Tanh"].forward_seconds > 0


def test_saved_bytes_are_the_inputs_a_function_keeps() -> None:
    x = Variable(np.ones((100, 10)))  # 8,000 bytes
    with minitorch.profile() as prof:
        F.exp(x)
    assert by_name(prof)["Exp"].saved_bytes == 8_000


def test_peak_live_bytes_match_tracemalloc_within_10_percent() -> None:
    rng = np.random.default_rng(0)
    x = Variable(rng.normal(size=(2_000, 100)))  # 1.6 MB, made before tracing starts
    tracemalloc.start()
    with minitorch.profile() as prof:
        h = x
        for _ in range(10):
            h = F.tanh(h * 1.5)
        _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    graph_bytes = prof.peak_bytes - x.data.nbytes  # tracemalloc did not see x's array
    assert abs(graph_bytes - traced_peak) <= 0.1 * traced_peak, (graph_bytes, traced_peak)


def test_backward_frees_the_graph_and_the_live_count_falls() -> None:
    x = Variable(np.ones((1_000, 10)))
    with minitorch.profile() as prof:
        y = F.exp(F.exp(x)).sum()
        before = prof.live_bytes
        y.backward()
        del y
    assert prof.live_bytes < before


def test_table_prints_one_row_per_type_and_the_peak() -> None:
    x = Variable(np.ones((3, 3)))
    with minitorch.profile() as prof:
        (x @ x).sum().backward()
    text = prof.table(sort_by="flops")
    lines = text.splitlines()
    assert lines[0].split() == ["Function", "calls", "forward", "backward", "FLOPs", "saved"]
    assert lines[2].startswith("MatMul")  # the most FLOPs first
    assert lines[-1].startswith("peak live bytes of the graph:")


def test_unknown_sort_key_is_named() -> None:
    with minitorch.profile() as prof:
        pass
    with pytest.raises(ValueError, match="sort_by must be one of .*got 'cpu_time_total'"):
        prof.table(sort_by="cpu_time_total")


def test_profiles_do_not_nest_and_leave_nothing_patched() -> None:
    call = Function.__call__
    with minitorch.profile():
        with pytest.raises(RuntimeError, match="already running"):
            with minitorch.profile():
                pass
    assert Function.__call__ is call


def test_create_graph_no_grad_and_constant_calls_are_profiled() -> None:
    # Functions that record no graph (no_grad, constant inputs) have no `inputs`; the
    # profile counts their calls and FLOPs from the operands instead of failing.
    x = Variable(np.array([0.5, -1.0]))
    with minitorch.profile() as prof:
        F.sum(F.tanh(x)).backward(create_graph=True)  # the backward records TanhGrad
        with minitorch.no_grad():
            F.tanh(x)
        F.tanh(np.ones(3))  # a constant operand: nothing recorded
    rows = {r.name: r for r in prof.rows}
    assert rows["Tanh"].calls == 3 and rows["TanhGrad"].calls == 1
    assert rows["Tanh"].flops > 0 and rows["Tanh"].backward_seconds > 0
