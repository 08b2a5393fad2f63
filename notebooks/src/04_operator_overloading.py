# %% [markdown]
# # 04 · Operator overloading and the "thin Variable, separate engine" design
#
# So far we called Functions explicitly: `Square()(Exp()(x))`. Nobody wants to write a
# model like that. Python lets a class define what `+`, `*` or `@` mean, so
# `y = x * w + b` can build the same graph. This notebook shows how minitorch does it,
# and why the methods are attached to `Variable` from the *outside*: the answer to the
# classic problem of a tensor class that needs the ops while the ops need the tensor
# class.
#
# **Learning goals.** After this notebook you can
#
# 1. explain how `x * y`, `2 * x` and `np.ones(3) + x` turn into Function calls
#    (`__mul__`, the reflected `__rmul__`, and NumPy's `__array_ufunc__` hook);
# 2. predict the dtype of a result from NumPy's promotion rules (NEP 50);
# 3. explain the circular-import problem and how one binding table solves it;
# 4. add your own operation to `Variable` and implement a number type with operator
#    overloading.

# %%
import ast
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import minitorch
import minitorch.ops as F
from checks import (
    NotDoneYet,
    check_close,
    check_defined,
    check_gradient,
    check_is_variable,
    check_true,
    explain_errors,
    ok,
)
from minitorch import Function, Variable
from minitorch.ops.variable_methods import VARIABLE_METHODS

# %% [markdown]
# ## Operators are method calls
#
# Python translates `x * y` into `x.__mul__(y)`. If that returns the special value
# `NotImplemented` — "I do not know this type" — Python tries the *reflected* method on
# the right operand: `y.__rmul__(x)`. An int *has* a `__mul__`, but it only knows numbers,
# so `2 * x` runs `(2).__mul__(x)`, gets `NotImplemented`, and then calls `x.__rmul__(2)`.
# So a Variable needs both forms to
# support `x * 2` and `2 * x`. In minitorch these methods are the ops themselves:

# %%
x = Variable(np.array([1.0, 2.0, 3.0]), name="x")
print(f"(2).__mul__(x) returns {(2).__mul__(x)}, so Python calls x.__rmul__(2)")
print(f"Variable.__mul__ is F.mul: {Variable.__mul__ is F.mul}")
y = 2 * x + 1
print(y)
print(f"y was made by {type(y.creator).__name__}, whose input was made by "
      f"{type(y.creator.inputs[0].creator).__name__}")

# %% [markdown]
# There is one trap. NumPy arrays also define `__add__`, and they happily treat any
# object as an element: `np.ones(3) + x` would give an *array of Variables*.
# NumPy's hook for this is a method named `__array_ufunc__` (NEP 13): `np.ones(3) + x`
# runs the ufunc `np.add(np.ones(3), x)`, which asks the Variable. minitorch's answer is
# `x.__radd__(np.ones(3))`, a Variable with a graph. Setting `__array_ufunc__ = None`
# instead would make NumPy step aside so that Python calls `x.__radd__` itself; the method
# can also refuse the ufuncs that cannot record a graph (`np.exp`, `np.maximum`, ...) with
# a message naming the minitorch op:

# %%
z = np.ones(3) + x
print(f"np.ones(3) + x is a {type(z).__name__}: {z}")
try:
    np.exp(x)
except TypeError as err:
    print(f"np.exp(x) raises TypeError: {err}")

# %% [markdown]
# ## Which dtype comes out?
#
# minitorch follows NumPy 2's promotion rules (NEP 50): a Python number is "weak" and
# adopts the array's dtype, while two arrays promote to the wider dtype. That matters:
# a float32 model should stay float32 after `x * 0.5`, or it silently runs at half
# speed with twice the memory.

# %%
x32 = Variable(np.ones(2, dtype=np.float32))
print(f"float32 Variable * 0.5          -> {(x32 * 0.5).dtype}")
print(f"float32 Variable * float64 array -> {(x32 * np.ones(2)).dtype}")
print(f"float32 Variable + float32 array -> {(x32 + np.ones(2, dtype=np.float32)).dtype}")

# %% [markdown]
# ## The circular-import problem
#
# `Variable.__mul__` must call `mul`, so `variable.py` would import the ops module. But
# every op creates Variables, so the ops module imports `variable.py`. Python cannot
# import two modules that each need the other at the top: one of them sees a
# half-initialised module. Frameworks dodge this with imports inside methods, or a
# giant tensor class that contains every op.
#
# minitorch keeps `Variable` **thin**: the core (`minitorch/core/`: Variable, Function,
# the backward engine) imports nothing from the ops. The ops import the core. Then
# *one table* in `minitorch/ops/variable_methods.py` lists which op each operator and
# method is, and `minitorch.ops` installs it with `setattr` when it is imported:

