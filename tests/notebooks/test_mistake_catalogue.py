# ruff: noqa: E501  (the catalogue quotes student code verbatim)
"""The mistake catalogue of notebooks 01-07: classic mistakes, injected automatically.

For every exercise, each entry edits the solution cell (``old`` -> ``new``, or a whole
answer) the way a student typically gets that kind of code wrong — a sign, swapped
inputs, a missing reduction or accumulation, a wrong axis, an off-by-one, a forgotten
``create_graph``/``retain_grad``/clear, a rebinding — runs the exercise's check in the
fast in-process harness (``mistake_harness``), and asserts that

* the check fails with a :class:`checks.CheckFailed` whose message contains the phrase
  that names this mistake,
* the message contains no phrase of another mistake of the same exercise (it never
  names a different cause), and
* it is shown in at most 3 lines (``checks.render``: wrapped at 100 columns).

The untouched stub and a missing answer cell (a ``SyntaxError`` left the names undefined)
must say "not done yet" in at most 3 lines too.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest
from mistake_harness import checks_module, notebook

# The injected mistakes are the students': their NumPy overflow and divide warnings are
# part of the mistake (the check names it), not something the library causes.
pytestmark = pytest.mark.filterwarnings("ignore:.*encountered in:RuntimeWarning")

NB01, NB02, NB03 = "01_variables_and_numerical_diff", "02_backpropagation", "03_complex_graphs"
NB04, NB05, NB06 = "04_operator_overloading", "05_seeing_the_graph", "06_higher_order_derivatives"
NB07 = "07_tensors"


class M(NamedTuple):
    """A mistake: replace ``old`` by ``new`` in the solution (``old=None``: ``new`` is the
    whole answer cell); the message must contain ``phrase``."""

    label: str
    old: str | None
    new: str
    phrase: str


CATALOGUE: dict[tuple[str, int], list[M]] = {}

CATALOGUE[(NB01, 1)] = [
    M("returns a Variable", "return x**3", "return Variable(x**3)", "forward returned a Variable"),
    M("no return", "return x**3", "x**3", "forward returned None"),
    M("squares", "return x**3", "return x**2", "this is x**2"),
    M("times three", "return x**3", "return 3 * x", "this is 3 * x;"),
    M("the derivative", "return x**3", "return 3 * x**2", "the derivative of x**3"),
    M("xor for power", "return x**3", "return x ^ 3", "^ is XOR"),
    M(".data on the array", "return x**3", "return x.data**3", "drop the .data"),
    M("a list", "return x**3", "return [v**3 for v in x]", "forward returned a list"),
    M("in place", "return x**3", "x **= 3\n        return x", "changed its input array in place"),
    M("cube of the sum", "return x**3", "return x.sum() ** 3", "has shape ()"),
]

CATALOGUE[(NB01, 2)] = [
    M("divides by h", "/ (2 * h)", "/ h", "exactly twice the derivative"),
    M("divides by 4h", "/ (2 * h)", "/ (4 * h)", "exactly half the derivative"),
    M("precedence", "/ (2 * h)", "/ 2 * h", "multiplies by h"),
    M(
        "brackets",
        "(y_plus.data - y_minus.data) / (2 * h)",
        "y_plus.data - y_minus.data / (2 * h)",
        "check the brackets",
    ),
    M(
        "no division",
        "(y_plus.data - y_minus.data) / (2 * h)",
        "y_plus.data - y_minus.data",
        "you did not divide",
    ),
    M(
        "one-sided",
        "return (y_plus.data - y_minus.data) / (2 * h)",
        "return (y_plus.data - f(x).data) / h",
        "one-sided difference",
    ),
    M("sign", "(y_plus.data - y_minus.data)", "(y_minus.data - y_plus.data)", "opposite sign"),
    M(
        "Variables",
        "return (y_plus.data - y_minus.data) / (2 * h)",
        "return (y_plus - y_minus) / (2 * h)",
        "is a Variable: use .data",
    ),
    M(
        "shifts the Variable",
        "f(Variable(x.data + h))",
        "f(Variable(x + h))",
        "this is a Variable already: use its .data",
    ),
    M("fixed step", "h)", "1e-4)", "step by the argument h"),
    M("an offset", "/ (2 * h)", "/ (2 * h) + 1e-3", "close, but off by about h"),
    M(
        "no return",
        "return (y_plus.data - y_minus.data) / (2 * h)",
        "(y_plus.data - y_minus.data) / (2 * h)",
        "is None: did you forget to `return`",
    ),
]

CATALOGUE[(NB01, 3)] = [
    M("minus the slope (blind trial)", "order = np.polyfit", "order = -np.polyfit", "sign is flipped"),
    M(
        "np.log against np.log10 (blind trial)",
        "np.polyfit(np.log10(hs[mask]),",
        "np.polyfit(np.log(hs[mask]),",
        "two log bases are mixed",
    ),
    M(
        "no mask",
        "np.log10(hs[mask]), np.log10(err_central[mask])",
        "np.log10(hs), np.log10(err_central)",
        "only for 1e-3 <= h <= 1e-1",
    ),
    M(
        "axes swapped",
        "np.log10(hs[mask]), np.log10(err_central[mask])",
        "np.log10(err_central[mask]), np.log10(hs[mask])",
        "log10(h) against log10(error): np.polyfit(u, v, 1) takes u first",
    ),
    M("intercept", ", 1)[0]", ", 1)[1]", "the intercept"),
    M("both coefficients", ", 1)[0]", ", 1)", "a single number"),
    M(
        "no logarithms",
        "np.log10(hs[mask]), np.log10(err_central[mask])",
        "hs[mask], err_central[mask]",
        "fit the logarithms",
    ),
    M("forward errors", "err_central[mask]", "err_forward[mask]", "slope of err_forward"),
    M(
        "round-off region",
        "mask = (hs >= 1e-3) & (hs <= 1e-1)",
        "mask = (hs >= 1e-12) & (hs <= 1e-8)",
        "only for 1e-3 <= h <= 1e-1",
    ),
    M("a quadratic fit", ", 1)[0]", ", 2)[0]", "a straight line"),
]

CATALOGUE[(NB01, 4)] = [
    M(
        "both inputs shifted",
        None,
        """
def numerical_partials(f, x0, x1, h=1e-4):
    up = f(Variable(x0.data + h), Variable(x1.data + h)).data
    down = f(Variable(x0.data - h), Variable(x1.data - h)).data
    return (up - down) / (2 * h), (up - down) / (2 * h)
