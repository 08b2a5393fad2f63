# %% [markdown]
# # 01 · Variables, functions and numerical differentiation
#
# Every deep-learning framework is, at heart, a machine for computing derivatives.
# Before we build the machine that computes them *exactly* (backpropagation, in the
# next notebook), we meet its two building blocks — the `Variable` that holds a value
# and the `Function` that turns values into new values — and the simplest way to get a
# derivative: wiggle the input and watch the output.
#
# **Learning goals.** After this notebook you can
#
# 1. create a `Variable` and say what its `data`, `grad` and `creator` hold;
# 2. write the `forward` of a `Function` and chain Functions into a composite function;
# 3. approximate a derivative with forward and central differences;
# 4. explain the two sources of error in numerical differentiation (truncation and
#    round-off) and why there is a best step size.

# %%
import matplotlib.pyplot as plt
import numpy as np

from checks import (
    check_close,
    check_defined,
    check_done,
    check_forward,
    check_is_array,
    check_true,
    difference_hint,
    explain_errors,
    ok,
)
from minitorch import Function, Variable

# %% [markdown]
# ## A Variable is a box around an array
#
# A `Variable` wraps a NumPy array. Why not use the array directly? Because later the
# box will also remember *where the value came from* (`creator`) and *how the final
# result changes when this value changes* (`grad`). A plain ndarray has nowhere to keep
# that information.

# %%
x = Variable(np.array(2.0), name="x")
print(x)
print(f"data = {x.data:.1f}, shape = {x.shape}, grad = {x.grad}, creator = {x.creator}")

# %% [markdown]
# The box only accepts ndarrays, so the type of `data` is always known. Passing a bare
# Python number is a mistake minitorch reports clearly:

# %%
try:
    Variable(2.0)
except TypeError as err:
    print(f"TypeError: {err}")

# %% [markdown]
# ## A Function maps Variables to Variables
#
# A `Function` receives Variables, runs `forward` on their **raw arrays** (pure NumPy),
# and wraps the result in a new Variable. Keeping `forward` NumPy-only is what makes
# writing a new operation easy: you just write the maths.

# %%
class Square(Function):
    def forward(self, x):
        return x**2


class Exp(Function):
    def forward(self, x):
        return np.exp(x)


x = Variable(np.array([0.5, 1.0, 1.5]))
y = Square()(x)
print(y)
print(f"type of y: {type(y).__name__}, its creator: {type(y.creator).__name__}")

# %% [markdown]
# Because a Function returns a Variable, Functions compose: the output of one is the
# input of the next. Here is $f(x) = \left(e^{x^2}\right)^2$ as a chain of three
# calls. Each intermediate Variable records the Function that produced it — that record is
# the *computational graph*, which the next notebook walks backwards.

# %%
a = Square()(x)
b = Exp()(a)
y = Square()(b)
print(y)
chain = []
node = y
while node.creator is not None:
    chain.append(type(node.creator).__name__)
    node = node.creator.inputs[0]
print("walking back from y:", " <- ".join(chain), "<- x")

# %% [markdown]
# ## Numerical differentiation
#
# The derivative is the limit of a difference quotient. Replace the limit by a small step
# $h$ and you get the **forward difference**
#
# $$f'(x) \approx \frac{f(x+h) - f(x)}{h}.$$
#
# A Taylor expansion, $f(x+h) = f(x) + h f'(x) + \tfrac{h^2}{2} f''(x) + O(h^3)$, shows
# that its error is about $\tfrac{h}{2} f''(x)$: it shrinks only *linearly* with $h$.
# Stepping to both sides makes the $h^2$ terms cancel, giving the **central
# difference**
#
# $$f'(x) \approx \frac{f(x+h) - f(x-h)}{2h}, \qquad \text{error} \approx \tfrac{h^2}{6} f'''(x).$$
#
# So why not take $h = 10^{-15}$? Because computers round. A float64 carries about 16
# significant digits; subtracting two nearly equal numbers $f(x+h) - f(x)$ loses most of
# them, and dividing by a tiny $h$ magnifies what is left. The round-off error grows like
# $\varepsilon_\text{machine} / h$. The total error is the sum of a term that falls with
# $h$ and one that rises — so there is a sweet spot. Let us see it on $\sin$ at $x = 1$,
# where we know the exact answer, $\cos 1$.

