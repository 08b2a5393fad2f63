# %% [markdown]
# # 16 · Memory and cost: what training keeps, and how to keep less
#
# Backward needs values from the forward pass: $\frac{d}{dx}\sin x = \cos x$ reads $x$.
# So every Function that records a graph *keeps* some arrays until backward has used
# them, and on a real network these kept **activations**, not the weights, are what
# fills the memory. This notebook counts them in bytes:
#
# | what | how big | here |
# |---|---|---|
# | the arrays each op keeps for backward | what its gradient rule reads | Exercise 1 |
# | a Function of your own that keeps less | its `saves` declaration | Exercise 2 |
# | checkpointing: recompute instead of keeping | one block's input per block | Exercise 3 |
# | the optimizer's state | 0, 1 or 2 copies of the parameters | Exercise 4 |
#
# **Learning goals.** After this notebook you can
#
# 1. predict the bytes a graph keeps for backward from each op's gradient rule;
# 2. write a Function that declares what it saves, and measure it with `minitorch.profile()`;
# 3. trade compute for memory with `minitorch.checkpoint`, and size an optimizer's state.

# %%
%matplotlib inline
import matplotlib.pyplot as plt
import numpy as np

import minitorch
import minitorch.ops as F
import viz
from checks import ok
from checks_nb16 import (check_checkpointed, check_predicted_saved_bytes,
                         check_sigmoid_function, check_state_bytes)
from minitorch import Function, Variable, nn, optim
from minitorch.core import saved_arrays

np.set_printoptions(precision=4, suppress=True)

# %% [markdown]
# ## What an op keeps is what its gradient rule reads
#
# Each rule of backward reads some of the forward's values, and only those need to
# stay alive:
#
# | op | rule | keeps |
# |---|---|---|
# | `x + c` | $g_x = g_y$ | nothing |
# | `exp(x)` | $g_x = g_y \cdot y$ | its output $y$ |
# | `sin(x)` | $g_x = g_y \cdot \cos x$ | its input $x$ |
# | `sum(x)` | $g_x = g_y$ broadcast to `x.shape` | nothing (the shape only) |
#
# Each Function declares it in its class attribute `saves`, a tuple of `"inputs"` and
# `"output"` (PyTorch's `ctx.save_for_backward`); `saved_arrays(func)` lists what one
# Function kept. An array of `n` float64 numbers takes `8 * n` bytes (`a.nbytes`).

# %%
h = F.exp(Variable(np.ones(3)))
for y in (h + 1.0, h, F.sin(h), F.sum(h)):
    print(f"{type(y.creator).__name__:4} saves {type(y.creator).saves}")
print(f"np.ones(1000).nbytes = {np.ones(1000).nbytes} bytes")

# %% [markdown]
# ## Exercise 1 — predict the saved bytes
#
# For `x = Variable(np.ones(n))` (float64), the graph of
# `y = F.sum(F.sin(F.exp(x) + 1.0))` has four Functions. Write
# `predicted_saved_bytes(n)`: return a dict with the bytes each one keeps for backward,
# `{"Exp": ..., "Add": ..., "Sin": ..., "Sum": ...}` — by reasoning from the table
# above, not by running the graph.

# %%
def predicted_saved_bytes(n):
    ### BEGIN SOLUTION
    one_array = 8 * n
    return {"Exp": one_array, "Add": 0, "Sin": one_array, "Sum": 0}
    ### END SOLUTION

# %% tags=["check"]
check_predicted_saved_bytes(predicted_saved_bytes)
ok("Exp keeps its output, Sin its input, Add and Sum nothing: 8 bytes per float64")

# %% [markdown]
# The picture writes under each Function what it keeps (`show_memory=True`), and under
# the graph the total (a kB here is 1,024 bytes: 7.81 kB are your 8,000);
# `minitorch.profile()` measures the same while the code runs, with the time and the
# FLOPs of each op, and the *peak* of what was alive at once — the saved arrays, but also
# `x`, the outputs and the gradients while backward runs:

# %%
x = Variable(np.ones(1000))
y = F.sum(F.sin(F.exp(x) + 1.0))
viz.draw_graph(y, show_memory=True, show_shapes=False, rankdir="LR")

# %%
with minitorch.profile() as prof:
    y = F.sum(F.sin(F.exp(x) + 1.0))
    y.backward()
saved = {row.name: row.saved_bytes for row in prof.rows}
print({name: saved[name] for name in ("Exp", "Add", "Sin", "Sum")})
print(f"peak live bytes: {prof.peak_bytes}")

