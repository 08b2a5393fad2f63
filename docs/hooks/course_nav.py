"""MkDocs hook: publish the course notebooks and list them under "Course".

The notebooks live in ``notebooks/`` at the repository root, numbered ``01_...ipynb``,
``02_...``. This hook adds each one to the site as ``notebooks/<name>.ipynb`` (rendered
by mkdocs-jupyter from its stored outputs) and lists them in file-name order, titled by
each notebook's first Markdown heading, after the overview page ``course.md``, whose
``<!-- course: notebooks -->`` marker becomes a linked list of the notebooks. New or
renamed notebooks need no edit of ``mkdocs.yml`` or the docs, and no symlink is needed
(symlinks break on some Windows clones).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

COURSE = "Course"
OVERVIEW = "course.md"
LIST_MARKER = "<!-- course: notebooks -->"


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


@event_priority(100)  # before mkdocs-jupyter's on_files, which turns them into pages
def on_files(files: Files, config: Any) -> Files:
    """Add every ``notebooks/*.ipynb`` to the site's files."""
    root = notebooks_dir(config).parent
    for path in notebook_paths(config):
        files.append(
            File(
                f"notebooks/{path.name}",
                src_dir=str(root),
                dest_dir=config["site_dir"],
                use_directory_urls=config["use_directory_urls"],
            )
        )
    return files
