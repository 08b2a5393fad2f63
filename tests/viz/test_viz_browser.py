"""The stepper page in a real headless browser, at a projector's 1280×720.

Needs Debian's chromium (``/usr/bin/chromium``) and the ``playwright`` Python package;
``make test`` installs both when it runs as root. Playwright's own browser download is
never used (no ``playwright install``): it drives the system chromium. Screenshots go to
``build/screenshots/`` for a person to look at.
"""

from __future__ import annotations

import os
import re
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
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
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


def test_one_stepper_shown_twice_runs_in_both_places(browser: Any, tmp_path: Path) -> None:
    # Displaying the same stepper again (a second cell, display(stepper) twice) repeats its
    # element id: the second copy's buttons and keys used to do nothing.
    x = Variable(np.array(2.0), name="x")
    stepper = viz.BackwardStepper(viz.trace_backward(x * x + x.exp()))
    path = tmp_path / "twice.html"
    path.write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>"
        f"{stepper.to_html()}<p>again</p>{stepper.to_html()}</body></html>",
        encoding="utf-8",
    )
    page, errors = open_page(browser, path)
    roots = page.locator(".minitorch-stepper")
    roots.nth(1).locator(".mts-caption").click()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert [roots.nth(i).evaluate(STATE)["step"] for i in range(2)] == [0, 2]
    roots.nth(0).get_by_role("button", name="next").click()
    assert [roots.nth(i).evaluate(STATE)["step"] for i in range(2)] == [1, 2]
    page.keyboard.press("ArrowRight")  # one key, one frame (not one per copy)
    assert [roots.nth(i).evaluate(STATE)["step"] for i in range(2)] == [2, 2]
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


# Whether anything inside the stepper is cut off: the caption shows all its lines, the
# side panel needs no scrolling sideways, and no cell of the gradient table is wider than
# its box (a long Variable name must wrap, not push the shape and values out of sight).
CLIPPED = """(root) => {
  const out = [];
  const cap = root.querySelector('.mts-caption');
  if (cap.scrollHeight > cap.clientHeight + 1 || cap.scrollWidth > cap.clientWidth + 1)
    out.push('caption ' + [cap.scrollWidth, cap.clientWidth, cap.scrollHeight, cap.clientHeight]);
  const main = root.querySelector('.mts-main').getBoundingClientRect();
  if (cap.getBoundingClientRect().bottom > main.top + 0.5) out.push('caption over drawing');
  const side = root.querySelector('.mts-side');
  if (side.scrollWidth > side.clientWidth + 1) out.push('side ' + side.scrollWidth);
  const right = side.getBoundingClientRect().right;
  for (const cell of side.querySelectorAll('th, td')) {
    const b = cell.getBoundingClientRect();
    if (cell.scrollWidth > cell.clientWidth + 1 || b.right > right + 0.5)
      out.push('cell ' + cell.textContent);
  }
  return out;
}"""


def seen_readable(root: Any) -> bool:
    """Whether no label is hidden for being too small (at the start or the end frame:
    whether the whole graph is shown readable)."""
    return bool(
        root.evaluate("(r) => getComputedStyle(r.querySelector('.mts-note')).display === 'none'")
    )


def held_gradient_stepper() -> viz.BackwardStepper:
    """x and w already hold a gradient from an earlier backward (the end frame says so)."""
    x = Variable(np.array([1.0, 2.0, 3.0]), name="x")
    w = Variable(np.array([0.5, -1.0, 2.0]), name="w")
    (x * w).sum().backward()
    y = (x * w + x).sum()
    y.name = "loss"
    return viz.BackwardStepper(viz.trace_backward(y))


def long_names_stepper() -> viz.BackwardStepper:
    """Names of 50-70 characters (the drawing cuts them at 60), two of them held before."""
    weight = Variable(
        np.linspace(-1.0, 1.0, 12).reshape(4, 3),
        name="encoder_layer_weight_matrix_with_a_very_long_descriptive_name",
    )
    bias = Variable(np.ones(3), name="bias_of_the_first_fully_connected_layer_in_the_network")
    weight.grad = Variable(np.ones((4, 3)), requires_grad=False)
    bias.grad = Variable(np.ones(3), requires_grad=False)
    h = F.tanh(weight @ np.ones((3, 3)) + bias)
    h.name = "hidden_activations_after_the_tanh_nonlinearity"
    y = (h * h).sum()
    y.name = "the_training_loss_of_this_minibatch_before_any_update"
    return viz.BackwardStepper(
        viz.trace_backward(y), title="Long Variable names, as a student might choose them"
    )


