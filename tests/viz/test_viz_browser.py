"""The stepper page in a real headless browser: clicking "next" moves the highlight.

Needs Debian's chromium (``/usr/bin/chromium``) and the ``playwright`` Python package;
``make test`` installs both when it runs as root. Playwright's own browser download is
never used (no ``playwright install``): it drives the system chromium.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from viz_helpers import requires_dot

import minitorch.ops as F
import viz
from minitorch import Variable

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = [
    pytest.mark.browser,
    requires_dot,
    pytest.mark.skipif(
        not (os.path.exists(CHROMIUM) and shutil.which(CHROMIUM)),
        reason="Debian's chromium is not installed (as root, `make test` installs it: "
        "apt-get install chromium)",
    ),
]

# The highlighted Function of the visible frame: the node whose outline is drawn red.
VISIBLE_STATE = """(root) => {
  const frame = [...root.querySelectorAll('.mts-frame')].find(f => f.style.display !== 'none');
  const red = [...frame.querySelectorAll('g.node')].filter(
      g => [...g.querySelectorAll('path, polygon')].some(
          p => p.getAttribute('stroke') === '#d7301f'
               && p.getAttribute('stroke-width') === '3.5'));
  return {step: frame.dataset.step, fn: frame.dataset.function,
          highlighted: red.map(g => g.querySelector('title').textContent)};
}"""


def test_clicking_next_moves_the_highlight(tmp_path: Path) -> None:
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="the playwright package is not installed"
    )
    x = Variable(np.array([0.5, -1.0]), name="x")
    trace = viz.trace_backward(F.sin(x) * F.exp(x))
    page_path = viz.BackwardStepper(trace).save_html(tmp_path / "steps.html")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            page = browser.new_page()
            page.goto(page_path.as_uri())
            root = page.locator(".minitorch-stepper")
            assert root.evaluate(VISIBLE_STATE) == {"step": "0", "fn": "", "highlighted": []}
            seen = []
            for k, step in enumerate(trace, start=1):
                page.get_by_role("button", name="next").click()
                state = root.evaluate(VISIBLE_STATE)
                assert state["step"] == str(k) and state["fn"] == step.name
                assert state["highlighted"] == [step.node_id]
                seen.append(state["highlighted"][0])
            assert len(set(seen)) == len(trace)
            page.get_by_role("button", name="prev").click()
            assert root.evaluate(VISIBLE_STATE)["step"] == str(len(trace) - 1)
            assert root.get_attribute("data-frame") == str(len(trace) - 1)
        finally:
            browser.close()