# %%
def forward_difference(f, x, h):
    return (f(x + h) - f(x)) / h


def central_difference_np(f, x, h):
    return (f(x + h) - f(x - h)) / (2 * h)


hs = np.logspace(-15, -1, 57)
exact = np.cos(1.0)
err_forward = np.array([abs(forward_difference(np.sin, 1.0, h) - exact) for h in hs])
err_central = np.array([abs(central_difference_np(np.sin, 1.0, h) - exact) for h in hs])

fig, ax = plt.subplots(figsize=(6, 4))
ax.loglog(hs, err_forward, "o-", ms=3, label="forward difference")
ax.loglog(hs, err_central, "s-", ms=3, label="central difference")
ax.loglog(hs, 0.5 * hs, "k:", label="slope 1 (truncation, forward)")
ax.loglog(hs, hs**2 / 6, "k--", label="slope 2 (truncation, central)")
ax.loglog(hs, 1e-16 / hs, "k-.", label="round-off  ~ eps / h")
ax.set_xlabel("step h")
ax.set_ylabel("|error| of the derivative of sin at 1")
ax.set_ylim(1e-13, 1)
ax.legend(fontsize=8)
ax.set_title("Truncation error falls with h, round-off error rises")
plt.show()
print(f"best forward step ~ {hs[err_forward.argmin()]:.0e} (error {err_forward.min():.1e})")
print(f"best central step ~ {hs[err_central.argmin()]:.0e} (error {err_central.min():.1e})")

# %% [markdown]
# Read the plot from right to left. For large $h$ both errors follow their truncation
# lines (slope 1 and slope 2). As $h$ shrinks, round-off takes over and the error climbs
# again. At their best the forward difference keeps about 8 of 16 digits and the central
# difference about 12 — good enough to *check* a gradient, but too slow and inexact
# to *train* with: a network with a million weights would need two million forward
# passes per step. That is why we will compute gradients exactly with backpropagation,
# and use finite differences only to test it (`minitorch.gradcheck` does exactly that).

# %% [markdown]
# ## Exercises
#
# In each exercise cell, replace `raise NotImplementedError()` (and the comment above it)
# with your code, run the cell, then run the check cell below it. A check prints `✓ …`
# when you are right and explains what differs when you are not. Each exercise is graded
# on its own: a check never uses your answer to another exercise.
#
# ### Exercise 1 — a `Cube` Function
#
# Write a Function whose `forward` returns $x^3$ elementwise. Remember that `forward`
# receives and returns plain NumPy arrays.

# %%
class Cube(Function):
    def forward(self, x):
        ### BEGIN SOLUTION
        return x**3
        ### END SOLUTION

# %% tags=["check"]
check_defined(globals(), "Cube")
x_test = np.array([-1.5, 0.0, 0.5, 2.0])
raw = check_forward("Cube", Cube, x_test)  # forward alone: an ndarray, inputs untouched
with explain_errors("Cube()(x)"):
    y_test = Cube()(Variable(x_test))
check_true(isinstance(y_test, Variable), "calling Cube() should give a Variable")
check_close("Cube()(x)", y_test, x_test**3, mistakes={
    "this is x**2; x**3 is x * x * x": x_test**2,
    "this is 3 * x; x**3 is x * x * x": 3 * x_test,
    "this is 3 * x**2, the derivative of x**3; forward computes x**3 itself": 3 * x_test**2,
})
check_true(isinstance(y_test.creator, Cube), "y.creator should be your Cube instance")
ok("Cube computes x**3 and records itself as the creator")

# %% [markdown]
# ### Exercise 2 — central difference for Variables
#
# Write `numerical_diff(f, x, h)` that returns the central-difference estimate of the
# derivative of an **elementwise** function `f` (mapping a Variable to a Variable) at
# the Variable `x`, as an ndarray with `x`'s shape. Build the shifted inputs as new
# Variables (`Variable(x.data + h)`), and read the outputs' `.data`.

# %%
def numerical_diff(f, x, h=1e-4):
    ### BEGIN SOLUTION
    y_plus = f(Variable(x.data + h))
    y_minus = f(Variable(x.data - h))
    return (y_plus.data - y_minus.data) / (2 * h)
    ### END SOLUTION