# %% [markdown]
# ## Exercise 2 — a Function that saves only what it needs
#
# A Function you write keeps its inputs **and** its output by default
# (`saves = ("inputs", "output")`), so that `self.inputs` and `self.output()` both work in
# its `backward`. The sigmoid $y = 1 / (1 + e^{-x})$ has the derivative
# $y\,(1 - y)$: written from the output, its rule needs nothing else.
#
# The library's ops declare it once per class (`saves = ("output",)` for `Exp`); a
# Function can also decide it per input, by overriding `saves_input(self, i)`: return
# `True` to keep input `i` for backward, `False` to let it go (it may read
# `self.needs_input_grad`, nothing else — `Mul` keeps `x1` only when `x0` needs a
# gradient). Write `class Sigmoid(Function)`: `forward(self, x)` on NumPy arrays,
# `backward(self, gy)` that computes $g_x = g_y \cdot y (1 - y)$ from `y = self.output()`,
# and `saves_input` so that the Function keeps its output only.

# %%
class Sigmoid(Function):
    def forward(self, x):
        ### BEGIN SOLUTION
        return 1.0 / (1.0 + np.exp(-x))
        ### END SOLUTION

    def backward(self, gy):
        ### BEGIN SOLUTION
        y = self.output()
        return gy * y * (1.0 - y)
        ### END SOLUTION

    def saves_input(self, i):
        ### BEGIN SOLUTION
        return False  # the rule reads only the output
        ### END SOLUTION

# %% tags=["check"]
check_sigmoid_function(Sigmoid)
ok("Sigmoid keeps one array, its output, and its gradient is gy * y * (1 - y)")

# %% [markdown]
# The library's ops say the same once per class, with `saves = ("output",)`. Without a
# declaration the same Function keeps the input too — twice the bytes, for a rule that
# never reads it (both classes are written here, so this cell does not depend on your
# answer):

# %%
class SigmoidDeclared(Function):
    saves = ("output",)  # what the rule reads, for every call

    def forward(self, x):
        return 1.0 / (1.0 + np.exp(-x))

    def backward(self, gy):
        y = self.output()
        return gy * y * (1.0 - y)


class SigmoidKeepingAll(SigmoidDeclared):
    saves = ("inputs", "output")  # the default


x = Variable(np.random.default_rng(0).normal(size=(256, 256))) * 1.0  # an intermediate
for cls in (SigmoidDeclared, SigmoidKeepingAll):
    kept = saved_arrays(cls()(x).creator)
    n_bytes = sum(a.nbytes for a in kept)
    print(f"{cls.__name__:17} keeps {n_bytes:>9,} bytes in {len(kept)} array(s)")

# %% [markdown]
# ## Checkpointing: recompute instead of keeping
#
# A deep network keeps about one activation per layer until backward. **Gradient
# checkpointing** (Chen et al., 2016) keeps only each *block's* input: when the gradient
# reaches the block, `minitorch.checkpoint(block, h)` runs the block again on that input
# and differentiates it on the spot. The gradients are the same; the price is one more
# forward pass.
#
# ```
# plain:        x ─[L─T─L─T]─[L─T─L─T]─[L─T─L─T]─ y     keeps every layer's values
# checkpointed: x ─[ block ]─[ block ]─[ block ]─ y     keeps 3 block inputs, recomputes
# ```
#
# ## Exercise 3 — checkpoint each block
#
# Write `checkpointed(blocks, x)`: run the blocks one after the other, each through
# `minitorch.checkpoint(block, h)`, and return the last output (one Variable).

# %%
def checkpointed(blocks, x):
    ### BEGIN SOLUTION
    h = x
    for block in blocks:
        h = minitorch.checkpoint(block, h)
    return h
    ### END SOLUTION

# %% tags=["check"]
check_checkpointed(checkpointed)
ok("checkpointed runs every block through minitorch.checkpoint: same value, same gradient")

# %% [markdown]
# On 16 layers of `Linear(256, 256)` and `Tanh` (a batch of 512, float64), in 4 blocks
# of 4 layers, the profiler's peak of the live graph, and how often `Linear` ran (a
# checkpointed block runs twice):

# %%
minitorch.manual_seed(0)
layers = [nn.Sequential(nn.Linear(256, 256), nn.Tanh()) for _ in range(16)]
blocks = [nn.Sequential(*layers[i : i + 4]) for i in range(0, 16, 4)]
batch = np.random.default_rng(0).normal(size=(512, 256))


def forward(h, keep_less):  # the same loop as Exercise 3's, here so it needs no answer
    for block in blocks:
        h = minitorch.checkpoint(block, h) if keep_less else block(h)
    return h


peaks, linear_calls = {}, {}
for name, keep_less in (("plain", False), ("checkpointed", True)):
    with minitorch.profile() as prof:
        loss = (forward(Variable(batch), keep_less) ** 2).sum()
        loss.backward()
    peaks[name] = prof.peak_bytes / 2**20
    linear_calls[name] = sum(row.calls for row in prof.rows if row.name == "Linear")
    del loss
