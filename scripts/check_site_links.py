"""Check every internal link of the built documentation site, as opened from disk.

``make docs`` runs it over ``site/`` after ``mkdocs build``; ``tests/docs`` runs it too.
The site is meant to be opened as ``site/index.html`` (``file://``), where there is no
web server to turn ``concepts/`` into ``concepts/index.html``, so a link is good only if

* it names a file that exists in the site (a folder would show a directory listing),
  and for a notebook its page, not the ``.ipynb`` file beside it,
* its ``#anchor``, if any, is the ``id`` (or ``name``) of an element on that page, and
* it is relative: an absolute path (``/api/``) would point at the root of the disk.

Links (``href``) and embedded resources (``src``: images, scripts, frames; ``srcset``)
are checked on every page, and so is the location of every entry of the search index
(what a search result opens). Links that leave the site (``https:``, ``mailto:``,
``data:``, ...) are not followed.

Usage::

    python scripts/check_site_links.py [site]

It prints one line per broken link and exits with 1 if there is any.
"""

from __future__ import annotations

import argparse
import json
import posixpath
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

# Attributes that hold one URL, and the elements they are checked on.
URL_ATTRIBUTES = {"href": None, "src": None, "xlink:href": None, "poster": {"video"}}
# The ids every page has implicitly: "#" and "#top" scroll to the top in every browser.
IMPLICIT_ANCHORS = {"", "top"}
# MkDocs' 404 page is for web servers, which show it at any URL: its links are absolute
# on purpose, and nobody opens it from disk.
SERVER_ONLY = {"404.html"}


@dataclass
class Page:
    """What one HTML file holds: the anchors it defines and the URLs it refers to."""

    anchors: set[str] = field(default_factory=set)
    urls: list[tuple[str, str]] = field(default_factory=list)  # (tag.attribute, url)


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name in ("id", "name") and tag not in ("meta", "input", "param", "button"):
                self.page.anchors.add(value)
            elif name in URL_ATTRIBUTES:
                allowed = URL_ATTRIBUTES[name]
                if allowed is None or tag in allowed:
                    self.page.urls.append((f"{tag}.{name}", value))
            elif name == "srcset":
                for candidate in value.split(","):
                    if candidate.strip():
                        self.page.urls.append((f"{tag}.srcset", candidate.split()[0]))

    handle_startendtag = handle_starttag


def read_page(path: Path) -> Page:
    """Parse one HTML file of the site."""
    collector = _Collector()
    collector.feed(path.read_text(encoding="utf-8", errors="replace"))
    collector.close()
    return collector.page


def is_external(url: str) -> bool:
    """Whether ``url`` leaves the site (a scheme such as https: or mailto:, or //host)."""
    parts = urlsplit(url)
    return bool(parts.scheme) or url.startswith("//")


class Site:
    """The built site under ``root``, its pages parsed on demand (each once)."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._pages: dict[Path, Page] = {}

    def page(self, path: Path) -> Page:
        if path not in self._pages:
            self._pages[path] = read_page(path)
        return self._pages[path]

    def html_files(self) -> list[Path]:
        """The pages to check (every HTML file but the server-only ones)."""
        pages = self.root.rglob("*.html")
        return sorted(p for p in pages if p.relative_to(self.root).as_posix() not in SERVER_ONLY)

    def problem(self, source: Path, url: str) -> str | None:
        """Why ``url``, found in the file ``source``, does not work from disk (else None)."""
        if is_external(url):
            return None
        parts = urlsplit(url)
        if parts.path.startswith("/"):
            return "absolute path: from disk it points at the root of the file system"
        if parts.path:
            relative = posixpath.join(source.parent.relative_to(self.root).as_posix(), parts.path)
            target = self.root / posixpath.normpath(unquote(relative))
        else:
            target = source
        try:
            target.resolve().relative_to(self.root)
        except ValueError:
            return "points outside the site"
        if target.is_dir():
            return "names a folder: opened from disk, it shows a directory listing"
        if not target.is_file():
            return f"no such file: {target.relative_to(self.root).as_posix()}"
        if target.suffix == ".ipynb" and target.with_suffix(".html").is_file():
            # Right inside Jupyter, but on the site it opens the notebook's JSON.
            return f"links the notebook file, not its page {target.stem}.html"
        anchor = unquote(parts.fragment)
        if parts.fragment and anchor not in IMPLICIT_ANCHORS:
            if target.suffix != ".html":
                return f"#{anchor} on a file that is not a page"
            if anchor not in self.page(target).anchors:
                name = target.relative_to(self.root).as_posix()
                return f"no element with id {anchor!r} on {name}"
        return None

    def problems(self) -> Iterator[str]:
        """One line for each broken link of the site: ``page: tag.attribute url: why``."""
        for path in self.html_files():
            for where, url in self.page(path).urls:
                why = self.problem(path, url)
                if why is not None:
                    yield f"{path.relative_to(self.root).as_posix()}: {where} {url!r}: {why}"
        yield from self.search_problems()

    def search_problems(self) -> Iterator[str]:
        """Broken locations in the search index (what clicking a search result opens)."""
        index = self.root / "search" / "search_index.json"
        if not index.is_file():
            return
        docs = json.loads(index.read_text(encoding="utf-8")).get("docs", [])
        # Locations are relative to the site's root: resolve them from index.html.
        home = self.root / "index.html"
        for doc in docs:
            location = str(doc.get("location", ""))
            why = self.problem(home, location or "index.html")
            if why is not None:
                yield f"search/search_index.json: location {location!r}: {why}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", nargs="?", type=Path, default=Path("site"))
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        print(f"check_site_links: {args.site}/index.html is missing: run `make docs` first")
        return 2
    site = Site(args.site)
    problems = list(site.problems())
    for line in problems:
        print(line)
    pages = len(site.html_files())
    if problems:
        print(f"check_site_links: {len(problems)} broken links in {pages} pages of {args.site}")
        return 1
    print(f"check_site_links: every internal link of the {pages} pages in {args.site} works")
    return 0


if __name__ == "__main__":
    sys.exit(main())
