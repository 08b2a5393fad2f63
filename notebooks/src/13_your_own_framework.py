# %% [markdown]
# # 13 · Capstone: your own framework
#
# Twelve notebooks took minitorch apart. Now you put a framework together yourself —
# about a hundred lines of NumPy — and train it on the handwritten digits. It imports
# **nothing from minitorch except the data loaders**; at the end its gradients are
# compared with minitorch's on the same batch, number for number.
#
# The pieces are the ones you met along the way, in a simpler form (gradients are plain
# ndarrays, so there are no second derivatives here):
#
# | piece | where you met it | here |
# |---|---|---|
# | `Tensor`, `Function` | 01–04 | given, except `call` (Exercise 1) |
# | the backward engine | 02–03 | Exercise 2 |
# | a layer's backward: `Linear`, `ReLU` | 07–08 | Exercise 3 |
# | softmax cross-entropy | 10 | Exercise 4 |
# | `Module` with parameter registration | 09 | Exercise 5 |
# | the Adam optimizer | 10 | Exercise 6 |
# | training to ≥ 95 % test accuracy | 10 | Exercise 7 |
# | gradients checked against minitorch | 08 | Exercise 8 |
#
# Every exercise is checked on its own. The training (Exercise 7) needs all the pieces:
# for a piece whose check does not pass yet, the notebook uses a reference version and
# says so, so you can do the exercises in any order. (The references live in
# `checks_nb13_reference.py`; looking there first spoils the fun.)
#
# **Learning goals.** After this notebook you can
#
# 1. write the core of an autograd framework — a recorded graph and a reverse-order
#    gradient pass — from scratch;
# 2. connect layers, a loss, a Module and an optimizer into a training loop;
# 3. verify a framework against a reference implementation.

# %%
import matplotlib.pyplot as plt
import numpy as np

from checks import check_true, ok
from checks_build import pieces_used, yours_or_reference
from checks_nb09 import check_registration
from checks_nb13 import (check_batch_gradients, check_call, check_capstone_adam, check_engine,
                         check_function_backward, check_no_minitorch, check_relu_at_zero,
                         check_softmax_ce, diagnose_training, record_training)
from checks_nb13_reference import reference_pieces
from minitorch.data import DataLoader, Digits  # the only thing taken from minitorch

# %% [markdown]
# ## The two classes everything hangs on
#
# A `Tensor` holds an array `data`, its gradient `grad` (an ndarray of the same shape,
# or `None`) and its `creator`, the Function that computed it (`None` for inputs and
# parameters). A `Function` has a `forward(*arrays) -> array` and a
# `backward(gy) -> one gradient per input`; calling it runs `call(f, *inputs)`, which you
# write next. `Tensor.backward()` runs the engine, `backward(y)`, which you write after.

# %%
class Tensor:
    """An array with a gradient and a link to the Function that made it."""

    def __init__(self, data, creator=None):
        self.data = np.asarray(data, dtype=np.float64)
        self.grad = None
        self.creator = creator

    @property
    def shape(self):
        return self.data.shape

    def backward(self):
        backward(self)  # the engine of Exercise 2

    def __repr__(self):
        return f"Tensor({self.data!r})"


class Function:
    """Subclasses define forward(*arrays) -> array and backward(gy) -> gradients."""

    def __call__(self, *inputs):
        return call(self, *inputs)  # Exercise 1


class Parameter(Tensor):
    """A Tensor that a Module should train."""

# %% [markdown]
# ## Exercise 1 — calling a Function records the graph
#
# Write `call(f, *inputs)`:
#
# 1. wrap every input that is not a `Tensor` (an ndarray: a constant) in a `Tensor`;
# 2. run `f.forward` on the inputs' arrays (`.data`);
# 3. store the input Tensors as `f.inputs` (a list) and the result, wrapped as
#    `Tensor(result, creator=f)`, as `f.output`; return that output.
#
# `f.inputs` and `f.output` are what the engine will walk along.

# %%
def call(f, *inputs):
    ### BEGIN SOLUTION
    inputs = [x if isinstance(x, Tensor) else Tensor(x) for x in inputs]
    f.inputs = inputs
    f.output = Tensor(f.forward(*[x.data for x in inputs]), creator=f)
    return f.output
    ### END SOLUTION

# %% tags=["check"]
check_call(globals().get("call"), Tensor, Function)
ok("call wraps the inputs, runs forward on arrays and records inputs, output and creator")

