# %% [markdown]
# # 03 · Complex graphs: order, generations, memory and `no_grad`
#
# Real computations are not chains. A value is used by several operations, branches
# meet again, and a training loop builds thousands of graphs. This notebook asks three
# questions every autograd engine must answer: *in which order* do we run the backward
# steps, *when* can a step run, and *who keeps what alive* in memory?
#
# **Learning goals.** After this notebook you can
#
# 1. explain why a branching graph needs every gradient to arrive before a Function runs
#    its backward, and show what goes wrong otherwise;
# 2. read `generation` numbers and use them (or a topological order) to schedule backward;
# 3. explain why a Function holds its outputs through weak references;
# 4. use `no_grad()` to compute without recording a graph, and say when to.

# %%
import gc
import tracemalloc
import weakref

import matplotlib.pyplot as plt
import numpy as np

import minitorch.ops as F
from checks import (
    check_close,
    check_defined,
    check_true,
    explain_errors,
    ok,
    ratio_hint,
    schedule_problem,
    time_limit,
    traced,
)
from minitorch import Config, Variable, no_grad

# The engines we write below look Variables up by identity (`id(u)`), so every Function
# must keep its input Variables alive. minitorch's ops normally keep only what their
# gradient rule reads and free the rest (docs/concepts/memory.md); this switch keeps all.
Config.save_all = True

# %% [markdown]
# ## A diamond
#
# In $a = x^2$, $y = e^a + \sin a$, the variable `a` feeds **two** Functions. Its
# gradient is the *sum* of what comes back along both branches:
# $\frac{dy}{da} = e^a + \cos a$. The backward step of `Square` (which produced `a`) may
# only run once both contributions have arrived.

# %%
def diamond(x):
    a = F.square(x)
    b = F.exp(a)
    c = F.sin(a)
    return b + c


x = Variable(np.array(0.5), name="x")
y = diamond(x)
y.backward()
a_val = 0.5**2
expected = (np.exp(a_val) + np.cos(a_val)) * 2 * 0.5
print(f"engine: x.grad = {x.grad.item():.6f}   closed form: {expected:.6f}")

# %% [markdown]
# ## Generations
#
# Every Variable and Function carries a `generation`: leaves are 0, a Function takes the
# largest generation among its inputs, and its output is one more. It is the length of
# the longest path from a leaf. Drawing nodes in columns by generation shows the
# structure at a glance (notebook 05 draws graphs properly with `viz`; here a few lines
# of matplotlib suffice).

# %%
def collect(y):
    """All Variables and Functions behind y, found iteratively."""
    variables, functions, stack = {id(y): y}, {}, [y]
    while stack:
        v = stack.pop()
        f = v.creator
        if f is None or id(f) in functions:
            continue
        functions[id(f)] = f
        for u in f.inputs:
            if id(u) not in variables:
                variables[id(u)] = u
                stack.append(u)
    return list(variables.values()), list(functions.values())


def draw(y, names):
    variables, functions = collect(y)
    pos, rows = {}, {}
    for f in functions:  # a column per generation, a row per Function in the column
        col = 2 * f.generation + 1
        pos[id(f)] = (col, rows.get(col, 0))
        rows[col] = rows.get(col, 0) + 1
    for v in variables:  # outputs sit beside their creator
        row = pos[id(v.creator)][1] if v.creator is not None else 0
        pos[id(v)] = (2 * v.generation, row)
    fig, ax = plt.subplots(figsize=(7, 2.6))
    arrow = {"arrowstyle": "->", "shrinkA": 16, "shrinkB": 16}
    for f in functions:
        for u in f.inputs:
            ax.annotate("", pos[id(f)], pos[id(u)], arrowprops=arrow)
        for ref in f.outputs:
            ax.annotate("", pos[id(ref())], pos[id(f)], arrowprops=arrow)
        ax.text(*pos[id(f)], f"{type(f).__name__}\ngen {f.generation}", ha="center",
                va="center", bbox={"boxstyle": "square", "fc": "lightblue"})
    for v in variables:
        ax.text(*pos[id(v)], f"{names.get(id(v), '')}\ngen {v.generation}", ha="center",
                va="center", bbox={"boxstyle": "circle", "fc": "lightyellow"})
    ax.set_xlim(-0.7, max(c for c, _ in pos.values()) + 0.7)
    ax.set_ylim(-0.7, max(r for _, r in pos.values()) + 0.7)
    ax.axis("off")
    plt.show()


