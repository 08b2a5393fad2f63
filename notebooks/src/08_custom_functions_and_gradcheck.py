# %% [markdown]
# # 08 · Writing your own Function and checking it with `gradcheck`
#
# Sooner or later you need an operation the library does not have, or a numerically
# safer version of one it has. This notebook walks through a complete minitorch op —
# `forward` and a differentiable `backward`, then the same op written once as a `vjp` —
# and the tools that tell you it is right: `gradcheck`, `gradgradcheck`, and the engine's
# own shape check.
#
# **Learning goals.** After this notebook you can
#
# 1. write a Function with a NumPy `forward` and a `backward(self, gy)` in minitorch ops;
# 2. write the same gradient once as `vjp(self, xp, xs, y, gy)`, which serves both the
#    fast first-order path and `create_graph=True`;
# 3. verify it with `gradcheck` and read a `GradcheckError`;
# 4. read the engine's shape error and fix a missing `sum_to`;
# 5. decide between composing existing ops and writing a new Function.

# %%
import matplotlib.pyplot as plt
import numpy as np

import minitorch.ops as F
from checks import check_backward_is_differentiable, check_close, check_gradient, check_true, ok
from checks_build import check_close_diagnosed, exercise
from checks_nb08 import check_backward, check_skips_constant
from minitorch import Function, GradcheckError, Variable, gradcheck, gradgradcheck

# %% [markdown]
# ## Anatomy of an op: `Softplus`
#
# $\operatorname{softplus}(x) = \log(1 + e^x)$ is a smooth ReLU. Written naively it
# overflows: `np.exp(1000)` is `inf`. Two things make a dedicated Function worthwhile:
# the stable forward `np.logaddexp(0, x)`, and a backward that reuses a known closed
# form, $\frac{d}{dx}\operatorname{softplus}(x) = \sigma(x) = \frac{1}{1+e^{-x}}$.
#
# * `forward(x)` — pure NumPy on arrays.
# * `backward(gy)` — the chain rule, $g_x = g_y \, \sigma(x)$, written with **minitorch
#   ops** on Variables (`self.inputs`), so it can itself be differentiated
#   (`create_graph=True`, notebook 06). A plain `backward()` runs it too, on constants.

# %%
class Softplus(Function):
    """y = log(1 + exp(x));  dy/dx = sigmoid(x)."""

    def forward(self, x):
        return np.logaddexp(0.0, x)  # log(e^0 + e^x) without overflow

    def backward(self, gy):
        (x,) = self.inputs
        return gy * F.sigmoid(x)


def softplus(x):
    return Softplus()(x)


x = Variable(np.array([-1000.0, -1.0, 0.0, 1.0, 1000.0]))
y = softplus(x)
y.backward()
for xi, yi, gi in zip(x.data, y.data, x.grad.data):
    print(f"x = {xi:8.1f}   softplus = {yi:10.4f}   derivative = {gi:.4f}")

# %% [markdown]
# ## The same op, written once as a `vjp`
#
# A `backward` on Variables records a graph even when nobody will differentiate it again:
# on an ordinary first-order pass that is wasted work. minitorch's own ops therefore write
# their gradient once, as a **vector-Jacobian product**
# `vjp(self, xp, xs, y, gy)`, against a namespace `xp` of array functions:
#
# * on a plain `backward()`, `xp` is NumPy and `xs`, `y`, `gy` are ndarrays — fast, no
#   graph;
# * under `backward(create_graph=True)`, `xp` holds the minitorch ops and `xs`, `y`, `gy`
#   are Variables — the same lines build a differentiable gradient.
#
# `xs` are the inputs, `y` the output (handy: $\sigma(x)$ is $1 - e^{-y}$ for softplus).
# Arithmetic (`+ - * / ** @`) works on both kinds; everything else goes through `xp`
# (`xp.exp`, `xp.tanh`, `xp.sigmoid`, `xp.sum_to`, `xp.reshape`, ...), never `np.*`.

# %%
class SoftplusVjp(Function):
    """Softplus with its gradient written once, for both paths."""

    def forward(self, x):
        return np.logaddexp(0.0, x)

    def vjp(self, xp, xs, y, gy):
        (x,) = xs
        return gy * xp.sigmoid(x)