# %% [markdown]
# ## Exercise 2 — the backward engine
#
# Write `backward(y)`. It sets `y.grad = np.ones_like(y.data)` and then calls each
# Function's `backward` once, giving it the gradient of its output
# (`f.backward(f.output.grad)`), and hands the returned gradients to `f.inputs`: a
# Tensor used several times **adds** its gradients (`x.grad = g` the first time,
# `x.grad = x.grad + g` after).
#
# The order matters: a Function may only run once *all* the gradient of its output has
# arrived, that is after every Function that used its output. That is a **reverse
# topological order**. One way: a depth-first search from `y.creator` that appends each
# Function to a list *after* visiting the creators of its inputs (skip `None` creators and
# Functions already seen) — then walk the list backwards. `backward` may return a single
# array instead of a tuple when there is one input; a `None` gradient means "no gradient".

# %%
def backward(y):
    ### BEGIN SOLUTION
    order, seen = [], set()

    def visit(f):
        if f is None or id(f) in seen:
            return
        seen.add(id(f))
        for x in f.inputs:
            visit(x.creator)
        order.append(f)

    visit(y.creator)
    y.grad = np.ones_like(y.data)
    for f in reversed(order):
        grads = f.backward(f.output.grad)
        if not isinstance(grads, tuple):
            grads = (grads,)
        for x, g in zip(f.inputs, grads):
            if g is not None:
                x.grad = g if x.grad is None else x.grad + g
    ### END SOLUTION

# %% tags=["check"]
check_engine(globals().get("backward"), Tensor)
ok("backward visits the graph in reverse topological order and adds up shared gradients")

# %% [markdown]
# ## Exercise 3 — a layer's backward: `Linear` and `ReLU`
#
# `Linear` computes `x @ W.T + b` for a batch `x` `(N, D_in)`, weights `W`
# `(D_out, D_in)` (PyTorch's layout) and bias `b` `(D_out,)`. Its backward gets `gy`
# `(N, D_out)` and returns the three gradients, each of its input's shape (notebook 07):
# $g_x = g_y W$, $g_W = g_y^\top x$, $g_b = \sum_n g_y$ (the bias is broadcast over the
# batch, so its gradient sums over it). `ReLU` passes the gradient where the input was
# positive. Read the inputs' arrays from `self.inputs`.

# %%
class Linear(Function):
    def forward(self, x, W, b):
        return x @ W.T + b

    def backward(self, gy):
        x, W, b = (t.data for t in self.inputs)
        ### BEGIN SOLUTION
        return gy @ W, gy.T @ x, gy.sum(axis=0)
        ### END SOLUTION


class ReLU(Function):
    def forward(self, x):
        return np.maximum(x, 0.0)

    def backward(self, gy):
        (x,) = (t.data for t in self.inputs)
        ### BEGIN SOLUTION
        return gy * (x > 0)
        ### END SOLUTION

# %% tags=["check"]
check_rng = np.random.default_rng(0)
xs3, Ws3, bs3 = (check_rng.standard_normal((5, 4)), check_rng.standard_normal((3, 4)),
                 check_rng.standard_normal(3))
check_function_backward(
    "Linear", globals().get("Linear"), Tensor, [xs3, Ws3, bs3], ["x", "W", "b"],
    lambda gy: {2: {"b's gradient is the *sum* of gy over the batch, not the mean":
                    gy.mean(axis=0)}},
    shape_hints=["g_x = gy @ W: (N, D_out) @ (D_out, D_in)",
                 "W is (D_out, D_in), so g_W = gy.T @ x (not x.T @ gy, which is transposed)",
                 "b was broadcast over the batch: sum gy over axis 0"])
x_relu = np.array([[-1.5, 0.5, 2.0], [0.3, -0.2, -3.0]])
check_function_backward("ReLU", globals().get("ReLU"), Tensor, [x_relu], ["x"], lambda gy: {0: {
    "multiply by gy: the gradient is gy where x > 0, else 0": (x_relu > 0) * 1.0,
    "gy passes where x > 0 (where the unit is active), not where x < 0": gy * (x_relu < 0),
    "the mask is missing: gy * (x > 0)": gy,
    "that is gy * x: the derivative of max(x, 0) is 1 where x > 0, 0 elsewhere": gy * x_relu,
    "that is gy * max(x, 0), the output: the derivative is the mask (x > 0)":
    gy * np.maximum(x_relu, 0)}})
check_relu_at_zero(globals().get("ReLU"), Tensor)
ok("Linear and ReLU give the right gradients for every input")

