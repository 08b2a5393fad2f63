# %% [markdown]
# # 09 · Linear regression and a first neural network
#
# Everything so far was machinery. Now we use it: fit a straight line by gradient
# descent, then let a small neural network learn a curve no straight line can follow.
# Along the way we meet the three classes every PyTorch-style library has — `Module`,
# `Parameter` and `Optimizer` — and see that each one only packages a loop we could write
# by hand.
#
# **Learning goals.** After this notebook you can
#
# 1. write the training loop *forward → loss → backward → update* by hand;
# 2. explain why a hidden layer with a non-linearity can fit curves a linear model cannot;
# 3. build a model as an `nn.Module` and list its `Parameter`s;
# 4. train it with an optimizer (`optim.SGD`, `optim.Adam`) and read a loss curve.

# %%
import matplotlib.pyplot as plt
import numpy as np

import minitorch.ops as F
from checks import check_close, check_true, ok
from checks_build import exercise, pieces_used, yours_or_reference
from checks_nb09 import (ReferenceTwoLayerNet, check_loader, check_registration, check_sgd_step,
                         check_two_layer_net, diagnose_history, gradients_piled_up)
from minitorch import Parameter, Variable, data, manual_seed, nn, optim

# %% [markdown]
# ## Linear regression by hand
#
# The data: 100 points on the line $y = 2x + 5$, plus uniform noise. The model:
# $\hat y = xW + b$ with a weight `W` of shape `(1, 1)` and a bias `b` of shape `(1,)`.
# The loss: the mean squared error $L = \frac{1}{N}\sum_i (\hat y_i - y_i)^2$.
# Gradient descent nudges each parameter against its gradient:
# $W \leftarrow W - \eta\, \partial L / \partial W$.

# %%
rng = np.random.default_rng(0)
x = rng.uniform(0, 1, (100, 1))
y = 5 + 2 * x + rng.uniform(0, 1, (100, 1))

W = Variable(np.zeros((1, 1)), name="W")
b = Variable(np.zeros(1), name="b")
lr = 0.5
losses = []
for step in range(300):
    y_pred = x @ W + b
    loss = F.mean_squared_error(y_pred, y)
    W.clear_grad()
    b.clear_grad()
    loss.backward()
    W.data -= lr * W.grad.data  # the update is not part of any graph
    b.data -= lr * b.grad.data
    losses.append(loss.item())
print(f"W = {W.item():.2f}, b = {b.item():.2f}, final loss = {losses[-1]:.3f}")

# %% [markdown]
# The fitted slope and intercept are near 2 and 5.5 (the noise has mean 0.5, which
# lifts the line); from 100 noisy points they cannot be exact. Both plots tell the
# story: the line through the cloud, and the loss falling quickly, then levelling off
# at the noise's variance ($1/12 \approx 0.083$) — no line can do better than that.

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.3))
ax1.scatter(x, y, s=8)
grid = np.linspace(0, 1, 2)[:, None]
ax1.plot(grid, grid @ W.data + b.data, "r", lw=2, label=f"y = {W.item():.2f} x + {b.item():.2f}")
ax1.legend()
ax1.set_title("the fitted line")
ax2.plot(losses)
ax2.set_xlabel("step")
ax2.set_ylabel("MSE")
ax2.set_yscale("log")
ax2.set_title("the loss during training")
plt.tight_layout()
plt.show()

# %% [markdown]
# ## When a line is not enough
#
# A sine wave cannot be fitted by $xW + b$, whatever $W$ and $b$ are. The fix is a
# **hidden layer**: $h = \sigma(x W_1 + b_1)$ with, say, 10 units, then
# $\hat y = h W_2 + b_2$. Each hidden unit is a smooth step placed somewhere on the x axis
# by its weights; the output layer adds the steps up — enough of them approximate any
# continuous curve (the universal approximation theorem). The non-linearity is
# essential: without $\sigma$ the two layers collapse into one linear map.
#
# ## `Parameter`, `Module` and `Optimizer`
#
# Writing `W1, b1, W2, b2` and four update lines does not scale. Three small classes
# package it:
#
# * `Parameter` — a Variable that a model should train (just a marker subclass);
# * `nn.Module` — notices every Parameter and sub-Module assigned to it as an attribute,
#   so `model.parameters()` finds them all; `nn.Linear(in, out)` is a Module holding `W`
#   of shape `(out, in)` and `b` of shape `(out,)`, computing `x @ W.T + b`;
# * `optim.SGD` / `optim.Adam` — hold the parameter list; `step()` applies the update
#   rule and `zero_grad()` clears every gradient.

