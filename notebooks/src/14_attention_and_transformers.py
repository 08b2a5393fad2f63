# %% [markdown]
# # 14 · Attention and the transformer block
#
# A recurrent network (notebook 11) reads a sequence one step at a time and squeezes
# everything it has seen into one hidden vector. **Attention** lets every position look
# at every earlier position directly, with weights it computes from the data. Stacked in
# blocks with LayerNorm, residual connections and a small MLP, it is the transformer —
# the model behind every large language model. Here you build one block from its
# pieces, check each piece, and watch its backward pass.
#
# | piece | here |
# |---|---|
# | scaled dot-product attention with a causal mask | Exercise 1 |
# | softmax's backward: its Jacobian | Exercise 2 |
# | multi-head attention: splitting the heads | Exercise 3 |
# | LayerNorm and its backward | Exercises 4 and 5 |
# | a Pre-LN transformer block | Exercise 6 |
#
# **Learning goals.** After this notebook you can
#
# 1. compute attention weights and outputs with a causal mask, and say why the scale is
#    $1/\sqrt{d}$;
# 2. derive the backward of softmax and of LayerNorm, and read them in a backward pass;
# 3. split a layer into heads and assemble a Pre-LN block with its residual connections.

# %%
%matplotlib inline
import numpy as np

import minitorch.ops as F
import viz
from checks import ok
from checks_nb14 import (check_causal_attention, check_layer_norm, check_layer_norm_backward,
                         check_pre_ln_block, check_softmax_backward, check_split_heads)
from minitorch import Variable, nn

np.set_printoptions(precision=4, suppress=True)

# %% [markdown]
# ## Attention in one formula
#
# Each of $T$ tokens carries a **query** $q_i$ (what it looks for), a **key** $k_j$
# (what it offers) and a **value** $v_j$ (what it passes on), rows of $Q, K, V$
# of width $d$. Query $i$ scores every key by a dot product, a softmax turns each row of
# scores into weights that add up to 1, and the output is the weighted sum of the values
# (Vaswani et al., 2017):
#
# $$\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{Q K^\top}{\sqrt{d}}\right) V .$$
#
# **Why $\sqrt{d}$?** For random $q, k$ with independent unit-variance entries,
# $q \cdot k$ is a sum of $d$ terms of variance 1, so its standard deviation is
# $\sqrt{d}$. Without the scale, wide heads give huge scores, the softmax saturates to
# one-hot rows and its gradient vanishes. A quick look:

# %%
rng = np.random.default_rng(0)
for d in (4, 64, 1024):
    q, k = rng.normal(size=(2000, d)), rng.normal(size=(2000, d))
    dots = (q * k).sum(axis=1)
    print(f"d = {d:4d}: std of q·k = {dots.std():6.2f}, after / sqrt(d): {(dots / np.sqrt(d)).std():.2f}")

# %% [markdown]
# **The causal mask.** A language model predicts token $i+1$ from tokens $0 \dots i$,
# so query $i$ may attend to keys $j \le i$ only: the lower triangle, diagonal included.
# The other scores are set to $-\infty$ before the softmax, so their weights are
# exactly $e^{-\infty} = 0$ and the remaining ones still add up to 1.
# `np.tril(np.ones((T, T), dtype=bool))` is True where attending is allowed, and
# `F.masked_fill(scores, mask, value)` puts `value` wherever `mask` is True (so pass it
# the positions to hide, `~allowed`).
#
# ## Exercise 1 — causal attention for one head
#
# Write `causal_attention(q, k, v)` for Variables of shape `(T, d)`: the scaled scores
# `q @ k.T`, the causal mask, the softmax over the keys (`axis=-1`), and the output
# `weights @ v`. Return `(out, weights)`.

# %%
def causal_attention(q, k, v):
    ### BEGIN SOLUTION
    t, d = q.shape
    scores = (q @ k.T) / np.sqrt(d)
    allowed = np.tril(np.ones((t, t), dtype=bool))
    weights = F.softmax(F.masked_fill(scores, ~allowed, -np.inf), axis=-1)
    return weights @ v, weights
    ### END SOLUTION

