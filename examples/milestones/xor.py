"""1969 — Minsky and Papert: one layer cannot compute XOR; two layers can.

A single linear layer with a sigmoid output draws one straight boundary, and no straight
line separates XOR's (0,1),(1,0) from (0,0),(1,1): at best 3 of the 4 points are right.
One hidden layer bends the boundary, and backpropagation finds it — for every seed tried,
not just a lucky one (a classic failure of from-scratch courses).

References:
    M. Minsky and S. Papert, *Perceptrons*, MIT Press, 1969.
"""

from __future__ import annotations

import numpy as np

import minitorch
from examples.milestones import datasets, pictures
from examples.milestones.ladder import Context, Measurement, Milestone
from examples.milestones.training import accuracy, fit
from minitorch import nn, optim

SEEDS = 10
HIDDEN = 8  # wider than the minimal 2 units, whose loss surface has bad local minima


def train_net(hidden: int | None, seed: int, steps: int) -> tuple[nn.Module, float]:
    """Train a net on XOR full-batch with Adam; return it and its accuracy on the 4 points."""
    x, t = datasets.xor()
    rng = np.random.default_rng(seed)
    if hidden is None:
        model: nn.Module = nn.Linear(2, 2, rng=rng)
    else:
        model = nn.Sequential(
            nn.Linear(2, hidden, rng=rng), nn.Tanh(), nn.Linear(hidden, 2, rng=rng)
        )
    fit(
        model,
        optim.Adam(model.parameters(), lr=0.05),
        x,
        t,
        epochs=steps,
        batch_size=4,
        rng=rng,
        desc="xor",
        progress=False,
    )
    return model, accuracy(model, x, t)


def run(context: Context) -> Measurement:
    """Train one- and two-layer nets from several seeds; both halves must hold for each."""
    seeds = [context.seed * 1000 + k for k in range(3 if context.quick else SEEDS)]
    steps = 300
    one = [train_net(None, seed, steps)[1] for seed in seeds]
    two_nets = [train_net(HIDDEN, seed, steps) for seed in seeds]
    two = [acc for _, acc in two_nets]
    return Measurement(
        metric="worst two-layer accuracy",
        value=min(two),
        threshold=1.0,
        passed=max(one) <= 0.75 and min(two) == 1.0,
        condition=f"and one layer at most {max(one):.2f} <= 0.75 (over {len(seeds)} seeds)",
        details={"seeds": seeds, "one_layer": one, "two_layers": two, "one_layer_threshold": 0.75},
        picture=_draw(two_nets[0][0], context),
    )


def _draw(model: nn.Module, context: Context):
    x, t = datasets.xor()
    grid = np.linspace(-0.5, 1.5, 121, dtype=np.float32)
    gx, gy = np.meshgrid(grid, grid)
    with minitorch.no_grad():
        logits = model(np.stack([gx.ravel(), gy.ravel()], axis=1)).data
    fig, (ax,) = pictures.figure()
    ax.contourf(
        gx,
        gy,
        logits.argmax(axis=1).reshape(gx.shape),
        levels=[-0.5, 0.5, 1.5],
        colors=["#cfe2f3", "#fde0c5"],
    )
    for label, colour in ((0, "tab:blue"), (1, "tab:orange")):
        ax.scatter(*x[t == label].T, c=colour, s=120, edgecolors="k", label=f"xor = {label}")
    ax.set_title("1969/1986: a hidden layer separates XOR")
    ax.legend(loc="center")
    return pictures.save(fig, context.out / "xor.png")


MILESTONE = Milestone("xor", 1969, "Minsky-Papert: one layer cannot learn XOR, two can", run)