# %%
print("some of the names bound onto Variable:")
for name in ["__add__", "__mul__", "__matmul__", "sum", "T"]:
    op = VARIABLE_METHODS[name]
    target = "property" if isinstance(op, property) else f"{op.__module__}.{op.__name__}"
    print(f"  {name:12s} -> {target}")

# %% [markdown]
# The rule "core never imports ops" is checked by a test that reads the source of every
# core module. We can do the same here with Python's `ast` module:

# %%
core = Path(minitorch.__file__).parent / "core"
for path in sorted(core.glob("*.py")):
    modules = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
        elif isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
    ours = sorted({".".join(m.split(".")[:2]) for m in modules if m.startswith("minitorch")})
    print(f"core/{path.name:12s} imports from minitorch: {ours}")

# %% [markdown]
# The picture of the layers: arrows point from a package to what it imports. Nothing
# points *into* a layer from below, so there is no cycle, and `viz` sits outside,
# reading only the public graph.

# %%
layers = {
    "core\nVariable, Function,\nbackward engine": (0.5, 0.1),
    "ops\n+ the binding table": (0.5, 0.4),
    "nn, optim, data": (0.5, 0.7),
    "your model": (0.5, 0.95),
    "viz": (0.9, 0.55),
}
fig, ax = plt.subplots(figsize=(6, 4.2))
for label, (px, py) in layers.items():
    ax.text(px, py, label, ha="center", va="center", fontsize=10,
            bbox={"boxstyle": "round", "fc": "lavender" if label != "viz" else "honeydew"})
for src, dst in [((0.5, 0.33), (0.5, 0.2)), ((0.5, 0.65), (0.5, 0.46)),
                 ((0.5, 0.9), (0.5, 0.75)), ((0.83, 0.5), (0.65, 0.42))]:
    ax.annotate("", dst, src, arrowprops={"arrowstyle": "->", "lw": 1.5})
ax.annotate("setattr(Variable, ...)\nat import", (0.33, 0.12), (0.1, 0.3),
            arrowprops={"arrowstyle": "->", "ls": "--", "color": "gray"}, ha="center",
            color="gray", fontsize=8)
ax.set_xlim(0, 1.1)
ax.set_ylim(0, 1.05)
ax.axis("off")
ax.set_title("Layers of minitorch: imports point downwards only")
plt.show()

# %% [markdown]
# ## Exercises
#
# In each exercise cell, replace `raise NotImplementedError()` (and the comment above it)
# with your code, run the cell, then run the check cell below it. Each exercise is graded
# on its own.
#
# ### Exercise 1 — give `Variable` a new method
#
# `Cube` below is complete. Write the wrapper `cube(x)` that calls it, then bind it so
# that `x.cube()` works — exactly what the binding table does for the built-in methods.

# %%
class Cube(Function):
    def forward(self, x):
        return x**3

    def backward(self, gy):
        (x,) = self.inputs
        return 3 * x**2 * gy


def cube(x):
    ### BEGIN SOLUTION
    return Cube()(x)
    ### END SOLUTION


# bind the wrapper onto Variable, as the binding table does with setattr:
### BEGIN SOLUTION
Variable.cube = cube
### END SOLUTION

# %% tags=["check"]
check_defined(globals(), "cube")
v = Variable(np.array([-1.0, 0.5, 2.0]))
with explain_errors("cube(x)"):
    result = cube(v)
check_is_variable("cube(x)", result)
check_close("cube(x)", result, v.data**3, hint="cube(x) should return what a Cube "
            "Function gives for x")
check_true(result.creator is not None,
           "cube(x) gave a Variable with no creator: nothing was recorded, so no gradient "
           "can flow back to x. Was Cube given x.data (an ndarray: a constant)? Pass the "
           "Variable itself: return Cube()(x)")
check_true(isinstance(result.creator, Cube),
           "cube(x) computed x**3 without the Cube Function: return Cube()(x)")
check_true(hasattr(Variable, "cube"),
           "Variable has no attribute 'cube': bind it with Variable.cube = cube")
