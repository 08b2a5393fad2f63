"""The built site as a reader meets it from disk: links, answers, tables of contents.

* Every internal link, ``#anchor``, image and search result of ``site/`` resolves in the
  ``file://`` layout (``scripts/check_site_links.py``, which ``make docs`` also runs), and
  the checker itself catches each kind of broken link.
* No file of the site gives an exercise away: the notebook pages are the student versions
  (stubs, no hidden tests), and only the teaching cells keep their stored outputs.
* The table of contents of every notebook page names its headings in full and points at
  their ids.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))
MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "HIDDEN TESTS")


def load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def links() -> ModuleType:
    return load(ROOT / "scripts" / "check_site_links.py", "check_site_links")


@pytest.fixture(scope="module")
def course_nav() -> ModuleType:
    return load(ROOT / "docs" / "hooks" / "course_nav.py", "course_nav_hook")


# -- the link checker ----------------------------------------------------------------------


def test_every_internal_link_of_the_site_works_from_disk(
    site_dir: Path, links: ModuleType
) -> None:
    site = links.Site(site_dir)
    assert len(site.html_files()) > 10
    problems = list(site.problems())
    assert not problems, "\n".join(problems)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_link_checker_reports_each_kind_of_broken_link(tmp_path: Path, links: ModuleType) -> None:
    """A small site with one good and one broken link of every kind the checker knows."""
    write(
        tmp_path / "index.html",
        """<html><body id="body"><h1 id="intro">Hi</h1>
        <a href="a/page.html#sec">good: page and anchor</a>
        <a href="#intro">good: anchor here</a> <a href="#">good: top</a>
        <a href="https://example.org/x">good: external</a> <img src="img/ok.png">
        <a href="a/page.html#nowhere">bad anchor</a>
        <a href="a/">bad: a folder</a>
        <a href="missing.html">bad: no file</a>
        <a href="/a/page.html">bad: absolute</a>
        <img src="img/missing.png">
        <a href="a/nb.ipynb">bad: the notebook file</a>
        </body></html>""",
    )
    write(tmp_path / "a" / "page.html", '<h2 id="sec">S</h2><a href="../index.html#body">up</a>')
    write(tmp_path / "a" / "nb.html", "<p>notebook page</p>")
    write(tmp_path / "a" / "nb.ipynb", "{}")
    write(tmp_path / "img" / "ok.png", "")
    write(tmp_path / "404.html", '<a href="/index.html">server-only page</a>')
    index = {"docs": [{"location": "a/page.html#sec"}, {"location": "a/page.html#gone"}]}
    write(tmp_path / "search" / "search_index.json", json.dumps(index))

    problems = list(links.Site(tmp_path).problems())
    reported = "\n".join(problems)
    for bad in [
        "'a/page.html#nowhere': no element with id 'nowhere'",
        "'a/': names a folder",
        "'missing.html': no such file",
        "'/a/page.html': absolute path",
        "'img/missing.png': no such file",
        "'a/nb.ipynb': links the notebook file, not its page nb.html",
        "location 'a/page.html#gone': no element with id 'gone'",
    ]:
        assert bad in reported, f"not reported: {bad}\n{reported}"
    assert len(problems) == 7, reported
    assert links.main([str(tmp_path)]) == 1


def test_link_checker_needs_a_built_site(tmp_path: Path, links: ModuleType) -> None:
    assert links.main([str(tmp_path)]) == 2


# -- no answers on the site ----------------------------------------------------------------


def site_texts(site_dir: Path) -> dict[str, str]:
    """Every text file of the site that a reader can open or a search can show."""
    return {
        path.relative_to(site_dir).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(site_dir.rglob("*"))
        if path.suffix in {".html", ".ipynb", ".json", ".js", ".txt", ".xml"}
    }


def test_no_page_gives_an_exercise_away(site_dir: Path) -> None:
    """No file of the site, the search index and the teachers' page included, holds a marker.

    The guide that spells the markers out is notebooks/README.md, kept off the site.
    """
    teacher = "".join(path.read_text(encoding="utf-8") for path in NOTEBOOKS)
    if not all(marker in teacher for marker in MARKERS):
        pytest.skip("the notebooks have no solutions or hidden tests to strip")
    leaks = [
        f"{name}: {marker}"
        for name, text in site_texts(site_dir).items()
        for marker in MARKERS
        if marker in text
    ]
    assert not leaks, leaks


def test_notebook_pages_show_the_stubs(site_dir: Path) -> None:
    for notebook in NOTEBOOKS:
        solutions = notebook.read_text(encoding="utf-8").count("### BEGIN SOLUTION")
        page = (site_dir / "notebooks" / f"{notebook.stem}.html").read_text("utf-8")
        stubs = page.count("NotImplementedError")
        assert stubs >= solutions, f"{notebook.name}: {solutions} solutions, {stubs} stubs"
        download = (site_dir / "notebooks" / notebook.name).read_text("utf-8")
        assert "### BEGIN SOLUTION" not in download


def cell(source: str, outputs: list[str], tags: tuple[str, ...] = ()) -> nbformat.NotebookNode:
    """A code cell with stream outputs."""
    node = nbformat.v4.new_code_cell(source, metadata={"tags": list(tags)} if tags else {})
    node.outputs = [nbformat.v4.new_output("stream", name="stdout", text=t) for t in outputs]
    node.execution_count = 1
    return node


def test_site_copy_keeps_only_the_teaching_outputs(course_nav: ModuleType) -> None:
    teacher = nbformat.v4.new_notebook()
    teacher.cells = [
        nbformat.v4.new_markdown_cell("# Title"),
        cell("print(2 + 2)", ["4\n"]),
        cell(
            "def f(x):\n    ### BEGIN SOLUTION\n    return 42\n    ### END SOLUTION\nf(1)", ["42"]
        ),
        cell("assert f(1) == 42\nprint('✓ f works')", ["✓ f works\n"], tags=("check",)),
        cell("### BEGIN HIDDEN TESTS\nassert f(2) == 42\n### END HIDDEN TESTS\nok()", ["✓"]),
    ]
    site = course_nav.site_notebook(teacher, ROOT)
    teaching, solution, check, hidden = site.cells[1:]
    assert teaching.outputs[0]["text"] == "4\n" and teaching.execution_count == 1
    assert "return 42" not in solution.source and "NotImplementedError" in solution.source
    assert solution.outputs == [] and solution.execution_count is None
    assert check.source == teacher.cells[3].source and check.outputs == []
    assert "f(2)" not in hidden.source and hidden.outputs == []
    assert teacher.cells[2].outputs, "the teacher notebook was modified"


def test_site_copies_are_rewritten_only_when_they_change(
    tmp_path: Path, course_nav: ModuleType
) -> None:
    notebook = tmp_path / "01_x.ipynb"
    teacher = nbformat.v4.new_notebook()
    teacher.cells = [cell("print(1)", ["1\n"])]
    nbformat.write(teacher, notebook)
    copy = course_nav.write_site_copy(notebook, tmp_path / "out", ROOT)
    first = copy.stat().st_mtime_ns
    assert course_nav.write_site_copy(notebook, tmp_path / "out", ROOT).stat().st_mtime_ns == first
    teacher.cells.append(cell("print(2)", ["2\n"]))
    nbformat.write(teacher, notebook)
    course_nav.write_site_copy(notebook, tmp_path / "out", ROOT)
    assert "print(2)" in copy.read_text(encoding="utf-8")


# -- tables of contents of the notebook pages ----------------------------------------------


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.stem[:2] for p in NOTEBOOKS])
def test_notebook_toc_names_every_heading_in_full(site_dir: Path, notebook: Path) -> None:
    bs4 = pytest.importorskip("bs4")
    soup = bs4.BeautifulSoup(
        (site_dir / "notebooks" / f"{notebook.stem}.html").read_text("utf-8"), "html.parser"
    )
    article = soup.select_one("article")
    headings = {}
    for heading in article.find_all(["h2", "h3", "h4", "h5", "h6"]):
        for link in heading.select("a.anchor-link, a.headerlink"):
            link.decompose()
        headings[heading["id"]] = " ".join(heading.get_text().split())
    toc = soup.select("nav.md-nav--secondary a.md-nav__link")
    entries = {a["href"].lstrip("#"): " ".join(a.get_text().split()) for a in toc}
    assert headings, f"{notebook.name} has no sections"
    assert entries == headings


# -- links between notebooks and pages -----------------------------------------------------


def test_notebook_links_point_at_pages(tmp_path: Path) -> None:
    """``NN.ipynb`` and ``../docs/page.md`` (right in a clone) become links to site pages."""
    files_module = pytest.importorskip("mkdocs.structure.files")
    jupyter = pytest.importorskip("mkdocs_jupyter.plugin")
    hook = load(ROOT / "docs" / "hooks" / "notebook_pages.py", "notebook_pages_hook")
    site = str(tmp_path / "site")

    def file(path: str) -> object:
        plain = files_module.File(path, str(tmp_path), site, False)
        # What mkdocs-jupyter makes of a notebook: a page at NN.html.
        return jupyter.NotebookFile(plain, use_directory_urls=False, site_dir=site)

    files = files_module.Files(
        [
            file("notebooks/01_a.ipynb"),
            file("notebooks/02_b.ipynb"),
            files_module.File("concepts/x.md", str(tmp_path), site, False),
        ]
    )
    page = type("Page", (), {"file": files.get_file_from_path("notebooks/01_a.ipynb")})()
    assert hook.page_link("02_b.ipynb", page, files) == "02_b.html"
    assert hook.page_link("02_b.ipynb#goals", page, files) == "02_b.html#goals"
    assert hook.page_link("../docs/concepts/x.md", page, files) == "../concepts/x.html"
    for unchanged in ["03_missing.ipynb", "#here", "https://example.org/a.ipynb", "data.csv"]:
        assert hook.page_link(unchanged, page, files) is None


def test_search_quotes_notebooks_without_their_prompts(site_dir: Path) -> None:
    index = json.loads((site_dir / "search" / "search_index.json").read_text("utf-8"))
    notebook_docs = [d for d in index["docs"] if d["location"].startswith("notebooks/")]
    assert notebook_docs, "the notebooks are not in the search index"
    noisy = [d["location"] for d in notebook_docs if "Copied!" in d["text"] or "In [" in d["text"]]
    assert not noisy, noisy
