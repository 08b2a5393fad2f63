"""``MNIST`` from local IDX files, and ``read_idx``, a validating IDX reader.

The IDX format (LeCun et al., http://yann.lecun.com/exdb/mnist/) is a header —
two zero bytes, a type code, the number of dimensions ``d``, then ``d`` big-endian
uint32 sizes — followed by the values in C order, big-endian. A file is untrusted
input: the reader checks the magic number and compares the size the header declares
with the bytes really present *before* building the array, and it reads gzip streams in
chunks, so a forged header can never make it allocate gigabytes.
"""

from __future__ import annotations

import gzip
import os
import zlib
from pathlib import Path
from typing import Protocol

import numpy as np

from minitorch.data.dataset import Dataset, Transform

#: IDX type codes and the big-endian dtype each one stands for.
IDX_DTYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
#: The largest payload read_idx accepts (MNIST's training images are 47 MB).
MAX_IDX_BYTES = 1 << 31
_CHUNK = 1 << 20

MNIST_FILES = {
    True: ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    False: ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}


class _Reader(Protocol):
    def read(self, size: int, /) -> bytes: ...


class IDXError(ValueError):
    """An IDX file is malformed: wrong magic number, type code or size."""


def read_idx(path: str | os.PathLike[str]) -> np.ndarray:
    """Read one IDX file (plain, or gzip if the name ends in ``.gz``) into an ndarray.

    Shapes:
        the dimensions declared in the header; dtype native-endian version of the
        declared type (``uint8`` for MNIST).

    Args:
        path: the file.

    Returns:
        A new, writable ndarray.

    Raises:
        FileNotFoundError: if the file does not exist.
        IDXError: (a ``ValueError``) naming the file, if the magic number or type code is
            wrong, the declared size exceeds :data:`MAX_IDX_BYTES`, or the payload is
            shorter or longer than declared (truncated or corrupt file).

    Example:
        >>> import tempfile, pathlib
        >>> f = pathlib.Path(tempfile.mkdtemp()) / "tiny-idx1-ubyte"
        >>> _ = f.write_bytes(bytes([0, 0, 0x08, 1, 0, 0, 0, 3, 7, 8, 9]))
        >>> read_idx(f)
        array([7, 8, 9], dtype=uint8)

    References:
        Y. LeCun, C. Cortes, C. J. C. Burges, "The MNIST database of handwritten digits",
        section "File formats" (IDX).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"read_idx: no such file {path}")
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as f:
            dtype, shape = _read_header(f, path)
            nbytes = int(np.prod(shape, dtype=object)) * dtype.itemsize
            if nbytes > MAX_IDX_BYTES:
                raise IDXError(
                    f"read_idx: {path} declares shape {shape} ({nbytes} bytes), more than the "
                    f"{MAX_IDX_BYTES}-byte limit; the header is corrupt"
                )
            if opener is open and (size := path.stat().st_size - f.tell()) != nbytes:
                raise IDXError(_size_message(path, shape, nbytes, size))
            payload = _read_exactly(f, nbytes, path, shape)
    except (OSError, EOFError, zlib.error) as exc:
        raise IDXError(f"read_idx: {path} could not be read ({exc}); the file is corrupt") from exc
    return np.frombuffer(payload, dtype=dtype).reshape(shape).astype(dtype.newbyteorder("="))


def _read_header(f: _Reader, path: Path) -> tuple[np.dtype, tuple[int, ...]]:
    magic = f.read(4)
    if len(magic) < 4 or magic[0] != 0 or magic[1] != 0 or magic[2] not in IDX_DTYPES:
        raise IDXError(
            f"read_idx: {path} has magic number {magic.hex() or '(empty)'}; an IDX file starts "
            "with 00 00, a type code (08 09 0b 0c 0d 0e) and the number of dimensions"
        )
    ndim = magic[3]
    dims = f.read(4 * ndim)
    if ndim == 0 or len(dims) < 4 * ndim:
        raise IDXError(f"read_idx: {path} has a truncated header ({ndim} dimensions declared)")
    shape = tuple(int(d) for d in np.frombuffer(dims, dtype=">u4"))
    return np.dtype(IDX_DTYPES[magic[2]]), shape


def _read_exactly(f: _Reader, nbytes: int, path: Path, shape: tuple[int, ...]) -> bytes:
    """Read the payload in chunks: memory grows with the data present, not the header."""
    chunks: list[bytes] = []
    total = 0
    while total <= nbytes:
        chunk = f.read(min(_CHUNK, nbytes - total + 1))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total != nbytes:
        raise IDXError(_size_message(path, shape, nbytes, total, at_least=total > nbytes))
    return b"".join(chunks)


def _size_message(
    path: Path, shape: tuple[int, ...], nbytes: int, actual: int, at_least: bool = False
) -> str:
    more = "at least " if at_least else ""
    return (
        f"read_idx: {path} declares shape {shape} ({nbytes} bytes of data) but holds "
        f"{more}{actual} bytes; the file is truncated or corrupt"
    )


class MNIST(Dataset):
    """The MNIST handwritten digits, read from the four IDX files in a local folder.

    Nothing is downloaded. Put ``train-images-idx3-ubyte``, ``train-labels-idx1-ubyte``,
    ``t10k-images-idx3-ubyte`` and ``t10k-labels-idx1-ubyte`` (each plain or ``.gz``) in
    ``root`` (or in ``root/MNIST/raw``, torchvision's layout).

    Shapes:
        ``data`` ``(N, 1, 28, 28)`` uint8 (N = 60,000 train / 10,000 test); ``label``
        ``(N,)`` int64 in ``0..9``. Use ``transform=Compose([Flatten(), ToFloat(),
        Normalize(0.0, 255.0)])`` for ``[0, 1]`` float vectors.

    Args:
        root: the folder holding the files.
        train: the training files (``True``) or the test files.
        transform: applied to each image.
        target_transform: applied to each label.

    Raises:
        FileNotFoundError: naming the missing file and the folder to put it in.
        IDXError: (a ``ValueError``) naming the file, if it is corrupt, truncated, not 3-d
            uint8 images / 1-d integer labels, the counts differ, or a label is outside
            ``0..9``.

    Example:
        >>> MNIST("/nonexistent")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        FileNotFoundError: MNIST: train-images-idx3-ubyte(.gz) not found in /nonexistent...

    References:
        Y. LeCun, L. Bottou, Y. Bengio, P. Haffner, "Gradient-based learning applied to
        document recognition", Proc. IEEE 86(11), 1998.
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        train: bool = True,
        transform: Transform | None = None,
        target_transform: Transform | None = None,
    ) -> None:
        self.root = Path(root)
        super().__init__(train, transform, target_transform)

    def prepare(self) -> None:
        """Find, read and check this split's two IDX files."""
        image_name, label_name = MNIST_FILES[self.train]
        image_path, label_path = self._find(image_name), self._find(label_name)
        images, labels = read_idx(image_path), read_idx(label_path)
        if images.ndim != 3 or images.dtype != np.uint8:
            raise IDXError(
                f"MNIST: {image_path} should hold uint8 images (N, rows, cols), "
                f"got {images.dtype} {images.shape}"
            )
        if labels.ndim != 1 or len(labels) != len(images):
            raise IDXError(
                f"MNIST: {label_path} holds labels of shape {labels.shape} but {image_path} "
                f"holds {len(images)} images; the files do not belong together"
            )
        if labels.dtype.kind not in "iu":  # a float 2.5 would silently become class 2
            raise IDXError(f"MNIST: {label_path} should hold integer labels, got {labels.dtype}")
        if labels.size and (labels.min() < 0 or labels.max() > 9):
            raise IDXError(
                f"MNIST: {label_path} has labels outside 0..9 "
                f"(min {labels.min()}, max {labels.max()})"
            )
        self.data = images[:, None, :, :]
        self.label = labels.astype(np.int64)

    def _find(self, name: str) -> Path:
        for folder in (self.root, self.root / "MNIST" / "raw"):
            for candidate in (folder / name, folder / f"{name}.gz"):
                if candidate.is_file():
                    return candidate
        raise FileNotFoundError(
            f"MNIST: {name}(.gz) not found in {self.root} (nor in {self.root / 'MNIST' / 'raw'}); "
            "minitorch never downloads: fetch the four IDX files (train-images-idx3-ubyte, "
            "train-labels-idx1-ubyte, t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte, plain "
            f"or .gz) from the MNIST page or a mirror and put them in {self.root}"
        )
