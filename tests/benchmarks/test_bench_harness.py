"""The benchmark suite: its statistics, its agreement check, and every task at tiny sizes.

Timings are not tested (the suite runs on busy machines); what is tested is that each
task's minitorch implementation computes the same numbers as its hand-written NumPy
floor, that the harness pairs rounds and flags disagreement, and that the report and
the docs table are produced.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmarks import harness, memory, report, tasks_graph, tasks_models
from benchmarks.harness import Case, Target, round_orders, run_case


def _fixed(times: list[float], value: Any) -> Any:
    """A fake framework whose round r takes times[r] and returns value."""

    def setup() -> Any:
        calls = itertools.chain([times[0]], itertools.cycle(times))  # first: the warm-up

        def step() -> tuple[dict[str, float], Any]:
            return {"t": next(calls)}, value

        return step

    return setup


def test_ratios_are_medians_of_paired_rounds() -> None:
    case = Case(
        "TX",
        "fake",
        "s",
        ("t",),
        {
            "minitorch": _fixed([1.0, 2.0, 4.0, 8.0, 16.0, 32.0], np.ones(3)),
            "torch": _fixed([2.0, 2.0, 2.0, 2.0, 2.0, 2.0], np.ones(3)),
        },
        targets=[Target("t", "torch", 1.5)],
    )
    # 5 rounds of two frameworks: 6, whole cycles of AB, BA
    result = run_case(case, ["minitorch", "torch"], rounds=5, log=lambda _: None)
    assert result.median("minitorch", "t") == 6.0
    # the order of a round must not shuffle the pairing: round r meets round r
    assert result.paired_ratios("minitorch", "torch", "t") == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0]
    assert result.ratio("minitorch", "torch", "t") == 3.0
    assert result.targets[0]["met"] is False and result.targets[0]["ratio"] == 3.0


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7])
def test_round_orders_balance_places_and_predecessors(n: int) -> None:
    names = [f"f{i}" for i in range(n)]
    cycle = n if n % 2 == 0 else 2 * n
    orders = round_orders(names, 2 * cycle)
    assert orders[:cycle] == orders[cycle:]
    assert all(sorted(order) == names for order in orders)
    places = {(name, order.index(name)) for order in orders[:cycle] for name in names}
    counts = [sum(order.index(name) == p for order in orders[:cycle]) for name, p in places]
    assert len(places) == n * n and len(set(counts)) == 1  # every place equally often
    follows: dict[tuple[str, str], int] = {}
    for order in orders[:cycle]:
        for before, after in zip(order, order[1:]):
            follows[before, after] = follows.get((before, after), 0) + 1
    # every ordered pair of different names adjacent, and equally often
    assert len(follows) == n * (n - 1) and len(set(follows.values())) <= 1


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7])
def test_round_orders_run_back_to_back_without_repeats(n: int) -> None:
    names = [f"f{i}" for i in range(n)]
    cycle = n if n % 2 == 0 else 2 * n
    orders = round_orders(names, 3 * cycle)
    steps = [name for order in orders for name in order]
    assert all(a != b for a, b in zip(steps, steps[1:]))  # no framework twice in a row
    boundaries: dict[tuple[str, str], int] = {}
    for before, after in zip(orders[:cycle], orders[1 : cycle + 1]):  # with the wrap-around
        pair = (before[-1], after[0])
        boundaries[pair] = boundaries.get(pair, 0) + 1
    assert max(boundaries.values()) == 1


def test_rounds_are_rounded_up_to_whole_cycles() -> None:
    case = Case("TX", "fake", "s", ("t",), {fw: _fixed([1.0] * 30, 0.0) for fw in "abcde"})
    result = run_case(case, list("abcde"), rounds=25, log=lambda _: None)
    assert len(result.samples["a"]["t"]) == 30  # 5 frameworks: a cycle of 10 rounds
    fewer = run_case(case, list("abcde"), rounds=5, log=lambda _: None)
    assert len(fewer.samples["a"]["t"]) == 5  # under one cycle: as asked


def test_a_case_can_ask_for_more_rounds_than_requested() -> None:
    case = Case(
        "TX",
        "fake",
        "s",
        ("t",),
        {"minitorch": _fixed([1.0] * 8, 0.0), "torch": _fixed([2.0] * 8, 0.0)},
        min_rounds=7,
    )
    result = run_case(case, ["minitorch", "torch"], rounds=5, log=lambda _: None)
    # 7, then up to whole cycles (2 rounds for two frameworks)
    assert len(result.samples["minitorch"]["t"]) == 8 == len(result.samples["torch"]["t"])


def test_disagreeing_framework_is_flagged() -> None:
    case = Case(
        "TX",
        "fake",
        "s",
        ("t",),
        {
            "minitorch": _fixed([1.0] * 5, np.array([1.0, 2.0])),
            "numpy": _fixed([1.0] * 5, np.array([1.0, 2.0 + 1e-3])),
            "torch": _fixed([1.0] * 5, np.array([1.0, 2.0])),
        },
    )
    result = run_case(case, ["minitorch", "numpy", "torch"], rounds=5, log=lambda _: None)
    assert result.agree == {"minitorch": False, "numpy": True, "torch": False}


def test_missing_framework_is_skipped_with_reason() -> None:
    def missing() -> Any:
        raise ImportError("No module named 'nothing'")

    case = Case("TX", "fake", "s", ("t",), {"minitorch": _fixed([1.0] * 5, 0.0), "torch": missing})
    result = run_case(case, ["minitorch", "torch"], rounds=5, log=lambda _: None)
    assert "torch" in result.skipped and "torch" not in result.samples


@pytest.mark.parametrize(
    "make_case",
    [
        lambda: tasks_graph.per_op_case(30),
        lambda: tasks_graph.chain_case(200, with_dezero=False),
        lambda: tasks_graph.higher_order_case(reps=2),
        lambda: tasks_graph.fan_in_case(50),
        lambda: tasks_models.spiral_case(epochs=1),
        lambda: tasks_models.big_mlp_case(iterations=1, sizes=(20, 30, 30, 5)),
        lambda: tasks_models.conv_case(iterations=1),
    ],
    ids=["T1", "T2", "T5", "T7", "T3", "T4", "conv"],
)
def test_minitorch_matches_the_numpy_floor(make_case: Any) -> None:
    case = make_case()
    result = run_case(case, ["minitorch", "numpy"], rounds=1, log=lambda _: None)
    assert result.skipped == {}
    assert result.agree == {"minitorch": True, "numpy": True}


def test_memory_child_reports_peak_and_agrees() -> None:
    steps = {fw: memory.memory_case(n=20_000).impls[fw]() for fw in ("minitorch", "numpy")}
    (mt, mt_value), (floor, floor_value) = steps["minitorch"](), steps["numpy"]()
    np.testing.assert_allclose(mt_value, floor_value, rtol=1e-9)
    assert mt["peak"] > 0 and floor["peak"] > 0


def test_spiral_has_three_arms_of_labelled_points() -> None:
    x, t = tasks_models.spiral()
    assert x.shape == (300, 2) and np.bincount(t).tolist() == [100, 100, 100]
    radius = np.hypot(x[:, 0], x[:, 1])
    np.testing.assert_allclose(radius, np.tile(np.arange(100) / 100, 3))


def test_report_table_and_docs_update(tmp_path: Path) -> None:
    case = Case(
        "T1",
        "fake",
        "µs/op",
        ("t",),
        {"minitorch": _fixed([1.0] * 5, 0.0), "torch": _fixed([2.0] * 5, 0.0)},
        targets=[Target("t", "torch", 0.8)],
    )
    result = run_case(case, ["minitorch", "torch"], rounds=5, log=lambda _: None)
    payload = {
        "meta": {
            "date": "today",
            "quick": False,
            "rounds": 5,
            "versions": {"python": "3", "numpy": "2", "dezero": None, "torch": "2.13.0"},
        },
        "results": [result.to_json()],
    }
    table = report.markdown(payload)
    assert "| T1 | fake | t (µs/op) | 1.00 | – | – | 2.00 | – | – | 0.50× |" in table
    assert "t ≤ 0.8× torch: 0.50× — met" in table
    page = tmp_path / "performance.md"
    page.write_text(f"intro\n{report.BEGIN}\nold\n{report.END}\nend\n")
    report.update_docs(page, table)
    text = page.read_text()
    assert "old" not in text and table in text and text.startswith("intro") and "end" in text


def test_baseline_commit_runs_as_a_peer_in_the_same_rounds(tmp_path: Path) -> None:
    import sys

    from benchmarks import baseline

    where = baseline.prepare("HEAD", out=tmp_path)
    package = baseline.load(where)
    try:
        assert package.__name__ == "minitorch_baseline"
        # its own imports were rewritten: its engine is its own, not this checkout's
        assert package.core.backward.__name__ == "minitorch_baseline.core.backward"
        # and it knows its ops for its own: a copy that took them for a user's gave each a
        # Python __init__ and checked backward (itself as the baseline: 0.79x forward)
        mul = package.ops.arithmetic.Mul
        assert mul._trusted and mul.__init__ is object.__init__
        case = tasks_graph.chain_case(50, with_dezero=False)
        baseline.add_to(case, package, "HEAD")
        result = run_case(case, ["minitorch", "numpy", "baseline"], rounds=5, log=lambda _: None)
        assert result.agree == {"minitorch": True, "numpy": True, "baseline": True}
        rounds = max(5, case.min_rounds)  # a short case runs at least min_rounds,
        rounds = -(-rounds // 6) * 6  # in whole cycles (3 frameworks: 6 rounds)
        assert len(result.paired_ratios("minitorch", "baseline", "bwd")) == rounds
        import minitorch

        assert sys.modules["minitorch"] is minitorch  # the alias is gone after setup
    finally:
        for name in [n for n in sys.modules if n.startswith("minitorch_baseline")]:
            del sys.modules[name]
        sys.path.remove(str(where))
    with pytest.raises(ValueError, match="not a commit"):
        baseline.prepare("no-such-revision-h17", out=tmp_path)


def test_checkout_runs_as_a_copy_beside_the_baseline(tmp_path: Path) -> None:
    import sys

    from benchmarks import baseline

    where = baseline.prepare_checkout(out=tmp_path)
    package = baseline.load(where, baseline.CURRENT)
    try:
        assert package.core.backward.__name__ == "minitorch_checkout.core.backward"
        assert package.ops.arithmetic.Mul._trusted  # knows its own ops by its new name

        def setup() -> Any:
            import minitorch

            module = minitorch.Variable.__module__  # bound while the alias is in place
            return lambda: ({"t": 0.0}, module)

        case = Case("TX", "fake", "s", ("t",), {"minitorch": setup})
        baseline.run_as_copy(case, package)
        assert case.impls["minitorch"]()()[1] == "minitorch_checkout.core.variable"
        import minitorch

        assert sys.modules["minitorch"] is minitorch  # the alias is gone after setup
    finally:
        for name in [n for n in sys.modules if n.startswith(baseline.CURRENT)]:
            del sys.modules[name]
        sys.path.remove(str(where))


def test_baseline_copy_asks_for_its_own_package_by_its_new_name() -> None:
    from benchmarks import baseline

    code = (
        'import minitorch.ops\nmine = cls.__module__.startswith("minitorch.")\n'
        "ops = sys.modules.get('minitorch.ops')\nmessage = \"minitorch.detect_anomaly()\"\n"
    )
    rewritten = baseline._OWN_NAME.sub(r"\1\2minitorch_baseline", code)
    assert 'startswith("minitorch_baseline.")' in rewritten
    assert "sys.modules.get('minitorch_baseline.ops')" in rewritten
    assert '"minitorch.detect_anomaly()"' in rewritten  # messages keep their text


def test_report_lists_tasks_slower_than_the_baseline() -> None:
    results = [
        {
            "task": "TX",
            "name": "fake",
            "minitorch_ratio_to": {
                "baseline": {
                    "t": {"median": 1.2, "interval": [1.1, 1.3, 0.957]},
                    "u": {"median": 1.01, "interval": [0.97, 1.06, 0.957]},
                    "v": {"median": 1.1, "interval": [1.0, 1.2, 0.9375]},  # 5 rounds
                    "w": {"median": 1.07},  # a results.json from before the intervals
                }
            },
        }
    ]
    lines = report._baseline_verdicts(results, "main")
    assert "- TX fake t 1.200× (95% interval 1.100–1.300)" in lines
    assert "- TX fake v 1.100× (93.8% interval 1.000–1.200)" in lines
    assert "- TX fake w 1.070×" in lines
    assert not any(" u " in line for line in lines)


def test_report_within_five_percent_shows_the_slowest_with_intervals() -> None:
    ratios = {
        m: {"median": r, "interval": [r - 0.04, r + 0.04, 0.96]}
        for m, r in (("a", 0.90), ("b", 1.04), ("c", 0.99), ("d", 1.02))
    }
    results = [{"task": "TX", "name": "fake", "minitorch_ratio_to": {"baseline": ratios}}]
    lines = report._baseline_verdicts(results, "main")
    assert "no task and no metric is more than 5% slower" in lines[0]
    listed = [line for line in lines if line.startswith("- ")]
    assert [line.split()[3] for line in listed] == ["b", "d", "c"]  # slowest first
    assert "(95% interval 1.000–1.080)" in listed[0]
    empty = [{"task": "TX", "name": "fake", "minitorch_ratio_to": {"numpy": ratios}}]
    assert report._baseline_verdicts(empty, "main") == [
        "Against `main`: no ratios (the baseline ran no task)."
    ]


@pytest.mark.parametrize(
    ("n", "ranks", "coverage"),
    [(11, (2, 10), 0.9883), (30, (10, 21), 0.9572), (100, (40, 61), 0.9648)],
)
def test_median_interval_is_the_binomial_order_statistics(
    n: int, ranks: tuple[int, int], coverage: float
) -> None:
    # The ranks from the sign-test table for a 95% interval (Conover 1999, table A3):
    # n = 11 gives the 2nd and 10th values, n = 30 the 10th and 21st, n = 100 the 40th
    # and 61st; the coverage is 1 - 2 P(Binomial(n, 1/2) < k), e.g. 1 - 2 * 67/2048 = 0.9883
    # for n = 11 (P(X <= 1) = 12/2048 is the largest tail under 0.025, so k = 2).
    values = [float(v) for v in np.random.default_rng(n).permutation(np.arange(1, n + 1))]
    interval = harness.median_interval(values)
    assert (interval.low, interval.high) == ranks
    assert interval.coverage == pytest.approx(coverage, abs=1e-4)


def test_median_interval_of_few_values_is_their_range_with_its_coverage() -> None:
    assert harness.median_interval([3.0, 1.0, 2.0]) == (1.0, 3.0, 0.75)
    assert harness.median_interval([5.0, 1.0, 2.0, 4.0, 3.0]).coverage == 1 - 2 / 32


@pytest.mark.parametrize(
    ("values", "confidence", "message"),
    [([], 0.95, "no values"), ([1.0, float("nan"), 2.0], 0.95, "NaN"), ([1.0], -1, "(0, 1)")],
)
def test_median_interval_refuses(values: list[float], confidence: float, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        harness.median_interval(values, confidence)