x0 = np.linspace(-3, 3, 7)
for create_graph in (False, True):
    v = Variable(x0)
    SoftplusVjp()(v).sum().backward(create_graph=create_graph)
    print(f"create_graph={create_graph!s:5}: gradient {np.round(v.grad.data, 4)}, "
          f"a graph of its own: {v.grad.creator is not None}")

# %% [markdown]
# ## `gradcheck`: the finite-difference referee
#
# `gradcheck(f, *inputs)` builds the scalar $L = \sum w \cdot f(x)$ with fixed random
# weights (so every output element matters) and computes $\partial L/\partial x$ with a
# plain `backward()` and with `backward(create_graph=True)`, comparing each, element by
# element, with central differences in float64 (notebook 01). `gradgradcheck` first
# checks the first derivative in the same way, then does the same for the *gradient*
# function, which tests that the backward is differentiable too.

# %%
print(f"gradcheck(softplus):     {gradcheck(softplus, x0)}")
print(f"gradgradcheck(softplus): {gradgradcheck(softplus, x0)}")
print(f"gradgradcheck(vjp form): {gradgradcheck(lambda v: SoftplusVjp()(v), x0)}")

# %% [markdown]
# What does a failure look like? Here is a Softplus whose `vjp` flipped a sign — a
# typical slip. The error names the input, the worst element, and the values: the wrong
# one and the finite difference.

# %%
class BuggySoftplus(SoftplusVjp):
    def vjp(self, xp, xs, y, gy):
        (x,) = xs
        return gy * (1 - xp.sigmoid(x))  # bug: sigmoid(-x), the mirror image


try:
    gradcheck(lambda v: BuggySoftplus()(v), x0)
except GradcheckError as err:
    print(f"GradcheckError: {err}")

# %% [markdown]
# Those numbers do not look like derivatives of softplus — a derivative of softplus
# lies between 0 and 1. The reason: `gradcheck` differentiates $L = \sum_i w_i f(x_i)$
# with *random* weights $w_i$ (some negative), so it compares $w_i f'(x_i)$, not
# $f'(x_i)$. The weights make sure no error can cancel in the sum, at the price of
# numbers you cannot check by hand. The course's `check_gradient` therefore first compares
# the plain derivative, the gradient of $\sum_i f(x_i)$, element by element — numbers you
# can recognise — and only then runs `gradcheck`. The second example is a slip in a
# `backward` written directly (`SquaredSoftplus`): both of the engine's paths run it, so
# the same check catches it:

# %%
try:
    check_gradient("BuggySoftplus", lambda v: BuggySoftplus()(v), x0)
except AssertionError as err:
    print(err)
print(f"the true derivative there is sigmoid(x) = {1 / (1 + np.exp(-x0[0])):.4f}\n")


class SquaredSoftplus(Softplus):
    def backward(self, gy):
        (x,) = self.inputs
        return gy * F.sigmoid(x) ** 2  # bug: sigmoid squared


try:
    check_gradient("SquaredSoftplus", lambda v: SquaredSoftplus()(v), x0)
except AssertionError as err:
    print(err)

# %% [markdown]
# A picture makes the same point: the buggy derivative is the mirror image of the
# true one.

# %%
grid = Variable(np.linspace(-5, 5, 101))
softplus(grid).backward()
good = grid.grad.data.copy()
grid.clear_grad()
BuggySoftplus()(grid).backward()
fig, ax = plt.subplots(figsize=(6, 3.3))
ax.plot(grid.data, np.logaddexp(0, grid.data), label="softplus(x)")
ax.plot(grid.data, good, label="backward (correct)")
ax.plot(grid.data, grid.grad.data, "--", label="backward (buggy)")
ax.legend()
ax.set_xlabel("x")
ax.set_title("A sign slip in backward, caught by gradcheck")
plt.show()

# %% [markdown]
# ## The engine's shape check
#
# A gradient must have its input's shape (notebook 07). The classic mistake is a binary
# op on broadcast inputs that forgets to reduce the gradient. The engine stops at once,
# naming the Function, the input and both shapes — much easier to debug than a wrong
# number three layers later.