# %% [markdown]
# ## Exercise 4 — softmax cross-entropy
#
# `SoftmaxCrossEntropy(labels)` turns logits `z` `(N, C)` into the mean loss
# $-\frac{1}{N}\sum_n \log \operatorname{softmax}(z_n)_{t_n}$ (notebook 10). Compute it
# stably: subtract each row's maximum, then
# $\log \operatorname{softmax}(z) = z - \log \sum_j e^{z_j}$. The backward gets a number
# `gy` (the loss is a scalar) and returns `gy * (softmax(z) - one_hot(t)) / N`. Keep
# what the backward needs on `self` in `forward`.

# %%
class SoftmaxCrossEntropy(Function):
    def __init__(self, labels):
        self.labels = np.asarray(labels)

    def forward(self, z):
        ### BEGIN SOLUTION
        shifted = z - z.max(axis=1, keepdims=True)
        self.log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        return -self.log_p[np.arange(len(z)), self.labels].mean()
        ### END SOLUTION

    def backward(self, gy):
        ### BEGIN SOLUTION
        n = len(self.labels)
        grad = np.exp(self.log_p)
        grad[np.arange(n), self.labels] -= 1.0
        return gy * grad / n
        ### END SOLUTION

# %% tags=["check"]
check_softmax_ce(globals().get("SoftmaxCrossEntropy"), Tensor)
ok("SoftmaxCrossEntropy is stable, and its gradient is (softmax - one_hot) / N")

# %% [markdown]
# ## Exercise 5 — `Module`: finding the parameters
#
# As in notebook 09: `__setattr__` registers every `Parameter` in `self._params` and
# every `Module` in `self._modules` (by name, in assignment order) and then sets the
# attribute with `object.__setattr__`; `parameters()` yields the module's own Parameters,
# then those of each sub-module. (`zero_grad` and `__call__` are given.)

# %%
class Module:
    def __init__(self):
        object.__setattr__(self, "_params", {})
        object.__setattr__(self, "_modules", {})

    def __setattr__(self, name, value):
        ### BEGIN SOLUTION
        self._params.pop(name, None)
        self._modules.pop(name, None)
        if isinstance(value, Parameter):
            self._params[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)
        ### END SOLUTION

    def parameters(self):
        ### BEGIN SOLUTION
        yield from self._params.values()
        for module in self._modules.values():
            yield from module.parameters()
        ### END SOLUTION

    def zero_grad(self):
        for p in self.parameters():
            p.grad = None

    def __call__(self, *args):
        return self.forward(*args)

# %% tags=["check"]
check_registration(globals().get("Module"), Parameter, Tensor)
ok("Module registers Parameters and sub-modules")

# %% [markdown]
# ## Exercise 6 — the Adam optimizer
#
# As in notebook 10, but here `p.grad` is already an ndarray. Per parameter, moments
# `m` and `v` (zeros at first); at step `t = 1, 2, ...`:
# `m = b1*m + (1-b1)*g`, `v = b2*v + (1-b2)*g*g`, and
# `p.data -= lr * m_hat / (sqrt(v_hat) + eps)` with `m_hat = m / (1 - b1**t)`,
# `v_hat = v / (1 - b2**t)`. Skip parameters whose `grad` is `None`.

# %%
class Adam:
    def __init__(self, params, lr=0.001, betas=(0.9, 0.999), eps=1e-8):
        self.params = list(params)
        self.lr, self.betas, self.eps = lr, betas, eps
        ### BEGIN SOLUTION
        self.t = 0
        self.m = [np.zeros_like(p.data) for p in self.params]
        self.v = [np.zeros_like(p.data) for p in self.params]
        ### END SOLUTION

    def step(self):
        ### BEGIN SOLUTION
        b1, b2 = self.betas
        self.t += 1
        for p, m, v in zip(self.params, self.m, self.v):
            if p.grad is None:
                continue
            m *= b1
            m += (1 - b1) * p.grad
            v *= b2
            v += (1 - b2) * p.grad**2
            m_hat, v_hat = m / (1 - b1**self.t), v / (1 - b2**self.t)
            p.data -= self.lr * m_hat / (np.sqrt(v_hat) + self.eps)
        ### END SOLUTION

# %% tags=["check"]
check_capstone_adam(lambda ps: Adam(ps, lr=0.1), Parameter)
ok("your Adam takes the same 6 steps as minitorch's")

