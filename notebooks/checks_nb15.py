"""Checks for notebook 15 (language models: bigrams, an MLP, a small GPT, BPE, a KV cache).

Every reference is computed here with NumPy or plain Python; a wrong answer is compared
with the answers the typical mistakes give, and a match names the mistake.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from checks import CheckFailed, check_is_array, explain_errors
from checks_nb14 import diagnose

WORDS = ["emma", "ava", "ana", "bob"]


def _stoi(words: Sequence[str]) -> dict[str, int]:
    return {c: i for i, c in enumerate("." + "".join(sorted(set("".join(words)))))}


def _pairs(words, stoi, start=True, end=True, gap=1):
    for w in words:
        chars = ["."] * start + list(w) + ["."] * end
        for a, b in zip(chars, chars[gap:]):
            yield stoi[a], stoi[b]


def _counts(words, stoi, **kw) -> np.ndarray:
    n = np.zeros((len(stoi), len(stoi)), dtype=np.int64)
    for a, b in _pairs(words, stoi, **kw):
        n[a, b] += 1
    return n


# -- Exercise 1: bigram counts ----------------------------------------------------------------
def check_bigram_counts(bigram_counts: Callable[..., Any]) -> None:
    """Exercise 1: ``bigram_counts(words, stoi)``, ``N[a, b]`` = how often ``b`` follows ``a``."""
    stoi = _stoi(WORDS)
    with explain_errors(f"bigram_counts({WORDS}, stoi)", ("KeyError", "'.' is index 0 of stoi")):
        got = bigram_counts(list(WORDS), dict(stoi))
    check_is_array("bigram_counts(...)", got)
    expected = _counts(WORDS, stoi)
    self_pairs = np.zeros_like(expected)
    for w in WORDS:
        for c in w:
            self_pairs[stoi[c], stoi[c]] += 1
    mistakes = [
        ("the start and end token '.' are missing: each word is '.' + word + '.'",
         _counts(WORDS, stoi, start=False, end=False)),
        ("the start token is missing: the first letter follows '.'", _counts(WORDS, stoi, start=False)),
        ("the end token is missing: '.' follows the last letter", _counts(WORDS, stoi, end=False)),
        ("the counts are transposed: N[a, b] counts b following a (row = previous character)",
         expected.T),
        ("these are probabilities: the exercise asks for the counts",
         expected / np.maximum(expected.sum(1, keepdims=True), 1)),
        ("the counts are smoothed (+1): smoothing comes later, in the likelihood", expected + 1),
        ("it counts each character with itself: pair chars[i] with chars[i + 1]", self_pairs),
        ("it pairs characters two apart: zip(chars, chars[1:])", _counts(WORDS, stoi, gap=2)),
        ("the pairs run backwards (b, a): zip(chars, chars[1:]) gives (previous, next)",
         _counts([w[::-1] for w in WORDS], stoi)),
        ("a pair seen twice counts 1: add one for each occurrence, counts[a, b] += 1",
         (expected > 0).astype(expected.dtype)),
    ]
    diagnose("bigram_counts", got, expected, mistakes)


# -- Exercise 2: negative log-likelihood ----------------------------------------------------
def _nll(counts, words, stoi, smoothing=1.0, mean=True, log=np.log, sign=-1.0,
         after=False, end=True, per_word=False, normalise=True, axis=1):
    n = counts + (0 if after else smoothing)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = n / n.sum(axis=axis, keepdims=True) if normalise else n
    if after:
        p = p + smoothing
    with np.errstate(divide="ignore"):
        terms = [[log(p[a, b]) for a, b in _pairs([w], stoi, end=end)] for w in words]
    flat = [t for word in terms for t in word]
    if per_word:
        return sign * float(np.mean([np.sum(t) for t in terms]))
    return sign * float(np.mean(flat) if mean else np.sum(flat))


def check_nll(nll: Callable[..., Any]) -> None:
    """Exercise 2: ``nll(counts, words, stoi, smoothing)``, the mean NLL per predicted character.

    Twice: with the counts of the training words and smoothing 1, then with other counts
    (their rows and columns sum differently, which the counts of whole words never do) and
    smoothing 0.5.
    """
    stoi = _stoi(WORDS + ["zed"])
    test = ["emma", "zed", "ada"]
    other = np.random.default_rng(2).integers(0, 6, size=(len(stoi), len(stoi)))
    for counts, smoothing in ((_counts(WORDS, stoi), 1.0), (other, 0.5)):
        what = f"nll(counts, words, stoi, {smoothing})"
        with explain_errors(what):
            got = nll(counts.copy(), list(test), dict(stoi), smoothing)
        mistakes = [
            ("it is infinite: 'zed' has pairs never counted; add smoothing to the counts "
             "before normalising", _nll(counts, test, stoi, smoothing=0.0)),
            ("the counts are not normalised: p = smoothed / smoothed.sum(axis=1, keepdims=True)",
             _nll(counts, test, stoi, smoothing, normalise=False)),
            ("this is the sum over the characters: take the mean",
             _nll(counts, test, stoi, smoothing, mean=False)),
            ("this is the log-likelihood: the negative log-likelihood is -mean(log p)",
             _nll(counts, test, stoi, smoothing, sign=1.0)),
            ("this uses log2 (bits): use the natural log (nats), np.log",
             _nll(counts, test, stoi, smoothing, log=np.log2)),
            ("smoothing is added after normalising: add it to the counts",
             _nll(counts, test, stoi, smoothing, after=True)),
            ("the end token '.' is not predicted: every word ends with a prediction of '.'",
             _nll(counts, test, stoi, smoothing, end=False)),
            ("this is the mean per word: average over the predicted characters",
             _nll(counts, test, stoi, smoothing, per_word=True)),
            ("the columns are normalised: each row p[a] (what follows a) must sum to 1, "
             "smoothed.sum(axis=1, keepdims=True)", _nll(counts, test, stoi, smoothing, axis=0)),
            (f"the smoothing argument is ignored (this adds 1, not {smoothing}): "
             "counts + smoothing", _nll(counts, test, stoi, 1.0)),
        ]
        got_value = np.asarray(getattr(got, "data", got), dtype=np.float64)
        if got_value.shape != ():
            raise CheckFailed(f"nll should return one number, got shape {got_value.shape}")
        if np.isnan(got_value):
            raise CheckFailed(
                "nll is nan: the row of a character never seen in training ('z') is all zeros "
                "and 0/0 is nan — smoothing is added after normalising, or not at all; add it to "
                "the counts before normalising"
            )
        diagnose(f"{what} with words {test}", got_value, _nll(counts, test, stoi, smoothing),
                 [(m, np.asarray(v)) for m, v in mistakes if _applies(m, v, smoothing)])


def _applies(mistake: str, value: float, smoothing: float) -> bool:
    """A mistake that these counts and this smoothing can tell from the right answer."""
    if "infinite" in mistake:
        return not np.isfinite(value)
    return smoothing != 1.0 or "ignored" not in mistake


# -- Exercise 3: next-token batches -----------------------------------------------------------
def check_next_token_batch(next_token_batch: Callable[..., Any]) -> None:
    """Exercise 3: ``next_token_batch(ids, starts, block) -> (x, y)``, y = x shifted by one."""
    ids = np.arange(100, 140)
    starts, block = np.array([3, 17, 1]), 5
    with explain_errors("next_token_batch(ids, [3, 17, 1], 5)"):
        got = next_token_batch(ids.copy(), starts.copy(), block)
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        raise CheckFailed("next_token_batch should return two arrays: (x, y)")
    x, y = got
    check_is_array("x", x)
    check_is_array("y", y)

    def take(offset: int, length: int = block) -> np.ndarray:
        return np.stack([ids[s + offset : s + offset + length] for s in starts])

    diagnose("x", x, take(0), [
        ("x has block + 1 tokens: x = ids[s : s + block]", take(0, block + 1)),
        ("x has block - 1 tokens: x = ids[s : s + block], block tokens per row",
         take(0, block - 1)),
        ("x and y are swapped: x = ids[s : s + block], y one further", take(1)),
        ("the starts are ignored: x[i] begins at starts[i]", np.stack([ids[i : i + block] for i in range(3)])),
    ])
    y_last = ids[starts + block]
    if np.shape(y) == y_last.shape:
        raise CheckFailed(
            "y holds one target per row (the token after the block): a GPT predicts at every "
            "position, so y = ids[s + 1 : s + block + 1], shape (batch, block)"
        )
    diagnose("y", y, take(1), [
        ("y is x: the target of position t is the *next* token, ids[s + t + 1]", take(0)),
        ("y is shifted by two: the target is the next token, one step ahead", take(2)),
        ("y is shifted the wrong way (the previous token): y = ids[s + 1 : s + block + 1]", take(-1)),
        ("y has one token too few: it has block tokens, ids[s + 1 : s + block + 1]", take(1, block - 1)),
        ("y has one token too many", take(1, block + 1)),
    ])


# -- Exercise 4: temperature and top-k ---------------------------------------------------------
def _probs(logits, temperature=1.0, top_k=None, times=False, after=False, keep=None,
           smallest=False, fill=-np.inf, renorm=True):
    z = np.asarray(logits, dtype=np.float64)
    if not after:
        z = z * temperature if times else z / temperature
    if top_k is not None:
        k = top_k if keep is None else keep
        order = np.argsort(z)
        chosen = order[:k] if smallest else order[len(z) - k :]
        drop = np.ones(len(z), dtype=bool)
        drop[chosen] = False
        if renorm:
            z = np.where(drop, fill, z)
    p = np.exp(z - z.max())
    p = p / p.sum()
    if top_k is not None and not renorm:
        p = np.where(drop, 0.0, p)
    return p / temperature if after else p


def check_next_token_probs(next_token_probs: Callable[..., Any]) -> None:
    """Exercise 4: ``next_token_probs(logits, temperature, top_k)``: the sampling distribution."""
    logits = np.array([2.0, -1.0, 0.5, 3.0, 0.0, 1.0])
    for temperature, top_k in ((0.5, None), (2.0, None), (1.5, 3)):
        what = f"next_token_probs(logits, temperature={temperature}, top_k={top_k})"
        with explain_errors(what):
            got = next_token_probs(logits.copy(), temperature, top_k)
        check_is_array(what, got)
        if np.all(np.isfinite(got)) and not np.isclose(np.sum(got), 1.0):
            if np.isclose(np.sum(got), 1.0 / temperature):
                hint = " — the temperature is applied after the softmax: divide the *logits* by it"
            elif top_k is not None and np.allclose(
                got, _probs(logits, temperature, top_k, renorm=False)
            ):
                hint = (
                    " — the tokens outside the top k are zeroed after the softmax, so the rest "
                    "no longer sum to 1: set their *logits* to -inf before the softmax"
                )
            else:
                hint = ""
            raise CheckFailed(f"{what} sums to {np.sum(got):.4g}, not 1{hint}")
        mistakes = [
            ("the logits are multiplied by the temperature: divide them (T < 1 sharpens)",
             _probs(logits, temperature, top_k, times=True)),
            ("the temperature is ignored", _probs(logits, 1.0, top_k)),
        ]
        if top_k is not None:
            mistakes += [
                ("top-k keeps k + 1 tokens", _probs(logits, temperature, top_k, keep=top_k + 1)),
                ("top-k keeps k - 1 tokens", _probs(logits, temperature, top_k, keep=top_k - 1)),
                ("top-k keeps the k *least* likely tokens", _probs(logits, temperature, top_k, smallest=True)),
                ("top-k is not applied", _probs(logits, temperature, None)),
                ("the dropped logits are set to 0, not -inf: exp(0) still gives them weight",
                 _probs(logits, temperature, top_k, fill=0.0)),
            ]
        diagnose(what, got, _probs(logits, temperature, top_k), mistakes)
    large = logits * 400  # exp(1200 / 0.5) overflows float64 unless the largest logit is subtracted
    what = "next_token_probs(logits * 400, temperature=0.5, top_k=None)"
    with np.errstate(over="ignore", invalid="ignore"), explain_errors(what):
        got = next_token_probs(large.copy(), 0.5, None)
    check_is_array(what, got)
    if not np.all(np.isfinite(got)):
        raise CheckFailed(
            f"{what} has nan or inf: np.exp of a large logit overflows; subtract the largest "
            "logit first, np.exp(z - z.max()) (the same probabilities, no overflow)"
        )
    diagnose(what, got, _probs(large, 0.5), [])


# -- Exercise 5: one BPE merge ------------------------------------------------------------------
def _merge(ids, pair, new, overlap=False, right=False, first_only=False, keep=False, drop_last=False,
           step_one=False):
    ids = list(ids)
    if right:
        return _merge(ids[::-1], pair[::-1], new)[::-1]
    out, i, done = [], 0, False
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == tuple(pair) and not (first_only and done):
            out += [ids[i], ids[i + 1], new] if keep else [new]
            done = True
            if overlap and i + 2 < len(ids) and (ids[i + 1], ids[i + 2]) == tuple(pair):
                out.append(new)
            i += 1 if step_one else 2
        else:
            if not (drop_last and i == len(ids) - 1):
                out.append(ids[i])
            i += 1
    return out


def check_merge_pair(merge_pair: Callable[..., Any]) -> None:
    """Exercise 5: ``merge_pair(ids, pair, new_id)``, left to right, without overlaps."""
    cases = [
        ([1, 2, 3, 1, 2, 5], (1, 2), 9),
        ([7, 7, 7, 4], (7, 7), 8),
        ([4, 1, 2], (1, 2), 6),
        ([3, 3, 4, 4], (4, 3), 5),
    ]
    for ids, pair, new in cases:
        what = f"merge_pair({ids}, {pair}, {new})"
        given = list(ids)
        with explain_errors(what):
            got = merge_pair(given, pair, new)
        if not isinstance(got, list | tuple | np.ndarray):
            raise CheckFailed(f"{what} should return the new list of ids, got {type(got).__name__}")
        if given != ids:
            raise CheckFailed(
                f"{what} changed the list it was given (now {given}): build a new list "
                "(out = []) and return it; leave ids as it is"
            )
        got = [int(g) for g in got]
        expected = _merge(ids, pair, new)
        if got == expected:
            continue
        mistakes = [
            ("overlapping pairs are merged twice: after a merge, continue after the pair (i += 2)",
             _merge(ids, pair, new, overlap=True)),
            ("after a merge it moves on by one, so the pair's second id is kept: skip both (i += 2)",
             _merge(ids, pair, new, step_one=True)),
            ("it merges from the right: BPE merges left to right", _merge(ids, pair, new, right=True)),
            ("only the first occurrence is merged", _merge(ids, pair, new, first_only=True)),
            ("the pair is kept beside the new id: replace the two ids by one", _merge(ids, pair, new, keep=True)),
            ("the last id is lost: append ids[i] when i is the last position",
             _merge(ids, pair, new, drop_last=True)),
            ("it merges the pair in either order: (a, b) only, not (b, a)",
             _merge(_merge(ids, pair, new), pair[::-1], new)),
            ("nothing is merged", list(ids)),
        ]
        for mistake, wrong in mistakes:
            if got == wrong:
                raise CheckFailed(f"{what} gave {got}, expected {expected}: {mistake}")
        raise CheckFailed(f"{what} gave {got}, expected {expected}")


# -- Exercise 6: the KV cache ------------------------------------------------------------------
def _step(cache_k, cache_v, q, k, v, axis=2, prepend=False, replace=False, scale=None,
          causal=False, old_only=False):
    if replace:
        keys, values = k, v
    elif prepend:
        keys, values = np.concatenate([k, cache_k], axis), np.concatenate([v, cache_v], axis)
    else:
        keys, values = np.concatenate([cache_k, k], axis), np.concatenate([cache_v, v], axis)
    attend_k, attend_v = (cache_k, cache_v) if old_only else (keys, values)
    scores = q @ np.swapaxes(attend_k, -1, -2) * (scale or 1 / np.sqrt(q.shape[-1]))
    if causal:
        scores = np.where(np.tril(np.ones(scores.shape[-2:], dtype=bool)), scores, -np.inf)
    w = np.exp(scores - scores.max(-1, keepdims=True))
    return (w / w.sum(-1, keepdims=True)) @ attend_v, keys, values


def check_cached_attention(cached_attention: Callable[..., Any]) -> None:
    """Exercise 6: ``cached_attention(cache_k, cache_v, q, k, v) -> (out, cache_k, cache_v)``."""
    rng = np.random.default_rng(15)
    n, h, t, dh = 1, 2, 3, 4
    cache_k, cache_v = rng.normal(size=(n, h, t, dh)), rng.normal(size=(n, h, t, dh))
    q, k, v = (rng.normal(size=(n, h, 1, dh)) for _ in range(3))
    with explain_errors(
        "cached_attention(cache_k, cache_v, q, k, v)",
        ("along dimension", "the new position goes on the time axis: np.concatenate(..., axis=2)"),
        ("concatenat", "the new position goes on the time axis: np.concatenate(..., axis=2)"),
    ):
        got = cached_attention(cache_k.copy(), cache_v.copy(), q, k, v)
    if not isinstance(got, (tuple, list)) or len(got) != 3:
        raise CheckFailed("cached_attention should return three arrays: (out, cache_k, cache_v)")
    out, new_k, new_v = got
    for name, value in (("out", out), ("cache_k", new_k), ("cache_v", new_v)):
        check_is_array(name, value)
    ref_out, ref_k, ref_v = _step(cache_k, cache_v, q, k, v)
    for name, value in (("cache_k", new_k), ("cache_v", new_v)):
        shape = np.shape(value)
        if shape == cache_k.shape:
            raise CheckFailed(
                f"{name} has shape {shape}, the shape of the cache passed in: return the caches "
                "with the new position appended (the result of np.concatenate), "
                "shape (N, H, T + 1, head_dim)"
            )
        if shape != ref_k.shape:
            raise CheckFailed(
                f"{name} has shape {shape}, expected {ref_k.shape} (N, H, T + 1, head_dim): "
                "append the new position on the time axis, axis 2"
                + (" — this replaced the cache by the new position" if shape == k.shape else "")
            )
    diagnose("cache_k", new_k, ref_k, [
        ("the new key is put in front: append it at the end (the cache is in time order)",
         _step(cache_k, cache_v, q, k, v, prepend=True)[1]),
    ])
    diagnose("cache_v", new_v, ref_v, [("cache_v holds the keys", ref_k)])
    mistakes = [
        ("the new query attends only to the old keys: the new position's own key is "
         "appended first", _step(cache_k, cache_v, q, k, v, old_only=True)[0]),
        ("the scale uses the model width: it is 1/sqrt(head_dim)",
         _step(cache_k, cache_v, q, k, v, scale=1 / np.sqrt(h * dh))[0]),
        ("the scores are not scaled: multiply by 1/sqrt(head_dim)",
         _step(cache_k, cache_v, q, k, v, scale=1.0)[0]),
        ("the scores are divided by head_dim: the scale is 1/sqrt(head_dim)",
         _step(cache_k, cache_v, q, k, v, scale=1 / dh)[0]),
        ("the new query attends only to the new position: the scores use the whole updated "
         "cache, q @ cache_k^T, and weight cache_v",
         _step(cache_k, cache_v, q, k, v, replace=True)[0]),
        ("a causal mask is applied to the one new query: it hides every cached key but the "
         "first; the newest query may see every cached position, so no mask is needed",
         _step(cache_k, cache_v, q, k, v, causal=True)[0]),
    ]
    diagnose("out", out, ref_out, mistakes)
