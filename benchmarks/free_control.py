"""A control for T2's ``free`` against a baseline: the same freeing from equal caches.

Freeing a graph (``del y``) visits every object in it, so how long it takes depends on how
much of the graph the caches still hold, and that depends on the backward pass that ran
just before: a backward that reads less of the graph leaves more of it cold. A change
that makes backward faster can therefore make ``free`` read slower without freeing any
more. This script times T2 at one size for this checkout and a baseline commit, both as
extracted copies with DeZero and PyTorch in the rounds (as ``make bench`` does), three
ways:

* ``as benched``: nothing between backward and ``del``;
* ``warm``: every Variable, array, Function and edge of the graph read first (untimed);
* ``cold``: a 32 MB array summed first (untimed), which evicts the caches on both sides.

If ``free`` reads alike warm and cold but apart as benched, the difference is what each
backward left in cache, and ``bwd+free`` is the line that compares the two fairly.

    python -m benchmarks.free_control --baseline 0ca4db0 [--n 1000] [--rounds 100]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks import baseline, tasks_graph
from benchmarks.harness import run_case

_EVICT_BYTES = 32 * 2**20  # more than the last-level cache of the machines we bench on
_evict: list[np.ndarray] = []


def touch_graph(y: Any) -> int:
    """Read every Variable (its array's shape), Function, input list and output reference
    of ``y``'s graph, as freeing it will. Works on any minitorch version (it follows
    ``creator`` and ``inputs`` only). Returns the number of Functions visited."""
    stack, seen = [y], set()
    while stack:
        v = stack.pop()
        data = getattr(v, "data", None)  # an input not saved for backward has none
        if data is not None:
            _ = data.shape
        f = v.creator
        if f is None or id(f) in seen:
            continue
        seen.add(id(f))
        for ref in f.outputs:
            ref()
        stack.extend(f.inputs)
    return len(seen)


def evict_caches(_: Any) -> None:
    """Sum an array larger than the caches, so that the graph is read from memory."""
    if not _evict:
        _evict.append(np.ones(_EVICT_BYTES // 8))
    _evict[0].sum()


MODES: dict[str, Callable[[Any], Any] | None] = {
    "as benched": None,
    "warm": touch_graph,
    "cold": evict_caches,
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.free_control", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--baseline", metavar="REV", required=True, help="commit to compare")
    parser.add_argument("--n", type=int, default=1000, help="nodes in the chain (default 1000)")
    parser.add_argument("--rounds", type=int, default=100, help="rounds per mode (default 100)")
    args = parser.parse_args(argv)
    package = baseline.load(baseline.prepare(args.baseline))
    checkout = baseline.load(baseline.prepare_checkout(), baseline.CURRENT)
    print(f"T2 at N = {args.n:,}: this checkout / {args.baseline}, median (95% interval)")
    for mode, hook in MODES.items():
        case = tasks_graph.chain_case(args.n, with_dezero=True, before_free=hook)
        baseline.add_to(case, package, args.baseline)
        baseline.run_as_copy(case, checkout)
        frameworks = ["minitorch", "dezero", "torch", "baseline"]
        result = run_case(case, frameworks, args.rounds, lambda _: None)
        cells = []
        for metric in ("bwd", "free", "bwd+free"):
            ratio = result.ratio("minitorch", "baseline", metric)
            low, high, _ = result.ratio_interval("minitorch", "baseline", metric)
            cells.append(f"{metric} {ratio:.3f} ({low:.3f}-{high:.3f})")
        print(f"  {mode:<10}  " + "   ".join(cells), flush=True)


if __name__ == "__main__":
    main()
