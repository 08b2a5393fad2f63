# %% [markdown]
# # 02 · Backpropagation: by hand, then automatically
#
# In notebook 01 we estimated derivatives by wiggling the input. That costs two function
# evaluations *per input* and keeps at best about 12 of 16 digits. Backpropagation gets
# every derivative exactly, for the price of about one extra pass through the
# computation, however many inputs there are. This notebook derives it from the chain
# rule, does it by hand, and then lets each `Function` do its own part.
#
# **Learning goals.** After this notebook you can
#
# 1. apply the chain rule to a chain of functions and say why going *backwards* is cheap;
# 2. carry out a backward pass by hand, one local derivative at a time;
# 3. write a `Function.backward` and explain what `gy` is and what it must return;
# 4. use `y.backward()` and `x.grad`, and explain why gradients accumulate.

# %%
import matplotlib.pyplot as plt
import numpy as np

import minitorch.ops as F
from checks import (
    check_backward_is_differentiable,
    check_close,
    check_defined,
    check_done,
    check_forward,
    check_gradient,
    check_is_variable,
    check_true,
    explain_errors,
    ok,
    time_limit,
)
from minitorch import Function, Variable

# %% [markdown]
# ## The chain rule, read backwards
#
# Take the chain from notebook 01: $a = x^2$, $b = e^a$, $y = b^2$. The chain rule says
#
# $$\frac{dy}{dx} = \frac{dy}{db}\,\frac{db}{da}\,\frac{da}{dx} = 2b \cdot e^a \cdot 2x.$$
#
# We can multiply the three local derivatives in either order. Multiplying from the
# **output end** means we always carry one number, $\frac{dy}{d(\text{current})}$ — the
# *gradient* of the output with respect to the variable we are at. At each step we
# multiply it by one local derivative and move one step towards the input. For a
# network with one loss and a million weights this ordering gives all million
# derivatives in one backward sweep. That is **reverse-mode automatic
# differentiation**, or backpropagation.
#
# ## By hand first
#
# The forward pass stores every intermediate value, because the local derivatives need
# them. Then the backward pass starts from $\frac{dy}{dy} = 1$.

# %%
x = 0.5
a = x**2
b = np.exp(a)
y = b**2
print(f"forward : x = {x:.4f}, a = {a:.4f}, b = {b:.4f}, y = {y:.4f}")

gy = 1.0  # dy/dy
gb = 2 * b * gy  # dy/db = dy/dy * dy/db
ga = np.exp(a) * gb  # dy/da = dy/db * db/da
gx = 2 * x * ga  # dy/dx = dy/da * da/dx
print(f"backward: gy = {gy:.4f}, gb = {gb:.4f}, ga = {ga:.4f}, gx = {gx:.4f}")

h = 1e-5
numeric = (np.exp((x + h) ** 2) ** 2 - np.exp((x - h) ** 2) ** 2) / (2 * h)
print(f"central difference: {numeric:.4f}")

# %% [markdown]
# The names follow a convention used throughout minitorch: `gx` is "the gradient of the
# final output with respect to `x`". Notice the pattern of every line of the backward
# pass: **gradient of the input = gradient of the output × local derivative**. That
# pattern is all a `Function` needs to know.
#
# ## Each Function does its own step
#
# A Function's `backward(gy)` receives the gradient of the final output with respect to
# *its output* and returns the gradient with respect to *its input*. It reads what it
# needs from `self.inputs` (the input Variables, recorded during the forward call). The
# formula is written with Variables and minitorch operations, so that in notebook 06 the
# backward pass itself can be differentiated.

# %%
class Square(Function):
    def forward(self, x):
        return x**2

    def backward(self, gy):
        (x,) = self.inputs
        return 2 * x * gy


class Exp(Function):
    def forward(self, x):
        return np.exp(x)

    def backward(self, gy):
        y = self.output()  # d(e^x)/dx = e^x: reuse the output instead of recomputing
        return y * gy


x = Variable(np.array(0.5), name="x")
a = Square()(x)
b = Exp()(a)
y = Square()(b)