# %% tags=["check"]
x_test = Variable(np.array([-1.0, 0.5, 2.0]))
check_defined(globals(), "numerical_diff")
with explain_errors("numerical_diff(f, x)"):
    # the cube as Variable arithmetic, not your Cube: this check stands on its own
    estimate = numerical_diff(lambda v: v**3, x_test)
    coarse = numerical_diff(lambda v: Exp()(v), Variable(np.array([0.0])), h=1e-2)
check_is_array("the result of numerical_diff", estimate)
x0, h0 = x_test.data, 1e-4
check_close(
    "numerical_diff of x**3",
    estimate,
    3 * x_test.data**2,
    atol=1e-6,
    rtol=1e-6,
    hint=difference_hint(h=1e-4, one_sided=[((x0 + h0)**3 - x0**3) / h0,
                                            (x0**3 - (x0 - h0)**3) / h0]),
)
check_close(
    "numerical_diff of exp at 0 with h=1e-2",
    coarse,
    np.array([np.sinh(1e-2) / 1e-2]),  # the central difference of exp at 0, exactly
    atol=1e-9,
    rtol=0.0,
    hint=difference_hint(h=1e-2),
    mistakes={"the step h=1e-2 was not used: step by the argument h": [np.sinh(1e-4) / 1e-4]},
)
### BEGIN HIDDEN TESTS
check_close("numerical_diff of sin", numerical_diff(lambda v: v.sin(), x_test), np.cos(x_test.data))
### END HIDDEN TESTS
ok("numerical_diff is a central difference")

# %% [markdown]
# ### Exercise 3 — measure the order of the error
#
# The theory says the central difference's truncation error is proportional to $h^2$.
# Check it experimentally: using `hs` and `err_central` from the plot above, fit a
# straight line to $\log_{10}(\text{error})$ against $\log_{10}(h)$ **only where
# $10^{-3} \le h \le 10^{-1}$** (there truncation dominates), and store its slope in
# `order`. `np.polyfit(u, v, 1)` returns `[slope, intercept]`.

# %%
order = None  # the slope of the fitted line
### BEGIN SOLUTION
mask = (hs >= 1e-3) & (hs <= 1e-1)
order = np.polyfit(np.log10(hs[mask]), np.log10(err_central[mask]), 1)[0]
### END SOLUTION
print(f"measured order: {order:.2f}")

# %% tags=["check"]
check_done(order=globals().get("order"))
check_true(np.ndim(order) == 0, "order should be a single number (the slope)")
in_range = (hs >= 1e-3) & (hs <= 1e-1)
log_h, log_err = np.log10(hs[in_range]), np.log10(err_central[in_range])
known = {  # wrong answers the numbers can recognise, each computed here
    "you fitted log10(h) against log10(error): np.polyfit(u, v, 1) takes u first":
        np.polyfit(log_err, log_h, 1)[0],
    "that is the intercept, np.polyfit(...)[1]; the slope is [0]": np.polyfit(log_h, log_err, 1)[1],
    "fit the logarithms, log10(h) and log10(error), not h and the error":
        np.polyfit(hs[in_range], err_central[in_range], 1)[0],
    "that is the slope of err_forward (order 1): fit err_central":
        np.polyfit(log_h, np.log10(err_forward[in_range]), 1)[0],
    "fit a straight line: np.polyfit(u, v, 1), degree 1": np.polyfit(log_h, log_err, 2)[0],
    "the sign is flipped: the slope itself is the order, no minus sign":
        -np.polyfit(log_h, log_err, 1)[0],
    "two log bases are mixed (np.log and np.log10): use np.log10 on both axes":
        np.polyfit(np.log(hs[in_range]), log_err, 1)[0],
    "two log bases are mixed (np.log10 and np.log): use np.log10 on both axes":
        np.polyfit(log_h, np.log(err_central[in_range]), 1)[0],
}
for text, value in known.items():
    check_true(not np.isclose(order, value, rtol=1e-9, atol=1e-12) or abs(value - 2.0) < 0.1,
               f"order is {float(order):.2f}, expected about 2: {text}")
