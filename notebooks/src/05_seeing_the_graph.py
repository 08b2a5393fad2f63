# %% [markdown]
# # 05 · Seeing the graph: `viz.draw_graph` and stepping through `backward`
#
# Autograd is invisible by design: you write `loss.backward()` and gradients appear.
# When you are learning — or debugging a model whose gradients are wrong — it helps to
# *see* the graph that was recorded and the order in which backward visits it. The
# `viz` package draws minitorch graphs with Graphviz and replays a backward pass one
# Function at a time.
#
# **Learning goals.** After this notebook you can
#
# 1. draw the graph behind any Variable and read its nodes, edges and colours;
# 2. show values and gradients on the graph, and explain why intermediates have no
#    gradient unless you ask for one (`retain_grad=True`);
# 3. trace a backward pass and say what each step received and sent;
# 4. step through the backward pass of a real loss with `BackwardStepper`.

# %%
import re

import matplotlib.pyplot as plt
import numpy as np

import minitorch.ops as F
import viz
from checks import (
    check_close,
    check_defined,
    check_done,
    check_is_array,
    check_true,
    explain_errors,
    ok,
)
from minitorch import Config, Variable, manual_seed, nn

# minitorch frees an intermediate value as soon as no gradient rule needs it (its ops
# declare what they save: docs/concepts/memory.md), and a picture then shows it as
# "freed". Here we want to see every value and every kept gradient, so every Function
# keeps its input Variables alive:
Config.save_all = True

# %% [markdown]
# ## Drawing a graph
#
# `viz.draw_graph(y)` returns a picture of everything that went into `y`. Data flows
# from top to bottom: **ellipses are Variables, boxes are Functions**. Leaves you
# created are blue, intermediates grey, the output orange, and constants that ops made
# from plain numbers (the `1.0` below) are dashed.

# %%
x = Variable(np.array([1.0, 2.0]), name="x")
w = Variable(np.array([0.5, -1.0]), name="w")
y = F.tanh(x * w + 1.0).sum()
y.name = "y"
viz.draw_graph(y, legend=True)

# %% [markdown]
# The drawing is made from plain DOT text, which `viz.to_dot` returns. Text is what we
# *test* with (pictures differ between Graphviz versions, text does not), and it is handy
# for your own checks: each line is a node (`v…` Variables, `f…` Functions) or an edge.

# %%
dot = viz.to_dot(y, show_shapes=False)
print(dot)

# %% [markdown]
# ## Values and gradients on the graph
#
# `show_values=True` writes each Variable's data into its node, `show_grads=True` its
# gradient. After `backward()`, only the leaves keep their gradient: intermediate
# gradients are dropped as soon as they have been passed on, which saves memory in big
# models. `retain_grad=True` keeps them, for inspection.

# %%
y.backward(retain_grad=True)
viz.draw_graph(y, show_values=True, show_grads=True, show_shapes=False)

# %%
for line in viz.to_dot(y, show_grads=True, show_shapes=False).splitlines():
    if "grad:" in line:
        node, label = line.strip().split(" ", 1)
        print(node, re.search(r"<B>(.*?)</B>", label).group(1), "|",
              re.search(r"grad: ([^>]*?)>", label).group(1))

# %% [markdown]
# ## Tracing the backward pass
#
# `viz.trace_backward(y)` runs the real engine and records every step: which Function
# ran, the gradient it **received** from its output and the gradients it **sent** to
# its inputs. Read it from the top: the order is a topological order of the reversed
# graph (notebook 03).

# %%
x = Variable(np.array([1.0, 2.0]), name="x")
w = Variable(np.array([0.5, -1.0]), name="w")
y = F.tanh(x * w + 1.0).sum()
trace = viz.trace_backward(y)
for step in trace:
    print(f"{step.name:5s} received {len(step.grads_in)} gradient(s), "
          f"sent {sum(g is not None for g in step.grads_out)}")
print(f"x.grad = [{x.grad.data[0]:.4f}, {x.grad.data[1]:.4f}]")

# %% [markdown]
# ## Stepping through the backward pass of a real loss
#
# Here is a two-layer network with a softmax cross-entropy loss on a batch of four
# points — a miniature of everything in notebooks 09 and 10. `BackwardStepper` lays the
# graph out **once** and then shows the backward pass one step at a time on that same
# drawing, so nothing moves and you can watch what changes: the Function running now has
# a red box, the gradient it received travels along a blue dashed arrow, the gradients it
# sends along red dashed arrows (they point the way the gradient travels, against the
# forward edges), and the numbers are in the table beside the drawing. `.widget()` makes
# it a Jupyter widget.
#
# **Click the stepper, then press → (or PageDown, or Space)** to run the next Function's
# backward; ← goes back, Home and End jump to the start and the end. The *full screen*
# button is for the projector.