# the backward pass, driven by hand through the recorded creators
y.grad = Variable(np.array(1.0))
b.grad = y.creator.backward(y.grad)
a.grad = b.creator.backward(b.grad)
x.grad = a.creator.backward(a.grad)
print(f"x.grad by hand-driven backward: {x.grad.item():.4f}")

# %% [markdown]
# The three backward lines have exactly the same shape: take a Variable's creator, feed
# it the Variable's gradient, store the result on the creator's input. A loop can do
# that — and that loop is the **backward engine**. minitorch's engine
# (`minitorch/core/backward.py`) also handles functions with several inputs, variables
# used more than once and graphs that branch (notebook 03). You just call `backward()`:

# %%
x = Variable(np.array(0.5), name="x")
y = Square()(Exp()(Square()(x)))
y.backward()
print(f"x.grad from y.backward(): {x.grad.item():.4f}")

# %% [markdown]
# ## Derivatives of whole arrays at once
#
# For an *elementwise* function, `y.backward()` on an array output seeds the gradient
# with ones, so `x.grad[i]` is $f'(x_i)$. One backward pass therefore draws the whole
# derivative curve. Here is $\tanh$ and its derivative from backpropagation, next to
# the closed form $1 - \tanh^2 x$.

# %%
xs = Variable(np.linspace(-4, 4, 201))
ys = F.tanh(xs)
ys.backward()

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(xs.data, ys.data, label="tanh(x)")
ax.plot(xs.data, xs.grad.data, lw=3, alpha=0.6, label="x.grad from backward")
ax.plot(xs.data, 1 - np.tanh(xs.data) ** 2, "k--", label="1 - tanh(x)^2")
ax.set_xlabel("x")
ax.legend()
ax.set_title("One backward pass gives the derivative at 201 points")
plt.show()
agree = np.allclose(xs.grad.data, 1 - np.tanh(xs.data) ** 2, rtol=1e-12, atol=1e-12)
print(f"backward agrees with 1 - tanh(x)^2 at all 201 points: {agree}")

# %% [markdown]
# ## Gradients accumulate
#
# If a variable is used twice, as in $y = x \cdot x$, the gradient arriving along both
# uses must be **added**: $\frac{dy}{dx} = x + x$. So the engine *adds* into `x.grad`
# instead of overwriting it. The flip side: calling `backward()` again adds again.
# Clear the gradient between independent computations (optimizers call this
# `zero_grad`).

# %%
x = Variable(np.array(3.0))
y = x * x
y.backward()
print(f"after one backward : x.grad = {x.grad.item():.1f}")
y = x * x
y.backward()
print(f"after two backwards: x.grad = {x.grad.item():.1f}   (accumulated!)")
x.clear_grad()
y = x * x
y.backward()
print(f"after clear_grad   : x.grad = {x.grad.item():.1f}")

# %% [markdown]
# ## Exercises
#
# In each exercise cell, replace `raise NotImplementedError()` (and the comment above it)
# with your code, run the cell, then run the check cell below it. Each exercise is graded
# on its own.
#
# ### Exercise 1 — backpropagation by hand
#
# For $y = e^{\sin x}$ at $x = 0.5$ (so $a = \sin x$, $y = e^a$), compute by hand, with
# NumPy: `ga` $= \frac{dy}{da}$ and `gx` $= \frac{dy}{dx}$, starting from `gy = 1.0`.

# %%
x = 0.5
a = np.sin(x)
y = np.exp(a)
gy = 1.0
ga = gx = None  # your answers (the names `ga` and `gx` above were from the example)
### BEGIN SOLUTION
ga = np.exp(a) * gy
gx = np.cos(x) * ga
### END SOLUTION
print(f"ga = {ga:.4f}, gx = {gx:.4f}")

