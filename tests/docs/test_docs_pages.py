"""The hand-written pages under docs/ stay true to the code.

Every fenced block on a page is checked, in page order, in one namespace per page:

* ```` ```pycon ```` blocks run as doctests: the output shown must be the output printed;
* ```` ```python ```` blocks run and must not raise;
* ```` ```py title="path" ```` blocks are excerpts of a source file: their lines must
  appear in that file, in the same order;
* other languages (``bash``, ``text``, ``dot``) are not run.
"""

from __future__ import annotations

import ast
import contextlib
import doctest
import importlib.util
import io
import re
import textwrap
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
# Pages written by other people, in their own conventions (their snippets are excerpts).
OTHERS = {"performance.md", "for-teachers.md", "when-things-go-wrong.md"}
PAGES = sorted(p for p in DOCS.rglob("*.md") if "hooks" not in p.parts and p.name not in OTHERS)
# A fenced block, possibly indented (inside a list item); it closes at the same indent.
FENCE = re.compile(
    r"^(?P<indent>[ \t]*)```(?P<info>[^\n]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def blocks(page: Path) -> list[tuple[str, str, int]]:
    """``(info string, body, first line number)`` of every fenced block on the page."""
    text = page.read_text(encoding="utf-8")
    return [
        (m["info"].strip(), textwrap.dedent(m["body"]), text.count("\n", 0, m.start("body")) + 1)
        for m in FENCE.finditer(text)
    ]


def run_pycon(body: str, namespace: dict[str, Any], name: str, lineno: int) -> None:
    test = doctest.DocTestParser().get_doctest(body, namespace, name, name, lineno)
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test, out=out.write, clear_globs=False)
    namespace.update(test.globs)
    assert runner.failures == 0, out.getvalue()


def missing_modules(body: str) -> list[str]:
    """The top-level modules a block imports that are not installed here."""
    names = set()
    for node in ast.walk(ast.parse(body)):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return sorted(n for n in names if importlib.util.find_spec(n) is None)


def check_excerpt(info: str, body: str, name: str) -> None:
    match = re.search(r'title="([^"]+)"', info)
    assert match, f'{name}: a ```py excerpt needs title="path/of/the/file.py"'
    source = [line.strip() for line in (ROOT / match[1]).read_text().splitlines()]
    position = 0
    for line in (line.strip() for line in body.splitlines()):
        if not line or line == "...":
            continue
        assert line in source[position:], f"{name}: {line!r} is not in {match[1]} (in order)"
        position = source.index(line, position) + 1


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(DOCS)) for p in PAGES])
def test_page_code_is_true(page: Path) -> None:
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    for info, body, lineno in blocks(page):
        name = f"{page.relative_to(ROOT)}:{lineno}"
        language = info.split()[0] if info else ""
        if language == "pycon":
            run_pycon(body, namespace, name, lineno)
        elif language == "python":
            if missing_modules(body):  # a PyTorch interop example where torch is absent
                continue  # (make test without CI=true installs no torch: the cross-checks skip)
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(body, name, "exec"), namespace)  # noqa: S102 (our own docs)
        elif language == "py":
            check_excerpt(info, body, name)


def test_concept_pages_are_in_the_nav() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in (
        "concepts/backward.md",
        "concepts/no-circular-imports.md",
        "concepts/writing-a-function.md",
        "concepts/visualising-graphs.md",
        "course.md",
        "for-teachers.md",
        "performance.md",
        "when-things-go-wrong.md",
    ):
        assert f": {page}" in config, f"{page} is not in the nav of mkdocs.yml"
        assert (DOCS / page).exists(), f"docs/{page} is missing"


def test_readme_links_the_docs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make docs" in readme
    assert "(docs/index.md)" in readme


# The pictures on "Visualising graphs" and the commands that made them (the page shows them).
PICTURES = {
    "graph-grads.svg": ["tanh(x) * y + x**2", "--var", "x=1.0", "--var", "y=2.0", "--grads"],
    "tanh-second-derivative.svg": ["tanh(x)", "--var", "x=1.0", "--order", "2"],
}


@pytest.mark.parametrize("picture", list(PICTURES))
def test_pictures_show_what_the_cli_draws_now(picture: str, tmp_path: Path) -> None:
    """Every node of the graph the command draws today is labelled in the committed SVG."""
    cli = pytest.importorskip("viz.cli")
    args = [*PICTURES[picture], "--legend", "-o", str(tmp_path / "graph.dot")]
    page = (DOCS / "concepts" / "visualising-graphs.md").read_text(encoding="utf-8")
    assert f"-o {picture}" in page, f"the page does not show the command for {picture}"
    with contextlib.redirect_stdout(io.StringIO()):
        assert cli.main(args) == 0
    dot_names = set(re.findall(r"<B>([^<]+)</B>", (tmp_path / "graph.dot").read_text()))
    svg = ElementTree.parse(DOCS / "assets" / picture)
    svg_texts = {t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")}
    assert dot_names and dot_names <= svg_texts, f"{picture} is out of date: regenerate it"