# %%
manual_seed(0)
model = nn.Sequential(nn.Linear(2, 3, rng=0, dtype=np.float64), nn.Tanh(),
                      nn.Linear(3, 2, rng=1, dtype=np.float64))
batch = np.array([[0.5, -1.0], [1.0, 0.2], [-0.3, 0.8], [0.0, -0.5]])
labels = np.array([0, 1, 1, 0])
loss = F.softmax_cross_entropy(model(batch), labels)
loss.name = "loss"
loss_trace = viz.trace_backward(loss)
stepper = viz.BackwardStepper(loss_trace).widget()
stepper

# %% [markdown]
# The step shown is a Python attribute, kept in sync with the view both ways: press → in
# the view and `stepper.step` changes; set it here and the view jumps there. Frame 0 is
# the start (the seed), frame `k` the k-th step, the last frame the end.

# %%
stepper.step = 2
print(f"frame {stepper.step} of {len(loss_trace) + 1}: {stepper.stepper.frames()[2]['counter']}")

# %% [markdown]
# Each frame's caption, as text — the same sentences the view shows above the drawing:

# %%
for caption in stepper.stepper.captions():
    print(caption)

# %% [markdown]
# `nn.Linear` records a single `Linear` Function (`x @ W.T + b` in one step), so the
# whole network is four steps. The first layer's `Linear` runs last: it must wait for
# everything that depends on its output. And the batch gets no gradient at all — it is
# data, not a parameter, so nobody asked for it.
#
# ## How big do graphs get?
#
# Every operation adds a node, so graphs grow with model depth. A quick count with the
# DOT text, for networks of increasing depth:

# %%
depths = [1, 2, 4, 8]
counts = []
for depth in depths:
    sizes = [2] + [8] * depth + [2]
    net = nn.MLP(sizes, activation="tanh", rng=0)
    out = F.softmax_cross_entropy(net(batch.astype(np.float32)), labels)
    text = viz.to_dot(out)
    counts.append((text.count("shape=box"), text.count("shape=ellipse")))
fig, ax = plt.subplots(figsize=(5, 3))
ax.plot(depths, [c[0] for c in counts], "o-", label="Functions")
ax.plot(depths, [c[1] for c in counts], "s-", label="Variables")
ax.set_xlabel("hidden layers")
ax.set_ylabel("nodes in the graph")
ax.legend()
ax.set_title("The graph grows linearly with depth")
plt.show()
for depth, (n_f, n_v) in zip(depths, counts):
    print(f"{depth} hidden layer(s): {n_f} Functions, {n_v} Variables")

# %% [markdown]
# ## Exercises
#
# In each exercise cell, replace `raise NotImplementedError()` (and the comment above it)
# with your code, run the cell, then run the check cell below it. Each exercise is graded
# on its own.
#
# ### Exercise 1 — count the nodes from the DOT text
#
# Write `count_nodes(dot)` that returns a pair `(n_functions, n_variables)` from the DOT
# text written by `viz.to_dot`. Functions are drawn with `shape=box`, Variables with
# `shape=ellipse`; count node lines, not edges.

# %%
def count_nodes(dot):
    ### BEGIN SOLUTION
    n_functions = sum("shape=box" in line for line in dot.splitlines())
    n_variables = sum("shape=ellipse" in line for line in dot.splitlines())
    return n_functions, n_variables
    ### END SOLUTION

# %% tags=["check"]
check_defined(globals(), "count_nodes")
a = Variable(np.array(2.0), name="a")


def check_counts(text, dot, right, words):
    """count_nodes(dot) must be `right`; known wrong counts are named from the DOT text."""
    with explain_errors(f"count_nodes(viz.to_dot({text}))"):
        got = count_nodes(dot)
    check_true(isinstance(got, tuple | list) and len(got) == 2,
               f"count_nodes should return a pair (n_functions, n_variables), got {got!r:.60}")
    said = f"{text} has {words}; you counted {tuple(got)}"
    check_true(not any(isinstance(n, bool | np.bool_) for n in got), f"{said}: True/False says "
               "whether a line exists; count the lines with sum(... for line in lines)")
    got = tuple(got)
    edges = sum("->" in line for line in dot.splitlines())
    check_true(got != right[::-1], f"{said}: swapped, the pair is (n_functions, n_variables)")
    check_true(edges not in got or edges in right, f"{said}: {edges} is the number of edges "
               "(lines with ->): count the node lines, those with shape=")
    check_true(0 not in got, f"{said}: iterate over the lines, dot.splitlines(), and test "
               "each one for shape=box or shape=ellipse")
    check_true(sum(got) != sum(right) or got == right, f"{said}: every node was counted, but "
               "not told apart: Functions have shape=box, Variables shape=ellipse")
    check_true(got == right or not (got[0] >= right[0] and got[1] >= right[1]),
               f"{said}: too many; edge lines "
               "(v1 -> f1) name nodes too: count only the lines with shape=")
    check_true(got == right, said)


