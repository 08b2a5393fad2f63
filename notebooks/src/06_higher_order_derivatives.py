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
# 4. read the graph of a gradient and explain why it grows exponentially with the order;
# 5. write a backward engine of your own that supports `create_graph=True`.

# %%
import heapq
from contextlib import nullcontext

import matplotlib.pyplot as plt
import numpy as np

import minitorch.ops as F
import viz
from checks import (
    NotDoneYet,
    backward_calls,
    check_close,
    check_defined,
    check_is_variable,
    check_true,
    explain_errors,
    ok,
    ratio_hint,
    schedule_problem,
    time_limit,
    traced,
)
from minitorch import Config, Variable, no_grad
from viz.plots import series_style

# The engines we write below look Variables up by identity (`id(u)`), so every Function
# must keep its input Variables alive. minitorch's ops normally keep only what their
# gradient rule reads and free the rest (docs/concepts/memory.md); this switch keeps all.
Config.save_all = True

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
# `Tanh` box is the original forward op, and `TanhGrad` is tanh's backward,
# $g_x = g_y \cdot (1 - y^2)$, recorded as **one** op (PyTorch's `tanh_backward` is the
# same idea). Its inputs are $y = \tanh x$ (drawn `tanh(x)`), computed once in the forward
# pass and reused, and the seed $g_y = 1$ (the dashed constant); its output, `gx`, is drawn
# `grad`. `TanhGrad` is an ordinary Function with a backward of its own, which is what the
# next section runs.

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


newton_path, gd_path = [2.0], [2.0]
for _ in range(10):
    g1, g2 = derivatives(f, newton_path[-1])
    newton_path.append(newton_path[-1] - g1 / g2)
    g1, _ = derivatives(f, gd_path[-1])
    gd_path.append(gd_path[-1] - 0.01 * g1)

fig, ax = plt.subplots(figsize=(6, 3.3))
ax.semilogy(np.abs(np.array(newton_path) - 1) + 1e-17, "o-", label="Newton")
ax.semilogy(np.abs(np.array(gd_path) - 1) + 1e-17, "s-", label="gradient descent, lr = 0.01")
ax.set_xlabel("iteration")
ax.set_ylabel("|x - 1|")
ax.set_title("Newton's method converges quadratically")
ax.legend()
plt.show()
for k in range(7):
    print(f"step {k}: Newton x = {newton_path[k]:.10f}   gradient descent x = {gd_path[k]:.6f}")

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
for order, curve in enumerate(curves):  # colour-blind-safe colours, and a style each
    ax.plot(x.data, curve, label="tanh" + "'" * order if order else "tanh",
            **series_style(order, len(curve)))
ax.set_xlabel("x")
ax.legend(ncol=5, fontsize=8)
ax.set_title("tanh and its first four derivatives, all by autograd")
plt.show()
for order, n in enumerate(sizes, start=1):
    print(f"derivative {order}: its graph has {n} Functions")

# %% [markdown]
# The graphs grow with the order: each derivative is the backward of the previous one's
# graph, and it reuses the values of that graph that the product rule needs. Here is the
# graph of the **second** derivative of tanh at one point
# (constants hidden). Everything hangs off the one `Tanh` output $y$, drawn `tanh(x)`. The
# gradient the graph ends in is drawn `grad`. Differentiating
# `TanhGrad`, $g_y (1 - y^2)$, with respect to $y$ gives $-2y \cdot g_y \cdot g$: two
# `Mul`s, because the seeds $g_y$ and $g$ are constants. Then `Tanh`'s backward applies
# `TanhGrad` once more, so the result is $(1 - y^2) \cdot (-2y)$. Each further order
# applies the same rules to a larger graph. Writing tanh's backward as one op instead of
# three (`y * y`, `1 - ...`, `gy * ...`) keeps these graphs smaller: the fourth
# derivative's graph has 29 Functions (printed above) instead of 49.

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
# How fast do they grow? Count the Functions behind each derivative, up to order 10:

# %%
def count_graph(y):
    """The number of distinct Functions behind y (an explicit stack, as in notebook 03)."""
    seen, stack = set(), [y.creator]
    while stack:
        f = stack.pop()
        if f is None or id(f) in seen:
            continue
        seen.add(id(f))
        stack.extend(u.creator for u in f.inputs)
    return len(seen)