check_true(not isinstance(vars(Variable).get("cube"), type),
           "Variable.cube is a class, so x.cube() builds that class with x: bind the wrapper "
           "function, Variable.cube = cube")
with explain_errors("x.cube()"):
    bound = v.cube()
check_is_variable("x.cube()", bound)
check_close("x.cube()", bound, v.data**3)
check_gradient("x.cube()", lambda u: u.cube(), v.data)
ok("x.cube() works and is differentiable")

# %% [markdown]
# ### Exercise 2 — forward-mode AD with dual numbers
#
# Operator overloading gives another kind of automatic differentiation too. A *dual
# number* $a + b\varepsilon$ with $\varepsilon^2 = 0$ carries a value `a` and a
# derivative `b`: $(a + b\varepsilon)(c + d\varepsilon) = ac + (ad + bc)\varepsilon$ —
# the product rule! Complete `Dual` so that `+` and `*` work with another `Dual` **or a
# plain number on either side** (a number `c` is `Dual(c, 0)`). Then
# `f(Dual(x, 1)).deriv` is $f'(x)$, computed alongside $f(x)$ in one forward pass.

# %%
class Dual:
    def __init__(self, value, deriv=0.0):
        self.value = value
        self.deriv = deriv

    def __add__(self, other):
        ### BEGIN SOLUTION
        other = other if isinstance(other, Dual) else Dual(other, 0.0)
        return Dual(self.value + other.value, self.deriv + other.deriv)
        ### END SOLUTION

    def __mul__(self, other):
        ### BEGIN SOLUTION
        other = other if isinstance(other, Dual) else Dual(other, 0.0)
        return Dual(self.value * other.value, self.value * other.deriv + self.deriv * other.value)
        ### END SOLUTION

    def __radd__(self, other):  # other + self, when other is a plain number
        ### BEGIN SOLUTION
        return self + other
        ### END SOLUTION

    def __rmul__(self, other):  # other * self, when other is a plain number
        ### BEGIN SOLUTION
        return self * other
        ### END SOLUTION

# %% tags=["check"]
def poly(t):
    return 3 * t * t + 2 * t + 1  # f'(t) = 6t + 2


dual_hints = (
    ("has no attribute 'value'", "a plain number has no .value: lift numbers to Dual(c, 0)"),
    ("unsupported operand", "`3 * t` calls Dual.__rmul__ when (3).__mul__ gives up: define __rmul__ and __radd__"),
)
check_defined(globals(), "Dual")


def dual_op(text, op):
    """op() on fresh Duals, with the student's errors explained; the result must be a Dual."""
    with explain_errors(text, *dual_hints):
        out = op()
    check_true(isinstance(out, Dual), f"{text} gave a {type(out).__name__}, not a Dual")
    return out


total = dual_op("Dual(2, 1) + Dual(3, 5)", lambda: Dual(2.0, 1.0) + Dual(3.0, 5.0))
check_close("(Dual(2, 1) + Dual(3, 5)).value", total.value, 5.0)
check_close("(Dual(2, 1) + Dual(3, 5)).deriv", total.deriv, 6.0,
            hint="the derivative of a sum is the sum of the derivatives, 1 + 5")
left = Dual(2.0, 1.0)
product = dual_op("Dual(2, 1) * Dual(3, 5)", lambda: left * Dual(3.0, 5.0))
check_true(left.value == 2.0 and left.deriv == 1.0,
           "a * b changed a: return a new Dual instead of updating self")
check_close("(Dual(2, 1) * Dual(3, 5)).value", product.value, 6.0)
check_close("(Dual(2, 1) * Dual(3, 5)).deriv", product.deriv, 13.0, mistakes={
    "this is b*d, the product of the derivatives: (a + b eps)(c + d eps) has a*d + b*c": 5.0,
    "this is b*c alone: the product rule adds a*d": 3.0,
    "this is a*d alone: the product rule adds b*c": 10.0,
}, hint="the derivative of a product is a*d + b*c")
for text, op in [("Dual(2, 1) * 3", lambda: Dual(2.0, 1.0) * 3), ("3 * Dual(2, 1)",
                 lambda: 3 * Dual(2.0, 1.0))]:
    scaled = dual_op(text, op)
    check_close(f"({text}).value", scaled.value, 6.0)
    check_close(f"({text}).deriv", scaled.deriv, 3.0, mistakes={
        "a number is a constant: lift it to Dual(c, 0), derivative 0": 5.0,
        "the derivative was not multiplied by the number: 3 * Dual(a, b) = Dual(3a, 3b)": 1.0,
    })
