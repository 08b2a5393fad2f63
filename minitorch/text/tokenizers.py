"""Tokenizers: characters, and byte-level byte-pair encoding (BPE).

A language model reads integers. :class:`CharTokenizer` gives each distinct character of
a text its own id: tiny vocabularies, long sequences. :class:`BPETokenizer` starts from
the 256 byte values of UTF-8 (so every string can be written, whatever its alphabet)
and learns *merges*: the most frequent adjacent pair of tokens becomes a new token,
again and again, until the vocabulary has the size asked for (Sennrich et al. 2016;
byte-level as GPT-2, Radford et al. 2019). Encoding applies the merges in the order they
were learned; decoding concatenates each token's bytes.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

# Split a text into chunks that merges may not cross: a word with the space before it,
# or a run of whitespace (GPT-2's pre-tokenisation, simplified). Every character is in
# exactly one chunk, so the chunks join back to the text.
_CHUNK = re.compile(r" ?\S+|\s+")
_FORMAT = "minitorch-byte-bpe"


class CharTokenizer:
    """One id per distinct character of a training text, in sorted order.

    Args:
        text: the text whose characters form the vocabulary.

    Attributes:
        chars: the vocabulary, ``chars[i]`` is the character of id ``i``.

    Raises:
        ValueError: if ``text`` is empty; at ``encode``, for a character not in the
            vocabulary (the message names it).

    Example:
        >>> tok = CharTokenizer("hello")
        >>> tok.vocab_size, tok.encode("hell"), tok.decode([1, 0, 2])
        (4, [1, 0, 2, 2], 'hel')
    """

    def __init__(self, text: str) -> None:
        if not text:
            raise ValueError("CharTokenizer: the text is empty; it defines the vocabulary")
        self.chars = sorted(set(text))
        self._ids = {c: i for i, c in enumerate(self.chars)}

    @property
    def vocab_size(self) -> int:
        """The number of distinct characters."""
        return len(self.chars)

    def encode(self, text: str) -> list[int]:
        """The ids of ``text``'s characters."""
        try:
            return [self._ids[c] for c in text]
        except KeyError as error:
            raise ValueError(
                f"CharTokenizer.encode: character {error.args[0]!r} is not in the vocabulary "
                f"of {self.vocab_size} characters"
            ) from None

    def decode(self, ids: Iterable[int]) -> str:
        """The text of ``ids``."""
        return "".join(self.chars[int(i)] for i in ids)

    def __repr__(self) -> str:
        return f"CharTokenizer(vocab_size={self.vocab_size})"