@pytest.mark.parametrize("case", ["held", "long_names"])
def test_every_frame_fits_1280x720_without_scrolling_or_clipping(
    browser: Any, tmp_path: Path, case: str
) -> None:
    stepper = held_gradient_stepper() if case == "held" else long_names_stepper()
    assert "before this backward" in stepper.captions()[-1]
    path = stepper.save_html(tmp_path / f"{case}.html")
    page, errors = open_page(browser, path)
    root = page.locator(".minitorch-stepper")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    first = root.evaluate(STATE)
    window = [0, 0, VIEWPORT["width"], VIEWPORT["height"]]
    for k in range(len(stepper)):
        if k:
            page.keyboard.press("ArrowRight")
        state = root.evaluate(STATE)
        assert state["step"] == k and state["caption"] == stepper.captions()[k]
        assert_fits(root, f"{case} frame {k}")
        assert root.evaluate(CLIPPED) == [], f"{case} frame {k}"
        # The whole graph is in sight at the start and the end; while stepping, the active
        # Function is (a graph too big to read whole is shown close up, see
        # test_the_stepper_frames_any_graph_readably); no node moves for a longer caption.
        if k == 0:  # shown whole and readable: then nothing ever moves
            readable = seen_readable(root)
        if readable or k in (0, len(stepper) - 1):
            assert state["nodes"] == first["nodes"], f"{case}: a node moved at frame {k}"
            for node_id, box in state["nodes"].items():
                assert inside(box, state["view"]) and inside(box, window), (k, node_id, box)
        else:
            (active,) = state["active"]
            assert inside(state["nodes"][active], state["view"]), (case, k)
        if k in (1, len(stepper) - 1):
            page.screenshot(path=str(SCREENSHOTS / f"stepper-{case}-frame{k}.png"))
    # Full screen (larger type: the caption takes more lines): still nothing cut off.
    page.get_by_role("button", name="full screen").click()
    page.wait_for_function("() => document.fullscreenElement !== null", timeout=5000)
    page.wait_for_timeout(300)
    assert_fits(root, f"{case} full screen")
    assert root.evaluate(CLIPPED) == [], f"{case} full screen"
    full = root.evaluate(STATE)
    readable = seen_readable(root)  # at the end frame: the whole graph
    for k in range(len(stepper) - 1, -1, -1):
        if readable or k in (0, len(stepper) - 1):
            assert root.evaluate(STATE)["nodes"] == full["nodes"], f"{case}: moved at {k}"
        assert root.evaluate(CLIPPED) == [], f"{case} full screen frame {k}"
        page.keyboard.press("ArrowLeft")
    page.screenshot(path=str(SCREENSHOTS / f"stepper-{case}-fullscreen.png"))
    assert errors == []


def test_a_leaf_output_steps_from_start_to_end(browser: Any, tmp_path: Path) -> None:
    x = Variable(np.array([1.0, 2.0]), name="x")
    stepper = viz.BackwardStepper(viz.trace_backward(x))
    page, errors = open_page(browser, stepper.save_html(tmp_path / "leaf.html"))
    root = page.locator(".minitorch-stepper")
    start = root.evaluate(STATE)
    assert start["counter"] == "start" and "no Function" in start["caption"]
    page.keyboard.press("ArrowRight")
    end = root.evaluate(STATE)
    assert end["step"] == 1 and end["counter"] == "end" and end["rows"] == 1
    assert_fits(root, "leaf end")
    page.screenshot(path=str(SCREENSHOTS / "stepper-leaf-end.png"))
    page.keyboard.press("ArrowRight")
    assert root.evaluate(STATE)["step"] == 1
    assert errors == []


DISABLED = """(root) => Object.fromEntries([...root.querySelectorAll('button[data-act]')].map(
  (b) => [b.dataset.act, b.getAttribute('aria-disabled') === 'true']))"""