# %%
class SineNet(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.l1 = nn.Linear(1, hidden, rng=0)
        self.l2 = nn.Linear(hidden, 1, rng=1)

    def forward(self, x):
        return self.l2(F.sigmoid(self.l1(x)))


model = SineNet(10)
print(model)
for name, p in model.named_parameters():
    print(f"{name}: {type(p).__name__} of shape {p.shape}")

# %% [markdown]
# The training loop now has the same four lines for any model. We compare plain SGD with
# Adam, which adapts a step size per parameter from running averages of the gradient
# and its square, and usually needs far less tuning.

# %%
sine = data.SineCurve(num_samples=100)
xs, ys = sine.data, sine.label


def fit(model, optimizer, steps):
    history = []
    for _ in range(steps):
        loss = F.mean_squared_error(model(xs), ys)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history.append(loss.item())
    return history


manual_seed(0)
sgd_model, adam_model = SineNet(10), SineNet(10)
sgd_history = fit(sgd_model, optim.SGD(sgd_model.parameters(), lr=0.2), 2000)
adam_history = fit(adam_model, optim.Adam(adam_model.parameters(), lr=0.05), 2000)
print(f"final loss: SGD {sgd_history[-1]:.2f}, Adam {adam_history[-1]:.2f}")

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.3))
ax1.plot(sgd_history, label="SGD, lr = 0.2")
ax1.plot(adam_history, label="Adam, lr = 0.05")
ax1.set_yscale("log")
ax1.set_xlabel("step")
ax1.set_ylabel("MSE")
ax1.legend()
ax1.set_title("loss curves")
order = np.argsort(xs[:, 0])
ax2.scatter(xs, ys, s=8, color="gray")
ax2.plot(xs[order], sgd_model(xs).data[order], label="SGD")
ax2.plot(xs[order], adam_model(xs).data[order], label="Adam")
ax2.legend()
ax2.set_title("the fitted curves")
plt.tight_layout()
plt.show()

# %% [markdown]
# Adam reaches the noise level (again $1/12 \approx 0.083$) while plain SGD, with the
# same number of steps, is still crawling along a plateau: early on, all the sigmoid
# units look alike and the gradient that would separate them is tiny. Adam's per-parameter
# step sizes push through such flat regions. How to read a loss curve: a fast drop, then
# a long slow tail, then a plateau at the noise level. A curve that
# goes *up* means the learning rate is too large; one that stays flat means it is too
# small, or the model is stuck.
#
# ## Exercises
#
# In each exercise cell, replace `raise NotImplementedError()` (and the comment above it)
# with your code, run the cell, then run the check cell below it.
#
# ### Exercise 1 — an SGD step by hand
#
# Write `sgd_step(params, lr)`: for each Variable `p` in `params`, subtract
# `lr * p.grad.data` from `p.data` **in place**, then clear its gradient. Skip parameters
# whose `grad` is `None`.

# %%
def sgd_step(params, lr):
    ### BEGIN SOLUTION
    for p in params:
        if p.grad is None:
            continue
        p.data -= lr * p.grad.data
        p.clear_grad()
    ### END SOLUTION

# %% tags=["check"]
check_sgd_step(globals().get("sgd_step"))
ok("sgd_step updates in place and clears the gradients")

# %% [markdown]
# ### Exercise 2 — a Module with a hidden layer
#
# Write `TwoLayerNet(n_in, hidden, n_out)`: an `nn.Module` with two `nn.Linear` layers
# stored as `self.l1` and `self.l2`, and a `forward` computing
# `l2(tanh(l1(x)))`.

# %%
class TwoLayerNet(nn.Module):
    def __init__(self, n_in, hidden, n_out):
        super().__init__()
        ### BEGIN SOLUTION
        self.l1 = nn.Linear(n_in, hidden)
        self.l2 = nn.Linear(hidden, n_out)
        ### END SOLUTION

    def forward(self, x):
        ### BEGIN SOLUTION
        return self.l2(F.tanh(self.l1(x)))
        ### END SOLUTION

# %% tags=["check"]
check_two_layer_net(globals().get("TwoLayerNet"))
ok("TwoLayerNet registers its layers and computes l2(tanh(l1(x)))")

# %% [markdown]
# ### Exercise 3 — train it
#
# Train a `TwoLayerNet(1, 10, 1)` on the sine data (`xs`, `ys`) with `optim.Adam` so that
# the mean squared error drops **below 0.1**. Store the trained model in `trained` and
# the list of per-step losses in `history` (you may use `fit` from above, or write the
# loop yourself).
#
# This exercise builds on Exercise 2. So that it can be done (and graded) on its own, the
# next cell picks your `TwoLayerNet` if it passes Exercise 2's check, and otherwise a
# reference version; it prints which. Use the name `Net` it defines.

# %%
Net = yours_or_reference("TwoLayerNet", globals().get("TwoLayerNet"),  # None if undefined
                         ReferenceTwoLayerNet, lambda cls: check_two_layer_net(cls, quiet=True))

# %%
manual_seed(1)
### BEGIN SOLUTION
trained = Net(1, 10, 1)
history = fit(trained, optim.Adam(trained.parameters(), lr=0.05), 1500)
### END SOLUTION
print(f"loss: first {history[0]:.2f}, last {history[-1]:.2f}")

# %% tags=["check"]
with exercise("Exercise 3 (trained, history)"):
    trained, history  # both names must exist