""",
        "shifted both inputs at once",
    ),
    M("divided by h", "/ (2 * h)\n    d1", "/ h\n    d1", "exactly twice the derivative"),
    M("swapped", "return d0, d1", "return d1, d0", "swapped"),
    M(
        "Variables",
        "return d0, d1",
        "return Variable(d0), Variable(d1)",
        "d0 is a Variable: use .data",
    ),
    M(
        "shifted the Variable",
        "Variable(x0.data + h)",
        "Variable(x0 + h)",
        "this is a Variable already: use its .data",
    ),
    M(
        "d1 wiggles x0 again",
        "d1 = (f(x0, Variable(x1.data + h)).data - f(x0, Variable(x1.data - h)).data)",
        "d1 = (f(Variable(x0.data + h), x1).data - f(Variable(x0.data - h), x1).data)",
        "d1 equals d0",
    ),
    M(
        "sign of d1",
        "f(x0, Variable(x1.data + h)).data - f(x0, Variable(x1.data - h)).data",
        "f(x0, Variable(x1.data - h)).data - f(x0, Variable(x1.data + h)).data",
        "opposite sign",
    ),
    M(
        "in place",
        None,
        """
def numerical_partials(f, x0, x1, h=1e-4):
    x0.data += h
    up = f(x0, x1).data
    x0.data -= 2 * h
    d0 = (up - f(x0, x1).data) / (2 * h)
    x1.data += h
    up = f(x0, x1).data
    x1.data -= 2 * h
    d1 = (up - f(x0, x1).data) / (2 * h)
    return d0, d1
""",
        "changed in place",
    ),
    M("one value", "return d0, d1", "return d0 + d1", "should return a pair (d0, d1)"),
]

CATALOGUE[(NB02, 1)] = [
    M(
        "ga at x",
        "ga = np.exp(a) * gy",
        "ga = np.exp(x) * gy",
        "needs its derivative at a = sin(x)",
    ),
    M("no local derivative", "ga = np.exp(a) * gy", "ga = gy", "missing the local derivative"),
    M("no ga in gx", "gx = np.cos(x) * ga", "gx = np.cos(x)", "leaves out ga"),
    M("sin for cos", "gx = np.cos(x) * ga", "gx = np.sin(x) * ga", "the derivative of sin is cos"),
    M("cos at a", "gx = np.cos(x) * ga", "gx = np.cos(a) * ga", "needs its derivative at x"),
    M("adds", "gx = np.cos(x) * ga", "gx = np.cos(x) + ga", "not cos(x) + ga"),
    M("minus cos", "gx = np.cos(x) * ga", "gx = -np.cos(x) * ga", "opposite sign"),
    M(
        "swapped",
        "ga = np.exp(a) * gy\ngx = np.cos(x) * ga",
        "ga_ = np.exp(a) * gy\nga, gx = np.cos(x) * ga_, ga_",
        "this is gx: ga is dy/da",
    ),
    M("one left None", "gx = np.cos(x) * ga", "", "gx is still None"),
]

SIGMOID_FORWARD = "return 1 / (1 + np.exp(-x))"
SIGMOID_BACKWARD = "return gy * y * (1 - y)"
CATALOGUE[(NB02, 2)] = [
    M("forward sign", SIGMOID_FORWARD, "return 1 / (1 + np.exp(x))", "opposite sign"),
    M(
        "forward returns a Variable",
        SIGMOID_FORWARD,
        "return 1 / (1 + F.exp(-Variable(x)))",
        "forward returned a Variable",
    ),
    M("forward no return", SIGMOID_FORWARD, "1 / (1 + np.exp(-x))", "forward returned None"),
    M("gy ignored", SIGMOID_BACKWARD, "return y * (1 - y)", "your Sigmoid.backward ignores gy"),
    M("input for output", "y = self.output()", "y = self.inputs[0]", "of the input x"),
    M("missing factor", SIGMOID_BACKWARD, "return gy * y", "needs both factors"),
    M("backward sign", SIGMOID_BACKWARD, "return -gy * y * (1 - y)", "wrong sign"),
    M("1 + y", SIGMOID_BACKWARD, "return gy * y * (1 + y)", "this is y * (1 + y)"),
    M(
        "raw arrays",
        SIGMOID_BACKWARD,
        "return Variable(gy.data * y.data * (1 - y.data))",
        "computed on raw NumPy arrays",
    ),
    M(
        "numpy exp on a Variable",
        "y = self.output()\n        return gy * y * (1 - y)",
        "x = self.inputs[0]\n        s = 1 / (1 + np.exp(-x))\n        return gy * s * (1 - s)",
        "use F.exp(...)",
    ),
    M(
        "tuple of inputs",
        "y = self.output()\n        return gy * y * (1 - y)",
        "s = 1 / (1 + F.exp(-self.inputs))\n        return gy * s * (1 - s)",
        "a list of Variables",
    ),
]

MUL_BACKWARD = "return gy * x1, gy * x0"
CATALOGUE[(NB02, 3)] = [
    M("swapped", MUL_BACKWARD, "return gy * x0, gy * x1", "this is input 1's gradient"),
    M("one gradient", MUL_BACKWARD, "return gy * x1", "should return two gradients"),
    M("gy ignored", MUL_BACKWARD, "return x1, x0", "ignores gy"),
    M("sign", MUL_BACKWARD, "return -gy * x1, -gy * x0", "wrong sign"),
    M("the sum rule", MUL_BACKWARD, "return gy * (x0 + x1), gy * (x0 + x1)", "gradient of a sum"),
    M("the output", MUL_BACKWARD, "return gy * x0 * x1, gy * x0 * x1", "is the output"),
    M("the same twice", MUL_BACKWARD, "return gy * x1, gy * x1", "this is input 0's gradient"),
    M(
        "raw arrays",
        MUL_BACKWARD,
        "return Variable(gy.data * x1.data), Variable(gy.data * x0.data)",
        "computed on raw NumPy arrays",
    ),
    M(
        "tuple unpacked wrong",
        "x0, x1 = self.inputs\n        return gy * x1, gy * x0",
        "return gy * self.inputs, gy * self.inputs",
        "a list of Variables",
    ),
]

CATALOGUE[(NB02, 4)] = [
    M(
        "numpy on a Variable",
        "return gy / x",
        "return gy * np.reciprocal(x)",
        "minitorch has no np.reciprocal",
    ),
    M("raw arrays", "return gy / x", "return gy * (1 / x.data)", "computed on raw"),
    M("gy ignored", "return gy / x", "return 1 / x", "your Log.backward ignores gy"),
    M("log10", "return np.log(x)", "return np.log10(x)", "np.log10 is the base-10 logarithm"),
    M("log1p", "return np.log(x)", "return np.log1p(x)", "np.log1p(x) is ln(1 + x)"),
    M(
        "divides by the output",
        "return gy / x",
        "return gy / self.output()",
        "d ln(x)/dx = 1 / x, the input",
    ),
    M("multiplies", "return gy / x", "return gy * x", "this is gy * x"),
    M("squared", "return gy / x", "return gy / x**2", "this is gy / x**2"),
    M("sign", "return gy / x", "return -gy / x", "wrong sign"),
    M(
        "inputs tuple",
        "(x,) = self.inputs\n        return gy / x",
        "return gy / self.inputs",
        "a list of Variables",
    ),
    M(
        "forward on a Variable",
        "return np.log(x)",
        "return F.log(Variable(x))",
        "forward returned a Variable",
    ),
]

CATALOGUE[(NB02, 5)] = [
    M("never moves on", "        v = x\n", "", "move to the creator's input"),
    M(
        "no seed",
        "    y.grad = Variable(np.ones_like(y.data))\n",
        "",
        "seed y.grad = Variable(np.ones_like(y.data))",
    ),
    M(
        "seed is an ndarray (also the blind trial's)",
        "y.grad = Variable(np.ones_like(y.data))",
        "y.grad = np.ones_like(y.data)",
        "the seed y.grad is an ndarray: wrap it",
    ),
    M(
        "recursion",
        None,
        """
