"""Run the side-by-side benchmarks: minitorch, a hand-written NumPy floor, DeZero, PyTorch.

Usage (from the repository root; ``make bench`` installs the peers and runs this)::

    python -m benchmarks.run            # the full suite (a few minutes)
    python -m benchmarks.run --quick    # smaller sizes, for a quick look
    python -m benchmarks.run --tasks T1,T2 --rounds 7
    python -m benchmarks.run --tasks gpt          # the char-GPT step beside PyTorch
    python -m benchmarks.run --baseline main   # another commit as a peer, side by side

Writes ``build/bench/results.json`` and ``build/bench/results.md`` and prints the
table with minitorch's paired ratios to every peer. ``--update-docs`` also puts the
table into ``docs/performance.md``.
"""

from __future__ import annotations

import os

# Before NumPy or torch is imported anywhere: one BLAS/OpenMP thread, so timings do not
# swing with the neighbours' load (TOOLCHAIN.md) and all frameworks get the same core.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import datetime  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

if __package__ in (None, ""):  # run as a script: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import peers, report  # noqa: E402
from benchmarks.harness import FRAMEWORKS, Case, Result, run_case  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def build_cases(quick: bool, tasks: set[str]) -> list[Case]:
    """The benchmark cases in order; ``quick`` shrinks the sizes, not the method."""
    from benchmarks import memory, tasks_graph, tasks_models  # noqa: PLC0415

    cases: list[Case] = []
    if "T1" in tasks:
        cases.append(tasks_graph.per_op_case(3_000 if quick else 10_000))
    if "T2" in tasks:
        sizes = (1_000, 10_000, 100_000) if quick else (1_000, 10_000, 100_000, 1_000_000)
        cases += [tasks_graph.chain_case(n, with_dezero=n <= 100_000) for n in sizes]
    if "T3" in tasks:
        cases.append(tasks_models.spiral_case(epochs=1))
    if "T4" in tasks:
        cases.append(tasks_models.big_mlp_case(iterations=2 if quick else 5))
    if "T5" in tasks:
        cases.append(tasks_graph.higher_order_case())
    if "T6" in tasks:
        cases.append(memory.memory_case(n=200_000 if quick else 1_000_000))
    if "T7" in tasks:
        cases += [tasks_graph.fan_in_case(n) for n in (1_000, 4_000)]
    if "conv" in tasks:
        cases.append(tasks_models.conv_case(iterations=1 if quick else 3))
    if "J" in tasks:  # forward vs reverse mode Jacobians (issue 18)
        from benchmarks import tasks_func  # noqa: PLC0415

        cases += tasks_func.jacobian_cases(quick)
    if "gpt" in tasks:  # one char-GPT training step, float32, beside PyTorch (issue 30);
        # last: it tunes glibc's malloc for the rest of the process
        from benchmarks import tasks_gpt  # noqa: PLC0415

        cases.append(tasks_gpt.gpt_step_case(iterations=2 if quick else 3))
    return cases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.run", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--quick", action="store_true", help="smaller sizes (about a minute)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (>= 5)")
    parser.add_argument(
        "--tasks",
        default="T1,T2,T3,T4,T5,T6,T7,conv,J,gpt",
        help="comma-separated tasks to run (default: all; see docs/performance.md)",
    )
    parser.add_argument(
        "--frameworks",
        default=",".join(FRAMEWORKS),
        help=f"comma-separated frameworks (default: {','.join(FRAMEWORKS)})",
    )
    parser.add_argument(
        "--out",
        default=str(ROOT / "build" / "bench"),
        help="folder for results.json and results.md (default: build/bench)",
    )
    parser.add_argument("--update-docs", action="store_true", help="rewrite the docs table")
    parser.add_argument(
        "--baseline",
        metavar="REV",
        help="also bench minitorch at commit REV as the peer 'baseline' (same rounds)",
    )
    args = parser.parse_args(argv)
    if args.rounds < 5:
        parser.error("--rounds must be at least 5 (medians of fewer rounds are noise)")
    tasks = set(args.tasks.split(","))
    frameworks = args.frameworks.split(",")

    def log(text: str) -> None:
        print(text, end="", flush=True)

    cases = build_cases(args.quick, tasks)
    if args.baseline:
        from benchmarks import baseline  # noqa: PLC0415

        package = baseline.load(baseline.prepare(args.baseline))
        # This checkout runs as an extracted copy too, so the two stand alike in the
        # process (baseline.prepare_checkout says why).
        checkout = baseline.load(baseline.prepare_checkout(), baseline.CURRENT)
        for case in cases:
            baseline.add_to(case, package, args.baseline)
            baseline.run_as_copy(case, checkout)
        frameworks.append("baseline")
    results: list[Result] = []
    for case in cases:
        log(f"{case.task} {case.name} ")
        results.append(run_case(case, frameworks, args.rounds, log))
        log("\n")
    meta = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "quick": args.quick,
        "rounds": args.rounds,
        "threads": 1,
        "dtype": "float64",
        "versions": peers.versions(),
        "baseline": args.baseline,
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    payload = {"meta": meta, "results": [r.to_json() for r in results]}
    (out / "results.json").write_text(json.dumps(payload, indent=1, ensure_ascii=False))
    table = report.markdown(payload)
    (out / "results.md").write_text(table)
    print()
    print(table)
    print(f"wrote {out / 'results.json'} and {out / 'results.md'}")
    if args.update_docs:
        report.update_docs(ROOT / "docs" / "performance.md", table)
        print("updated docs/performance.md")
    disagree = [
        f"{r['task']} {fw}" for r in payload["results"] for fw, ok in r["agree"].items() if not ok
    ]
    if disagree:
        print("FRAMEWORKS DISAGREE on:", ", ".join(disagree))
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
