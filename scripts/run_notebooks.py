"""Build the course notebooks from their Python sources and execute them in place.

The notebooks are written as plain Python files in ``notebooks/src/`` (the "percent"
format: ``# %%`` starts a code cell, ``# %% [markdown]`` a Markdown cell whose lines are
``#``-comments, and ``# %% tags=["a", "b"]`` gives a cell tags). Text files diff and
review well; this script turns each into ``notebooks/<name>.ipynb`` and runs it with
nbclient, so the committed notebooks carry fresh outputs that nbval then checks.

Usage::

    python scripts/run_notebooks.py                 # build + execute every notebook
    python scripts/run_notebooks.py 03 05           # only notebooks whose name starts so
    python scripts/run_notebooks.py --no-build      # execute the .ipynb files as they are
    python scripts/run_notebooks.py --build-only    # convert without executing

Cells whose source contains ``### BEGIN SOLUTION`` get nbgrader "solution" metadata and
cells tagged ``check`` become nbgrader autograded tests, so ``nbgrader generate_assignment``
works on these notebooks as well as ``scripts/make_student.py`` does.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
SOURCES = NOTEBOOKS / "src"
# What JupyterLab 4 writes when it saves a notebook: storing the same means opening one
# does not mark it modified.
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
#: The stored graph pictures come from one pinned renderer (the graphviz-pure wheel), so
#: they are byte-identical on every machine; the kernels inherit this environment.
RENDERER_ENV = {"MINITORCH_VIZ_RENDERER": "graphviz-pure"}
_HEADER = re.compile(r"^# %%(?P<md> \[markdown\])?(?: tags=(?P<tags>\[.*\]))?\s*$")


def _markdown_line(line: str) -> str:
    if line.startswith("# "):
        return line[2:]
    return line[1:] if line.startswith("#") else line


def parse_cells(text: str) -> list[tuple[str, list[str], str]]:
    """Split percent-format text into ``(cell_type, tags, source)`` triples."""
    cells: list[tuple[str, list[str], list[str]]] = []
    for line in text.splitlines():
        match = _HEADER.match(line)
        if match:
            kind = "markdown" if match["md"] else "code"
            cells.append((kind, json.loads(match["tags"]) if match["tags"] else [], []))
        elif cells:
            cells[-1][2].append(_markdown_line(line) if cells[-1][0] == "markdown" else line)
    return [(kind, tags, "\n".join(lines).strip("\n")) for kind, tags, lines in cells]


def _nbgrader_metadata(source: str, tags: list[str], grade_id: str) -> dict | None:
    base = {"grade_id": grade_id, "schema_version": 3, "task": False}
    if "### BEGIN SOLUTION" in source:
        return {**base, "solution": True, "grade": False, "locked": False}
    if "check" in tags:
        return {**base, "solution": False, "grade": True, "locked": True, "points": 1}
    return None


def exercises(nb: nbformat.NotebookNode) -> list[tuple[int, int]]:
    """The exercises of a notebook as ``(solution cell, check cell)`` index pairs, in order.

    An exercise is a code cell holding ``### BEGIN SOLUTION``; its check is the next code
    cell tagged ``check``. nbgrader grades each check cell on its own (1 point).

    Raises:
        ValueError: if an exercise has no check cell before the next exercise.
    """
    pairs: list[tuple[int, int]] = []
    cells = nb.cells
    for i, cell in enumerate(cells):
        if cell.cell_type != "code" or "### BEGIN SOLUTION" not in cell.source:
            continue
        check = next(
            (
                j
                for j in range(i + 1, len(cells))
                if cells[j].cell_type == "code"
                and (
                    "check" in cells[j].metadata.get("tags", [])
                    or "### BEGIN SOLUTION" in cells[j].source
                )
            ),
            None,
        )
        if check is None or "### BEGIN SOLUTION" in cells[check].source:
            raise ValueError(f"exercise in cell {i} has no check cell after it")
        pairs.append((i, check))
    return pairs


def build_notebook(source: Path) -> nbformat.NotebookNode:
    """Convert one percent-format file into a notebook (no outputs yet)."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = {"name": "python"}
    for i, (kind, tags, text) in enumerate(parse_cells(source.read_text())):
        cell_id = f"{source.stem[:2]}-{i:03d}"
        if kind == "markdown":
            cell = nbformat.v4.new_markdown_cell(text, id=cell_id)
        else:
            cell = nbformat.v4.new_code_cell(text, id=cell_id)
            grading = _nbgrader_metadata(text, tags, cell_id)
            if grading:
                cell.metadata["nbgrader"] = grading
        if tags:
            cell.metadata["tags"] = tags
        nb.cells.append(cell)
    name_grade_ids(nb, source.stem[:2])
    return nb


def name_grade_ids(nb: nbformat.NotebookNode, number: str) -> None:
    """Give nbgrader's cells readable grade ids: ``nb06_ex4`` (the check) and
    ``nb06_ex4_answer`` (the solution cell), so a gradebook row reads as "06 Ex4".

    A cell with nbgrader metadata outside an exercise keeps its cell id.
    """
    for k, (solution, check) in enumerate(exercises(nb), start=1):
        nb.cells[solution].metadata["nbgrader"]["grade_id"] = f"nb{number}_ex{k}_answer"
        nb.cells[check].metadata["nbgrader"]["grade_id"] = f"nb{number}_ex{k}"


def execute(nb: nbformat.NotebookNode, workdir: Path, timeout: int = 300) -> None:
    """Run every cell of ``nb`` in a fresh ``python3`` kernel started in ``workdir``."""
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(workdir)}},
        record_timing=False,
        # No widget state in the stored notebook: without it, exported HTML and the docs
        # fall back to each widget's stored picture (image/png) instead of loading the
        # widget manager from a CDN, and no random model ids land in the metadata.
        store_widget_state=False,
    )
    client.execute()
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = coalesce_streams(cell.outputs)


def coalesce_streams(outputs: list) -> list:
    """Join consecutive stdout (or stderr) chunks, which arrive split at random points."""
    merged: list = []
    for output in outputs:
        last = merged[-1] if merged else None
        if (
            last is not None
            and output.get("output_type") == "stream"
            and last.get("output_type") == "stream"
            and last.get("name") == output.get("name")
        ):
            last["text"] += output["text"]
        else:
            merged.append(output)
    return merged


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("prefixes", nargs="*", help="only notebooks whose name starts so")
    parser.add_argument("--no-build", action="store_true", help="do not convert notebooks/src")
    parser.add_argument("--build-only", action="store_true", help="convert, do not execute")
    args = parser.parse_args(argv)

    def wanted(name: str) -> bool:
        return not args.prefixes or any(name.startswith(p) for p in args.prefixes)

    if not args.no_build:
        for source in sorted(SOURCES.glob("[0-9]*.py")):
            if wanted(source.stem):
                nbformat.write(build_notebook(source), NOTEBOOKS / f"{source.stem}.ipynb")
    if args.build_only:
        return 0
    os.environ.update(RENDERER_ENV)
    total = 0.0
    for path in sorted(NOTEBOOKS.glob("[0-9]*.ipynb")):
        if not wanted(path.stem):
            continue
        nb = nbformat.read(path, as_version=4)
        start = time.perf_counter()
        execute(nb, NOTEBOOKS)
        seconds = time.perf_counter() - start
        total += seconds
        nbformat.write(nb, path)
        print(f"{path.name:45s} {seconds:6.1f} s", flush=True)
    print(f"{'total':45s} {total:6.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
