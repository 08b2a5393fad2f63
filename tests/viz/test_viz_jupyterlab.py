"""The stepper widget in a real JupyterLab 4, driven by Playwright in Debian's Chromium.

Two things a teacher does: open notebook 05 straight after ``git clone`` (untrusted: the
stored stepper must show as a picture with "run the cell to step through backward", not
as text soup), and run a stepper cell at 1280×720 (the whole graph visible, nothing
moving between steps, the keys working, the step synced with Python both ways).

Needs the ``lab`` extra (``jupyterlab``), ``anywidget``, ``playwright`` and Debian's
chromium; skipped otherwise. Starts its own server on a free port with no token, in a
temporary folder, and stops it again. Screenshots go to ``build/screenshots/``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_viz_browser import (
    CHROMIUM,
    FLAGS,
    SCREENSHOTS,
    STATE,
    VIEWPORT,
    expected_counter,
    inside,
)
from viz_helpers import requires_dot

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "05_seeing_the_graph.ipynb"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    requires_dot,
    pytest.mark.skipif(
        not (os.path.exists(CHROMIUM) and shutil.which(CHROMIUM)),
        reason="Debian's chromium is not installed (apt-get install chromium)",
    ),
]

WIDGET_CELL = """\
import numpy as np
import minitorch.ops as F
import viz
from minitorch import manual_seed, nn
manual_seed(0)
model = nn.Sequential(nn.Linear(2, 3, rng=0, dtype=np.float64), nn.Tanh(),
                      nn.Linear(3, 2, rng=1, dtype=np.float64))
batch = np.array([[0.5, -1.0], [1.0, 0.2], [-0.3, 0.8], [0.0, -0.5]])
loss = F.softmax_cross_entropy(model(batch), np.array([0, 1, 1, 0]))
loss.name = "loss"
stepper = viz.BackwardStepper(viz.trace_backward(loss)).widget()
stepper"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    pytest.importorskip("jupyterlab", reason="the lab extra (jupyterlab) is not installed")
    pytest.importorskip("anywidget", reason="anywidget (viz extra) is not installed")
    nbformat = pytest.importorskip("nbformat")
    folder = tmp_path_factory.mktemp("lab")
    shutil.copy(NOTEBOOK, folder / NOTEBOOK.name)  # as cloned: untrusted, outputs stored
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nb.cells = [
        nbformat.v4.new_code_cell(WIDGET_CELL),
        nbformat.v4.new_code_cell('print("python sees step", stepper.step)'),
        nbformat.v4.new_code_cell("stepper.step = 3"),
    ]
    nbformat.write(nb, folder / "widget.ipynb")
    port = free_port()
    command = [
        sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}",
        "--ServerApp.ip=127.0.0.1", "--ServerApp.token=", "--ServerApp.password=",
        f"--ServerApp.root_dir={folder}", "--LabApp.news_url=",
    ]  # fmt: skip
    if hasattr(os, "getuid") and os.getuid() == 0:
        command.append("--allow-root")
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(folder / ".config")}
    log = open(folder / "server.log", "wb")  # noqa: SIM115 - closed below
    server = subprocess.Popen(command, cwd=folder, stdout=log, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/api/status", timeout=1)
                break
            except OSError:
                if server.poll() is not None:
                    pytest.fail((folder / "server.log").read_text(errors="replace")[-2000:])
                time.sleep(0.5)
        yield url, folder
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            yield chromium
        finally:
            chromium.close()


def open_notebook(browser: Any, url: str, name: str) -> tuple[Any, list[str]]:
    page = browser.new_page(viewport=VIEWPORT)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{url}/lab/tree/{name}?reset")  # one tab: no workspace restored
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
    page.wait_for_timeout(1500)
    no_news = page.get_by_role("button", name="No", exact=True)  # JupyterLab's news toast
    if no_news.count():
        no_news.first.click()
    return page, errors


def test_untrusted_notebook_shows_the_stored_stepper_as_a_picture(
    lab: tuple[str, Path], browser: Any
) -> None:
    url, _ = lab
    page, errors = open_notebook(browser, url, NOTEBOOK.name)
    cell = page.locator(".jp-NotebookPanel:visible .jp-CodeCell", has_text=".widget()").first
    output = cell.locator(".jp-OutputArea-output").first
    image = output.locator("img")
    image.wait_for(timeout=30_000)
    output.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "stepper-lab-untrusted.png"))
    width, height = image.evaluate("(img) => [img.naturalWidth, img.naturalHeight]")
    assert width > 200 and height > 200
    # a picture and nothing else: no widget, no sanitised SVG text, no script text
    assert page.locator(".minitorch-stepper").count() == 0
    assert output.inner_text().strip() == ""
    assert errors == []


