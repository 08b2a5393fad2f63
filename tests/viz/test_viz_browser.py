"""The stepper page in a real headless browser, at a projector's 1280×720.

Needs Debian's chromium (``/usr/bin/chromium``) and the ``playwright`` Python package;
``make test`` installs both when it runs as root. Playwright's own browser download is
never used (no ``playwright install``): it drives the system chromium. Screenshots go to
``build/screenshots/`` for a person to look at.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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
VIEWPORT = {"width": 1280, "height": 720}
SCREENSHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"

pytestmark = [
    pytest.mark.browser,
    requires_dot,
    pytest.mark.skipif(
        not (os.path.exists(CHROMIUM) and shutil.which(CHROMIUM)),
        reason="Debian's chromium is not installed (as root, `make test` installs it: "
        "apt-get install chromium)",
    ),
]

# What a person sees in one stepper: the counter, the caption, the red (active) Function,
# every node's box on the screen and the visible part of the drawing.
STATE = """(root) => {
  const box = (el) => { const r = el.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom].map((v) => Math.round(v * 10) / 10); };
  const nodes = {};
  for (const g of root.querySelectorAll('g.node')) nodes[g.id] = box(g);
  return {
    step: Number(root.dataset.step),
    counter: root.querySelector('.mts-counter').textContent,
    caption: root.querySelector('.mts-caption').textContent,
    active: [...root.querySelectorAll('g.node.mts-active')].map((g) => g.id),
    arrows: [...root.querySelectorAll('g.mts-grad')].filter(
        (g) => getComputedStyle(g).display !== 'none').length,
    rows: root.querySelectorAll('.mts-table tbody tr').length,
    nodes: nodes,
    view: box(root.querySelector('.mts-view')),
  };
}"""


# Whether the page fits the window: the document does not scroll, and every part of the
# stepper (title, controls, caption, drawing, side panel) lies inside the stepper's inner
# box (its border and padding excluded) and inside the window.
FITS = """(root) => {
  const d = document.documentElement, s = getComputedStyle(root), r = root.getBoundingClientRect();
  const inner = [r.left + parseFloat(s.borderLeftWidth) + parseFloat(s.paddingLeft),
                 r.top + parseFloat(s.borderTopWidth) + parseFloat(s.paddingTop),
                 r.right - parseFloat(s.borderRightWidth) - parseFloat(s.paddingRight),
                 r.bottom - parseFloat(s.borderBottomWidth) - parseFloat(s.paddingBottom)];
  const parts = {};
  for (const sel of ['.mts-title', '.mts-bar', '.mts-caption', '.mts-main', '.mts-view',
                     '.mts-side']) {
    const el = root.querySelector(sel);
    if (!el) continue;
    const b = el.getBoundingClientRect();
    parts[sel] = [b.left, b.top, b.right, b.bottom];
  }
  return {scroll: [d.scrollWidth, d.scrollHeight], window: [innerWidth, innerHeight],
          root: [r.left, r.top, r.right, r.bottom], inner: inner, parts: parts};
}"""


def assert_fits(root: Any, label: str) -> None:
    fits = root.evaluate(FITS)
    width, height = fits["window"]
    assert fits["scroll"][0] <= width and fits["scroll"][1] <= height, (label, fits)
    assert inside(fits["root"], [0, 0, width, height], slack=0), (label, fits)
    for part, box in fits["parts"].items():
        assert inside(box, fits["inner"], slack=0.5), (label, part, box, fits["inner"])


def inside(box: list[float], frame: list[float], slack: float = 1.0) -> bool:
    return (
        box[0] >= frame[0] - slack
        and box[1] >= frame[1] - slack
        and box[2] <= frame[2] + slack
        and box[3] <= frame[3] + slack
    )


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="the playwright package is not installed"
    )
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=FLAGS
        )
        try:
            yield chromium
        finally:
            chromium.close()


def open_page(browser: Any, path: Path) -> tuple[Any, list[str]]:
    page = browser.new_page(viewport=VIEWPORT)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("requestfailed", lambda r: errors.append(f"request failed: {r.url}"))
    page.goto(path.as_uri())
    page.wait_for_timeout(200)
    return page, errors


def demo_page(tmp_path: Path) -> Path:
    """The demo's backward.html: the untrained MLP on its first batch of digits."""
    pytest.importorskip("sklearn")
    from examples import demo

    args = demo.parse_args(["--out", str(tmp_path)])
    task = demo.load_task(args)
    model, prepare = demo.build_model(args, task)
    return demo.write_stepper_page(model, prepare, task, args)


def expected_counter(step: int, n_steps: int) -> str:
    if step == 0:
        return "start"
    return "end" if step == n_steps + 1 else f"step {step} of {n_steps}"


