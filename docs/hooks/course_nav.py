"""MkDocs hook: publish the course notebooks and list them under "Course".

The notebooks live in ``notebooks/`` at the repository root, numbered ``01_...ipynb``,
``02_...``. This hook adds each one to the site as ``notebooks/<name>.ipynb`` (rendered
by mkdocs-jupyter from its stored outputs) and lists them in file-name order, titled by
each notebook's first Markdown heading. New or renamed notebooks need no edit of
``mkdocs.yml``, and no symlink is needed (symlinks break on some Windows clones).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

COURSE = "Course"


def notebooks_dir(config: Any) -> Path:
    """``notebooks/`` beside ``mkdocs.yml``."""
    return Path(config["config_file_path"]).resolve().parent / "notebooks"


def notebook_title(path: Path) -> str:
    """The text of the notebook's first ``# `` heading, else its file name."""
    cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
    for cell in cells:
        if cell.get("cell_type") != "markdown":
            continue
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else source
        for line in text.splitlines():
            if line.startswith("# "):
                # Nav titles are plain text: drop Markdown code marks (`sum_to` -> sum_to).
                return line[2:].replace("`", "").strip()
    return path.stem.replace("_", " ")


def notebook_paths(config: Any) -> list[Path]:
    """The course notebooks, sorted by file name (none if the folder is missing)."""
    folder = notebooks_dir(config)
    return sorted(folder.glob("*.ipynb")) if folder.is_dir() else []


def on_config(config: Any) -> Any:
    """Fill the empty "Course" section of the nav; drop it when there are no notebooks."""
    entries = [{notebook_title(p): f"notebooks/{p.name}"} for p in notebook_paths(config)]
    nav = config["nav"]
    for i, item in enumerate(nav):
        if isinstance(item, dict) and COURSE in item:
            if entries:
                nav[i] = {COURSE: entries}
            else:
                del nav[i]
            break
    return config


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
