# %% [markdown]
# # 12 · Forward and reverse mode: `jvp`, `vjp`, Jacobians and Hessians
#
# Everything so far ran *reverse mode*: a forward pass records the graph, a backward pass
# sends one gradient from the output to every input. In notebook 04 you met the other
# way, *dual numbers*: carry a derivative **alongside** each value, forwards. This
# notebook takes that idea all the way. `minitorch.func` gives every op a *tangent rule*,
# so one forward pass computes a Jacobian-vector product $J v$ — no backward at all —
# and it offers the functional transforms of JAX and `torch.func`: functions in,
# derivative functions out.
#
# **Learning goals.** After this notebook you can
#
# 1. explain forward mode as dual numbers applied op by op, and write a tangent rule;
# 2. compute $J v$ with `jvp` and $u^\top J$ with `vjp`, and build a Jacobian column by
#    column (one pass per input) or row by row (one pass per output);
# 3. predict, then measure, which mode is cheaper for a tall and for a wide function;
# 4. compute Hessians (`hessian` = forward-over-reverse) and Hessian-vector products, and
#    use them in Newton's method.

# %%
import inspect
import time

import matplotlib.pyplot as plt
import numpy as np

import minitorch.func as mf
import minitorch.ops as F
import viz
from checks import ok
from checks_nb12 import (check_cheapest_jacobian, check_hessian_vector_product,
                         check_jacobian_by_columns, check_tangent_rule)
from minitorch import Function, Variable

# %% [markdown]
# ## From dual numbers to `jvp`
#
# A dual number $a + b\,\varepsilon$ with $\varepsilon^2 = 0$ carries a value $a$ and a
# derivative $b$. Arithmetic on duals *is* the chain rule:
# $\sin(a + b\varepsilon) = \sin a + b \cos a\,\varepsilon$. Here is the whole idea in a
# few lines, for $f(x) = x \sin x$ at $x = 0.5$:

# %%
class Dual:
    def __init__(self, value, tangent):
        self.value, self.tangent = value, tangent

    def __mul__(self, other):  # the product rule
        return Dual(self.value * other.value,
                    self.tangent * other.value + self.value * other.tangent)


def dual_sin(d):
    return Dual(np.sin(d.value), d.tangent * np.cos(d.value))


x = Dual(0.5, 1.0)  # seed: dx/dx = 1
y = x * dual_sin(x)
print(f"f(0.5) = {y.value:.6f},  f'(0.5) = {y.tangent:.6f}")
print(f"check:   sin 0.5 + 0.5 cos 0.5 = {np.sin(0.5) + 0.5 * np.cos(0.5):.6f}")

# %% [markdown]
# `mf.jvp(f, primals, tangents)` does the same for any minitorch function: each op
# computes its output's tangent from its inputs' tangents *as it runs*. It returns the
# value and the **J**acobian-**v**ector **p**roduct $J v$ (here $J$ is $1 \times 1$, and
# $v = 1$ gives the derivative).

# %%
def f(x):
    return x * F.sin(x)


y, ty = mf.jvp(f, (np.array(0.5),), (np.array(1.0),))
print(f"jvp: f(0.5) = {y.item():.6f},  f'(0.5) = {ty.item():.6f}")

# %% [markdown]
# Where do the tangents come from? Every op class has a `jvp` method next to its
# `forward` and `backward`: the tangent rule, written with minitorch ops (so it can be
# differentiated again). Here are two of them:

# %%
print(inspect.getsource(F.sin(Variable(np.array(0.0))).creator.jvp))
print(inspect.getsource(type((Variable(np.ones(1)) * 2.0).creator).jvp))

# %% [markdown]
# Forward mode runs **no backward**: the tangents travel with the forward pass. When the
# seed tangent is a Variable, `viz` can draw that tangent computation — in green, next to
# the ordinary graph of $y$ (in yellow). The `Primal` box is `jvp`'s own copy of `x`.
# Follow `v`: the product rule uses it twice (`Mul` with $\sin x$, and with the `Cos` of
# `Sin`'s rule), and an `Add` joins the two terms into `ty`.

# %%
x = Variable(np.array(0.5), name="x")
v = Variable(np.array(1.0), name="v")
y, ty = mf.jvp(f, (x,), (v,))
y.name, ty.name = "y", "ty"
viz.draw_graph([y, ty], show_shapes=False)

