# %% [markdown]
# # 15 · Language models: from counting letters to a small GPT
#
# A language model gives the probability of the next token given the ones before it;
# sampling from it, one token at a time, writes text. This notebook climbs the ladder
# that Karpathy's *makemore* series made famous, each rung measured by the same number —
# the mean negative log-likelihood (NLL) of held-out text, in nats per character:
#
# | model | context | here |
# |---|---|---|
# | bigram counts | 1 character | Exercises 1 and 2 |
# | an MLP on embeddings (Bengio et al., 2003) | 3 characters | given, trained here |
# | a GPT (notebook 14's blocks) | 64 characters | Exercise 3; weights shipped |
# | sampling with temperature and top-k | | Exercise 4 |
# | byte-pair encoding (BPE) | | Exercise 5 |
# | the KV cache for fast generation | | Exercise 6 |
#
# **Learning goals.** After this notebook you can
#
# 1. fit a bigram model by counting and measure any language model by its NLL;
# 2. build next-token training data without an off-by-one error, and train an MLP and a
#    GPT on it;
# 3. sample with temperature and top-k, merge tokens with BPE, and generate with a KV cache.

# %%
%matplotlib inline
import time

import matplotlib.pyplot as plt
import numpy as np

import minitorch
import minitorch.ops as F
import viz
from checks import ok
from checks_nb15 import (check_bigram_counts, check_cached_attention, check_merge_pair,
                         check_next_token_batch, check_next_token_probs, check_nll)
from minitorch import Variable, nn, optim, text
from tiny_gpt import generate, load

np.set_printoptions(precision=4, suppress=True)

# %% [markdown]
# ## The data: 5,163 first names
#
# `minitorch.text.names()` ships the first names of the 1990 US census (public domain),
# lower case. A name is a sequence of characters; the token `.` marks both its start
# and its end, so that the model also learns how names begin and when they stop.

# %%
words = text.names()
chars = sorted(set("".join(words)))
stoi = {c: i for i, c in enumerate(["."] + chars)}
itos = {i: c for c, i in stoi.items()}
V = len(stoi)
order = np.random.default_rng(0).permutation(len(words))
train_words = [words[i] for i in order[: int(0.9 * len(words))]]
val_words = [words[i] for i in order[int(0.9 * len(words)):]]
print(f"{len(words)} names, {V} tokens; e.g. {words[:5]}")

# %% [markdown]
# ## Exercise 1 — bigram counts
#
# The simplest model predicts the next character from the previous one alone. Count,
# over every name written as `.` + name + `.`, how often character `b` follows
# character `a`: `N[stoi[a], stoi[b]] += 1`. Return `N`, an integer array `(V, V)`.

# %%
def bigram_counts(words, stoi):
    ### BEGIN SOLUTION
    counts = np.zeros((len(stoi), len(stoi)), dtype=np.int64)
    for w in words:
        chars = ["."] + list(w) + ["."]
        for a, b in zip(chars, chars[1:]):
            counts[stoi[a], stoi[b]] += 1
    return counts
    ### END SOLUTION

# %% tags=["check"]
check_bigram_counts(bigram_counts)
ok("bigram_counts counts (previous, next) pairs with '.' at both ends")

# %% [markdown]
# Each row of the counts, normalised, is a distribution over the next character. The
# picture shows the probabilities after `.` (how names start) and after `q` (almost
# always `u`) — counted here with `np.add.at`, so the notebook does not depend on your
# answer above.

# %%
pairs = np.array([(stoi[a], stoi[b]) for w in train_words for a, b in zip("." + w, w + ".")])
counts = np.zeros((V, V), dtype=np.int64)
np.add.at(counts, (pairs[:, 0], pairs[:, 1]), 1)
P = (counts + 1) / (counts + 1).sum(axis=1, keepdims=True)
fig, axes = plt.subplots(1, 2, figsize=(12.8, 3.6), layout="constrained")
for ax, prev in zip(axes, (".", "q")):
    ax.bar(range(V), P[stoi[prev]], color="#0072B2")
    ax.set_xticks(range(V), [itos[i] for i in range(V)], fontsize=12)
    ax.set_title(f"P(next | previous = '{prev}')", fontsize=15)
    ax.tick_params(axis="y", labelsize=12)