def backward_chain(y):
    if y.grad is None:
        y.grad = Variable(np.ones_like(y.data))
    if y.creator is not None:
        x = y.creator.inputs[0]
        x.grad = y.creator.backward(y.grad)
        backward_chain(x)
""",
        "calls itself too deeply",
    ),
    M(
        "stops one early",
        "while v.creator is not None:",
        "while v.creator.inputs[0].creator is not None:",
        "x.grad is None after backward_chain",
    ),
    M(
        "always y's gradient (also the blind trial's)",
        "x.grad = v.creator.backward(v.grad)",
        "x.grad = v.creator.backward(y.grad)",
        "every step got the seed y.grad",
    ),
    M("seed of zeros", "np.ones_like(y.data)", "np.zeros_like(y.data)", "not zeros"),
    M(
        "seed of one element",
        "Variable(np.ones_like(y.data))",
        "Variable(np.ones(1))",
        "has shape (1,) but should have shape (2,)",
    ),
    M(
        "leaf not seeded",
        "    y.grad = Variable(np.ones_like(y.data))\n    v = y\n",
        "    if y.creator is None:\n        return\n    y.grad = Variable(np.ones_like(y.data))\n    v = y\n",
        "a leaf's own gradient (the seed) is None",
    ),
]

CATALOGUE[(NB03, 1)] = [
    M(
        "recursion",
        None,
        """
def count_functions(y, seen=None):
    seen = set() if seen is None else seen
    f = y.creator
    if f is None or id(f) in seen:
        return len(seen)
    seen.add(id(f))
    for u in f.inputs:
        count_functions(u, seen)
    return len(seen)
""",
        "explicit stack",
    ),
    M(
        "no seen set",
        """        if id(f) in seen:
            continue
        seen.add(id(f))""",
        """        seen.add(len(seen))""",
        "counted twice",
    ),
    M(
        "leaf pushed",
        "[y.creator] if y.creator is not None else []",
        "[y.creator]",
        "push only creators that exist",
    ),
    M("minus one", "return len(seen)", "return len(seen) - 1", "off by -1"),
    M("plus one", "return len(seen)", "return len(seen) + 1", "off by 1"),
    M(
        "first input only",
        "stack.extend(u.creator for u in f.inputs if u.creator is not None)",
        "stack.extend([f.inputs[0].creator] if f.inputs[0].creator is not None else [])",
        "follow every input",
    ),
    M("the set", "return len(seen)", "return seen", "should return a number"),
    M(
        "Variables counted",
        None,
        """
def count_functions(y):
    seen, stack = set(), [y]
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if v.creator is not None:
            stack.extend(v.creator.inputs)
    return len(seen)
""",
        "not the Variables",
    ),
    M(
        "pushes Variables",
        "stack.extend(u.creator for u in f.inputs if u.creator is not None)",
        "stack.extend(f.inputs)",
        "a Variable's Function is its .creator",
    ),
]

GEN_PUSH = "heapq.heappush(heap, (-g.generation, id(g), g))"
CATALOGUE[(NB03, 2)] = [
    M(
        "smallest first (push)",
        GEN_PUSH,
        "heapq.heappush(heap, (g.generation, id(g), g))",
        "pop the largest generation first",
    ),
    M(
        "queued twice",
        "if g is not None and id(g) not in queued:",
        "if g is not None:",
        "run each Function once",
    ),
    M(
        "overwrites",
        "grads[id(u)] = grads.get(id(u), 0) + gx",
        "grads[id(u)] = gx",
        "do not overwrite",
    ),
    M(
        "no tie-breaker",
        None,
        """
import heapq


def backward_by_generation(y):
    grads = {id(y): np.ones_like(y.data)}
    heap, queued = [(-y.creator.generation, y.creator)], {id(y.creator)}
    while heap:
        _, f = heapq.heappop(heap)
        gys = [grads[id(ref())] for ref in f.outputs]
        gxs = f.backward_array(*gys)
        gxs = gxs if isinstance(gxs, tuple) else (gxs,)
        for u, gx in zip(f.inputs, gxs):
            grads[id(u)] = grads.get(id(u), 0) + gx
            g = u.creator
            if g is not None and id(g) not in queued:
                queued.add(id(g))
                heapq.heappush(heap, (-g.generation, g))
    return grads
""",
        "ties then compare ids",
    ),
    M(
        "FIFO queue",
        None,
        """
import heapq



def backward_by_generation(y):
    grads = {id(y): np.ones_like(y.data)}
    queue, queued = [y.creator], {id(y.creator)}
    while queue:
        f = queue.pop(0)
        gys = [grads[id(ref())] for ref in f.outputs]
        gxs = f.backward_array(*gys)
        gxs = gxs if isinstance(gxs, tuple) else (gxs,)
        for u, gx in zip(f.inputs, gxs):
            grads[id(u)] = grads.get(id(u), 0) + gx
            g = u.creator
            if g is not None and id(g) not in queued:
                queued.add(id(g))
                queue.append(g)
    return grads
""",
        "pop the largest generation first",
    ),
    M(
        "no tuple",
        "        gxs = gxs if isinstance(gxs, tuple) else (gxs,)\n",
        "",
        "make a single gradient a tuple",
    ),
    M("grads not returned", "    return grads", "    return {}", "no gradient for x"),
]

CATALOGUE[(NB03, 3)] = [
    M(
        "creator removed after",
        None,
        """
def evaluate(f, x):
    out = f(x)
    out.creator = None
    return out