# %% [markdown]
# Reverse mode on the same expression, for comparison: `backward(create_graph=True)`
# records the backward pass (purple). It starts from the *output* and ends at `x`; the
# tangent computation above started from the *input* and ended at `y`. Both reuse
# $\sin x$ from the forward pass, and both need $\cos x$ — one evaluation each.

# %%
x = Variable(np.array(0.5), name="x")
y = f(x)
y.backward(create_graph=True)
x.grad.name = "gx"
print(f"dy/dx by reverse mode: {x.grad.item():.6f}  (forward mode gave {ty.item():.6f})")
viz.draw_graph(x.grad, show_shapes=False)

# %% [markdown]
# ## One pass per input, or one pass per output
#
# For $f: \mathbb{R}^n \to \mathbb{R}^m$ the Jacobian $J$ is $m \times n$.
#
# * **Forward mode** gives $J v$: with $v = e_j$ (a one-hot vector) that is **column**
#   $j$. A full Jacobian needs $n$ forward passes — one per *input*.
# * **Reverse mode** gives $u^\top J$ (`vjp`): with $u = e_i$ that is **row** $i$. A full
#   Jacobian needs one forward pass and $m$ backward passes — one per *output*.
#
# `mf.jacfwd` and `mf.jacrev` do exactly that. They agree, of course:

# %%
A = np.array([[1.0, 2.0, 0.0], [0.0, -1.0, 3.0]])


def g(x):
    return F.tanh(F.matmul(A, x))


x0 = np.array([0.1, 0.2, -0.3])
print("jacfwd (1 run of g, 3 tangent pushes):\n", np.round(mf.jacfwd(g)(x0).data, 6))
print("jacrev (2 backward passes):\n", np.round(mf.jacrev(g)(x0).data, 6))
print("column 0 by one jvp:", np.round(mf.jvp(g, (x0,), (np.eye(3)[0],))[1].data, 6))
out, vjp_fn = mf.vjp(g, x0)
print("row 1 by one vjp:   ", np.round(vjp_fn(np.eye(2)[1])[0].data, 6))

# %% [markdown]
# ## Measuring the cost: tall and wide
#
# So the shape decides. A **tall** function (few inputs, many outputs — a curve
# $\mathbb{R} \to \mathbb{R}^{m}$, a simulation with few parameters) wants forward mode;
# a **wide** one (many inputs, few outputs — every loss function
# $\mathbb{R}^{n} \to \mathbb{R}$) wants reverse mode, which is why deep learning uses
# backpropagation. Let us time both transforms on $\tanh(A x)$ with $A$ of shape
# $(m, n)$, tall $(m, n) = (120, 3)$ and wide $(3, 120)$.

# %%
def seconds(fn, repeat=3):
    """The best of ``repeat`` wall-clock timings of ``fn()``."""
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


rng = np.random.default_rng(0)
shapes = {"tall (120 x 3)": (120, 3), "wide (3 x 120)": (3, 120)}
timings = {}
for label, (m, n) in shapes.items():
    A_mn = rng.standard_normal((m, n))
    x_n = rng.standard_normal(n)

    def h(x, A_mn=A_mn):
        return F.tanh(F.matmul(A_mn, x))

    timings[label] = [seconds(lambda: mf.jacfwd(h)(x_n)), seconds(lambda: mf.jacrev(h)(x_n))]
    print(f"{label}: jacfwd pushes {n} tangents, jacrev runs {m} backward passes")

fig, ax = plt.subplots(figsize=(6, 3.2))
positions = np.arange(len(shapes))
ax.bar(positions - 0.2, [t[0] * 1e3 for t in timings.values()], 0.4, label="jacfwd")
ax.bar(positions + 0.2, [t[1] * 1e3 for t in timings.values()], 0.4, label="jacrev")
ax.set_xticks(positions, list(shapes))
ax.set_yscale("log")
ax.set_ylabel("time (ms, log scale)")
ax.set_title("The Jacobian of tanh(A x): the mode that matches the shape wins")
ax.legend()
plt.show()

