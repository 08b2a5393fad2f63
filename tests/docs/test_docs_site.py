"""The built documentation site: complete API reference, and pages that work offline.

``test_reference_lists_every_public_name`` reads the HTML that mkdocs wrote and looks for
a heading (or, for a subpackage, a link) for every name in each package's ``__all__``.
The browser tests open pages of the built site in Debian's headless Chromium over a
local HTTP server (as ``make docs-serve`` shows it) and fail on any console error or any
request that leaves localhost; they save screenshots under ``build/docs-screenshots/`` for
a person to look at. ``test_site_offline.py`` opens the site from disk instead.
"""

from __future__ import annotations

import functools
import http.server
import importlib
import inspect
import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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

API_MARKER = re.compile(r"^<!-- api: ([\w.]+) -->$", re.MULTILINE)


def api_pages() -> dict[str, str]:
    """package -> the name of its page under docs/api/ (from each page's marker line)."""
    pages = {}
    for page in sorted((ROOT / "docs" / "api").glob("*.md")):
        match = API_MARKER.search(page.read_text(encoding="utf-8"))
        if match and match.group(1) != "overview":
            pages[match.group(1)] = page.stem
    return pages


# package -> its page under docs/api/
API_PAGES = api_pages()


def public_names(module: Any) -> list[str]:
    """``__all__``, or for a module without one its own public functions and classes."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [
        name
        for name, obj in vars(module).items()
        if not name.startswith("_")
        and (inspect.isfunction(obj) or inspect.isclass(obj))
        and obj.__module__ == module.__name__
    ]


def heading_ids(html: str) -> set[str]:
    """The ids of the mkdocstrings object headings on a page (attributes in any order)."""
    ids = set()
    for tag in re.findall(r"<h[1-6]\b[^>]*>", html):
        match = re.search(r'\sid="([^"]+)"', tag)
        if match and re.search(r'\sclass="[^"]*\bdoc-heading\b', tag):
            ids.add(match.group(1))
    return ids


@pytest.mark.parametrize("package", list(API_PAGES))
def test_reference_lists_every_public_name(site_dir: Path, package: str) -> None:
    assert {"minitorch", "minitorch.ops", "viz"} <= set(API_PAGES), API_PAGES
    try:
        module = importlib.import_module(package)
    except ModuleNotFoundError as exc:
        if exc.name is not None and package.startswith(exc.name):
            pytest.skip(f"{package} does not exist yet")
        raise
    names = public_names(module)
    if not names:
        pytest.skip(f"{package} has no public names yet")
    page = site_dir / "api" / f"{API_PAGES[package]}.html"
    assert page.exists(), f"no API page for {package} at {page}"
    html = page.read_text(encoding="utf-8")
    ids = heading_ids(html)
    missing = []
    for name in names:
        obj = getattr(module, name)
        if inspect.ismodule(obj):
            link = f'href="{API_PAGES.get(obj.__name__, "?")}.html"'
            if link not in html:
                missing.append(name)
            continue
        accepted = {f"{package}.{name}"}
        if hasattr(obj, "__qualname__") and hasattr(obj, "__module__"):
            accepted.add(f"{obj.__module__}.{obj.__qualname__}")
        if not accepted & ids:
            missing.append(name)
    assert not missing, f"{package}: no entry in {page.relative_to(site_dir)} for {missing}"


def test_reference_shows_variable_operators(site_dir: Path) -> None:
    """The operators bound by the ops table appear under Variable (TYPE_CHECKING block)."""
    ids = heading_ids((site_dir / "api" / "minitorch.html").read_text("utf-8"))
    for name in ("__add__", "__mul__", "reshape", "sum", "backward"):
        assert f"minitorch.Variable.{name}" in ids


def test_examples_render_as_code(site_dir: Path) -> None:
    """``Example:`` doctests render as highlighted code, not as a quoted paragraph."""
    html = (site_dir / "api" / "ops.html").read_text("utf-8")
    assert html.count('<span class="gp">&gt;&gt;&gt; </span>') > 10
    assert "<blockquote>\n<blockquote>" not in html


def test_notebooks_are_pages(site_dir: Path) -> None:
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    if not notebooks:
        pytest.skip("no notebooks yet")
    for notebook in notebooks:
        page = site_dir / "notebooks" / f"{notebook.stem}.html"
        assert page.exists(), f"{notebook.name} was not rendered to {page}"
    home = (site_dir / "index.html").read_text("utf-8")
    assert f'href="notebooks/{notebooks[0].stem}.html"' in home, "the course is not in the nav"


EXTERNAL_RESOURCE = re.compile(
    r"<(?:script|img|iframe|source|embed|audio|video)\b[^>]*\ssrc=[\"']https?://"
    r"|<link\b[^>]*\shref=[\"']https?://"
    r"|url\([\"']?https?://",
    re.IGNORECASE,
)


def test_no_page_loads_anything_from_the_internet(site_dir: Path) -> None:
    """Every page (all notebooks too) works offline: no script, style, font or image URL.

    Plain links (``<a href="https://...">``) are fine: they load nothing until clicked.
    The browser tests below confirm this on a few pages by watching the requests.
    """
    offenders = []
    for page in sorted(site_dir.rglob("*.html")):
        match = EXTERNAL_RESOURCE.search(page.read_text(encoding="utf-8"))
        if match:
            offenders.append(f"{page.relative_to(site_dir)}: {match.group(0)}")
    assert not offenders, offenders


# -- the headless browser ------------------------------------------------------------------


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (stdlib name)
        pass


@pytest.fixture(scope="module")
def server(site_dir: Path) -> Iterator[str]:
    """Serve the built site on 127.0.0.1 (a free port) for the browser."""
    handler = functools.partial(_QuietHandler, directory=str(site_dir))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


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


def stepper_page(site_dir: Path) -> str | None:
    """The URL path of the first notebook page that embeds the backward stepper."""
    for page in sorted((site_dir / "notebooks").glob("*.html")):
        html = page.read_text(encoding="utf-8")
        if "stepper" in html.lower() and 'type="range"' in html:
            return f"/notebooks/{page.name}"
    return None


def visit(browser: Any, server: str, path: str, name: str) -> tuple[list[str], list[str], Any]:
    """Open ``path``; return (console errors, external requests, the open page)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    external: list[str] = []
    page = context.new_page()
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    def record(request: Any) -> None:
        url = request.url
        if not url.startswith((server + "/", "data:", "blob:", "about:")):
            external.append(url)

    context.on("request", record)
    page.goto(server + path, wait_until="networkidle")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
    return errors, external, page