x = Variable(np.array(1.0), name="x")
y = F.tanh(x)
graph_sizes = []
for order in range(1, 11):
    y.backward(create_graph=True)
    y = x.grad
    x.clear_grad()
    graph_sizes.append(count_graph(y))
ratios = np.array(graph_sizes[1:]) / np.array(graph_sizes[:-1])
fig, ax = plt.subplots(figsize=(5.5, 3.2))
ax.semilogy(range(1, 11), graph_sizes, "o-")
ax.set_xlabel("order of the derivative")
ax.set_ylabel("Functions in its graph")
ax.set_title("A straight line on a log scale: exponential growth")
plt.show()
print("Functions per order:", ", ".join(f"{n:,}" for n in graph_sizes))
print(f"growth from order 5 to 10: x{np.exp(np.log(ratios[-5:]).mean()):.1f} per order")

# %% [markdown]
# A straight line on a logarithmic axis: the graphs grow **exponentially** in the order,
# by a factor of about 2.7 per order here. Each backward pass applies the product rule
# to every `Mul` of the previous graph, and each product rule turns one product into a
# sum of two, so the expression roughly doubles and more with every order — the
# "expression swell" of symbolic differentiation. The gradient graph reuses the forward
# values it needs (here the one `Tanh` output), but it does not simplify: a tenth
# derivative costs ten thousand operations. For one or two orders (Newton's method,
# Hessian-vector products, gradient penalties) that is cheap; for high orders, Taylor-mode
# methods do better.
#
# ## Exercises
#
# In each exercise cell, replace `raise NotImplementedError()` (and the comment above it)
# with your code, run the cell, then run the check cell below it. Each exercise is graded
# on its own.
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
grad_hints = (
    ("'NoneType' object has no attribute 'backward'", "x.grad is None after clear_grad(): keep "
     "the first gradient, gx = x.grad, before clearing"),
)


def passes_problem(calls, what, crashed=False, at_backward=False):
    """What the backward calls of `what` show: the first pass without create_graph=True, one
    pass only, or a second pass on the function instead of its gradient. `crashed`: `what`
    raised; `at_backward`: while calling backward on None (a gradient cleared too early)."""
    if not calls:
        return "" if crashed else (
            f"{what} called no backward: differentiate with f(x).backward(create_graph=True)")
    first = calls[0]
    if not first[1]:
        return (f"{what}: the first backward had no create_graph=True, so x.grad is a constant "
                "that cannot be differentiated again")
    if len(calls) == 1 and not at_backward:
        return f"{what} ran backward once: differentiate the first gradient too, gx.backward()"
    if len(calls) > 1 and calls[1][0] is first[0]:
        return f"{what}: the second backward ran on f(x) again; run it on the gradient gx"
    return ""


def run_passes(what, call):
    """call(), failing first with what its backward calls show is wrong (if anything)."""
    with backward_calls() as calls:
        try:
            with explain_errors(what, *grad_hints):
                result = call()
        except AssertionError as err:
            problem = passes_problem(calls, what, True, "keep the first gradient" in str(err))
            check_true(isinstance(err, NotDoneYet) or not problem, problem)
            raise
    problem = passes_problem(calls, what)
    check_true(not problem, problem)
    return result


check_defined(globals(), "second_derivative")
d2_sin = run_passes("second_derivative(F.sin, 0.3)", lambda: second_derivative(F.sin, 0.3))
with explain_errors("second_derivative(x**3, 2.0)", *grad_hints):
    d2_cube = second_derivative(lambda v: v**3, 2.0)
    d2_exp = second_derivative(lambda v: F.exp(2 * v), 0.5)
check_close("second_derivative of sin at 0.3", d2_sin, -np.sin(0.3), mistakes={
    "-sin(x) + cos(x): the first derivative was not cleared (x.clear_grad())":
        -np.sin(0.3) + np.cos(0.3),
    "this is f'(x0) = cos(0.3), the first derivative: differentiate it once more":
        np.cos(0.3),
})
check_close("second_derivative of x**3 at 2.0", d2_cube, 12.0)
check_close("second_derivative of exp(2x) at 0.5", d2_exp, 4 * np.exp(1.0))
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
check_defined(globals(), "newton")
with explain_errors("newton(f, 2.0, 5)"):
    iterates = newton(lambda v: v**4 - 2 * v**2, 2.0, 5)
check_true(isinstance(iterates, list | tuple | np.ndarray),
           f"newton should return the list of iterates, got {type(iterates).__name__}")
