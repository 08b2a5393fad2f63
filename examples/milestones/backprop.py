"""1986 — Rumelhart, Hinton and Williams: backpropagation trains a hidden layer.

A multi-layer perceptron with logistic (sigmoid) hidden units and gradient descent with
momentum, the paper's recipe, learns real handwritten digits (scikit-learn's 8x8 copy of
the UCI set): the gradient of every weight comes from one backward pass.

References:
    D. E. Rumelhart, G. E. Hinton and R. J. Williams, "Learning representations by
    back-propagating errors", Nature 323, 533-536, 1986.
"""

from __future__ import annotations

from examples.milestones import datasets, pictures
from examples.milestones.ladder import Context, Measurement, Milestone
from examples.milestones.training import accuracy, fit
from minitorch import nn, optim


def run(context: Context) -> Measurement:
    """A 64-100-10 sigmoid MLP, SGD with momentum 0.9; the verdict is test accuracy."""
    x_train, t_train, x_test, t_test = datasets.digits()
    rng = context.rng()
    model = nn.Sequential(nn.Linear(64, 100, rng=rng), nn.Sigmoid(), nn.Linear(100, 10, rng=rng))
    optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    epochs = 10 if context.quick else 40
    losses = fit(
        model,
        optimizer,
        x_train,
        t_train,
        epochs=epochs,
        batch_size=32,
        rng=rng,
        desc="backprop",
        progress=context.progress,
    )
    test = accuracy(model, x_test, t_test)
    fig, (ax,) = pictures.figure()
    pictures.curves(ax, {"training loss": losses}, "cross-entropy", "1986 backprop on digits")
    return Measurement(
        metric="test accuracy",
        value=test,
        threshold=0.90 if context.quick else 0.97,
        details={"train_accuracy": accuracy(model, x_train, t_train), "epochs": epochs},
        picture=pictures.save(fig, context.out / "backprop.png"),
    )


MILESTONE = Milestone("backprop", 1986, "Rumelhart-Hinton-Williams: backprop trains an MLP", run)
