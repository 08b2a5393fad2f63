"""Typical mistakes in the exercises of notebooks 14 and 15 get feedback that names them.

Each case replaces an exercise's answer by a classic wrong answer, runs the exercise's
check cell and asserts that the message names the mistake. They run in this process
(no kernel): the notebook's import cell, the exercise's own cell (which may define what
its check needs, like the layer of notebook 14's last exercise), the wrong answer, the
check. The untouched stub must give "not done yet".
"""

from __future__ import annotations

import os
import sys
from typing import Any

import pytest
from exercise_runner import NOT_DONE, NOTEBOOKS, SOURCES, load_script

# The injected mistakes are the students': their NumPy overflow and divide warnings are
# part of the mistake (the check names it), not something the library causes.
pytestmark = pytest.mark.filterwarnings("ignore:.*encountered in:RuntimeWarning")

SA = "def causal_attention(q, k, v):\n    t, d = q.shape\n"
ATTENTION_TAIL = "    return weights @ v, weights\n"
ALLOWED = "    allowed = np.tril(np.ones((t, t), dtype=bool))\n"
SOFTMAX = "    weights = F.softmax(F.masked_fill(scores, ~allowed, -np.inf), axis=-1)\n"


def _attention(
    scores: str = "(q @ k.T) / np.sqrt(d)",
    allowed: str = ALLOWED,
    softmax: str = SOFTMAX,
    tail: str = ATTENTION_TAIL,
) -> str:
    return SA + f"    scores = {scores}\n" + allowed + softmax + tail


def _softmax_backward(body: str) -> str:
    return f"def softmax_backward(w, gw):\n    return {body}\n"


def _split(body: str) -> str:
    return f"def split_heads(x, n_heads):\n    n, t, d = x.shape\n    return {body}\n"


def _layer_norm(
    mu: str = "x.mean(axis=-1, keepdims=True)",
    var: str = "((x - mu) ** 2).mean(axis=-1, keepdims=True)",
    out: str = "(x - mu) / F.sqrt(var + eps) * weight + bias",
) -> str:
    return (
        f"def layer_norm(x, weight, bias, eps=1e-5):\n    mu = {mu}\n    var = {var}\n"
        f"    return {out}\n"
    )


def _ln_backward(
    ret: str,
    sigma: str = "np.sqrt(((x - mu) ** 2).mean(axis=-1, keepdims=True) + eps)",
    axis: str = "-1",
) -> str:
    return (
        "def layer_norm_backward(x, gy, eps=1e-5):\n"
        f"    mu = x.mean(axis={axis}, keepdims=True)\n"
        f"    sigma = {sigma}\n"
        "    xhat = (x - mu) / sigma\n"
        f"    gm = gy.mean(axis={axis}, keepdims=True)\n"
        f"    gx = (gy * xhat).mean(axis={axis}, keepdims=True)\n"
        f"    return {ret}\n"
    )


def _block(body: str) -> str:
    return (
        "class PreLNBlock(PreLNBlock):\n"
        "    def forward(self, x):\n"
        "        T = x.shape[1]\n"
        "        mlp = lambda a: self.fc2(F.relu(self.fc1(a)))\n"
        "        attn = lambda a, mask=True: self.attn(a, a, a, attn_mask=self.future(T) if mask else None, need_weights=False)[0]\n"  # noqa: E501
        + "".join(f"        {line}\n" for line in body.split("; "))
    )


def _counts(
    pairs: str = "zip(chars, chars[1:])",
    chars: str = '["."] + list(w) + ["."]',
    add: str = "counts[stoi[a], stoi[b]] += 1",
    ret: str = "counts",
) -> str:
    return (
        "def bigram_counts(words, stoi):\n"
        "    counts = np.zeros((len(stoi), len(stoi)), dtype=np.int64)\n"
        "    for w in words:\n"
        f"        chars = {chars}\n"
        f"        for a, b in {pairs}:\n"
        f"            {add}\n"
        f"    return {ret}\n"
    )