shifted = dual_op("Dual(2, 1) + 3", lambda: Dual(2.0, 1.0) + 3)
check_close("(Dual(2, 1) + 3).value", shifted.value, 5.0)
check_close("(Dual(2, 1) + 3).deriv", shifted.deriv, 1.0, mistakes={
    "a number is a constant: lift it to Dual(c, 0), derivative 0": 2.0})
for t0 in [2.0, -0.5]:
    with explain_errors(f"poly(Dual({t0}, 1.0))", *dual_hints):
        result = poly(Dual(t0, 1.0))
    check_true(isinstance(result, Dual), f"poly(Dual) gave a {type(result).__name__}")
    check_close(f"value of poly at {t0}", result.value, 3 * t0**2 + 2 * t0 + 1)
    check_close(
        f"derivative of poly at {t0}", result.deriv, 6 * t0 + 2,
        hint="the derivative of a product is a*d + b*c",
    )
with explain_errors("1 + Dual(2, 1)", *dual_hints):
    check_close("1 + Dual(2, 1)", (1 + Dual(2.0, 1.0)).value, 3.0, hint="define __radd__")
ok("Dual numbers differentiate polynomials in forward mode")

# %% [markdown]
# Forward mode needs one pass *per input* (seed `deriv = 1` for each input in turn);
# reverse mode, what minitorch does, needs one pass *per output*. Neural networks have
# millions of inputs (the weights) and one loss — hence reverse mode.
#
# ### Exercise 3 — predict the dtype
#
# In the dictionary `predictions`, replace each `None` by the dtype name (`"float32"`,
# `"float64"` or `"int64"`) that its expression produces, **without running it** — then
# let the check cell run them.

# %%
a32 = Variable(np.ones(3, dtype=np.float32))
a64 = Variable(np.ones(3))
i64 = np.arange(3)
predictions = {  # replace each None by "float32", "float64" or "int64"
    "a32 * 2.0": None,
    "a32 + a64": None,
    "a64 + i64": None,
    "a32 * np.float32(3)": None,
}
### BEGIN SOLUTION
predictions = {
    "a32 * 2.0": "float32",
    "a32 + a64": "float64",
    "a64 + i64": "float64",
    "a32 * np.float32(3)": "float32",
}
### END SOLUTION

# %% tags=["check"]
check_true(isinstance(globals().get("predictions"), dict), "predictions should be a dict")
if all(value is None for value in predictions.values()):
    raise NotDoneYet("predictions are all None: this exercise is not done yet: replace each "
                     "None by a dtype name, delete `raise NotImplementedError()`, run the cell")
rules = {
    "a32 * 2.0": "a Python float is weak: it adopts the array's dtype",
    "a32 + a64": "two arrays promote to the wider dtype",
    "a64 + i64": "an int64 and a float64 array promote to float64, which holds both",
    "a32 * np.float32(3)": "a NumPy float32 scalar is float32, so nothing is widened",
}
for expr, rule in rules.items():
    actual = str(eval(expr).dtype)
    check_true(expr in predictions, f"no prediction for {expr!r}")
    guess = predictions[expr]
    check_true(guess is not None, f"the prediction for {expr!r} is still None")
    check_true(guess in ("float32", "float64", "int64"),
               f"the prediction for {expr!r} is {guess!r}: write a dtype name, \"float32\", "
               "\"float64\" or \"int64\" (a string)")
    check_true(guess == actual, f"{expr} gives {actual}, you predicted {guess}: {rule}")
ok("your dtype predictions match NumPy 2's rules")

# %% [markdown]
# ### Exercise 4 — forward mode through `exp` and `sin`
#
# Dual numbers handle any function whose derivative we know: for $d = a + b\varepsilon$,
# $g(d) = g(a) + g'(a)\,b\,\varepsilon$ — the chain rule, with $b$ the derivative carried
# so far. Write `exp_dual(d)` and `sin_dual(d)` that take a `Dual` and return a new one.
# Use only `d.value`, `d.deriv` and the constructor `Dual(value, deriv)` (not `+` or `*`
# of Exercise 2), with `np.exp`, `np.sin`, `np.cos` on the numbers.

# %%
def exp_dual(d):
    ### BEGIN SOLUTION
    return Dual(np.exp(d.value), np.exp(d.value) * d.deriv)
    ### END SOLUTION


def sin_dual(d):
    ### BEGIN SOLUTION
    return Dual(np.sin(d.value), np.cos(d.value) * d.deriv)
    ### END SOLUTION

