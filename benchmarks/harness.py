"""The measuring machinery: interleaved rounds, medians, paired ratios, agreement checks.

A benchmark *case* gives, for each framework, a ``setup()`` that builds the inputs once
and returns a ``step()``; each call of ``step()`` runs the workload once and returns
``(metrics, value)``: the timings in the case's unit and an ndarray (a gradient, a loss)
that every framework must agree on.

Round ``r`` runs every framework once, in the order of row ``r`` of a Williams design
(:func:`round_orders`): over each full cycle of rounds every framework takes each place
in the round equally often, so slow drifts of the machine (a neighbour's build, thermal
limits) hit all frameworks alike, and runs right after each other framework equally
often within rounds, so what one step leaves behind for the next (the allocator's free
lists, the caches) does not favour one framework. The ratio of two frameworks is taken
*within* each round (paired) and the median of those per-round ratios is reported,
together with the median of each framework's own timings.
"""

from __future__ import annotations

import gc
import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

Step = Callable[[], tuple[dict[str, float], Any]]
Setup = Callable[[], Step]

FRAMEWORKS = ("minitorch", "numpy", "dezero", "torch")


@dataclass
class Target:
    """``case.metric(minitorch) <= max_ratio * case.metric(against)``, on paired medians."""

    metric: str
    against: str
    max_ratio: float


@dataclass
class Case:
    """One benchmark row: a workload implemented by several frameworks."""

    task: str  # "T1"
    name: str  # "per-op overhead, 10,000 ops on (8,)"
    unit: str  # "µs/op"
    metrics: tuple[str, ...]  # the timings each step reports, headline first
    impls: dict[str, Setup]
    targets: list[Target] = field(default_factory=list)
    rtol: float = 1e-7
    atol: float = 1e-10
    note: str = ""
    warmup: bool = True  # False for the longest cases: round 0's value is checked instead
    # At least this many rounds, whatever --rounds says: a case of a few milliseconds
    # per round (T5) is at the mercy of one busy moment of the machine in 5 rounds.
    min_rounds: int = 0


@dataclass
class Result:
    """What one case measured: raw per-round samples plus the derived statistics."""

    task: str
    name: str
    unit: str
    metrics: tuple[str, ...]
    samples: dict[str, dict[str, list[float]]]  # framework -> metric -> per-round values
    agree: dict[str, bool]  # framework -> same numbers as the reference?
    skipped: dict[str, str]  # framework -> why it did not run
    targets: list[dict[str, Any]]
    note: str = ""

    def median(self, framework: str, metric: str) -> float:
        return statistics.median(self.samples[framework][metric])

    def paired_ratios(self, framework: str, other: str, metric: str) -> list[float]:
        a, b = self.samples[framework][metric], self.samples[other][metric]
        return [x / y for x, y in zip(a, b)]

    def ratio(self, framework: str, other: str, metric: str) -> float:
        return statistics.median(self.paired_ratios(framework, other, metric))

    def ratio_interval(self, framework: str, other: str, metric: str) -> Interval:
        return median_interval(self.paired_ratios(framework, other, metric))

    def to_json(self) -> dict[str, Any]:
        medians = {fw: {m: self.median(fw, m) for m in self.metrics} for fw in self.samples}
        ratios = {
            other: {
                m: {
                    "median": self.ratio("minitorch", other, m),
                    "interval": self.ratio_interval("minitorch", other, m),
                    "per_round": self.paired_ratios("minitorch", other, m),
                }
                for m in self.metrics
            }
            for other in self.samples
            if other != "minitorch" and "minitorch" in self.samples
        }
        return {
            "task": self.task,
            "name": self.name,
            "unit": self.unit,
            "metrics": list(self.metrics),
            "medians": medians,
            "minitorch_ratio_to": ratios,
            "samples": self.samples,
            "agree": self.agree,
            "skipped": self.skipped,
            "targets": self.targets,
            "note": self.note,
        }


