# %% [markdown]
# # 10 · Classification: spirals and handwritten digits
#
# Regression predicts a number; classification picks one of $C$ classes. The network
# outputs $C$ scores ("logits"), softmax turns them into probabilities, and
# cross-entropy measures how much probability went to the right class. We train on two
# datasets: three interleaved spirals (2-D, so we can *see* what the network learned)
# and scikit-learn's 8×8 handwritten digits, in mini-batches.
#
# **Learning goals.** After this notebook you can
#
# 1. compute softmax stably and explain the max-shift;
# 2. explain softmax cross-entropy and why its gradient is `softmax - one_hot`;
# 3. train in mini-batches with `DataLoader` and log metrics per epoch;
# 4. read training curves and a decision boundary, and measure test accuracy.

# %%
%matplotlib inline
import matplotlib.pyplot as plt
import numpy as np

import minitorch.ops as F
from checks import check_close, check_true, ok
from checks_build import exercise
from checks_nb10 import (adam_variants, check_cross_entropy_np, check_optimizer,
                         check_softmax_np, check_train_epoch, sgd_variants)
from minitorch import History, Variable, data, manual_seed, nn, no_grad, optim
from viz.plots import plot_decision_boundary, plot_history

# %% [markdown]
# ## From scores to probabilities: softmax
#
# $$\operatorname{softmax}(z)_k = \frac{e^{z_k}}{\sum_j e^{z_j}}$$
#
# makes the scores positive and sum to one, and keeps their order. Adding a constant to
# every score does not change it — which is exactly what makes it computable: subtract
# the largest score first, so no $e^{z}$ overflows.

# %%
z = np.array([2.0, 1.0, 0.1])
p = F.softmax(Variable(z))
print("softmax([2, 1, 0.1]) =", ", ".join(f"{v:.4f}" for v in p.data))
big = F.softmax(Variable(np.array([1000.0, 999.0, 998.1])))
print("softmax([1000, 999, 998.1]) =", ", ".join(f"{v:.4f}" for v in big.data))

# %% [markdown]
# ## Cross-entropy
#
# For a true class $t$, the loss is $-\log p_t$: zero when the network puts all
# probability on $t$, large when it puts almost none there. Averaged over a batch, this
# is `F.softmax_cross_entropy(logits, labels)`. Its gradient with respect to the logits
# is beautifully simple, $\frac{1}{N}(\operatorname{softmax}(z) - \text{one\_hot}(t))$:
# push up the right class, push down the others in proportion to their probability.

# %%
logits = Variable(np.array([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]]))
labels = np.array([0, 2])
loss = F.softmax_cross_entropy(logits, labels)
loss.backward()
expected = (F.softmax(Variable(logits.data)).data - np.eye(3)[labels]) / 2
print(f"loss = {loss.item():.4f}")
print(f"gradient equals (softmax - one_hot) / N: {np.allclose(logits.grad.data, expected)}")

# %% [markdown]
# ## The spiral
#
# 300 points in three arms. No straight line separates them, so a linear classifier
# fails; a hidden layer bends the decision boundaries. We train in **mini-batches** of 30
# shuffled points: each step sees a different sample, which is cheaper than the whole set
# and adds helpful noise. `DataLoader` does the batching and shuffling (seeded, so runs
# repeat exactly), and `History` keeps one row of metrics per epoch.

# %%
train_set = data.Spiral(train=True)
loader = data.DataLoader(train_set, batch_size=30, shuffle=True, seed=0)

