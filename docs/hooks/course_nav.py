"""MkDocs hook: publish the STUDENT versions of the course notebooks under "Course".

The notebooks live in ``notebooks/`` at the repository root, numbered ``01_...ipynb``,
``02_...``. They are the teacher versions: they hold the solutions and hidden tests. The
site must not give those away, so this hook writes a site copy of each notebook to
``build/site-notebooks/notebooks/`` and publishes that copy as ``notebooks/<name>.ipynb``
(rendered by mkdocs-jupyter; the page's download link serves the same copy). A site copy
is the student version that ``scripts/make_student.py`` makes (solutions replaced by
stubs, hidden tests removed), with the stored outputs of the teaching cells put back: a
cell keeps its outputs only if stripping left its source unchanged and it is not a check
cell (tag ``check``), since a solution's output or a passing check is an answer too.

The notebooks are listed in file-name order, titled by each notebook's first Markdown
heading, after the overview page ``course.md``, whose ``<!-- course: notebooks -->``
marker becomes a linked list of the notebooks. A new or renamed notebook needs no edit of
``mkdocs.yml`` or the docs, and no symlink is needed (symlinks break on some Windows
clones).
"""

from __future__ import annotations

import importlib.util
import json
import re
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import nbformat
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

COURSE = "Course"
OVERVIEW = "course.md"
LIST_MARKER = "<!-- course: notebooks -->"
# Where the site copies are written (git-ignored; not watched by `mkdocs serve`).
SITE_COPIES = Path("build") / "site-notebooks"
# Cells with this tag check an exercise: their stored output is the solution's verdict.
CHECK_TAG = "check"


def notebooks_dir(config: Any) -> Path:
    """``notebooks/`` beside ``mkdocs.yml``."""
    return Path(config["config_file_path"]).resolve().parent / "notebooks"


def first_markdown(path: Path) -> str:
    """The source of the notebook's first Markdown cell ('' if it has none)."""
    for cell in json.loads(path.read_text(encoding="utf-8")).get("cells", []):
        if cell.get("cell_type") == "markdown":
            source = cell.get("source", "")
            return "".join(source) if isinstance(source, list) else str(source)
    return ""


def notebook_title(path: Path) -> str:
    """The text of the notebook's first ``# `` heading, else its file name."""
    for line in first_markdown(path).splitlines():
        if line.startswith("# "):
            # Nav titles are plain text: drop Markdown code marks (`sum_to` -> sum_to).
            return line[2:].replace("`", "").strip()
    return path.stem.replace("_", " ")


def notebook_summary(path: Path) -> str:
    """The first sentence of the paragraph after the notebook's heading."""
    paragraphs = [p for p in first_markdown(path).split("\n\n") if p.strip()]
    text = next((p for p in paragraphs if not p.lstrip().startswith("#")), "")
    sentence = re.split(r"(?<=[.!?])\s", " ".join(text.split()), maxsplit=1)[0]
    return sentence


def course_list(config: Any) -> str:
    """A Markdown list linking every notebook, with its first sentence."""
    return "\n".join(
        f"- [{notebook_title(p)}](notebooks/{p.name}) — {notebook_summary(p)}"
        for p in notebook_paths(config)
    )


def notebook_paths(config: Any) -> list[Path]:
    """The course notebooks, sorted by file name (none if the folder is missing)."""
    folder = notebooks_dir(config)
    return sorted(folder.glob("*.ipynb")) if folder.is_dir() else []


def on_config(config: Any) -> Any:
    """Append the notebooks to the "Course" section of the nav (after the overview)."""
    entries = [{notebook_title(p): f"notebooks/{p.name}"} for p in notebook_paths(config)]
    for item in config["nav"]:
        if isinstance(item, dict) and COURSE in item:
            item[COURSE] = [*(item[COURSE] or []), *entries]
            break
    return config


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Put the list of notebooks into the course overview page."""
    if page.file.src_uri != OVERVIEW:
        return markdown
    return markdown.replace(LIST_MARKER, course_list(config) or "*No notebooks yet.*")


@cache
def make_student_module(root: Path) -> ModuleType:
    """``scripts/make_student.py`` (a script, not a package), imported from ``root``."""
    path = root / "scripts" / "make_student.py"
    spec = importlib.util.spec_from_file_location("minitorch_make_student", path)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(f"course_nav: cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def site_notebook(teacher: nbformat.NotebookNode, root: Path) -> nbformat.NotebookNode:
    """The student version of ``teacher`` with the outputs of its teaching cells.

    The student version comes from ``make_student.student_notebook`` (so the site strips
    exactly what ``make student`` strips). Its cells are matched to the teacher's by cell
    id, else by position.

    Raises:
        ValueError: if a student cell has no teacher cell to match (``make_student``
            added cells).
    """
    student = make_student_module(root).student_notebook(teacher)
    by_id = {cell.get("id"): cell for cell in teacher.cells if cell.get("id")}
    same_length = len(student.cells) == len(teacher.cells)
    for k, cell in enumerate(student.cells):
        if cell.cell_type != "code":
            continue
        original = by_id.get(cell.get("id")) or (teacher.cells[k] if same_length else None)
        if original is None:
            raise ValueError(f"course_nav: student cell {k} has no teacher cell")
        teaching = CHECK_TAG not in original.get("metadata", {}).get("tags", [])
        if teaching and cell.source == original.source:
            cell.outputs = original.get("outputs", [])
            cell.execution_count = original.get("execution_count")
    return student


def write_site_copy(path: Path, out_dir: Path, root: Path) -> Path:
    """Write the site copy of the notebook at ``path`` into ``out_dir``; return its path.

    The file is rewritten only when its text changes, so its modification time (and
    mkdocs-jupyter's cache, keyed on the content) stays put between builds.
    """
    text = nbformat.writes(site_notebook(nbformat.read(path, as_version=4), root))
    target = out_dir / path.name
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        out_dir.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return target


@event_priority(100)  # before mkdocs-jupyter's on_files, which turns them into pages
def on_files(files: Files, config: Any) -> Files:
    """Add the site copy of every ``notebooks/*.ipynb`` to the site's files."""
    root = notebooks_dir(config).parent
    copies = root / SITE_COPIES
    for path in notebook_paths(config):
        write_site_copy(path, copies / "notebooks", root)
        files.append(
            File(
                f"notebooks/{path.name}",
                src_dir=str(copies),
                dest_dir=config["site_dir"],
                use_directory_urls=config["use_directory_urls"],
            )
        )
    return files