# %% tags=["check"]
check_causal_attention(causal_attention)
ok("causal_attention scales by 1/sqrt(d), masks the future and normalises each query's row")

# %% [markdown]
# ## Seeing the weights
#
# `nn.MultiheadAttention` (PyTorch's layer, names and all) computes the same thing for
# several heads at once and returns the weights too. `viz.attention_heatmap` draws them:
# row $i$ is what token $i$ looks at, columns are the keys, and the hatched cells are
# the masked future (weight exactly 0). Note `nn.MultiheadAttention` takes PyTorch's
# mask convention: a boolean `attn_mask` is True where attending is **not** allowed.

# %%
text = "to be or not"
T = len(text)
attention = nn.MultiheadAttention(16, 4, batch_first=True, dtype=np.float64, rng=0)
tokens = Variable(np.random.default_rng(1).normal(size=(1, T, 16)))
future = np.triu(np.ones((T, T), dtype=bool), k=1)
_, per_head = attention(tokens, tokens, tokens, attn_mask=future, average_attn_weights=False)
viz.attention_heatmap(per_head, tokens=text, title="4 heads of causal self-attention (untrained)")

# %% [markdown]
# Untrained, the heads spread their weight over the past with no clear pattern; only the
# first token is sure, since it can look at nobody but itself (weight 1). Training is
# what makes heads pick out particular tokens (notebook 15 shows a trained one).
#
# ## The backward of attention, step by step
#
# The stepper below replays the backward pass of one head on two tokens of width 2, with
# a residual connection: $\text{loss} = \sum (x + \mathrm{softmax}(\text{masked}(q k^\top/\sqrt 2))\, v)$.
# Step through it and watch three things:
#
# * **softmax's backward** (the `Softmax` step) turns the gradient of the weights into
#   the gradient of the scores with its Jacobian — each row of what it sends sums to 0;
# * **the mask** (`Where`, what `masked_fill` records): the masked score gets exactly 0
#   gradient, and so does every score of the first row, whose softmax has one entry
#   and is the constant 1;
# * **the fan-in**: `x` feeds $q$, $k$, $v$ and the residual, so its gradient arrives four
#   times and is added up (`+=`).

# %%
def one_head(seed=0):
    """A causal attention head on two tokens with a residual; returns the loss."""
    rng = np.random.default_rng(seed)
    x, Wq, Wk, Wv = (Variable(rng.normal(size=(2, 2)).round(1), name=n)
                     for n in ("x", "Wq", "Wk", "Wv"))
    q, k, v = x @ Wq, x @ Wk, x @ Wv
    q.name, k.name, v.name = "q", "k", "v"
    scores = (q @ k.T) / np.sqrt(2.0)
    scores.name = "scores"
    masked = F.masked_fill(scores, np.triu(np.ones((2, 2), dtype=bool), k=1), -np.inf)
    masked.name = "masked"
    weights = F.softmax(masked, axis=-1)
    weights.name = "weights"
    loss = (x + weights @ v).sum()
    loss.name = "loss"
    return loss


head_trace = viz.trace_backward(one_head())
viz.BackwardStepper(head_trace, rankdir="LR", title="one causal attention head with a residual").widget()

# %%
for step in head_trace.steps:
    if step.name in ("Softmax", "Where"):
        print(f"{step.name}.backward sends\n{step.grads_out[-1] if step.name == 'Where' else step.grads_out[0]}")

# %% [markdown]
# ## Exercise 2 — softmax's backward
#
# For one row, $w = \mathrm{softmax}(z)$ has the Jacobian
# $\partial w_i / \partial z_j = w_i(\delta_{ij} - w_j)$. So the gradient of the scores,
# given the gradient $g$ of the weights, is
#
# $$\frac{\partial L}{\partial z_j} = \sum_i g_i\, w_i (\delta_{ij} - w_j)
#   = w_j \Big(g_j - \sum_i g_i w_i\Big).$$
#
# Write `softmax_backward(w, gw)` in NumPy for arrays of any shape whose **last** axis
# is the softmax's axis: one line, without building the $S \times S$ Jacobian.

# %%
def softmax_backward(w, gw):
    ### BEGIN SOLUTION
    return w * (gw - (gw * w).sum(axis=-1, keepdims=True))
    ### END SOLUTION