# %% [markdown]
# ## Assembling the framework
#
# The cell below picks, for each piece, yours if its check passes and a reference
# version otherwise, and prints which. (When all say "your", this is entirely your
# framework.) Then come the model classes, given: a dense layer — a Module holding `W`
# and `b` and applying your `Linear` — and a two-layer network.

# %%
reference = reference_pieces(Tensor, Function, Parameter)
# globals().get: a piece whose cell never ran (or stopped with a syntax error) is None here,
# and its stand-in takes over instead of a NameError in this cell.
call = yours_or_reference("call", globals().get("call"), reference["call"],
                          lambda f: check_call(f, Tensor, Function))
backward = yours_or_reference("backward", globals().get("backward"), reference["backward"],
                              lambda f: check_engine(f, Tensor))
Linear = yours_or_reference("Linear", globals().get("Linear"), reference["Linear"],
                            lambda cls: check_function_backward(
                                "Linear", cls, Tensor, [np.ones((2, 3)), np.ones((4, 3)),
                                                        np.ones(4)], ["x", "W", "b"]))
ReLU = yours_or_reference("ReLU", globals().get("ReLU"), reference["ReLU"],
                          lambda cls: check_function_backward(
                              "ReLU", cls, Tensor, [np.array([[-1.0, 2.0]])], ["x"]))
SoftmaxCrossEntropy = yours_or_reference("SoftmaxCrossEntropy",
                                         globals().get("SoftmaxCrossEntropy"),
                                         reference["SoftmaxCrossEntropy"],
                                         lambda cls: check_softmax_ce(cls, Tensor))
Module = yours_or_reference("Module", globals().get("Module"), reference["Module"],
                            lambda cls: check_registration(cls, Parameter, Tensor))
Adam = yours_or_reference("Adam", globals().get("Adam"), reference["Adam"],
                          lambda cls: check_capstone_adam(lambda ps: cls(ps, lr=0.1),
                                                          Parameter))
PIECES = ("call", "backward", "Linear", "ReLU", "SoftmaxCrossEntropy", "Module", "Adam")


class Dense(Module):
    def __init__(self, n_in, n_out, rng):
        super().__init__()
        self.W = Parameter(rng.standard_normal((n_out, n_in)) * np.sqrt(2.0 / n_in))  # He
        self.b = Parameter(np.zeros(n_out))

    def forward(self, x):
        return Linear()(x, self.W, self.b)


class MLP(Module):
    def __init__(self, n_in, hidden, n_out, seed=0):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.l1 = Dense(n_in, hidden, rng)
        self.l2 = Dense(hidden, n_out, rng)

    def forward(self, x):
        return self.l2(ReLU()(self.l1(x)))


def accuracy(model, x, t):
    """The fraction of rows of x whose largest score is the label t."""
    return float(np.mean(model(x).data.argmax(axis=1) == t))

# %% [markdown]
# ## Exercise 7 — train it on the digits
#
# The cell below builds the model, the optimizer and a shuffling loader (minitorch's
# `DataLoader`, the one piece we borrow). Write the training loop: for each of 15 epochs,
# for each batch `(xb, tb)`: the loss `SoftmaxCrossEntropy(tb)(model(xb))`,
# `model.zero_grad()`, `loss.backward()`, `optimizer.step()`. The check wants
# **≥ 95 %** accuracy on the 359 test images, and checks that the framework itself uses
# nothing from minitorch.

# %%
train_set, test_set = Digits(train=True), Digits(train=False)
model = MLP(64, 64, 10, seed=0)
optimizer = Adam(model.parameters(), lr=0.005)
loader = DataLoader(train_set, batch_size=64, shuffle=True, seed=0)
untrained = [p.data.copy() for p in model.parameters()]  # so the check can tell
loader_state = loader.rng.bit_generator.state  # whether the loop ran
events = record_training(model, optimizer)  # what the loop calls, for the check
### BEGIN SOLUTION
for epoch in range(15):
    for xb, tb in loader:
        loss = SoftmaxCrossEntropy(tb)(model(xb))
        model.zero_grad()
        loss.backward()
        optimizer.step()
### END SOLUTION
print(f"test accuracy: {accuracy(model, test_set.data, test_set.label):.3f}")

# %% tags=["check"]
check_no_minitorch(globals())
diagnose_training(model, untrained, loader, loader_state,
                  lambda m, x, t: SoftmaxCrossEntropy(t)(m(x)), events)
