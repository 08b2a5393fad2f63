"""Lay out nbgrader's course directory: one assignment per course notebook.

Writes ``build/course/source/<NN_name>/<NN_name>.ipynb`` for every ``notebooks/NN_*.ipynb``
(the teacher version, with nbgrader's cell metadata), and beside each the helper modules
the check cells import (``notebooks/*.py`` except nbval's ``conftest.py``). Then, from the
repository root (where ``nbgrader_config.py`` sets the course id, this root and the
exchange), ``nbgrader generate_assignment NN_name`` and the rest work as written in
docs/for-teachers.md.

Usage::

    python scripts/make_course.py [--root build/course] [NN ...]
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
NOT_FOR_STUDENTS = {"conftest.py"}  # nbval's hook for the test suite, not course material


def helper_modules(notebooks: Path = NOTEBOOKS) -> list[Path]:
    """The modules the notebooks import (``checks.py`` and friends), without conftest.py,
    and the small weights a notebook loads (``*.npz``: notebook 15's GPT)."""
    helpers = [*notebooks.glob("*.py"), *notebooks.glob("*.npz")]
    return [p for p in sorted(helpers) if p.name not in NOT_FOR_STUDENTS]


def make_course(
    root: Path, prefixes: list[str] | None = None, notebooks: Path = NOTEBOOKS
) -> list[str]:
    """Write the ``source/`` folder of an nbgrader course; return the assignment names."""
    names = []
    for path in sorted(notebooks.glob("[0-9]*.ipynb")):
        if prefixes and not any(path.stem.startswith(p) for p in prefixes):
            continue
        folder = root / "source" / path.stem
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, folder / path.name)
        for helper in helper_modules(notebooks):
            shutil.copy(helper, folder / helper.name)
        names.append(path.stem)
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("prefixes", nargs="*", help="only notebooks whose name starts so")
    parser.add_argument("--root", type=Path, default=ROOT / "build" / "course")
    args = parser.parse_args(argv)
    names = make_course(args.root, args.prefixes)
    print(f"{len(names)} assignments in {args.root / 'source'}: {', '.join(names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
