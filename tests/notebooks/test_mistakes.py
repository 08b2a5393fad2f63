"""Typical mistakes in the exercises of notebooks 01-06 get specific feedback.

Each case replaces an exercise's answer cell by a typical wrong answer — the ones a
student new to autograd makes — runs the check, and asserts that the message names the
mistake (not a bare traceback, not a misleading hint). One kernel per exercise.
"""

from __future__ import annotations

import pytest
from exercise_runner import SOURCES, Kernel, load_script

# (notebook, exercise number) -> [(mistake, wrong answer cell, words the check must say)]
MISTAKES: dict[tuple[str, int], list[tuple[str, str, str]]] = {
    ("01_variables_and_numerical_diff", 4): [
        ("both inputs shifted at once", """
def numerical_partials(f, x0, x1, h=1e-4):
    up = f(Variable(x0.data + h), Variable(x1.data + h)).data
    down = f(Variable(x0.data - h), Variable(x1.data - h)).data
    return (up - down) / (2 * h), (up - down) / (2 * h)
""", "shifted both inputs at once"),
        ("divided by h", """
def numerical_partials(f, x0, x1, h=1e-4):
    d0 = (f(Variable(x0.data + h), x1).data - f(Variable(x0.data - h), x1).data) / h
    d1 = (f(x0, Variable(x1.data + h)).data - f(x0, Variable(x1.data - h)).data) / h
    return d0, d1
""", "exactly twice the derivative"),
        ("swapped", """
def numerical_partials(f, x0, x1, h=1e-4):
    d0 = (f(Variable(x0.data + h), x1).data - f(Variable(x0.data - h), x1).data) / (2 * h)
    d1 = (f(x0, Variable(x1.data + h)).data - f(x0, Variable(x1.data - h)).data) / (2 * h)
    return d1, d0
""", "swapped"),
        ("Variables instead of arrays", """
def numerical_partials(f, x0, x1, h=1e-4):
    d0 = (f(Variable(x0.data + h), x1) - f(Variable(x0.data - h), x1)) / (2 * h)
    d1 = (f(x0, Variable(x1.data + h)) - f(x0, Variable(x1.data - h))) / (2 * h)
    return d0, d1
""", "d0 is a Variable: use .data"),
        ("shifted the Variable", """
def numerical_partials(f, x0, x1, h=1e-4):
    d0 = (f(Variable(x0 + h), x1).data - f(Variable(x0 - h), x1).data) / (2 * h)
    return d0, d0
""", "shift the array, not the Variable"),
    ],
    ("02_backpropagation", 1): [
        ("left untouched after the example", "x = 0.5\na = np.sin(x)\ny = np.exp(a)\ngy = 1.0\n"
         "ga = gx = None\n", "not done yet"),
    ],
    ("02_backpropagation", 4): [
        ("numpy on a Variable", """
class Log(Function):
    def forward(self, x):
        return np.log(x)

    def backward(self, gy):
        return gy * np.reciprocal(self.inputs[0])
""", "minitorch has no np.reciprocal; write it with operators and F ops"),
        ("backward on raw arrays", """
class Log(Function):
    def forward(self, x):
        return np.log(x)

    def backward(self, gy):
        return gy * (1 / self.inputs[0].data)
""", "computed on raw"),
        ("forgot gy", """
class Log(Function):
    def forward(self, x):
        return np.log(x)

    def backward(self, gy):
        return 1 / self.inputs[0]
""", "gradient of your Log differs"),
    ],
    ("02_backpropagation", 5): [
        ("never moves on", """
def backward_chain(y):
    y.grad = Variable(np.ones_like(y.data))
    v = y
    while v.creator is not None:
        v.creator.inputs[0].grad = v.creator.backward(v.grad)
""", "move to the creator's input"),
        ("no seed", """
def backward_chain(y):
    v = y
    while v.creator is not None:
        x = v.creator.inputs[0]
        x.grad = v.creator.backward(v.grad)
        v = x
""", "start with y.grad = Variable(np.ones_like(y.data))"),
        ("seed is an ndarray", """
def backward_chain(y):
    y.grad = np.ones_like(y.data)
    v = y
    while v.creator is not None:
        x = v.creator.inputs[0]
        x.grad = v.creator.backward(v.grad)
        v = x
""", "is an ndarray, not a Variable"),
    ],
    ("03_complex_graphs", 4): [
        ("pushes every time", """
def backward_by_counting(y):
    grads = {id(y): np.ones_like(y.data)}
    ready = [y.creator]
    while ready:
        f = ready.pop()
        gxs = f.backward_array(*[grads[id(r())] for r in f.outputs])
        gxs = gxs if isinstance(gxs, tuple) else (gxs,)
        for u, gx in zip(f.inputs, gxs):
            if gx is not None:
                grads[id(u)] = grads.get(id(u), 0) + gx
            if u.creator is not None:
                ready.append(u.creator)
    return grads
""", "too large: a Function ran twice"),
        ("constants not skipped", """
def backward_by_counting(y):
    grads = {id(y): np.ones_like(y.data)}
    pending, stack, seen = {}, [y.creator], {id(y.creator)}
    while stack:
        f = stack.pop()
        for u in f.inputs:
            if u.creator is not None:
                pending[id(u.creator)] = pending.get(id(u.creator), 0) + 1
                if id(u.creator) not in seen:
                    seen.add(id(u.creator))
                    stack.append(u.creator)
    ready = [y.creator]
    while ready:
        f = ready.pop()
        gxs = f.backward_array(*[grads[id(r())] for r in f.outputs])
        gxs = gxs if isinstance(gxs, tuple) else (gxs,)
        for u, gx in zip(f.inputs, gxs):
            grads[id(u)] = grads.get(id(u), 0) + gx
            if u.creator is not None:
                pending[id(u.creator)] -= 1
                if pending[id(u.creator)] == 0:
                    ready.append(u.creator)
    return grads
""", "skip it (if gx is not None)"),
    ],
    ("04_operator_overloading", 2): [
        ("no reflected methods", """
class Dual:
    def __init__(self, value, deriv=0.0):
        self.value = value
        self.deriv = deriv

    def __add__(self, other):
        other = other if isinstance(other, Dual) else Dual(other, 0.0)
        return Dual(self.value + other.value, self.deriv + other.deriv)

    def __mul__(self, other):
        other = other if isinstance(other, Dual) else Dual(other, 0.0)
        return Dual(self.value * other.value, self.value * other.deriv + self.deriv * other.value)
""", "define __rmul__ and __radd__"),
        ("numbers not lifted", """
class Dual:
    def __init__(self, value, deriv=0.0):
        self.value = value
        self.deriv = deriv

    def __add__(self, other):
        return Dual(self.value + other.value, self.deriv + other.deriv)

    def __mul__(self, other):
        return Dual(self.value * other.value, self.value * other.deriv + self.deriv * other.value)

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other
""", "lift numbers to Dual(c, 0)"),
    ],
    ("04_operator_overloading", 3): [
        ("left untouched", """
a32 = Variable(np.ones(3, dtype=np.float32))
a64 = Variable(np.ones(3))
i64 = np.arange(3)
predictions = {"a32 * 2.0": None, "a32 + a64": None, "a64 + i64": None,
               "a32 * np.float32(3)": None}
""", "not done yet"),
    ],
    ("04_operator_overloading", 4): [
        ("no chain rule", """
def exp_dual(d):
    return Dual(np.exp(d.value), np.exp(d.value))


def sin_dual(d):
    return Dual(np.sin(d.value), np.cos(d.value))
""", "multiply g'(value) by d.deriv"),
        ("numpy on the Dual", """
def exp_dual(d):
    return Dual(np.exp(d), np.exp(d) * d.deriv)


def sin_dual(d):
    return Dual(np.sin(d), np.cos(d) * d.deriv)
""", "apply them to d.value"),
        ("returns a tuple", """
def exp_dual(d):
    return np.exp(d.value), np.exp(d.value) * d.deriv


def sin_dual(d):
    return np.sin(d.value), np.cos(d.value) * d.deriv
""", "should return a Dual"),
    ],
    ("05_seeing_the_graph", 4): [
        ("sent instead of received", """
def received_norms(trace):
    return [(s.name, float(np.linalg.norm(s.grads_out[0]))) for s in trace]
""", "the gradient the step received"),
        ("norms only", """
def received_norms(trace):
    return [float(np.linalg.norm(s.grads_in[0])) for s in trace]
""", "each item should be a pair (name, norm)"),
    ],
    ("06_higher_order_derivatives", 1): [
        ("forgot create_graph", """
def second_derivative(f, x0):
    x = Variable(np.array(x0))
    f(x).backward()
    gx = x.grad
    x.clear_grad()
    gx.backward()
    return x.grad.item()
""", "create_graph=True"),
        ("forgot to clear", """
def second_derivative(f, x0):
    x = Variable(np.array(x0))
    f(x).backward(create_graph=True)
    x.grad.backward()
    return x.grad.item()
""", "the first derivative was not cleared"),
    ],
    ("06_higher_order_derivatives", 4): [
        ("records the graph in first order", """
def backward_engine(y, create_graph=False):
    grads = {id(y): Variable(np.ones_like(y.data))}
    heap, queued, leaves = [(-y.creator.generation, id(y.creator), y.creator)], set(), {}
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
            elif id(u.creator) not in queued:
                queued.add(id(u.creator))
                heapq.heappush(heap, (-u.creator.generation, id(u.creator), u.creator))
    for key, leaf in leaves.items():
        leaf.grad = grads[key] if leaf.grad is None else leaf.grad + grads[key]
""", "run the backward calls inside `with no_grad():`"),
        ("overwrites leaf gradients", """
def backward_engine(y, create_graph=False):
    grads = {id(y): Variable(np.ones_like(y.data))}
    heap, queued, leaves = [(-y.creator.generation, id(y.creator), y.creator)], set(), {}
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
                elif id(u.creator) not in queued:
                    queued.add(id(u.creator))
                    heapq.heappush(heap, (-u.creator.generation, id(u.creator), u.creator))
        for key, leaf in leaves.items():
            leaf.grad = grads[key]
""", "add to the gradient a leaf already has"),
        ("calls minitorch's engine", """
def backward_engine(y, create_graph=False):
    y.backward(create_graph=create_graph)
""", "write the engine yourself"),
        ("backward_array: ndarrays", """
def backward_engine(y, create_graph=False):
    grads = {id(y): np.ones_like(y.data)}
    heap, queued, leaves = [(-y.creator.generation, id(y.creator), y.creator)], set(), {}
    while heap:
        _, _, f = heapq.heappop(heap)
        gxs = f.backward_array(grads.pop(id(f.output())))
        gxs = gxs if isinstance(gxs, tuple) else (gxs,)
        for u, gx in zip(f.inputs, gxs):
            if gx is None:
                continue
            grads[id(u)] = gx if id(u) not in grads else grads[id(u)] + gx
            if u.creator is None:
                leaves[id(u)] = u
            elif id(u.creator) not in queued:
                queued.add(id(u.creator))
                heapq.heappush(heap, (-u.creator.generation, id(u.creator), u.creator))
    for key, leaf in leaves.items():
        leaf.grad = grads[key] if leaf.grad is None else leaf.grad + grads[key]
""", "is an ndarray, not a Variable"),
        ("a stack instead of the heap", """
def backward_engine(y, create_graph=False):
    grads = {id(y): Variable(np.ones_like(y.data))}
    stack, leaves = [y.creator], {}
    with nullcontext() if create_graph else no_grad():
        while stack:
            f = stack.pop()
            gxs = f.backward(grads.pop(id(f.output())))
            gxs = gxs if isinstance(gxs, tuple) else (gxs,)
            for u, gx in zip(f.inputs, gxs):
                if gx is None:
                    continue
                grads[id(u)] = gx if id(u) not in grads else grads[id(u)] + gx
                if u.creator is None:
                    leaves[id(u)] = u
                else:
                    stack.append(u.creator)
        for key, leaf in leaves.items():
            leaf.grad = grads[key] if leaf.grad is None else leaf.grad + grads[key]
""", "largest generation first"),
    ],
    ("06_higher_order_derivatives", 5): [
        ("gradients not cleared", """
def hessian_2x2(backward, f, x0, y0):
    x, y = Variable(np.array(x0)), Variable(np.array(y0))
    backward(f(x, y), create_graph=True)
    first = (x.grad, y.grad)
    rows = []
    for g in first:
        backward(g)
        rows.append([x.grad.item(), y.grad.item()])
    return np.array(rows)
""", "clear x.grad and y.grad before each second pass"),
    ],
}


@pytest.mark.slow
@pytest.mark.parametrize(("stem", "number"), list(MISTAKES), ids=lambda v: str(v)[:2])
def test_typical_mistakes_get_specific_feedback(stem: str, number: int) -> None:
    run_notebooks = load_script("run_notebooks")
    nb = run_notebooks.build_notebook(SOURCES / f"{stem}.py")
    solution, check = run_notebooks.exercises(nb)[number - 1]
    kernel, vague = Kernel(), []
    try:
        for cell in nb.cells[:solution]:
            if cell.cell_type == "code":
                assert not kernel.run(cell.source)[0]
        for mistake, answer, words in MISTAKES[(stem, number)]:
            assert not kernel.run(answer)[0], f"{mistake}: the answer cell itself failed"
            ename, evalue = kernel.run(nb.cells[check].source)
            if words not in evalue:
                vague.append(f"{mistake}: {ename}: {evalue[:400]}")
        assert not kernel.run(nb.cells[solution].source)[0]
        ename, evalue = kernel.run(nb.cells[check].source)
        assert not ename, f"the solution fails after the mistakes: {ename}: {evalue}"
    finally:
        kernel.close()
    assert not vague, "\n".join(vague)