class Interval(NamedTuple):
    """A confidence interval and its exact coverage (at least the one asked for, except
    for too few values: see :func:`median_interval`)."""

    low: float
    high: float
    coverage: float


def median_interval(values: list[float], confidence: float = 0.95) -> Interval:
    """A distribution-free confidence interval for the median of ``values``.

    The order statistics ``x_(k) <= median <= x_(n+1-k)`` (1-based, sorted), with the
    largest ``k`` for which ``P(Binomial(n, 1/2) < k) <= (1 - confidence) / 2``: the
    median lies below a sample with probability 1/2 whatever the distribution, so the
    number of samples below it is Binomial(n, 1/2) (W. J. Conover, *Practical
    Nonparametric Statistics*, 3rd ed., 1999, section 3.2). Needs no normality, which
    per-round ratios (skewed by busy moments of the machine) do not have. Its exact
    coverage, ``1 - 2 P(Binomial(n, 1/2) < k)``, is returned with it. With too few values
    for the confidence asked (fewer than 6 at 95%) no such ``k`` exists: the range of the
    values is returned, with its lower coverage (93.75% for 5 values, 50% for 2).

    Returns:
        ``Interval(low, high, coverage)``; ``low`` and ``high`` in the units of ``values``.

    Raises:
        ValueError: for an empty ``values``, a NaN among them, or a ``confidence`` outside
            (0, 1).
    """
    if not values:
        raise ValueError("median_interval: no values")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"median_interval: confidence must be in (0, 1), got {confidence}")
    if any(v != v for v in values):
        raise ValueError("median_interval: a NaN among the values has no place in their order")
    xs = sorted(values)
    n, tail = len(xs), (1.0 - confidence) / 2
    below = 0.0  # P(Binomial(n, 1/2) < k + 1) as k counts up
    k = 0
    while k < n // 2:
        below += math.comb(n, k) / 2**n
        if below > tail:
            break
        k += 1
    k = max(k, 1)
    coverage = 1.0 - 2 * sum(math.comb(n, j) for j in range(k)) / 2**n
    return Interval(xs[k - 1], xs[n - k], coverage)


def run_case(case: Case, frameworks: list[str], rounds: int, log: Callable[[str], None]) -> Result:
    """Set up every framework, check they agree, then time ``rounds`` interleaved rounds."""
    steps: dict[str, Step] = {}
    skipped: dict[str, str] = {}
    for fw in frameworks:
        if fw not in case.impls:
            continue
        try:
            steps[fw] = case.impls[fw]()
        except ImportError as exc:
            skipped[fw] = f"not installed ({exc})"
        except NotImplementedError as exc:
            skipped[fw] = str(exc)
    values: dict[str, np.ndarray] = {}
    if case.warmup:
        values = {fw: _as_array(step()[1]) for fw, step in steps.items()}
    samples: dict[str, dict[str, list[float]]] = {
        fw: {m: [] for m in case.metrics} for fw in steps
    }
    orders = round_orders(list(steps), _whole_cycles(len(steps), max(rounds, case.min_rounds)))
    for order in orders:
        for fw in order:
            gc.collect()
            metrics, value = steps[fw]()
            values.setdefault(fw, _as_array(value))
            for m in case.metrics:
                samples[fw][m].append(metrics[m])
        log(".")
    agree = _agreement({fw: values[fw] for fw in steps}, case.rtol, case.atol)
    result = Result(
        case.task, case.name, case.unit, case.metrics, samples, agree, skipped, [], case.note
    )
    result.targets = [_evaluate(result, t) for t in case.targets]
    return result