""",
        "removing the creator afterwards is too late",
    ),
    M("the data", "return f(x)", "return f(x).data", "not its .data"),
    M(
        "no_grad not entered",
        "    with no_grad():\n        return f(x)",
        "    no_grad()\n    return f(x)",
        "inside the `with no_grad():` block",
    ),
    M("no parentheses", "with no_grad():", "with no_grad:", "call the function, with no_grad():"),
    M(
        "graph afterwards",
        "    with no_grad():\n        return f(x)",
        "    out = f(x)\n    with no_grad():\n        return out",
        "inside the `with no_grad():` block",
    ),
    M("no return", "return f(x)", "f(x)", "did you forget to `return` f(x)"),
    M(
        "copied afterwards",
        "    with no_grad():\n        return f(x)",
        "    return Variable(f(x).data)",
        "removing the creator afterwards is too late",
    ),
    M(
        "empty block (also the blind trial's)",
        "    with no_grad():\n        return f(x)",
        "    with no_grad():\n        pass\n    return f(x)",
        "inside the `with no_grad():` block",
    ),
]

CATALOGUE[(NB03, 4)] = [
    M(
        "pushes every time",
        """            g = u.creator
            if g is not None:
                pending[id(g)] -= 1
                if pending[id(g)] == 0:
                    ready.append(g)""",
        """            g = u.creator
            if g is not None:
                ready.append(g)""",
        "ran 2 times",
    ),
    M(
        "constants not skipped",
        """            if gx is not None:
                grads[id(u)] = grads.get(id(u), 0) + gx""",
        """            grads[id(u)] = grads.get(id(u), 0) + gx""",
        "skip it (if gx is not None)",
    ),
    M(
        "overwrites",
        "grads[id(u)] = grads.get(id(u), 0) + gx",
        "grads[id(u)] = gx",
        "do not overwrite",
    ),
    M(
        "counts Functions, not uses",
        "pending[id(g)] = pending.get(id(g), 0) + 1",
        "pending[id(g)] = 1",
        "which uses its output",
    ),
    M("runs at count 1", "if pending[id(g)] == 0:", "if pending[id(g)] == 1:", "never ran"),
    M("never decrements", "                pending[id(g)] -= 1\n", "", "never ran"),
    M(
        "ready holds Variables",
        "ready = [y.creator]",
        "ready = [y]",
        "a Variable's Function is its .creator",
    ),
    M(
        "pass 1 recursive",
        None,
        """
def backward_by_counting(y):
    grads = {id(y): np.ones_like(y.data)}
    pending, seen = {}, set()

    def visit(f):
        if id(f) in seen:
            return
        seen.add(id(f))
        for u in f.inputs:
            if u.creator is not None:
                pending[id(u.creator)] = pending.get(id(u.creator), 0) + 1
                visit(u.creator)

    visit(y.creator)
    ready = [y.creator]
    while ready:
        f = ready.pop()
        gxs = f.backward_array(*[grads[id(r())] for r in f.outputs])
        gxs = gxs if isinstance(gxs, tuple) else (gxs,)
        for u, gx in zip(f.inputs, gxs):
            if gx is not None:
                grads[id(u)] = grads.get(id(u), 0) + gx
            if u.creator is not None:
                pending[id(u.creator)] -= 1
                if pending[id(u.creator)] == 0:
                    ready.append(u.creator)
    return grads
""",
        "explicit stack",
    ),
]

CATALOGUE[(NB04, 1)] = [
    M("Function not applied", "return Cube()(x)", "return Cube()", "not its result"),
    M("class called with x", "return Cube()(x)", "return Cube(x)", "a second call applies it"),
    M("no return", "return Cube()(x)", "Cube()(x)", "did you forget to `return`"),
    M(
        "not bound",
        "Variable.cube = cube",
        "vars(Variable).get('cube') and delattr(Variable, 'cube')",
        "bind it with Variable.cube = cube",
    ),
    M(
        "bound the call",
        "Variable.cube = cube",
        "vars(Variable).get('cube') and delattr(Variable, 'cube')\nVariable.cube = cube()",
        "bind it with Variable.cube = cube",
    ),
    M("no Cube", "return Cube()(x)", "return x**3", "without the Cube Function"),
    M(
        "Cube given the array (a newcomer's trial)",
        "return Cube()(x)",
        "return Cube()(x.data)",
        "Was Cube given x.data",
    ),
    M("returns the data", "return Cube()(x)", "return Cube()(x).data", "not a Variable"),
    M(
        "bound the class (also the blind trial's)",
        "Variable.cube = cube",
        "Variable.cube = Cube",
        "bind the wrapper function",
    ),
]

CATALOGUE[(NB04, 2)] = [
    M(
        "no reflected methods",
        """    def __radd__(self, other):  # other + self, when other is a plain number
        ### BEGIN SOLUTION
        return self + other
        ### END SOLUTION

    def __rmul__(self, other):  # other * self, when other is a plain number
        ### BEGIN SOLUTION
        return self * other
        ### END SOLUTION""",
        "",
        "define __rmul__ and __radd__",
    ),
    M(
        "numbers not lifted",
        "        other = other if isinstance(other, Dual) else Dual(other, 0.0)\n",
        "",
        "lift numbers to Dual(c, 0)",
    ),
    M(
        "product of derivatives",
        "self.value * other.deriv + self.deriv * other.value",
        "self.deriv * other.deriv",
        "this is b*d",
    ),
    M(
        "half the product rule",
        "self.value * other.deriv + self.deriv * other.value",
        "self.deriv * other.value",
        "this is b*c alone",
    ),
    M(
        "sum keeps one derivative",
        "Dual(self.value + other.value, self.deriv + other.deriv)",
        "Dual(self.value + other.value, self.deriv)",
        "the derivative of a sum",
    ),
    M(
        "reflected the other way",
        "        return self + other\n",
        "        return other + self\n",
        "calls itself without end",
    ),
    M(
        "__rmul__ reflected the other way (a newcomer's trial)",
        "        return self * other\n",
        "        return other * self\n",
        "__rmul__ calls itself without end: other * self calls it again; write self * other",
    ),
    M("numbers lifted with 1", "Dual(other, 0.0)", "Dual(other, 1.0)", "a number is a constant"),
    M(
        "a number lifted with 1 in __add__ only (blind trial)",
        "Dual(other, 0.0)\n        return Dual(self.value + other.value",
        "Dual(other, 1.0)\n        return Dual(self.value + other.value",
        "a number is a constant",
    ),
    M(
        "in place",
        "return Dual(self.value * other.value, self.value * other.deriv + self.deriv * other.value)",
        "self.value, self.deriv = self.value * other.value, self.value * other.deriv + self.deriv * other.value\n        return self",
        "changed a: return a new Dual",
    ),
    M(
        "a tuple",
        "return Dual(self.value + other.value, self.deriv + other.deriv)",
        "return self.value + other.value, self.deriv + other.deriv",
        "not a Dual",
    ),
]

