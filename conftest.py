"""pytest's report of skipped tests: one line per reason, however many tests it skipped.

Loaded for every pytest run in this repository (``tests/``, the notebooks, the doctests).
With pytest's ``-ra`` a laptop without PyTorch would see one ``SKIPPED`` line per test
file that imports it, about twenty lines saying the same thing. ``pyproject.toml`` asks
pytest to list failures, errors and unexpected passes (``-rfEX``) but not skips, and this
hook adds one line per distinct reason instead, for example::

    SKIPPED 21 tests: could not import 'torch': No module named 'torch' (the PyTorch
    cross-checks: CROSSCHECK=1 make test installs torch==2.13.0 and runs them)
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

TORCH_MISSING = "could not import 'torch'"
TORCH_HINT = (
    " (the PyTorch cross-checks: CROSSCHECK=1 make test installs torch==2.13.0 and runs them)"
)


def skip_reason(report: Any) -> str:
    """The reason a test was skipped, without pytest's ``Skipped: `` prefix."""
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    reason = str(reason).removeprefix("Skipped: ")
    return reason + TORCH_HINT if reason.startswith(TORCH_MISSING) else reason


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """Print one ``SKIPPED n tests: reason`` line per reason, most frequent first."""
    reasons = Counter(skip_reason(r) for r in terminalreporter.stats.get("skipped", []))
    for reason, count in sorted(reasons.items(), key=lambda item: (-item[1], item[0])):
        noun = "test" if count == 1 else "tests"
        terminalreporter.write_line(f"SKIPPED {count} {noun}: {reason}")