x = Variable(np.array(0.5))
a = F.square(x)
b, c = F.exp(a), F.sin(a)
y = b + c
draw(y, {id(x): "x", id(a): "a", id(b): "b", id(c): "c", id(y): "y"})
for name, v in [("x", x), ("a", a), ("b", b), ("c", c), ("y", y)]:
    print(f"{name}: generation {v.generation}")

# %% [markdown]
# ## What goes wrong with a naive order
#
# The simplest backward loop keeps a stack of Functions: pop one, run its backward, push
# the creators of its inputs. On a chain that is fine. On the diamond, `Square` is pushed
# **twice** (once from each branch) and runs the first time with only *half* of `a`'s
# gradient. Let us write that loop and watch it fail.

# %%
def naive_backward(y):
    grads = {id(y): np.ones_like(y.data)}
    stack = [y.creator]
    while stack:
        f = stack.pop()
        gys = [grads[id(ref())] for ref in f.outputs]
        gxs = f.backward_array(*gys)
        gxs = gxs if isinstance(gxs, tuple) else (gxs,)
        for u, gx in zip(f.inputs, gxs):
            grads[id(u)] = grads.get(id(u), 0) + gx
            if u.creator is not None:
                stack.append(u.creator)
    return grads


x = Variable(np.array(0.5))
y = diamond(x)
wrong = naive_backward(y)[id(x)]
print(f"naive loop: {float(wrong):.6f}   correct: {expected:.6f}")

# %% [markdown]
# The naive answer is too large: the first time `Square` ran, `a`'s gradient held only
# one branch's share; the second time it held the *full* sum, so the first share was
# counted twice. The fix is a schedule in which a Function runs only after **every** Function
# that uses its outputs has run — a *topological order* of the reversed graph. Two
# classic ways to get one:
#
# * **by generation** (DeZero's choice): always run the waiting Function with the
#   largest generation next; it cannot be needed by anything still waiting;
# * **by counting** (Kahn's algorithm; minitorch's engine): count how many gradient
#   contributions each Function still waits for and run it when the count hits zero.
#
# Both are iterative, so a chain of a million operations needs no recursion limit.
#
# ## Memory: who keeps what alive?
#
# A Variable points to its creator, and the creator points to its inputs — so the graph
# keeps every intermediate value alive as long as the output exists. That is needed:
# backward uses those values. But if the creator also held its *outputs* strongly, there
# would be a reference cycle (`y → creator → y`), and Python could only free it in the
# occasional garbage-collection sweep. minitorch's Function holds its outputs through
# `weakref`s, so the graph is freed the moment you drop the output:

# %%
x = Variable(np.ones(3))
y = F.exp(F.square(x))
creator_ref = weakref.ref(y.creator)
print(f"outputs are held as: {type(y.creator.outputs[0]).__name__}")
gc.disable()  # prove that plain reference counting is enough
del y
print(f"creator alive after `del y`: {creator_ref() is not None}")
gc.enable()

# %% [markdown]
# ## `no_grad()`: no graph when you need no gradient
#
# Recording the graph costs memory: every intermediate array stays alive. When we only
# need values — evaluating a model, updating weights — we switch recording off with
# `no_grad()`. Let us measure the memory of a 30-step computation on an array of
# 100 000 floats, with and without the graph.

# %%
def run(steps, record):
    x = Variable(np.linspace(0, 1, 100_000))
    peaks = []
    tracemalloc.start()
    y = x
    for _ in range(steps):
        if record:
            y = F.sin(y) * 1.01
        else:
            with no_grad():
                y = F.sin(y) * 1.01
        peaks.append(tracemalloc.get_traced_memory()[0] / x.data.nbytes)
    tracemalloc.stop()
    return np.array(peaks)


with_graph, without_graph = run(30, True), run(30, False)
fig, ax = plt.subplots(figsize=(6, 3.2))
ax.plot(with_graph, label="graph recorded")
ax.plot(without_graph, label="inside no_grad()")
ax.set_xlabel("operations so far")
ax.set_ylabel("arrays kept alive")
ax.set_title("The graph keeps every intermediate value")
ax.legend()
plt.show()
print(f"after 30 steps: about {round(with_graph[-1])} arrays with the graph, "
      f"{round(without_graph[-1])} without")

