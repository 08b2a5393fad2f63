"""How big and how slow is the backward stepper's page? Size and build time against steps.

Usage (from the repository root)::

    python -m benchmarks.stepper            # 5 rounds per size, a table on stdout
    python -m benchmarks.stepper --rounds 9

For sums of 1, 2, 4, 8 and 15 terms (the 15-term expression has 92 backward steps, the
case the issue measured at 21 MB and 18 s before the stepper had one layout) it builds
``BackwardStepper(trace).to_html()`` — the trace, the one Graphviz layout, the step data
— and reports the median build time over ``--rounds`` rounds and the page size. Both grow
linearly with the number of steps: one layout, and each step a few hundred bytes of data.
This is a measurement, not a test (timings on shared machines swing); the page-size bound
is checked in ``tests/viz/test_viz_stepper.py``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a script: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import minitorch.ops as F  # noqa: E402
from minitorch import Variable  # noqa: E402

TERMS = (1, 2, 4, 8, 15)


def fifteen_term_expression(n_terms: int = 15) -> Variable:
    """``0.5 * sum((Σ_i sin((i+1) x) · exp(0.1 i x))²)`` over a 3-vector ``x``.

    Each term is 5 Functions and joining them ``n_terms - 1`` Adds, plus Pow, Sum and
    Mul: ``6 n - 1 + 3`` backward steps, 92 for 15 terms.

    Returns:
        The 0-d output, named ``y``.

    Example:
        >>> import viz
        >>> len(viz.trace_backward(fifteen_term_expression()))
        92
    """
    x = Variable(np.array([0.3, -0.7, 1.1]), name="x")
    total = None
    for i in range(n_terms):
        term = F.sin(x * float(i + 1)) * F.exp(x * (0.1 * i))
        total = term if total is None else total + term
    assert total is not None
    y = (total**2).sum() * 0.5
    y.name = "y"
    return y


def measure(n_terms: int, rounds: int) -> tuple[int, float, int]:
    """``(steps, median seconds, page bytes)`` for one expression size."""
    import viz

    times, size, steps = [], 0, 0
    for _ in range(rounds):
        start = time.perf_counter()
        stepper = viz.BackwardStepper(viz.trace_backward(fifteen_term_expression(n_terms)))
        page = stepper.to_html()
        times.append(time.perf_counter() - start)
        size, steps = len(page.encode("utf-8")), len(stepper.trace)
    return steps, statistics.median(times), size


def main(argv: Sequence[str] | None = None) -> int:
    """Print a Markdown table of steps, build time and page size; return 0."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.stepper")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per size (default 5)")
    args = parser.parse_args(argv)
    print("| terms | backward steps | build time (median) | page size |")
    print("|---:|---:|---:|---:|")
    for n in TERMS:
        steps, seconds, size = measure(n, args.rounds)
        print(f"| {n} | {steps} | {seconds:.2f} s | {size / 1e6:.2f} MB |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
