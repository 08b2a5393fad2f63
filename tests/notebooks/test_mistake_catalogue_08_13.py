# ruff: noqa: E501 - a table of code edits: long string literals read better unbroken
"""The mistake catalogue of notebooks 08-13: classic mistakes get a message naming them.

For every exercise, the classic mistakes of that kind of code — a flipped sign, swapped
inputs, a missing reduction or accumulation, a wrong axis, an off-by-one, a forgotten
``zero_grad``, state lost by rebinding, bias-correction variants, gate or axis order,
index formulas — are injected into the solution (an edit of its text), the exercise is
replayed in-process with the other exercises left as stubs (:mod:`inprocess`), and:

* the check must fail with an ``AssertionError`` (a message, not a bare traceback);
* the message must contain the phrase that names that mistake;
* it must contain no phrase of the same exercise's catalogue that names a *different*
  cause.

The checks were written for the general kind of mistake (a gradient that is the negative,
or another input's, or a constant multiple of the right one; an optimizer trajectory that
matches a known wrong rule), so that mistakes nobody listed here are named too.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "notebooks"))

import matplotlib  # noqa: E402

matplotlib.use("Agg")

import inprocess  # noqa: E402

# The injected mistakes are the students': their NumPy overflow and divide warnings are
# part of the mistake (the check names it), not something the library causes.
pytestmark = pytest.mark.filterwarnings("ignore:.*encountered in:RuntimeWarning")

#: An edit ``(CELL, code)`` replaces the whole exercise cell by ``code``.
CELL = "<the whole cell>"

# (notebook, exercise number) -> [(label, [(old, new), ...], phrase naming the mistake)]
Entry = tuple[str, list[tuple[str, str]], str]
CATALOGUE: dict[tuple[str, int], list[Entry]] = {
    # -- 08 -----------------------------------------------------------------------------
    ("08", 1): [
        ("sign", [("return gy * F.tanh(x)", "return -gy * F.tanh(x)")], "the sign is flipped"),
        ("no gy", [("return gy * F.tanh(x)", "return F.tanh(x)")], "gy is left out"),
        ("np.tanh", [("return gy * F.tanh(x)", "return gy * np.tanh(x)")], "NumPy functions need arrays"),
        ("raw arrays", [("return gy * F.tanh(x)", "return gy * np.tanh(x.data)")], "computed on raw"),
        ("factor 2", [("return gy * F.tanh(x)", "return 2 * gy * F.tanh(x)")], "2 times the right gradient"),
        ("unstable", [("        ax = np.abs(x)\n        return ax + np.log1p(np.exp(-2.0 * ax)) - np.log(2.0)",
                       "        return np.log(np.cosh(x))")], "use the stable form"),
        ("no abs", [("ax = np.abs(x)", "ax = x")], "use the stable form"),
        ("no log 2", [(" - np.log(2.0)", "")], "subtract log 2"),
        ("derivative as forward", [("        ax = np.abs(x)\n        return ax + np.log1p(np.exp(-2.0 * ax)) - np.log(2.0)",
                                    "        return np.tanh(x)")], "that is tanh(x), the derivative"),
    ],
    ("08", 2): [
        (
            "one broadcast direction only (a trial's)",
            [("xp.sum_to(gy * x0 / y, x0.shape)", "gy * x0 / y"),
             ("xp.sum_to(gy * x1 / y, x1.shape)", "(gy * x1 / y).sum(axis=0)")],
            "xp.sum_to(g, x.shape)",
        ),
        ("/ y**2 (blind trial)", [("gy * x0 / y, x0.shape", "gy * x0 / y**2, x0.shape"),
                                  ("gy * x1 / y, x1.shape", "gy * x1 / y**2, x1.shape")],
         "divided by the output y once more"),
        ("swapped", [("gy * x0 / y, x0.shape", "gy * x1 / y, x0.shape"), ("gy * x1 / y, x1.shape", "gy * x0 / y, x1.shape")],
         "the gradients are swapped"),
        ("x0 in gx1", [("gy * x1 / y, x1.shape", "gy * x0 / y, x1.shape")],
         "the formula for input 1 uses input 0 where input 1 belongs"),
        ("x1 in gx0", [("gy * x0 / y, x0.shape", "gy * x1 / y, x0.shape")],
         "the formula for input 0 uses input 1 where input 0 belongs"),
        ("no sum_to", [("xp.sum_to(gy * x1 / y, x1.shape)", "gy * x1 / y")], "xp.sum_to(g, x.shape)"),
        ("needs_input_grad ignored", [(" if self.needs_input_grad[1] else None", "")], "computed it anyway"),
        ("None always", [("xp.sum_to(gy * x1 / y, x1.shape) if self.needs_input_grad[1] else None", "None")],
         "gave no gradient of input 1"),
        ("sign", [("return gx0, gx1", "return -gx0, -gx1")], "the sign is flipped"),
        ("no gy", [("gy * x0 / y", "x0 / y"), ("gy * x1 / y", "x1 / y")], "gy is left out"),
        ("numpy in vjp", [("gy * x0 / y", "gy * x0 / np.hypot(x0, x1)")], "NumPy functions need arrays"),
        ("flags swapped", [("self.needs_input_grad[0]", "self.needs_input_grad[9]"), ("self.needs_input_grad[1]", "self.needs_input_grad[0]"),
                           ("self.needs_input_grad[9]", "self.needs_input_grad[1]")], "belongs to input i"),
    ],
    ("08", 3): [
        ("no x", [("return x * F.sigmoid(x)", "return F.sigmoid(x)")], "the factor x is missing"),
        ("tanh", [("return x * F.sigmoid(x)", "return x * F.tanh(x)")], "not tanh"),
        ("sigmoid(-x)", [("return x * F.sigmoid(x)", "return x * F.sigmoid(-x)")], "not sigmoid(-x)"),
        ("added", [("return x * F.sigmoid(x)", "return x + F.sigmoid(x)")], "don't add"),
        ("numpy", [("return x * F.sigmoid(x)", "return x / (1 + np.exp(-x))")], "NumPy functions need arrays"),
        ("ndarray", [("return x * F.sigmoid(x)", "return x.data / (1 + np.exp(-x.data))")], "returned a ndarray, not a Variable"),
        ("no return (a trial's)", [("return x * F.sigmoid(x)", "y = x * F.sigmoid(x)")], "did you forget `return`"),
        (
            "the sigmoid on x.data (a trial's)",
            [("return x * F.sigmoid(x)", "return x * Variable(1 / (1 + np.exp(-x.data)))")],
            "the sigmoid factor is a constant to autograd",
        ),
        ("re-wrapped (blind trial)", [("return x * F.sigmoid(x)", "return Variable(x.data / (1 + np.exp(-x.data)))")],
         "cuts the graph"),
        ("new Function", [("return x * F.sigmoid(x)", "return _Swish()(x)\n\n\nclass _Swish(Function):\n"
                           "    def forward(self, x):\n        return x / (1 + np.exp(-x))\n\n"
                           "    def backward(self, gy):\n        (x,) = self.inputs\n        s = F.sigmoid(x)\n"
                           "        return gy * (s + x * s * (1 - s))\n")], "not from a new Function"),
    ],
    # -- 09 -----------------------------------------------------------------------------
    ("09", 1): [
        ("sign", [("p.data -= lr * p.grad.data", "p.data += lr * p.grad.data")], "downhill"),
        ("no lr", [("p.data -= lr * p.grad.data", "p.data -= p.grad.data")], "learning rate lr"),
        (
            "not in place",
            [("p.data -= lr * p.grad.data", "p.data = p.data - lr * p.grad.data")],
            "in place",
        ),
        ("no clear", [("        p.clear_grad()\n", "")], "clear each gradient"),
        (
            "no skip",
            [("        if p.grad is None:\n            continue\n", "")],
            "skip a parameter without a gradient",
        ),
        (
            "Variable grad",
            [("p.data -= lr * p.grad.data", "p.data -= lr * p.grad")],
            "this is a Variable",
        ),
        (
            "stops early",
            [("        p.clear_grad()\n", "        p.clear_grad()\n        return\n")],
            "loop stop early",
        ),
        (
            "updates grad",
            [("p.data -= lr * p.grad.data", "p.grad.data -= lr * p.data")],
            "p1 did not move",
        ),
        (
            "weight decay",
            [("p.data -= lr * p.grad.data", "p.data -= lr * p.data")],
            "not the value",
        ),
    ],
    ("09", 2): [
        (
            "no tanh",
            [("return self.l2(F.tanh(self.l1(x)))", "return self.l2(self.l1(x))")],
            "apply tanh between the two layers",
        ),
        (
            "tanh last",
            [("return self.l2(F.tanh(self.l1(x)))", "return F.tanh(self.l2(self.l1(x)))")],
            "not after the last one",
        ),
        ("sigmoid", [("F.tanh(self.l1(x))", "F.sigmoid(self.l1(x))")], "not sigmoid"),
        ("relu", [("F.tanh(self.l1(x))", "F.relu(self.l1(x))")], "not ReLU"),
        (
            "np.tanh",
            [("F.tanh(self.l1(x))", "np.tanh(self.l1(x))")],
            "NumPy functions need arrays",
        ),
        (".data", [("F.tanh(self.l1(x))", "F.tanh(self.l1(x)).data")], "the graph is cut"),
        (
            "names",
            [
                (
                    "self.l1 = nn.Linear(n_in, hidden)\n        self.l2 = nn.Linear(hidden, n_out)",
                    "self.first = nn.Linear(n_in, hidden)\n        self.l2 = nn.Linear(hidden, n_out)"
                    "\n        self.l1 = self.first",
                )
            ],
            "store the layers as self.l1 and self.l2",
        ),
        (
            "list",
            [
                (
                    "self.l1 = nn.Linear(n_in, hidden)\n        self.l2 = nn.Linear(hidden, n_out)",
                    "self.layers = [nn.Linear(n_in, hidden), nn.Linear(hidden, n_out)]\n"
                    "        self.l1, self.l2 = self.layers",
                )
            ],
            "a plain list …; use self.layers = nn.ModuleList",
        ),
        (
            "sizes",
            [("self.l1 = nn.Linear(n_in, hidden)", "self.l1 = nn.Linear(hidden, n_in)")],
            "the shapes do not chain",
        ),
        (
            "order",
            [("return self.l2(F.tanh(self.l1(x)))", "return self.l1(F.tanh(self.l2(x)))")],
            "the shapes do not chain",
        ),
    ],
    ("09", 3): [
        (
            "no zero_grad",
            [
                (
                    "history = fit(trained, optim.Adam(trained.parameters(), lr=0.05), 1500)",
                    "opt = optim.Adam(trained.parameters(), lr=0.05)\nhistory = []\n"
                    "for _ in range(1500):\n    loss = F.mean_squared_error(trained(xs), ys)\n"
                    "    loss.backward()\n    opt.step()\n    history.append(loss.item())",
                )
            ],
            "zero_grad",
        ),
        ("too short", [("lr=0.05), 1500)", "lr=0.05), 20)")], "train longer"),
        (
            "Adam, lr too large (a trial's): fell, then rose",
            [("lr=0.05), 1500)", "lr=5.0), 1500)")],
            "the learning rate is too large",
        ),
        (
            "a history of Variables (a trial's)",
            [
                (
                    "history = fit(trained, optim.Adam(trained.parameters(), lr=0.05), 1500)",
                    "opt = optim.Adam(trained.parameters(), lr=0.05)\nhistory = []\n"
                    "for _ in range(1500):\n    loss = F.mean_squared_error(trained(xs), ys)\n"
                    "    opt.zero_grad()\n    loss.backward()\n    opt.step()\n"
                    "    history.append(loss)",
                )
            ],
            "history.append(loss.item())",
        ),
        (
            "SGD, lr too large (blind trial)",
            [("optim.Adam(trained.parameters(), lr=0.05), 1500)",
              "optim.SGD(trained.parameters(), lr=5.0), 300)")],
            "the learning rate is too large",
        ),
        ("tiny lr", [("lr=0.05), 1500)", "lr=1e-5), 1500)")], "larger learning rate"),
        (
            "other model",
            [("optim.Adam(trained.parameters()", "optim.Adam(Net(1, 10, 1).parameters()")],
            "never changed",
        ),
        (
            "last loss only",
            [("lr=0.05), 1500)\n", "lr=0.05), 1500)[-1:]\n")],
            "loss of every step",
        ),
        (
            "untrained",
            [
                (
                    "history = fit(trained, optim.Adam(trained.parameters(), lr=0.05), 1500)",
                    "history = fit(Net(1, 10, 1), optim.Adam(trained.parameters(), lr=0.05), 2)",
                )
            ],
            "never changed",
        ),
    ],
    ("09", 4): [
        (
            "sub-modules registered but not yielded (a trial's)",
            [("        for module in self._modules.values():\n            yield from module.parameters()\n", "")],
            "the sub-modules are in self._modules",
        ),
        (
            "setattr recursion",
            [
                (
                    "        object.__setattr__(self, name, value)\n        ### END",
                    "        setattr(self, name, value)\n        ### END",
                )
            ],
            "calls itself without end",
        ),
        (
            "no set",
            [
                (
                    "        object.__setattr__(self, name, value)\n        ### END",
                    "        ### END",
                )
            ],
            "the attributes themselves are missing",
        ),
        (
            "Variable",
            [("if isinstance(value, Parameter):", "if isinstance(value, Variable):")],
            "only the Parameters W and b should be registered",
        ),
        (
            "keys",
            [("yield from self._params.values()", "yield from self._params")],
            "iterating over a dict gives its keys",
        ),
        (
            "into _modules",
            [
                (
                    "if isinstance(value, Parameter):\n            self._params[name] = value",
                    "if isinstance(value, Parameter):\n            self._modules[name] = value",
                )
            ],
            "a Parameter was stored there",
        ),
        (
            "no submodules",
            [
                (
                    "        elif isinstance(value, MyModule):\n            self._modules[name] = value\n",
                    "",
                )
            ],
            "register sub-modules too",
        ),
        (
            "no pop",
            [
                (
                    "        self._params.pop(name, None)\n        self._modules.pop(name, None)\n",
                    "",
                )
            ],
            "should unregister W",
        ),
        (
            "order",
            [
                (
                    "        yield from self._params.values()\n        for module in self._modules.values():\n"
                    "            yield from module.parameters()",
                    "        for module in self._modules.values():\n            yield from module.parameters()\n"
                    "        yield from self._params.values()",
                )
            ],
            "order: first the module's own",
        ),
        (
            "yield module",
            [("            yield from module.parameters()", "            yield module")],
            "yielded a sub-module itself",
        ),
        (
            "list registry",
            [("self._params[name] = value", "self._params[len(self._params)] = value")],
            "key the registry by the attribute's name",
        ),
    ],
    ("09", 5): [
        (
            "true division",
            [
                (
                    "return n // self.batch_size if self.drop_last else -(-n // self.batch_size)",
                    "return n / self.batch_size",
                )
            ],
            "a count must be an int",
        ),
        (
            "same order",
            [("self.rng.permutation(n) if", "np.random.default_rng(0).permutation(n) if")],
            "both epochs had the same order",
        ),
        (
            "integers",
            [("self.rng.permutation(n) if", "self.rng.integers(0, n, n) if")],
            "exactly once (a permutation)",
        ),
        (
            "always shuffle",
            [
                (
                    "order = self.rng.permutation(n) if self.shuffle else np.arange(n)",
                    "order = self.rng.permutation(n)",
                )
            ],
            "with shuffle=False the batches should follow",
        ),
        (
            "drop_last ignored",
            [
                (
                    "return n // self.batch_size if self.drop_last else -(-n // self.batch_size)",
                    "return -(-n // self.batch_size)",
                )
            ],
            "drop_last=True should drop",
        ),
        (
            "always drop",
            [
                (
                    "return n // self.batch_size if self.drop_last else -(-n // self.batch_size)",
                    "return n // self.batch_size",
                )
            ],
            "keep the last, smaller batch",
        ),
        (
            "one short",
            [("(i + 1) * self.batch_size]", "(i + 1) * self.batch_size - 1]")],
            "each batch is one short",
        ),
        (
            "x and t apart",
            [("yield self.x[idx], self.t[idx]", "yield self.x[idx], self.t[np.sort(idx)]")],
            "no longer belong together",
        ),
        (
            "seed ignored",
            [("np.random.default_rng(seed)", "np.random.default_rng()")],
            "same seed should give the same order",
        ),
    ],
    # -- 10 -----------------------------------------------------------------------------
    ("10", 1): [
        (
            "the minimum subtracted (a trial's)",
            [("z - z.max(axis=1, keepdims=True)", "z - z.min(axis=1, keepdims=True)")],
            "not its minimum or mean",
        ),
        (
            "the maximum subtracted without keepdims (a trial's)",
            [("z - z.max(axis=1, keepdims=True)", "z - z.max(axis=1)")],
            "z.max(axis=1) has shape (N,), which is subtracted from the columns",
        ),
        (
            "the scores changed in place (a trial's)",
            [
                (
                    "e = np.exp(z - z.max(axis=1, keepdims=True))",
                    "z -= z.max(axis=1, keepdims=True)\n    e = np.exp(z)",
                )
            ],
            "changed its input z in place",
        ),
        (
            "no shift",
            [("np.exp(z - z.max(axis=1, keepdims=True))", "np.exp(z)")],
            "subtract each row's maximum",
        ),
        (
            "divides by the scores' sum",
            [("e / e.sum(axis=1, keepdims=True)", "e / z.sum(axis=1, keepdims=True)")],
            "each row should sum to 1: divide e by the sum of e over the row",
        ),
        (
            "divides by the sum of exp(z)",
            [("e / e.sum(axis=1, keepdims=True)", "e / np.exp(z).sum(axis=1, keepdims=True)")],
            "subtract each row's maximum",
        ),
        (
            "sum of all",
            [("e / e.sum(axis=1, keepdims=True)", "e / e.sum()")],
            "normalise each row separately",
        ),
        (
            "axis 0",
            [("e / e.sum(axis=1, keepdims=True)", "e / e.sum(axis=0, keepdims=True)")],
            "each *row* is normalised",
        ),
        (
            "no keepdims",
            [("e / e.sum(axis=1, keepdims=True)", "e / e.sum(axis=1)")],
            "which divides the columns",
        ),
        (
            "no division",
            [("return e / e.sum(axis=1, keepdims=True)", "return e")],
            "must add up to 1",
        ),
        (
            "log-softmax",
            [
                (
                    "return e / e.sum(axis=1, keepdims=True)",
                    "return np.log(e / e.sum(axis=1, keepdims=True))",
                )
            ],
            "log-softmax",
        ),
        (
            "sign",
            [
                (
                    "np.exp(z - z.max(axis=1, keepdims=True))",
                    "np.exp(z.min(axis=1, keepdims=True) - z)",
                )
            ],
            "the sign",
        ),
        (
            "global max",
            [("z.max(axis=1, keepdims=True)", "z.max()")],
            "subtract each row's maximum",
        ),
        (
            "shape",
            [
                (
                    "return e / e.sum(axis=1, keepdims=True)",
                    "return (e / e.sum(axis=1, keepdims=True))[:, :2]",
                )
            ],
            "should have z's shape",
        ),
    ],
    ("10", 2): [
        ("sum", [(".mean())", ".sum())")], "take the mean"),
        (
            "the scores changed in place (a trial's)",
            [
                (
                    "shifted = z - z.max(axis=1, keepdims=True)",
                    "z -= z.max(axis=1, keepdims=True)\n    shifted = z",
                )
            ],
            "changed its input z in place",
        ),
        ("sign", [("return float(-log_p", "return float(log_p")], "a positive number"),
        (
            "every class",
            [("-log_p[np.arange(len(t)), t].mean()", "-log_p.mean()")],
            "averaged over every class",
        ),
        (
            "column index",
            [("-log_p[np.arange(len(t)), t].mean()", "-log_p[:, t].mean()")],
            "index rows and columns together",
        ),
        (
            "column 0",
            [("-log_p[np.arange(len(t)), t].mean()", "-log_p[np.arange(len(t)), 0].mean()")],
            "use each row's label t",
        ),
        (
            "max inside",
            [("np.log(np.exp(shifted).sum(", "np.log(np.exp(z).sum(")],
            "subtract the same maximum inside",
        ),
        (
            "unstable",
            [
                (
                    "log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))",
                    "p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)\n    log_p = np.log(p)",
                )
            ],
            "log-sum-exp form",
        ),
        (
            "probability",
            [
                (
                    "return float(-log_p[np.arange(len(t)), t].mean())",
                    "return float(-np.exp(log_p[np.arange(len(t)), t]).mean())",
                )
            ],
            "not -log p[label]",
        ),
    ],
    ("10", 3): [
        ("no step", [("        optimizer.step()\n", "")], "optimizer.step() never ran"),
        ("no backward", [("        loss.backward()\n", "")], "call loss.backward() before"),
        ("no zero_grad", [("        optimizer.zero_grad()\n", "")], "zero_grad() never ran"),
        (
            "zero between",
            [
                (
                    "        optimizer.zero_grad()\n        loss.backward()\n",
                    "        loss.backward()\n        optimizer.zero_grad()\n",
                )
            ],
            "between backward and step",
        ),
        (
            "sum",
            [("return float(np.mean(losses))", "return float(np.sum(losses))")],
            "not their sum",
        ),
        (
            "last",
            [("return float(np.mean(losses))", "return float(losses[-1])")],
            "the last batch's loss",
        ),
        (
            "Variable",
            [
                ("losses.append(loss.item())", "losses.append(loss)"),
                ("return float(np.mean(losses))", "return sum(losses) / len(losses)"),
            ],
            "return the mean loss as a float",
        ),
        (
            "step once",
            [
                ("        optimizer.step()\n", ""),
                (
                    "    return float(np.mean(losses))",
                    "    optimizer.step()\n    return float(np.mean(losses))",
                ),
            ],
            "steps for",
        ),
        (
            "step first",
            [
                (
                    "        optimizer.zero_grad()\n        loss.backward()\n        optimizer.step()\n",
                    "        optimizer.step()\n        optimizer.zero_grad()\n        loss.backward()\n",
                )
            ],
            "in that order",
        ),
    ],
    ("10", 4): [
        (
            "Variable grad",
            [
                (
                    "            v += p.grad.data\n            p.data -= self.lr * v",
                    "            v += p.grad.data\n            p.data -= self.lr * p.grad",
                )
            ],
            "this is a Variable",
        ),
        (
            "no momentum factor",
            [("            v *= self.momentum\n", "")],
            "the velocity only grows",
        ),
        (
            "rebinding",
            [
                (
                    "            v *= self.momentum\n            v += p.grad.data\n",
                    "            v = self.momentum * v + p.grad.data\n",
                )
            ],
            "rebinds a local name",
        ),
        ("sign", [("p.data -= self.lr * v", "p.data += self.lr * v")], "move uphill"),
        (
            "dampening",
            [("v += p.grad.data", "v += (1 - self.momentum) * p.grad.data")],
            "without a (1 - momentum) factor",
        ),
        (
            "momentum after",
            [
                (
                    "            v *= self.momentum\n            v += p.grad.data\n",
                    "            v += p.grad.data\n            v *= self.momentum\n",
                )
            ],
            "you multiplied the gradient too",
        ),
        ("no lr", [("p.data -= self.lr * v", "p.data -= v")], "lr times the velocity"),
        (
            "one buffer (also the blind trial's)",
            [
                (
                    "self.velocities = [np.zeros_like(p.data) for p in self.params]",
                    "self.velocities = [np.zeros_like(self.params[0].data)] * len(self.params)",
                )
            ],
            "one state array per parameter, of its shape: [np.zeros_like(p.data) for p in params] "
            "([a] * n is n times the same array)",
        ),
        (
            "lr in buffer",
            [
                (
                    "            v += p.grad.data\n            p.data -= self.lr * v",
                    "            v += self.lr * p.grad.data\n            p.data += v",
                )
            ],
            "move uphill",
        ),
    ],
    ("10", 5): [
        (
            "no correction",
            [
                (
                    "m_hat = m / (1 - beta1**self.t)\n            v_hat = v / (1 - beta2**self.t)",
                    "m_hat, v_hat = m, v",
                )
            ],
            "no bias correction",
        ),
        ("t never counted", [("        self.t += 1\n", "")], "count t up before using it"),
        (
            "no square",
            [("v += (1 - beta2) * g * g", "v += (1 - beta2) * g")],
            "square root of a negative",
        ),
        (
            "eps inside",
            [("np.sqrt(v_hat) + self.eps)", "np.sqrt(v_hat + self.eps))")],
            "eps goes outside the square root",
        ),
        (
            "off by one",
            [
                ("beta1**self.t)", "beta1 ** (self.t + 1))"),
                ("beta2**self.t)", "beta2 ** (self.t + 1))"),
            ],
            "should be 1 at the first step",
        ),
        (
            "v_hat only",
            [("m_hat = m / (1 - beta1**self.t)", "m_hat = m")],
            "only v is bias-corrected",
        ),
        (
            "m_hat only",
            [("v_hat = v / (1 - beta2**self.t)", "v_hat = v")],
            "only m is bias-corrected",
        ),
        (
            "t per parameter",
            [
                ("        self.t += 1\n", ""),
                (
                    "            g = p.grad.data\n",
                    "            self.t += 1\n            g = p.grad.data\n",
                ),
            ],
            "not the parameters",
        ),
        (
            "rebinding",
            [
                (
                    "            m *= beta1\n            m += (1 - beta1) * g\n            v *= beta2\n"
                    "            v += (1 - beta2) * g * g\n",
                    "            m = beta1 * m + (1 - beta1) * g\n            v = beta2 * v + (1 - beta2) * g * g\n",
                )
            ],
            "rebinds a local name",
        ),
        (
            "betas swapped",
            [("beta1, beta2 = self.betas", "beta2, beta1 = self.betas")],
            "beta1 = 0.9 goes with m",
        ),
        (
            "no sqrt",
            [("np.sqrt(v_hat) + self.eps)", "v_hat + self.eps)")],
            "divide by the square root",
        ),
        ("sign", [("p.data -= self.lr * m_hat", "p.data += self.lr * m_hat")], "move uphill"),
        (
            "t local",
            [
                ("        self.t += 1\n", "        t = 1\n"),
                ("beta1**self.t)", "beta1**t)"),
                ("beta2**self.t)", "beta2**t)"),
            ],
            "stays at 1",
        ),
    ],
    # -- 11 -----------------------------------------------------------------------------
    ("11", 1): [
        ("flipped", [("* w)", "* w[::-1, ::-1])")], "the filter is flipped"),
        ("rows flipped", [("* w)", "* w[::-1])")], "the filter's rows are flipped"),
        ("columns flipped", [("* w)", "* w[:, ::-1])")], "the filter's columns are flipped"),
        ("transposed filter", [("* w)", "* w.T)")], "the filter is transposed"),
        ("mean", [("out[i, j] = np.sum(", "out[i, j] = np.mean(")], "not its mean"),
        (
            "last window",
            [("x.shape[0] - k + 1, x.shape[1] - k + 1", "x.shape[0] - k, x.shape[1] - k")],
            "the last window is missing",
        ),
        ("transposed output", [("out[i, j] =", "out[j, i] =")], "the output is transposed"),
        (
            "window too big",
            [("x[i : i + k, j : j + k]", "x[i : i + k + 1, j : j + k + 1]")],
            "each window is x[i:i+K, j:j+K]",
        ),
        (
            "index slip",
            [("x[i : i + k, j : j + k]", "x[i : i + k, i : i + k]")],
            "the window of out[i, j]",
        ),
    ],
    ("11", 2): [
        ("true division", [("// stride + 1", "/ stride + 1")], "floor division"),
        (
            "one-sided padding",
            [("h + 2 * padding - k", "h + padding - k")],
            "the padding goes on both sides",
        ),
        ("no + 1", [("// stride + 1", "// stride")], "don't forget the + 1"),
        (
            "no stride",
            [("(h + 2 * padding - k) // stride + 1", "h + 2 * padding - k + 1")],
            "divide by the stride",
        ),
        (
            "padding subtracted",
            [("h + 2 * padding - k", "h - 2 * padding - k")],
            "H + 2P, not H - 2P",
        ),
        (
            "ceil",
            [("(h + 2 * padding - k) // stride + 1", "-(-(h + 2 * padding - k) // stride) + 1")],
            "round down",
        ),
        (
            "+1 inside",
            [("(h + 2 * padding - k) // stride + 1", "(h + 2 * padding - k + 1) // stride")],
            "the + 1 comes after the division",
        ),
        ("plus k", [("h + 2 * padding - k", "h + 2 * padding + k")], "subtract the filter size K"),
    ],
    ("11", 3): [
        (
            "order",
            [("col[:, :, i * ow + j] =", "col[:, :, j * oh + i] =")],
            "windows are in the wrong order",
        ),
        (
            "oh for ow",
            [("col[:, :, i * ow + j] =", "col[:, :, i * oh + j] =")],
            "an index runs past the end",
        ),
        (
            "slice swapped",
            [("x[:, :, i : i + k, j : j + k]", "x[:, :, j : j + k, i : i + k]")],
            "windows are in the wrong order",
        ),
        (
            "channels last",
            [(".reshape(n, -1)", ".transpose(0, 2, 3, 1).reshape(n, -1)")],
            "(channel, row, column) order",
        ),
        (
            "window transposed",
            [(".reshape(n, -1)", ".transpose(0, 1, 3, 2).reshape(n, -1)")],
            "(channel, row, column) order",
        ),
        (
            "last windows",
            [
                (
                    "    for i in range(oh):\n        for j in range(ow):",
                    "    for i in range(oh - 1):\n        for j in range(ow - 1):",
                )
            ],
            "the last row and column of windows are missing",
        ),
        (
            "shape off by one",
            [("oh, ow = h - k + 1, w - k + 1", "oh, ow = h - k, w - k")],
            "H_out = H - k + 1",
        ),
        (
            "flat reshape",
            [(".reshape(n, -1)", ".reshape(-1)")],
            "a window and a column do not fit",
        ),
        (
            "transposed layout",
            [
                (
                    "col = np.zeros((n, c * k * k, oh * ow))",
                    "col = np.zeros((n, oh * ow, c * k * k))",
                ),
                ("col[:, :, i * ow + j] =", "col[:, i * ow + j, :] ="),
            ],
            "the transpose of each image's matrix",
        ),
    ],
    ("11", 4): [
        ("overwrite", [("] += col", "] = col")], "must add up (+=), not overwrite"),
        (
            "reshape",
            [("    x = np.zeros(x_shape)\n", "    return col.reshape(x_shape)\n")],
            "col2im is not a reshape",
        ),
        (
            "order",
            [("col[:, :, i * ow + j]", "col[:, :, j * oh + i]")],
            "windows are in the wrong order",
        ),
        (
            "oh for ow",
            [("col[:, :, i * ow + j]", "col[:, :, i * oh + j]")],
            "an index runs past the end",
        ),
        (
            "slice swapped",
            [("x[:, :, i : i + k, j : j + k]", "x[:, :, j : j + k, i : i + k]")],
            "windows are in the wrong order",
        ),
        (
            "channels last",
            [(".reshape(n, c, k, k)", ".reshape(n, k, k, c).transpose(0, 3, 1, 2)")],
            "(channel, row, column) order",
        ),
        (
            "last windows",
            [
                (
                    "    for i in range(oh):\n        for j in range(ow):",
                    "    for i in range(oh - 1):\n        for j in range(ow - 1):",
                )
            ],
            "the last row and column of windows are missing",
        ),
        (
            "averaged",
            [
                (
                    "    return x\n",
                    "    return x / col2im_counts(x_shape, k)\n\n\n"
                    "def col2im_counts(x_shape, k):\n    n, c, h, w = x_shape\n    counts = np.zeros(x_shape)\n"
                    "    for i in range(h - k + 1):\n        for j in range(w - k + 1):\n"
                    "            counts[:, :, i : i + k, j : j + k] += 1\n    return counts\n",
                )
            ],
            "do not divide",
        ),
    ],
    ("11", 5): [
        (
            "channels read last (blind trial)",
            [("return y.reshape(n, W.shape[0], h_out, w_out)",
              "return y.reshape(n, h_out, w_out, W.shape[0]).transpose(0, 3, 1, 2)")],
            "reshape it to (N, C_out, H_out, W_out), channels first",
        ),
        (
            "first image",
            [
                (
                    "F.sum(gy2 @ F.transpose(col, (0, 2, 1)), axis=0)",
                    "(gy2 @ F.transpose(col, (0, 2, 1)))[0]",
                )
            ],
            "summed over the batch",
        ),
        (
            "mean",
            [
                (
                    "F.sum(gy2 @ F.transpose(col, (0, 2, 1)), axis=0)",
                    "F.mean(gy2 @ F.transpose(col, (0, 2, 1)), axis=0)",
                )
            ],
            "not the mean",
        ),
        (
            "transposed",
            [
                (
                    "F.sum(gy2 @ F.transpose(col, (0, 2, 1)), axis=0)",
                    "F.sum(col @ F.transpose(gy2, (0, 2, 1)), axis=0)",
                )
            ],
            "transposed before the reshape",
        ),
        (
            "no fold",
            [("gx = F.col2im(W2.T @ gy2, x.shape[2:], self.k)", "gx = W2.T @ gy2")],
            "fold it back with",
        ),
        (
            "no batch sum",
            [
                (
                    "F.sum(gy2 @ F.transpose(col, (0, 2, 1)), axis=0)",
                    "gy2 @ F.transpose(col, (0, 2, 1))",
                )
            ],
            "a shape does not fit",
        ),
        ("swapped", [("return gx, gW", "return gW, gx")], "the gradients are swapped"),
        ("sign", [("return gx, gW", "return -gx, -gW")], "the sign of gW is flipped"),
        ("gy ignored", [("gy2 = F.reshape(gy,", "gy2 = F.reshape(gy * 0 + 1,")], "gy is left out"),
        ("numpy sum", [("F.sum(gy2 @", "np.sum(gy2 @")], "NumPy functions need arrays"),
        (
            "forward order",
            [("y = W.reshape(W.shape[0], -1) @ col", "y = col @ W.reshape(W.shape[0], -1)")],
            "go on the left: W2 @ col",
        ),
    ],
    ("11", 6): [
        (
            "all four",
            [
                (
                    "mask[n, c, 2 * i + r, 2 * j + s] = 1.0",
                    "mask[n, c, 2 * i : 2 * i + 2, 2 * j : 2 * j + 2] = 1.0",
                )
            ],
            "only the maximum gets it",
        ),
        ("divmod swapped", [("r, s = divmod(", "s, r = divmod(")], "rows and columns are swapped"),
        (
            "no stride",
            [("mask[n, c, 2 * i + r, 2 * j + s]", "mask[n, c, i + r, j + s]")],
            "starts at row 2*i",
        ),
        (
            "average",
            [("return upsample(gy) * mask", "return upsample(gy) / 4")],
            "average pooling",
        ),
        ("mask only", [("return upsample(gy) * mask", "return mask")], "not 1"),
        (
            "sign",
            [("return upsample(gy) * mask", "return -upsample(gy) * mask")],
            "the sign is flipped",
        ),
        (
            "gy not upsampled",
            [("return upsample(gy) * mask", "return gy * mask")],
            "upsample(gy) has x's",
        ),
        (
            "mask too small",
            [("mask = np.zeros(x.shape)", "mask = np.zeros(self.argmax.shape)")],
            "the winner of window (i, j)",
        ),
        (
            "numpy upsample",
            [
                (
                    "return upsample(gy) * mask",
                    "return np.repeat(np.repeat(gy, 2, axis=2), 2, axis=3) * mask",
                )
            ],
            "NumPy functions need arrays",
        ),
    ],
    ("11", 7): [
        (
            "x.data cuts the graph (a trial's)",
            [("return F.tanh(x @ Wx.T + h @ Wh.T + b)",
              "return F.tanh(Variable(x.data @ Wx.data.T) + h @ Wh.T + b)")],
            "cut the graph",
        ),
        (
            "no bias",
            [("return F.tanh(x @ Wx.T + h @ Wh.T + b)", "return F.tanh(x @ Wx.T + h @ Wh.T)")],
            "the bias b is missing",
        ),
        ("sigmoid", [("return F.tanh(", "return F.sigmoid(")], "not sigmoid"),
        ("relu", [("return F.tanh(", "return F.relu(")], "not ReLU"),
        (
            "no tanh",
            [("return F.tanh(x @ Wx.T + h @ Wh.T + b)", "return x @ Wx.T + h @ Wh.T + b")],
            "the tanh is missing",
        ),
        (
            "no recurrence",
            [("return F.tanh(x @ Wx.T + h @ Wh.T + b)", "return F.tanh(x @ Wx.T + b)")],
            "the recurrent term",
        ),
        (
            "no input",
            [("return F.tanh(x @ Wx.T + h @ Wh.T + b)", "return F.tanh(h @ Wh.T + b)")],
            "the input term",
        ),
        ("Wh not transposed", [("h @ Wh.T", "h @ Wh")], "Wh is transposed"),
        (
            "bias outside",
            [("return F.tanh(x @ Wx.T + h @ Wh.T + b)", "return F.tanh(x @ Wx.T + h @ Wh.T) + b")],
            "the bias goes inside the tanh",
        ),
        ("Wx not transposed", [("x @ Wx.T", "x @ Wx")], "check the shapes"),
        ("numpy tanh", [("return F.tanh(", "return np.tanh(")], "NumPy functions need arrays"),
    ],
    ("11", 8): [
        ("input gate missing (a trial's)", [("f * c + i * g", "f * c + g")], "the input gate i is missing"),
        (
            "results swapped (a trial's)",
            [("return o * F.tanh(c_new), c_new", "return c_new, o * F.tanh(c_new)")],
            "the two results are swapped",
        ),
        (
            "numpy tanh",
            [("g = F.tanh(z[:, 2 * H : 3 * H])", "g = np.tanh(z[:, 2 * H : 3 * H])")],
            "NumPy functions need arrays",
        ),
        (
            "old cell",
            [("return o * F.tanh(c_new), c_new", "return o * F.tanh(c), c_new")],
            "the *new* cell",
        ),
        (
            "i f swapped",
            [("c_new = f * c + i * g", "c_new = i * c + f * g")],
            "gates are in the order f, i, g, o",
        ),
        (
            "one value",
            [("return o * F.tanh(c_new), c_new", "return o * F.tanh(c_new)")],
            "two values",
        ),
        (
            "graph cut",
            [("z = x @ W.T + h @ U.T + b", "z = (x @ W.T + h @ U.T + b).data")],
            "cut the graph",
        ),
        (
            "H wrong",
            [("    H = h.shape[1]", "    H = h.shape[0]")],
            "H = h.shape[1], the state size",
        ),
        (
            "g sigmoid",
            [("g = F.tanh(z[:, 2 * H : 3 * H])", "g = F.sigmoid(z[:, 2 * H : 3 * H])")],
            "the candidate gate g uses sigmoid",
        ),
        (
            "o tanh",
            [("o = F.sigmoid(z[:, 3 * H : 4 * H])", "o = F.tanh(z[:, 3 * H : 4 * H])")],
            "the output gate o uses tanh",
        ),
        (
            "order ifog",
            [
                ("g = F.tanh(z[:, 2 * H : 3 * H])", "g = F.tanh(z[:, 3 * H : 4 * H])"),
                ("o = F.sigmoid(z[:, 3 * H : 4 * H])", "o = F.sigmoid(z[:, 2 * H : 3 * H])"),
            ],
            "gates are in the order i, f, o, g",
        ),
        (
            "no tanh in h",
            [("return o * F.tanh(c_new), c_new", "return o * c_new, c_new")],
            "the tanh is missing",
        ),
        (
            "no output gate",
            [("return o * F.tanh(c_new), c_new", "return F.tanh(c_new), c_new")],
            "the output gate o is missing",
        ),
    ],
    ("11", 9): [
        (
            "a parameter without a gradient (a trial's)",
            [("grads = [p for p in params if p.grad is not None]", "grads = list(params)")],
            "has p.grad None",
        ),
        (
            "clipped norm",
            [("    return norm", "    return min(norm, max_norm)")],
            "the norm *before* clipping",
        ),
        (
            "ndarray grad",
            [
                (
                    "p.grad = Variable(p.grad.data * (max_norm / norm))",
                    "p.grad = p.grad.data * (max_norm / norm)",
                )
            ],
            "a gradient is a Variable",
        ),
        (
            "per parameter",
            [
                (
                    "    norm = float(np.sqrt(sum(np.sum(p.grad.data**2) for p in grads)))\n    if norm > max_norm:\n"
                    "        for p in grads:\n            p.grad = Variable(p.grad.data * (max_norm / norm))\n",
                    "    norm = float(np.sqrt(sum(np.sum(p.grad.data**2) for p in grads)))\n    for p in grads:\n"
                    "        own = float(np.sqrt(np.sum(p.grad.data**2)))\n        if own > max_norm:\n"
                    "            p.grad = Variable(p.grad.data * (max_norm / own))\n",
                )
            ],
            "clipped by its own norm",
        ),
        (
            "always",
            [
                (
                    "    if norm > max_norm:\n        for p in grads:\n            p.grad",
                    "    if True:\n        for p in grads:\n            p.grad",
                )
            ],
            "leave the gradients alone",
        ),
        (
            "no sqrt",
            [
                (
                    "float(np.sqrt(sum(np.sum(p.grad.data**2) for p in grads)))",
                    "float(sum(np.sum(p.grad.data**2) for p in grads))",
                )
            ],
            "the square root of the sum of squares",
        ),
        ("inverted", [("(max_norm / norm)", "(norm / max_norm)")], "the scale is inverted"),
        (
            "L1",
            [
                (
                    "float(np.sqrt(sum(np.sum(p.grad.data**2) for p in grads)))",
                    "float(sum(np.sum(np.abs(p.grad.data)) for p in grads))",
                )
            ],
            "not the sum of absolute values",
        ),
        (
            "values clipped",
            [
                (
                    "p.grad = Variable(p.grad.data * (max_norm / norm))",
                    "p.grad = Variable(np.clip(p.grad.data, -max_norm, max_norm))",
                )
            ],
            "clip the norm, not each value",
        ),
        (
            "largest",
            [
                (
                    "float(np.sqrt(sum(np.sum(p.grad.data**2) for p in grads)))",
                    "max(float(np.sqrt(np.sum(p.grad.data**2))) for p in grads)",
                )
            ],
            "not the largest one's",
        ),
    ],
    # -- 12 -----------------------------------------------------------------------------
    ("12", 1): [
        ("tx * y (blind trial)", [("return tx * F.tanh(xs[0])", "return tx * y")], "the tangent times the output"),
        ("sign", [("return tx * F.tanh(xs[0])", "return -tx * F.tanh(xs[0])")], "the sign is flipped"),
        ("no tx", [("return tx * F.tanh(xs[0])", "return F.tanh(xs[0])")], "the tangent tx is left out"),
        ("tanh(y)", [("return tx * F.tanh(xs[0])", "return tx * F.tanh(y)")], "tanh of the *input* x"),
        ("second derivative", [("return tx * F.tanh(xs[0])", "return tx * (1 - F.tanh(xs[0]) ** 2)")],
         "that is 1 - tanh(x)**2"),
        ("tx alone", [("return tx * F.tanh(xs[0])", "return tx")], "the tangent tx itself"),
        ("cosh", [("return tx * F.tanh(xs[0])", "return tx * (F.exp(xs[0]) + F.exp(-xs[0])) / 2")], "that is cosh(x) * tx"),
        ("numpy on data", [("return tx * F.tanh(xs[0])", "return tx * np.tanh(xs[0].data)")], "so that it nests"),
        ("numpy", [("return tx * F.tanh(xs[0])", "return tx * np.tanh(xs[0])")], "NumPy functions need arrays"),
    ],
    ("12", 2): [
        (
            "jacfwd",
            [(CELL, "def jacobian_by_columns(f, x):\n    return mf.jacfwd(f)(x).data\n")],
            "used mf.jacfwd",
        ),
        (
            "jacrev",
            [(CELL, "def jacobian_by_columns(f, x):\n    return mf.jacrev(f)(x).data\n")],
            "used mf.jacrev",
        ),
        ("rows", [("np.stack(columns, axis=1)", "np.stack(columns, axis=0)")], "stacked as rows"),
        ("ones", [("(np.eye(x.size)[j],)", "(np.ones(x.size),)")], "every column is the same"),
        (
            "vjp",
            [
                (
                    CELL,
                    "def jacobian_by_columns(f, x):\n    out, back = mf.vjp(f, x)\n"
                    "    return np.stack([back(e)[0].data for e in np.eye(out.size)])\n",
                )
            ],
            "a vjp gives a *row*",
        ),
        (
            "one short",
            [("for j in range(x.size):", "for j in range(x.size - 1):")],
            "one column too few",
        ),
        (
            "probe",
            [("    columns = []\n", "    columns = []\n    f(x)\n")],
            "2 forward passes suffice",
        ),
        (
            "flat",
            [("np.stack(columns, axis=1)", "np.concatenate(columns)")],
            "stack the columns into a matrix",
        ),
    ],
    ("12", 3): [
        ("swapped", [("if x.size <= m:", "if x.size > m:")], "the modes are swapped"),
        ("< for <= (a trial's)", [("if x.size <= m:", "if x.size < m:")], "compare with <=, not <"),
        (
            "always forward",
            [("if x.size <= m:", "if True:")],
            "for the wide Jacobian use reverse mode",
        ),
        (
            "always reverse",
            [("if x.size <= m:", "if False:")],
            "for the tall Jacobian use forward mode",
        ),
        ("two probes", [("m = f(x).size", "m = f(x).size + 0 * f(x).size")], "f ran"),
        (
            "both",
            [
                (
                    "    if x.size <= m:\n        return mf.jacfwd(f)(x).data\n    return mf.jacrev(f)(x).data",
                    "    a, b = mf.jacfwd(f)(x).data, mf.jacrev(f)(x).data\n    return a if x.size <= m else b",
                )
            ],
            "ran both modes",
        ),
        (
            "no mode",
            [
                (
                    "    if x.size <= m:\n        return mf.jacfwd(f)(x).data\n    return mf.jacrev(f)(x).data",
                    "    return np.stack([mf.jvp(f, (x,), (e,))[1].data for e in np.eye(x.size)], axis=1)",
                )
            ],
            "called neither mf.jacfwd nor mf.jacrev",
        ),
    ],
    ("12", 4): [
        (
            "hessian",
            [
                (
                    "    _, Hv = mf.jvp(mf.grad(f), (x,), (v,))\n    return Hv.data",
                    "    return mf.hessian(f)(x).data @ v",
                )
            ],
            "built the whole Hessian",
        ),
        ("gradient", [("_, Hv = mf.jvp", "Hv, _ = mf.jvp")], "that is the gradient of f"),
        (
            "g dot v",
            [
                (
                    "    _, Hv = mf.jvp(mf.grad(f), (x,), (v,))\n    return Hv.data",
                    "    return mf.grad(f)(x).data @ v",
                )
            ],
            "the gradient in the direction v",
        ),
        (
            "no direction",
            [("(x,), (v,))", "(x,), (np.ones(x.size),))")],
            "the direction v is left out",
        ),
        ("sign", [("return Hv.data", "return -Hv.data")], "the sign is flipped"),
        (
            "finite differences",
            [
                (
                    "    _, Hv = mf.jvp(mf.grad(f), (x,), (v,))\n    return Hv.data",
                    "    g = mf.grad(f)\n    return (g(x + 1e-6 * v).data - g(x - 1e-6 * v).data) / 2e-6",
                )
            ],
            "no finite differences",
        ),
    ],
    # -- 13 -----------------------------------------------------------------------------
    ("13", 1): [
        (
            "forward on Tensors",
            [
                (
                    "f.output = Tensor(f.forward(*[x.data for x in inputs]), creator=f)",
                    "f.output = Tensor(f.forward(*inputs), creator=f)",
                )
            ],
            "give f.forward their arrays",
        ),
        (
            "no wrap",
            [("    inputs = [x if isinstance(x, Tensor) else Tensor(x) for x in inputs]\n", "")],
            "should be wrapped in a Tensor",
        ),
        (
            "wrap all",
            [
                (
                    "inputs = [x if isinstance(x, Tensor) else Tensor(x) for x in inputs]",
                    "inputs = [Tensor(x) for x in inputs]",
                )
            ],
            "wrap only the inputs that are not Tensors",
        ),
        ("no creator", [(", creator=f)", ")")], "the output's creator should be f"),
        (
            "returns array",
            [("    return f.output", "    return f.output.data")],
            "call should return a Tensor",
        ),
        (
            "output not stored",
            [
                (
                    "    f.output = Tensor(f.forward(*[x.data for x in inputs]), creator=f)\n    return f.output",
                    "    out = Tensor(f.forward(*[x.data for x in inputs]), creator=f)\n    return out",
                )
            ],
            "store the output on the Function too",
        ),
        (
            "inputs not stored",
            [("    f.inputs = inputs\n", "")],
            "f.inputs should be the list of input Tensors",
        ),
        (
            "arrays stored",
            [("    f.inputs = inputs\n", "    f.inputs = [x.data for x in inputs]\n")],
            "f.inputs should be the list of input Tensors",
        ),
    ],
    ("13", 2): [
        (
            "overwrite",
            [("x.grad = g if x.grad is None else x.grad + g", "x.grad = g")],
            "*add* its gradients",
        ),
        (
            "not reversed",
            [("    for f in reversed(order):", "    for f in order:")],
            "before its output's gradient",
        ),
        (
            "y.grad for all",
            [("        grads = f.backward(f.output.grad)", "        grads = f.backward(y.grad)")],
            "of *its own* output",
        ),
        ("no seed", [("    y.grad = np.ones_like(y.data)\n", "")], "y.grad was never set"),
        (
            "no seen check",
            [("if f is None or id(f) in seen:", "if f is None:")],
            "ran more than once",
        ),
        ("no seen add", [("        seen.add(id(f))\n", "")], "ran more than once"),
        (
            "preorder",
            [
                (
                    "        seen.add(id(f))\n        for x in f.inputs:\n            visit(x.creator)\n        order.append(f)",
                    "        seen.add(id(f))\n        order.append(f)\n        for x in f.inputs:\n            visit(x.creator)",
                )
            ],
            "before its output's gradient",
        ),
        (
            "zip reversed",
            [("zip(f.inputs, grads)", "zip(reversed(f.inputs), grads)")],
            "pair the gradients with the inputs",
        ),
        (
            "only y's creator",
            [("            visit(x.creator)\n", "            pass\n")],
            "never ran their backward",
        ),
    ],
    ("13", 3): [
        ("x >= 0 (blind trial)", [("return gy * (x > 0)", "return gy * (x >= 0)")], "the mask is x > 0, not x >= 0"),
        (
            "x.T @ gy",
            [
                (
                    "return gy @ W, gy.T @ x, gy.sum(axis=0)",
                    "return gy @ W, x.T @ gy, gy.sum(axis=0)",
                )
            ],
            "g_W = gy.T @ x",
        ),
        (
            "b not summed",
            [("return gy @ W, gy.T @ x, gy.sum(axis=0)", "return gy @ W, gy.T @ x, gy")],
            "sum gy over axis 0",
        ),
        (
            "W.T",
            [
                (
                    "return gy @ W, gy.T @ x, gy.sum(axis=0)",
                    "return gy @ W.T, gy.T @ x, gy.sum(axis=0)",
                )
            ],
            "check the shapes of the product",
        ),
        ("b mean", [("gy.sum(axis=0)", "gy.mean(axis=0)")], "not the mean"),
        (
            "sign x",
            [
                (
                    "return gy @ W, gy.T @ x, gy.sum(axis=0)",
                    "return -gy @ W, gy.T @ x, gy.sum(axis=0)",
                )
            ],
            "the sign is flipped",
        ),
        (
            "order",
            [
                (
                    "return gy @ W, gy.T @ x, gy.sum(axis=0)",
                    "return gy.T @ x, gy @ W, gy.sum(axis=0)",
                )
            ],
            "in the wrong order",
        ),
        ("relu no gy", [("return gy * (x > 0)", "return (x > 0) * 1.0")], "multiply by gy"),
        ("relu mask flipped", [("return gy * (x > 0)", "return gy * (x < 0)")], "not where x < 0"),
        ("relu no mask", [("return gy * (x > 0)", "return gy")], "the mask is missing"),
        ("relu gy * x", [("return gy * (x > 0)", "return gy * x")], "that is gy * x"),
    ],
    ("13", 4): [
        (
            "unstable",
            [("        shifted = z - z.max(axis=1, keepdims=True)\n", "        shifted = z\n")],
            "subtract each row's maximum",
        ),
        ("no /N", [("return gy * grad / n", "return gy * grad")], "divide by N"),
        (
            "sum",
            [
                (
                    "-self.log_p[np.arange(len(z)), self.labels].mean()",
                    "-self.log_p[np.arange(len(z)), self.labels].sum()",
                )
            ],
            "take the mean",
        ),
        (
            "column index",
            [
                (
                    "-self.log_p[np.arange(len(z)), self.labels].mean()",
                    "-self.log_p[:, self.labels].mean()",
                )
            ],
            "index rows and columns",
        ),
        ("sign forward", [("return -self.log_p[", "return self.log_p[")], "a positive number"),
        (
            "gradient sign",
            [("return gy * grad / n", "return -gy * grad / n")],
            "the sign is flipped",
        ),
        (
            "no one-hot",
            [("        grad[np.arange(n), self.labels] -= 1.0\n", "")],
            "subtract the one-hot labels",
        ),
        ("no gy", [("return gy * grad / n", "return grad / n")], "multiply by the incoming gy"),
        (
            "not on self",
            [
                ("self.log_p = shifted", "log_p = shifted"),
                ("return -self.log_p[", "return -log_p["),
            ],
            "keep what backward needs on self",
        ),
        ("no exp", [("grad = np.exp(self.log_p)", "grad = self.log_p.copy()")], "exponentiate"),
        (
            "subtract all",
            [("grad[np.arange(n), self.labels] -= 1.0", "grad -= 1.0")],
            "subtract 1 only at each row's true class",
        ),
    ],
    ("13", 5): [
        (
            "setattr recursion",
            [
                (
                    "        object.__setattr__(self, name, value)\n        ### END",
                    "        setattr(self, name, value)\n        ### END",
                )
            ],
            "calls itself without end",
        ),
        (
            "no set",
            [
                (
                    "        object.__setattr__(self, name, value)\n        ### END",
                    "        ### END",
                )
            ],
            "the attributes themselves are missing",
        ),
        (
            "Tensor",
            [("if isinstance(value, Parameter):", "if isinstance(value, Tensor):")],
            "only the Parameters W and b should be registered",
        ),
        (
            "keys",
            [("yield from self._params.values()", "yield from self._params")],
            "iterating over a dict gives its keys",
        ),
        (
            "into _modules",
            [
                (
                    "if isinstance(value, Parameter):\n            self._params[name] = value",
                    "if isinstance(value, Parameter):\n            self._modules[name] = value",
                )
            ],
            "a Parameter was stored there",
        ),
        (
            "no submodules",
            [
                (
                    "        elif isinstance(value, Module):\n            self._modules[name] = value\n",
                    "",
                )
            ],
            "register sub-modules too",
        ),
        (
            "no pop",
            [
                (
                    "        self._params.pop(name, None)\n        self._modules.pop(name, None)\n",
                    "",
                )
            ],
            "should unregister W",
        ),
        (
            "yield module",
            [("            yield from module.parameters()", "            yield module")],
            "yielded a sub-module itself",
        ),
    ],
    ("13", 6): [
        (
            "p.grad.data",
            [("m += (1 - b1) * p.grad\n", "m += (1 - b1) * p.grad.data\n")],
            "use p.grad itself",
        ),
        (
            "no correction",
            [("m_hat, v_hat = m / (1 - b1**self.t), v / (1 - b2**self.t)", "m_hat, v_hat = m, v")],
            "no bias correction",
        ),
        (
            "off by one",
            [
                (
                    "m_hat, v_hat = m / (1 - b1**self.t), v / (1 - b2**self.t)",
                    "m_hat, v_hat = m / (1 - b1 ** (self.t + 1)), v / (1 - b2 ** (self.t + 1))",
                )
            ],
            "should be 1 at the first step",
        ),
        (
            "v_hat only",
            [
                (
                    "m_hat, v_hat = m / (1 - b1**self.t), v / (1 - b2**self.t)",
                    "m_hat, v_hat = m, v / (1 - b2**self.t)",
                )
            ],
            "only v is bias-corrected",
        ),
        (
            "m_hat only",
            [
                (
                    "m_hat, v_hat = m / (1 - b1**self.t), v / (1 - b2**self.t)",
                    "m_hat, v_hat = m / (1 - b1**self.t), v",
                )
            ],
            "only m is bias-corrected",
        ),
        (
            "t per parameter",
            [
                ("        self.t += 1\n", ""),
                ("            m *= b1\n", "            self.t += 1\n            m *= b1\n"),
            ],
            "not the parameters",
        ),
        (
            "rebinding",
            [
                (
                    "            m *= b1\n            m += (1 - b1) * p.grad\n            v *= b2\n            v += (1 - b2) * p.grad**2\n",
                    "            m = b1 * m + (1 - b1) * p.grad\n            v = b2 * v + (1 - b2) * p.grad**2\n",
                )
            ],
            "rebinds a local name",
        ),
        (
            "m alone rebound (blind trial)",
            [("            m *= b1\n            m += (1 - b1) * p.grad\n",
              "            m = b1 * m + (1 - b1) * p.grad\n")],
            "the stored m never changes",
        ),
        (
            "betas swapped",
            [("b1, b2 = self.betas", "b2, b1 = self.betas")],
            "beta1 = 0.9 goes with m",
        ),
        (
            "eps inside",
            [("np.sqrt(v_hat) + self.eps)", "np.sqrt(v_hat + self.eps))")],
            "eps goes outside",
        ),
        (
            "no square",
            [("v += (1 - b2) * p.grad**2", "v += (1 - b2) * np.abs(p.grad)")],
            "the *squared* gradient",
        ),
        ("sign", [("p.data -= self.lr", "p.data += self.lr")], "move uphill"),
    ],
    ("13", 7): [
        ("no zero_grad", [("        model.zero_grad()\n", "")], "model.zero_grad() never ran"),
        ("no step", [("        optimizer.step()\n", "")], "optimizer.step() never ran"),
        (
            "no backward",
            [("        loss.backward()\n", "")],
            "call loss.backward() for every batch",
        ),
        (
            "zero between",
            [
                (
                    "        model.zero_grad()\n        loss.backward()\n",
                    "        loss.backward()\n        model.zero_grad()\n",
                )
            ],
            "ran between loss.backward() and step",
        ),
        (
            "step first",
            [
                (
                    "        model.zero_grad()\n        loss.backward()\n        optimizer.step()\n",
                    "        optimizer.step()\n        model.zero_grad()\n        loss.backward()\n",
                )
            ],
            "ran before any loss.backward()",
        ),
        ("one epoch", [("for epoch in range(15):", "for epoch in range(1):")], "train longer"),
        (
            "wrong labels",
            [
                (
                    "SoftmaxCrossEntropy(tb)(model(xb))",
                    "SoftmaxCrossEntropy(np.zeros_like(tb))(model(xb))",
                )
            ],
            "that batch's labels",
        ),
    ],
    ("13", 8): [
        ("no zero_grad", [("    model.zero_grad()\n", "")], "call model.zero_grad() first"),
        (
            "params",
            [
                (
                    "return [p.grad for p in model.parameters()]",
                    "return [p for p in model.parameters()]",
                )
            ],
            "return its gradient, p.grad",
        ),
        (
            "generator",
            [
                (
                    "return [p.grad for p in model.parameters()]",
                    "return (p.grad for p in model.parameters())",
                )
            ],
            "return a list of the",
        ),
        (
            "reversed",
            [
                (
                    "return [p.grad for p in model.parameters()]",
                    "return [p.grad for p in model.parameters()][::-1]",
                )
            ],
            "in another order",
        ),
        (
            "first layer",
            [
                (
                    "return [p.grad for p in model.parameters()]",
                    "return [model.l1.W.grad, model.l1.b.grad]",
                )
            ],
            "one gradient per parameter",
        ),
        (
            "sign",
            [
                (
                    "return [p.grad for p in model.parameters()]",
                    "return [-p.grad for p in model.parameters()]",
                )
            ],
            "the wrong sign",
        ),
        (
            "no backward",
            [
                (
                    "    SoftmaxCrossEntropy(t)(model(x)).backward()\n",
                    "    SoftmaxCrossEntropy(t)(model(x))\n",
                )
            ],
            "a gradient is None",
        ),
    ],
}


def _params() -> list[object]:
    out = []
    for (prefix, k), entries in CATALOGUE.items():
        for label, edits, phrase in entries:
            out.append(pytest.param(prefix, k, edits, phrase, id=f"{prefix}-ex{k}-{label}"))
    return out


@pytest.mark.parametrize(("prefix", "k", "edits", "phrase"), _params())
def test_a_catalogued_mistake_is_named(
    prefix: str, k: int, edits: list[tuple[str, str]], phrase: str
) -> None:
    if edits and edits[0][0] == CELL:
        error = inprocess.solve_alone(prefix, k, replace=edits[0][1])
    else:
        error = inprocess.solve_alone(prefix, k, edits)
    assert error is not None, f"{prefix} exercise {k}: the mistake passed the check"
    message = str(error)
    assert isinstance(error, AssertionError), f"{type(error).__name__}: {message}"
    assert phrase in message, message
    others = {p for _, _, p in CATALOGUE[(prefix, k)] if p != phrase and p not in phrase}
    named = [p for p in others if p in message]
    assert not named, f"the message names another cause too ({named}): {message}"
    shown = inprocess.render(message)
    assert len(shown) <= 3, f"{len(shown)} lines: {shown}"


def test_the_catalogue_covers_eight_mistakes_per_exercise_on_average() -> None:
    exercises = {key: len(v) for key, v in CATALOGUE.items()}
    average = sum(exercises.values()) / len(exercises)
    assert average >= 8, exercises


@pytest.mark.parametrize("prefix", ["08", "09", "10", "11", "12", "13"])
def test_an_untouched_exercise_says_not_done_yet_without_a_traceback(prefix: str) -> None:
    """Every check of an untouched exercise: "not done yet", shown as its message alone."""
    import checks

    _, _, _, untouched = inprocess.student_run(prefix)
    for i, error in untouched.items():
        if error is None or "not done yet" not in str(error):
            continue  # a check that needs no stub of its own (checked elsewhere)
        assert isinstance(error, checks.NotDoneYet), f"cell {i}: {type(error).__name__}"
        shown = error._render_traceback_()  # what IPython prints instead of frames
        assert len(shown) <= 3 and "Traceback" not in "".join(shown), shown
    assert any(e is not None and "not done yet" in str(e) for e in untouched.values())


@pytest.mark.parametrize(
    ("prefix", "k", "old", "new"),
    [
        ("12", 2, "for j in range(x.size):", "for j in range(x.size)"),  # the def never ran
        ("08", 3, "def swish(x):", "def swish(x)"),
        ("13", 8, "def batch_gradients(model, x, t):", "def batch_gradients(model, x, t)"),
    ],
)
def test_a_syntax_error_in_the_answer_says_not_done_yet(
    prefix: str, k: int, old: str, new: str
) -> None:
    import checks

    error = inprocess.solve_alone(prefix, k, [(old, new)], past_the_answer=True)
    assert isinstance(error, checks.NotDoneYet), f"{type(error).__name__}: {error}"
    assert "not done yet" in str(error) and "not defined" in str(error), str(error)
    assert len(inprocess.render(str(error))) <= 3, inprocess.render(str(error))