# %% [markdown]
# With the graph, each step keeps two arrays (the `sin` output and the product), so
# memory grows linearly; without it, only the current value survives.
#
# ## Exercises
#
# In each exercise cell, replace `raise NotImplementedError()` (and the comment above it)
# with your code, run the cell, then run the check cell below it. Each exercise is graded
# on its own.
#
# ### Exercise 1 — count the Functions in a graph
#
# Write `count_functions(y)`, the number of *distinct* Functions in the graph behind `y`.
# Walk it with an explicit stack (no recursion: the check uses a chain of 5000 ops) and
# remember which Functions you have seen (`id(f)` in a set), since a diamond reaches a
# Function along two paths.

# %%
def count_functions(y):
    ### BEGIN SOLUTION
    seen, stack = set(), [y.creator] if y.creator is not None else []
    while stack:
        f = stack.pop()
        if id(f) in seen:
            continue
        seen.add(id(f))
        stack.extend(u.creator for u in f.inputs if u.creator is not None)
    return len(seen)
    ### END SOLUTION

# %% tags=["check"]
check_defined(globals(), "count_functions")
leaf_hint = ("'NoneType' object", "a leaf's creator is None: push only creators that exist")
with explain_errors("count_functions(diamond(x))", leaf_hint):
    n = count_functions(diamond(Variable(np.array(0.5))))
check_true(isinstance(n, int | np.integer),
           f"count_functions should return a number (len of what you saw), got {type(n).__name__}")
v = Variable(np.array(1.0))
h = v
for _ in range(5000):
    h = h * 1.0001
recursion_hint = (
    "RecursionError",
    "walk the graph with an explicit stack (a list you append to and pop from)",
)
with explain_errors("count_functions on a chain of 5000 ops", recursion_hint, leaf_hint):
    n_chain = count_functions(h)
with explain_errors("count_functions(leaf)", leaf_hint):
    n_leaf = count_functions(v)
counted = f"you counted {n} for the diamond (4 Functions), {n_chain} for a chain of 5000 and {n_leaf} for a leaf"
off = n - 4
check_true(not (off and n_chain == 5000 + off and n_leaf == off),
           f"{counted}: off by {off}; count each Function once, len(seen)")
check_true(not (n > 4 and n_chain == 5000), f"{counted}: the diamond's Square is reached along "
           "two paths and was counted twice: remember the Functions seen (a set of id(f))")
check_true(not (n < 4 and n_chain == 5000), f"{counted}: a Function was missed: follow every "
           "input of each Function (for u in f.inputs)")
check_true(n_chain <= 5000, f"{counted}: more than one per multiplication: count the "
           "Functions (creators), not the Variables")
check_true(n == 4 and n_chain == 5000 and n_leaf == 0, f"{counted}")
ok("count_functions handles branches, long chains and leaves")

# %% [markdown]
# ### Exercise 2 — backward by generation
#
# Fix the naive loop: keep the waiting Functions in a heap keyed by **negative**
# generation (`heapq` is a min-heap), add each Function only once (track `id(f)`), and
# run the one with the largest generation first. Return the `grads` dictionary
# (`id(variable) -> ndarray`) as `naive_backward` does.
# Tip: push `(-f.generation, id(f), f)` so that ties never compare Functions.

# %%
import heapq


def backward_by_generation(y):
    grads = {id(y): np.ones_like(y.data)}
    ### BEGIN SOLUTION
    heap, queued = [(-y.creator.generation, id(y.creator), y.creator)], {id(y.creator)}
    while heap:
        _, _, f = heapq.heappop(heap)
        gys = [grads[id(ref())] for ref in f.outputs]
        gxs = f.backward_array(*gys)
        gxs = gxs if isinstance(gxs, tuple) else (gxs,)
        for u, gx in zip(f.inputs, gxs):
            grads[id(u)] = grads.get(id(u), 0) + gx
            g = u.creator
            if g is not None and id(g) not in queued:
                queued.add(id(g))
                heapq.heappush(heap, (-g.generation, id(g), g))
    ### END SOLUTION
    return grads

# %% tags=["check"]
order_hints = (
    ("KeyError", "a Function ran too early: pop the largest generation first (push -f.generation)"),
    ("not supported between", "push (-f.generation, id(f), f): ties then compare ids"),
)
wrong_size = ratio_hint(  # said once every Function ran once, in a right order
    too_large="too large, though each Function ran once in order: was a gradient added twice?",
    too_small="too small, though each Function ran once in order: add into grads, do not overwrite",
)