test_accuracy = accuracy(model, test_set.data, test_set.label)
check_true(test_accuracy > 0.2,
           f"test accuracy {test_accuracy:.2f} is chance level although the weights were "
           "trained: the loss of a batch must compare the model's scores with that batch's "
           "labels, SoftmaxCrossEntropy(tb)(model(xb))")
check_true(test_accuracy >= 0.95,
           f"test accuracy {test_accuracy:.3f} is below 0.95: train longer (15 epochs "
           "of batches of 64 with Adam, lr=0.005, reach about 0.98)")
ok(f"your training loop reads handwritten digits {pieces_used(*PIECES)}: "
   f"{test_accuracy:.1%} test accuracy")

# %% [markdown]
# What does it read? The first 16 test images, with your network's answer above each
# (red where it is wrong), and the confusion matrix over all 359: row = the true digit,
# column = the answer; everything off the diagonal is a mistake.

# %%
predicted = model(test_set.data).data.argmax(axis=1)
fig = plt.figure(figsize=(10, 3.6))
for k in range(16):
    ax = fig.add_subplot(2, 12, k + 1 + (k // 8) * 4)
    ax.imshow(test_set.data[k].reshape(8, 8), cmap="gray_r")
    right = predicted[k] == test_set.label[k]
    ax.set_title(str(predicted[k]), color="black" if right else "crimson", fontsize=9)
    ax.axis("off")
confusion = np.zeros((10, 10), dtype=int)
np.add.at(confusion, (test_set.label, predicted), 1)
ax = fig.add_axes([0.70, 0.1, 0.28, 0.8])
ax.imshow(np.log1p(confusion), cmap="Blues")
for (i, j), n in np.ndenumerate(confusion):
    if n:
        ax.text(j, i, str(n), ha="center", va="center", fontsize=6,
                color="white" if n > 20 else "black")
ax.set_xlabel("answer", fontsize=8)
ax.set_ylabel("true digit", fontsize=8)
ax.set_xticks(range(10))
ax.set_yticks(range(10))
ax.tick_params(labelsize=7)
plt.show()

# %% [markdown]
# ## Exercise 8 — the same gradients as minitorch
#
# Write `batch_gradients(model, x, t)`: clear the gradients, compute the loss on the
# batch and run backward, and return the list of gradients (ndarrays) in the order of
# `model.parameters()`. The check builds minitorch layers with the same weights, runs
# minitorch's `softmax_cross_entropy` on the same batch, and compares all four
# gradients.

# %%
def batch_gradients(model, x, t):
    ### BEGIN SOLUTION
    model.zero_grad()
    SoftmaxCrossEntropy(t)(model(x)).backward()
    return [p.grad for p in model.parameters()]
    ### END SOLUTION

# %% tags=["check"]
gap = check_batch_gradients(globals().get("batch_gradients"), MLP, test_set.data[:32],
                            test_set.label[:32])
check_true(gap < 1e-10, f"the gradients differ from minitorch's by up to {gap:.2g}")
ok("your framework's gradients equal minitorch's on the same batch (to 1e-10)")

# %% [markdown]
# ## Summary
#
# * An autograd framework is two ideas: calling a Function records its inputs and output
#   (the graph), and the backward pass visits that graph in reverse topological order,
#   adding up the gradients of values used more than once.
# * A layer is a Function with a forward and a hand-derived backward; a loss is one too.
# * A Module finds its parameters through `__setattr__`; an optimizer keeps a little
#   state per parameter.
# * A framework is verified the way each op was: against an independent reference — here
#   minitorch, number for number.
#
# From here, minitorch adds what a real framework needs on top: gradients as Variables
# (so backward can be differentiated again, notebook 06), broadcasting in every op
# (notebook 07), memory care (weak references to outputs, freeing gradients early) and
# many more ops. Read `minitorch/core/backward.py` next to your `backward` — the loop is
# the same.
#
# **What your framework could reproduce.** The pieces you built here — Functions with a
# backward, a Module that finds its parameters, SGD with momentum and Adam, softmax
# cross-entropy, a DataLoader — are all that the first rungs of minitorch's historical
# milestones need (`docs/milestones.md`): Rosenblatt's perceptron (1958), XOR with one
# hidden layer (1969) and Rumelhart, Hinton and Williams' sigmoid MLP on real digits
# (1986). `make milestones` (or
# `python -m examples.milestones run perceptron xor backprop`) runs them offline with
# minitorch; convolutions (LeNet-5, 1998), embeddings (Bengio's language model, 2003),
# batch norm (2015) and attention (2017) are the later rungs, built in notebooks 11, 14
# and 15.
