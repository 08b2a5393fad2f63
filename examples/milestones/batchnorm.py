"""2015 — Ioffe and Szegedy: batch normalisation makes a deep sigmoid net trainable.

A 20-layer sigmoid MLP with a 1990s initialisation (uniform in ``±1/sqrt(fan_in)``,
LeCun et al. 1998) and plain SGD barely moves: each sigmoid scales the backward signal by
at most 1/4, so the gradients of the first layers are many orders of magnitude smaller
than the last one's (the picture shows the per-layer gradient norms), and accuracy stays
near chance. Normalising each layer's pre-activations over the batch keeps them in the
sigmoid's steep range, the gradients reach every layer, and the same net, initialisation
and optimiser learn.

References:
    S. Ioffe and C. Szegedy, "Batch normalization: accelerating deep network training by
    reducing internal covariate shift", ICML 2015.
    Y. LeCun, L. Bottou, G. Orr and K.-R. Muller, "Efficient BackProp", 1998.
"""

from __future__ import annotations

import numpy as np

from examples.milestones import datasets, pictures
from examples.milestones.ladder import Context, Measurement, Milestone
from examples.milestones.training import accuracy, fit
from minitorch import nn, optim

DEPTH = 20
WIDTH = 64
LR = 0.02  # small steps: a 20-layer net is sensitive even with batch norm


def deep_net(batch_norm: bool, rng: np.random.Generator) -> nn.Sequential:
    """``DEPTH`` hidden sigmoid layers of ``WIDTH`` units, 1990s uniform initialisation."""
    layers: list[nn.Module] = []
    fan_in = 64
    for _ in range(DEPTH):
        linear = nn.Linear(fan_in, WIDTH, rng=rng)
        _uniform_init(linear, rng)
        layers += [linear, nn.BatchNorm1d(WIDTH)] if batch_norm else [linear]
        layers.append(nn.Sigmoid())
        fan_in = WIDTH
    head = nn.Linear(fan_in, 10, rng=rng)
    _uniform_init(head, rng)
    return nn.Sequential(*layers, head)


def _uniform_init(linear: nn.Linear, rng: np.random.Generator) -> None:
    assert linear.W.data is not None
    bound = 1.0 / np.sqrt(linear.W.data.shape[1])
    linear.W.data = rng.uniform(-bound, bound, linear.W.data.shape).astype(np.float32)


def train(batch_norm: bool, context: Context, epochs: int):
    """Train one deep net; return its test accuracy and first-epoch gradient norms per layer."""
    x_train, t_train, x_test, t_test = datasets.digits()
    rng = context.rng(1)
    model = deep_net(batch_norm, rng)
    linears = [m for m in model if isinstance(m, nn.Linear)]
    norms: list[list[float]] = []

    def record() -> None:
        if len(norms) < 20:  # the first 20 steps are enough to see the pattern
            norms.append([_grad_norm(lin) for lin in linears])

    fit(
        model,
        optim.SGD(model.parameters(), lr=LR),
        x_train,
        t_train,
        epochs=epochs,
        batch_size=32,
        rng=rng,
        desc=f"batchnorm={batch_norm}",
        progress=context.progress,
        after_backward=record,
    )
    return accuracy(model, x_test, t_test), np.mean(norms, axis=0)


def _grad_norm(linear: nn.Linear) -> float:
    grad = linear.W.grad
    return 0.0 if grad is None else float(np.linalg.norm(grad.data))


def run(context: Context) -> Measurement:
    """Without BN near chance, with BN the verdict's test accuracy."""
    epochs = 5 if context.quick else 30
    plain, plain_norms = train(False, context, epochs)
    normed, normed_norms = train(True, context, epochs)
    threshold = 0.8 if context.quick else 0.95
    fig, (ax,) = pictures.figure(width=6)
    layers = np.arange(1, DEPTH + 2)
    ax.semilogy(layers, plain_norms, "o-", label=f"plain ({plain:.0%} test)")
    ax.semilogy(layers, normed_norms, "s-", label=f"batch norm ({normed:.0%} test)")
    ax.set_xlabel("layer (1 = next to the input)")
    ax.set_ylabel("mean |grad W| over the first steps")
    ax.set_title("2015: batch norm lets the gradient reach every layer")
    ax.legend()
    ax.grid(alpha=0.3, which="both")
    return Measurement(
        metric="test accuracy with batch norm",
        value=normed,
        threshold=threshold,
        passed=normed >= threshold and plain <= 0.25,
        condition=f"and without it {plain:.3f} <= 0.25 (chance 0.1)",
        details={
            "without_batch_norm": plain,
            "chance": 0.1,
            "without_threshold": 0.25,
            "grad_norm_ratio_plain": float(plain_norms[-1] / plain_norms[0]),
            "grad_norm_ratio_bn": float(normed_norms[-1] / normed_norms[0]),
        },
        picture=pictures.save(fig, context.out / "batchnorm.png"),
    )


MILESTONE = Milestone("batchnorm", 2015, "Ioffe-Szegedy: batch norm trains a 20-layer net", run)
