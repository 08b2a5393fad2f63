"""Small built-in datasets: ``Spiral``, ``SineCurve`` and ``Digits`` (all offline).

``Spiral`` and ``SineCurve`` are generated from a seeded ``numpy.random.Generator``, so
a given seed gives the same samples on every machine; ``Digits`` is the set of 1,797
real 8x8 handwritten digits that scikit-learn ships inside its package.
"""

from __future__ import annotations

import numpy as np

from minitorch.data.dataset import Dataset, Transform


class Spiral(Dataset):
    """Three interleaved spirals in the plane: a classic non-linearly separable task.

    Class ``j`` has points ``r * (sin θ, cos θ)`` with ``r = i / n`` and
    ``θ = 4 j + 4 r + 0.2 ε``, ``ε ~ N(0, 1)``, for ``i = 0..n-1`` — the construction of
    *Deep Learning from Scratch 3* (DeZero), step 48. The samples are shuffled once.

    Shapes:
        ``data`` ``(num_classes * n, 2)`` float32; ``label`` ``(num_classes * n,)`` int64.

    Args:
        train: ``True`` uses seed 1984, ``False`` seed 2020 (an independent test set),
            unless ``seed`` is given.
        num_per_class: points per class ``n``.
        num_classes: number of arms.
        noise: standard deviation of the angle noise.
        seed: overrides the split's default seed.
        transform: applied to each input point.
        target_transform: applied to each label.

    Raises:
        ValueError: if ``num_per_class`` or ``num_classes`` is less than 1.

    Example:
        >>> ds = Spiral()
        >>> ds.data.shape, ds.label.shape, sorted(set(ds.label.tolist()))
        ((300, 2), (300,), [0, 1, 2])

    References:
        K. Saitoh, *Deep Learning from Scratch 3* (O'Reilly Japan, 2020), step 48.
    """

    def __init__(
        self,
        train: bool = True,
        num_per_class: int = 100,
        num_classes: int = 3,
        noise: float = 0.2,
        seed: int | None = None,
        transform: Transform | None = None,
        target_transform: Transform | None = None,
    ) -> None:
        if num_per_class < 1 or num_classes < 1:
            raise ValueError(
                f"Spiral: num_per_class and num_classes must be >= 1, "
                f"got {num_per_class} and {num_classes}"
            )
        self.num_per_class = num_per_class
        self.num_classes = num_classes
        self.noise = noise
        self.seed = seed if seed is not None else (1984 if train else 2020)
        super().__init__(train, transform, target_transform)

    def prepare(self) -> None:
        """Generate the points from the seeded generator."""
        rng = np.random.default_rng(self.seed)
        rate = np.tile(np.arange(self.num_per_class) / self.num_per_class, self.num_classes)
        label = np.repeat(np.arange(self.num_classes), self.num_per_class)
        theta = 4.0 * label + 4.0 * rate + self.noise * rng.standard_normal(rate.shape)
        points = np.stack([rate * np.sin(theta), rate * np.cos(theta)], axis=1)
        order = rng.permutation(len(label))
        self.data = points[order].astype(np.float32)
        self.label = label[order].astype(np.int64)