def run_scheduled(what, engine, y):
    """Run the student's engine on y; fail naming a Function run twice, never or too early."""
    with explain_errors(what, *order_hints), traced(y) as calls:
        result = engine(y)
    problem = schedule_problem(calls, y, order="pop the largest generation first")
    check_true(not problem, f"{what}: {problem}")
    return result


check_defined(globals(), "backward_by_generation")
x_test = Variable(np.array([0.5, -1.0, 2.0]))
grads = run_scheduled("backward_by_generation(diamond(x))", backward_by_generation,
                      diamond(x_test))
check_true(isinstance(grads, dict) and id(x_test) in grads,
           "the returned dict has no gradient for x: store each input's gradient under id(u)")
check_true(np.shape(grads[id(x_test)]) == x_test.shape,
           f"the gradient for x has shape {np.shape(grads[id(x_test)])}, x has {x_test.shape}: "
           "make a single gradient a tuple, gxs if isinstance(gxs, tuple) else (gxs,)")
a_test = x_test.data**2
check_close(
    "the diamond's x.grad",
    grads[id(x_test)],
    (np.exp(a_test) + np.cos(a_test)) * 2 * x_test.data,
    hint=wrong_size,
)
x2 = Variable(np.array(0.3))
a2 = F.square(x2)
y2 = F.sin(F.exp(a2)) * a2  # a longer branch meets a short one
grads = run_scheduled("backward_by_generation(sin(exp(x^2)) * x^2)", backward_by_generation, y2)
check_close(
    "your gradient of sin(exp(x^2)) * x^2",
    grads[id(x2)],
    (np.cos(np.exp(0.09)) * np.exp(0.09) * 0.09 + np.sin(np.exp(0.09))) * 2 * 0.3,
    hint=wrong_size,
)
ok("backward_by_generation schedules every Function after all its users")

# %% [markdown]
# ### Exercise 3 — evaluate without a graph
#
# Write `evaluate(f, x)` that returns `f(x)` **without recording a graph** (so the
# result has no creator).

# %%
def evaluate(f, x):
    ### BEGIN SOLUTION
    with no_grad():
        return f(x)
    ### END SOLUTION

# %% tags=["check"]
check_defined(globals(), "evaluate")
with explain_errors("evaluate(diamond, x)"):
    out = evaluate(diamond, Variable(np.array([0.5, 1.0])))
check_true(out is not None, "evaluate returned None: did you forget to `return` f(x)?")
check_true(
    isinstance(out, Variable),
    f"evaluate returned a {type(out).__name__}: return the Variable f(x), not its .data",
)
check_close("evaluate(diamond, x)", out, np.exp([0.25, 1.0]) + np.sin([0.25, 1.0]))
check_true(out.creator is None, "the result still has a creator: call f(x) inside the "
           "`with no_grad():` block (not before or after it)")
recorded = []


def spy(v):  # notes whether a Function inside f recorded a graph
    w = F.square(v)
    recorded.append(w.creator is not None)
    return F.exp(w)


with explain_errors("evaluate(spy, x)"):
    evaluate(spy, Variable(np.array(1.0)))
check_true(
    recorded and not any(recorded),
    "f recorded a graph inside evaluate (removing the creator afterwards is too late): "
    "call f inside `with no_grad():`",
)
check_true(
    F.square(Variable(np.array(2.0))).creator is not None,
    "graph recording is still off after evaluate: use no_grad() in a `with` block",
)
ok("evaluate computes values without keeping a graph")

# %% [markdown]
# ### Exercise 4 — backward by counting (Kahn's algorithm)
#
# minitorch's engine needs no generations. Write `backward_by_counting(y)` returning the
# same `grads` dictionary as `backward_by_generation`, in two passes:
#
# 1. walk the graph from `y.creator` (an explicit stack, each Function once) and count,
#    for every Function `g`, how many times its output is an input of another Function:
#    `pending[id(g)]`;
# 2. start with `ready = [y.creator]`; pop a Function, run `backward_array` as in the
#    naive loop, add each input's gradient into `grads`, and decrement the count of the
#    input's creator; when it reaches 0, every contribution has arrived, so push it.
#    (`backward_array` returns `None` for an input that needs no gradient, such as the
#    constant in `h * 1.0001`: add nothing for it.)

