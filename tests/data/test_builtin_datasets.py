"""Spiral, SineCurve and Digits."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from minitorch.data import Digits, SineCurve, Spiral


def test_spiral_follows_the_dezero_construction():
    ds = Spiral(noise=0.0)
    assert ds.data.shape == (300, 2) and ds.data.dtype == np.float32
    assert np.bincount(ds.label).tolist() == [100, 100, 100]
    radius = np.hypot(ds.data[:, 0], ds.data[:, 1])
    # Without noise, theta = 4 j + 4 r exactly, with r the radius.
    theta = np.arctan2(ds.data[:, 0], ds.data[:, 1])
    expected = 4.0 * ds.label + 4.0 * radius
    wrapped = np.angle(np.exp(1j * (theta - expected)))
    assert np.all(np.abs(wrapped[radius > 1e-6]) < 1e-4)
    assert radius.max() < 1.0


def test_spiral_is_seeded_and_train_test_differ():
    np.testing.assert_array_equal(Spiral().data, Spiral().data)
    assert not np.array_equal(Spiral(train=True).data, Spiral(train=False).data)
    with pytest.raises(ValueError, match="num_per_class"):
        Spiral(num_per_class=0)


def test_sine_curve_regression_form():
    ds = SineCurve(num_samples=200, noise=0.0)
    assert ds.data.shape == (200, 1) == ds.label.shape
    np.testing.assert_allclose(ds.label, np.sin(2 * np.pi * ds.data), atol=1e-6)
    noisy = SineCurve(num_samples=200)
    residual = noisy.label - np.sin(2 * np.pi * noisy.data)
    assert residual.min() >= -1e-6 and residual.max() <= 1.0 + 1e-6


def test_sine_curve_sequence_form_targets_are_next_values():
    ds = SineCurve(num_samples=100, sequence=True)
    assert ds.data.shape == (99, 1)
    np.testing.assert_array_equal(ds.data[1:], ds.label[:-1])
    test = SineCurve(train=False, num_samples=100, sequence=True)
    np.testing.assert_allclose(
        test.data[:, 0], np.cos(np.linspace(0, 4 * np.pi, 100))[:-1], atol=1e-6
    )


def test_digits_split_is_disjoint_and_complete():
    pytest.importorskip("sklearn")
    train, test = Digits(train=True), Digits(train=False)
    assert len(train) + len(test) == 1797 and len(test) == 359
    assert train.data.dtype == np.float32 and train.data.max() <= 1.0
    rows = {row.tobytes() for row in train.data}
    assert not any(row.tobytes() in rows for row in test.data)
    assert Digits(flatten=False).data.shape[1:] == (1, 8, 8)


def test_digits_without_sklearn_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn", None)
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)
    with pytest.raises(ImportError, match="pip install scikit-learn"):
        Digits()