# %% [markdown]
# The bars cross over: forward mode wins the tall function, reverse mode the wide one,
# each by a factor of roughly $m/n$. (`make bench` repeats this measurement against
# `torch.func`; `docs/concepts/forward-and-reverse-mode.md` has the cost argument.)
#
# ## Hessians and Hessian-vector products
#
# The transforms compose. `mf.grad(f)` is a function, so it can be differentiated again:
# `mf.hessian(f)` is `jacfwd(jacrev(f))` — **forward-over-reverse**: the gradient by one
# backward pass, then forward mode once per input. The tangent rules run *through the
# backward pass's ops*, because those are ordinary minitorch ops too.

# %%
def rosenbrock(p):
    x, y = p[0], p[1]
    return (1 - x) ** 2 + 100 * (y - x * x) ** 2


p0 = np.array([-1.0, 1.5])
print("gradient:", mf.grad(rosenbrock)(p0).data)
print("Hessian:\n", mf.hessian(rosenbrock)(p0).data)

# %% [markdown]
# A Hessian of $n$ parameters has $n^2$ entries — far too many for a network. But many
# methods (conjugate gradients, Newton-CG, curvature estimates) only need
# **Hessian-vector products** $H v$, and those cost about as much as a couple of
# gradients: `jvp` of `grad` along $v$, never forming $H$. `mf.hvp` does exactly this.

# %%
v = np.array([1.0, 0.0])
value, (Hv,) = mf.hvp(rosenbrock, (p0,), (v,))
print(f"f = {value.item():.4f},  H v = {Hv.data}")
print("same as H @ v:", mf.hessian(rosenbrock)(p0).data @ v)

# %% [markdown]
# ## Newton's method with the Hessian
#
# Notebook 06 ran Newton's method in one dimension. With `hessian` it runs in any
# dimension: $p \leftarrow p - H(p)^{-1} \nabla f(p)$. On the Rosenbrock function —
# a curved valley that gradient descent crawls along for thousands of steps — Newton
# reaches the minimum $(1, 1)$ in a handful of steps. (Not monotonically: step 2 jumps far
# out of the valley, because the quadratic model is only trusted locally; practical
# methods add a line search or a trust region.)

# %%
path = [p0]
for _ in range(8):
    p = path[-1]
    step = np.linalg.solve(mf.hessian(rosenbrock)(p).data, mf.grad(rosenbrock)(p).data)
    path.append(p - step)
for k, p in enumerate(path[:6]):
    print(f"step {k}: p = ({p[0]:+.8f}, {p[1]:+.8f})   f = {rosenbrock(Variable(p)).item():.3e}")

grid_x, grid_y = np.meshgrid(np.linspace(-1.5, 1.5, 200), np.linspace(-3.2, 2.2, 250))
levels = np.log1p((1 - grid_x) ** 2 + 100 * (grid_y - grid_x**2) ** 2)
fig, ax = plt.subplots(figsize=(5.5, 4))
ax.contour(grid_x, grid_y, levels, levels=20, cmap="viridis")
trail = np.array(path)
ax.plot(trail[:, 0], trail[:, 1], "o-", color="#d7301f", label="Newton iterates")
ax.plot(1, 1, "k*", markersize=12, label="minimum (1, 1)")
ax.set_title("Newton's method on the Rosenbrock function")
ax.legend(loc="lower left")
plt.show()

# %% [markdown]
# ## Exercises
#
# In each exercise cell, replace `raise NotImplementedError()` (and the comment above it)
# with your code, run the cell, then run the check cell below it. Each exercise is graded
# on its own.
#
# ### Exercise 1 — write a tangent rule
#
# `LogCosh` computes $y = \log\cosh x$ (a smooth absolute value, used as a robust loss).
# Its `forward` and `backward` are given. Write its tangent rule `jvp(self, xs, y, tx)`:
# return the tangent of $y$ given the inputs `xs` (`xs[0]` is $x$), the output `y` and the
# tangent `tx` of $x$, with minitorch ops on Variables. Hint:
# $\frac{d}{dx} \log\cosh x = \tanh x$.
#
# The check compares `mf.jvp` with central differences, and the second derivative (a
# `jvp` of your `jvp`) too — which works only if your rule uses minitorch ops.