CATALOGUE[(NB04, 3)] = [
    M("weak float", '"a32 * 2.0": "float32"', '"a32 * 2.0": "float64"', "a Python float is weak"),
    M(
        "no promotion",
        '"a32 + a64": "float64"',
        '"a32 + a64": "float32"',
        "promote to the wider dtype",
    ),
    M("int wins", '"a64 + i64": "float64"', '"a64 + i64": "int64"', "promote to float64"),
    M(
        "NumPy scalar",
        '"a32 * np.float32(3)": "float32"',
        '"a32 * np.float32(3)": "float64"',
        "a NumPy float32 scalar is float32",
    ),
    M("not a dtype name", '"a32 * 2.0": "float32"', '"a32 * 2.0": "float"', "write a dtype name"),
    M("a type", '"a32 * 2.0": "float32"', '"a32 * 2.0": np.float32', "write a dtype name"),
    M("a key missing", '    "a64 + i64": "float64",\n', "", "no prediction for 'a64 + i64'"),
    M("one left None", '"a32 + a64": "float64"', '"a32 + a64": None', "is still None"),
]

CATALOGUE[(NB04, 4)] = [
    M(
        "no chain rule",
        "np.exp(d.value) * d.deriv",
        "np.exp(d.value)",
        "multiply g'(value) by d.deriv",
    ),
    M(
        "numpy on the Dual",
        "return Dual(np.exp(d.value), np.exp(d.value) * d.deriv)",
        "return Dual(np.exp(d), np.exp(d) * d.deriv)",
        "apply them to d.value",
    ),
    M(
        "returns a tuple",
        "return Dual(np.sin(d.value), np.cos(d.value) * d.deriv)",
        "return np.sin(d.value), np.cos(d.value) * d.deriv",
        "should return a Dual",
    ),
    M(
        "sin for cos",
        "np.cos(d.value) * d.deriv",
        "np.sin(d.value) * d.deriv",
        "the derivative of sin is cos",
    ),
    M("minus cos", "np.cos(d.value) * d.deriv", "-np.cos(d.value) * d.deriv", "opposite sign"),
    M("exp deriv alone", "np.exp(d.value) * d.deriv", "d.deriv", "this is d.deriv alone"),
    M(
        "value for deriv",
        "np.cos(d.value) * d.deriv",
        "np.cos(d.value) * d.value",
        "multiplied by d.value",
    ),
    M(
        "no deriv",
        "return Dual(np.sin(d.value), np.cos(d.value) * d.deriv)",
        "return Dual(np.sin(d.value))",
        "deriv is 0",
    ),
    M(
        "in place",
        "return Dual(np.exp(d.value), np.exp(d.value) * d.deriv)",
        "d.value, d.deriv = np.exp(d.value), np.exp(d.value) * d.deriv\n    return d",
        "changed its argument",
    ),
]

CATALOGUE[(NB05, 1)] = [
    M("swapped", "return n_functions, n_variables", "return n_variables, n_functions", "swapped"),
    M(
        "edges as Variables",
        'n_variables = sum("shape=ellipse" in line for line in dot.splitlines())',
        'n_variables = sum("->" in line for line in dot.splitlines())',
        "number of edges",
    ),
    M(
        "characters",
        'n_functions = sum("shape=box" in line for line in dot.splitlines())',
        'n_functions = sum("shape=box" in c for c in dot)',
        "iterate over the lines",
    ),
    M(
        "booleans",
        "return n_functions, n_variables",
        'return "shape=box" in dot, "shape=ellipse" in dot',
        "True/False",
    ),
    M(
        "not told apart",
        None,
        """
def count_nodes(dot):
    n = sum("label=" in line for line in dot.splitlines())
    return n // 2, n - n // 2
""",
        "not told apart",
    ),
    M(
        "one number",
        "return n_functions, n_variables",
        "return n_functions",
        "should return a pair",
    ),
    M(
        "node ids",
        None,
        """
def count_nodes(dot):
    lines = [line.strip() for line in dot.splitlines()]
    return sum(line.startswith("f") for line in lines), sum(line.startswith("v") for line in lines)
""",
        "edge lines",
    ),
    M("no return", "    return n_functions, n_variables\n", "", "should return a pair"),
]

CATALOGUE[(NB05, 2)] = [
    M(
        "forward order",
        '["Add", "Exp", "Mul"]',
        '["Mul", "Exp", "Add"]',
        "that is the forward order",
    ),
    M("one missing", '["Add", "Exp", "Mul"]', '["Add", "Exp"]', "you listed 2"),
    M(
        "Variables listed",
        '["Add", "Exp", "Mul"]',
        '["Add", "b", "Exp", "Mul"]',
        "not a Function of this graph",
    ),
    M(
        "lower case",
        '["Add", "Exp", "Mul"]',
        '["add", "exp", "mul"]',
        "class name as viz shows it",
    ),
    M("a string", '["Add", "Exp", "Mul"]', '"Add, Exp, Mul"', "should be a list of names"),
    M(
        "middle swapped",
        '["Add", "Exp", "Mul"]',
        '["Exp", "Add", "Mul"]',
        "only after every Function using its output",
    ),
    M(
        "Functions not names",
        '["Add", "Exp", "Mul"]',
        "[z.creator, z.creator, z.creator]",
        "should hold names",
    ),
    M(
        "an op symbol",
        '["Add", "Exp", "Mul"]',
        '["+", "exp", "*"]',
        "not a Function of this graph",
    ),
    M("untouched", 'predicted_order = ["Add", "Exp", "Mul"]', "", "not done yet"),
]

CATALOGUE[(NB05, 3)] = [
    M(
        "forgot retain_grad",
        "loss.backward(retain_grad=True)",
        "loss.backward()",
        "keeps its gradient only with",
    ),
    M(
        "PyTorch's attribute",
        "loss.backward(retain_grad=True)",
        "h.retain_grad = True\nloss.backward()",
        "fix any error it shows",
    ),
    M("summed", "h_grad = h.grad.data", "h_grad = h.grad.data.sum()", "a single number"),
    M("the Variable", "h_grad = h.grad.data", "h_grad = h.grad", "is a Variable: use .data"),
    M("x's gradient", "h_grad = h.grad.data", "h_grad = x.grad.data", "this is x.grad"),
    M(
        "the seed",
        "h_grad = h.grad.data",
        "h_grad = loss.grad.data",
        "that is loss.grad, the seed",
    ),
    M("the value", "h_grad = h.grad.data", "h_grad = h.data", "this is h itself"),
    M(
        "backward from h",
        "loss.backward(retain_grad=True)",
        "h.backward(retain_grad=True)",
        "that is h.backward()",
    ),
]