for name in peaks:
    print(f"{name:12}: peak {peaks[name]:5.1f} MiB, Linear run {linear_calls[name]} times")

# %%
fig, ax = plt.subplots(figsize=(8, 2.8), layout="constrained")
ax.barh(list(peaks), list(peaks.values()), color=["#D55E00", "#0072B2"])
ax.set_xlabel("peak live bytes of the graph (MiB)", fontsize=13)
ax.tick_params(labelsize=13)
ax.invert_yaxis()
plt.show()

# %% [markdown]
# ## The optimizer's state
#
# The parameters and their gradients take one copy of the parameters each, whatever
# the optimizer. On top of that an optimizer keeps **state** between steps: plain SGD
# nothing, SGD with momentum one buffer per parameter, and Adam two — its running first
# and second moments `m` and `v`, each the parameter's shape. For a large model Adam's
# state is twice the model.
#
# ## Exercise 4 — size the state
#
# Write `state_bytes(n_params, optimizer, itemsize=8)`: the bytes of the state that
# `optimizer` (`"SGD"`, `"SGD momentum"` or `"Adam"`) keeps for `n_params` numbers of
# `itemsize` bytes each (8 for float64, 4 for float32). Count the state only — not the
# parameters, not their gradients.

# %%
def state_bytes(n_params, optimizer, itemsize=8):
    ### BEGIN SOLUTION
    copies = {"SGD": 0, "SGD momentum": 1, "Adam": 2}[optimizer]
    return copies * n_params * itemsize
    ### END SOLUTION

# %% tags=["check"]
check_state_bytes(state_bytes)
ok("state_bytes: SGD keeps nothing, momentum one copy, Adam two (m and v)")

# %% [markdown]
# Measured on an MLP after one step: the arrays in each optimizer's `state`, and the
# whole memory of a training step beside them (the activations of a batch of 512):

# %%
def measured_state(make_optimizer):
    minitorch.manual_seed(0)
    model = nn.MLP([256, 512, 512, 10], "relu")
    opt = make_optimizer(model.parameters())
    loss = F.softmax_cross_entropy(model(np.ones((512, 256))), np.zeros(512, dtype=int))
    opt.zero_grad()
    loss.backward()
    opt.step()
    arrays = [a for s in opt.state for a in s.values() if isinstance(a, np.ndarray)]
    return sum(p.data.nbytes for p in model.parameters()), sum(a.nbytes for a in arrays)


optimizers = {"SGD": lambda p: optim.SGD(p, lr=0.1),
              "SGD momentum": lambda p: optim.SGD(p, lr=0.1, momentum=0.9),
              "Adam": lambda p: optim.Adam(p, lr=1e-3)}
measured = {name: measured_state(make) for name, make in optimizers.items()}
params = measured["SGD"][0]
for name, (_, state) in measured.items():
    print(f"{name:12}: state {state / params:.0f} x the parameters ({state:,} bytes)")

# %%
with minitorch.profile() as prof:
    model = nn.MLP([256, 512, 512, 10], "relu")
    F.softmax_cross_entropy(model(np.ones((512, 256))), np.zeros(512, dtype=int)).backward()
parts = {"parameters": params, "gradients": params, "Adam's m and v": measured["Adam"][1],
         "graph at its peak (batch 512)": prof.peak_bytes}
fig, ax = plt.subplots(figsize=(8, 3.2), layout="constrained")
ax.barh(list(parts), [v / 2**20 for v in parts.values()], color="#0072B2")
ax.set_xlabel("MiB (float64)", fontsize=13)
ax.tick_params(labelsize=13)
ax.invert_yaxis()
plt.show()

# %% [markdown]
# ## Summary
#
# * Backward keeps, per Function, what its gradient rule reads: `Add` and `Sum` nothing,
#   `Exp` its output, `Sin` its input — 8 bytes per float64 element.
# * A Function declares it in `saves` (default: inputs and output), or per input in
#   `saves_input(i)`; a rule written from the output, like the sigmoid's $y(1 - y)$,
#   needs the output only.
# * `minitorch.profile()` shows each op's calls, time, FLOPs and saved bytes, and the peak
#   of the live graph; `viz.draw_graph(y, show_memory=True)` draws them.
# * `minitorch.checkpoint(block, h)` keeps a block's input only and recomputes the block
#   in backward: less memory for one more forward pass, the same gradients.
# * SGD keeps no state, momentum one copy of the parameters, Adam two (`m` and `v`).
#
# **Further reading:** T. Chen, B. Xu, C. Zhang, C. Guestrin, "Training Deep Nets with
# Sublinear Memory Cost" (2016); D. P. Kingma, J. Ba, "Adam: A Method for Stochastic
# Optimization" (ICLR 2015); S. Rajbhandari et al., "ZeRO: Memory Optimizations Toward
# Training Trillion Parameter Models" (2020).
