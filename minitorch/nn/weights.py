"""Saving and loading a Module's weights as ``.npz``, safely.

A weight file is untrusted input. Loading uses ``np.load(..., allow_pickle=False)``, so
a file can never run code; it reads and checks *every* array against the model before
touching any parameter, so a wrong file raises one error listing every mismatch and the
model stays as it was. Saving writes a temporary file in the target directory and
renames it over the target with ``os.replace`` (atomic on POSIX and Windows), so a
crash mid-write never leaves a half-written weight file under the real name.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from typing import Any, Protocol

import numpy as np


class HasWeights(Protocol):
    """What this file needs of an ``nn.Module``: its named parameters, buffers and modules.

    A protocol, not the class itself: ``nn/module.py`` imports this file (its
    ``save_weights`` and friends call the functions here), so this file does not import
    it back.
    """

    def named_parameters(self) -> Iterator[tuple[str, Any]]: ...

    def named_buffers(self) -> Iterator[tuple[str, Any]]: ...

    def named_modules(self) -> Iterator[tuple[str, Any]]: ...


class WeightFileError(ValueError):
    """A weight file is unreadable, unsafe or does not match the model."""


def state_dict(module: HasWeights) -> dict[str, np.ndarray]:
    """Every parameter's and buffer's array of ``module``, keyed by dotted name.

    Raises:
        RuntimeError: if a parameter has no value yet (a lazy layer before its first call).
    """
    arrays: dict[str, np.ndarray] = {}
    for name, param in module.named_parameters():
        if param.data is None:
            raise RuntimeError(
                f"{type(module).__name__}: parameter {name!r} has no value yet (a lazy layer); "
                "run one forward pass before saving"
            )
        arrays[name] = param.data
    for name, buffer in module.named_buffers():
        if buffer is not None:
            arrays[name] = buffer
    return arrays


def save_weights(module: HasWeights, path: str | os.PathLike[str]) -> None:
    """Write ``module``'s state dict to ``path`` as an uncompressed ``.npz``, atomically.

    The archive is written member by member (``<name>.npy``, as ``np.savez`` does) into
    a temporary file beside ``path``, flushed to disk, then renamed over ``path``.

    Raises:
        RuntimeError: if a lazy parameter has no value yet.
        FileNotFoundError: if the folder of ``path`` does not exist (the message names
            ``path`` and the folder; nothing is written).
        NotADirectoryError: if the folder of ``path`` is a file.
        OSError: if the file cannot be written; the message names ``path`` (never the
            temporary file, which is removed).
    """
    arrays = state_dict(module)
    _check_folder(path)
    target = os.path.abspath(os.fspath(path))
    try:
        fd, tmp = _create_temporary(target)
    except OSError as exc:
        raise _cannot_write(exc, path) from None
    try:
        with os.fdopen(fd, "wb") as f:
            with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED) as archive:
                for name, array in arrays.items():
                    with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                        # order="C", not np.ascontiguousarray: that turns 0-d into (1,)
                        np.lib.format.write_array(
                            member, np.asarray(array, order="C"), allow_pickle=False
                        )
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        if isinstance(exc, OSError):
            raise _cannot_write(exc, path) from None
        raise


def _check_folder(path: str | os.PathLike[str]) -> None:
    folder = os.path.dirname(os.fspath(path)) or os.curdir
    if os.path.isdir(folder):
        return
    if os.path.exists(folder):
        raise NotADirectoryError(
            f"save_weights: cannot write {os.fspath(path)}: {folder} is a file, not a folder"
        )
    raise FileNotFoundError(
        f"save_weights: cannot write {os.fspath(path)}: the folder {folder} does not exist"
    )


def _cannot_write(exc: OSError, path: str | os.PathLike[str]) -> OSError:
    """The same kind of error, naming the user's ``path`` instead of the temporary file."""
    why = "it is a directory" if os.path.isdir(path) else (exc.strerror or str(exc))
    return type(exc)(f"save_weights: cannot write {os.fspath(path)}: {why}")


_O_BINARY = getattr(os, "O_BINARY", 0)  # Windows: no newline translation


def _create_temporary(target: str) -> tuple[int, str]:
    """Create a new, empty file beside ``target``; return its descriptor and path.

    Not ``tempfile.mkstemp``: that creates the file with mode 0600, so the renamed weight
    file would be unreadable to other users. Opened with mode 0666, the file gets the
    permissions the user's umask gives any new file (0644 typically), as ``np.savez``.
    """
    prefix = os.path.join(os.path.dirname(target), f".{os.path.basename(target)}.")
    while True:
        tmp = f"{prefix}{secrets.token_hex(8)}.tmp"
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_BINARY, 0o666), tmp
        except FileExistsError:  # a name clash with another writer: draw a new name
            continue


def load_weights(module: HasWeights, path: str | os.PathLike[str]) -> None:
    """Load a file written by :func:`save_weights` into ``module`` (all or nothing).

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        IsADirectoryError: if ``path`` is a directory.
        WeightFileError: naming the file, if it is not a readable ``.npz`` (corrupt,
            truncated, a pickle, object arrays) or does not match the model.
    """
    load_state_dict(module, read_npz(path), source=os.fspath(path))