def _whole_cycles(n: int, rounds: int) -> int:
    """``rounds``, rounded up to whole cycles of :func:`round_orders` once it is at least
    one cycle (25 rounds of 5 frameworks become 30); fewer stay as they are (the first
    ``n`` rows still give every framework every place once)."""
    cycle = n if n % 2 == 0 else 2 * n
    return rounds if rounds < cycle or n < 2 else -(-rounds // cycle) * cycle


def round_orders(names: list[str], rounds: int) -> list[list[str]]:
    """The order of ``names`` in each of ``rounds`` rounds: the rows of a Williams design.

    Row 0 is ``0, 1, n-1, 2, n-2, ...`` (indices into ``names``), row ``i`` adds ``i``
    modulo ``n``; for odd ``n`` the mirrored rows follow. Over every full cycle of rows
    (``n`` of them for even ``n``, ``2n`` for odd) each name takes every place in the round
    equally often and, *within* rounds, follows every other name equally often, as
    carry-over designs in experimental design require (E. J. Williams, "Experimental
    designs balanced for the estimation of residual effects of treatments", Aust. J. Sci.
    Res. A 2, 1949). Rounds run back to back, so the last of one round also precedes the
    first of the next: the rows are put in an order (:func:`_chained`) in which, for
    three or more names, no name runs twice in a row and each such pair occurs at most
    once a cycle. (Two names cannot avoid it: ``AB BA`` repeats ``B``.) A run of fewer
    rounds than a cycle is balanced only as far as its rows go; the harness rounds a
    case's rounds up to whole cycles once they reach one.

    Why the second balance matters: in a plain rotation each framework always runs right
    after the same one. Freeing a graph of 1,000 nodes measured 10% slower for the
    framework that ran right after the other minitorch version than for the one that ran
    right after PyTorch; swapping the two in the list swapped the ratio (1.05x / 0.94x).
    """
    n = len(names)
    if n == 0:
        return [[] for _ in range(rounds)]
    first = [0] + [(k + 1) // 2 if k % 2 else n - k // 2 for k in range(1, n)]
    rows = [[(j + i) % n for j in first] for i in range(n)]
    if n % 2:
        rows += [row[::-1] for row in rows]
    rows = _chained(rows)
    return [[names[j] for j in rows[r % len(rows)]] for r in range(rounds)]


def _chained(rows: list[list[int]]) -> list[list[int]]:
    """The rows in an order for running back to back: the last of one round and the
    first of the next are the one adjacency a design's rows do not balance, so each next
    row is the remaining one whose start follows the previous row's end least often so
    far (never the same name twice in a row where the rows allow it; ties: first row).
    The cycle repeats, so its last row leads into its first as well."""
    order, left = [rows[0]], rows[1:]
    seen: dict[tuple[int, int], int] = {}
    while left:
        end = order[-1][-1]
        row = min(left, key=lambda row: (row[0] == end, seen.get((end, row[0]), 0)))
        seen[end, row[0]] = seen.get((end, row[0]), 0) + 1
        order.append(row)
        left.remove(row)
    return order


def _as_array(value: Any) -> np.ndarray:
    if hasattr(value, "detach"):  # a torch tensor
        value = value.detach().numpy()
    if hasattr(value, "data") and not isinstance(value, np.ndarray):  # a Variable
        value = value.data
    return np.asarray(value, dtype=np.float64)


def _agreement(values: dict[str, np.ndarray], rtol: float, atol: float) -> dict[str, bool]:
    """Compare every framework's value with the NumPy floor's (or the first one's)."""
    if not values:
        return {}
    ref_name = "numpy" if "numpy" in values else next(iter(values))
    ref = values[ref_name]
    return {
        fw: bool(v.shape == ref.shape and np.allclose(v, ref, rtol=rtol, atol=atol))
        for fw, v in values.items()
    }


def _evaluate(result: Result, target: Target) -> dict[str, Any]:
    out: dict[str, Any] = {
        "metric": target.metric,
        "against": target.against,
        "max_ratio": target.max_ratio,
    }
    if "minitorch" not in result.samples or target.against not in result.samples:
        out.update(ratio=None, met=None)
        return out
    ratio = result.ratio("minitorch", target.against, target.metric)
    out.update(ratio=ratio, met=bool(ratio <= target.max_ratio))
    return out