class BPETokenizer:
    """Byte-level byte-pair encoding; build one with :meth:`train` or :meth:`load`.

    Ids ``0..255`` are the bytes; id ``256 + r`` is the ``r``-th merge, ``merges[r] =
    (a, b)``: the token whose bytes are ``a``'s followed by ``b``'s.

    Args:
        merges: the merges, in the order they were learned.

    Attributes:
        merges: a list of ``(a, b)`` id pairs.

    Raises:
        ValueError: if a merge names an id that does not exist yet.

    Example:
        >>> tok = BPETokenizer.train("low lower lowest", vocab_size=259)
        >>> tok.merges
        [(108, 111), (256, 119), (32, 257)]
        >>> tok.decode(tok.encode("lowly ünïcode")) == "lowly ünïcode"
        True

    References:
        R. Sennrich, B. Haddow and A. Birch, "Neural Machine Translation of Rare Words with
        Subword Units", ACL 2016; A. Radford et al., "Language Models are Unsupervised
        Multitask Learners", 2019 (byte-level BPE).
    """

    def __init__(self, merges: Sequence[tuple[int, int]] = ()) -> None:
        self.merges: list[tuple[int, int]] = []
        self._bytes = [bytes([b]) for b in range(256)]
        for a, b in merges:
            if not (0 <= a < len(self._bytes) and 0 <= b < len(self._bytes)):
                raise ValueError(
                    f"BPETokenizer: merge {len(self.merges)} ({a}, {b}) names an id that does "
                    f"not exist yet (ids so far: 0..{len(self._bytes) - 1})"
                )
            self.merges.append((int(a), int(b)))
            self._bytes.append(self._bytes[a] + self._bytes[b])
        self._ranks = {pair: rank for rank, pair in enumerate(self.merges)}
        self._cache: dict[str, list[int]] = {}

    @classmethod
    def train(cls, text: str, vocab_size: int) -> BPETokenizer:
        """Learn ``vocab_size - 256`` merges from ``text``.

        Each round counts the adjacent pairs in every chunk (weighted by how often the
        chunk occurs), merges the most frequent pair everywhere (ties: the smaller pair),
        and stops early when no pair occurs twice.

        Args:
            text: the training text.
            vocab_size: the vocabulary wanted, ``>= 256``.

        Returns:
            The tokenizer.

        Raises:
            ValueError: if ``vocab_size < 256``.
        """
        if vocab_size < 256:
            raise ValueError(f"BPETokenizer.train: vocab_size must be >= 256, got {vocab_size}")
        chunks = Counter(_CHUNK.findall(text))
        words = {tuple(_utf8(chunk)): count for chunk, count in chunks.items()}
        merges: list[tuple[int, int]] = []
        while 256 + len(merges) < vocab_size:
            pairs: Counter[tuple[int, int]] = Counter()
            for word, count in words.items():
                for pair in zip(word, word[1:]):
                    pairs[pair] += count
            if not pairs:
                break
            best = min(pairs, key=lambda p: (-pairs[p], p))
            if pairs[best] < 2:
                break
            merges.append(best)
            words = {_merge(word, best, 255 + len(merges)): c for word, c in words.items()}
        return cls(merges)

    @property
    def vocab_size(self) -> int:
        """256 byte tokens plus one per merge."""
        return len(self._bytes)

    def token_bytes(self, token: int) -> bytes:
        """The bytes a token stands for (``token_bytes(104) == b"h"``)."""
        return self._bytes[token]

    def encode(self, text: str) -> list[int]:
        """The ids of ``text``: its UTF-8 bytes, merged in the order the merges were learned."""
        ids: list[int] = []
        for chunk in _CHUNK.findall(text):
            cached = self._cache.get(chunk)
            if cached is None:
                cached = self._cache[chunk] = self._encode_chunk(chunk)
            ids += cached
        return ids

    def _encode_chunk(self, chunk: str) -> list[int]:
        word = tuple(_utf8(chunk))
        while len(word) > 1:
            pair = min(zip(word, word[1:]), key=lambda p: self._ranks.get(p, len(self._ranks)))
            rank = self._ranks.get(pair)
            if rank is None:
                break
            word = _merge(word, pair, 256 + rank)
        return list(word)

    def decode(self, ids: Iterable[int], errors: str = "replace") -> str:
        """The text of ``ids``: exact for ids from :meth:`encode`.

        Args:
            ids: token ids.
            errors: what to do with bytes that are no UTF-8 (a sampled sequence may cut a
                character in two): ``"replace"`` (U+FFFD) or ``"strict"`` (raise).

        Returns:
            The text.
        """
        data = b"".join(self._bytes[int(i)] for i in ids)
        try:
            return data.decode("utf-8", errors="surrogatepass")
        except UnicodeDecodeError:
            return data.decode("utf-8", errors=errors)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the merges as a plain JSON file (``{"format", "merges"}``)."""
        payload = {"format": _FORMAT, "vocab_size": self.vocab_size, "merges": self.merges}
        Path(path).write_text(json.dumps(payload), encoding="utf-8")

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> BPETokenizer:
        """Read a file written by :meth:`save`.

        Raises:
            ValueError: if the file is not a minitorch BPE file.
        """
        payload = json.loads(Path(path).read_text(encoding="utf-8"))
        if not isinstance(payload, dict) or payload.get("format") != _FORMAT:
            raise ValueError(f"BPETokenizer.load: {path} is not a {_FORMAT} JSON file")
        return cls([tuple(pair) for pair in payload["merges"]])

    def __repr__(self) -> str:
        return f"BPETokenizer(vocab_size={self.vocab_size})"


def _utf8(text: str) -> bytes:
    # surrogatepass: a lone surrogate ("\ud800", legal in a Python str) round-trips too.
    return text.encode("utf-8", errors="surrogatepass")


def _merge(word: tuple[int, ...], pair: tuple[int, int], new: int) -> tuple[int, ...]:
    """``word`` with every non-overlapping occurrence of ``pair`` (left to right) replaced."""
    out: list[int] = []
    i = 0
    while i < len(word):
        if i + 1 < len(word) and word[i] == pair[0] and word[i + 1] == pair[1]:
            out.append(new)
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)