def _nll(
    p: str = "smoothed / smoothed.sum(axis=1, keepdims=True)",
    smoothed: str = "counts + smoothing",
    pairs: str = 'zip("." + w, w + ".")',
    log: str = "np.log",
    ret: str = "-float(np.mean(logs))",
) -> str:
    return (
        "def nll(counts, words, stoi, smoothing=1.0):\n"
        f"    smoothed = {smoothed}\n"
        f"    p = {p}\n"
        f"    logs = [{log}(p[stoi[a], stoi[b]]) for w in words for a, b in {pairs}]\n"
        f"    return {ret}\n"
    )


def _batch(
    x: str = "ids[s : s + block]", y: str = "ids[s + 1 : s + block + 1]", over: str = "starts"
) -> str:
    return (
        "def next_token_batch(ids, starts, block):\n"
        f"    x = np.stack([{x} for s in {over}])\n"
        f"    y = np.stack([{y} for s in {over}])\n"
        "    return x, y\n"
    )


def _probs(
    z: str = "np.asarray(logits, dtype=np.float64) / temperature",
    keep: str = "np.where(z < np.sort(z)[-top_k], -np.inf, z)",
    ret: str = "p / p.sum()",
) -> str:
    return (
        "def next_token_probs(logits, temperature=1.0, top_k=None):\n"
        f"    z = {z}\n"
        "    if top_k is not None:\n"
        f"        z = {keep}\n"
        "    p = np.exp(z - z.max())\n"
        f"    return {ret}\n"
    )


def _merge(
    match: str = "(ids[i], ids[i + 1]) == tuple(pair)",
    merged: str = "out.append(new_id)",
    step: str = "i += 2",
    end: str = "len(ids)",
) -> str:
    return (
        "def merge_pair(ids, pair, new_id):\n"
        "    out, i = [], 0\n"
        f"    while i < {end}:\n"
        f"        if i + 1 < len(ids) and {match}:\n"
        f"            {merged}\n"
        f"            {step}\n"
        "        else:\n"
        "            out.append(ids[i])\n"
        "            i += 1\n"
        "    return out\n"
    )


def _cached(
    axis: str = "2",
    order: str = "[cache_k, k]",
    scale: str = "np.sqrt(q.shape[-1])",
    keys: str = "cache_k",
    extra: str = "",
) -> str:
    return (
        "def cached_attention(cache_k, cache_v, q, k, v):\n"
        "    old_k = cache_k\n"
        f"    cache_k = np.concatenate({order}, axis={axis})\n"
        f"    cache_v = np.concatenate({order.replace('k', 'v')}, axis={axis})\n"
        f"    scores = q @ {keys}.swapaxes(-1, -2) / {scale}\n"
        f"{extra}"
        "    w = np.exp(scores - scores.max(axis=-1, keepdims=True))\n"
        f"    return (w / w.sum(axis=-1, keepdims=True)) @ {keys.replace('k', 'v')}, cache_k, cache_v\n"  # noqa: E501
    )