check_counts("a * a", viz.to_dot(a * a), (1, 2), "1 Function (Mul) and 2 Variables")
check_counts("exp(a) + sin(a) * 3.0", viz.to_dot(F.exp(a) + F.sin(a) * 3.0), (4, 6),
             "4 Functions (Exp, Sin, Mul, Add) and 6 Variables (a, 3.0, four results)")
ok("count_nodes reads the DOT text correctly")

# %% [markdown]
# ### Exercise 2 — predict the backward order
#
# For `z = F.exp(a * b) + b` below, write down the names of the Functions in the order
# the backward pass runs them, as the list of strings `predicted_order` (such as
# `["Mul"]`) — from your understanding, then let the check trace it (on a copy of the
# graph, so running `z.backward()` yourself changes nothing).

# %%
a = Variable(np.array(0.5), name="a")
b = Variable(np.array(-1.0), name="b")
z = F.exp(a * b) + b
predicted_order = None  # a list of Function names, in the order backward runs them
### BEGIN SOLUTION
predicted_order = ["Add", "Exp", "Mul"]
### END SOLUTION

# %% tags=["check"]
check_done(predicted_order=globals().get("predicted_order"))
check_true(isinstance(predicted_order, list | tuple),
           f"predicted_order should be a list of names, got {type(predicted_order).__name__}")
a_copy, b_copy = Variable(np.array(0.5), name="a"), Variable(np.array(-1.0), name="b")
actual = [step.name for step in viz.trace_backward(F.exp(a_copy * b_copy) + b_copy)]
for name in predicted_order:
    check_true(isinstance(name, str), f"predicted_order should hold names (strings such as "
               f"\"Mul\"), got {type(name).__name__}")
    spelt = [n for n in actual if n.lower() == name.lower()]  # the name as viz spells it
    check_true(name in actual or not spelt,
               f"{name!r}: write the Function's class name as viz shows it: {spelt[:1]}")
    check_true(name in actual, f"{name!r} is not a Function of this graph: list only the "
               "Functions (the boxes viz draws), not the Variables")
check_true(list(predicted_order) != actual[::-1], f"you predicted {list(predicted_order)}: "
           "that is the forward order; backward runs from z back to the inputs")
check_true(len(predicted_order) == len(actual),
           f"{len(actual)} Functions run in this backward pass; you listed "
           f"{len(predicted_order)}")
check_true(list(predicted_order) == actual, f"you predicted {list(predicted_order)}; a "
           "Function runs only after every Function using its output — the output's creator "
           "comes first")
check_close("b.grad (b is used twice: a*exp(a*b) + 1)", b_copy.grad,
            0.5 * np.exp(-0.5) + 1.0, atol=1e-12)
ok("you predicted the backward order")

# %% [markdown]
# ### Exercise 3 — find the gradient with `retain_grad`
#
# For `h = F.tanh(x * 3.0)` and `loss = (h * h).sum()`, compute the gradient of `loss`
# with respect to the **intermediate** `h` and store its data (an ndarray) in `h_grad`.
# Use `backward(retain_grad=True)`.

# %%
x = Variable(np.array([0.1, -0.4, 0.7]), name="x")
h = F.tanh(x * 3.0)
loss = (h * h).sum()
h_grad = None  # the ndarray d loss / d h
### BEGIN SOLUTION
loss.backward(retain_grad=True)
h_grad = h.grad.data
### END SOLUTION

# %% tags=["check"]
h_var, x_var = globals().get("h"), globals().get("x")
check_true(not (globals().get("h_grad") is None and getattr(h_var, "grad", 1) is None
                and getattr(x_var, "grad", None) is not None),
           "h.grad is None after loss.backward(): an intermediate Variable keeps its gradient "
           "only with loss.backward(retain_grad=True)")
check_done(h_grad=globals().get("h_grad"))
check_is_array("h_grad", h_grad)
x_ref = np.array([0.1, -0.4, 0.7])
h_ref = np.tanh(3.0 * x_ref)
check_true(not (np.shape(h_grad) == () and np.all(h_grad == 1.0)),
           "h_grad is 1: that is loss.grad, the seed; read h.grad.data")