def read_npz(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """Read every array of an ``.npz`` file with ``allow_pickle=False``.

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        IsADirectoryError: if ``path`` is a directory.
        WeightFileError: if the file is not a valid, pickle-free ``.npz`` archive (the
            message says which: not an ``.npz`` at all, a pickle, corrupt or truncated).
    """
    name = os.fspath(path)
    if os.path.isdir(path):
        raise IsADirectoryError(f"load_weights: {name} is a directory, not a weight file")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"load_weights: no such weight file: {name}")
    _check_magic(name)
    try:
        loaded = np.load(path, allow_pickle=False)
        if not isinstance(loaded, np.lib.npyio.NpzFile):
            raise WeightFileError(
                f"load_weights: {name} holds a single array, not an .npz archive "
                "of named weights (write it with Module.save_weights)"
            )
        with loaded:
            return {key: loaded[key] for key in loaded.files}
    except WeightFileError:
        raise
    except (zipfile.BadZipFile, zlib.error, ValueError, OSError, EOFError, KeyError) as exc:
        if "allow_pickle" in str(exc):  # NumPy's refusal of an object array
            raise WeightFileError(
                f"load_weights: {name} holds pickled (object) arrays; pickled data is "
                "never loaded, for safety (it could run code)"
            ) from exc
        raise WeightFileError(
            f"load_weights: {name} is not a valid .npz weight file "
            f"({type(exc).__name__}: {exc}); it may be truncated or corrupt"
        ) from exc


_NPZ_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")  # a zip archive (with members / empty)
_NPY_MAGIC = b"\x93NUMPY"


def _check_magic(name: str) -> None:
    """Refuse, by its first bytes, a file that is neither an ``.npz`` nor an ``.npy``.

    NumPy would try such a file as a pickle and report "pickled (object) data" even for
    plain garbage; a real pickle (protocol 2 or later starts with 0x80) is named as one.
    """
    with open(name, "rb") as f:
        head = f.read(6)
    if head.startswith(_NPZ_MAGIC) or head.startswith(_NPY_MAGIC):
        return
    if len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5:
        raise WeightFileError(
            f"load_weights: {name} is a pickle file; pickled files are never loaded, for "
            "safety (unpickling can run code). Save weights with Module.save_weights"
        )
    what = "is empty" if not head else "is not a zip archive, as every .npz is"
    raise WeightFileError(f"load_weights: {name} is not a valid .npz weight file (it {what})")


def _optional(owners: Mapping[str, HasWeights], name: str) -> bool:
    """Is buffer ``name`` one its module lets a weight file lack (``optional_buffers``)?"""
    prefix, _, key = name.rpartition(".")
    return key in getattr(owners[prefix], "optional_buffers", ())


def load_state_dict(
    module: HasWeights, arrays: Mapping[str, np.ndarray], source: str = ""
) -> None:
    """Validate ``arrays`` against ``module`` completely, then assign them.

    Each array is copied and cast to the dtype of the parameter/buffer it replaces; a
    lazy parameter (no value yet) takes the file's shape and dtype.

    Raises:
        WeightFileError: listing every missing, unexpected and mis-shaped or non-numeric
            array; nothing is assigned then.
    """
    current: dict[str, np.ndarray | None] = {
        name: param.data for name, param in module.named_parameters()
    }
    # A buffer still None (never filled) was not saved: load it only if the file has it;
    # likewise an optional one (BatchNorm's num_batches_tracked, in files saved before it
    # was always a buffer, as PyTorch accepts its old checkpoints).
    owners = dict(module.named_modules())
    current.update(
        {
            n: b
            for n, b in module.named_buffers()
            if n in arrays or (b is not None and not _optional(owners, n))
        }
    )
    problems = _mismatches(current, arrays)
    if problems:
        where = f"load_weights: {source}" if source else "load_state_dict"
        raise WeightFileError(
            f"{where} does not match {type(module).__name__}:\n  " + "\n  ".join(problems)
        )
    params = dict(module.named_parameters())
    for name, old in current.items():
        new = np.array(arrays[name], dtype=None if old is None else old.dtype)
        if name in params:
            params[name].data = new
        else:
            prefix, _, key = name.rpartition(".")
            setattr(owners[prefix], key, new)


def _mismatches(
    current: Mapping[str, np.ndarray | None], arrays: Mapping[str, object]
) -> list[str]:
    missing = [name for name in current if name not in arrays]
    unexpected = [name for name in arrays if name not in current]
    problems = []
    if missing:
        problems.append(f"missing arrays: {', '.join(missing)}")
    if unexpected:
        problems.append(f"unexpected arrays: {', '.join(unexpected)}")
    for name, old in current.items():
        new = arrays.get(name)
        if new is None:
            continue
        if not isinstance(new, np.ndarray) or new.dtype.kind not in "biuf":
            kind = new.dtype if isinstance(new, np.ndarray) else type(new).__name__
            problems.append(f"{name}: expected a numeric array, got {kind}")
        elif old is not None and new.shape != old.shape:
            problems.append(f"{name}: shape {new.shape} in the file, {old.shape} in the model")
    return problems
