"""Reusable models for the examples, the notebooks and ``python -m examples.demo --model cnn``.

* :class:`CNN` - a small LeNet-style convolutional network for 1-channel digit images
  (8x8 ``data.Digits`` or 28x28 ``data.MNIST``): it reaches about 98% test accuracy on
  Digits in a few seconds (``python -m examples.cnn_digits``).
* :class:`SineRNN` - a recurrent layer and a linear read-out for next-value prediction
  on ``data.SineCurve`` (``python -m examples.rnn_sine``).
"""

from __future__ import annotations

import numpy as np

import minitorch
from minitorch import Variable, nn
from minitorch.nn.init import RNGLike, as_generator


class CNN(nn.Module):
    """conv3x3(16) -> ReLU -> maxpool2 -> conv3x3(32) -> ReLU -> maxpool2 -> 64 -> classes.

    Works for any image size divisible by 4: the first ``Linear`` infers its input size
    (``32 * H/4 * W/4``) at the first call.

    Shapes:
        x ``(N, 1, H, W)`` float32 -> logits ``(N, n_classes)``.

    Args:
        n_classes: the number of classes.
        in_channels: image channels.
        rng: a Generator, an int seed, or ``None`` for minitorch's default generator.

    Example:
        >>> model = CNN(rng=0)
        >>> model(np.zeros((2, 1, 8, 8), dtype=np.float32)).shape
        (2, 10)
    """

    def __init__(self, n_classes: int = 10, in_channels: int = 1, rng: RNGLike = None) -> None:
        super().__init__()
        generator = as_generator(rng)
        self.features = nn.Sequential(
            nn.Conv2d(in_channels, 16, 3, padding=1, rng=generator),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1, rng=generator),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Flatten(),
        )
        self.classifier = nn.Sequential(
            nn.Linear(None, 64, init="he", rng=generator),
            nn.ReLU(),
            nn.Linear(64, n_classes, rng=generator),
        )

    def forward(self, x: minitorch.Operand) -> Variable:
        """Logits for a batch of images."""
        return self.classifier(self.features(x))


def digits_cnn(seed: int = 0) -> nn.Module:
    """The :class:`CNN` for ``data.Digits`` (8x8, 10 classes), seeded by ``seed``.

    Example:
        >>> digits_cnn(0)(np.zeros((1, 1, 8, 8), dtype=np.float32)).shape
        (1, 10)
    """
    return CNN(n_classes=10, in_channels=1, rng=np.random.default_rng(seed))


class SineRNN(nn.Module):
    """A recurrent layer (``"rnn"`` or ``"lstm"``) and a ``Linear`` read-out, DeZero step 59.

    Shapes:
        x ``(N, 1)`` (one step) or ``(N, T, 1)`` -> ``(N, 1)`` or ``(N, T, 1)``.

    Args:
        hidden_size: the recurrent state size.
        cell: ``"rnn"`` or ``"lstm"``.
        rng: a Generator, an int seed, or ``None``.

    Example:
        >>> model = SineRNN(8, "lstm", rng=0)
        >>> model(np.zeros((1, 1), dtype=np.float32)).shape
        (1, 1)
    """

    def __init__(self, hidden_size: int = 10, cell: str = "rnn", rng: RNGLike = None) -> None:
        super().__init__()
        generator = as_generator(rng)
        layers = {"rnn": nn.RNN, "lstm": nn.LSTM}
        if cell not in layers:
            raise ValueError(f"SineRNN: cell must be 'rnn' or 'lstm', got {cell!r}")
        self.rnn = layers[cell](1, hidden_size, rng=generator)
        self.fc = nn.Linear(hidden_size, 1, rng=generator)

    def reset_state(self) -> None:
        """Start a new sequence."""
        self.rnn.reset_state()

    def forward(self, x: minitorch.Operand) -> Variable:
        """Predict the next value(s)."""
        return self.fc(self.rnn(x))
