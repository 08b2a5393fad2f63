"""MkDocs hook: make the links and the table of contents of the notebook pages work.

mkdocs-jupyter renders a notebook with nbconvert, outside MkDocs' Markdown pipeline, so
two things that MkDocs does for ``.md`` pages do not happen:

* **Links between notebooks.** A notebook links its successor as ``02_backpropagation.ipynb``,
  which is right inside Jupyter but, on the site, names the downloadable file and not
  the page. This hook points every link to a published ``.ipynb`` (or ``.md``, also as
  ``../docs/<page>.md``, its path in a clone) at that page, the way MkDocs resolves links
  in Markdown pages; the fragment is kept.
* **The table of contents.** mkdocs-jupyter builds it by running Python-Markdown over a
  Markdown export of the notebook. Python-Markdown's anchors differ from the ids that
  nbconvert gives the headings as soon as a heading holds inline code (```Parameter```
  becomes ``#and``), and their titles lose the code. This hook rebuilds the table of
  contents from the headings of the rendered page, so every entry names its heading's
  full text and points at its real id.

It also keeps the cells' prompts (``In [1]:``) and the copy buttons' "Copied!" out of
the search index (Material skips elements marked ``data-search-exclude``), so a search
result quotes the notebook, not its chrome.
"""

from __future__ import annotations

import html
import posixpath
from typing import Any
from urllib.parse import urlsplit

from bs4 import BeautifulSoup, Tag
from mkdocs.structure.toc import get_toc

HEADINGS = ["h1", "h2", "h3", "h4", "h5", "h6"]
# nbconvert's prompts and copy buttons: not content, so not searched.
NOT_SEARCHED = ".jp-InputPrompt, .jp-OutputPrompt, .zeroclipboard-container"
# nbconvert appends this pilcrow link to every heading; it is not part of the title.
ANCHOR_LINK_CLASS = "anchor-link"


def is_notebook_page(page: Any) -> bool:
    """Whether ``page`` was rendered from a notebook by mkdocs-jupyter."""
    return str(page.file.src_uri).endswith(".ipynb")


def page_link(href: str, page: Any, files: Any) -> str | None:
    """The site URL, relative to ``page``, of the page that ``href`` names (else None).

    Only relative links to a published ``.ipynb`` or ``.md`` file are rewritten; external
    links, anchors within the page and other files are left as they are.
    """
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or not parts.path.endswith((".ipynb", ".md")):
        return None
    here = posixpath.dirname(str(page.file.src_uri))
    path = posixpath.normpath(posixpath.join(here, parts.path))
    # In a clone, a notebook (notebooks/NN.ipynb) reaches a page of the docs as
    # ../docs/<page>.md, which resolves to docs/<page>.md here.
    if files.get_file_from_path(path) is None and path.startswith("docs/"):
        path = path.removeprefix("docs/")
    target = files.get_file_from_path(path)
    if target is None or not target.is_documentation_page():
        return None
    url = str(target.url_relative_to(page.file))
    return f"{url}#{parts.fragment}" if parts.fragment else url


def heading_title(heading: Tag) -> str:
    """The text of ``heading`` without nbconvert's anchor link."""
    copy = BeautifulSoup(str(heading), "html.parser")
    for link in copy.find_all("a", class_=ANCHOR_LINK_CLASS):
        link.decompose()
    return " ".join(copy.get_text().split())


def toc_tokens(soup: BeautifulSoup) -> list[dict[str, Any]]:
    """Nested table-of-contents tokens for the page's headings that have an id."""
    root: list[dict[str, Any]] = []
    stack: list[dict[str, Any]] = []
    for heading in soup.find_all(HEADINGS):
        if not heading.get("id"):
            continue
        # mkdocs' tokens are escaped HTML (the theme inserts the title as markup).
        token: dict[str, Any] = {
            "level": int(heading.name[1]),
            "id": str(heading["id"]),
            "name": html.escape(heading_title(heading), quote=False),
            "children": [],
        }
        while stack and stack[-1]["level"] >= token["level"]:
            stack.pop()
        (stack[-1]["children"] if stack else root).append(token)
        stack.append(token)
    return root


def on_page_content(content: str, page: Any, config: Any, files: Any) -> str:
    """Repoint the links and rebuild the table of contents of a notebook page."""
    if not is_notebook_page(page):
        return content
    soup = BeautifulSoup(content, "html.parser")
    for link in soup.find_all("a", href=True):
        url = page_link(str(link["href"]), page, files)
        if url is not None:
            link["href"] = url
    for element in soup.select(NOT_SEARCHED):
        element["data-search-exclude"] = ""
    page.toc = get_toc(toc_tokens(soup))  # type: ignore[arg-type]
    return str(soup)
