# %% [markdown]
# # 08 · Writing your own Function and checking it with `gradcheck`
#
# Sooner or later you need an operation the library does not have, or a numerically
# safer version of one it has. This notebook walks through a complete minitorch op —
# `forward`, a differentiable `backward`, the fast `backward_array` — and the tools that
# tell you it is right: `gradcheck`, `gradgradcheck`, and the engine's own shape check.
#
# **Learning goals.** After this notebook you can
#
# 1. write a Function with `forward`, `backward` (in minitorch ops) and `backward_array`
#    (in NumPy), and say when each is used;
# 2. verify it with `gradcheck` and read a `GradcheckError`;
# 3. read the engine's shape error and fix a missing `sum_to`;
# 4. decide between composing existing ops and writing a new Function.

# %%
import matplotlib.pyplot as plt
import numpy as np

import minitorch.ops as F
from checks import check_backward_is_differentiable, check_close, check_gradient, check_true, ok
from checks_build import exercise
from checks_nb08 import check_methods_of_function
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
# * `backward(gy)` — the same formula written with **minitorch ops** on Variables, so it
#   can itself be differentiated (`create_graph=True`, notebook 06).
# * `backward_array(gy)` — optional: the same formula in NumPy, used for ordinary
#   first-order backward. It skips building any graph, so it is faster.

# %%
class Softplus(Function):
    """y = log(1 + exp(x));  dy/dx = sigmoid(x)."""

    def forward(self, x):
        return np.logaddexp(0.0, x)  # log(e^0 + e^x) without overflow

    def backward(self, gy):
        (x,) = self.inputs
        return gy * F.sigmoid(x)

    def backward_array(self, gy):
        (x,) = self.input_arrays
        return gy * 0.5 * (1.0 + np.tanh(0.5 * x))  # sigmoid(x), without overflow in exp


def softplus(x):
    return Softplus()(x)


x = Variable(np.array([-1000.0, -1.0, 0.0, 1.0, 1000.0]))
y = softplus(x)
y.backward()
for xi, yi, gi in zip(x.data, y.data, x.grad.data):
    print(f"x = {xi:8.1f}   softplus = {yi:10.4f}   derivative = {gi:.4f}")

# %% [markdown]
# ## `gradcheck`: the finite-difference referee
#
# `gradcheck(f, *inputs)` builds the scalar $L = \sum w \cdot f(x)$ with fixed random
# weights (so every output element matters) and computes $\partial L/\partial x$
# **twice**: with a plain `backward()`, which runs your `backward_array`, and with
# `backward(create_graph=True)`, which runs your `backward`. It compares each, element by
# element, with central differences in float64 (notebook 01). The two methods must
# compute the same formula, and a mistake in either one fails the check, named as a
# mistake *there*. `gradgradcheck` first checks the first derivative in the same way, then
# does the same for the *gradient* function, which tests that `backward` is
# differentiable too.

# %%
x0 = np.linspace(-3, 3, 7)
print(f"gradcheck(softplus):     {gradcheck(softplus, x0)}")
print(f"gradgradcheck(softplus): {gradgradcheck(softplus, x0)}")

# %% [markdown]
# What does a failure look like? Here is a Softplus whose `backward_array` flipped a sign
# (`1 - tanh` instead of `1 + tanh`) — a typical slip — while its `backward` is still
# right. The error names the method that is wrong, the input, the worst element, and the
# values: the wrong one, the finite difference, and the other method's (right) one. The
# exception carries them as attributes too: `path` (`"backward_array"`, `"backward"` or
# `"both"`), `first_order` (from `backward()`), `create_graph`, `numeric`.

# %%
class BuggySoftplus(Softplus):
    def backward_array(self, gy):
        (x,) = self.input_arrays
        return gy * 0.5 * (1.0 - np.tanh(0.5 * x))  # bug: the sign of tanh is flipped


try:
    gradcheck(lambda v: BuggySoftplus()(v), x0)
except GradcheckError as err:
    print(f"GradcheckError: {err}")
    print(f"wrong method: {err.path}; failing input {err.input_index}, index {err.index}: "
          f"backward_array {err.first_order:.4f}, backward {err.create_graph:.4f}, "
          f"numeric {err.numeric:.4f}")

# %% [markdown]
# Those numbers do not look like derivatives of softplus — a derivative of softplus
# lies between 0 and 1. The reason: `gradcheck` differentiates $L = \sum_i w_i f(x_i)$
# with *random* weights $w_i$ (some negative), so it compares $w_i f'(x_i)$, not
# $f'(x_i)$. The weights make sure no error can cancel in the sum, at the price of
# numbers you cannot check by hand. The course's `check_gradient` therefore first compares
# the plain derivative, the gradient of $\sum_i f(x_i)$, element by element — numbers you
# can recognise — on both paths, naming the method that is wrong — and only then runs
# `gradcheck`. The second example below is a slip in `backward` alone, with a right
# `backward_array`: a plain `backward()` never runs it, but anything that differentiates
# with `create_graph=True` does (the second derivatives of notebook 06, Newton's method),
# so it is caught and named too:

# %%
try:
    check_gradient("BuggySoftplus", lambda v: BuggySoftplus()(v), x0)
except AssertionError as err:
    print(err)
print(f"the true derivative there is sigmoid(x) = {1 / (1 + np.exp(-x0[0])):.4f}\n")