check_true(len(iterates) == 6, f"newton(..., steps=5) should return 6 values, [x0, x1, ..., x5] "
           f"with x0 first, got {len(iterates)}")


def iterate(step, start=2.0, n=5):
    """n steps x -> step(x, f'(x), f''(x)) for f = x**4 - 2x**2, from start."""
    xs = [start]
    for _ in range(n):
        xr = xs[-1]
        xs.append(step(xr, 4 * xr**3 - 4 * xr, 12 * xr**2 - 4))
    return np.array(xs)


with np.errstate(all="ignore"):
    newton_mistakes = {
        "each step went x + f'/f'': Newton's step is x - f'(x) / f''(x)":
            iterate(lambda x, g1, g2: x + g1 / g2),
        "the ratio is upside down: the step is f'(x) / f''(x)":
            iterate(lambda x, g1, g2: x - g2 / g1),
        "a gradient step x - f'(x): Newton divides by f''(x)":
            iterate(lambda x, g1, g2: x - g1),
        "every step used the derivatives at x0: evaluate them at the latest iterate":
            iterate(lambda x, g1, g2: x - 24 / 44),  # f'(2) = 24, f''(2) = 44
    }
check_close("your Newton iterates", np.array(iterates, dtype=float),
            iterate(lambda x, g1, g2: x - g1 / g2), atol=1e-10, mistakes=newton_mistakes)
cosh = lambda v: (F.exp(v) + F.exp(-v)) / 2  # noqa: E731
with explain_errors("newton(cosh, 1.0, 6)"):
    last = newton(cosh, 1.0, 6)[-1]
check_close("newton on cosh from 1.0 (minimum at 0)", last, 0.0, atol=1e-10)
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
check_defined(globals(), "tanh_derivatives")
tower_hints = (
    ("'NoneType' object has no attribute", "x.grad is None after clear_grad(): keep the last "
     "gradient (y = x.grad) before clearing"),
)
t = np.tanh(0.6)
closed = [1 - t**2, -2 * t * (1 - t**2), (1 - t**2) * (6 * t**2 - 2)]
no_graph = ("tanh_derivatives: a backward without create_graph=True leaves a constant that "
            "cannot be differentiated again")
with backward_calls() as calls:
    try:
        with explain_errors("tanh_derivatives(0.6, 3)", *tower_hints):
            got = tanh_derivatives(0.6, 3)
    except AssertionError as err:
        check_true(isinstance(err, NotDoneYet) or all(c for _, c in calls[:-1]), no_graph)
        raise
check_true(all(create for _, create in calls[:-1]), no_graph)
check_true(isinstance(got, list | tuple), f"tanh_derivatives should return a list, got "
           f"{type(got).__name__}")
values = [float(getattr(v, "data", v)) for v in got]
check_true(not np.isclose(values[0], t), "got[0] is tanh(0.6) itself: index 0 is the first "
           "derivative; append after each backward, not before")
check_true(len(got) == 3, f"tanh_derivatives(x0, 3) should return 3 values, got {len(got)}")
check_close("your three derivatives of tanh at 0.6", values, closed, mistakes={
    "the orders add up: clear x.grad before each backward":
        [closed[0], closed[0] + closed[1], closed[0] + 2 * closed[1] + closed[2]],
    "every entry is the first derivative: differentiate the last gradient, y = x.grad":
        [closed[0]] * 3,
})
ok("three derivatives of tanh match their closed forms")

# %% [markdown]
# ### Exercise 4 — your own backward engine, with `create_graph`
#
# Now write the engine yourself. `backward_engine(y, create_graph=False)` must do what
# `y.backward(create_graph=...)` does, for Functions with one output:
#
# 1. seed: the gradient of `y` is `Variable(np.ones_like(y.data))`;
# 2. visit the Functions largest `generation` first, each once — the heap of notebook 03,
#    with entries `(-f.generation, id(f), f)`;
# 3. for each Function `f`: take its output's gradient (`f.output()`, looked up by `id`),
#    call the **differentiable** `f.backward(gy)` (it returns one gradient or a tuple,
#    one per input), and add each gradient into the running total of its input;
# 4. do step 3 under `no_grad()` when `create_graph` is False (first-order gradients
#    record no graph), and with recording on (`nullcontext()`) when it is True — then the
#    gradients are Variables with a history, and can be differentiated again;
# 5. store the total of every **leaf** (`creator is None`) in its `.grad`, *adding* to a
#    gradient that is already there.
#
# The check forbids `Variable.backward` while it runs: the engine must be yours.

