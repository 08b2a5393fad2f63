# %% [markdown]
# # 07 · Tensors: broadcasting, `sum_to`, reshape, matmul — and the shape of a gradient
#
# Until now most of our Variables held single numbers. Neural networks work on arrays:
# a batch of inputs times a weight matrix plus a bias vector. Arrays bring one new rule
# to backpropagation, and it is worth learning once and for all: **the gradient of a
# Variable always has that Variable's shape.** This notebook shows why, and how each
# shape-changing operation keeps the rule.
#
# **Learning goals.** After this notebook you can
#
# 1. state NumPy's broadcasting rule and predict the shape of a broadcast result;
# 2. explain why the gradient of a broadcast input is a *sum* (`sum_to`), and that
#    `broadcast_to` and `sum_to` are each other's backward;
# 3. say what the backward of `reshape`, `transpose` and `sum` does;
# 4. derive the gradients of a matrix product, $g_x = g_y W^\top$ and $g_W = x^\top g_y$.

# %%
import matplotlib.pyplot as plt
import numpy as np

import minitorch.ops as F
from checks import (
    check_backward_is_differentiable,
    check_close,
    check_defined,
    check_gradient,
    check_true,
    explain_errors,
    ok,
)
from minitorch import Function, Variable
from pictures import annotated_heatmap

# %% [markdown]
# ## Why the gradient has the input's shape
#
# `x.grad[i, j]` answers the question "how much does the loss change if I nudge
# `x[i, j]`?" There is one such question per element of `x`, so the answer has `x`'s
# shape. It is also what makes the update `W = W - lr * W.grad` meaningful. The
# engine checks it: a backward that returns a gradient of the wrong shape raises a
# `ValueError` naming the Function and both shapes (notebook 08 shows the message).
#
# ## Broadcasting in the forward pass…
#
# NumPy aligns shapes **from the right**; each pair of sizes must be equal or one of them
# must be 1, and a missing leading axis counts as 1. The size-1 axes are then
# *stretched* by repetition. Adding a bias of shape `(4,)` to a batch of shape `(3, 4)`
# repeats the bias for every row.

# %%
x = Variable(np.arange(12.0).reshape(3, 4), name="x")
b = Variable(np.array([10.0, 20.0, 30.0, 40.0]), name="b")
y = x + b
print(f"x {x.shape} + b {b.shape} -> y {y.shape}")
y.backward()
print("x.grad =")
print(x.grad.data)
print(f"b.grad = {b.grad.data}   (shape {b.grad.shape})")

# %% [markdown]
# ## … is a sum in the backward pass
#
# Each element `b[j]` was *used three times*, once per row. In notebook 02 we saw that a
# variable used several times collects the **sum** of the gradients from all its uses.
# So `b.grad[j]` is the sum of column `j` of the incoming gradient. That operation —
# sum over the axes that broadcasting added or stretched until the shape is back to
# the input's — is `sum_to`. The two operations mirror each other:
#
# | forward | backward |
# |---|---|
# | `broadcast_to(x, shape)` — copy along new axes | `sum_to(gy, x.shape)` — add along them |
# | `sum_to(x, shape)` — add along axes | `broadcast_to(gy, x.shape)` — copy back |
#
# The picture shows one example: the forward copies a column vector across four
# columns; the backward adds the four columns of the gradient back into one.

# %%
col = Variable(np.array([[1.0], [2.0], [3.0]]))
wide = F.broadcast_to(col, (3, 4))
weights = np.arange(12.0).reshape(3, 4) / 10  # a pretend upstream gradient
(wide * weights).sum().backward()