check_true(isinstance(trained, nn.Module), "trained should be the trained model, a Net(1, 10, 1)")
piled_up = gradients_piled_up(trained, lambda m: F.mean_squared_error(m(xs), ys))
problem = diagnose_history(history, piled_up)
check_true(not problem, problem)
final = float(np.mean((trained(xs).data - ys) ** 2))
check_true(final < 0.1, f"the model's MSE on the sine data is {final:.3f} after "
           f"{len(history)} steps: " + ("train longer" if len(history) < 1000 else
                                        "use a larger learning rate")
           + " (Adam with lr=0.05 for ~1500 steps works)")
check_true(len(history) > 1 and history[-1] < history[0],
           "history should hold the loss of every step, decreasing overall")
ok(f"the network fits the sine curve (MSE {final:.2f}) {pieces_used('TwoLayerNet')}")

# %% [markdown]
# ### Exercise 4 — how a Module finds its Parameters
#
# `model.parameters()` found `l1.W, l1.b, l2.W, l2.b` although we never listed them.
# The trick is Python's `__setattr__`: every `self.name = value` inside a Module calls
# `self.__setattr__("name", value)`, and `nn.Module` overrides it to *register* Parameters
# and sub-Modules in dictionaries before setting the attribute as usual.
#
# Complete `MyModule`:
#
# * `__setattr__(name, value)`: if `value` is a `Parameter`, store it in
#   `self._params[name]`; if it is a `MyModule`, store it in `self._modules[name]`;
#   then set the attribute itself with `object.__setattr__(self, name, value)` (a plain
#   `self.name = value` here would call `__setattr__` again, forever).
# * `parameters()`: yield the module's own Parameters, then those of each sub-module
#   (call its `parameters()`), in assignment order. Dicts keep insertion order, and
#   assigning the same name twice replaces the entry.
#
# `__init__` creates the two dictionaries with `object.__setattr__` for the same reason.

# %%
class MyModule:
    def __init__(self):
        object.__setattr__(self, "_params", {})
        object.__setattr__(self, "_modules", {})

    def __setattr__(self, name, value):
        ### BEGIN SOLUTION
        self._params.pop(name, None)
        self._modules.pop(name, None)
        if isinstance(value, Parameter):
            self._params[name] = value
        elif isinstance(value, MyModule):
            self._modules[name] = value
        object.__setattr__(self, name, value)
        ### END SOLUTION

    def parameters(self):
        ### BEGIN SOLUTION
        yield from self._params.values()
        for module in self._modules.values():
            yield from module.parameters()
        ### END SOLUTION

# %% tags=["check"]
check_registration(globals().get("MyModule"), Parameter)
ok("MyModule registers Parameters and sub-modules, in order, and keeps plain attributes")

# %% [markdown]
# ### Exercise 5 — a DataLoader with shuffling and `drop_last`
#
# Notebook 10 trains in mini-batches with `data.DataLoader`. Write a small one,
# `SimpleLoader(x, t, batch_size, shuffle=True, drop_last=False, seed=None)`, for arrays
# `x` (inputs, first axis = samples) and `t` (labels):
#
# * `__init__` stores the arguments and makes one generator,
#   `self.rng = np.random.default_rng(seed)`;
# * `__iter__` is one epoch: the order is `self.rng.permutation(n)` when shuffling (a new
#   one every epoch), else `np.arange(n)`; it yields `(x[idx], t[idx])` for consecutive
#   slices `idx` of `batch_size` indices of that order — the last batch may be smaller,
#   and is skipped when `drop_last` is true;
# * `__len__` is the number of batches per epoch.
#
# A method containing `yield` is a generator: `for xb, tb in loader` then runs it.

# %%
class SimpleLoader:
    def __init__(self, x, t, batch_size, shuffle=True, drop_last=False, seed=None):
        ### BEGIN SOLUTION
        self.x, self.t = x, t
        self.batch_size, self.shuffle, self.drop_last = batch_size, shuffle, drop_last
        self.rng = np.random.default_rng(seed)
        ### END SOLUTION

    def __len__(self):
        ### BEGIN SOLUTION
        n = len(self.x)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        ### END SOLUTION

    def __iter__(self):
        ### BEGIN SOLUTION
        n = len(self.x)
        order = self.rng.permutation(n) if self.shuffle else np.arange(n)
        for i in range(len(self)):
            idx = order[i * self.batch_size : (i + 1) * self.batch_size]
            yield self.x[idx], self.t[idx]
        ### END SOLUTION

# %% tags=["check"]
check_loader(globals().get("SimpleLoader"))
ok("SimpleLoader batches, shuffles every epoch, keeps x and t together, and drops the "
   "short batch on request")

# %% [markdown]
# ## Summary
#
# * Training is a loop: forward, loss, `backward()`, update the parameters against their
#   gradients, clear the gradients.
# * A linear model fits only lines; a hidden layer with a non-linearity fits curves.
# * `Parameter` marks trainable Variables, `nn.Module` collects them from its attributes,
#   and an optimizer owns the update rule (`zero_grad()`, `step()`).
# * Adam adapts step sizes per parameter and often converges much faster than plain SGD.
# * A Module registers what is assigned to it through `__setattr__`; a DataLoader is a
#   generator over slices of a fresh permutation each epoch.
#
# **Next:** [10 · Classification](10_classification.ipynb) — spirals, handwritten digits,
# softmax cross-entropy and mini-batches.
