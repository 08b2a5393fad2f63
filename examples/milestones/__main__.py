"""``python -m examples.milestones list | run [ID ...] [--quick] [--seed S] [--json PATH]``.

``run`` exits with status 1 if any milestone missed its threshold or crashed (a crash is
reported as that rung's ``ERROR`` verdict, and the others still run). Bad options exit
with 2.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Sequence
from pathlib import Path

from examples.milestones import BY_ID, LADDER
from examples.milestones.ladder import Context, run_ladder, write_json


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line: ``list`` or ``run`` with its options."""
    parser = argparse.ArgumentParser(
        prog="python -m examples.milestones",
        description="Reproduce historical neural-network results offline.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the milestones")
    run = sub.add_parser("run", help="run milestones (all by default)")
    run.add_argument("ids", nargs="*", metavar="ID", help=f"any of: {', '.join(BY_ID)}")
    run.add_argument("--quick", action="store_true", help="a short smoke run (1-2 minutes)")
    run.add_argument("--seed", type=int, default=0, help="seed of everything (default: 0)")
    run.add_argument("--json", type=Path, default=None, help="write the results here")
    run.add_argument(
        "--out",
        type=Path,
        default=Path("build/milestones"),
        help="folder for the pictures (default: build/milestones)",
    )
    run.add_argument("--no-progress", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    if args.command == "run":
        for unknown in (i for i in args.ids if i not in BY_ID):
            close = difflib.get_close_matches(unknown.replace("_", "-"), BY_ID, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            parser.error(f"unknown milestone {unknown}{hint}; choose from {', '.join(BY_ID)}")
        args.ids = list(dict.fromkeys(args.ids))  # each rung once, in the order given
        if args.seed < 0:
            parser.error(f"--seed must be a non-negative integer, got {args.seed}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; return the exit status."""
    args = parse_args(argv)
    if args.command == "list":
        for milestone in LADDER:
            print(f"{milestone.id:15} {milestone.year}  {milestone.title}")
        return 0
    chosen = [BY_ID[i] for i in args.ids] if args.ids else list(LADDER)
    context = Context(
        seed=args.seed, quick=args.quick, out=args.out, progress=not args.no_progress
    )
    results = run_ladder(chosen, context)
    if args.json is not None:
        write_json(results, args.json, context)
        print(f"wrote {args.json}")
    failed = [r.id for r in results if r.status == "ran" and not r.passed]
    crashed = [r.id for r in results if r.status == "error"]
    if failed:
        print(f"missed their thresholds: {', '.join(failed)}", file=sys.stderr)
    if crashed:
        print(f"crashed: {', '.join(crashed)}", file=sys.stderr)
    return 1 if failed or crashed else 0


if __name__ == "__main__":
    raise SystemExit(main())