# %%
class ScaleByVector(Function):
    """y = x * s with s of shape (D,) broadcast over the rows of x."""

    def forward(self, x, s):
        return x * s

    def backward(self, gy):
        x, s = self.inputs
        return gy * s, gy * x  # bug: the second gradient has x's shape, not s's


try:
    ScaleByVector()(Variable(np.ones((4, 3))), Variable(np.ones(3))).backward()
except ValueError as err:
    print(f"ValueError: {err}")

# %% [markdown]
# `needs_input_grad` is the last tool: a tuple of booleans, one per input, that tells a
# `vjp` which gradients are wanted. Labels, masks and constants need none, so an op can
# return `None` for them and skip the work.
#
# ## Exercises
#
# In each exercise cell, replace `raise NotImplementedError()` (and the comment above it)
# with your code, run the cell, then run the check cell below it.
#
# ### Exercise 1 — a stable `LogCosh`, with its `backward`
#
# $\log\cosh x$ is a smooth absolute value (a robust regression loss). The direct
# formula overflows for $|x| > 710$. Use the stable form
# $\log\cosh x = |x| + \log\!\left(1 + e^{-2|x|}\right) - \log 2$
# (`np.log1p` helps) in `forward`, and the derivative
# $\frac{d}{dx}\log\cosh x = \tanh x$ in `backward(self, gy)`, written with minitorch
# ops (`F.tanh`) on `self.inputs`.

# %%
class LogCosh(Function):
    def forward(self, x):
        ### BEGIN SOLUTION
        ax = np.abs(x)
        return ax + np.log1p(np.exp(-2.0 * ax)) - np.log(2.0)
        ### END SOLUTION

    def backward(self, gy):
        ### BEGIN SOLUTION
        (x,) = self.inputs
        return gy * F.tanh(x)
        ### END SOLUTION

# %% tags=["check"]
x_test = np.array([-3.0, -0.5, 0.0, 0.7, 2.5])
with exercise("LogCosh forward"):
    small = LogCosh()(Variable(x_test))
    big = LogCosh()(Variable(np.array([-1000.0, 1000.0])))
check_close_diagnosed("LogCosh forward", small, np.log(np.cosh(x_test)), {
    "subtract log 2: |x| + log(1 + exp(-2|x|)) - log 2": np.log(np.cosh(x_test)) + np.log(2.0),
    "that is tanh(x), the derivative: forward returns log cosh x": np.tanh(x_test)})
check_close("LogCosh forward at +-1000", big, np.array([1000 - np.log(2)] * 2),
            hint="use the stable form with |x|: np.cosh(1000) overflows")
# the gradient on both of the engine's paths against finite differences, then the
# second derivative (backward must be written in minitorch ops to be differentiable)
check_backward("LogCosh", LogCosh, x_test)
check_backward_is_differentiable("LogCosh", lambda v: LogCosh()(v), x_test)
ok("LogCosh is stable, its backward is right, and it is twice differentiable")

# %% [markdown]
# ### Exercise 2 — a broadcasting `Hypot`, written once as a `vjp`
#
# `Hypot` computes $y = \sqrt{x_0^2 + x_1^2}$ elementwise, with NumPy broadcasting. The
# partial derivatives are $x_0 / y$ and $x_1 / y$ (the output `y` is an argument of
# `vjp`). Write `vjp(self, xp, xs, y, gy)`: reduce each gradient to its input's shape
# with `xp.sum_to(g, shape)`, and return `None` for an input whose
# `self.needs_input_grad[i]` is False.

# %%
class Hypot(Function):
    def forward(self, x0, x1):
        return np.hypot(x0, x1)

    def vjp(self, xp, xs, y, gy):
        x0, x1 = xs
        ### BEGIN SOLUTION
        gx0 = xp.sum_to(gy * x0 / y, x0.shape) if self.needs_input_grad[0] else None
        gx1 = xp.sum_to(gy * x1 / y, x1.shape) if self.needs_input_grad[1] else None
        return gx0, gx1
        ### END SOLUTION