# %%
def backward_engine(y, create_graph=False):
    ### BEGIN SOLUTION
    grads = {id(y): Variable(np.ones_like(y.data))}
    leaves = {}
    heap, queued = [], set()

    def push(f):
        if f is not None and id(f) not in queued:
            queued.add(id(f))
            heapq.heappush(heap, (-f.generation, id(f), f))

    if y.creator is None:
        leaves[id(y)] = y
    push(y.creator)
    with nullcontext() if create_graph else no_grad():
        while heap:
            _, _, f = heapq.heappop(heap)
            gxs = f.backward(grads.pop(id(f.output())))
            gxs = gxs if isinstance(gxs, tuple) else (gxs,)
            for u, gx in zip(f.inputs, gxs):
                if gx is None:
                    continue
                grads[id(u)] = gx if id(u) not in grads else grads[id(u)] + gx
                if u.creator is None:
                    leaves[id(u)] = u
                push(u.creator)
        for key, leaf in leaves.items():
            leaf.grad = grads[key] if leaf.grad is None else leaf.grad + grads[key]
    ### END SOLUTION

# %% tags=["check"]
engine_hints = (
    ("KeyError", "a Function ran before its output's gradient arrived: pop the largest "
     "generation first, and look gradients up by id(f.output())"),
    ("not supported between", "push (-f.generation, id(f), f): ties then compare ids"),
    ("write the engine yourself", "no y.backward() inside backward_engine: loop over the "
     "Functions yourself"),
)


def forbidden_backward(self, *args, **kwargs):
    raise RuntimeError("backward_engine called Variable.backward: write the engine yourself")


def run_engine(y, create_graph=False, what="backward_engine(y)"):
    """Your engine, with minitorch's own backward switched off while it runs; fails naming a
    Function that ran twice, never, or before a Function using its output."""
    saved = Variable.backward
    Variable.backward = forbidden_backward
    order = "pop the largest generation first (push -f.generation)"
    try:
        with traced(y) as calls:
            try:
                with explain_errors(what, *engine_hints), time_limit(
                    20, f"{what} still runs after 20 s: does every Function leave the heap once?"
                ):
                    backward_engine(y, create_graph=create_graph)
            except AssertionError:
                problem = schedule_problem(calls, y, order=order, finished=False)
                check_true(not problem, f"{what}: {problem}")
                raise
    finally:
        Variable.backward = saved
    problem = schedule_problem(calls, y, order=order)
    check_true(not problem, f"{what}: {problem}")


engine_size = ratio_hint(  # said once every Function ran once, in a right order
    too_large="too large, though each Function ran once in order: was a gradient added twice?",
    too_small="too small, though each Function ran once in order: add into the running total",
)
check_defined(globals(), "backward_engine")
x_test = Variable(np.array([0.5, -1.0, 2.0]))
a_test = F.square(x_test)
run_engine(F.exp(a_test) + F.sin(a_test))  # the diamond of notebook 03
check_is_variable("x.grad after backward_engine", x_test.grad)
check_close("x.grad of exp(x^2) + sin(x^2)", x_test.grad,
            (np.exp(x_test.data**2) + np.cos(x_test.data**2)) * 2 * x_test.data,
            hint=engine_size)
check_true(x_test.grad.creator is None,
           "with create_graph=False your engine recorded the backward pass (x.grad has a "
           "creator): run the backward calls inside `with no_grad():`")
x_test.clear_grad()
a_long = F.square(x_test)
run_engine(F.sin(F.exp(a_long)) * a_long, what="backward_engine(sin(exp(a)) * a) with a = x^2")
a_ref = x_test.data**2
check_close("x.grad of sin(exp(a)) * a, a long branch meeting a short one", x_test.grad,
            (np.cos(np.exp(a_ref)) * np.exp(a_ref) * a_ref + np.sin(np.exp(a_ref))) * 2 * x_test.data,
            hint=engine_size)
### BEGIN HIDDEN TESTS
x_hidden = Variable(np.array([0.3, -0.7]))
b_hidden = F.exp(x_hidden)
run_engine(F.tanh(F.sin(F.exp(b_hidden))) + b_hidden * b_hidden, what="backward_engine(hidden)")
eb = np.exp(x_hidden.data)
check_close("x.grad of tanh(sin(exp(b))) + b*b with b = exp(x)", x_hidden.grad,
            ((1 - np.tanh(np.sin(np.exp(eb)))**2) * np.cos(np.exp(eb)) * np.exp(eb) + 2 * eb) * eb)