def test_keys_and_buttons_at_the_first_and_the_last_frame(browser: Any, tmp_path: Path) -> None:
    x = Variable(np.array(2.0), name="x")
    y = x * x + x.exp()
    stepper = viz.BackwardStepper(viz.trace_backward(y))
    last = len(stepper) - 1
    page, errors = open_page(browser, stepper.save_html(tmp_path / "keys.html"))
    root = page.locator(".minitorch-stepper")
    moves = {"first": True, "prev": True, "next": False, "last": False}
    assert {k: v for k, v in root.evaluate(DISABLED).items() if k in moves} == moves
    page.get_by_role("button", name="last").click()
    assert root.evaluate(STATE)["step"] == last
    flags = root.evaluate(DISABLED)
    assert flags["next"] and flags["last"] and not flags["prev"] and not flags["first"]
    # Clicking a button that cannot move does nothing, and the keys keep working.
    page.get_by_role("button", name="next").click(force=True)  # aria-disabled: forced
    assert root.evaluate(STATE)["step"] == last
    page.keyboard.press("ArrowLeft")
    assert root.evaluate(STATE)["step"] == last - 1
    # Space with a button focused moves one frame, not two (the key and the button's click).
    page.get_by_role("button", name="first").click()
    page.keyboard.press("Space")
    assert root.evaluate(STATE)["step"] == 1
    page.get_by_role("button", name="next").focus()
    page.keyboard.press("Space")
    assert root.evaluate(STATE)["step"] == 2
    # The slider focused: → moves one frame too, and Home / End go to the ends.
    root.locator(".mts-slider").focus()
    page.keyboard.press("ArrowRight")
    assert root.evaluate(STATE)["step"] == 3
    page.keyboard.press("Home")
    assert root.evaluate(STATE)["step"] == 0
    page.keyboard.press("ArrowLeft")
    assert root.evaluate(STATE)["step"] == 0
    page.keyboard.press("End")
    assert root.evaluate(STATE)["step"] == last
    assert errors == []


# -- framing any graph (issue 29) ----------------------------------------------------------
# What a reader sees of the drawing: the graph's box, the view's box, the canvas transform,
# the smallest label on screen (font size × the drawing's scale, over the labels that are
# shown and in sight), and the legend's rows beside what the drawing shows.
SEEN = """(root) => {
  const box = (el) => { const r = el.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom]; };
  const view = root.querySelector('.mts-view'), v = box(view);
  const shown = (el) => el.getClientRects().length > 0 &&
    getComputedStyle(el).visibility !== 'hidden' && getComputedStyle(el).display !== 'none';
  let smallest = Infinity;
  for (const t of root.querySelectorAll('.mts-view svg text')) {
    if (!shown(t) || t.textContent.trim() === '') continue;
    const r = box(t);
    if (r[2] < v[0] || r[0] > v[2] || r[3] < v[1] || r[1] > v[3]) continue;
    const m = t.getScreenCTM();
    smallest = Math.min(smallest, parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b));
  }
  const badge = (text) => [...root.querySelectorAll('g.mts-badge')].some(
    (g) => shown(g) && g.textContent === text);
  const drawn = {
    'func-active': root.querySelectorAll('g.node.mts-active').length > 0,
    'recv': [...root.querySelectorAll('g.mts-grad.mts-recv')].some(shown),
    'send': [...root.querySelectorAll('g.mts-grad.mts-send')].some(shown),
    'var-got': root.querySelectorAll('g.node.mts-got').length > 0,
    'badge-acc': badge('+='),
    'badge-has': badge('\\u2202'),
    'func-done': root.querySelectorAll('g.node.mts-done').length > 0,
  };
  return {
    graph: box(root.querySelector('.mts-view svg g.graph')), view: v,
    transform: root.querySelector('.mts-canvas').style.transform,
    smallest: smallest,
    legend: [...root.querySelectorAll('.mts-legend li')].filter(shown).map((li) => li.dataset.key),
    drawn: Object.keys(drawn).filter((k) => drawn[k]),
    table: [...root.querySelectorAll('.mts-table tbody td')].map((td) => td.textContent),
  };
}"""


def fifteen_term_page(tmp_path: Path) -> tuple[Path, viz.BackwardStepper]:
    from benchmarks.stepper import fifteen_term_expression

    stepper = viz.BackwardStepper(viz.trace_backward(fifteen_term_expression()))
    return stepper.save_html(tmp_path / "fifteen.html"), stepper