# %% tags=["check"]
check_done(ga=globals().get("ga"), gx=globals().get("gx"))
# The references are central differences of the forward steps, as in notebook 01: they
# test your derivatives without giving them away.
h = 1e-6
a0 = np.sin(0.5)
ga_ref = (np.exp(a0 + h) - np.exp(a0 - h)) / (2 * h)
gx_ref = (np.exp(np.sin(0.5 + h)) - np.exp(np.sin(0.5 - h))) / (2 * h)
check_close(
    "ga (dy/da)", ga, ga_ref, atol=1e-6,
    hint="ga = gy times the local derivative of y = e^a, evaluated at a = sin(x)",
    mistakes={
        "e^x is evaluated at x; y = e^a needs its derivative at a = sin(x)": np.exp(0.5),
        "ga = gy alone is missing the local derivative of y = e^a": 1.0,
        "this is gx: ga is dy/da, gx is dy/dx": gx_ref,
    },
)
check_close(
    "gx (dy/dx)", gx, gx_ref, atol=1e-6,
    hint="gx = ga times the local derivative of a = sin(x), evaluated at x",
    mistakes={
        "gx = cos(x) alone leaves out ga: the chain rule multiplies by ga": np.cos(0.5),
        "the derivative of sin is cos, not sin: gx = cos(x) * ga": np.sin(0.5) * ga_ref,
        "cos is evaluated at a; a = sin(x) needs its derivative at x": np.cos(a0) * ga_ref,
        "the chain rule multiplies: gx = cos(x) * ga, not cos(x) + ga": np.cos(0.5) + ga_ref,
        "this is ga: gx is dy/dx, ga is dy/da": ga_ref,
    },
)
ok("hand backpropagation through exp(sin(x)) is right")

# %% [markdown]
# ### Exercise 2 — a `Sigmoid` Function
#
# $\sigma(x) = \dfrac{1}{1 + e^{-x}}$ has the famous derivative
# $\sigma'(x) = \sigma(x)\,(1 - \sigma(x))$. Write `forward` with NumPy and `backward`
# with Variables (get the output with `self.output()`; `gy` and the result are Variables
# of `x`'s shape).

# %%
class Sigmoid(Function):
    def forward(self, x):
        ### BEGIN SOLUTION
        return 1 / (1 + np.exp(-x))
        ### END SOLUTION

    def backward(self, gy):
        ### BEGIN SOLUTION
        y = self.output()
        return gy * y * (1 - y)
        ### END SOLUTION

# %% tags=["check"]
check_defined(globals(), "Sigmoid")
x_test = np.array([-3.0, -0.5, 0.0, 0.5, 2.0])
check_forward("Sigmoid", Sigmoid, x_test)
with explain_errors("Sigmoid()(x)"):
    y_test = Sigmoid()(Variable(x_test))
check_close("Sigmoid(0)", Sigmoid()(Variable(np.array(0.0))), 0.5)
with np.errstate(all="ignore"):  # a wrong forward may give values outside (0, 1)
    logit = np.log(y_test.data / (1 - y_test.data))
check_close("Sigmoid forward (undone by the logit)", logit, x_test,
            hint="forward receives an ndarray and returns sigma(x) of each element")

def _sig(u):
    return 1 / (1 + np.exp(-u))


sigmoid_mistakes = {  # the gradients (for gy = 1) that typical wrong backwards give
    "this is x * (1 - x) of the input x: sigma' = y * (1 - y) with y = self.output()":
        lambda u: u * (1 - u),
    "y * (1 - y) needs both factors: y = self.output(), then gy * y * (1 - y)": _sig,
    "this is 1 - y: sigma' = y * (1 - y) with y = self.output()": lambda u: 1 - _sig(u),
    "this is y * (1 + y): sigma' = y * (1 - y)": lambda u: _sig(u) * (1 + _sig(u)),
}
check_gradient("Sigmoid", lambda v: Sigmoid()(v), x_test, mistakes=sigmoid_mistakes)
check_backward_is_differentiable("Sigmoid", lambda v: Sigmoid()(v), x_test)
### BEGIN HIDDEN TESTS
check_gradient("Sigmoid", lambda v: Sigmoid()(v), np.linspace(-6, 6, 7).reshape(7, 1))
### END HIDDEN TESTS
ok("Sigmoid's forward and backward are right, and its backward is differentiable")

