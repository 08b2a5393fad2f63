"""2003 — Bengio et al.: a neural language model beats counting.

A bigram model counts which character follows which (with add-one smoothing) and can
only look one character back. Bengio's model embeds the last few characters as learned
vectors, concatenates them and predicts the next one with a tanh hidden layer: the
embeddings let similar contexts share statistics. On the 1990 US census's first names,
its test negative log-likelihood per character must be at least 0.1 nats below the
bigram model's.

References:
    Y. Bengio, R. Ducharme, P. Vincent and C. Jauvin, "A neural probabilistic language
    model", JMLR 3, 1137-1155, 2003.
"""

from __future__ import annotations

import numpy as np
from tqdm import tqdm

import minitorch
import minitorch.ops as F
from examples.milestones import datasets, pictures
from examples.milestones.ladder import Context, Measurement, Milestone
from minitorch import nn, optim

CONTEXT = 3  # characters of context, as in the paper's smaller models
END = "."  # marks both the start (padding) and the end of a name


class NeuralLM(nn.Module):
    """Embed ``CONTEXT`` characters, concatenate, tanh layer, logits of the next one.

    Shapes:
        idx ``(B, CONTEXT)`` int -> logits ``(B, vocab)``.
    """

    def __init__(
        self, vocab: int, rng: np.random.Generator, dim: int = 10, hidden: int = 200
    ) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, rng=rng)
        self.hidden = nn.Linear(CONTEXT * dim, hidden, rng=rng)
        self.out = nn.Linear(hidden, vocab, rng=rng)

    def forward(self, idx: np.ndarray) -> minitorch.Variable:
        """Logits of the character after each context."""
        e = self.embed(idx)
        return self.out(F.tanh(self.hidden(e.reshape(len(idx), -1))))


def examples(names: list[str], stoi: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """Every (context, next character) pair of ``names``, padded with ``END`` at the start."""
    contexts, targets = [], []
    for name in names:
        window = [stoi[END]] * CONTEXT
        for ch in name + END:
            contexts.append(window)
            targets.append(stoi[ch])
            window = window[1:] + [stoi[ch]]
    return np.array(contexts, dtype=np.int64), np.array(targets, dtype=np.int64)


def bigram_nll(train: tuple, test: tuple, vocab: int) -> float:
    """Test NLL per character of the add-one-smoothed bigram counts of the training set."""
    counts = np.ones((vocab, vocab))
    np.add.at(counts, (train[0][:, -1], train[1]), 1)
    probs = counts / counts.sum(axis=1, keepdims=True)
    return float(-np.log(probs[test[0][:, -1], test[1]]).mean())


def neural_nll(model: NeuralLM, split: tuple) -> float:
    """The mean NLL per character of ``model`` on ``(contexts, targets)``, no graph."""
    with minitorch.no_grad():
        return float(F.softmax_cross_entropy(model(split[0]), split[1]).item())


def run(context: Context) -> Measurement:
    """Count bigrams, train the neural model; the verdict is the NLL difference."""
    names = datasets.first_names()
    rng = context.rng()
    order = rng.permutation(len(names))
    n_test = len(names) // 10
    chars = sorted(set("".join(names)) | {END})
    stoi = {ch: i for i, ch in enumerate(chars)}
    test = examples([names[i] for i in order[:n_test]], stoi)
    train = examples([names[i] for i in order[n_test:]], stoi)
    baseline = bigram_nll(train, test, len(chars))
    model = NeuralLM(len(chars), context.rng(1))
    optimizer = optim.Adam(model.parameters(), lr=0.01)
    steps = 300 if context.quick else 3000
    losses = []
    for step in tqdm(range(steps), desc="bengio", disable=not context.progress, leave=False):
        batch = rng.integers(0, len(train[1]), 64)
        loss = F.softmax_cross_entropy(model(train[0][batch]), train[1][batch])
        model.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if step == int(steps * 0.8):
            optimizer.lr *= 0.1  # the usual late step decay
    neural = neural_nll(model, test)
    fig, (ax,) = pictures.figure(width=6)
    window = 50
    smooth = np.convolve(losses, np.ones(window) / window, mode="valid")
    ax.plot(smooth, label="neural LM, training batches")
    ax.axhline(
        baseline, color="tab:red", linestyle="--", label=f"bigram counts, test ({baseline:.2f})"
    )
    ax.axhline(neural, color="tab:green", linestyle=":", label=f"neural LM, test ({neural:.2f})")
    ax.set_xlabel("step")
    ax.set_ylabel("nats per character")
    ax.set_title("2003: a neural language model on census first names")
    ax.legend()
    ax.grid(alpha=0.3)
    gain = baseline - neural
    return Measurement(
        metric="bigram NLL - neural NLL (nats/char)",
        value=gain,
        threshold=0.05 if context.quick else 0.1,
        details={
            "bigram_test_nll": baseline,
            "neural_test_nll": neural,
            "names": len(names),
            "test_names": n_test,
            "steps": steps,
        },
        picture=pictures.save(fig, context.out / "bengio.png"),
    )


MILESTONE = Milestone("bengio", 2003, "Bengio et al.: a neural language model beats bigrams", run)
