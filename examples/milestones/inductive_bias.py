"""2020 — MNIST-1D: the right structure beats a bigger unstructured model.

Greydanus's MNIST-1D turns the ten digits into 1-D signals of length 40, randomly shifted,
scaled, sheared and noised. A fully connected network has to learn every shift of every
pattern separately; a convolutional network shares its filters across positions, so it
is translation-equivariant by construction. With fewer parameters, the CNN wins by far
(the paper: MLP 68%, CNN 94%); the milestone asks for a gap of at least 15 points.

References:
    S. Greydanus and D. Kobak, "Scaling down deep learning with MNIST-1D", ICML 2024
    (first released 2020, arXiv:2011.14439).
"""

from __future__ import annotations

import numpy as np

import minitorch
from examples.milestones import datasets, pictures
from examples.milestones.ladder import Context, Measurement, Milestone
from examples.milestones.training import accuracy, fit
from minitorch import nn, optim


class ConvNet1d(nn.Module):
    """Three 1-D convolutions (25 channels, width 5, stride 2) and a linear read-out.

    A 1-D convolution is a 2-D one over images of height 1: kernels ``(1, 5)``.

    Shapes:
        x ``(N, 40)`` -> logits ``(N, 10)``.
    """

    def __init__(self, rng: np.random.Generator, channels: int = 25) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, channels, (1, 5), stride=(1, 2), padding=(0, 1), rng=rng),
            nn.ReLU(),
            nn.Conv2d(channels, channels, (1, 3), stride=(1, 2), padding=(0, 1), rng=rng),
            nn.ReLU(),
            nn.Conv2d(channels, channels, (1, 3), stride=(1, 2), padding=(0, 1), rng=rng),
            nn.ReLU(),
            nn.Flatten(),
        )
        self.head = nn.Linear(None, 10, rng=rng)

    def forward(self, x: np.ndarray) -> minitorch.Variable:
        """Logits for a batch of signals."""
        return self.head(self.features(x.reshape(len(x), 1, 1, -1)))


def mlp(rng: np.random.Generator) -> nn.Sequential:
    """The paper's fully connected baseline: 40 -> 100 -> 100 -> 10, ReLU."""
    return nn.Sequential(
        nn.Linear(40, 100, init="he", rng=rng),
        nn.ReLU(),
        nn.Linear(100, 100, init="he", rng=rng),
        nn.ReLU(),
        nn.Linear(100, 10, rng=rng),
    )


def run(context: Context) -> Measurement:
    """Train both with Adam for the same epochs; the verdict is the accuracy gap."""
    x_train, t_train, x_test, t_test = datasets.mnist1d(context.rng())
    epochs = 8 if context.quick else 30
    rng = context.rng(1)
    models = {"MLP 40-100-100-10": mlp(rng), "CNN (3 conv layers)": ConvNet1d(rng)}
    curves, tests = {}, {}
    for name, model in models.items():
        curves[name] = fit(
            model,
            optim.Adam(model.parameters(), lr=0.003),
            x_train,
            t_train,
            epochs=epochs,
            batch_size=100,
            rng=rng,
            desc=f"mnist1d {name}",
            progress=context.progress,
        )
        tests[name] = accuracy(model, x_test, t_test)
    mlp_test, cnn_test = tests.values()
    fig, (ax,) = pictures.figure(width=6)
    pictures.curves(
        ax,
        {f"{k} ({tests[k]:.0%} test)": v for k, v in curves.items()},
        "training cross-entropy",
        "2020 MNIST-1D: structure beats size",
    )
    params = {k: sum(p.data.size for p in m.parameters()) for k, m in models.items()}
    return Measurement(
        metric="CNN - MLP test accuracy (points)",
        value=100 * (cnn_test - mlp_test),
        threshold=5.0 if context.quick else 15.0,
        details={
            "mlp_test_accuracy": mlp_test,
            "cnn_test_accuracy": cnn_test,
            "parameters": params,
            "epochs": epochs,
        },
        picture=pictures.save(fig, context.out / "inductive_bias.png"),
    )


MILESTONE = Milestone("inductive-bias", 2020, "MNIST-1D: a small CNN beats a bigger MLP", run)