# (notebook, exercise number) -> [(mistake, wrong answer, words the check must say)]
MISTAKES: dict[tuple[str, int], list[tuple[str, str, str]]] = {
    ("14_attention_and_transformers", 1): [
        ("no scale", _attention(scores="q @ k.T"), "not scaled"),
        ("divided by d", _attention(scores="(q @ k.T) / d"), "divided by d"),
        ("times sqrt(d)", _attention(scores="(q @ k.T) * np.sqrt(d)"), "multiplied by sqrt(d)"),
        ("divided by sqrt(T)", _attention(scores="(q @ k.T) / np.sqrt(t)"), "divided by sqrt(T)"),
        (
            "no mask",
            _attention(softmax="    weights = F.softmax(scores, axis=-1)\n"),
            "mask is not applied",
        ),
        (
            "mask the wrong sign",
            _attention(
                softmax="    weights = F.softmax(F.masked_fill(scores, allowed, -np.inf), axis=-1)\n"  # noqa: E501
            ),
            "wrong way round",
        ),
        (
            "diagonal masked",
            _attention(allowed="    allowed = np.tril(np.ones((t, t), dtype=bool), -1)\n"),
            "diagonal is masked too",
        ),
        (
            "one future key",
            _attention(allowed="    allowed = np.tril(np.ones((t, t), dtype=bool), 1)\n"),
            "one future key",
        ),
        (
            "filled with 0",
            _attention(
                softmax="    weights = F.softmax(F.masked_fill(scores, ~allowed, 0.0), axis=-1)\n"
            ),
            "filled with 0",
        ),
        (
            "softmax over queries",
            _attention(
                softmax="    weights = F.softmax(F.masked_fill(scores, ~allowed, -np.inf), axis=0)\n"  # noqa: E501
            ),
            "over axis 0",
        ),
        (
            "mask after softmax",
            _attention(softmax="    weights = F.softmax(scores, axis=-1) * allowed\n"),
            "after the softmax",
        ),
        ("v @ weights", _attention(tail="    return weights.T @ v, weights\n"), "weights @ v"),
        ("q.T @ k", _attention(scores="(q.T @ k) / np.sqrt(d)"), "q @ k.T"),
    ],
    ("14_attention_and_transformers", 2): [
        ("diagonal only", _softmax_backward("w * gw"), "only the diagonal"),
        (
            "forgot w",
            _softmax_backward("gw - (gw * w).sum(axis=-1, keepdims=True)"),
            "multiply by w too",
        ),
        ("w(1-w)", _softmax_backward("w * (1 - w) * gw"), "diagonal of the Jacobian only"),
        (
            "axis 0",
            _softmax_backward("w * (gw - (gw * w).sum(axis=0, keepdims=True))"),
            "over axis 0",
        ),
        ("no keepdims", _softmax_backward("w * (gw - (gw * w).sum(axis=-1))"), "keepdims"),
        ("sum of everything", _softmax_backward("w * (gw - (gw * w).sum())"), "every element"),
        ("sum(gw)", _softmax_backward("w * (gw - gw.sum(axis=-1, keepdims=True))"), "not sum(gw)"),
        (
            "sign",
            _softmax_backward("w * ((gw * w).sum(axis=-1, keepdims=True) - gw)"),
            "sign is flipped",
        ),
        (
            "a Variable",
            "def softmax_backward(w, gw):\n"
            "    w = Variable(w)\n    return w * (gw - (gw * w).sum(axis=-1, keepdims=True))\n",
            "is a Variable",
        ),
    ],
    ("14_attention_and_transformers", 3): [
        (
            "heads in the wrong order",
            _split("x.reshape(n, n_heads, t, d // n_heads)"),
            "cuts the sequence",
        ),
        (
            "no transpose",
            _split("x.reshape(n, t, n_heads, d // n_heads)"),
            "transpose(0, 2, 1, 3)",
        ),
        (
            "interleaved heads",
            _split("x.reshape(n, t, d // n_heads, n_heads).transpose(0, 3, 1, 2)"),
            "contiguous slice",
        ),
        (
            "batch and heads swapped",
            _split("x.reshape(n, t, n_heads, d // n_heads).transpose(2, 0, 1, 3)"),
            "batch axis comes first",
        ),
        (
            "time and features swapped",
            _split("x.reshape(n, t, n_heads, d // n_heads).transpose(0, 2, 3, 1)"),
            "should have shape (2, 3, 5, 4)",
        ),
        (
            "an ndarray",
            _split("x.data.reshape(n, t, n_heads, d // n_heads).transpose(0, 2, 1, 3)"),
            "is an ndarray",
        ),
        (
            "head size wrong",
            _split("x.reshape(n, t, n_heads, d // n_heads - 1)"),
            "cannot reshape",
        ),
        (
            "dropped the batch",
            _split("x.reshape(n * t, n_heads, d // n_heads).transpose(1, 0, 2)"),
            "should have shape (2, 3, 5, 4)",
        ),
    ],
    ("14_attention_and_transformers", 4): [
        (
            "unbiased variance",
            _layer_norm(var="x.var(axis=-1, keepdims=True, ddof=1)"),
            "unbiased",
        ),
        (
            "eps outside",
            _layer_norm(out="(x - mu) / (F.sqrt(var) + eps) * weight + bias"),
            "inside the square root",
        ),
        ("no eps", _layer_norm(out="(x - mu) / F.sqrt(var) * weight + bias"), "eps is left out"),
        (
            "axis 0",
            _layer_norm(
                mu="x.mean(axis=0, keepdims=True)",
                var="((x - mu) ** 2).mean(axis=0, keepdims=True)",
            ),
            "axis 0",
        ),
        (
            "no centring",
            _layer_norm(out="x / F.sqrt(var + eps) * weight + bias"),
            "mean is not subtracted",
        ),
        ("E[x^2]", _layer_norm(var="(x ** 2).mean(axis=-1, keepdims=True)"), "E[x²]"),
        (
            "divides by var",
            _layer_norm(out="(x - mu) / (var + eps) * weight + bias"),
            "variance, not the standard deviation",
        ),
        ("swapped", _layer_norm(out="(x - mu) / F.sqrt(var + eps) * bias + weight"), "swapped"),
        ("no affine", _layer_norm(out="(x - mu) / F.sqrt(var + eps)"), "not applied"),
        (
            "numpy",
            _layer_norm(
                out="(x.data - mu.data) / np.sqrt(var.data + eps) * weight.data + bias.data"
            ),
            "not a Variable",
        ),
    ],
    ("14_attention_and_transformers", 5): [
        ("gy / sigma", _ln_backward("gy / sigma"), "this is gy / sigma"),
        ("no xhat term", _ln_backward("(gy - gm) / sigma"), "x̂ * mean(gy * x̂) (from sigma"),
        ("no mean term", _ln_backward("(gy - xhat * gx) / sigma"), "mean(gy) (from the mean"),
        ("sign", _ln_backward("(gy - gm + xhat * gx) / sigma"), "wrong sign"),
        (
            "unbiased",
            _ln_backward(
                "(gy - gm - xhat * gx) / sigma",
                sigma="np.sqrt(((x - mu) ** 2).sum(axis=-1, keepdims=True) / (x.shape[-1] - 1) + eps)",  # noqa: E501
            ),
            "unbiased",
        ),
        (
            "axis 0",
            _ln_backward(
                "(gy - gm - xhat * gx) / sigma",
                axis="0",
                sigma="np.sqrt(((x - mu) ** 2).mean(axis=0, keepdims=True) + eps)",
            ),
            "axis 0",
        ),
        ("times sigma", _ln_backward("(gy - gm - xhat * gx) * sigma"), "multiplies by sigma"),
        (
            "x-hat times sigma (blind trial)",
            _ln_backward("(gy - gm - xhat * gx) / sigma").replace(
                "xhat = (x - mu) / sigma", "xhat = (x - mu) * sigma"
            ),
            "x̂ is (x - mu) * sigma",
        ),
        (
            "no eps",
            _ln_backward(
                "(gy - gm - xhat * gx) / sigma",
                sigma="np.sqrt(((x - mu) ** 2).mean(axis=-1, keepdims=True))",
            ),
            "eps is left out",
        ),
        (
            "no keepdims",
            "def layer_norm_backward(x, gy, eps=1e-5):\n"
            "    return gy / np.sqrt(x.var(axis=-1) + eps)\n",
            "keepdims",
        ),
    ],
    ("14_attention_and_transformers", 6): [
        (
            "no attention residual",
            _block("x = attn(self.ln1(x)); return x + mlp(self.ln2(x))"),
            "residual of the attention is missing",
        ),
        (
            "no MLP residual",
            _block("x = x + attn(self.ln1(x)); return mlp(self.ln2(x))"),
            "residual of the MLP is missing",
        ),
        (
            "no residuals",
            _block("x = attn(self.ln1(x)); return mlp(self.ln2(x))"),
            "both residuals",
        ),
        ("Post-LN", _block("x = self.ln1(x + attn(x)); return self.ln2(x + mlp(x))"), "Post-LN"),
        (
            "adds the normalised input",
            _block("h = self.ln1(x); x = h + attn(h); return x + mlp(self.ln2(x))"),
            "adds the normalised input",
        ),
        (
            "no causal mask",
            _block("x = x + attn(self.ln1(x), mask=False); return x + mlp(self.ln2(x))"),
            "causal mask is not applied",
        ),
        (
            "ln1 twice",
            _block("x = x + attn(self.ln1(x)); return x + mlp(self.ln1(x))"),
            "ln1 is used twice",
        ),
        ("MLP on x", _block("x = x + attn(self.ln1(x)); return x + mlp(x)"), "MLP reads x"),
        (
            "inverted mask, need_weights=False (blind trial)",
            _block(
                "h = self.ln1(x); a = self.attn(h, h, h, attn_mask=~self.future(T), "
                "need_weights=False)[0]; x = x + a; return x + mlp(self.ln2(x))"
            ),
            "not its negation",
        ),
        (
            "inverted mask",
            _block(
                "h = self.ln1(x); a = self.attn(h, h, h, attn_mask=~self.future(T))[0]; "
                "x = x + a; return x + mlp(self.ln2(x))"
            ),
            "not its negation",
        ),
        (
            "kept the tuple",
            _block(
                "h = self.ln1(x); a = self.attn(h, h, h, attn_mask=self.future(T)); return x + a"
            ),
            "returns (output, weights)",
        ),
    ],
    ("15_language_models", 1): [
        ("no boundary", _counts(chars="list(w)"), "start and end token"),
        ("no start", _counts(chars='list(w) + ["."]'), "start token is missing"),
        ("no end", _counts(chars='["."] + list(w)'), "end token is missing"),
        ("transposed", _counts(add="counts[stoi[b], stoi[a]] += 1"), "transposed"),
        (
            "probabilities",
            _counts(ret="counts / np.maximum(counts.sum(1, keepdims=True), 1)"),
            "probabilities",
        ),
        ("smoothed", _counts(ret="counts + 1"), "smoothed"),
        ("self pairs", _counts(pairs="zip(w, w)"), "with itself"),
        ("two apart", _counts(pairs="zip(chars, chars[2:])"), "two apart"),
        ("backwards", _counts(pairs="zip(chars[1:], chars)"), "transposed"),
        ("= 1, not += 1 (blind trial)", _counts(add="counts[stoi[a], stoi[b]] = 1"), "+= 1"),
    ],
    ("15_language_models", 2): [
        ("no smoothing", _nll(smoothed="counts"), "before normalising"),
        ("not normalised", _nll(p="smoothed"), "not normalised"),
        ("sum", _nll(ret="-float(np.sum(logs))"), "take the mean"),
        ("log-likelihood", _nll(ret="float(np.mean(logs))"), "negative log-likelihood"),
        ("log2", _nll(log="np.log2"), "log2"),
        (
            "smoothing after",
            _nll(smoothed="counts", p="counts / counts.sum(axis=1, keepdims=True) + smoothing"),
            "before normalising",
        ),
        ("no end", _nll(pairs='zip("." + w, w)'), "end token"),
        (
            "per word",
            "def nll(counts, words, stoi, smoothing=1.0):\n"
            "    p = (counts + smoothing) / (counts + smoothing).sum(axis=1, keepdims=True)\n"
            "    return -float(np.mean([sum(np.log(p[stoi[a], stoi[b]])"
            " for a, b in zip('.' + w, w + '.')) for w in words]))\n",
            "per word",
        ),
        ("an array", _nll(ret="-np.array(logs)"), "one number"),
        (
            "columns normalised (blind trial)",
            _nll(p="smoothed / smoothed.sum(axis=0, keepdims=True)"),
            "columns are normalised",
        ),
        ("smoothing ignored (blind trial)", _nll(smoothed="counts + 1"), "smoothing argument"),
    ],
    ("15_language_models", 3): [
        ("no shift", _batch(y="ids[s : s + block]"), "y is x"),
        ("shift by two", _batch(y="ids[s + 2 : s + block + 2]"), "shifted by two"),
        ("wrong way", _batch(y="ids[s - 1 : s + block - 1]"), "wrong way"),
        (
            "last token only",
            "def next_token_batch(ids, starts, block):\n"
            "    x = np.stack([ids[s : s + block] for s in starts])\n"
            "    return x, ids[starts + block]\n",
            "one target per row",
        ),
        (
            "swapped",
            "def next_token_batch(ids, starts, block):\n"
            "    x = np.stack([ids[s : s + block] for s in starts])\n"
            "    y = np.stack([ids[s + 1 : s + block + 1] for s in starts])\n"
            "    return y, x\n",
            "swapped",
        ),
        ("x too long", _batch(x="ids[s : s + block + 1]"), "block + 1"),
        ("y too short", _batch(y="ids[s + 1 : s + block]"), "one token too few"),
        ("y too long", _batch(y="ids[s + 1 : s + block + 2]"), "one token too many"),
        ("starts ignored", _batch(over="range(len(starts))"), "starts are ignored"),
        (
            "x too short (blind trial)",
            _batch(x="ids[s : s + block - 1]", y="ids[s + 1 : s + block]"),
            "block - 1 tokens",
        ),
    ],
    ("15_language_models", 4): [
        (
            "after softmax",
            _probs(z="np.asarray(logits, dtype=np.float64)", ret="p / p.sum() / temperature"),
            "after the softmax",
        ),
        (
            "multiplied",
            _probs(z="np.asarray(logits, dtype=np.float64) * temperature"),
            "multiplied by the temperature",
        ),
        ("ignored", _probs(z="np.asarray(logits, dtype=np.float64)"), "temperature is ignored"),
        ("k + 1", _probs(keep="np.where(z < np.sort(z)[-top_k - 1], -np.inf, z)"), "k + 1"),
        ("k - 1", _probs(keep="np.where(z <= np.sort(z)[-top_k], -np.inf, z)"), "k - 1"),
        ("smallest", _probs(keep="np.where(z > np.sort(z)[top_k - 1], -np.inf, z)"), "least"),
        ("no top-k", _probs(keep="z"), "top-k is not applied"),
        ("fill 0", _probs(keep="np.where(z < np.sort(z)[-top_k], 0.0, z)"), "set to 0"),
        ("not renormalised", _probs(ret="p"), "sums to"),
        (
            "top-k after the softmax (blind trial)",
            _probs(keep="z", ret="np.where(p / p.sum() < np.sort(p / p.sum())[-top_k], 0.0, "
                   "p / p.sum()) if top_k else p / p.sum()"),
            "-inf before the softmax",
        ),
        (
            "no max shift (blind trial)",
            _probs().replace("np.exp(z - z.max())", "np.exp(z)"),
            "np.exp(z - z.max())",
        ),
    ],
    ("15_language_models", 5): [
        ("moves on by one", _merge(step="i += 1"), "skip both"),
        (
            "overlapping",
            _merge(
                merged="out.append(new_id)\n            if i + 2 < len(ids) and "
                "(ids[i + 1], ids[i + 2]) == tuple(pair):\n                out.append(new_id)"
            ),
            "overlapping",
        ),
        (
            "from the right",
            "def merge_pair(ids, pair, new_id):\n"
            "    out, i = [], len(ids) - 1\n"
            "    while i >= 0:\n"
            "        if i > 0 and (ids[i - 1], ids[i]) == tuple(pair):\n"
            "            out.insert(0, new_id)\n"
            "            i -= 2\n"
            "        else:\n"
            "            out.insert(0, ids[i])\n"
            "            i -= 1\n"
            "    return out\n",
            "from the right",
        ),
        (
            "first only",
            "def merge_pair(ids, pair, new_id):\n"
            "    for i in range(len(ids) - 1):\n"
            "        if (ids[i], ids[i + 1]) == tuple(pair):\n"
            "            return ids[:i] + [new_id] + ids[i + 2:]\n"
            "    return list(ids)\n",
            "only the first",
        ),
        ("kept the pair", _merge(merged="out += [ids[i], ids[i + 1], new_id]"), "kept beside"),
        ("lost the last", _merge(end="len(ids) - 1"), "last id is lost"),
        (
            "either order",
            _merge(match="(ids[i], ids[i + 1]) in (tuple(pair), tuple(pair)[::-1])"),
            "either order",
        ),
        (
            "nothing merged",
            "def merge_pair(ids, pair, new_id):\n    return list(ids)\n",
            "nothing is merged",
        ),
        (
            "returns None",
            "def merge_pair(ids, pair, new_id):\n    ids.append(new_id)\n",
            "should return the new list",
        ),
        (
            "empties and refills its input (blind trial)",
            _merge().replace("    out, i = [], 0\n", "    out, i = ids, 0\n    ids = list(ids)\n"
                             "    out.clear()\n"),
            "changed the list it was given",
        ),
    ],
    ("15_language_models", 6): [
        ("head axis", _cached(axis="1"), "time axis"),
        ("feature axis", _cached(axis="3"), "time axis"),
        ("batch axis", _cached(axis="0"), "time axis"),
        ("prepended", _cached(order="[k, cache_k]"), "put in front"),
        (
            "replaced",
            "def cached_attention(cache_k, cache_v, q, k, v):\n"
            "    scores = q @ k.swapaxes(-1, -2) / np.sqrt(q.shape[-1])\n"
            "    return (scores * 0 + 1) * v, k, v\n",
            "replaced the cache",
        ),
        (
            "old keys only",
            _cached(keys="old_k").replace("@ old_v", "@ cache_v[:, :, :-1]"),
            "only to the old keys",
        ),
        ("model width", _cached(scale="np.sqrt(q.shape[1] * q.shape[-1])"), "model width"),
        ("no scale", _cached(scale="1.0"), "not scaled"),
        (
            "causal mask",
            _cached(
                extra="    scores = np.where(np.tril(np.ones(scores.shape[-2:], "
                "dtype=bool)), scores, -np.inf)\n"
            ),
            "no mask is needed",
        ),
        ("divided by head_dim (blind trial)", _cached(scale="q.shape[-1]"), "divided by head_dim"),
        (
            "new position only (blind trial)",
            _cached(keys="k"),
            "only to the new position",
        ),
        (
            "returns the caches passed in (blind trial)",
            _cached().replace("    cache_k = np.concatenate", "    new_k = np.concatenate")
            .replace("    cache_v = np.concatenate", "    new_v = np.concatenate")
            .replace("q @ cache_k", "q @ new_k").replace("@ cache_v, cache_k", "@ new_v, cache_k"),
            "the shape of the cache passed in",
        ),
        (
            "returns the caches cut back (blind trial)",
            _cached().replace("cache_k, cache_v\n", "cache_k[:, :, :-1], cache_v[:, :, :-1]\n"),
            "return the caches with the new position",
        ),
    ],
}