# %%
def backward_by_counting(y):
    grads = {id(y): np.ones_like(y.data)}
    ### BEGIN SOLUTION
    pending, stack, seen = {}, [y.creator], {id(y.creator)}
    while stack:
        f = stack.pop()
        for u in f.inputs:
            g = u.creator
            if g is None:
                continue
            pending[id(g)] = pending.get(id(g), 0) + 1
            if id(g) not in seen:
                seen.add(id(g))
                stack.append(g)
    ready = [y.creator]
    while ready:
        f = ready.pop()
        gys = [grads[id(ref())] for ref in f.outputs]
        gxs = f.backward_array(*gys)
        gxs = gxs if isinstance(gxs, tuple) else (gxs,)
        for u, gx in zip(f.inputs, gxs):
            if gx is not None:
                grads[id(u)] = grads.get(id(u), 0) + gx
            g = u.creator
            if g is not None:
                pending[id(g)] -= 1
                if pending[id(g)] == 0:
                    ready.append(g)
    ### END SOLUTION
    return grads

# %% tags=["check"]
count_hints = (
    ("KeyError", "a Function ran before all its gradients arrived: count every use, run it at 0"),
    ("RecursionError", "walk the graph with an explicit stack (a list), not recursion"),
    ("'NoneType'", "backward_array gives None for a constant input: skip it (if gx is not None)"),
)
count_size = ratio_hint(  # said once every Function ran once, in a right order
    too_large="too large, though each Function ran once in order: was a gradient added twice?",
    too_small="too small, though each Function ran once in order: add into grads, do not overwrite",
)


def run_counted(what, y, seconds=10):
    """Run the student's engine on y; fail naming a Function run twice, never or too early."""
    with explain_errors(what, *count_hints), traced(y) as calls, time_limit(
        seconds, f"{what} still runs after {seconds} s: each Function must run once"
    ):
        result = backward_by_counting(y)
    problem = schedule_problem(calls, y, order="count every use; run it at count 0")
    check_true(not problem, f"{what}: {problem}")
    return result


check_defined(globals(), "backward_by_counting")
x_test = Variable(np.array([0.5, -1.0, 2.0]))
grads = run_counted("backward_by_counting(diamond(x))", diamond(x_test))
check_true(isinstance(grads, dict) and id(x_test) in grads,
           "the returned dict has no gradient for x: store each input's gradient under id(u)")
a_test = x_test.data**2
check_close("the diamond's x.grad", grads[id(x_test)],
            (np.exp(a_test) + np.cos(a_test)) * 2 * x_test.data, hint=count_size)
x2 = Variable(np.array(0.3))
a2 = F.square(x2)
y2 = F.sin(F.exp(a2)) * a2 * a2  # a2 is used three times, along paths of different length
grads = run_counted("backward_by_counting(sin(exp(x^2)) * x^2 * x^2)", y2)
s2 = np.sin(np.exp(0.09))
expected = (np.cos(np.exp(0.09)) * np.exp(0.09) * 0.09**2 + s2 * 2 * 0.09) * 2 * 0.3
check_close("your gradient of sin(exp(x^2)) * x^2 * x^2", grads[id(x2)], expected,
            hint=count_size)
v = h = Variable(np.array(1.0))
for _ in range(5000):
    h = h * 1.0001
grads = run_counted("backward_by_counting on a chain of 5000 ops", h, seconds=30)
check_close("the gradient through 5000 multiplications", grads[id(v)], 1.0001**5000)
ok("backward_by_counting runs each Function once, after all its gradients arrived")

# %% [markdown]
# ## Summary
#
# * When a value feeds several Functions, its gradient is the **sum** over all uses, so
#   a Function may run its backward only after every user of its outputs has run.
# * A topological order guarantees that: by largest `generation` first (DeZero), or by
#   counting pending contributions (Kahn; minitorch's engine). Both are iterative, and
#   you have now written both.
# * The graph keeps intermediate values alive for backward; Functions hold their outputs
#   only weakly, so dropping the output frees the graph immediately, without the cycle
#   collector.
# * `no_grad()` switches recording off: use it for evaluation and parameter updates.
#
# **Next:** [04 · Operator overloading](04_operator_overloading.ipynb) — how `x * y + 1`
# becomes a graph, and how minitorch keeps `Variable` small.
