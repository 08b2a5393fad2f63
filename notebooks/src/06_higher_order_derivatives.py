# %% [markdown]
# # 06 · Higher-order derivatives: differentiating the backward pass
#
# The backward pass is itself a computation: multiplications, additions, a `tanh` here
# and there. If minitorch *records* it as a graph, we can run backward on the gradient
# and get the second derivative — and so on, to any order. This is what
# `backward(create_graph=True)` does. Second derivatives power Newton's method,
# Hessian-vector products, gradient penalties and meta-learning.
#
# **Learning goals.** After this notebook you can
#
# 1. explain why a differentiable `backward` (written with minitorch ops) is needed for
#    higher-order derivatives;
# 2. compute second and higher derivatives with `create_graph=True`, clearing gradients
#    between passes;
# 3. minimise a function with Newton's method using an autograd second derivative;
# 4. read the graph of a gradient and explain why it grows with the order.

# %%
import matplotlib.pyplot as plt
import numpy as np

import minitorch.ops as F
import viz
from checks import check_close, check_true, ok
from minitorch import Variable

# %% [markdown]
# ## The gradient as a Variable with a history
#
# With `create_graph=True` the engine calls each Function's differentiable `backward`
# with graph recording switched **on**. So `x.grad` is no longer just a number: it is a
# Variable with a creator — the last operation of the backward computation.

# %%
x = Variable(np.array(1.0), name="x")
y = F.tanh(x)
y.backward(create_graph=True)
gx = x.grad
print(f"dy/dx = {gx.item():.6f}  (1 - tanh(1)^2 = {1 - np.tanh(1.0) ** 2:.6f})")
print(f"the gradient was made by: {type(gx.creator).__name__}")

# %% [markdown]
# Here is the graph behind `gx`. The purple nodes were created by the backward pass: the
# `Tanh` box is the original forward op, and the rest is $g_x = g_y \cdot (1 - y^2)$
# spelled out as `Mul`, `Sub` and `Mul` (with $y = \tanh x$ computed once, in the forward
# pass, and reused).

# %%
viz.draw_graph(gx, show_shapes=False, legend=True)

# %%
print(viz.to_dot(gx, show_shapes=False))

# %% [markdown]
# ## The second derivative
#
# Now run backward on `gx`. One trap: gradients **accumulate** (notebook 02), and `x.grad`
# still holds the first derivative. Clear it first, or the second derivative is added
# to the first.

# %%
x.clear_grad()
gx.backward()
t = np.tanh(1.0)
print(f"d2y/dx2 = {x.grad.item():.6f}  (-2 tanh(1) (1 - tanh(1)^2) = {-2 * t * (1 - t**2):.6f})")

# %% [markdown]
# ## Newton's method
#
# Gradient descent steps a fixed fraction of the slope. Newton's method uses the
# curvature too: it jumps to the minimum of the local quadratic approximation,
#
# $$x \leftarrow x - \frac{f'(x)}{f''(x)}.$$
#
# Near a minimum it converges *quadratically* — the number of correct digits roughly
# doubles every step. Let us compare both on $f(x) = x^4 - 2x^2$, which has minima at
# $x = \pm 1$, starting from $x = 2$.

# %%
def f(x):
    return x**4 - 2 * x**2


def derivatives(f, x0):
    """f'(x0) and f''(x0) by double backward."""
    x = Variable(np.array(x0))
    f(x).backward(create_graph=True)
    gx = x.grad
    x.clear_grad()
    gx.backward()
    return gx.item(), x.grad.item()


newton, gd = [2.0], [2.0]
for _ in range(10):
    g1, g2 = derivatives(f, newton[-1])
    newton.append(newton[-1] - g1 / g2)
    g1, _ = derivatives(f, gd[-1])
    gd.append(gd[-1] - 0.01 * g1)

fig, ax = plt.subplots(figsize=(6, 3.3))
ax.semilogy(np.abs(np.array(newton) - 1) + 1e-17, "o-", label="Newton")
ax.semilogy(np.abs(np.array(gd) - 1) + 1e-17, "s-", label="gradient descent, lr = 0.01")
ax.set_xlabel("iteration")
ax.set_ylabel("|x - 1|")
ax.set_title("Newton's method converges quadratically")
ax.legend()
plt.show()
for k in range(7):
    print(f"step {k}: Newton x = {newton[k]:.10f}   gradient descent x = {gd[k]:.6f}")

# %% [markdown]
# The price: Newton needs $f''$, and for $n$ parameters that is an $n \times n$ Hessian to
# build and invert. That is why deep learning uses first-order methods — but
# Hessian-*vector* products, which double backward gives cheaply, appear in many
# advanced methods.
#
# ## Derivatives of tanh, to any order
#
# Repeat "clear, backward with `create_graph=True`" and we climb the tower of
# derivatives. For an elementwise function on an array of points, each pass gives the
# next derivative at every point.

# %%
x = Variable(np.linspace(-5, 5, 201), name="x")
y = F.tanh(x)
curves = [y.data]
sizes = []
for order in range(1, 5):
    y.backward(create_graph=True)
    y = x.grad
    x.clear_grad()
    curves.append(y.data)
    text = viz.to_dot(y)
    sizes.append(text.count("shape=box"))

fig, ax = plt.subplots(figsize=(6.5, 3.8))
for order, curve in enumerate(curves):
    ax.plot(x.data, curve, label="tanh" + "'" * order if order else "tanh")