# %% tags=["check"]
check_softmax_backward(softmax_backward)
ok("softmax_backward applies the Jacobian w_i (δ_ij - w_j) row by row")

# %% [markdown]
# ## Multi-head attention
#
# One head can attend to one thing at a time. **Multi-head attention** runs $H$ heads
# side by side on slices of width $d/H$ of the same projections and concatenates their
# outputs: the cost of one wide head, several patterns at once. For a batch `x` of shape
# `(N, T, D)` the split is a reshape to `(N, T, H, D // H)` — each token's $D$ features
# cut into $H$ contiguous slices — and a transpose that brings the head axis in front of
# the time axis, `(N, H, T, D // H)`, so that `q @ k.transpose(0, 1, 3, 2)` attends within
# each head.
#
# ## Exercise 3 — split the heads
#
# Write `split_heads(x, n_heads)` for a Variable `x` of shape `(N, T, D)`.

# %%
def split_heads(x, n_heads):
    ### BEGIN SOLUTION
    n, t, d = x.shape
    return x.reshape(n, t, n_heads, d // n_heads).transpose(0, 2, 1, 3)
    ### END SOLUTION

# %% tags=["check"]
check_split_heads(split_heads)
ok("split_heads cuts each token's features into heads and puts the heads before time")

# %% [markdown]
# ## LayerNorm
#
# A transformer normalises **each token's** feature vector (not the batch, as batch
# norm does): subtract its mean, divide by its standard deviation, then scale and shift
# by learned vectors (Ba, Kiros and Hinton, 2016):
#
# $$\hat x = \frac{x - \mu}{\sqrt{\sigma^2 + \varepsilon}},\quad y = \hat x \odot w + b,
#   \qquad \mu = \tfrac1n \textstyle\sum_i x_i,\ \ \sigma^2 = \tfrac1n \sum_i (x_i - \mu)^2 .$$
#
# The variance divides by $n$ (the biased estimate, as PyTorch's `LayerNorm`), and
# $\varepsilon$ goes inside the square root.
#
# ## Exercise 4 — LayerNorm's forward
#
# Write `layer_norm(x, weight, bias, eps)` over the last axis with minitorch ops
# (`x.mean(axis=-1, keepdims=True)`, `F.sqrt`, ...), so that its backward comes for free.

# %%
def layer_norm(x, weight, bias, eps=1e-5):
    ### BEGIN SOLUTION
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / F.sqrt(var + eps) * weight + bias
    ### END SOLUTION

# %% tags=["check"]
check_layer_norm(layer_norm)
ok("layer_norm normalises each row with the biased variance and eps inside the root")

# %% [markdown]
# ## Exercise 5 — LayerNorm's backward, by hand
#
# $\mu$ and $\sigma = \sqrt{\sigma^2 + \varepsilon}$ depend on every $x_i$, so the
# gradient of $\hat x$ is not just $g / \sigma$. Differentiating through both gives,
# per row (with $g = \partial L/\partial \hat x$ and means over the row),
#
# $$\frac{\partial L}{\partial x} = \frac{1}{\sigma}\Big(g - \overline{g} - \hat x\, \overline{g \hat x}\Big).$$
#
# The two subtracted terms are the paths through $\mu$ and through $\sigma$. Write
# `layer_norm_backward(x, gy, eps)` in NumPy for $\hat x$ (no weight and bias: their
# part is just `gy * weight`).

# %%
def layer_norm_backward(x, gy, eps=1e-5):
    ### BEGIN SOLUTION
    mu = x.mean(axis=-1, keepdims=True)
    sigma = np.sqrt(((x - mu) ** 2).mean(axis=-1, keepdims=True) + eps)
    xhat = (x - mu) / sigma
    return (gy - gy.mean(axis=-1, keepdims=True)
            - xhat * (gy * xhat).mean(axis=-1, keepdims=True)) / sigma
    ### END SOLUTION

# %% tags=["check"]
check_layer_norm_backward(layer_norm_backward)
ok("layer_norm_backward includes the paths through the mean and through sigma")

# %% [markdown]
# ## The transformer block
#
# A block has two branches, each added back to its input (a **residual connection**, so
# the gradient has a direct path through every block): attention, which mixes
# information *between* tokens, and a two-layer MLP, which works on each token alone.
# GPT-2 and most models since put the LayerNorm at the **start** of each branch
# (**Pre-LN**; Xiong et al., 2020), which trains stably without a warm-up:
#
# $$x \leftarrow x + \mathrm{Attn}(\mathrm{LN}_1(x)),\qquad x \leftarrow x + \mathrm{MLP}(\mathrm{LN}_2(x)).$$
#
# `nn.TransformerEncoderLayer(..., norm_first=True)` is this block (with PyTorch's
# parameter names). Its modules are `self_attn`, `norm1`, `norm2`, `linear1`,
# `linear2`; the MLP is `linear2(relu(linear1(h)))`.
#
# ## Exercise 6 — a Pre-LN block
#
# Write the `forward` of `PreLNBlock`, which uses the modules of a given layer. The
# attention returns `(output, weights)`; pass `attn_mask=self.future(T)` (True where
# attending is not allowed) and `need_weights=False`.

# %%
class PreLNBlock(nn.Module):
    """A causal Pre-LN transformer block made of a TransformerEncoderLayer's modules."""

    def __init__(self, layer):
        super().__init__()
        self.attn, self.ln1, self.ln2 = layer.self_attn, layer.norm1, layer.norm2
        self.fc1, self.fc2 = layer.linear1, layer.linear2

    @staticmethod
    def future(t):
        return np.triu(np.ones((t, t), dtype=bool), k=1)

    def forward(self, x):
        ### BEGIN SOLUTION
        h = self.ln1(x)
        a, _ = self.attn(h, h, h, attn_mask=self.future(x.shape[1]), need_weights=False)
        x = x + a
        return x + self.fc2(F.relu(self.fc1(self.ln2(x))))
        ### END SOLUTION


layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True,
                                   norm_first=True, dtype=np.float64, rng=0)