# %% [markdown]
# ### Exercise 3 — a Function with two inputs
#
# `Mul` multiplies two arrays of the same shape. Its `backward` must return **one
# gradient per input**, as a tuple: $\frac{\partial y}{\partial x_0} = x_1$ and
# $\frac{\partial y}{\partial x_1} = x_0$, each times `gy`.

# %%
class Mul(Function):
    def forward(self, x0, x1):
        return x0 * x1

    def backward(self, gy):
        ### BEGIN SOLUTION
        x0, x1 = self.inputs
        return gy * x1, gy * x0
        ### END SOLUTION

# %% tags=["check"]
check_defined(globals(), "Mul")
x0_test, x1_test = np.array([1.0, -2.0, 3.0]), np.array([0.5, 4.0, -1.5])
x0_var, x1_var = Variable(x0_test), Variable(x1_test)
with explain_errors("Mul()(x0, x1).creator.backward(gy)"):
    grads = Mul()(x0_var, x1_var).creator.backward(Variable(np.ones(3)))
check_true(
    isinstance(grads, (tuple, list)) and len(grads) == 2,
    "Mul.backward should return two gradients (a tuple), one per input",
)
mul_mistakes = {
    "x0 + x1 is the gradient of a sum: for y = x0 * x1, dy/dx0 = x1 and dy/dx1 = x0":
        lambda u, v: [u + v, u + v],
    "x0 * x1 is the output: for y = x0 * x1, dy/dx0 = x1 and dy/dx1 = x0":
        lambda u, v: [u * v, u * v],
}
check_gradient("Mul", lambda u, v: Mul()(u, v), x0_test, x1_test, mistakes=mul_mistakes)
check_backward_is_differentiable("Mul", lambda u, v: Mul()(u, v), x0_test, x1_test)
ok("Mul returns the right gradient for both inputs")

# %% [markdown]
# ### Exercise 4 — a `Log` Function
#
# $\frac{d}{dx}\ln x = \frac{1}{x}$. Write `Log`: `forward` with NumPy, `backward` with
# Variables only (the input is `self.inputs[0]`; divide `gy` by it), so that notebook 06
# can differentiate it again.

# %%
class Log(Function):
    def forward(self, x):
        ### BEGIN SOLUTION
        return np.log(x)
        ### END SOLUTION

    def backward(self, gy):
        ### BEGIN SOLUTION
        (x,) = self.inputs
        return gy / x
        ### END SOLUTION

# %% tags=["check"]
check_defined(globals(), "Log")
x_test = np.array([0.25, 1.0, 2.0, 5.0])
check_forward("Log", Log, x_test)
with explain_errors("Log()(x)"):
    y_test = Log()(Variable(x_test))
check_close("Log forward, undone by exp", np.exp(y_test.data), x_test,
            hint="forward receives an ndarray and returns its natural logarithm",
            mistakes={"np.log10 is the base-10 logarithm; ln is np.log": np.exp(np.log10(x_test)),
                      "np.log2 is the base-2 logarithm; ln is np.log": np.exp(np.log2(x_test)),
                      "np.log1p(x) is ln(1 + x); ln x is np.log(x)": 1 + x_test})
log_mistakes = {
    "this is gy / ln(x), the output: d ln(x)/dx = 1 / x, the input": lambda u: 1 / np.log(u),
    "this is gy * x: d ln(x)/dx = 1 / x, so return gy / x": lambda u: u,
    "this is gy / x**2: d ln(x)/dx = 1 / x, so return gy / x": lambda u: 1 / u**2,
}
check_gradient("Log", lambda v: Log()(v), x_test, mistakes=log_mistakes)
check_backward_is_differentiable("Log", lambda v: Log()(v), x_test)
ok("Log's forward and backward are right, and its backward is differentiable")