plt.show()

# %% [markdown]
# ## Exercise 2 — the negative log-likelihood
#
# A model is as good as the probability it gives to text it has not seen. For each name
# in `words`, every character **and** the final `.` is predicted from the one before;
# the score is the mean over all those predictions of $-\log p(\text{next} \mid
# \text{previous})$ (natural log: nats per character). Uniform guessing over 27 tokens
# scores $\log 27 \approx 3.30$.
#
# A pair never seen in training would get probability 0 and an infinite NLL, so add
# `smoothing` to every count before normalising each row (Laplace smoothing). Write
# `nll(counts, words, stoi, smoothing)`.

# %%
def nll(counts, words, stoi, smoothing=1.0):
    ### BEGIN SOLUTION
    smoothed = counts + smoothing
    p = smoothed / smoothed.sum(axis=1, keepdims=True)
    logs = [np.log(p[stoi[a], stoi[b]]) for w in words for a, b in zip("." + w, w + ".")]
    return -float(np.mean(logs))
    ### END SOLUTION

# %% tags=["check"]
check_nll(nll)
ok("nll: smoothed rows, -log p of every prediction including the end, averaged")

# %%
def bigram_val_nll(smoothing=1.0):
    p = (counts + smoothing) / (counts + smoothing).sum(axis=1, keepdims=True)
    val = np.array([(stoi[a], stoi[b]) for w in val_words for a, b in zip("." + w, w + ".")])
    return float(-np.log(p[val[:, 0], val[:, 1]]).mean())


results = {"uniform": float(np.log(V)), "bigram": bigram_val_nll()}
print(f"validation NLL: uniform {results['uniform']:.3f}, bigram {results['bigram']:.3f} nats/char")

# %% [markdown]
# ## An MLP language model (Bengio et al., 2003)
#
# One character of context is not much. Bengio's model reads the last **3** characters:
# each is looked up in an embedding table `C` (a learned vector per token: similar
# characters end up close), the three vectors are concatenated, a `tanh` hidden layer
# and a linear layer give the 27 logits of the next character, and training minimises
# the cross-entropy — the same NLL as above. The contexts are padded with `.` at the
# start of a name. Here it is in minitorch, trained for a few seconds:

# %%
def contexts(words, block=3):
    xs, ys = [], []
    for w in words:
        window = [0] * block
        for c in w + ".":
            xs.append(window)
            ys.append(stoi[c])
            window = window[1:] + [stoi[c]]
    return np.array(xs), np.array(ys)


class MLPLanguageModel(nn.Module):
    def __init__(self, vocab, block=3, emb=10, hidden=128, rng=0):
        super().__init__()
        self.C = nn.Embedding(vocab, emb, rng=rng)
        self.hidden = nn.Linear(block * emb, hidden, rng=rng)
        self.out = nn.Linear(hidden, vocab, rng=rng)

    def forward(self, x):
        e = self.C(x)                              # (N, block, emb)
        h = F.tanh(self.hidden(e.reshape(len(x), -1)))  # concatenate the block's embeddings
        return self.out(h)