CATALOGUE[(NB05, 4)] = [
    M(
        "pairs (norm, name) (blind trial)",
        "(step.name, float(np.linalg.norm(step.grads_in[0])))",
        "(float(np.linalg.norm(step.grads_in[0])), step.name)",
        "yours are (norm, name)",
    ),
    M(
        "sent instead of received",
        "step.grads_in[0]",
        "step.grads_out[0]",
        "the gradient the step sent",
    ),
    M(
        "norms only",
        "[(step.name, float(np.linalg.norm(step.grads_in[0]))) for step in trace]",
        "[float(np.linalg.norm(step.grads_in[0])) for step in trace]",
        "each item should be a pair (name, norm)",
    ),
    M(
        "squared",
        "float(np.linalg.norm(step.grads_in[0]))",
        "float(np.sum(step.grads_in[0] ** 2))",
        "squared norms",
    ),
    M(
        "sum",
        "float(np.linalg.norm(step.grads_in[0]))",
        "float(np.sum(step.grads_in[0]))",
        "plain sums",
    ),
    M(
        "max",
        "float(np.linalg.norm(step.grads_in[0]))",
        "float(np.max(np.abs(step.grads_in[0])))",
        "the largest elements",
    ),
    M(
        "reversed",
        "for step in trace]",
        "for step in reversed(trace)]",
        "follow the trace's order",
    ),
    M(
        "a dict",
        "return [(step.name, float(np.linalg.norm(step.grads_in[0]))) for step in trace]",
        "return {step.name: float(np.linalg.norm(step.grads_in[0])) for step in trace}",
        "one pair per step",
    ),
    M("the trace itself", "for step in trace]", "for step in [trace]]", "iterate over the trace"),
    M(
        "mean",
        "float(np.linalg.norm(step.grads_in[0]))",
        "float(np.mean(step.grads_in[0]))",
        "means",
    ),
    M(
        "doubled",
        "float(np.linalg.norm(step.grads_in[0]))",
        "2 * float(np.linalg.norm(step.grads_in[0]))",
        "exactly 2 times the right value",
    ),
]

CATALOGUE[(NB06, 1)] = [
    M(
        "forgot create_graph",
        "f(x).backward(create_graph=True)",
        "f(x).backward()",
        "no create_graph=True",
    ),
    M("forgot to clear", "    x.clear_grad()\n", "", "the first derivative was not cleared"),
    M(
        "cleared before keeping",
        "    gx = x.grad\n    x.clear_grad()\n    gx.backward()",
        "    x.clear_grad()\n    x.grad.backward()",
        "keep the first gradient",
    ),
    M(
        "once only",
        "    gx.backward()\n    return x.grad.item()",
        "    return x.grad.item()",
        "ran backward once",
    ),
    M(
        "the first derivative",
        "    return x.grad.item()",
        "    return gx.item()",
        "the first derivative: differentiate",
    ),
    M(
        "f(x) twice",
        None,
        """
def second_derivative(f, x0):
    x = Variable(np.array(x0))
    y = f(x)
    y.backward(create_graph=True)
    x.clear_grad()
    y.backward()
    return x.grad.item()
""",
        "ran on f(x) again",
    ),
    M("sign", "    return x.grad.item()", "    return -x.grad.item()", "opposite sign"),
    M(
        "no backward",
        None,
        """
def second_derivative(f, x0):
    x = Variable(np.array(x0))
    return f(x).item()
""",
        "called no backward",
    ),
]

CATALOGUE[(NB06, 2)] = [
    M(
        "syntax error in the def",
        "def newton(f, x0, steps):",
        "def newton(f, x0, steps)",
        "newton is not defined",
    ),
    M(
        "a list under the function's name",
        None,
        "newton = [2.0]  # a demo's list kept the name; the def never ran",
        "newton is not a function: its cell has not run",
    ),
    M(
        "uphill",
        "xs.append(xs[-1] - g1 / g2)",
        "xs.append(xs[-1] + g1 / g2)",
        "Newton's step is x - f'(x) / f''(x)",
    ),
    M(
        "ratio inverted",
        "xs.append(xs[-1] - g1 / g2)",
        "xs.append(xs[-1] - g2 / g1)",
        "upside down",
    ),
    M(
        "gradient step",
        "xs.append(xs[-1] - g1 / g2)",
        "xs.append(xs[-1] - g1)",
        "Newton divides by f''(x)",
    ),
    M(
        "no x0",
        "xs = [float(x0)]\n    for _ in range(steps):\n        g1, g2 = derivatives(f, xs[-1])\n        xs.append(xs[-1] - g1 / g2)\n    return xs",
        "xs = [float(x0)]\n    for _ in range(steps):\n        g1, g2 = derivatives(f, xs[-1])\n        xs.append(xs[-1] - g1 / g2)\n    return xs[1:]",
        "should return 6 values",
    ),
    M(
        "one step too many",
        "for _ in range(steps):",
        "for _ in range(steps + 1):",
        "should return 6 values",
    ),
    M(
        "derivatives at x0",
        "g1, g2 = derivatives(f, xs[-1])",
        "g1, g2 = derivatives(f, x0)",
        "derivatives at x0",
    ),
    M("only the last", "    return xs", "    return xs[-1]", "should return the list of iterates"),
    M("no return", "    return xs", "    xs", "should return the list of iterates"),
]

CATALOGUE[(NB06, 3)] = [
    M("index shift", "    out = []\n", "    out = [y.item()]\n", "got[0] is tanh(0.6) itself"),
    M("forgot to clear", "        x.clear_grad()\n", "", "the orders add up"),
    M(
        "no create_graph",
        "y.backward(create_graph=True)",
        "y.backward()",
        "without create_graph=True",
    ),
    M(
        "cleared before keeping",
        "        y = x.grad\n        x.clear_grad()",
        "        x.clear_grad()\n        y = x.grad",
        "keep the last gradient",
    ),
    M(
        "differentiates tanh again",
        "        y = x.grad\n        x.clear_grad()\n        out.append(y.item())",
        "        g = x.grad\n        x.clear_grad()\n        out.append(g.item())",
        "every entry is the first derivative",
    ),
    M("one too many", "for _ in range(n):", "for _ in range(n + 1):", "should return 3 values"),
    M("one too few", "for _ in range(n):", "for _ in range(n - 1):", "should return 3 values"),
    M("a number", "    return out", "    return out[-1]", "should return a list"),
    M("sign", "out.append(y.item())", "out.append(-y.item())", "opposite sign"),
]