class SineCurve(Dataset):
    """Noisy samples of a sine: a regression set, or a sequence for recurrent nets.

    ``sequence=False`` (regression, DeZero step 43): ``x ~ U(0, 1)`` and
    ``y = sin(2πx) + noise * u`` with ``u ~ U(0, 1)``; ``data`` is ``x``, ``label`` is ``y``.

    ``sequence=True`` (next-value prediction, DeZero step 59): ``s_k = sin(θ_k)`` on
    ``θ`` evenly spaced over ``[0, 2π·cycles]``, plus ``U(-noise/2, noise/2)`` noise on the
    training split (the test split is the clean ``cos``); ``data[k] = s_k`` and
    ``label[k] = s_{k+1}``.

    Shapes:
        ``data`` and ``label`` ``(num_samples, 1)`` float32 (``num_samples - 1`` rows
        for ``sequence=True``).

    Args:
        train: which split (changes the default seed, and the curve for sequences).
        num_samples: number of points.
        noise: noise amplitude (see above).
        sequence: the sequence form instead of the regression form.
        cycles: periods covered by the sequence form.
        seed: overrides the split's default seed (0 train, 1 test).
        transform: applied to each input.
        target_transform: applied to each label.

    Raises:
        ValueError: if ``num_samples`` is less than 2.

    Example:
        >>> ds = SineCurve(num_samples=50)
        >>> ds.data.shape, ds.label.shape, ds.data.dtype.name
        ((50, 1), (50, 1), 'float32')

    References:
        K. Saitoh, *Deep Learning from Scratch 3* (O'Reilly Japan, 2020), steps 43 and 59.
    """

    def __init__(
        self,
        train: bool = True,
        num_samples: int = 100,
        noise: float = 1.0,
        sequence: bool = False,
        cycles: float = 2.0,
        seed: int | None = None,
        transform: Transform | None = None,
        target_transform: Transform | None = None,
    ) -> None:
        if num_samples < 2:
            raise ValueError(f"SineCurve: num_samples must be >= 2, got {num_samples}")
        self.num_samples = num_samples
        self.noise = noise
        self.sequence = sequence
        self.cycles = cycles
        self.seed = seed if seed is not None else (0 if train else 1)
        super().__init__(train, transform, target_transform)

    def prepare(self) -> None:
        """Draw the samples from the seeded generator."""
        rng = np.random.default_rng(self.seed)
        if self.sequence:
            theta = np.linspace(0.0, 2.0 * np.pi * self.cycles, self.num_samples)
            if self.train:
                noise = rng.uniform(-0.5, 0.5, theta.shape) * self.noise
                curve = np.sin(theta) + noise
            else:
                curve = np.cos(theta)
            self.data = curve[:-1, None].astype(np.float32)
            self.label = curve[1:, None].astype(np.float32)
        else:
            x = rng.uniform(0.0, 1.0, (self.num_samples, 1))
            y = np.sin(2.0 * np.pi * x) + self.noise * rng.uniform(0.0, 1.0, x.shape)
            self.data = x.astype(np.float32)
            self.label = y.astype(np.float32)


class Digits(Dataset):
    """scikit-learn's 1,797 handwritten 8x8 digits (UCI), split into train and test.

    The pixels (0..16) are scaled to ``[0, 1]``. A fixed permutation drawn from ``seed``
    puts ``test_fraction`` of the samples in the test split and the rest in the training
    split, so the two never overlap for the same seed. The data ships inside
    scikit-learn: nothing is downloaded.

    Shapes:
        ``data`` ``(N, 64)`` float32 (``(N, 1, 8, 8)`` with ``flatten=False``);
        ``label`` ``(N,)`` int64 in ``0..9``.

    Args:
        train: the training split (``True``) or the test split.
        test_fraction: share of samples held out for testing, in ``(0, 1)``.
        seed: seed of the split's permutation.
        flatten: 64-vectors (for MLPs) instead of 1-channel images (for conv nets).
        transform: applied to each image.
        target_transform: applied to each label.

    Raises:
        ImportError: if scikit-learn is not installed (``pip install minitorch[data]``).
        ValueError: if ``test_fraction`` is not in ``(0, 1)``.

    Example:
        >>> train, test = Digits(train=True), Digits(train=False)
        >>> len(train) + len(test), train.data.shape[1]
        (1797, 64)

    References:
        E. Alpaydin and C. Kaynak, "Optical Recognition of Handwritten Digits", UCI
        Machine Learning Repository (1998); scikit-learn's ``load_digits``.
    """

    def __init__(
        self,
        train: bool = True,
        test_fraction: float = 0.2,
        seed: int = 0,
        flatten: bool = True,
        transform: Transform | None = None,
        target_transform: Transform | None = None,
    ) -> None:
        if not 0.0 < test_fraction < 1.0:
            raise ValueError(f"Digits: test_fraction must be in (0, 1), got {test_fraction}")
        self.test_fraction = test_fraction
        self.seed = seed
        self.flatten = flatten
        super().__init__(train, transform, target_transform)

    def prepare(self) -> None:
        """Load the digits from scikit-learn and take this split."""
        images, labels = _load_sklearn_digits()
        order = np.random.default_rng(self.seed).permutation(len(labels))
        n_test = int(round(len(labels) * self.test_fraction))
        chosen = order[n_test:] if self.train else order[:n_test]
        data = images[chosen].astype(np.float32) / np.float32(16.0)
        self.data = data if self.flatten else data.reshape(-1, 1, 8, 8)
        self.label = labels[chosen].astype(np.int64)


def _load_sklearn_digits() -> tuple[np.ndarray, np.ndarray]:
    try:
        from sklearn.datasets import load_digits
    except ImportError as exc:
        raise ImportError(
            "Digits needs scikit-learn, which ships the 8x8 digits offline; install it with "
            "`pip install scikit-learn` (or `pip install minitorch[data]`)"
        ) from exc
    bunch = load_digits()
    return np.asarray(bunch.data), np.asarray(bunch.target)
