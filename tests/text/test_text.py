"""minitorch.text: the tokenizers round-trip every string; BPE merges, save and load; the
corpora (skipped where the ``text`` extra's packages are not installed)."""

from __future__ import annotations

import importlib.util
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minitorch.text import BPETokenizer, CharTokenizer, names, shakespeare, shakespeare_titles

# Every Python string: any code point, lone surrogates included (st.text leaves them out).
ANY_TEXT = st.text(st.characters(exclude_categories=()))
TRAINING = "the cat sat on the mat; the hat of the cat — naïve café ☕ 猫 " * 3


@pytest.fixture(scope="module")
def bpe() -> BPETokenizer:
    return BPETokenizer.train(TRAINING, vocab_size=300)


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT)
def test_bpe_decode_encode_is_the_identity(bpe, text) -> None:
    assert bpe.decode(bpe.encode(text)) == text


@settings(max_examples=100, deadline=None)
@given(ANY_TEXT)
def test_char_tokenizer_round_trips_its_own_text(text) -> None:
    if text:
        tok = CharTokenizer(text)
        assert tok.decode(tok.encode(text)) == text
        assert tok.vocab_size == len(set(text))


def test_bpe_learns_the_most_frequent_pair_first() -> None:
    tok = BPETokenizer.train("aaab aab ab", vocab_size=257)
    # pairs: (a, a) 3 times (2 in "aaab", 1 in "aab"), (a, b) 3 times, ( , a) twice: the
    # tie between (97, 97) and (97, 98) goes to the smaller pair
    assert tok.merges == [(97, 97)]
    assert tok.encode("aa") == [256] and tok.token_bytes(256) == b"aa"


def test_bpe_compresses_its_training_text(bpe) -> None:
    assert len(bpe.encode(TRAINING)) < len(TRAINING.encode("utf-8")) / 2
    assert bpe.vocab_size == 256 + len(bpe.merges) <= 300  # stops when no pair repeats


def test_bpe_stops_when_no_pair_repeats() -> None:
    assert BPETokenizer.train("abc", vocab_size=1000).vocab_size == 256


def test_bpe_save_and_load_as_plain_json(bpe, tmp_path) -> None:
    path = tmp_path / "bpe.json"
    bpe.save(path)
    payload = json.loads(path.read_text())
    assert payload["merges"][0] == list(bpe.merges[0])
    loaded = BPETokenizer.load(path)
    assert loaded.merges == bpe.merges and loaded.encode(TRAINING) == bpe.encode(TRAINING)


def test_bpe_load_refuses_another_json(tmp_path) -> None:
    path = tmp_path / "other.json"
    path.write_text('{"merges": []}')
    with pytest.raises(ValueError, match="not a minitorch-byte-bpe"):
        BPETokenizer.load(path)


def test_bpe_refuses_a_merge_of_unknown_ids() -> None:
    with pytest.raises(ValueError, match="does not exist yet"):
        BPETokenizer([(97, 300)])


def test_bpe_decode_of_a_cut_character_replaces_it(bpe) -> None:
    ids = bpe.encode("é")
    assert bpe.decode(ids[:1] if len(ids) > 1 else list("é".encode())[:1]) == "\ufffd"


def test_char_tokenizer_names_an_unknown_character() -> None:
    with pytest.raises(ValueError, match="'z' is not in the vocabulary"):
        CharTokenizer("abc").encode("abz")


def test_char_tokenizer_refuses_an_empty_text() -> None:
    with pytest.raises(ValueError, match="empty"):
        CharTokenizer("")


needs_names = pytest.mark.skipif(
    importlib.util.find_spec("names") is None, reason="the text extra (names) is not installed"
)


def test_shakespeare_has_38_plays_without_markdown() -> None:
    assert len(shakespeare_titles()) == 38
    text = shakespeare()
    assert len(text) == 4_956_642 and len(set(text)) == 81
    assert "**" not in text and "_" not in text and "\\" not in text and "\n#" not in text
    hamlet = shakespeare("hamlet")
    assert hamlet.startswith("Hamlet\n") and "To be, or not to be" in hamlet
    assert hamlet in text and hamlet.endswith("a peal of\nordnance is shot off")


def test_shakespeare_names_the_titles_for_an_unknown_play() -> None:
    with pytest.raises(ValueError, match="hamlet"):
        shakespeare("hamlet-2")


@needs_names
def test_names_lists_have_the_census_sizes() -> None:
    assert (len(names("female")), len(names("male")), len(names("last"))) == (4275, 1219, 88799)
    assert names("female")[0] == "mary" and names("male")[0] == "james"
    assert len(names()) == len(set(names())) and set(names("male")) <= set(names())
    with pytest.raises(ValueError, match="kind"):
        names("middle")


def test_missing_package_says_how_to_install(monkeypatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModuleNotFoundError, match=r"minitorch\[text\]"):
        names("female")