# Whether the side panel is whole: every legend row shown lies inside the window and the
# panel's visible box (none cut off or scrolled away), and no gradient name in the table is
# broken inside a name: the pieces between the script's break points ("/") stay on one line
# each (a piece with a space, "∂x (sum)", may wrap at the space only).
PANEL = """(root) => {
  const out = [];
  const side = root.querySelector('.mts-side'), s = side.getBoundingClientRect();
  if (side.scrollHeight > side.clientHeight + 1) out.push('side scrolls ' + side.scrollHeight);
  for (const li of root.querySelectorAll('.mts-legend li')) {
    if (li.hidden) continue;
    const r = li.getBoundingClientRect();
    if (r.top < s.top - 0.5 || r.bottom > s.bottom + 0.5 || r.bottom > innerHeight)
      out.push('legend row cut off: ' + li.textContent);
  }
  for (const td of root.querySelectorAll('.mts-table tbody td:nth-child(2)')) {
    for (const piece of td.childNodes) {
      if (piece.nodeType !== 3 || !piece.textContent) continue;
      const range = document.createRange();
      range.selectNodeContents(piece);
      // one line per distinct baseline (a fallback font's glyph, ∂, sits a little apart)
      const tops = [...range.getClientRects()].map((r) => r.bottom).sort((a, b) => a - b);
      const lines = tops.filter((t, i) => i === 0 || t - tops[i - 1] > 6).length;
      if (lines > piece.textContent.split(' ').length)
        out.push('broken: ' + td.textContent);
    }
  }
  return out;
}"""


def run_cell(page: Any, index: int) -> None:
    cell = page.locator(".jp-NotebookPanel:visible .jp-CodeCell").nth(index)
    cell.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")


def test_widget_in_jupyterlab_at_1280x720(lab: tuple[str, Path], browser: Any) -> None:
    url, _ = lab
    page, errors = open_notebook(browser, url, "widget.ipynb")
    run_cell(page, 0)
    root = page.locator(".minitorch-stepper").first
    root.wait_for(timeout=90_000)
    page.wait_for_timeout(800)  # the view lays itself out after it is attached
    root.evaluate("(el) => el.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(300)
    n_frames = int(root.locator(".mts-slider").get_attribute("max")) + 1
    n_steps = n_frames - 2
    first = root.evaluate(STATE)
    page.screenshot(path=str(SCREENSHOTS / "stepper-lab-widget-start.png"))
    window = [0, 0, VIEWPORT["width"], VIEWPORT["height"]]
    assert first["step"] == 0 and first["counter"] == "start" and first["nodes"]
    for node_id, box in first["nodes"].items():
        assert inside(box, first["view"]) and inside(box, window), (node_id, box)

    root.locator(".mts-caption").click()  # takes the focus, so the keys drive it
    for k in range(1, n_frames):
        page.keyboard.press("ArrowRight")
        state = root.evaluate(STATE)
        assert state["step"] == k
        assert state["counter"] == expected_counter(k, n_steps)
        assert state["caption"].lower().startswith(state["counter"] + ":")
        assert state["nodes"] == first["nodes"], f"a node moved at frame {k}"
        assert root.evaluate(PANEL) == [], f"frame {k}"
        if k == n_frames - 1:
            page.screenshot(path=str(SCREENSHOTS / "stepper-lab-widget-end.png"))
    for key, expected in [("Home", 0), ("PageDown", 1), ("Space", 2), ("PageUp", 1),
                          ("ArrowLeft", 0), ("End", n_frames - 1), ("Home", 0),
                          ("ArrowRight", 1), ("ArrowRight", 2)]:  # fmt: skip
        page.keyboard.press(key)
        assert root.evaluate(STATE)["step"] == expected, key
    page.screenshot(path=str(SCREENSHOTS / "stepper-lab-widget-step2.png"))
    cells = page.locator(".jp-NotebookPanel:visible .jp-CodeCell")
    assert cells.count() == 3  # the keys added, moved or ran no cell

    run_cell(page, 1)  # the browser's step reached Python
    page.wait_for_selector("text=python sees step 2", timeout=30_000)
    run_cell(page, 2)  # and Python's reaches the browser
    page.wait_for_function(
        "() => document.querySelector('.minitorch-stepper').dataset.step === '3'",
        timeout=30_000,
    )
    assert root.evaluate(STATE)["counter"] == expected_counter(3, n_steps)
    assert errors == []