ENGINE_FIFO = """
def backward_engine(y, create_graph=False):
    grads = {id(y): Variable(np.ones_like(y.data))}
    queue, queued, leaves = [y.creator], {id(y.creator)}, {}
    with nullcontext() if create_graph else no_grad():
        while queue:
            f = queue.pop(0)
            gxs = f.backward(grads.pop(id(f.output())))
            gxs = gxs if isinstance(gxs, tuple) else (gxs,)
            for u, gx in zip(f.inputs, gxs):
                if gx is None:
                    continue
                grads[id(u)] = gx if id(u) not in grads else grads[id(u)] + gx
                if u.creator is None:
                    leaves[id(u)] = u
                elif id(u.creator) not in queued:
                    queued.add(id(u.creator))
                    queue.append(u.creator)
        for key, leaf in leaves.items():
            leaf.grad = grads[key] if leaf.grad is None else leaf.grad + grads[key]
"""
CATALOGUE[(NB06, 4)] = [
    M("FIFO queue", None, ENGINE_FIFO, "which uses its output"),
    M(
        "a stack",
        None,
        ENGINE_FIFO.replace("queue.pop(0)", "queue.pop()"),
        "which uses its output",
    ),
    M(
        "smallest generation first",
        "heapq.heappush(heap, (-f.generation, id(f), f))",
        "heapq.heappush(heap, (f.generation, id(f), f))",
        "which uses its output",
    ),
    M(
        "records the graph in first order",
        "with nullcontext() if create_graph else no_grad():",
        "with nullcontext():",
        "run the backward calls inside `with no_grad():`",
    ),
    M(
        "never records",
        "with nullcontext() if create_graph else no_grad():",
        "with no_grad():",
        "must have a history",
    ),
    M(
        "overwrites leaf gradients",
        "leaf.grad = grads[key] if leaf.grad is None else leaf.grad + grads[key]",
        "leaf.grad = grads[key]",
        "add to the gradient a leaf already has",
    ),
    M(
        "calls minitorch's engine",
        None,
        "def backward_engine(y, create_graph=False):\n    y.backward(create_graph=create_graph)\n",
        "loop over the Functions yourself",
    ),
    M(
        "backward_array: ndarrays",
        "gxs = f.backward(grads.pop(id(f.output())))",
        "gxs = f.backward_array(grads.pop(id(f.output())).data)",
        "is an ndarray, not a Variable",
    ),
    M(
        "overwrites the running total",
        "grads[id(u)] = gx if id(u) not in grads else grads[id(u)] + gx",
        "grads[id(u)] = gx",
        "add into the running total",
    ),
    M(
        "queued twice",
        "if f is not None and id(f) not in queued:",
        "if f is not None:",
        "taken a second time",
    ),
]

HESSIAN_FIRST = "backward(f(x, y), create_graph=True)"
# Exercise 4's overwrite (`leaf.grad = grads[key]`, caught by its own check) as the
# student's engine: each pass replaces the leaves' gradients, so a hessian_2x2 without
# clear_grad() gives the right Hessian with it; minitorch's engine must show the mistake.
OVERWRITING_ENGINE = """\
_accumulating_engine = backward_engine


def backward_engine(z, create_graph=False):
    seen, stack = set(), [z]
    while stack:
        v = stack.pop()
        if id(v) not in seen:
            seen.add(id(v))
            if v.creator is None:
                v.clear_grad()
            else:
                stack.extend(v.creator.inputs)
    _accumulating_engine(z, create_graph=create_graph)


"""
HESSIAN_WITHOUT_CLEAR = """\
def hessian_2x2(backward, f, x0, y0):
    x, y = Variable(np.array(x0)), Variable(np.array(y0))
    backward(f(x, y), create_graph=True)
    first = (x.grad, y.grad)
    rows = []
    for g in first:
        backward(g)
        rows.append([x.grad.item(), y.grad.item()])
    return np.array(rows)
"""

CATALOGUE[(NB06, 5)] = [
    M(
        "no clear, hidden by an engine that overwrites",
        None,
        OVERWRITING_ENGINE + HESSIAN_WITHOUT_CLEAR,
        "the rows add up",
    ),
    M(
        "gradients not cleared",
        "        x.clear_grad()\n        y.clear_grad()\n",
        "",
        "the rows add up",
    ),
    M("no create_graph", HESSIAN_FIRST, "backward(f(x, y))", "the first pass needs"),
    M(
        "first derivatives",
        "        backward(g)\n        rows.append([x.grad.item(), y.grad.item()])",
        "        rows.append([first[0].item(), first[1].item()])",
        "these are the first derivatives",
    ),
    M(
        "diagonal only",
        "rows.append([x.grad.item(), y.grad.item()])",
        "rows.append([x.grad.item() if g is first[0] else 0.0, y.grad.item() if g is first[1] else 0.0])",
        "the mixed derivatives are missing",
    ),
    M(
        "only one row",
        "    return np.array(rows)",
        "    return np.array(rows[0])",
        "should return a 2 x 2 array",
    ),
    M(
        "cleared before keeping",
        "    backward(f(x, y), create_graph=True)\n    first = (x.grad, y.grad)",
        "    backward(f(x, y), create_graph=True)\n    x.clear_grad()\n    first = (x.grad, y.grad)",
        "keep x.grad and y.grad",
    ),
    M(
        "transposed sign",
        "    return np.array(rows)",
        "    return -np.array(rows)",
        "opposite sign",
    ),
    M(
        "minitorch's own engine",
        "    backward(f(x, y), create_graph=True)",
        "    f(x, y).backward()",
        "the first pass needs",
    ),
]

SUM_TO = """    lead = g.ndim - len(shape)
    g = g.sum(axis=tuple(range(lead)))
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    return g.sum(axis=axes, keepdims=True)"""
CATALOGUE[(NB07, 1)] = [
    M(
        "the grand total everywhere (blind trial)",
        "    lead = g.ndim - len(shape)\n",
        "    return np.full(shape, g.sum())\n",
        "the sum of all of g",
    ),
    M(
        "no keepdims",
        "return g.sum(axis=axes, keepdims=True)",
        "return g.sum(axis=axes)",
        "too many axes were summed away",
    ),
    M(
        "leading axes kept",
        "g = g.sum(axis=tuple(range(lead)))",
        "g = g",
        "sum away the extra leading axes",
    ),
    M(
        "trailing axes summed",
        "g = g.sum(axis=tuple(range(lead)))",
        "g = g.sum(axis=tuple(range(g.ndim - lead, g.ndim)))",
        "the wrong axes were summed",
    ),
    M("means", SUM_TO, SUM_TO.replace("g.sum(", "g.mean("), "these are means"),
    M(
        "off by one",
        "lead = g.ndim - len(shape)",
        "lead = g.ndim - len(shape) - 1",
        "sum away the extra leading axes",
    ),
    M("reshape", SUM_TO, "    return g.reshape(shape)", "reshape keeps every element"),
    M("all axes", SUM_TO, "    return g.sum()", "too many axes were summed away"),
    M(
        "no return",
        "    return g.sum(axis=axes, keepdims=True)",
        "    g.sum(axis=axes, keepdims=True)",
        "is None: did you forget to `return`",
    ),
]