# %%
class LogCosh(Function):
    def forward(self, x):
        return np.logaddexp(x, -x) - np.log(2.0)  # log(cosh x), without overflow

    def jvp(self, xs, y, tx):
        ### BEGIN SOLUTION
        return tx * F.tanh(xs[0])  # dy = tanh(x) dx
        ### END SOLUTION

    def backward(self, gy):
        (x,) = self.inputs
        return gy * F.tanh(x)


# %% tags=["check"]
check_tangent_rule(globals().get("LogCosh"))
ok("LogCosh has a tangent rule that matches finite differences, to second order")

# %% [markdown]
# ### Exercise 2 — a Jacobian, one column per `jvp`
#
# Write `jacobian_by_columns(f, x)` for a function `f` of one 1-D input `x` (an ndarray
# of $n$ floats) with a 1-D output of $m$ floats: call `mf.jvp` once per input with a
# one-hot tangent, and return the $m \times n$ Jacobian as an ndarray. (`jacfwd`
# computes the same columns, with one difference: it runs `f` once and pushes each
# one-hot tangent through the tangent rules of the ops that one run recorded, so a
# random `f`, with dropout, is differentiated at one realisation.)

# %%
def jacobian_by_columns(f, x):
    ### BEGIN SOLUTION
    columns = []
    for j in range(x.size):
        _, column = mf.jvp(f, (x,), (np.eye(x.size)[j],))
        columns.append(column.data)
    return np.stack(columns, axis=1)
    ### END SOLUTION


# %% tags=["check"]
check_jacobian_by_columns(globals().get("jacobian_by_columns"))  # counts the jvp calls too
ok("one jvp per input builds the Jacobian column by column")

# %% [markdown]
# ### Exercise 3 — forward or reverse? Let the shape decide
#
# Write `cheapest_jacobian(f, x)` for a 1-D input and output: evaluate `f` once to learn
# the number of outputs $m$, then return `mf.jacfwd(f)(x).data` when the number of inputs
# $n \le m$ and `mf.jacrev(f)(x).data` otherwise. The check records which transform ran
# and counts the runs of `f`: the probe, and one run inside the transform (forward mode
# then pushes $n$ tangents through that run, reverse mode runs $m$ backward passes).

# %%
def cheapest_jacobian(f, x):
    ### BEGIN SOLUTION
    m = f(x).size
    if x.size <= m:
        return mf.jacfwd(f)(x).data
    return mf.jacrev(f)(x).data
    ### END SOLUTION


# %% tags=["check"]
check_cheapest_jacobian(globals().get("cheapest_jacobian"))
ok("forward mode for the tall Jacobian, reverse mode for the wide one")

# %% [markdown]
# ### Exercise 4 — a Hessian-vector product without the Hessian
#
# Write `hessian_vector_product(f, x, v)` for a scalar function `f` of one ndarray `x`:
# return $H v$ as an ndarray, computed as the `jvp` of `mf.grad(f)` along `v` (forward
# over reverse). Do not call `mf.hessian` or `mf.hvp`: the check makes sure `f` runs only
# once.

# %%
def hessian_vector_product(f, x, v):
    ### BEGIN SOLUTION
    _, Hv = mf.jvp(mf.grad(f), (x,), (v,))
    return Hv.data
    ### END SOLUTION


# %% tags=["check"]
check_hessian_vector_product(globals().get("hessian_vector_product"))
ok("a Hessian-vector product in one forward pass over one backward pass")

# %% [markdown]
# ## Summary
#
# * Forward mode is dual numbers op by op: each op's tangent rule (`Function.jvp`) maps
#   input tangents to output tangents, so `mf.jvp` gives $J v$ in one forward pass,
#   with no backward. A Function without a rule still works (two reverse passes).
# * Reverse mode gives $u^\top J$ (`mf.vjp`, `mf.grad`): one backward pass per output.
# * A full Jacobian costs $n$ tangent pushes (`jacfwd`, through one run of `f`) or $m$
#   backward passes (`jacrev`): forward mode for tall functions, reverse mode for wide
#   ones — and a loss is as wide as it gets.
# * The transforms compose: `hessian = jacfwd(jacrev(f))`, and `hvp` is `jvp` of `grad`,
#   the cheap way to use curvature (Newton's method, Newton-CG).
#
# **Further reading:** the concept page "Forward and reverse mode" in the docs, and
# `minitorch/core/forward.py` — the whole of forward mode's core in about 150 lines.