@pytest.mark.parametrize("case", ["fifteen_terms", "demo", "leaf"])
def test_the_stepper_frames_any_graph_readably(browser: Any, tmp_path: Path, case: str) -> None:
    if case == "fifteen_terms":
        path, _ = fifteen_term_page(tmp_path)
    elif case == "demo":
        path = demo_page(tmp_path)
    else:
        path = viz.BackwardStepper(
            viz.trace_backward(Variable(np.array([1.0, 2.0]), name="x"))
        ).save_html(tmp_path / "leaf.html")
    page, errors = open_page(browser, path)
    root = page.locator(".minitorch-stepper")
    n_frames = int(root.locator(".mts-slider").get_attribute("max")) + 1
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    seen, states = [], []
    for k in range(n_frames):
        if k:
            page.keyboard.press("ArrowRight")
        seen.append(root.evaluate(SEEN))
        states.append(root.evaluate(STATE))
        if k in (0, 1, n_frames - 1):
            page.screenshot(path=str(SCREENSHOTS / f"stepper-frames-{case}-{k}.png"))
    for k, (now, state) in enumerate(zip(seen, states)):
        # No label under 12 px on a 1280×720 screen, in any frame.
        assert now["smallest"] >= 12 - 0.01, (case, k, now["smallest"])
        # The legend lists exactly what the drawing shows now.
        assert now["legend"] == now["drawn"], (case, k)
        # Names a user gave or derived ones, never generated ids; shapes as the nodes say.
        assert not re.search(r"\bv\d+\b", state["caption"] + " ".join(now["table"])), k
        assert "\u00d7" not in " ".join(now["table"])
    # The whole graph fits the view at the start and at the end.
    for k in (0, n_frames - 1):
        assert inside(seen[k]["graph"], seen[k]["view"]), (case, k, seen[k])
    # Between steps the view moves only when the active Function would leave it.
    for k in range(2, n_frames - 1):
        (active,) = states[k]["active"]
        assert inside(states[k]["nodes"][active], states[k]["view"]), (case, k)
        if seen[k]["transform"] != seen[k - 1]["transform"]:
            before = states[k - 1]["nodes"][active]
            assert not inside(before, states[k - 1]["view"], slack=2), (case, k)
    moves = sum(seen[k]["transform"] != seen[k - 1]["transform"] for k in range(1, n_frames))
    if case == "fifteen_terms":
        assert "badge-acc" in {key for s in seen for key in s["legend"]}  # x: a fan-in
        assert moves < n_frames / 2, moves
    else:  # the whole graph is readable: nothing ever moves
        assert moves == 0
    if case == "demo":  # no Variable is used twice: no += row, ever
        assert all("badge-acc" not in s["legend"] for s in seen)
    if case == "leaf":  # no Function: no red box, arrows or faded rows
        assert {key for s in seen for key in s["legend"]} <= {"var-got", "badge-has"}
    assert errors == []


def test_the_memory_line_falls_to_zero_at_1280x720(browser: Any, tmp_path: Path) -> None:
    # show_memory=True: the line above the drawing says what the graph still holds for
    # backward, frame by frame, and its bar empties; the page still fits the window.
    x = Variable(np.linspace(-1.0, 1.0, 1000), name="x")
    h = F.tanh(x.exp() * x)
    h.name = "h"
    loss = h.sum()
    loss.name = "loss"
    stepper = viz.BackwardStepper(
        viz.trace_backward(loss), show_memory=True, title="activations are the memory"
    )
    expected = [frame["memory"] for frame in stepper.frames()]
    path = stepper.save_html(tmp_path / "memory.html")
    page, errors = open_page(browser, path)
    root = page.locator(".minitorch-stepper")
    line = "(root) => [root.querySelector('.mts-memory-text').textContent, " + (
        "root.querySelector('.mts-memory-bar span').style.width]"
    )
    seen = [root.evaluate(line)]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "stepper-memory-start.png"))
    assert_fits(root, "frame 0")
    for k in range(len(expected) - 1):
        page.keyboard.press("ArrowRight")
        seen.append(root.evaluate(line))
        assert_fits(root, f"frame {k + 1}")
        if k == 1:
            page.screenshot(path=str(SCREENSHOTS / "stepper-memory-step2.png"))
    assert [text for text, _ in seen] == expected
    widths = [float(width.rstrip("%")) for _, width in seen]
    assert widths[0] == 100 and widths[-1] == 0  # 32,000 bytes, then 24, 16, 8, 0 thousand
    assert widths == sorted(widths, reverse=True)
    page.keyboard.press("Home")
    assert root.evaluate(line)[0] == expected[0]
    assert errors == []
