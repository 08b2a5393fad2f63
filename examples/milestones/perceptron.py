"""1958 — Rosenblatt's perceptron learns any linearly separable labelling, without calculus.

The learning rule: for each misclassified point, move the weights toward it (label 1) or
away from it (label 0), ``w += (t - y) x``. Novikoff's theorem (1962) bounds the number of
mistakes by ``(R / margin)^2``, so on separable data the rule stops with every training
point right. No autograd here: this is the rung before gradients.

References:
    F. Rosenblatt, "The perceptron: a probabilistic model for information storage and
    organization in the brain", Psychological Review 65(6), 1958.
    A. B. J. Novikoff, "On convergence proofs on perceptrons", 1962.
"""

from __future__ import annotations

import numpy as np

from examples.milestones import datasets, pictures
from examples.milestones.ladder import Context, Measurement, Milestone


def learn(x: np.ndarray, t: np.ndarray, max_epochs: int = 100) -> tuple[np.ndarray, int]:
    """Rosenblatt's rule on ``x`` ``(N, d)``, ``t`` ``(N,)`` in {0, 1}.

    Returns:
        The weights ``(d + 1,)`` (the last one is the bias) and the epochs used.
    """
    xb = np.hstack([x, np.ones((len(x), 1), dtype=x.dtype)])  # the bias as a constant input
    w = np.zeros(xb.shape[1])
    for epoch in range(1, max_epochs + 1):
        mistakes = 0
        for xi, ti in zip(xb, t):
            yi = float(xi @ w > 0)
            if yi != ti:
                w += (ti - yi) * xi
                mistakes += 1
        if mistakes == 0:
            return w, epoch
    return w, max_epochs


def run(context: Context) -> Measurement:
    """Learn 100 separable points; the verdict is the training accuracy."""
    x, t = datasets.separable_points(context.rng(), n=40 if context.quick else 100)
    w, epochs = learn(x, t)
    accuracy = float(((np.hstack([x, np.ones((len(x), 1))]) @ w > 0) == t).mean())
    return Measurement(
        metric="train accuracy",
        value=accuracy,
        threshold=1.0,
        details={"epochs": epochs, "points": len(x)},
        picture=_draw(x, t, w, context),
    )


def _draw(x: np.ndarray, t: np.ndarray, w: np.ndarray, context: Context):
    fig, (ax,) = pictures.figure(width=6.5)
    for label, colour in ((0, "tab:blue"), (1, "tab:orange")):
        ax.scatter(*x[t == label].T, c=colour, s=18, label=f"class {label}")
    xs = np.linspace(-1, 1, 2)
    if abs(w[1]) > 1e-12:
        ax.plot(xs, -(w[0] * xs + w[2]) / w[1], "k-", linewidth=2, label="learned boundary")
    ax.set_xlim(-1.05, 1.05)  # points reach +-1: a margin so none is cut in half
    ax.set_ylim(-1.05, 1.05)
    ax.set_title("1958: the perceptron separates the points")
    # Outside the axes, so the legend covers no point.
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    return pictures.save(fig, context.out / "perceptron.png")


MILESTONE = Milestone("perceptron", 1958, "Rosenblatt's perceptron learning rule", run)