manual_seed(0)
model = nn.MLP([2, 30, 3], activation="tanh", rng=0)
optimizer = optim.Adam(model.parameters(), lr=0.05)
history = History()
for epoch in range(60):
    total = 0.0
    for x_batch, t_batch in loader:
        loss = F.softmax_cross_entropy(model(x_batch), t_batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * len(t_batch)
    with no_grad():
        acc = F.accuracy(model(train_set.data), train_set.label)
    history.log(loss=total / len(train_set), accuracy=acc)
print(f"after {len(history.steps)} epochs: loss {history['loss'][-1]:.2f}, "
      f"accuracy {history['accuracy'][-1]:.2f}")

# %%
plot_history(history, title="spiral: training curves")

# %% [markdown]
# The decision boundary shows what the network learned: each region of the plane is
# coloured by the class it would predict there. Three curved arms — something no linear
# model can draw.

# %%
plot_decision_boundary(lambda pts: model(pts.astype(np.float32)), train_set.data,
                       train_set.label)

# %% [markdown]
# ## Handwritten digits
#
# The digits are 8×8 grey images (64 inputs), ten classes. We hold out 20 % as a test
# set: the accuracy that matters is on images the network never trained on.

# %%
digits_train, digits_test = data.Digits(train=True), data.Digits(train=False)
fig, axes = plt.subplots(1, 8, figsize=(8, 1.4))
for ax, image, label in zip(axes, digits_train.data[:8], digits_train.label[:8]):
    ax.imshow(image.reshape(8, 8), cmap="gray_r")
    ax.set_title(str(label))
    ax.axis("off")
plt.show()
print(f"{len(digits_train)} training and {len(digits_test)} test images")

# %%
manual_seed(0)
digit_model = nn.MLP([64, 64, 10], activation="relu", rng=0)
digit_opt = optim.Adam(digit_model.parameters(), lr=0.005)
digit_loader = data.DataLoader(digits_train, batch_size=64, shuffle=True, seed=0)
digit_history = History()
for epoch in range(15):
    for x_batch, t_batch in digit_loader:
        loss = F.softmax_cross_entropy(digit_model(x_batch), t_batch)
        digit_opt.zero_grad()
        loss.backward()
        digit_opt.step()
    with no_grad():
        train_acc = F.accuracy(digit_model(digits_train.data), digits_train.label)
        test_acc = F.accuracy(digit_model(digits_test.data), digits_test.label)
    digit_history.log(train_accuracy=train_acc, test_accuracy=test_acc)
print(f"test accuracy after 15 epochs: {test_acc:.2f}")
plot_history(digit_history, title="digits: accuracy per epoch")

# %% [markdown]
# Training accuracy creeping above test accuracy is the first sign of overfitting: the
# network starts to memorise the training images. With about 1400 training images and a
# small network the gap stays small.
#
# ## Exercises
#
# In each exercise cell, replace `raise NotImplementedError()` (and the comment above it)
# with your code, run the cell, then run the check cell below it.
#
# ### Exercise 1 — a stable softmax in NumPy
#
# Write `softmax_np(z)` for a 2-D array of scores (one row per example), normalising
# each row. Subtract each row's maximum before exponentiating (`keepdims=True` helps).

# %%
def softmax_np(z):
    ### BEGIN SOLUTION
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
    ### END SOLUTION

# %% tags=["check"]
check_softmax_np(globals().get("softmax_np"))
ok("softmax_np is right and does not overflow")

# %% [markdown]
# ### Exercise 2 — cross-entropy in NumPy
#
# Write `cross_entropy_np(z, t)`: the mean over rows of $-\log \operatorname{softmax}(z)_{t}$,
# with `z` of shape `(N, C)` and integer labels `t` of shape `(N,)`. Use the log-sum-exp
# form, which needs no division and stays finite where $p_t$ underflows to 0:
# $-\log \operatorname{softmax}(z)_t = \log \sum_j e^{z_j - m} - (z_t - m)$ with $m$ the
# row's maximum. Pick each row's entry with `a[np.arange(N), t]`. (It does not need
# Exercise 1.)

# %%
def cross_entropy_np(z, t):
    ### BEGIN SOLUTION
    shifted = z - z.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return float(-log_p[np.arange(len(t)), t].mean())
    ### END SOLUTION

# %% tags=["check"]
check_cross_entropy_np(globals().get("cross_entropy_np"))
check_close("cross_entropy_np of a confident right answer",
            cross_entropy_np(np.array([[20.0, 0.0]]), np.array([0])), 0.0, atol=1e-6)
ok("cross_entropy_np matches the definition")

# %% [markdown]
# ### Exercise 3 — one epoch of mini-batch training
#
# Write `train_epoch(model, loader, optimizer)`: for each batch of the loader, compute
# the softmax cross-entropy loss, clear the gradients, backpropagate and step; return the
# mean loss over the batches (a float). The check trains a fresh model on the spiral with
# it.

# %%
def train_epoch(model, loader, optimizer):
    ### BEGIN SOLUTION
    losses = []
    for x_batch, t_batch in loader:
        loss = F.softmax_cross_entropy(model(x_batch), t_batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return float(np.mean(losses))
    ### END SOLUTION

# %% tags=["check"]
# one epoch against a reference loop from the same seeds
check_train_epoch(globals().get("train_epoch"), train_set)
manual_seed(0)
fresh = nn.MLP([2, 30, 3], activation="tanh", rng=0)
fresh_opt = optim.Adam(fresh.parameters(), lr=0.05)
with exercise("train_epoch(fresh, loader, fresh_opt)"):
    epoch_losses = [train_epoch(fresh, loader, fresh_opt) for _ in range(40)]
check_true(epoch_losses[-1] < 0.5 * epoch_losses[0],
           f"the loss went from {epoch_losses[0]:.3f} to {epoch_losses[-1]:.3f} in 40 epochs")
with no_grad():
    acc = F.accuracy(fresh(train_set.data), train_set.label)
check_true(acc > 0.85, f"training accuracy is only {acc:.2f} after 40 epochs")
ok(f"train_epoch trains the spiral classifier (accuracy {acc:.2f})")

# %% [markdown]
# ### Exercise 4 — SGD with momentum
#
# Plain SGD steps along the current gradient only. **Momentum** keeps a velocity per
# parameter, a running sum of past gradients that decays by a factor $\mu$ per step:
#
# $$v \leftarrow \mu v + g, \qquad p \leftarrow p - \eta\, v$$
#
# with $v = 0$ before the first step (PyTorch's `SGD(momentum=...)`, and minitorch's).
# In a long narrow valley the gradient components across the valley flip sign and
# cancel in $v$, while those along it add up — the step grows in the useful direction.
#
# Write `MySGD`: make one velocity array per parameter in `__init__`
# (`np.zeros_like(p.data)`), and in `step()` update each parameter that has a gradient
# (`p.grad.data` is its array). The check runs 6 steps of yours and of
# `optim.SGD(params, lr=0.05, momentum=0.9)` on the same problem and compares every step.

# %%
class MySGD:
    def __init__(self, params, lr, momentum=0.9):
        self.params = list(params)
        self.lr, self.momentum = lr, momentum
        ### BEGIN SOLUTION
        self.velocities = [np.zeros_like(p.data) for p in self.params]
        ### END SOLUTION

    def zero_grad(self):
        for p in self.params:
            p.clear_grad()

    def step(self):
        ### BEGIN SOLUTION
        for p, v in zip(self.params, self.velocities):
            if p.grad is None:
                continue
            v *= self.momentum
            v += p.grad.data
            p.data -= self.lr * v
        ### END SOLUTION

# %% tags=["check"]
check_optimizer("MySGD", lambda ps: MySGD(ps, lr=0.05, momentum=0.9),
                lambda ps: optim.SGD(ps, lr=0.05, momentum=0.9), sgd_variants(0.05, 0.9))
ok("MySGD takes the same 6 steps as optim.SGD(momentum=0.9)")

# %% [markdown]
# ### Exercise 5 — Adam, with bias correction
#
# Adam (Kingma & Ba, 2015) keeps two running averages per parameter, of the gradient
# and of its square, and divides one by the square root of the other, so every
# coordinate moves by roughly the learning rate whatever the scale of its gradient.
# At step $t = 1, 2, \dots$:
#
# $$m \leftarrow \beta_1 m + (1-\beta_1) g, \qquad v \leftarrow \beta_2 v + (1-\beta_2) g^2,$$
# $$\hat m = \frac{m}{1-\beta_1^t}, \qquad \hat v = \frac{v}{1-\beta_2^t}, \qquad
# p \leftarrow p - \eta\, \frac{\hat m}{\sqrt{\hat v} + \epsilon}.$$
#
# $m$ and $v$ start at zero, so early on they are too small — at $t = 1$, $m = 0.1\,g$.
# The **bias correction** divides that shrinkage out ($1 - 0.9^1 = 0.1$); it matters in
# the first few dozen steps, and without it the first steps are wrong.
#
# Write `MyAdam` (`m`, `v` one array per parameter, and the step count `t` on `self`).
# The check compares 6 steps with `optim.Adam(params, lr=0.1)`.

# %%
class MyAdam:
    def __init__(self, params, lr=0.001, betas=(0.9, 0.999), eps=1e-8):
        self.params = list(params)
        self.lr, self.betas, self.eps = lr, betas, eps
        ### BEGIN SOLUTION
        self.m = [np.zeros_like(p.data) for p in self.params]
        self.v = [np.zeros_like(p.data) for p in self.params]
        self.t = 0
        ### END SOLUTION

    def zero_grad(self):
        for p in self.params:
            p.clear_grad()

    def step(self):
        ### BEGIN SOLUTION
        beta1, beta2 = self.betas
        self.t += 1
        for p, m, v in zip(self.params, self.m, self.v):
            if p.grad is None:
                continue
            g = p.grad.data
            m *= beta1
            m += (1 - beta1) * g
            v *= beta2
            v += (1 - beta2) * g * g
            m_hat = m / (1 - beta1**self.t)
            v_hat = v / (1 - beta2**self.t)
            p.data -= self.lr * m_hat / (np.sqrt(v_hat) + self.eps)
        ### END SOLUTION

# %% tags=["check"]
check_optimizer("MyAdam", lambda ps: MyAdam(ps, lr=0.1), lambda ps: optim.Adam(ps, lr=0.1),
                adam_variants(0.1, (0.9, 0.999), 1e-8))
ok("MyAdam takes the same 6 steps as optim.Adam, bias correction included")

# %% [markdown]
# ## Summary
#
# * Softmax turns scores into probabilities; subtracting the maximum keeps it finite.
# * Cross-entropy $-\log p_t$ punishes confident mistakes; with softmax its gradient is
#   `(softmax - one_hot) / N`, which is why the two are fused into one stable op.
# * `DataLoader` yields shuffled mini-batches; `History` records per-epoch metrics for
#   `viz.plots.plot_history`; `plot_decision_boundary` shows what a 2-D classifier learned.
# * Measure accuracy on held-out data: the training accuracy flatters.
# * An optimizer is a loop over the parameters with a little state per parameter: a
#   velocity for momentum, two moments and a step count for Adam.
#
# **Next:** [11 · Convolutions and recurrent networks](11_conv_and_rnn.ipynb).