# %% tags=["check"]
chain_hint = "multiply g'(value) by d.deriv, the derivative carried so far (chain rule)"
number_hints = (
    ("which has no callable", "np.exp and np.sin need numbers: apply them to d.value"),
    ("has no attribute 'value'", "exp_dual and sin_dual must return a Dual(value, deriv)"),
)
check_defined(globals(), "exp_dual", "sin_dual")
seed = Dual(0.3, 1.0)
with explain_errors("exp_dual(Dual(0.3, 1.0))", *number_hints):
    e = exp_dual(seed)
check_true(seed.value == 0.3 and seed.deriv == 1.0,
           "exp_dual changed its argument: return a new Dual(value, deriv), leave d as it is")
check_true(isinstance(e, Dual), f"exp_dual should return a Dual, got {type(e).__name__}")
with explain_errors("exp_dual(Dual(0.3, 2.0))", *number_hints):
    e2 = exp_dual(Dual(0.3, 2.0))
check_true(isinstance(e2, Dual), f"exp_dual should return a Dual, got {type(e2).__name__}")
check_close("exp_dual(Dual(0.3, 2)).deriv", e2.deriv, 2 * np.exp(0.3), hint=chain_hint, mistakes={
    "this is exp(value) alone: multiply g'(value) by d.deriv (chain rule)": np.exp(0.3),
    "this is d.deriv alone: multiply it by g'(value) = exp(value)": 2.0,
})
# The derivatives are checked against central differences, not against the rules.
h = 1e-6
check_close("exp_dual(Dual(0.3, 1)).value", e.value, np.exp(0.3))
check_close("exp_dual(Dual(0.3, 1)).deriv", e.deriv,
            (np.exp(0.3 + h) - np.exp(0.3 - h)) / (2 * h), hint=chain_hint, mistakes={
                "deriv is 0: compute g'(value) * d.deriv": 0.0,
                "this is d.deriv alone: multiply it by g'(value) = exp(value)": 1.0,
                "multiplied by d.value: the chain rule multiplies by d.deriv": np.exp(0.3) * 0.3})
with explain_errors("sin_dual(Dual(0.3, 2.0))", *number_hints):
    s_ = sin_dual(Dual(0.3, 2.0))
check_true(isinstance(s_, Dual), f"sin_dual should return a Dual, got {type(s_).__name__}")
check_close("sin_dual(Dual(0.3, 2)).value", s_.value, np.sin(0.3))
check_close("sin_dual(Dual(0.3, 2)).deriv", s_.deriv,
            2 * (np.sin(0.3 + h) - np.sin(0.3 - h)) / (2 * h), hint=chain_hint, mistakes={
                "the derivative of sin is cos: cos(value) * d.deriv": 2 * np.sin(0.3),
                "this is d.deriv alone: multiply it by g'(value) = cos(value)": 2.0,
                "deriv is 0: compute g'(value) * d.deriv": 0.0,
                "multiplied by d.value: the chain rule multiplies by d.deriv": np.cos(0.3) * 0.3})
with explain_errors("sin_dual(exp_dual(Dual(0.3, 1.0)))", *number_hints):
    both = sin_dual(exp_dual(Dual(0.3, 1.0)))
check_close("d/dx sin(exp(x)) at 0.3", both.deriv,
            (np.sin(np.exp(0.3 + h)) - np.sin(np.exp(0.3 - h))) / (2 * h), hint=chain_hint)
ok("exp_dual and sin_dual carry the derivative through the chain rule")

# %% [markdown]
# ## Summary
#
# * Python turns `x * y` into `x.__mul__(y)` and, for `2 * x`, into `x.__rmul__(2)`;
#   `__array_ufunc__` makes `ndarray + Variable` a Variable and turns `np.exp(x)` into a
#   message naming `F.exp`.
# * Results follow NumPy 2 promotion: Python scalars are weak, arrays promote.
# * minitorch's `Variable` is thin: the core never imports the ops. One table,
#   `minitorch/ops/variable_methods.py`, binds operators and methods onto `Variable` when
#   `minitorch.ops` is imported — no circular import, and one place to read them all.
# * The same overloading idea gives forward-mode AD (dual numbers); reverse mode wins
#   when there are many inputs and one output.
#
# **Next:** [05 · Seeing the graph](05_seeing_the_graph.ipynb) — drawing graphs and
# stepping through `backward`.