### END HIDDEN TESTS
e_test = F.exp(x_test)  # one Variable used twice by one op: its creator waits for both
x_test.clear_grad()
run_engine(e_test * e_test, what="backward_engine(e * e) with e = exp(x)")
check_close("x.grad of e * e with e = exp(x)", x_test.grad, 2 * np.exp(2 * x_test.data),
            hint=engine_size)
u_test, w_test = Variable(np.array(3.0)), Variable(np.array(-2.0))
run_engine(u_test * w_test * u_test, what="backward_engine(u * w * u)")
check_close("the gradient of u*w*u w.r.t. u (u is used twice)", u_test.grad, 2 * 3.0 * -2.0,
            hint=engine_size)
check_close("the gradient of u*w*u w.r.t. w", w_test.grad, 9.0)
run_engine(u_test * w_test, what="a second backward_engine(u * w)")
check_close("u.grad after a second backward (gradients accumulate)", u_test.grad,
            -12.0 - 2.0, hint="add to the gradient a leaf already has: leaf.grad + total")
x1 = Variable(np.array(0.7))
run_engine(F.tanh(x1), create_graph=True, what="backward_engine(tanh(x), create_graph=True)")
first = x1.grad
check_is_variable("x.grad with create_graph=True", first)
t1 = np.tanh(0.7)
check_close("d tanh/dx at 0.7", first, 1 - t1**2)
check_true(first.creator is not None,
           "with create_graph=True the gradient must have a history (a creator): run the "
           "backward calls with recording on (nullcontext()), not inside no_grad()")
x1.clear_grad()
run_engine(first, what="backward_engine(x.grad) (the second derivative)")
check_close("d2 tanh/dx2 at 0.7 with your engine twice", x1.grad, -2 * t1 * (1 - t1**2),
            hint="the second pass differentiates the first gradient's graph")
ok("your engine computes gradients, and with create_graph=True gradients of gradients")

# %% [markdown]
# ### Exercise 5 — the Hessian of a function of two variables
#
# With an engine that records its own work, second derivatives of several variables
# follow. Write `hessian_2x2(backward, f, x0, y0)`, returning the $2 \times 2$ matrix of
# second derivatives of `f(x, y)` at the floats `(x0, y0)` as a NumPy array. Use the
# engine you are given, called as `backward(z, create_graph=...)`: one pass with
# `create_graph=True` gives the Variables `gx = x.grad` and `gy = y.grad`; then, for each
# of them, clear both gradients and run `backward` on it: the new `x.grad` and `y.grad`
# are one row of the Hessian. The check passes your `backward_engine` when Exercise 4
# works, and minitorch's engine otherwise, so this exercise is graded on its own.

# %%
def hessian_2x2(backward, f, x0, y0):
    ### BEGIN SOLUTION
    x, y = Variable(np.array(x0)), Variable(np.array(y0))
    backward(f(x, y), create_graph=True)
    first = (x.grad, y.grad)
    rows = []
    for g in first:
        x.clear_grad()
        y.clear_grad()
        backward(g)
        rows.append([x.grad.item(), y.grad.item()])
    return np.array(rows)
    ### END SOLUTION

# %% tags=["check"]
def minitorch_engine(z, create_graph=False):
    z.backward(create_graph=create_graph)


def engine_to_use():
    """Your backward_engine if it gets a second derivative right, else minitorch's."""
    try:
        probe = Variable(np.array(0.3))
        backward_engine(probe * probe * probe, create_graph=True)
        g = probe.grad
        probe.clear_grad()
        backward_engine(g)
        if abs(probe.grad.item() - 1.8) < 1e-9:
            return backward_engine, "your backward_engine"
    except Exception:
        pass
    return minitorch_engine, "minitorch's engine (Exercise 4 is not done or not right yet)"


engine, engine_name = engine_to_use()
print(f"using {engine_name}")
hess_hints = (
    ("'NoneType' object has no attribute", "keep x.grad and y.grad of the first pass before "
     "clearing them"),
)


def saddle(u, v):
    return u**3 * v + F.sin(u * v)


engine_calls = []