ax.set_xlabel("x")
ax.legend(ncol=5, fontsize=8)
ax.set_title("tanh and its first four derivatives, all by autograd")
plt.show()
for order, n in enumerate(sizes, start=1):
    print(f"derivative {order}: its graph has {n} Functions")

# %% [markdown]
# The graphs grow with the order: each derivative's graph contains the previous one plus
# its backward. Here is the graph of the **second** derivative of tanh at one point
# (constants hidden). Everything hangs off the one `Tanh` output $y$: differentiating
# the first derivative's $y \cdot y$ by the product rule gives two `Mul`s joined by an
# `Add`, the `Sub` recomputes $1 - y^2$, and the last `Mul` combines them into
# $-2y(1 - y^2)$. Each further order applies the same rules to a larger graph.

# %%
x = Variable(np.array(1.0), name="x")
F.tanh(x).backward(create_graph=True)
g1 = x.grad
x.clear_grad()
g1.backward(create_graph=True)
g2 = x.grad
print(f"second derivative at 1: {g2.item():.6f}")
viz.draw_graph(g2, show_shapes=False, hide_constants=True)

# %% [markdown]
# (This growth is the "expression swell" that symbolic differentiation suffers from too;
# autodiff shares common sub-expressions, so it stays polynomial rather than exponential.)
#
# ## Exercises
#
# In each exercise cell, replace `raise NotImplementedError()` (and the comment above it)
# with your code, run the cell, then run the check cell below it.
#
# ### Exercise 1 — second derivative
#
# Write `second_derivative(f, x0)` returning $f''(x_0)$ as a float, for a function `f`
# of one Variable and a float `x0`. Remember to clear the first gradient.

# %%
def second_derivative(f, x0):
    ### BEGIN SOLUTION
    x = Variable(np.array(x0))
    f(x).backward(create_graph=True)
    gx = x.grad
    x.clear_grad()
    gx.backward()
    return x.grad.item()
    ### END SOLUTION

# %% tags=["check"]
check_close("second_derivative of sin at 0.3", second_derivative(F.sin, 0.3), -np.sin(0.3),
            hint="if you get -sin(x) + cos(x), the first derivative was not cleared")
check_close("second_derivative of x**3 at 2.0", second_derivative(lambda v: v**3, 2.0), 12.0)
check_close("second_derivative of exp(2x) at 0.5",
            second_derivative(lambda v: F.exp(2 * v), 0.5), 4 * np.exp(1.0))
ok("second_derivative differentiates twice")

# %% [markdown]
# ### Exercise 2 — Newton's method
#
# Write `newton(f, x0, steps)` returning the list of iterates `[x0, x1, ..., x_steps]`
# (floats) of Newton's method for minimising `f`. You may use `derivatives` from above.

# %%
def newton(f, x0, steps):
    ### BEGIN SOLUTION
    xs = [float(x0)]
    for _ in range(steps):
        g1, g2 = derivatives(f, xs[-1])
        xs.append(xs[-1] - g1 / g2)
    return xs
    ### END SOLUTION

# %% tags=["check"]
iterates = newton(lambda v: v**4 - 2 * v**2, 2.0, 5)
check_true(len(iterates) == 6, f"newton(..., steps=5) should return 6 values, got {len(iterates)}")
reference = [2.0]
for _ in range(5):
    xr = reference[-1]
    reference.append(xr - (4 * xr**3 - 4 * xr) / (12 * xr**2 - 4))
check_close("your Newton iterates", np.array(iterates), np.array(reference), atol=1e-10)
cosh = lambda v: (F.exp(v) + F.exp(-v)) / 2  # noqa: E731
check_close("newton on cosh from 1.0 (minimum at 0)", newton(cosh, 1.0, 6)[-1], 0.0, atol=1e-10)
ok("Newton's method converges in a handful of steps")

# %% [markdown]
# ### Exercise 3 — the tower of tanh derivatives
#
# Write `tanh_derivatives(x0, n)` returning a list of the first `n` derivatives of tanh
# at the float `x0` (index 0 = first derivative), computed with repeated
# `create_graph=True` backward passes.

# %%
def tanh_derivatives(x0, n):
    ### BEGIN SOLUTION
    x = Variable(np.array(x0))
    y = F.tanh(x)
    out = []
    for _ in range(n):
        y.backward(create_graph=True)
        y = x.grad
        x.clear_grad()
        out.append(y.item())
    return out
    ### END SOLUTION

# %% tags=["check"]
t = np.tanh(0.6)
closed = [1 - t**2, -2 * t * (1 - t**2), (1 - t**2) * (6 * t**2 - 2)]
got = tanh_derivatives(0.6, 3)
check_true(len(got) == 3, f"tanh_derivatives(x0, 3) should return 3 values, got {len(got)}")
for k in range(3):
    check_close(f"derivative {k + 1} of tanh at 0.6", got[k], closed[k],
                hint="clear x.grad before each backward, or the orders add up")
ok("three derivatives of tanh match their closed forms")

# %% [markdown]
# ## Summary
#
# * `backward(create_graph=True)` records the backward computation, so `x.grad` is a
#   Variable with its own graph; `backward` on it gives the second derivative. This works
#   because every op's `backward` is written with minitorch ops.
# * Clear the gradient between passes: gradients accumulate.
# * Newton's method uses $f'/f''$ and converges quadratically near a minimum; gradient
#   descent is slower per step but needs no second derivatives.
# * Each higher derivative's graph contains the previous one: graphs grow with the order.
#
# **Next:** [07 · Tensors](07_tensors.ipynb) — broadcasting, `sum_to` and the shape of a
# gradient.