CATALOGUE[(NB07, 2)] = [
    M(
        "no transpose",
        "return gy @ W.T, x.T @ gy",
        "return gy @ W, x.T @ gy",
        "the shapes also fit gy @ W",
    ),
    M(
        "order of the product",
        "return gy @ W.T, x.T @ gy",
        "return W.T @ gy, x.T @ gy",
        "gy is (2, 3), and each gradient has its input's shape, (2, 3), (3, 3)",
    ),
    M(
        "no transposes (blind trial)",
        "return gy @ W.T, x.T @ gy",
        "return gy @ W, x @ gy",
        "gy is (2, 3), and each gradient has its input's shape, (2, 3), (3, 3)",
    ),
    M(
        "gW transposed",
        "return gy @ W.T, x.T @ gy",
        "return gy @ W.T, gy.T @ x",
        "this is (x.T @ gy).T",
    ),
    M(
        "one gradient",
        "return gy @ W.T, x.T @ gy",
        "return gy @ W.T",
        "returns 1 gradient(s) for 2 input(s)",
    ),
    M(
        "raw arrays",
        "return gy @ W.T, x.T @ gy",
        "return Variable(gy.data @ W.data.T), Variable(x.data.T @ gy.data)",
        "computed on raw NumPy arrays",
    ),
    M("sign", "return gy @ W.T, x.T @ gy", "return -(gy @ W.T), -(x.T @ gy)", "wrong sign"),
    M(
        "elementwise",
        "return gy @ W.T, x.T @ gy",
        "return gy * W.T, x.T * gy",
        "a matrix product is @",
    ),
    M(
        "gx transposed",
        "return gy @ W.T, x.T @ gy",
        "return (gy @ W.T).T, x.T @ gy",
        "the transposed shape",
    ),
    M(
        "swapped",
        "return gy @ W.T, x.T @ gy",
        "return x.T @ gy, gy @ W.T",
        "in the order of self.inputs",
    ),
]

CATALOGUE[(NB07, 3)] = [
    M(
        "no reduction",
        "return gy, F.sum_to(gy, b.shape)",
        "return gy, gy",
        "this input was broadcast",
    ),
    M(
        "mean",
        "return gy, F.sum_to(gy, b.shape)",
        "return gy, F.sum_to(gy, b.shape) / x.shape[0]",
        "these are means over the rows",
    ),
    M(
        "wrong axis (also the blind trial's)",
        "return gy, F.sum_to(gy, b.shape)",
        "return gy, F.sum(gy, axis=1)",
        "summed over axis 1, but the input was repeated along axis 0",
    ),
    M(
        "both reduced",
        "return gy, F.sum_to(gy, b.shape)",
        "return F.sum_to(gy, b.shape), F.sum_to(gy, b.shape)",
        "(5, 3)\n  hint: each gradient must",
    ),
    M(
        "swapped",
        "return gy, F.sum_to(gy, b.shape)",
        "return F.sum_to(gy, b.shape), gy",
        "in the order of self.inputs",
    ),
    M(
        "raw arrays",
        "return gy, F.sum_to(gy, b.shape)",
        "return gy.data, gy.data.sum(axis=0)",
        "this is an ndarray",
    ),
    M(
        "sign",
        "return gy, F.sum_to(gy, b.shape)",
        "return gy, -F.sum_to(gy, b.shape)",
        "wrong sign",
    ),
    M(
        "gy ignored",
        "return gy, F.sum_to(gy, b.shape)",
        "return gy, F.sum_to(gy * 0 + 1, b.shape)",
        "ignores gy",
    ),
    M(
        "keepdims",
        "return gy, F.sum_to(gy, b.shape)",
        "return gy, F.sum(gy, axis=0, keepdims=True)",
        "this input was broadcast",
    ),
]


def _answer(stem: str, k: int, mistake: M) -> str:
    solution = notebook(stem).solution(k)
    if mistake.old is None:
        return mistake.new
    assert mistake.old in solution, f"{mistake.label}: {mistake.old!r} is not in the solution"
    return solution.replace(mistake.old, mistake.new)


def _problems(stem: str, k: int, mistakes: list[M]) -> list[str]:
    CheckFailed = checks_module().CheckFailed

    nb, problems = notebook(stem), []
    for mistake in mistakes:
        outcome = nb.play(k, _answer(stem, k, mistake))
        where = f"{stem[:2]} Ex{k + 1} {mistake.label!r}"
        if outcome.error is None:
            problems.append(f"{where}: the check passed")
            continue
        if not isinstance(outcome.error, CheckFailed):
            problems.append(f"{where}: {type(outcome.error).__name__}: {outcome.message[:300]}")
            continue
        if mistake.phrase not in outcome.message:
            problems.append(f"{where}: no {mistake.phrase!r} in: {outcome.message}")
        others = {m.phrase for m in mistakes if m.phrase != mistake.phrase}
        wrong = [p for p in others if p in outcome.message and p not in mistake.phrase]
        if wrong:
            problems.append(f"{where}: names another mistake's cause {wrong}: {outcome.message}")
        if len(outcome.lines) > 3:
            problems.append(f"{where}: {len(outcome.lines)} lines: " + "\n".join(outcome.lines))
    return problems


EXERCISES = sorted(CATALOGUE)


@pytest.mark.parametrize(("stem", "k"), EXERCISES, ids=[f"{s[:2]}-ex{k}" for s, k in EXERCISES])
def test_each_classic_mistake_is_named(stem: str, k: int) -> None:
    problems = _problems(stem, k - 1, CATALOGUE[(stem, k)])
    assert not problems, "\n".join(problems)


def test_the_catalogue_has_at_least_8_mistakes_per_exercise_on_average() -> None:
    counts = [len(mistakes) for mistakes in CATALOGUE.values()]
    covered = {stem for stem, _ in CATALOGUE}
    assert covered == {NB01, NB02, NB03, NB04, NB05, NB06, NB07}
    assert sum(counts) / len(counts) >= 8, counts


@pytest.mark.parametrize("stem", [NB01, NB02, NB03, NB04, NB05, NB06, NB07], ids=lambda s: s[:2])
def test_untouched_and_missing_answers_say_not_done_in_three_lines(stem: str) -> None:
    CheckFailed, NotDoneYet = checks_module().CheckFailed, checks_module().NotDoneYet

    make_student = __import__("exercise_runner").load_script("make_student")
    nb, problems = notebook(stem), []
    for k in range(len(nb.pairs)):
        stub = make_student.strip_source(nb.solution(k))
        for what, answer in (("the untouched stub", stub), ("no answer cell", None)):
            outcome = nb.play(k, answer)
            # without the cell, names left by earlier cells may be checked: any failure of
            # this check alone, shown short; the stub itself must say "not done yet"
            kind = NotDoneYet if answer is not None else CheckFailed
            if not isinstance(outcome.error, kind) or len(outcome.lines) > 3:
                problems.append(f"{stem[:2]} Ex{k + 1}, {what}: {outcome.message!r}")
    assert not problems, "\n".join(problems)