def recording_engine(z, create_graph=False):
    """The engine above, noting each pass: did it have create_graph, was z a graph's output?"""
    engine_calls.append((create_graph, z.creator is not None))
    engine(z, create_graph=create_graph)


def passes_right():
    """Fail if the engine's calls show a first pass without create_graph=True."""
    check_true(not engine_calls or engine_calls[0][0], "hessian_2x2: the first pass needs "
               "backward(z, create_graph=True); without it the gradients are constants")
    check_true(all(has_graph for _, has_graph in engine_calls), "hessian_2x2: a second pass "
               "ran on a gradient with no graph: the first pass needs create_graph=True")


check_defined(globals(), "hessian_2x2")
try:
    with explain_errors("hessian_2x2(engine, f, 0.5, -1.2)", *hess_hints):
        H = hessian_2x2(recording_engine, saddle, 0.5, -1.2)
except AssertionError as err:
    if not isinstance(err, NotDoneYet):
        passes_right()
    raise
check_true(bool(engine_calls), "hessian_2x2 never called backward(z, ...), the engine it is given")
passes_right()
H = H.data if isinstance(H, Variable) else H
check_true(isinstance(H, np.ndarray | list | tuple) and len(H) == 2
           and all(isinstance(row, np.ndarray | list | tuple) and len(row) == 2 for row in H),
           f"hessian_2x2 should return a 2 x 2 array, got {np.shape(H) if isinstance(H, np.ndarray) else type(H).__name__}")
with explain_errors("np.array(H, dtype=float)"):
    H = np.array([[v.item() if isinstance(v, Variable) else float(v) for v in row] for row in H])
x0, y0 = 0.5, -1.2
s_uv = np.sin(x0 * y0)
expected = np.array([
    [6 * x0 * y0 - y0**2 * s_uv, 3 * x0**2 + np.cos(x0 * y0) - x0 * y0 * s_uv],
    [3 * x0**2 + np.cos(x0 * y0) - x0 * y0 * s_uv, -x0**2 * s_uv],
])
fx, fy = 3 * x0**2 * y0 + y0 * np.cos(x0 * y0), x0**3 + x0 * np.cos(x0 * y0)  # first pass
added = np.array([[fx + expected[0, 0], fy + expected[0, 1]],
                  [fx + expected[0, 0] + expected[1, 0], fy + expected[0, 1] + expected[1, 1]]])
hess_mistakes = {
    "the rows add up: clear x.grad and y.grad before each second pass": added,
    "these are the first derivatives: run backward once more on each of them":
        np.array([[fx, fy], [fx, fy]]),
    "the mixed derivatives are missing: each row needs both x.grad and y.grad":
        np.diag(np.diag(expected)),
}
check_close("your Hessian", H, expected, mistakes=hess_mistakes)
if engine is not minitorch_engine:
    # once more with minitorch's engine, which accumulates: an engine that overwrites a
    # leaf's gradient would hide a missing clear_grad() in hessian_2x2
    with explain_errors("hessian_2x2(minitorch's engine, f, 0.5, -1.2)", *hess_hints):
        H_minitorch = [[v.item() if isinstance(v, Variable) else float(v) for v in row]
                       for row in hessian_2x2(minitorch_engine, saddle, 0.5, -1.2)]
    check_close("your Hessian with minitorch's engine", np.array(H_minitorch), expected,
                mistakes=hess_mistakes)
check_true(np.isclose(H[0][1], H[1][0]),
           "the mixed derivatives d2f/dxdy and d2f/dydx should be equal")
ok(f"hessian_2x2 is right (with {engine_name.split(' (')[0]}); the Hessian is symmetric")

# %% [markdown]
# ## Summary
#
# * `backward(create_graph=True)` records the backward computation, so `x.grad` is a
#   Variable with its own graph; `backward` on it gives the second derivative. This works
#   because every op's `backward` is written with minitorch ops.
# * Clear the gradient between passes: gradients accumulate.
# * Newton's method uses $f'/f''$ and converges quadratically near a minimum; gradient
#   descent is slower per step but needs no second derivatives.
# * Each higher derivative is the backward of the previous one's graph, and the graphs
#   grow exponentially with the order (about ×2.7 per order for tanh).
# * An engine supports `create_graph=True` by running the differentiable `backward`s with
#   recording on; with recording off, the same loop gives first-order gradients.
#
# **Next:** [07 · Tensors](07_tensors.ipynb) — broadcasting, `sum_to` and the shape of a
# gradient.