check_true(np.shape(h_grad) == h_ref.shape, f"h_grad has shape {np.shape(h_grad)}, h has "
           f"{h_ref.shape}: h.grad.data holds one number per element of h")
check_close("h_grad", h_grad, 2 * h_ref, atol=1e-10,
            hint="the gradient of sum(h*h) w.r.t. h is 2h; read h.grad.data after "
            "loss.backward(retain_grad=True)", mistakes={
                "this is x.grad: the question asks for the gradient w.r.t. h":
                    2 * h_ref * (1 - h_ref**2) * 3.0,
                "this is h itself (h.data): read its gradient, h.grad.data": h_ref,
                "all ones: that is h.backward() from h; call loss.backward(retain_grad=True)":
                    np.ones(3),
            })
ok("the gradient of the loss w.r.t. h is 2h")

# %% [markdown]
# ### Exercise 4 — watch the gradient shrink
#
# A trace is also a debugging tool: when a deep network does not learn, look at the size
# of the gradient each step **received**. Write `received_norms(trace)` returning a list
# of `(name, norm)` pairs, one per step in the trace's order, where `norm` is the
# Euclidean norm (`np.linalg.norm`) of the step's first received gradient
# `step.grads_in[0]`, as a float. The check runs it on a chain of saturated `tanh`s,
# where the gradient fades step by step: the *vanishing gradient*.

# %%
def received_norms(trace):
    ### BEGIN SOLUTION
    return [(step.name, float(np.linalg.norm(step.grads_in[0]))) for step in trace]
    ### END SOLUTION

# %% tags=["check"]
v = Variable(np.array([2.0, -1.5, 3.0]), name="v")
deep = v
for _ in range(4):
    deep = F.tanh(deep * 2.0)
deep = deep.sum()
deep_trace = viz.trace_backward(deep)
check_defined(globals(), "received_norms")
with explain_errors("received_norms(trace)",
                    ("'BackwardTrace' object", "iterate over the trace: each item is a "
                     "step with .name and .grads_in")):
    norms = received_norms(deep_trace)
check_true(isinstance(norms, list) and len(norms) == len(deep_trace),
           f"received_norms should return one pair per step ({len(deep_trace)}), got "
           f"{norms!r:.100}")
check_true(all(isinstance(pair, tuple | list) and len(pair) == 2 for pair in norms),
           f"each item should be a pair (name, norm), got {norms[0]!r:.60}")
check_true(not all(isinstance(b, str) and not isinstance(a, str) for a, b in norms),
           "each pair is (name, norm); yours are (norm, name): put step.name first")
check_true([name for name, _ in norms] == [step.name for step in deep_trace],
           "the names should follow the trace's order: [step.name for step in trace]")
expected = [float(np.sqrt(np.sum(step.grads_in[0] ** 2))) for step in deep_trace]
received = [np.asarray(step.grads_in[0], dtype=float) for step in deep_trace]
check_close("the norms", np.array([float(n) for _, n in norms]), np.array(expected),
            hint="np.linalg.norm(step.grads_in[0]): the gradient the step received", mistakes={
                "squared norms: take the square root (np.linalg.norm)":
                    [np.sum(g**2) for g in received],
                "plain sums: the norm is sqrt(sum(g**2)), np.linalg.norm(g)":
                    [np.sum(g) for g in received],
                "the largest elements: the norm is np.linalg.norm(g), over all elements":
                    [np.max(np.abs(g)) for g in received],
                "means: the norm is np.linalg.norm(g), sqrt(sum(g**2))":
                    [np.mean(g) for g in received],
                "the gradient the step sent (grads_out), not the one it received (grads_in)":
                    [float(np.linalg.norm(step.grads_out[0])) for step in deep_trace],
            })
ok("received_norms shows the gradient fading: " + ", ".join(f"{n:.2g}" for _, n in norms))

# %% [markdown]
# ## Summary
#
# * `viz.draw_graph(y)` draws the recorded graph (ellipses = Variables, boxes =
#   Functions); `viz.to_dot(y)` gives the same graph as text, which is what tests check.
# * `show_values` / `show_grads` put data and gradients on the nodes; intermediates keep
#   their gradient only with `backward(retain_grad=True)`.
# * `viz.trace_backward` records each step of the real engine: what each Function
#   received and sent, in topological order.
# * `viz.BackwardStepper` replays a backward pass step by step on one fixed drawing;
#   `.widget()` makes it a Jupyter widget (→ to step, `stepper.step` from Python) and
#   `.save_html(path)` a page that works offline.
#
# **Next:** [06 · Higher-order derivatives](06_higher_order_derivatives.ipynb) —
# differentiating the backward pass itself.