@pytest.mark.browser
@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/", "home"),
        ("/api/ops.html", "api-ops"),
        ("/api/minitorch.html", "api-core"),
        ("/concepts/writing-a-function.html", "concept-function"),
    ],
)
def test_page_loads_offline_without_errors(
    browser: Any, server: str, path: str, name: str
) -> None:
    errors, external, page = visit(browser, server, path, name)
    assert page.title(), f"{path} has no title"
    assert not errors, f"console errors on {path}: {errors}"
    assert not external, f"{path} requested outside localhost: {external}"
    page.context.close()


@pytest.mark.browser
def test_stepper_notebook_page_works_offline(browser: Any, server: str, site_dir: Path) -> None:
    path = stepper_page(site_dir)
    if path is None:
        pytest.skip("no rendered notebook embeds the backward stepper yet")
    errors, external, page = visit(browser, server, path, "notebook-stepper")
    slider = page.locator('input[type="range"]').first
    slider.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "notebook-stepper-step0.png"))
    before = slider.input_value()
    page.get_by_role("button", name=re.compile("next", re.IGNORECASE)).first.click()
    assert slider.input_value() != before, "the stepper's next button did not move the slider"
    page.screenshot(path=str(SCREENSHOTS / "notebook-stepper-step1.png"))
    assert not errors, f"console errors on {path}: {errors}"
    assert not external, f"{path} requested outside localhost: {external}"
    page.context.close()


def test_notebook_formulas_are_typeset_offline(site_dir: Path) -> None:
    """Every ``$...$`` of the notebooks' Markdown became MathML (no MathJax download)."""
    bs4 = pytest.importorskip("bs4")
    pages = sorted((site_dir / "notebooks").glob("*.html"))
    if not pages:
        pytest.skip("no notebooks yet")
    formulas = 0
    for page in pages:
        soup = bs4.BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        formulas += len(soup.find_all("math"))
        for cell in soup.select(".jp-RenderedMarkdown"):
            for text in cell.find_all(string=re.compile(r"\$[^$\n]+\$")):
                if not {p.name for p in text.parents} & {"code", "pre"}:
                    pytest.fail(f"{page.stem}: raw TeX left in {text.strip()[:80]!r}")
    assert formulas > 0


def test_page_formulas_are_typeset_offline(site_dir: Path) -> None:
    """The ``$...$`` of the Markdown pages became MathML too (arithmatex + the hook)."""
    leftovers = [
        page.relative_to(site_dir).as_posix()
        for page in sorted(site_dir.rglob("*.html"))
        if 'class="arithmatex"' in page.read_text(encoding="utf-8")
    ]
    assert not leftovers, f"formulas left as TeX on {leftovers}"
    assert "<math" in (site_dir / "writing-docs.html").read_text(encoding="utf-8")


@pytest.mark.browser
def test_search_works_over_http(browser: Any, server: str) -> None:
    """Over http (make docs-serve) search runs in a real Web Worker, with the JSON index."""
    errors, external, page = visit(browser, server, "/", "search-http")
    page.locator("input.md-search__input").click()
    page.keyboard.type("gradcheck")
    results = page.locator(".md-search-result__item")
    results.first.wait_for(timeout=15_000)
    assert results.count() > 0
    assert not page.evaluate("Boolean(window.IframeWorker)"), "the file:// stand-in is active"
    assert not errors, f"console errors: {errors}"
    assert not external, f"requests outside localhost: {external}"
    page.context.close()
