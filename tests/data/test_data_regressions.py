"""Regression tests for data bugs found in review (each failed before its fix)."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from minitorch.data import MNIST, IDXError


def _write_idx(path: Path, array: np.ndarray, code: int) -> None:
    header = bytes([0, 0, code, array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape)
    path.write_bytes(header + array.astype(array.dtype.newbyteorder(">")).tobytes())


def _mnist_with_labels(root: Path, labels: np.ndarray, code: int) -> None:
    _write_idx(root / "train-images-idx3-ubyte", np.zeros((len(labels), 28, 28), np.uint8), 0x08)
    _write_idx(root / "train-labels-idx1-ubyte", labels, code)


def test_mnist_rejects_negative_labels_of_a_signed_label_file(tmp_path):
    _mnist_with_labels(tmp_path, np.array([-1, 3, 5], dtype=np.int8), 0x09)
    with pytest.raises(IDXError, match=r"labels outside 0..9 \(min -1"):
        MNIST(tmp_path)


def test_mnist_rejects_float_labels_instead_of_truncating_them(tmp_path):
    _mnist_with_labels(tmp_path, np.array([2.5, 3.0, 1.0], dtype=np.float32), 0x0D)
    with pytest.raises(IDXError, match="should hold integer labels, got float32"):
        MNIST(tmp_path)


def test_mnist_accepts_signed_integer_labels_in_range(tmp_path):
    _mnist_with_labels(tmp_path, np.array([0, 9, 4], dtype=np.int16), 0x0B)
    np.testing.assert_array_equal(MNIST(tmp_path).label, [0, 9, 4])


def test_history_with_an_infinite_loss_saves_standard_json(tmp_path):
    import json
    import math

    from minitorch.history import History

    h = History()
    h.log(loss=math.inf)
    h.log(loss=-math.inf, accuracy=0.5)
    h.log(loss=float("nan"))
    path = tmp_path / "h.json"
    h.save(path)

    def reject(token: str) -> None:
        raise ValueError(f"not standard JSON: {token}")

    json.loads(path.read_text(), parse_constant=reject)  # wrote Infinity before
    back = History.load(path)
    assert back["loss"][:2] == [math.inf, -math.inf] and math.isnan(back["loss"][2])
    assert back["accuracy"][1] == 0.5 and math.isnan(back["accuracy"][0])
