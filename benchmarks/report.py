"""Turn ``results.json`` into the markdown table shown by ``make bench`` and the docs."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

FRAMEWORKS = ("minitorch", "numpy", "dezero", "torch")
PEERS = ("numpy", "dezero", "torch")
BEGIN, END = "<!-- bench-table:begin -->", "<!-- bench-table:end -->"


def _fmt(value: float | None) -> str:
    if value is None:
        return "–"
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def _rows(result: dict[str, Any], with_baseline: bool) -> list[str]:
    shown = [result["metrics"][0]] + [
        t["metric"] for t in result["targets"] if t["metric"] != result["metrics"][0]
    ]
    rows = []
    for metric in dict.fromkeys(shown):
        cells = [result["task"], result["name"], f"{metric} ({result['unit']})"]
        for fw in FRAMEWORKS:
            med = result["medians"].get(fw, {}).get(metric)
            mark = "" if result["agree"].get(fw, True) else " ✗"
            cells.append(_fmt(med) + mark if med is not None else "–")
        if with_baseline:
            med = result["medians"].get("baseline", {}).get(metric)
            cells.append(_fmt(med) if med is not None else "–")
        for peer in PEERS + (("baseline",) if with_baseline else ()):
            ratio = result["minitorch_ratio_to"].get(peer, {}).get(metric)
            cells.append(f"{ratio['median']:.2f}×" if ratio else "–")
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def _series_flatness(results: list[dict[str, Any]], task: str, metric: str) -> str | None:
    """How much minitorch's per-node time varies across the sizes of one task.

    The sizes run one after another, not interleaved, so a busy moment of the machine
    can make one size look slow; the verdict therefore uses each size's fastest round
    (the cost with the least interference) and the medians are shown beside it.
    """
    rows = [r for r in results if r["task"] == task and "minitorch" in r["samples"]]
    if len(rows) < 2:
        return None
    mins = [min(r["samples"]["minitorch"][metric]) for r in rows]
    medians = [r["medians"]["minitorch"][metric] for r in rows]
    spread = max(mins) / min(mins) - 1
    verdict = "met" if spread <= 0.30 else "NOT met"
    return (
        f"{task} {metric} per node flat across sizes (±30%): fastest rounds "
        f"{min(mins):.2f}–{max(mins):.2f}, spread {spread:.0%} — {verdict} "
        f"(medians {min(medians):.2f}–{max(medians):.2f}, spread "
        f"{max(medians) / min(medians) - 1:.0%})"
    )


def markdown(payload: dict[str, Any]) -> str:
    """The table (one row per case and reported metric), then the targets with verdicts."""
    meta, results = payload["meta"], payload["results"]
    v = meta["versions"]
    rev = meta.get("baseline")
    lines = [
        f"Run {meta['date']}{' (--quick)' if meta['quick'] else ''}: {meta['rounds']} "
        f"interleaved rounds, medians, 1 thread, float64; Python {v['python']}, "
        f"NumPy {v['numpy']}, DeZero {v.get('dezero') or 'n/a'}, "
        f"PyTorch {v.get('torch') or 'n/a'}"
        + (f"; baseline = minitorch at `{rev}`." if rev else "."),
        "",
        "| task | workload | metric | minitorch | NumPy | DeZero | PyTorch "
        + ("| baseline " if rev else "")
        + "| mt/NumPy | mt/DeZero | mt/PyTorch "
        + ("| mt/baseline " if rev else "")
        + "|",
        "|---|---|---|" + "--:|" * (10 if rev else 7),
    ]
    for result in results:
        lines += _rows(result, bool(rev))
    lines += ["", "Ratios are medians of per-round paired ratios (minitorch / peer).", ""]
    if rev:
        lines += _baseline_verdicts(results, rev) + [""]
    lines.append("Targets:")
    lines.append("")
    for result in results:
        for t in result["targets"]:
            if t["ratio"] is None:
                verdict = "not measured"
            else:
                verdict = f"{t['ratio']:.2f}× — {'met' if t['met'] else 'NOT met'}"
            lines.append(
                f"- {result['task']} {result['name']}: {t['metric']} ≤ {t['max_ratio']}× "
                f"{t['against']}: {verdict}"
            )
    for task, metric in (("T2", "bwd"), ("T7", "bwd")):
        flat = _series_flatness(results, task, metric)
        if flat:
            lines.append(f"- {flat}")
    notes = [f"- {r['task']}: {r['note']}" for r in results if r["note"]]
    skipped = [f"- {r['task']} {fw}: {why}" for r in results for fw, why in r["skipped"].items()]
    if notes or skipped:
        lines += ["", "Notes:", ""] + notes + skipped
    if any(not ok for r in results for ok in r["agree"].values()):
        lines += ["", "✗ = this framework's numbers differ from the NumPy floor's."]
    return "\n".join(lines) + "\n"


def _baseline_verdicts(results: list[dict[str, Any]], rev: str) -> list[str]:
    """Against the baseline commit: every timing within 5% (paired per-round medians).

    Each ratio is shown with its confidence interval (``harness.median_interval``, 95%,
    or the range of the rounds with its lower coverage when there are fewer than 6): a
    median of 1.03x whose interval reaches 1.08x is within 5% by this run's estimate, but
    the run cannot rule out more. The slowest three are listed when none is over 5%, so
    a reader sees how close it was. A results.json from before the intervals shows none.
    """
    rows = []
    for result in results:
        for metric, ratio in result["minitorch_ratio_to"].get("baseline", {}).items():
            text = f"{result['task']} {result['name']} {metric} {ratio['median']:.3f}×"
            if ratio.get("interval"):
                low, high, *coverage = ratio["interval"]
                short = coverage and coverage[0] < 0.95  # the range of too few rounds
                level = f"{coverage[0]:.1%}" if short else "95%"
                text += f" ({level} interval {low:.3f}–{high:.3f})"
            rows.append((ratio["median"], text))
    if not rows:
        return [f"Against `{rev}`: no ratios (the baseline ran no task)."]
    rows.sort(reverse=True)
    slower = [text for median, text in rows if median > 1.05]
    if slower:
        return [f"Against `{rev}`, more than 5% slower:", ""] + [f"- {s}" for s in slower]
    closest = [f"- {text}" for _, text in rows[:3]]
    return [f"Against `{rev}`: no task and no metric is more than 5% slower. Slowest:", ""] + (
        closest
    )


def update_docs(path: Path, table: str) -> None:
    """Replace the text between the bench-table markers of ``path`` with ``table``."""
    text = path.read_text()
    block = f"{BEGIN}\n{table}{END}"
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise ValueError(f"{path}: markers {BEGIN} ... {END} not found")
    path.write_text(pattern.sub(lambda _: block, text))