def test_demo_page_at_1280x720(browser: Any, tmp_path: Path) -> None:
    path = demo_page(tmp_path)
    page, errors = open_page(browser, path)
    root = page.locator(".minitorch-stepper")
    n_frames = int(root.locator(".mts-slider").get_attribute("max")) + 1
    n_steps = n_frames - 2
    assert n_steps == 4  # Linear, ReLU, Linear, SoftmaxCrossEntropy

    first = root.evaluate(STATE)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "stepper-demo-start.png"))
    # The whole graph is visible at step 0: every node inside the drawing and the window.
    assert first["step"] == 0 and first["nodes"]
    window = [0, 0, VIEWPORT["width"], VIEWPORT["height"]]
    for node_id, box in first["nodes"].items():
        assert inside(box, first["view"]) and inside(box, window), (node_id, box)

    # The page has the focus when it opens; → walks through every frame.
    # The page fits 1280×720 without scrolling, and nothing sticks out of the stepper's
    # box, in every frame (a long caption or gradient table must not push the drawing out).
    assert_fits(root, "frame 0")
    states = [first]
    for k in range(n_frames - 1):
        page.keyboard.press("ArrowRight")
        states.append(root.evaluate(STATE))
        assert_fits(root, f"frame {k + 1}")
    for k, state in enumerate(states):
        assert state["step"] == k
        assert state["counter"] == expected_counter(k, n_steps)
        assert state["caption"].lower().startswith(state["counter"] + ":")
        assert state["nodes"] == first["nodes"], f"a node moved at frame {k}"
        assert len(state["active"]) == (1 if 1 <= k <= n_steps else 0)
        assert state["rows"] >= 1
        if 1 <= k <= n_steps:
            assert state["arrows"] >= 2  # what it received and at least one sent
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    page.screenshot(path=str(SCREENSHOTS / "stepper-demo-step1.png"))
    page.keyboard.press("End")
    page.screenshot(path=str(SCREENSHOTS / "stepper-demo-end.png"))

    # Every key a presenter's clicker or keyboard sends.
    for key, expected in [
        ("Home", 0),
        ("PageDown", 1),
        ("Space", 2),
        ("ArrowRight", 3),
        ("PageUp", 2),
        ("ArrowLeft", 1),
        ("End", n_frames - 1),
        ("ArrowRight", n_frames - 1),  # stays at the end
        ("Home", 0),
        ("ArrowLeft", 0),
    ]:
        page.keyboard.press(key)
        state = root.evaluate(STATE)
        assert state["step"] == expected, key
        assert state["counter"] == expected_counter(expected, n_steps)
    # The buttons do the same, and zooming leaves the layout alone.
    page.get_by_role("button", name="next").click()
    assert root.evaluate(STATE)["step"] == 1
    page.get_by_role("button", name="+").click()
    page.get_by_role("button", name="fit").click()
    assert root.evaluate(STATE)["nodes"] == first["nodes"]
    # Full screen for the projector: the stepper fills the screen, the graph still fits.
    page.get_by_role("button", name="full screen").click()
    page.wait_for_function("() => document.fullscreenElement !== null", timeout=5000)
    page.wait_for_timeout(300)
    full = root.evaluate(STATE)
    assert root.evaluate("(el) => document.fullscreenElement === el")
    assert_fits(root, "full screen")
    for node_id, box in full["nodes"].items():
        assert inside(box, full["view"]) and inside(box, window), (node_id, box)
    page.screenshot(path=str(SCREENSHOTS / "stepper-demo-fullscreen.png"))
    assert root.get_by_role("button", name="exit full screen").count() == 1
    page.keyboard.press("ArrowRight")
    assert root.evaluate(STATE)["step"] == 2
    page.keyboard.press("f")
    page.wait_for_function("() => document.fullscreenElement === null", timeout=5000)
    assert errors == []


def test_two_steppers_on_one_page_are_independent(browser: Any, tmp_path: Path) -> None:
    x = Variable(np.array([0.5, -1.0]), name="x")
    one = viz.BackwardStepper(viz.trace_backward(F.sin(x) * F.exp(x)))
    w = Variable(np.array(2.0), name="w")
    two = viz.BackwardStepper(viz.trace_backward(w * w + w))
    path = tmp_path / "two.html"
    path.write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>"
        f"{one.to_html()}<p>between</p>{two.to_html()}</body></html>",
        encoding="utf-8",
    )
    page, errors = open_page(browser, path)
    roots = page.locator(".minitorch-stepper")
    roots.nth(1).locator(".mts-caption").click()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert roots.nth(0).evaluate(STATE)["step"] == 0
    assert roots.nth(1).evaluate(STATE)["step"] == 2
    roots.nth(0).locator(".mts-caption").click()
    page.keyboard.press("End")
    assert roots.nth(0).evaluate(STATE)["step"] == len(one.trace) + 1
    assert roots.nth(1).evaluate(STATE)["step"] == 2
    assert errors == []


def test_a_big_graph_follows_the_active_function(browser: Any, tmp_path: Path) -> None:
    from benchmarks.stepper import fifteen_term_expression

    stepper = viz.BackwardStepper(viz.trace_backward(fifteen_term_expression()))
    path = stepper.save_html(tmp_path / "big.html")
    page, errors = open_page(browser, path)
    root = page.locator(".minitorch-stepper")
    for k in range(1, len(stepper.trace) + 1):
        page.keyboard.press("PageDown")
        if k % 10 and k != len(stepper.trace):
            continue
        state = root.evaluate(STATE)
        assert state["step"] == k
        (active,) = state["active"]
        assert inside(state["nodes"][active], state["view"]), f"step {k}: active out of sight"
        if k == 50:
            page.screenshot(path=str(SCREENSHOTS / "stepper-big-step50.png"))
    assert errors == []