# %% [markdown]
# ### Exercise 5 — the backward loop for a chain
#
# Turn the three hand-driven backward lines above into a loop. Write `backward_chain(y)`
# for a chain of one-input Functions (like `Square`, `Exp`): set `y.grad` to a Variable of
# ones of `y`'s shape; then, starting at `y`, take the current Variable's creator, call its
# `backward` with the current Variable's `.grad`, store the result as the `.grad` of the
# creator's input (`creator.inputs[0]`), and move on to that input; stop at a leaf (its
# creator is `None`). Every Variable of the chain ends up with its gradient.

# %%
def backward_chain(y):
    ### BEGIN SOLUTION
    y.grad = Variable(np.ones_like(y.data))
    v = y
    while v.creator is not None:
        x = v.creator.inputs[0]
        x.grad = v.creator.backward(v.grad)
        v = x
    ### END SOLUTION

# %% tags=["check"]
chain_hints = (
    ("'NoneType' object has no attribute", "a leaf's creator is None: stop the loop there"),
    ("NoneType", "a gradient is None: seed y.grad = Variable(np.ones_like(y.data)); pass v.grad on"),
)
x_test = Variable(np.array([0.5, -0.3]))
a_test = Square()(x_test)
b_test = Exp()(a_test)
y_test = Square()(b_test)
check_defined(globals(), "backward_chain")
with explain_errors("backward_chain(y)", *chain_hints), time_limit(
    10, "backward_chain(y) still runs after 10 s: move to the creator's input in each step"
):
    backward_chain(y_test)
check_true(x_test.grad is not None, "x.grad is None after backward_chain: the loop stopped before "
           "the leaf x or stored no gradient there; stop only when v.creator is None")
check_is_variable("x.grad after backward_chain", x_test.grad)
# the reference: minitorch's engine on a copy of the same chain
x_ref = Variable(x_test.data.copy())
a_ref = Square()(x_ref)
Square()(Exp()(a_ref)).backward(retain_grad=True)
check_close("x.grad after backward_chain", x_test.grad, x_ref.grad,
            hint="each step stores the creator's backward result on the creator's input",
            mistakes={"x.grad is 0: seed y.grad with ones, not zeros": np.zeros(2),
                      "every step got the seed y.grad: pass the current Variable's v.grad":
                          2 * x_test.data})
check_close("a.grad (the middle of the chain)", a_test.grad, a_ref.grad)
leaf = Variable(np.array([1.0, 2.0]))
with explain_errors("backward_chain(leaf)", *chain_hints), time_limit(10, "a leaf: stop at once"):
    backward_chain(leaf)
check_true(not isinstance(leaf.grad, np.ndarray), "the seed y.grad is an ndarray: wrap it, "
           "y.grad = Variable(np.ones_like(y.data))")
check_is_variable("a leaf's own gradient (the seed)", leaf.grad)
check_close("a leaf's own gradient", leaf.grad, np.ones(2), hint="seed y.grad with ones")


class Identity(Function):  # a link of a long chain: y = x, dy/dx = 1
    def forward(self, x):
        return x.copy()

    def backward(self, gy):
        return gy


long = start = Variable(np.array(0.1))
for _ in range(5000):
    long = Identity()(long)
with explain_errors("backward_chain on a chain of 5000 Functions", *chain_hints), time_limit(
    30, "backward_chain(y) is too slow on a long chain"
):
    backward_chain(long)
check_close("the gradient through 5000 Functions", start.grad, 1.0,
            hint="recursion or a missed step? walk the chain with a while loop")
ok("backward_chain propagates the gradient down a chain of any length")

# %% [markdown]
# ## Summary
#
# * The chain rule multiplies local derivatives; doing it from the output backwards
#   carries a single gradient and gives the derivatives for *all* inputs in one sweep.
# * The forward pass stores intermediate values, because the backward pass needs them.
# * A `Function.backward(gy)` returns gradient-of-input = `gy` × local derivative, one per
#   input, each with its input's shape.
# * `y.backward()` runs this for every Function in the graph; gradients **accumulate**,
#   so clear them between independent backward passes.
#
# **Next:** [03 · Complex graphs](03_complex_graphs.ipynb) — branches, the order of the
# backward pass, and memory.
