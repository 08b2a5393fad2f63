"""Tasks that train or run real models (issues 3, 4, 9; issue 11 T3/T4).

* T3 spiral: the 2-10-3 sigmoid MLP of DeZero's step 48, softmax cross-entropy, SGD
  lr=1.0, batch 30, 300 points; ms per epoch.
* T4 large MLP: 784-1000-1000-10 ReLU, batch 100, synthetic data, forward + backward +
  SGD update; ms per iteration.
* conv: conv2d forward + backward, batch 32, 3 -> 16 channels, 32x32, 3x3, padding 1.

All frameworks start from the same weights (drawn once with NumPy) and see the same
batches, so their losses and gradients must agree. Updates are the plain SGD rule
``p -= lr * grad`` written the same way everywhere, so the optimiser layers are not what
is compared. The NumPy floors are hand-written forward and backward passes that compute
only what the update needs (no gradient for the input data).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks import peers
from benchmarks.harness import Case, Step, Target

_now = time.perf_counter


def _minitorch_ops(*names: str) -> Any:
    """``minitorch.ops``, or NotImplementedError naming the ops that have not landed yet."""
    import minitorch.ops as F

    missing = [name for name in names if not hasattr(F, name)]
    if missing:
        raise NotImplementedError(f"minitorch.ops has no {', '.join(missing)} yet")
    return F


def spiral(seed: int = 0, per_class: int = 100, classes: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """The spiral toy set: ``classes`` arms of ``per_class`` noisy points each."""
    rng = np.random.default_rng(seed)
    rate = np.tile(np.arange(per_class) / per_class, classes)
    label = np.repeat(np.arange(classes), per_class)
    theta = label * 4.0 + 4.0 * rate + rng.normal(0.0, 0.2, label.size)
    x = np.stack([rate * np.sin(theta), rate * np.cos(theta)], axis=1)
    return x, label


def _init(sizes: list[int], seed: int) -> list[np.ndarray]:
    """He-scaled weights ``(out, in)`` and zero biases, as flat [W1, b1, W2, b2, ...]."""
    rng = np.random.default_rng(seed)
    params: list[np.ndarray] = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        params += [rng.normal(0.0, np.sqrt(2.0 / n_in), (n_out, n_in)), np.zeros(n_out)]
    return params


# -- one training step per framework (shared by T3 and T4) --------------------------------
def _numpy_step(params: list[np.ndarray], act: str, lr: float) -> Callable[..., float]:
    def step(x: np.ndarray, t: np.ndarray) -> float:
        acts, pres = [x], []
        for i in range(0, len(params), 2):
            z = acts[-1] @ params[i].T + params[i + 1]
            if i + 2 == len(params):
                break
            pres.append(z)
            acts.append(1 / (1 + np.exp(-z)) if act == "sigmoid" else np.maximum(z, 0.0))
        z = z - z.max(axis=1, keepdims=True)
        log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        n = len(t)
        loss = -log_p[np.arange(n), t].mean()
        gz = np.exp(log_p)
        gz[np.arange(n), t] -= 1.0
        gz /= n
        for i in range(len(params) - 2, -1, -2):
            a = acts[i // 2]
            gW, gb = gz.T @ a, gz.sum(axis=0)
            if i > 0:  # the floor skips the gradient for the input data
                ga = gz @ params[i]
                a_out = acts[i // 2]
                gz = ga * a_out * (1 - a_out) if act == "sigmoid" else ga * (pres[i // 2 - 1] > 0)
            params[i] -= lr * gW
            params[i + 1] -= lr * gb
        return float(loss)

    return step


def _minitorch_step(init: list[np.ndarray], act: str, lr: float) -> Callable[..., float]:
    F = _minitorch_ops("linear", act, "softmax_cross_entropy")
    from minitorch import Variable

    params = [Variable(p.copy()) for p in init]
    activation = getattr(F, act)

    def step(x: np.ndarray, t: np.ndarray) -> float:
        h: Any = x
        for i in range(0, len(params), 2):
            h = F.linear(h, params[i], params[i + 1])
            if i + 2 < len(params):
                h = activation(h)
        loss = F.softmax_cross_entropy(h, t)
        loss.backward()
        for p in params:
            p.data -= lr * p.grad.data
            p.grad = None
        return float(loss.data)

    return step


def _dezero_step(init: list[np.ndarray], act: str, lr: float) -> Callable[..., float]:
    dz = peers.dezero()
    fs = dz.functions
    # DeZero's linear computes x @ W + b, so it stores W as (in, out).
    params = [dz.Variable(p.T.copy() if p.ndim == 2 else p.copy()) for p in init]
    activation = fs.sigmoid if act == "sigmoid" else fs.relu

    def step(x: np.ndarray, t: np.ndarray) -> float:
        h: Any = x
        for i in range(0, len(params), 2):
            h = fs.linear(h, params[i], params[i + 1])
            if i + 2 < len(params):
                h = activation(h)
        loss = fs.softmax_cross_entropy(h, t)
        for p in params:
            p.cleargrad()
        loss.backward()
        for p in params:
            p.data -= lr * p.grad.data
        return float(loss.data)

    return step


def _torch_step(init: list[np.ndarray], act: str, lr: float) -> Callable[..., float]:
    th = peers.torch()
    tf = th.nn.functional
    params = [th.tensor(p.copy(), requires_grad=True) for p in init]
    activation = th.sigmoid if act == "sigmoid" else th.relu

    def step(x: np.ndarray, t: np.ndarray) -> float:
        h = th.from_numpy(x)
        for i in range(0, len(params), 2):
            h = tf.linear(h, params[i], params[i + 1])
            if i + 2 < len(params):
                h = activation(h)
        loss = tf.cross_entropy(h, th.from_numpy(t))
        loss.backward()
        with th.no_grad():
            for p in params:
                p -= lr * p.grad
                p.grad = None
        return float(loss.detach())

    return step


STEPS = {
    "numpy": _numpy_step,
    "minitorch": _minitorch_step,
    "dezero": _dezero_step,
    "torch": _torch_step,
}


def _training_case(
    task: str,
    name: str,
    unit_scale: float,
    sizes: list[int],
    act: str,
    lr: float,
    batches: list[tuple[np.ndarray, np.ndarray]],
    per: int,
) -> dict[str, Any]:
    def setup(framework: str) -> Any:
        def make() -> Step:
            train = STEPS[framework](_init(sizes, seed=1), act, lr)

            def step() -> tuple[dict[str, float], Any]:
                t0 = _now()
                losses = [train(x, t) for x, t in batches]
                t1 = _now()
                return {"time": (t1 - t0) / per * unit_scale}, np.array(losses)

            return step

        return make

    return {fw: setup(fw) for fw in STEPS}


def spiral_case(epochs: int = 1) -> Case:
    x, t = spiral()
    order = np.random.default_rng(2).permutation(len(x))
    batches = [(x[order[i : i + 30]], t[order[i : i + 30]]) for i in range(0, len(x), 30)]
    impls = _training_case("T3", "", 1e3, [2, 10, 3], "sigmoid", 1.0, batches * epochs, epochs)
    return Case(
        task="T3",
        name="spiral: 2-10-3 sigmoid MLP, SGD lr=1.0, batch 30, one epoch",
        unit="ms/epoch",
        metrics=("time",),
        impls=impls,
        targets=[Target("time", "numpy", 2.5), Target("time", "dezero", 1.0)],
        rtol=1e-9,
        min_rounds=25,  # a round of a few ms: 5 rounds were noise
    )


def big_mlp_case(iterations: int = 5, sizes: tuple[int, ...] = (784, 1000, 1000, 10)) -> Case:
    rng = np.random.default_rng(3)
    batches = [
        (rng.normal(0.0, 1.0, (100, sizes[0])), rng.integers(0, sizes[-1], 100))
        for _ in range(iterations)
    ]
    impls = _training_case("T4", "", 1e3, list(sizes), "relu", 0.01, batches, iterations)
    return Case(
        task="T4",
        name=f"MLP {'-'.join(map(str, sizes))} ReLU, batch 100, fwd+bwd+SGD",
        unit="ms/iter",
        metrics=("time",),
        impls=impls,
        targets=[Target("time", "numpy", 1.05)],
        rtol=1e-8,
    )


# -- conv2d ----------------------------------------------------------------------------
def _numpy_conv(x: np.ndarray, W: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
    """conv2d (stride 1, padding 1) forward + backward for loss = sum(y * gy_seed)."""
    kh, kw = W.shape[2:]
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))  # N,C,H,W,kh,kw
    y = np.tensordot(win, W, axes=((1, 4, 5), (1, 2, 3))).transpose(0, 3, 1, 2) + b[:, None, None]
    gy = np.ones_like(y)
    gW = np.tensordot(gy, win, axes=((0, 2, 3), (0, 2, 3)))
    gb = gy.sum(axis=(0, 2, 3))
    gxp = np.zeros_like(xp)
    h, w = y.shape[2:]
    for i in range(kh):
        for j in range(kw):
            gx_ij = np.tensordot(gy, W[:, :, i, j], axes=(1, 0))  # N, H, W, C
            gxp[:, :, i : i + h, j : j + w] += gx_ij.transpose(0, 3, 1, 2)
    return y, gW, gb, gxp[:, :, 1:-1, 1:-1]


def conv_case(iterations: int = 3) -> Case:
    rng = np.random.default_rng(4)
    x0 = rng.normal(0.0, 1.0, (32, 3, 32, 32))
    W0 = rng.normal(0.0, 0.2, (16, 3, 3, 3))
    b0 = rng.normal(0.0, 0.1, 16)

    def timed(run: Callable[[], np.ndarray]) -> Step:
        def step() -> tuple[dict[str, float], Any]:
            t0 = _now()
            for _ in range(iterations):
                value = run()
            t1 = _now()
            return {"time": (t1 - t0) / iterations * 1e3}, value

        return step

    def numpy() -> Step:
        return timed(lambda: _numpy_conv(x0, W0, b0)[1])

    def minitorch() -> Step:
        F = _minitorch_ops("conv2d")
        from minitorch import Variable

        x, W, b = Variable(x0.copy()), Variable(W0.copy()), Variable(b0.copy())

        def run() -> np.ndarray:
            x.grad = W.grad = b.grad = None
            F.sum(F.conv2d(x, W, b, stride=1, padding=1)).backward()
            return W.grad.data

        return timed(run)

    def dezero() -> Step:
        dz = peers.dezero()
        x, W, b = dz.Variable(x0.copy()), dz.Variable(W0.copy()), dz.Variable(b0.copy())

        def run() -> np.ndarray:
            for v in (x, W, b):
                v.cleargrad()
            dz.functions.sum(dz.functions_conv.conv2d(x, W, b, stride=1, pad=1)).backward()
            return W.grad.data

        return timed(run)

    def torch() -> Step:
        th = peers.torch()
        x, W, b = (th.tensor(a.copy(), requires_grad=True) for a in (x0, W0, b0))

        def run() -> np.ndarray:
            x.grad = W.grad = b.grad = None
            th.nn.functional.conv2d(x, W, b, stride=1, padding=1).sum().backward()
            return W.grad.numpy()

        return timed(run)

    return Case(
        task="conv",
        name="conv2d fwd+bwd: batch 32, 3->16 channels, 32x32, 3x3, padding 1",
        unit="ms",
        metrics=("time",),
        impls={"minitorch": minitorch, "numpy": numpy, "dezero": dezero, "torch": torch},
        targets=[Target("time", "dezero", 1.0)],
        rtol=1e-8,
        min_rounds=25,  # a round of about 10 ms: 5 rounds were noise
        note="every framework computes the gradients of x, W and b (x as a hidden layer)",
    )
