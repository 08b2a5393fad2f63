"""Fit a noisy sine curve with an RNN or LSTM, predicting each next value (DeZero 59-60).

Run it as ``python -m examples.rnn_sine`` (``--help`` lists the options). The training
curve (``data.SineCurve(sequence=True)``: ``sin`` plus uniform noise) is cut into
``--batch-size`` parallel streams that are fed one time step at a time; the layer carries
its hidden state from step to step, and every ``--bptt`` steps the loss is
backpropagated and the graph is cut with ``loss.unchain_backward()`` - truncated
backpropagation through time. The test is the clean ``cos`` curve, predicted one step
at a time from a fresh state; the script prints its mean squared error and, with
``--plot PATH``, draws predictions against the truth.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator, Sequence

import numpy as np

import minitorch
import minitorch.ops as F
from examples.models import SineRNN
from minitorch import Variable, data, optim


def parallel_streams(
    x: np.ndarray, t: np.ndarray, batch_size: int
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Split a sequence into ``batch_size`` consecutive pieces and walk them in step.

    Row ``b`` of the ``i``-th batch is element ``b * len(x) // batch_size + i``, so each
    row of the hidden state follows one contiguous stretch of the curve (DeZero's
    ``SeqDataLoader``).
    """
    jump = len(x) // batch_size
    for i in range(jump):
        rows = np.arange(batch_size) * jump + i
        yield x[rows], t[rows]


def train(
    cell: str = "lstm",
    hidden_size: int = 50,
    epochs: int = 60,
    bptt: int = 30,
    batch_size: int = 30,
    lr: float = 3e-3,
    seed: int = 0,
    num_samples: int = 1000,
) -> SineRNN:
    """Train on the noisy sine; print the mean loss every few epochs; return the model."""
    curve = data.SineCurve(train=True, num_samples=num_samples, noise=0.1, sequence=True, cycles=1)
    model = SineRNN(hidden_size, cell, rng=seed)
    optimizer = optim.Adam(model.parameters(), lr=lr)
    start = time.perf_counter()
    for epoch in range(1, epochs + 1):
        model.reset_state()
        loss, count, total, steps = Variable(np.array(0.0, np.float32)), 0, 0.0, 0
        for x, t in parallel_streams(np.asarray(curve.data), np.asarray(curve.label), batch_size):
            loss, count = loss + F.mean_squared_error(model(x), t), count + 1
            if count == bptt:
                total, steps = total + _update(model, optimizer, loss, count), steps + 1
                loss, count = Variable(np.array(0.0, np.float32)), 0
        if count:
            total, steps = total + _update(model, optimizer, loss, count), steps + 1
        if epoch == 1 or epoch % 10 == 0 or epoch == epochs:
            elapsed = time.perf_counter() - start
            print(f"epoch {epoch:3d}: loss {total / steps:.5f} ({elapsed:.1f} s)")
    return model


def _update(model: SineRNN, optimizer: optim.Optimizer, loss: Variable, count: int) -> float:
    """Backpropagate one truncated window, cut the graph behind it, update the weights."""
    optimizer.zero_grad()
    loss.backward()
    loss.unchain_backward()  # truncated BPTT: the state keeps its value, loses its history
    optimizer.step()
    return float(loss.item()) / count


def predict(model: SineRNN, x: np.ndarray) -> np.ndarray:
    """Predict every next value of ``x`` ``(T, 1)`` one step at a time from a fresh state."""
    model.reset_state()
    model.eval()
    with minitorch.no_grad():
        y = np.concatenate([model(x[i : i + 1]).data for i in range(len(x))])
    model.train()
    return y


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the command line, train, test on the cosine and optionally plot."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cell", choices=("rnn", "lstm"), default="lstm")
    parser.add_argument("--hidden-size", type=int, default=50)
    parser.add_argument("--epochs", type=int, default=60)
    parser.add_argument("--bptt", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=30)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plot", metavar="PATH", help="save predictions vs truth (PNG)")
    args = parser.parse_args(argv)
    model = train(
        args.cell, args.hidden_size, args.epochs, args.bptt, args.batch_size, args.lr, args.seed
    )
    test = data.SineCurve(train=False, num_samples=1000, sequence=True, cycles=1)
    truth = np.asarray(test.label)
    y = predict(model, np.asarray(test.data))
    print(f"test mean squared error on cos: {float(np.mean((y - truth) ** 2)):.5f}")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 3))
        ax.plot(truth[:, 0], label="cos (truth)")
        ax.plot(y[:, 0], "--", label=f"{args.cell} prediction")
        ax.legend()
        fig.savefig(args.plot, dpi=100, bbox_inches="tight")
        print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
