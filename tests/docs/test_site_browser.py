"""The built site opened from disk (``file://``) in Debian's headless Chromium.

This is what the README tells a reader to do (``open site/index.html``): the test opens
``index.html`` from the built site, clicks every entry of the navigation and expects a
rendered page each time (not a directory listing) without console errors or failed
requests; it searches for "gradcheck" and expects results. Screenshots (1280×720) go to
``build/docs-screenshots/`` for a person to look at.

Needs ``/usr/bin/chromium`` and the ``playwright`` package (``make browser``; never
``playwright install``): without them the tests skip and say why.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
# TOOLCHAIN.md: the flags that keep Debian's chromium quiet and offline in a container.
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = ROOT / "build" / "docs-screenshots"
VIEWPORT = {"width": 1280, "height": 720}
# Pages worth a screenshot (when they exist): home, a concept page, the API overview.
SCREENSHOT_PAGES = {"index.html", "concepts/backward.html", "api/index.html"}

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if shutil.which(CHROMIUM) is None:
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium; make test does it as root)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
        )
        yield chromium
        chromium.close()


class Tab:
    """One browser page that records console errors, page errors and failed requests."""

    def __init__(self, browser: Any) -> None:
        self.context = browser.new_context(viewport=VIEWPORT)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.external: list[str] = []
        self.page.on(
            "console",
            lambda msg: (
                self.errors.append(f"console: {msg.text}") if msg.type == "error" else None
            ),
        )
        self.page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))
        self.page.on("requestfailed", self._failed)
        self.page.on("request", self._record)

    def _failed(self, request: Any) -> None:
        # A request the browser cancelled because the test moved on to the next page (the
        # search worker still loading: net::ERR_ABORTED) is not a defect of the site; a
        # missing file (net::ERR_FILE_NOT_FOUND) or a refused one is.
        if "ERR_ABORTED" not in (request.failure or ""):
            self.errors.append(f"failed request: {request.url} ({request.failure})")

    def _record(self, request: Any) -> None:
        if not request.url.startswith(("file://", "data:", "blob:", "about:")):
            self.external.append(request.url)

    def take_errors(self) -> list[str]:
        errors, self.errors = self.errors, []
        return errors + [f"request outside the site: {url}" for url in self.external]

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def tab(browser: Any) -> Iterator[Tab]:
    opened = Tab(browser)
    yield opened
    opened.close()


def relative(site_dir: Path, url: str) -> str:
    """The path of a file:// URL inside the site ('?' if it is not in the site)."""
    path = Path(unquote(urlsplit(url).path))
    try:
        return path.resolve().relative_to(site_dir.resolve()).as_posix()
    except ValueError:
        return "?"


def screenshot_name(page_path: str) -> str:
    return "offline-" + page_path.removesuffix(".html").replace("/", "-") + ".png"


# The page entries of the main navigation (not the current page's table of contents,
# which Material also puts there for small screens).
NAV_HREFS = """links => links
  .filter(a => !a.closest('.md-nav--secondary'))
  .map(a => a.getAttribute('href'))"""


def nav_links(tab: Tab) -> list[str]:
    """The href attribute of every page entry of the main navigation, in order, once each."""
    hrefs = tab.page.eval_on_selector_all("nav.md-nav--primary a.md-nav__link[href]", NAV_HREFS)
    return list(dict.fromkeys(h for h in hrefs if not h.startswith("#")))


def test_every_navigation_entry_opens_a_page_from_disk(tab: Tab, site_dir: Path) -> None:
    home = (site_dir / "index.html").as_uri()
    tab.page.goto(home)
    targets = nav_links(tab)
    assert len(targets) >= 10, f"only {len(targets)} navigation entries: {targets}"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    problems = [f"index.html: {e}" for e in tab.take_errors()]
    for target in targets:
        tab.page.goto(home)
        link = tab.page.locator(f'nav.md-nav--primary a.md-nav__link[href="{target}"]')
        link.first.click()
        tab.page.wait_for_load_state("load")
        where = relative(site_dir, tab.page.url)
        title = tab.page.title()
        article = tab.page.locator("article.md-content__inner")
        if "Index of" in title or article.count() == 0:
            problems.append(f"{target}: no rendered page (title {title!r}, at {tab.page.url})")
        elif not article.first.inner_text().strip():
            problems.append(f"{where}: the page is empty")
        if not where.endswith(".html"):
            problems.append(f"{target}: opened {tab.page.url}, not a page of the site")
        problems += [f"{where}: {e}" for e in tab.take_errors()]
        if where in SCREENSHOT_PAGES:
            tab.page.screenshot(path=str(SCREENSHOTS / screenshot_name(where)))
    assert not problems, "\n".join(problems)


