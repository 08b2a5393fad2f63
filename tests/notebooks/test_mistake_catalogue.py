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

# (notebook, exercise number) -> [(label, [(old, new), ...], phrase naming the mistake)]
Entry = tuple[str, list[tuple[str, str]], str]
CATALOGUE: dict[tuple[str, int], list[Entry]] = {
    # -- 09 -----------------------------------------------------------------------------
    ("09", 1): [
        ("sign", [("p.data -= lr * p.grad.data", "p.data += lr * p.grad.data")], "downhill"),
        ("no lr", [("p.data -= lr * p.grad.data", "p.data -= p.grad.data")], "learning rate lr"),
        ("not in place", [("p.data -= lr * p.grad.data", "p.data = p.data - lr * p.grad.data")],
         "in place"),
        ("no clear", [("        p.clear_grad()\n", "")], "clear each gradient"),
        ("no skip", [("        if p.grad is None:\n            continue\n", "")],
         "skip a parameter without a gradient"),
        ("Variable grad", [("p.data -= lr * p.grad.data", "p.data -= lr * p.grad")],
         "this is a Variable"),
        ("stops early", [("        p.clear_grad()\n", "        p.clear_grad()\n        return\n")],
         "loop stop early"),
        ("updates grad", [("p.data -= lr * p.grad.data", "p.grad.data -= lr * p.data")],
         "p1 did not move"),
        ("weight decay", [("p.data -= lr * p.grad.data", "p.data -= lr * p.data")],
         "not the value"),
    ],
    ("09", 2): [
        ("no tanh", [("return self.l2(F.tanh(self.l1(x)))", "return self.l2(self.l1(x))")],
         "apply tanh between the two layers"),
        ("tanh last", [("return self.l2(F.tanh(self.l1(x)))", "return F.tanh(self.l2(self.l1(x)))")],
         "not after the last one"),
        ("sigmoid", [("F.tanh(self.l1(x))", "F.sigmoid(self.l1(x))")], "not sigmoid"),
        ("relu", [("F.tanh(self.l1(x))", "F.relu(self.l1(x))")], "not ReLU"),
        ("np.tanh", [("F.tanh(self.l1(x))", "np.tanh(self.l1(x))")], "NumPy functions need arrays"),
        (".data", [("F.tanh(self.l1(x))", "F.tanh(self.l1(x)).data")], "the graph is cut"),
        ("names", [("self.l1 = nn.Linear(n_in, hidden)\n        self.l2 = nn.Linear(hidden, n_out)",
                    "self.first = nn.Linear(n_in, hidden)\n        self.l2 = nn.Linear(hidden, n_out)"
                    "\n        self.l1 = self.first")], "store the layers as self.l1 and self.l2"),
        ("list", [("self.l1 = nn.Linear(n_in, hidden)\n        self.l2 = nn.Linear(hidden, n_out)",
                   "self.layers = [nn.Linear(n_in, hidden), nn.Linear(hidden, n_out)]\n"
                   "        self.l1, self.l2 = self.layers")], "is not registered"),
        ("sizes", [("self.l1 = nn.Linear(n_in, hidden)", "self.l1 = nn.Linear(hidden, n_in)")],
         "the shapes do not chain"),
        ("order", [("return self.l2(F.tanh(self.l1(x)))", "return self.l1(F.tanh(self.l2(x)))")],
         "the shapes do not chain"),
    ],
    ("09", 3): [
        ("no zero_grad", [("history = fit(trained, optim.Adam(trained.parameters(), lr=0.05), 1500)",
                           "opt = optim.Adam(trained.parameters(), lr=0.05)\nhistory = []\n"
                           "for _ in range(1500):\n    loss = F.mean_squared_error(trained(xs), ys)\n"
                           "    loss.backward()\n    opt.step()\n    history.append(loss.item())")],
         "zero_grad"),
        ("too short", [("lr=0.05), 1500)", "lr=0.05), 20)")], "train longer"),
        ("tiny lr", [("lr=0.05), 1500)", "lr=1e-5), 1500)")], "larger learning rate"),
        ("other model", [("optim.Adam(trained.parameters()", "optim.Adam(Net(1, 10, 1).parameters()")],
         "never changed"),
        ("last loss only", [("lr=0.05), 1500)\n", "lr=0.05), 1500)[-1:]\n")], "loss of every step"),
        ("untrained", [("history = fit(trained, optim.Adam(trained.parameters(), lr=0.05), 1500)",
                        "history = fit(Net(1, 10, 1), optim.Adam(trained.parameters(), lr=0.05), 2)")],
         "never changed"),
    ],
    ("09", 4): [
        ("setattr recursion", [("        object.__setattr__(self, name, value)\n        ### END",
                                "        setattr(self, name, value)\n        ### END")],
         "calls itself without end"),
        ("no set", [("        object.__setattr__(self, name, value)\n        ### END", "        ### END")],
         "the attributes themselves are missing"),
        ("Variable", [("if isinstance(value, Parameter):", "if isinstance(value, Variable):")],
         "only the Parameters W and b should be registered"),
        ("keys", [("yield from self._params.values()", "yield from self._params")],
         "iterating over a dict gives its keys"),
        ("into _modules", [("if isinstance(value, Parameter):\n            self._params[name] = value",
                            "if isinstance(value, Parameter):\n            self._modules[name] = value")],
         "a Parameter was stored there"),
        ("no submodules", [("        elif isinstance(value, MyModule):\n            self._modules[name] = value\n", "")],
         "register sub-modules too"),
        ("no pop", [("        self._params.pop(name, None)\n        self._modules.pop(name, None)\n", "")],
         "should unregister W"),
        ("order", [("        yield from self._params.values()\n        for module in self._modules.values():\n"
                    "            yield from module.parameters()",
                    "        for module in self._modules.values():\n            yield from module.parameters()\n"
                    "        yield from self._params.values()")], "order: first the module's own"),
        ("yield module", [("            yield from module.parameters()", "            yield module")],
         "yielded a sub-module itself"),
        ("list registry", [("self._params[name] = value", "self._params[len(self._params)] = value")],
         "key the registry by the attribute's name"),
    ],
    ("09", 5): [
        ("true division", [("return n // self.batch_size if self.drop_last else -(-n // self.batch_size)",
                            "return n / self.batch_size")], "a count must be an int"),
        ("same order", [("self.rng.permutation(n) if", "np.random.default_rng(0).permutation(n) if")],
         "both epochs had the same order"),
        ("integers", [("self.rng.permutation(n) if", "self.rng.integers(0, n, n) if")],
         "exactly once (a permutation)"),
        ("always shuffle", [("order = self.rng.permutation(n) if self.shuffle else np.arange(n)",
                             "order = self.rng.permutation(n)")], "with shuffle=False the batches should follow"),
        ("drop_last ignored", [("return n // self.batch_size if self.drop_last else -(-n // self.batch_size)",
                                "return -(-n // self.batch_size)")], "drop_last=True should drop"),
        ("always drop", [("return n // self.batch_size if self.drop_last else -(-n // self.batch_size)",
                          "return n // self.batch_size")], "keep the last, smaller batch"),
        ("one short", [("(i + 1) * self.batch_size]", "(i + 1) * self.batch_size - 1]")],
         "each batch is one short"),
        ("x and t apart", [("yield self.x[idx], self.t[idx]", "yield self.x[idx], self.t[np.sort(idx)]")],
         "no longer belong together"),
        ("seed ignored", [("np.random.default_rng(seed)", "np.random.default_rng()")],
         "same seed should give the same order"),
    ],
    # -- 10 -----------------------------------------------------------------------------
    ("10", 1): [
        ("no shift", [("np.exp(z - z.max(axis=1, keepdims=True))", "np.exp(z)")],
         "subtract each row's maximum"),
        ("sum of all", [("e / e.sum(axis=1, keepdims=True)", "e / e.sum()")],
         "normalise each row separately"),
        ("axis 0", [("e / e.sum(axis=1, keepdims=True)", "e / e.sum(axis=0, keepdims=True)")],
         "each *row* is normalised"),
        ("no keepdims", [("e / e.sum(axis=1, keepdims=True)", "e / e.sum(axis=1)")],
         "which divides the columns"),
        ("no division", [("return e / e.sum(axis=1, keepdims=True)", "return e")],
         "must add up to 1"),
        ("log-softmax", [("return e / e.sum(axis=1, keepdims=True)",
                          "return np.log(e / e.sum(axis=1, keepdims=True))")], "log-softmax"),
        ("sign", [("np.exp(z - z.max(axis=1, keepdims=True))",
                   "np.exp(z.min(axis=1, keepdims=True) - z)")], "the sign"),
        ("global max", [("z.max(axis=1, keepdims=True)", "z.max()")], "subtract each row's maximum"),
        ("shape", [("return e / e.sum(axis=1, keepdims=True)",
                    "return (e / e.sum(axis=1, keepdims=True))[:, :2]")], "should have z's shape"),
    ],
    ("10", 2): [
        ("sum", [(".mean())", ".sum())")], "take the mean"),
        ("sign", [("return float(-log_p", "return float(log_p")], "a positive number"),
        ("every class", [("-log_p[np.arange(len(t)), t].mean()", "-log_p.mean()")],
         "averaged over every class"),
        ("column index", [("-log_p[np.arange(len(t)), t].mean()", "-log_p[:, t].mean()")],
         "index rows and columns together"),
        ("column 0", [("-log_p[np.arange(len(t)), t].mean()", "-log_p[np.arange(len(t)), 0].mean()")],
         "use each row's label t"),
        ("max inside", [("np.log(np.exp(shifted).sum(", "np.log(np.exp(z).sum(")],
         "subtract the same maximum inside"),
        ("unstable", [("log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))",
                       "p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)\n    log_p = np.log(p)")],
         "log-sum-exp form"),
        ("probability", [("return float(-log_p[np.arange(len(t)), t].mean())",
                          "return float(-np.exp(log_p[np.arange(len(t)), t]).mean())")],
         "not -log p[label]"),
    ],
    ("10", 3): [
        ("no step", [("        optimizer.step()\n", "")], "optimizer.step() never ran"),
        ("no backward", [("        loss.backward()\n", "")], "call loss.backward() before"),
        ("no zero_grad", [("        optimizer.zero_grad()\n", "")], "zero_grad() never ran"),
        ("zero between", [("        optimizer.zero_grad()\n        loss.backward()\n",
                           "        loss.backward()\n        optimizer.zero_grad()\n")],
         "between backward and step"),
        ("sum", [("return float(np.mean(losses))", "return float(np.sum(losses))")],
         "not their sum"),
        ("last", [("return float(np.mean(losses))", "return float(losses[-1])")],
         "the last batch's loss"),
        ("Variable", [("losses.append(loss.item())", "losses.append(loss)"),
                      ("return float(np.mean(losses))", "return sum(losses) / len(losses)")],
         "return the mean loss as a float"),
        ("step once", [("        optimizer.step()\n", ""),
                       ("    return float(np.mean(losses))", "    optimizer.step()\n    return float(np.mean(losses))")],
         "steps for"),
        ("step first", [("        optimizer.zero_grad()\n        loss.backward()\n        optimizer.step()\n",
                         "        optimizer.step()\n        optimizer.zero_grad()\n        loss.backward()\n")],
         "in that order"),
    ],
    ("10", 4): [
        ("Variable grad", [("            v += p.grad.data\n            p.data -= self.lr * v",
                            "            v += p.grad.data\n            p.data -= self.lr * p.grad")],
         "this is a Variable"),
        ("no momentum factor", [("            v *= self.momentum\n", "")], "the velocity only grows"),
        ("rebinding", [("            v *= self.momentum\n            v += p.grad.data\n",
                        "            v = self.momentum * v + p.grad.data\n")], "rebinds a local name"),
        ("sign", [("p.data -= self.lr * v", "p.data += self.lr * v")], "move uphill"),
        ("dampening", [("v += p.grad.data", "v += (1 - self.momentum) * p.grad.data")],
         "without a (1 - momentum) factor"),
        ("momentum after", [("            v *= self.momentum\n            v += p.grad.data\n",
                             "            v += p.grad.data\n            v *= self.momentum\n")],
         "you multiplied the gradient too"),
        ("no lr", [("p.data -= self.lr * v", "p.data -= v")], "lr times the velocity"),
        ("one buffer", [("self.velocities = [np.zeros_like(p.data) for p in self.params]",
                         "self.velocities = [np.zeros_like(self.params[0].data)] * len(self.params)")],
         "one state array per parameter"),
        ("lr in buffer", [("            v += p.grad.data\n            p.data -= self.lr * v",
                           "            v += self.lr * p.grad.data\n            p.data += v")],
         "move uphill"),
    ],
    ("10", 5): [
        ("no correction", [("m_hat = m / (1 - beta1**self.t)\n            v_hat = v / (1 - beta2**self.t)",
                            "m_hat, v_hat = m, v")], "no bias correction"),
        ("t never counted", [("        self.t += 1\n", "")], "count t up before using it"),
        ("no square", [("v += (1 - beta2) * g * g", "v += (1 - beta2) * g")], "square root of a negative"),
        ("eps inside", [("np.sqrt(v_hat) + self.eps)", "np.sqrt(v_hat + self.eps))")],
         "eps goes outside the square root"),
        ("off by one", [("beta1**self.t)", "beta1 ** (self.t + 1))"),
                        ("beta2**self.t)", "beta2 ** (self.t + 1))")], "should be 1 at the first step"),
        ("v_hat only", [("m_hat = m / (1 - beta1**self.t)", "m_hat = m")], "only v is bias-corrected"),
        ("m_hat only", [("v_hat = v / (1 - beta2**self.t)", "v_hat = v")], "only m is bias-corrected"),
        ("t per parameter", [("        self.t += 1\n", ""),
                             ("            g = p.grad.data\n", "            self.t += 1\n            g = p.grad.data\n")],
         "not the parameters"),
        ("rebinding", [("            m *= beta1\n            m += (1 - beta1) * g\n            v *= beta2\n"
                        "            v += (1 - beta2) * g * g\n",
                        "            m = beta1 * m + (1 - beta1) * g\n            v = beta2 * v + (1 - beta2) * g * g\n")],
         "rebinds a local name"),
        ("betas swapped", [("beta1, beta2 = self.betas", "beta2, beta1 = self.betas")],
         "beta1 = 0.9 goes with m"),
        ("no sqrt", [("np.sqrt(v_hat) + self.eps)", "v_hat + self.eps)")], "divide by the square root"),
        ("sign", [("p.data -= self.lr * m_hat", "p.data += self.lr * m_hat")], "move uphill"),
        ("t local", [("        self.t += 1\n", "        t = 1\n"), ("beta1**self.t)", "beta1**t)"),
                     ("beta2**self.t)", "beta2**t)")], "stays at 1"),
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
    error = inprocess.solve_alone(prefix, k, edits)
    assert error is not None, f"{prefix} exercise {k}: the mistake passed the check"
    message = str(error)
    assert isinstance(error, AssertionError), f"{type(error).__name__}: {message}"
    assert phrase in message, message
    others = {p for _, _, p in CATALOGUE[(prefix, k)] if p != phrase and p not in phrase}
    named = [p for p in others if p in message]
    assert not named, f"the message names another cause too ({named}): {message}"


def test_the_catalogue_covers_eight_mistakes_per_exercise_on_average() -> None:
    exercises = {key: len(v) for key, v in CATALOGUE.items()}
    average = sum(exercises.values()) / len(exercises)
    assert average >= 8, exercises