# %% tags=["check"]
check_pre_ln_block(PreLNBlock, layer)
ok("PreLNBlock: x + attn(ln1(x)) with the causal mask, then x + mlp(ln2(x))")

# %% [markdown]
# ## The block as a graph
#
# `viz.draw_graph(..., module=layer, group_modules=True)` draws a box around each
# sub-module. The attention box holds the whole core — the projections, the reshapes
# into heads, `Q Kᵀ`, the masked softmax and `weights @ V`; the two `Add` nodes outside
# the boxes are the residual connections, each with one edge coming straight from the
# block's input.

# %%
x_small = Variable(np.random.default_rng(2).normal(size=(1, 3, 8)), name="x")
out = layer(x_small, src_mask=PreLNBlock.future(3)).sum()
viz.draw_graph(out, module=layer, group_modules=True, show_shapes=False)

# %% [markdown]
# ## Summary
#
# * Attention is $\mathrm{softmax}(QK^\top/\sqrt d)\,V$: the scale keeps the scores'
#   spread at about 1 whatever the width; a causal mask fills the future scores with
#   $-\infty$, so their weights and their gradients are exactly 0.
# * Softmax's backward is $w \odot (g - \langle g, w\rangle)$: its Jacobian
#   $w_i(\delta_{ij} - w_j)$ without building it; each row of the result sums to 0.
# * Multi-head attention cuts each token's features into contiguous slices: reshape to
#   `(N, T, H, D/H)`, then move the heads in front of time.
# * LayerNorm normalises each token with the biased variance; its backward subtracts the
#   paths through the mean and through the standard deviation.
# * A Pre-LN block is $x + \mathrm{Attn}(\mathrm{LN}_1 x)$, then $x + \mathrm{MLP}(\mathrm{LN}_2 x)$:
#   the residuals give the gradient a straight path, and `x`'s gradient is the sum of
#   what every branch sends back.
#
# **Next:** notebook 15 trains language models — from counting pairs of letters to a
# small GPT built from these blocks.
#
# **Further reading:** A. Vaswani et al., "Attention Is All You Need" (2017);
# J. L. Ba, J. R. Kiros, G. E. Hinton, "Layer Normalization" (2016); R. Xiong et al.,
# "On Layer Normalization in the Transformer Architecture" (2020).