fig, axes = plt.subplots(1, 4, figsize=(9, 2.6), gridspec_kw={"width_ratios": [1, 4, 4, 1]})
panels = [
    (col.data, "x (3, 1)"),
    (wide.data, "broadcast_to(x, (3, 4))"),
    (weights, "upstream gradient gy (3, 4)"),
    (col.grad.data, "x.grad = sum_to(gy, (3, 1))"),
]
for ax, (values, title) in zip(axes, panels):
    annotated_heatmap(ax, values, cmap="viridis")  # dark text on light cells, light on dark
    ax.set_title(title, fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# Every binary op in minitorch ends its backward with `sum_to(gx, x.shape)`. When the
# shapes already match it does nothing, so there is one mechanism and no special cases.
#
# ## Reshape, transpose and sum
#
# These only *move* values, so their backward moves the gradient back: reshape it to
# the old shape, transpose it with the inverse permutation. `sum` is `sum_to` under
# another name, so its backward is a broadcast.

# %%
x = Variable(np.arange(6.0).reshape(2, 3))
y = x.reshape(3, 2).T * np.array([[1.0, 2.0, 3.0]])
y.sum().backward()
print(f"y shape {y.shape}, x.grad shape {x.grad.shape}")
x.clear_grad()
s = x.sum(axis=0)  # shape (3,)
(s * np.array([1.0, 10.0, 100.0])).sum().backward()
print("gradient of x.sum(axis=0) * [1, 10, 100] with respect to x:")
print(x.grad.data)

# %% [markdown]
# ## Matrix multiplication
#
# For $y = x W$ with $x$ of shape $(N, D)$ and $W$ of shape $(D, H)$,
# $y_{nh} = \sum_d x_{nd} W_{dh}$. Differentiating element by element,
# $\frac{\partial L}{\partial x_{nd}} = \sum_h g_{y,nh} W_{dh}$ and
# $\frac{\partial L}{\partial W_{dh}} = \sum_n x_{nd}\, g_{y,nh}$, which are again matrix
# products:
#
# $$g_x = g_y W^\top \quad (N, H)(H, D) = (N, D), \qquad g_W = x^\top g_y \quad (D, N)(N, H) = (D, H).$$
#
# A trick to *check* them: the shapes must fit, $(N, H)(H, D)$ and $(D, N)(N, H)$. The
# shapes alone do not decide it, though. For a square $W$ ($D = H$), `gy @ W` has the right
# shape too, and it is wrong: the index formula above sums over $W$'s *second* index, which
# is what the transpose in $g_y W^\top$ says. Derive from the indices; use the shapes as a
# test.

# %%
rng = np.random.default_rng(0)
x = Variable(rng.standard_normal((5, 3)), name="x")
W = Variable(rng.standard_normal((3, 2)), name="W")
y = x @ W
y.backward()  # the seed gy is ones((5, 2))
gy = np.ones((5, 2))
print(f"x.grad matches gy @ W.T: {np.allclose(x.grad.data, gy @ W.data.T)}")
print(f"W.grad matches x.T @ gy: {np.allclose(W.grad.data, x.data.T @ gy)}")

# %% [markdown]
# ## Exercises
#
# In each exercise cell, replace `raise NotImplementedError()` (and the comment above it)
# with your code, run the cell, then run the check cell below it.
#
# ### Exercise 1 — `sum_to` with NumPy
#
# Write `sum_to_np(g, shape)`: sum the array `g` so that it has shape `shape`, undoing
# broadcasting. Sum away the extra *leading* axes first, then sum (with `keepdims=True`)
# every axis where `shape` has a 1 but `g` has not.

# %%
def sum_to_np(g, shape):
    ### BEGIN SOLUTION
    lead = g.ndim - len(shape)
    g = g.sum(axis=tuple(range(lead)))
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    return g.sum(axis=axes, keepdims=True)
    ### END SOLUTION

# %% tags=["check"]
check_defined(globals(), "sum_to_np")
g = np.arange(24.0).reshape(2, 3, 4)
reshape_hint = ("reshape", "reshape keeps every element; sum_to adds them up: g.sum(axis=...)")
for shape, axes in [((4,), (0, 1)), ((3, 1), (0, 2)), ((2, 1, 4), (1,)), ((), (0, 1, 2)),
                    (g.shape, ())]:
    with explain_errors(f"sum_to_np(g, {shape})", reshape_hint):
        got = sum_to_np(g.copy(), shape)
    right = g.sum(axis=axes).reshape(shape)
    if np.ndim(got) > len(shape):
        shape_hint = "sum away the extra leading axes first"
    elif np.ndim(got) < len(shape):
        shape_hint = ("too many axes were summed away: sum only the extra leading ones, and keep "
                      "(keepdims=True) those where shape has a 1")
    else:
        shape_hint = ("the wrong axes were summed: the extra axes are the leading ones, then "
                      "those where shape has a 1 and g has not")
    check_close(f"sum_to_np(g, {shape})", got, right, mistakes={
        "these are means: sum_to adds the gradients up (g.sum, not g.mean)":
            g.mean(axis=axes).reshape(shape),
        "every entry is the sum of all of g: sum only the extra leading axes and those where "
        "shape has a 1": np.full(shape, g.sum()),
    }, hint=shape_hint if np.shape(got) != shape else "")
ok("sum_to_np undoes broadcasting")

# %% [markdown]
# ### Exercise 2 — the backward of `MatMul`
#
# Complete `MatMul.backward` for 2-D `x` and `W`, using Variables: `F.matmul(a, b)` (or
# `a @ b`) and `.T`. Return the two gradients as a tuple.

# %%
class MatMul(Function):
    def forward(self, x, W):
        return x @ W

    def backward(self, gy):
        x, W = self.inputs
        ### BEGIN SOLUTION
        return gy @ W.T, x.T @ gy
        ### END SOLUTION

# %% tags=["check"]
check_defined(globals(), "MatMul")
check_rng = np.random.default_rng(7)  # its own numbers: the check does not depend on others
x_test, W_test = check_rng.standard_normal((4, 3)), check_rng.standard_normal((3, 2))
check_close("MatMul forward", MatMul()(x_test, Variable(W_test)), x_test @ W_test)
x_sq, W_sq = check_rng.standard_normal((2, 3)), check_rng.standard_normal((3, 3))
gy_sq = np.ones((2, 3))  # the seed of sum(x @ W)
check_gradient("MatMul", lambda u, v: MatMul()(u, v), x_sq, W_sq, mistakes={
    "for a square W the shapes also fit gy @ W, but gx = gy @ W.T":
        lambda u, v: [gy_sq @ v, u.T @ gy_sq],
    "this is (x.T @ gy).T, gy.T @ x: gW = x.T @ gy": lambda u, v: [gy_sq @ v.T, gy_sq.T @ u],
})
check_gradient("MatMul", lambda u, v: MatMul()(u, v), x_test, W_test)
with explain_errors("MatMul.backward"):
    xv, Wv = Variable(x_sq), Variable(W_sq)
    MatMul()(xv, Wv).backward()  # the seed gy is ones((2, 3))
check_close("x.grad for a square W", xv.grad, gy_sq @ W_sq.T, mistakes={
    "for a square W the shapes also fit gy @ W, but the formula sums over W's second "
    "index: gy @ W.T": gy_sq @ W_sq})
check_close("W.grad for a square W", Wv.grad, x_sq.T @ gy_sq, mistakes={
    "this is (x.T @ gy).T, gy.T @ x: gW = x.T @ gy": gy_sq.T @ x_sq})
check_backward_is_differentiable("MatMul", lambda u, v: MatMul()(u, v), x_test, W_test)
### BEGIN HIDDEN TESTS
check_gradient("MatMul", lambda u, v: MatMul()(u, v), check_rng.standard_normal((1, 5)),
               check_rng.standard_normal((5, 5)))
### END HIDDEN TESTS
ok("MatMul's gradients are gy @ W.T and x.T @ gy, built from Variables")

# %% [markdown]
# ### Exercise 3 — a broadcasting `AddBias`
#
# `AddBias` adds a bias `b` of shape `(D,)` to every row of `x` of shape `(N, D)`. Write
# its `backward`: the gradient of `x` is `gy` itself; the gradient of `b` must be
# reduced to `b`'s shape with `F.sum_to`.

# %%
class AddBias(Function):
    def forward(self, x, b):
        return x + b

    def backward(self, gy):
        x, b = self.inputs
        ### BEGIN SOLUTION
        return gy, F.sum_to(gy, b.shape)
        ### END SOLUTION

# %% tags=["check"]
check_rng = np.random.default_rng(8)
x_test, b_test = check_rng.standard_normal((5, 3)), check_rng.standard_normal(3)
check_defined(globals(), "AddBias")
check_gradient("AddBias", lambda u, v: AddBias()(u, v), x_test, b_test, mistakes={
    "these are means over the rows: b's gradient is their sum, F.sum_to(gy, b.shape)":
        lambda u, v: [np.ones_like(u), np.ones_like(v)],
})
with explain_errors("AddBias.backward"):
    f_test = AddBias()
    y_types = f_test(Variable(x_test), Variable(b_test))
    grads = f_test.backward(Variable(np.ones(y_types.shape)))
for k, grad in enumerate(grads if isinstance(grads, tuple | list) else (grads,)):
    check_true(grad is None or isinstance(grad, Variable), f"your AddBias.backward returns a "
               f"{type(grad).__name__} for input {k}: this is an ndarray, which "
               "create_graph=True cannot differentiate; work on gy with F.sum_to")
bv = Variable(b_test)
AddBias()(Variable(x_test), bv).backward()
check_true(bv.grad.shape == (3,), f"b.grad has shape {bv.grad.shape}, expected (3,)")
check_close("b.grad for a seed of ones", bv.grad, np.full(3, 5.0),
            hint="each b[j] is used once per row, so its gradient sums over rows")
ok("AddBias reduces the bias gradient to the bias's shape")

# %% [markdown]
# ## Summary
#
# * A gradient always has its Variable's shape: one number per element, and the shape an
#   optimizer update needs. The engine checks it.
# * Broadcasting copies values along stretched axes, so the backward **sums** along
#   them: `sum_to` is the backward of `broadcast_to` and vice versa. Every binary op ends
#   its backward with `sum_to(gx, x.shape)`.
# * Reshape and transpose move values, so their backward moves the gradient back.
# * For $y = xW$: $g_x = g_y W^\top$ and $g_W = x^\top g_y$, derived from the indices;
#   the shapes are a test, not a proof (for a square $W$, `gy @ W` fits too).
#
# **Next:** [08 · Your own Function](08_custom_functions_and_gradcheck.ipynb) — writing
# a complete op and proving it right with `gradcheck`.