class SquaredSoftplus(Softplus):
    def backward(self, gy):
        (x,) = self.inputs
        return gy * F.sigmoid(x) ** 2  # bug: sigmoid squared; backward_array is right


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
# `backward_array` which gradients are wanted. Labels, masks and constants need none,
# so an op can return `None` for them and skip the work.
#
# ## Exercises
#
# In each exercise cell, replace `raise NotImplementedError()` (and the comment above it)
# with your code, run the cell, then run the check cell below it.
#
# ### Exercise 1 — a stable `LogCosh`
#
# $\log\cosh x$ is a smooth absolute value (a robust regression loss). The direct
# formula overflows for $|x| > 710$. Use the stable form
# $\log\cosh x = |x| + \log\!\left(1 + e^{-2|x|}\right) - \log 2$
# (`np.log1p` helps), and the derivative $\frac{d}{dx}\log\cosh x = \tanh x$ in both
# `backward` (with `F.tanh`) and `backward_array` (with `np.tanh`).

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

    def backward_array(self, gy):
        ### BEGIN SOLUTION
        (x,) = self.input_arrays
        return gy * np.tanh(x)
        ### END SOLUTION

# %% tags=["check"]
x_test = np.array([-3.0, -0.5, 0.0, 0.7, 2.5])
with exercise("LogCosh forward"):
    small = LogCosh()(Variable(x_test))
    big = LogCosh()(Variable(np.array([-1000.0, 1000.0])))
check_close("LogCosh forward", small, np.log(np.cosh(x_test)))
check_close("LogCosh forward at +-1000", big, np.array([1000 - np.log(2)] * 2),
            hint="use the stable form with |x|: np.cosh(1000) overflows")
# Each backward against finite differences on its own, so a mistake is named where it is:
# `backward` runs with create_graph=True, `backward_array` on a plain backward().
check_methods_of_function("LogCosh", LogCosh, x_test)
check_backward_is_differentiable("LogCosh", lambda v: LogCosh()(v), x_test)
ok("LogCosh is stable, both backwards are right, and it is twice differentiable")

# %% [markdown]
# ### Exercise 2 — a broadcasting `Hypot` that skips unneeded gradients
#
# `Hypot` computes $y = \sqrt{x_0^2 + x_1^2}$ elementwise, with NumPy broadcasting. The
# partial derivatives are $x_0 / y$ and $x_1 / y$. Write `backward_array` in NumPy:
# reduce each gradient to its input's shape with `sum_to_array(g, shape)`, and return
# `None` for an input whose `self.needs_input_grad[i]` is False.

# %%
from minitorch.ops import sum_to_array


class Hypot(Function):
    def forward(self, x0, x1):
        return np.hypot(x0, x1)

    def backward_array(self, gy):
        x0, x1 = self.input_arrays
        y = self.output().data
        ### BEGIN SOLUTION
        gx0 = sum_to_array(gy * x0 / y, x0.shape) if self.needs_input_grad[0] else None
        gx1 = sum_to_array(gy * x1 / y, x1.shape) if self.needs_input_grad[1] else None
        return gx0, gx1
        ### END SOLUTION

# %% tags=["check"]
a_test = np.array([[3.0, -1.0, 0.5], [1.0, 2.0, -2.0]])
b_test = np.array([4.0, 1.0, -1.5])
with exercise("Hypot.backward_array"):
    a_var = Variable(a_test)
    Hypot()(a_var, Variable(b_test)).sum().backward()
check_gradient("Hypot", lambda u, v: Hypot()(u, v), a_test, b_test)
h = Hypot()
y_test = h(Variable(a_test), b_test)  # b is a plain array: a constant, no gradient needed
grads = h.backward_array(np.ones((2, 3)))
check_true(grads[1] is None, "the gradient of a constant input should be None "
           "(check self.needs_input_grad)")
check_close("Hypot's gradient w.r.t. x0", grads[0], a_test / np.hypot(a_test, b_test))
ok("Hypot broadcasts, reduces with sum_to and skips unneeded work")

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
check_close("swish forward", out, x_test / (1 + np.exp(-x_test)))
check_true(type(out.creator).__module__.startswith("minitorch."),
           "swish should be built from minitorch ops, not from a new Function")
check_gradient("swish", swish, x_test)
ok("swish is a composition, and its gradient comes for free")

# %% [markdown]
# When would you still write a Function? When the composition is numerically unstable
# (softplus, log-softmax), or when a hand-written backward is much cheaper in time or
# memory than the composed graph (softmax cross-entropy, convolution).
#
# ## Summary
#
# * A Function has a NumPy `forward`, a differentiable `backward` written in minitorch
#   ops, and optionally a NumPy `backward_array` for fast first-order passes. Both
#   backwards must compute the same formula.
# * `gradcheck` compares both backwards (`backward_array` through a plain `backward()`,
#   `backward` through `backward(create_graph=True)`) with central differences, and names
#   the method that is wrong and its worst element; `gradgradcheck` checks the first
#   derivative the same way, then that the backward is differentiable.
# * The engine refuses a gradient whose shape differs from its input's; broadcasting
#   binary ops reduce with `sum_to`.
# * `needs_input_grad` lets a backward skip gradients nobody wants.
# * Compose existing ops when you can; write a Function for stability or speed.
#
# **Next:** [09 · A first neural network](09_first_neural_network.ipynb).
