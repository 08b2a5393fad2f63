"""The IDX reader and MNIST on small IDX files written by the tests."""

from __future__ import annotations

import gzip
import struct
from pathlib import Path

import numpy as np
import pytest

from minitorch.data import MNIST, IDXError, read_idx
from minitorch.data.mnist import MAX_IDX_BYTES


def idx_bytes(array: np.ndarray, code: int) -> bytes:
    """Encode an array as IDX by the format's definition (independent of the reader)."""
    header = bytes([0, 0, code, array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape)
    big_endian = array.astype(array.dtype.newbyteorder(">"))
    return header + big_endian.tobytes()


def write(path: Path, payload: bytes) -> Path:
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(payload))
    else:
        path.write_bytes(payload)
    return path


def write_mnist(root: Path, n: int, train: bool = True, gz: bool = False) -> tuple:
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, n, dtype=np.uint8)
    prefix = "train" if train else "t10k"
    suffix = ".gz" if gz else ""
    write(root / f"{prefix}-images-idx3-ubyte{suffix}", idx_bytes(images, 0x08))
    write(root / f"{prefix}-labels-idx1-ubyte{suffix}", idx_bytes(labels, 0x08))
    return images, labels


@pytest.mark.parametrize("name", ["a-idx", "a-idx.gz"])
@pytest.mark.parametrize(
    ("dtype", "code"),
    [
        (np.uint8, 0x08),
        (np.int8, 0x09),
        (np.int16, 0x0B),
        (np.int32, 0x0C),
        (np.float32, 0x0D),
        (np.float64, 0x0E),
    ],
)
def test_read_idx_round_trips_every_type(tmp_path, name, dtype, code):
    array = (np.arange(24).reshape(2, 3, 4) - 5).astype(dtype)
    result = read_idx(write(tmp_path / name, idx_bytes(array, code)))
    assert result.dtype == np.dtype(dtype) and result.dtype.isnative
    np.testing.assert_array_equal(result, array)
    result[0, 0, 0] = 1  # writable, not a view of a bytes object


def test_read_idx_wrong_magic(tmp_path):
    path = write(tmp_path / "bad", b"\x00\x01\x08\x01" + struct.pack(">I", 1) + b"\x07")
    with pytest.raises(IDXError, match="bad has magic number 00010801"):
        read_idx(path)
    with pytest.raises(IDXError, match="type code"):
        read_idx(write(tmp_path / "code", b"\x00\x00\x07\x01" + struct.pack(">I", 1) + b"\x07"))
    with pytest.raises(IDXError, match="empty"):
        read_idx(write(tmp_path / "empty", b""))


@pytest.mark.parametrize("name", ["t-idx", "t-idx.gz"])
def test_read_idx_truncated_payload(tmp_path, name):
    payload = idx_bytes(np.arange(100, dtype=np.uint8), 0x08)[:-10]
    with pytest.raises(IDXError, match=r"declares shape \(100,\) \(100 bytes.*90 bytes"):
        read_idx(write(tmp_path / name, payload))


@pytest.mark.parametrize("name", ["x-idx", "x-idx.gz"])
def test_read_idx_trailing_data_is_an_error(tmp_path, name):
    payload = idx_bytes(np.arange(10, dtype=np.uint8), 0x08) + b"junk"
    with pytest.raises(IDXError, match="truncated or corrupt"):
        read_idx(write(tmp_path / name, payload))


def test_read_idx_truncated_header(tmp_path):
    with pytest.raises(IDXError, match="truncated header"):
        read_idx(write(tmp_path / "h", b"\x00\x00\x08\x03" + struct.pack(">I", 5)))


@pytest.mark.parametrize("name", ["huge-idx", "huge-idx.gz"])
def test_read_idx_huge_declared_size_is_rejected_before_allocating(tmp_path, name):
    header = b"\x00\x00\x0e\x03" + struct.pack(">3I", 2**32 - 1, 2**32 - 1, 2**32 - 1)
    with pytest.raises(IDXError, match="limit"):
        read_idx(write(tmp_path / name, header + b"\x00" * 64))
    # Just under the limit but far larger than the file: the size check catches it
    # without reading (plain) or after reading only the bytes present (gzip).
    n = MAX_IDX_BYTES // 8
    header = b"\x00\x00\x0e\x01" + struct.pack(">I", n)
    with pytest.raises(IDXError, match=f"{8 * n} bytes of data\\) but holds (at least )?64 bytes"):
        read_idx(write(tmp_path / name, header + b"\x00" * 64))


def test_read_idx_corrupt_gzip(tmp_path):
    good = gzip.compress(idx_bytes(np.arange(1000, dtype=np.uint8) % 7, 0x08))
    path = tmp_path / "c-idx.gz"
    path.write_bytes(good[:20] + bytes(b ^ 0xFF for b in good[20:40]) + good[40:])
    with pytest.raises(IDXError, match="c-idx.gz"):
        read_idx(path)
    path.write_bytes(b"not gzip at all")
    with pytest.raises(IDXError, match="could not be read"):
        read_idx(path)


@pytest.mark.parametrize("gz", [False, True])
def test_mnist_reads_train_and_test_splits(tmp_path, gz):
    images, labels = write_mnist(tmp_path, 7, train=True, gz=gz)
    test_images, _ = write_mnist(tmp_path, 3, train=False, gz=gz)
    ds = MNIST(tmp_path)
    assert ds.data.shape == (7, 1, 28, 28) and ds.data.dtype == np.uint8
    np.testing.assert_array_equal(ds.data[:, 0], images)
    np.testing.assert_array_equal(ds.label, labels)
    assert ds.label.dtype == np.int64
    np.testing.assert_array_equal(MNIST(tmp_path, train=False).data[:, 0], test_images)


def test_mnist_torchvision_layout(tmp_path):
    raw = tmp_path / "MNIST" / "raw"
    raw.mkdir(parents=True)
    write_mnist(raw, 2)
    assert len(MNIST(tmp_path)) == 2


def test_mnist_missing_file_names_file_and_folder(tmp_path):
    write_mnist(tmp_path, 2)
    (tmp_path / "train-labels-idx1-ubyte").unlink()
    with pytest.raises(FileNotFoundError, match=r"train-labels-idx1-ubyte\(\.gz\) not found in"):
        MNIST(tmp_path)


def test_mnist_wrong_counts(tmp_path):
    write_mnist(tmp_path, 5)
    write(tmp_path / "train-labels-idx1-ubyte", idx_bytes(np.zeros(4, np.uint8), 0x08))
    with pytest.raises(IDXError, match=r"labels of shape \(4,\) but .* holds 5 images"):
        MNIST(tmp_path)


def test_mnist_rejects_labels_out_of_range_and_wrong_rank(tmp_path):
    write_mnist(tmp_path, 3)
    write(tmp_path / "train-labels-idx1-ubyte", idx_bytes(np.array([1, 2, 12], np.uint8), 0x08))
    with pytest.raises(IDXError, match="outside 0..9"):
        MNIST(tmp_path)
    write(tmp_path / "train-images-idx3-ubyte", idx_bytes(np.zeros((3, 784), np.uint8), 0x08))
    with pytest.raises(IDXError, match=r"uint8 images \(N, rows, cols\)"):
        MNIST(tmp_path)


# ---- label files of other integer types ---------------------------------------------------


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