Xtr, Ytr = contexts(train_words)
Xva, Yva = contexts(val_words)
minitorch.manual_seed(0)
mlp = MLPLanguageModel(V)
opt = optim.Adam(mlp.parameters(), lr=3e-3)
rng = np.random.default_rng(0)
for step in range(3000):
    idx = rng.integers(0, len(Xtr), 128)
    loss = F.cross_entropy(mlp(Xtr[idx]), Ytr[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
with minitorch.no_grad():
    results["MLP (3 chars)"] = float(F.cross_entropy(mlp(Xva), Yva).data)
print(f"validation NLL: MLP {results['MLP (3 chars)']:.3f} nats/char (bigram {results['bigram']:.3f})")

# %% [markdown]
# ## Next-token training data for a GPT
#
# A GPT reads a block of `T` tokens and predicts, at **every** position $t$, the token
# at $t + 1$: one block gives $T$ training examples at once (the causal mask of
# notebook 14 stops position $t$ from peeking at its answer). So the targets are the
# inputs shifted by one.
#
# ## Exercise 3 — inputs and targets
#
# Write `next_token_batch(ids, starts, block)`: for a 1-D array of token ids and an
# array of start positions, return `x` with rows `ids[s : s + block]` and `y` with rows
# `ids[s + 1 : s + block + 1]`, both of shape `(len(starts), block)`.

# %%
def next_token_batch(ids, starts, block):
    ### BEGIN SOLUTION
    x = np.stack([ids[s : s + block] for s in starts])
    y = np.stack([ids[s + 1 : s + block + 1] for s in starts])
    return x, y
    ### END SOLUTION

# %% tags=["check"]
check_next_token_batch(next_token_batch)
ok("next_token_batch: y is x shifted one token ahead, a target at every position")

# %% [markdown]
# ## A small GPT on Shakespeare
#
# `tiny_gpt.TinyGPT` (a module beside this notebook) stacks notebook 14's block:
# token embeddings plus sinusoidal positions, two causal Pre-LN
# `nn.TransformerEncoderLayer`s, a final LayerNorm and a linear head — GPT-2's layout,
# 4 heads of width 16 and a context of 64 characters. Training it on *Hamlet* takes
# about five minutes here, so `scripts/train_nb15_gpt.py` did it (1,200 AdamW steps
# on batches made exactly as in Exercise 3) and saved the weights as `nb15_gpt.npz`,
# which this notebook loads. The bigram model is the baseline on the same text.

# %%
play = text.shakespeare("hamlet")
tok = text.CharTokenizer(play)
ids = np.array(tok.encode(play))
split = int(0.9 * len(ids))
train_ids, val_ids = ids[:split], ids[split:]
gpt, gpt_losses = load(tok.vocab_size)
block = gpt.max_len
starts = np.random.default_rng(0).integers(0, len(val_ids) - block - 1, 64)
with minitorch.no_grad():
    val_x = np.stack([val_ids[s : s + block] for s in starts])
    val_y = np.stack([val_ids[s + 1 : s + block + 1] for s in starts])
    gpt_val = float(gpt.loss(val_x, val_y).data)
play_counts = np.ones((tok.vocab_size, tok.vocab_size))
np.add.at(play_counts, (train_ids[:-1], train_ids[1:]), 1)
play_p = play_counts / play_counts.sum(axis=1, keepdims=True)
play_bigram = float(-np.log(play_p[val_ids[:-1], val_ids[1:]]).mean())
n_params = sum(p.size for p in gpt.parameters())
print(f"{n_params} parameters; validation NLL on Hamlet: bigram {play_bigram:.2f}, "
      f"GPT {gpt_val:.2f} nats/char")

# %%
fig, ax = plt.subplots(figsize=(8, 3.6), layout="constrained")
ax.plot(gpt_losses, color="#0072B2", linewidth=1, label="GPT, training batches")
ax.axhline(gpt_val, color="#009E73", linestyle="-.", label="GPT, validation")
ax.axhline(play_bigram, color="#D55E00", linestyle="--", label="bigram, validation")
ax.set_xlabel("training step", fontsize=13)
ax.set_ylabel("NLL (nats/char)", fontsize=13)
ax.legend(fontsize=12)
ax.tick_params(labelsize=12)
plt.show()

# %% [markdown]
# What did its heads learn? The first block's attention weights on a line of the play
# (`need_weights=True`, one panel per head): most weight sits on the last character or
# two, and one head (head 1 here) keeps looking back at the comma, the last punctuation.

# %%
line_ids = np.array([tok.encode("To be, or not")])
with minitorch.no_grad():
    h = gpt.blocks[0].norm1(gpt.pos(gpt.tok(line_ids)))
    t = line_ids.shape[1]
    _, heads = gpt.blocks[0].self_attn(h, h, h, attn_mask=np.triu(np.ones((t, t), dtype=bool), 1),
                                       average_attn_weights=False)
viz.attention_heatmap(heads, tokens="To be, or not", title="block 0 of the trained GPT")

# %% [markdown]
# ## Sampling: temperature and top-k
#
# To write text, sample the next token from $p = \mathrm{softmax}(z / \tau)$ and feed it
# back. The **temperature** $\tau$ divides the *logits*: $\tau < 1$ sharpens the
# distribution (safer, more repetitive), $\tau > 1$ flattens it. **Top-k** keeps only
# the $k$ most likely tokens (their logits; the others get $-\infty$) and renormalises,
# so a rare mistake can never be sampled.
#
# ## Exercise 4 — the sampling distribution
#
# Write `next_token_probs(logits, temperature=1.0, top_k=None)` for a 1-D array of
# logits: return the probabilities to sample from (they sum to 1).

# %%
def next_token_probs(logits, temperature=1.0, top_k=None):
    ### BEGIN SOLUTION
    z = np.asarray(logits, dtype=np.float64) / temperature
    if top_k is not None:
        z = np.where(z < np.sort(z)[-top_k], -np.inf, z)
    p = np.exp(z - z.max())
    return p / p.sum()
    ### END SOLUTION

# %% tags=["check"]
check_next_token_probs(next_token_probs)
ok("next_token_probs divides the logits by the temperature and renormalises the top k")

# %%
prompt = tok.encode("HAMLET\n")
for temperature in (0.5, 1.0):
    def sharpened(z, temperature=temperature):  # temperature only, no top-k
        return F.softmax(Variable(z / temperature)).data
    sample = generate(gpt, prompt, 56, probs=sharpened, rng=np.random.default_rng(1))
    print(f"--- temperature {temperature} ---\n{tok.decode(sample)}\n")

# %% [markdown]
# ## Byte-pair encoding
#
# Characters make long sequences; whole words make a huge vocabulary with holes.
# **BPE** (Sennrich et al., 2016; GPT-2 runs it on bytes) starts from the bytes and
# repeatedly replaces the most frequent adjacent pair by a new token, so common pieces
# (`th`, `e `, ` the`) become single tokens while any string stays encodable.
#
# ## Exercise 5 — one merge
#
# Write `merge_pair(ids, pair, new_id)`: scan the list left to right and replace each
# occurrence of the two ids `pair` by `new_id`; after a merge, continue after the pair
# (so `[7, 7, 7]` with `(7, 7)` becomes `[new, 7]`). Return a new list.

# %%
def merge_pair(ids, pair, new_id):
    ### BEGIN SOLUTION
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == tuple(pair):
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out
    ### END SOLUTION

# %% tags=["check"]
check_merge_pair(merge_pair)
ok("merge_pair replaces the pair left to right without overlapping")

# %% [markdown]
# `minitorch.text.BPETokenizer.train` repeats exactly that merge, always on the most
# frequent pair. Trained on the start of Hamlet, its first merges are:

# %%
bpe = text.BPETokenizer.train(play[:20000], 300)
for (a, b), new in list(zip(bpe.merges, range(256, 300)))[:8]:
    print(f"{new}: {bpe.decode([a])!r} + {bpe.decode([b])!r} -> {bpe.decode([new])!r}")
line = "To be, or not to be, that is the question"
encoded = bpe.encode(line)
print(f"{len(line)} characters -> {len(encoded)} tokens; round trip: {bpe.decode(encoded) == line}")

# %% [markdown]
# ## The KV cache
#
# Generating token $t+1$ needs the attention of the newest position only, and the
# keys and values of positions $\le t$ do not change when a token is added (the causal
# mask). So a generator keeps them — the **KV cache**, shapes `(N, H, T, head_dim)` —
# and runs each step on one new token: its query attends to all cached keys plus its
# own. No mask is needed: the newest position may see every earlier one.
#
# ## Exercise 6 — attention with a cache
#
# Write `cached_attention(cache_k, cache_v, q, k, v)` in NumPy: `q, k, v` are the new
# position's, shape `(N, H, 1, head_dim)`. Append `k` and `v` to the caches on the
# **time** axis, attend with `q` to all the keys (scale $1/\sqrt{\text{head\_dim}}$),
# and return `(out, cache_k, cache_v)` with the grown caches.

# %%
def cached_attention(cache_k, cache_v, q, k, v):
    ### BEGIN SOLUTION
    cache_k = np.concatenate([cache_k, k], axis=2)
    cache_v = np.concatenate([cache_v, v], axis=2)
    scores = q @ cache_k.swapaxes(-1, -2) / np.sqrt(q.shape[-1])
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (w / w.sum(axis=-1, keepdims=True)) @ cache_v, cache_k, cache_v
    ### END SOLUTION

# %% tags=["check"]
check_cached_attention(cached_attention)
ok("cached_attention appends on the time axis and attends to every cached position")

# %% [markdown]
# `tiny_gpt.generate` runs the GPT with such a cache (`cached_step`: each block's keys
# and values grow by one position per token). With greedy decoding (always the most
# likely token) the text must be the same with and without it — only faster, since
# without it every step recomputes the whole context:

# %%
greedy, seconds = {}, {}
for use_cache in (False, True):
    start = time.perf_counter()
    greedy[use_cache] = generate(gpt, prompt, 56, use_cache=use_cache)
    seconds[use_cache] = time.perf_counter() - start
print(f"identical with and without the cache: {greedy[True] == greedy[False]}")
print(f"the cache is faster: {seconds[True] < seconds[False]}")
print(tok.decode(greedy[True]))

# %% [markdown]
# ## The whole ladder
#
# Every model above, scored by its validation NLL (the names for the first three, Hamlet
# for the GPT, which gets its own bigram baseline):

# %%
labels = ["uniform", "bigram", "MLP (3 chars)"]
fig, ax = plt.subplots(figsize=(8, 3.6), layout="constrained")
ax.barh(labels + ["bigram (Hamlet)", "GPT (Hamlet)"],
        [results[k] for k in labels] + [play_bigram, gpt_val], color="#0072B2")
ax.set_xlabel("validation NLL (nats per character)", fontsize=13)
ax.tick_params(labelsize=12)
ax.invert_yaxis()
plt.show()

# %% [markdown]
# ## Summary
#
# * A language model is judged by its NLL on held-out text; bigram counts with Laplace
#   smoothing are the baseline, normalised row by row over the next character.
# * The next-token targets are the inputs shifted by one, at every position of a block.
# * An MLP on the embeddings of the last few tokens (Bengio, 2003) beats counting; a GPT
#   attends to the whole block, and grows better with size and training time.
# * Temperature divides the logits before the softmax; top-k sets all but the $k$ largest
#   logits to $-\infty$.
# * BPE merges the most frequent adjacent pair, left to right, over and over.
# * A KV cache appends each new key and value on the time axis; the newest query needs
#   no mask, and greedy text is identical with and without the cache.
#
# **Further reading:** Y. Bengio et al., "A Neural Probabilistic Language Model" (JMLR,
# 2003); A. Radford et al., "Language Models are Unsupervised Multitask Learners" (GPT-2,
# 2019); R. Sennrich, B. Haddow, A. Birch, "Neural Machine Translation of Rare Words with
# Subword Units" (2016); A. Karpathy, *makemore* and *nanoGPT*.