def _cells(name: str) -> tuple[Any, list[tuple[int, int]]]:
    run_notebooks = load_script("run_notebooks")
    nb = run_notebooks.build_notebook(SOURCES / f"{name}.py")
    return nb, run_notebooks.exercises(nb)


def _message(name: str, k: int, answer: str | None) -> str:
    """Run the import cell, exercise ``k``'s cell, ``answer`` (None: the stub) and the check."""
    make_student = load_script("make_student")
    nb, pairs = _cells(name)
    solution, check = pairs[k - 1]
    first = next(c for c in nb.cells if c.cell_type == "code")
    namespace: dict[str, Any] = {"__name__": "__main__"}
    cwd = os.getcwd()
    sys.path.insert(0, str(NOTEBOOKS))
    os.chdir(NOTEBOOKS)
    try:
        setup = "\n".join(line for line in first.source.splitlines() if not line.startswith("%"))
        exec(setup, namespace)
        source = nb.cells[solution].source
        exec(make_student.strip_source(source) if answer is None else source, namespace)
        if answer is not None:
            exec(answer, namespace)
        try:
            exec(nb.cells[check].source, namespace)
        except AssertionError as err:
            return str(err)
        return ""
    finally:
        os.chdir(cwd)
        sys.path.remove(str(NOTEBOOKS))


CASES = [
    pytest.param(name, k, answer, words, id=f"{name[:2]}-ex{k}-{mistake}")
    for (name, k), cases in MISTAKES.items()
    for mistake, answer, words in cases
]


@pytest.mark.parametrize(("name", "k", "answer", "words"), CASES)
def test_the_check_names_the_mistake(name: str, k: int, answer: str, words: str) -> None:
    message = _message(name, k, answer)
    assert words in message, f"the check said: {message!r}"


@pytest.mark.parametrize(("name", "k"), sorted(MISTAKES))
def test_the_untouched_stub_is_not_done_yet(name: str, k: int) -> None:
    assert NOT_DONE in _message(name, k, None)


@pytest.mark.parametrize(("name", "k"), sorted(MISTAKES))
def test_the_solution_passes(name: str, k: int) -> None:
    nb, pairs = _cells(name)
    assert _message(name, k, nb.cells[pairs[k - 1][0]].source) == ""


def test_every_exercise_has_at_least_eight_mistakes() -> None:
    for name in {n for n, _ in MISTAKES}:
        _, pairs = _cells(name)
        for k in range(1, len(pairs) + 1):
            assert len(MISTAKES.get((name, k), [])) >= 8, (name, k)