def test_search_works_from_disk(tab: Tab, site_dir: Path) -> None:
    tab.page.goto((site_dir / "index.html").as_uri())
    tab.page.locator("input.md-search__input").click()
    tab.page.keyboard.type("gradcheck")
    results = tab.page.locator(".md-search-result__item")
    results.first.wait_for(timeout=15_000)
    assert results.count() > 0
    meta = tab.page.locator(".md-search-result__meta").inner_text()
    assert "matching document" in meta, meta
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SCREENSHOTS / "offline-search-gradcheck.png"))
    results.first.locator("a").first.click()
    tab.page.wait_for_load_state("load")
    assert relative(site_dir, tab.page.url).endswith(".html")
    assert "gradcheck" in tab.page.locator("article").first.inner_text().lower()
    assert not tab.take_errors()


# The rendered size of the stepper's node labels: Graphviz writes them in user units of
# the SVG's viewBox, which the page scales to the width the stepper gets. Only labels
# shown count: a big graph's overview hides the labels it would draw too small to read.
STEPPER_TEXT_PX = """(root) => {
  const svg = [...root.querySelectorAll('svg')].find(s => s.getBoundingClientRect().width > 0);
  const shown = [...svg.querySelectorAll('g.node text')].filter(
    t => getComputedStyle(t).visibility !== 'hidden' && t.getBoundingClientRect().height > 0);
  return shown.length ? Math.min(...shown.map(t => t.getBoundingClientRect().height)) : 99;
}"""


def stepper_pages(site_dir: Path) -> list[str]:
    pages = sorted(site_dir.rglob("*.html"))
    return [
        p.relative_to(site_dir).as_posix()
        for p in pages
        if 'class="minitorch-stepper' in p.read_text(encoding="utf-8")
    ]


def test_stepper_pages_give_the_stepper_the_full_width(tab: Tab, site_dir: Path) -> None:
    pages = stepper_pages(site_dir)
    if not pages:
        pytest.skip("no page of the site embeds the backward stepper")
    for path in pages:
        tab.page.goto((site_dir / path).as_uri())
        stepper = tab.page.locator(".minitorch-stepper").first
        stepper.scroll_into_view_if_needed()
        width = stepper.bounding_box()["width"]
        assert width > 0.7 * VIEWPORT["width"], f"{path}: the stepper is {width:.0f} px wide"
        label = stepper.evaluate(STEPPER_TEXT_PX)
        assert label >= 9, f"{path}: the stepper's labels are {label:.1f} px high"
        button = stepper.locator("button").first
        border = button.evaluate("b => getComputedStyle(b).borderTopStyle")
        assert border != "none", f"{path}: the stepper's buttons look like plain text"
        tab.page.screenshot(path=str(SCREENSHOTS / screenshot_name(path)))
        assert not tab.take_errors()


def test_stepper_pages_step_live_with_the_keys(tab: Tab, site_dir: Path) -> None:
    """The docs' stepper is the live one, not a picture: its keys move it, not the page."""
    pages = stepper_pages(site_dir)
    if not pages:
        pytest.skip("no page of the site embeds the backward stepper")
    for path in pages:
        tab.page.goto((site_dir / path).as_uri())
        stepper = tab.page.locator(".minitorch-stepper").first
        counter = stepper.locator(".mts-counter")
        last = int(stepper.locator(".mts-slider").get_attribute("max"))
        stepper.scroll_into_view_if_needed()
        assert counter.inner_text() == "start", path
        stepper.locator(".mts-caption").click()  # the stepper takes the focus
        scroll = tab.page.evaluate("window.scrollY")
        for key, counter_text in [
            ("ArrowRight", f"step 1 of {last - 1}"),
            ("PageDown", f"step 2 of {last - 1}"),
            ("Space", f"step 3 of {last - 1}"),
            ("ArrowLeft", f"step 2 of {last - 1}"),
            ("End", "end"),
            ("Home", "start"),
        ]:
            tab.page.keyboard.press(key)
            assert counter.inner_text() == counter_text, f"{path}: after {key}"
            caption = stepper.locator(".mts-caption").inner_text()
            assert caption.lower().startswith(counter_text + ":"), (key, caption)
            # the gradient table fits its panel (the page's own table rules do not widen it)
            overflow = stepper.locator(".mts-side").evaluate("s => s.scrollWidth - s.clientWidth")
            assert overflow <= 1, f"{path}: the gradient table overflows by {overflow} px at {key}"
        # PageDown and Space stepped the stepper; they did not also scroll the page.
        assert tab.page.evaluate("window.scrollY") == scroll, path
        stepper.get_by_role("button", name="next").first.click()
        assert counter.inner_text() == f"step 1 of {last - 1}", path
        name = screenshot_name(path).replace(".png", "-step1.png")
        tab.page.screenshot(path=str(SCREENSHOTS / name))
        assert not tab.take_errors()