# %% tags=["check"]
a_test = np.array([[3.0, -1.0, 0.5], [1.0, 2.0, -2.0]])
b_test = np.array([4.0, 1.0, -1.5])
check_backward("Hypot", globals().get("Hypot"), a_test, b_test)
check_gradient("Hypot", lambda u, v: Hypot()(u, v), a_test, b_test)
# the other way round, and both inputs broadcast: (3,) with (2, 3), (2, 1) with (3,)
check_backward("Hypot", globals().get("Hypot"), b_test, a_test)
check_gradient("Hypot", lambda u, v: Hypot()(u, v), a_test[:, :1], b_test)
# b a plain array: a constant, whose gradient nobody needs
check_skips_constant("Hypot", globals().get("Hypot"), a_test, b_test)
ok("Hypot broadcasts, reduces with sum_to and skips unneeded work, in one vjp")

# %% [markdown]
# ### Exercise 3 — compose before you derive
#
# Not every new operation needs a Function. If it is a composition of existing
# differentiable ops, autograd derives it for free, and the backward is correct by
# construction. Write `swish(x)` $= x\,\sigma(x)$ as a plain Python function of minitorch
# ops (`F.sigmoid`) — no new Function.

# %%
def swish(x):
    ### BEGIN SOLUTION
    return x * F.sigmoid(x)
    ### END SOLUTION

# %% tags=["check"]
x_test = np.linspace(-4, 4, 9)
with exercise("swish(x)"):
    out = swish(Variable(x_test))
check_true(out is not None, "swish returned None: did you forget `return`?")
check_true(hasattr(out, "creator"), f"swish returned a {type(out).__name__}, not a Variable: "
           "build swish from minitorch ops on the Variable (x * F.sigmoid(x)), no .data and "
           "no np.*, so that autograd can differentiate it")
sig = 1 / (1 + np.exp(-x_test))
check_close_diagnosed("swish forward", out, x_test * sig, {
    "the factor x is missing: swish is x * sigmoid(x)": sig,
    "sigma is the sigmoid, not tanh": x_test * np.tanh(x_test),
    "sigmoid(x), not sigmoid(-x)": x_test * (1 - sig),
    "multiply x by sigmoid(x), don't add": x_test + sig})
check_true(out.creator is not None, "swish(x) has no creator: NumPy on x.data, wrapped in a "
           "new Variable, cuts the graph; build it from minitorch ops, x * F.sigmoid(x)")
check_true(type(out.creator).__module__.startswith("minitorch."),
           "swish should be built from minitorch ops, not from a new Function")
cut = "is a constant to autograd (x.data or np.*): use x * F.sigmoid(x)"
check_gradient("swish", swish, x_test, mistakes={
    f"the sigmoid factor {cut}": lambda u: [1 / (1 + np.exp(-u))],
    f"the factor x {cut}": lambda u: [u * np.exp(-u) / (1 + np.exp(-u)) ** 2]})
ok("swish is a composition, and its gradient comes for free")

# %% [markdown]
# When would you still write a Function? When the composition is numerically unstable
# (softplus, log-softmax), or when a hand-written backward is much cheaper in time or
# memory than the composed graph (softmax cross-entropy, convolution).
#
# ## Summary
#
# * A Function has a NumPy `forward` and a gradient: a `backward(self, gy)` written in
#   minitorch ops is the direct way, and differentiable.
# * The way minitorch's own ops are written: the gradient once, as
#   `vjp(self, xp, xs, y, gy)`; `xp` is NumPy on a plain `backward()` (fast, no graph)
#   and the minitorch ops under `create_graph=True` (differentiable).
# * `gradcheck` compares the gradients of a plain `backward()` and of
#   `backward(create_graph=True)` with central differences, and names the worst element;
#   `gradgradcheck` checks the first derivative the same way, then that the backward is
#   differentiable.
# * The engine refuses a gradient whose shape differs from its input's; broadcasting
#   binary ops reduce with `sum_to`.
# * `needs_input_grad` lets a vjp skip gradients nobody wants.
# * Compose existing ops when you can; write a Function for stability or speed.
#
# **Next:** [09 · A first neural network](09_first_neural_network.ipynb).