check_true(
    abs(order - 2.0) < 0.1,
    f"order is {float(order):.2f}, expected about 2; fit log10(error) against log10(h) "
    "only for 1e-3 <= h <= 1e-1",
)
ok("the central difference converges with order 2")

# %% [markdown]
# ### Exercise 4 — one input at a time: partial derivatives
#
# A function of several inputs has one partial derivative per input, and finite
# differences get each one by wiggling **that input alone** while the others stay put.
# Write `numerical_partials(f, x0, x1, h)` for an elementwise function `f(x0, x1)` of two
# Variables of the same shape (returning a Variable): return the pair `(d0, d1)` of
# central-difference estimates of $\partial f / \partial x_0$ and
# $\partial f / \partial x_1$, each an ndarray of the inputs' shape.
# Count how often you call `f`: that count is why finite differences cannot train a
# network with a million weights.

# %%
def numerical_partials(f, x0, x1, h=1e-4):
    ### BEGIN SOLUTION
    d0 = (f(Variable(x0.data + h), x1).data - f(Variable(x0.data - h), x1).data) / (2 * h)
    d1 = (f(x0, Variable(x1.data + h)).data - f(x0, Variable(x1.data - h)).data) / (2 * h)
    return d0, d1
    ### END SOLUTION

# %% tags=["check"]
f_calls = []


def product(u, v):
    f_calls.append(1)  # counted, for the line printed at the end
    return u * v**2  # d/du = v**2, d/dv = 2 u v


u0, v0 = Variable(np.array([-2.0, 0.5])), Variable(np.array([3.0, 1.0]))
d0_expected, d1_expected = v0.data**2, 2 * u0.data * v0.data  # [9, 1] and [-12, 1]
check_defined(globals(), "numerical_partials")
with explain_errors("numerical_partials(f, x0, x1)"):
    partials = numerical_partials(product, u0, v0)
check_true(isinstance(partials, tuple | list) and len(partials) == 2,
           f"numerical_partials should return a pair (d0, d1), got {type(partials).__name__}")
d0, d1 = partials
check_is_array("d0", d0)
check_is_array("d1", d1)
check_true(np.array_equal(u0.data, [-2.0, 0.5]) and np.array_equal(v0.data, [3.0, 1.0]),
           "the inputs were changed in place: build new Variables, Variable(x0.data + h)")
check_true(not (np.allclose(d0, d1_expected, atol=1e-4) and np.allclose(d1, d0_expected,
                                                                         atol=1e-4)),
           "d0 and d1 are swapped: d0 belongs to the first input x0")
check_true(not np.allclose(d0, d0_expected + d1_expected, atol=1e-4),
           "d0 is the sum of both partial derivatives: you shifted both inputs at once; "
           "shift one input, keep the other as it is")
check_close("d0 (wiggling x0 only)", d0, d0_expected, atol=1e-6, hint=difference_hint(1e-4),
            mistakes={"d0 equals d1, the derivative for x1: for d0 wiggle x0": d1_expected})
check_close("d1 (wiggling x1 only)", d1, d1_expected, atol=1e-6, hint=difference_hint(1e-4),
            mistakes={"d1 equals d0, the derivative for x0: for d1 wiggle x1": d0_expected})
ok(f"numerical_partials wiggles one input at a time: {len(f_calls)} calls of f for 2 inputs")

# %% [markdown]
# ## Summary
#
# * A `Variable` wraps an ndarray and will carry its gradient (`grad`) and its history
#   (`creator`).
# * A `Function` does its work in `forward` on raw arrays; calling it wraps the result and
#   records the Function as the output's creator — the start of a computational graph.
# * Finite differences approximate derivatives. The forward difference has error $O(h)$,
#   the central difference $O(h^2)$, and round-off error grows as $h$ shrinks, so the
#   best step for float64 central differences is around $10^{-5}$.
# * A function of $n$ inputs needs $2n$ evaluations for its central-difference
#   gradient, one pair per input.
# * Finite differences are too slow and too inexact for training, but perfect for
#   *checking* the exact gradients we compute next.
#
# **Next:** [02 · Backpropagation](02_backpropagation.ipynb) computes the derivative of a
# chain exactly, by hand and then automatically.
