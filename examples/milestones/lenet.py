"""1998 — LeCun, Bottou, Bengio and Haffner: a convolutional network reads real MNIST.

Weights shared across positions (convolutions) and pooling build translation tolerance
into the network, so it needs far fewer examples than a fully connected net of the same
budget. On 4,000 real MNIST training digits, a small LeNet-style CNN beats the MLP
baseline trained the same way and reaches the 97% the milestone asks for.

References:
    Y. LeCun, L. Bottou, Y. Bengio and P. Haffner, "Gradient-based learning applied to
    document recognition", Proceedings of the IEEE 86(11), 1998.
"""

from __future__ import annotations

import numpy as np

from examples.milestones import datasets, pictures
from examples.milestones.ladder import Context, Measurement, Milestone
from examples.milestones.training import accuracy, fit
from minitorch import nn, optim


def lenet5(rng: np.random.Generator) -> nn.Sequential:
    """LeNet-5's layout: conv5x5(6) -> pool -> conv5x5(16) -> pool -> 120 -> 84 -> 10.

    ReLU and max-pooling stand in for the paper's scaled tanh and trainable subsampling.

    Shapes:
        x ``(N, 1, 28, 28)`` -> logits ``(N, 10)``.
    """
    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2, rng=rng),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5, rng=rng),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(400, 120, init="he", rng=rng),
        nn.ReLU(),
        nn.Linear(120, 84, init="he", rng=rng),
        nn.ReLU(),
        nn.Linear(84, 10, rng=rng),
    )


def shift(images: np.ndarray, rng: np.random.Generator, most: int = 2) -> np.ndarray:
    """Translate each image by up to ``most`` pixels in each direction (zeros come in).

    The paper's best nets were trained on such distorted copies; with 4,000 digits it is
    what lifts the CNN past 97%.

    Shapes:
        images ``(N, 1, H, W)`` -> the same.
    """
    n, _, h, w = images.shape
    padded = np.pad(images, ((0, 0), (0, 0), (most, most), (most, most)))
    dy, dx = rng.integers(0, 2 * most + 1, size=(2, n))
    rows = dy[:, None] + np.arange(h)  # (N, H): the rows each image keeps
    cols = dx[:, None] + np.arange(w)
    return padded[np.arange(n)[:, None, None], 0, rows[:, :, None], cols[:, None, :]][:, None]


def run(context: Context) -> Measurement:
    """Train the MLP baseline and the CNN with Adam; the verdict is the CNN's test accuracy."""
    x_train, t_train, x_test, t_test = datasets.mnist_5k(context.rng())
    if context.quick:
        x_train, t_train = x_train[:1000], t_train[:1000]
    epochs = 2 if context.quick else 12
    rng = context.rng(1)
    mlp = nn.Sequential(
        nn.Flatten(),
        nn.Linear(784, 100, init="he", rng=rng),
        nn.ReLU(),
        nn.Linear(100, 10, rng=rng),
    )
    cnn = lenet5(rng)
    curves = {}
    for name, model in (("MLP 784-100-10", mlp), ("CNN (LeNet-5)", cnn)):
        curves[name] = fit(
            model,
            optim.Adam(model.parameters(), lr=0.002),
            x_train,
            t_train,
            epochs=epochs,
            batch_size=32,
            rng=rng,
            desc=f"lenet {name}",
            progress=context.progress,
            augment=shift,
        )
    mlp_test, cnn_test = accuracy(mlp, x_test, t_test), accuracy(cnn, x_test, t_test)
    threshold = 0.75 if context.quick else 0.97  # quick: 1,000 digits, 2 epochs
    return Measurement(
        metric="CNN test accuracy",
        value=cnn_test,
        threshold=threshold,
        passed=cnn_test >= threshold and cnn_test > mlp_test,
        condition=f"and above the MLP's {mlp_test:.3f}",
        details={
            "mlp_test_accuracy": mlp_test,
            "train_digits": len(x_train),
            "test_digits": len(x_test),
            "epochs": epochs,
        },
        picture=_draw(curves, cnn, x_test, t_test, context),
    )


def _draw(curves, cnn, x_test: np.ndarray, t_test: np.ndarray, context: Context):
    fig, (ax, ax_digits) = pictures.figure(ncols=2)
    pictures.curves(ax, curves, "training cross-entropy", "1998: MLP vs CNN on real MNIST")
    cnn.eval()
    import minitorch

    with minitorch.no_grad():
        predicted = cnn(x_test[:16]).data.argmax(axis=1)
    gap = np.zeros((12, 8 * 28), dtype=x_test.dtype)  # white space for the labels
    tiles = np.concatenate(
        [
            part
            for r in range(2)
            for part in (np.concatenate(list(x_test[r * 8 : r * 8 + 8, 0]), axis=1), gap)
        ]
    )
    ax_digits.imshow(tiles, cmap="gray_r")
    for k, (guess, truth) in enumerate(zip(predicted, t_test[:16])):
        row, col = divmod(k, 8)
        ax_digits.text(
            col * 28 + 14,
            row * 40 + 28,
            str(guess),
            ha="center",
            va="top",
            fontsize=12,
            color="black" if guess == truth else "orangered",
            fontweight="normal" if guess == truth else "bold",
        )
    ax_digits.set_title("what the CNN reads (mistakes in orange)", fontsize=12)
    ax_digits.axis("off")
    return pictures.save(fig, context.out / "lenet.png")


MILESTONE = Milestone("lenet", 1998, "LeCun et al.: a CNN reads real MNIST digits", run)
