"""Importing the peer frameworks the same way everywhere (lazily, single-threaded).

DeZero 0.0.13 predates NumPy 1.24, which removed ``np.int``; it also imports matplotlib
and PIL when it loads. PyTorch must be pinned to one thread like NumPy's BLAS (the
environment variables are set by ``run.py`` before anything imports NumPy).
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any

import numpy as np


@functools.cache
def dezero() -> ModuleType:
    """Return the ``dezero`` package (0.0.13), raising ImportError if it is missing."""
    if not hasattr(np, "int"):
        np.int = int  # type: ignore[attr-defined]  # DeZero 0.0.13 still uses np.int
    import dezero as dz  # noqa: PLC0415
    import dezero.functions  # noqa: F401, PLC0415
    import dezero.functions_conv  # noqa: F401, PLC0415

    return dz


@functools.cache
def torch() -> ModuleType:
    """Return ``torch`` pinned to one intra-op and one inter-op thread."""
    import torch as th  # noqa: PLC0415

    th.set_num_threads(1)
    try:
        th.set_num_interop_threads(1)
    except RuntimeError:  # only allowed before the first parallel work; fine if late
        pass
    return th


def versions() -> dict[str, Any]:
    """Versions of everything the benchmark compares, for the results file."""
    import platform  # noqa: PLC0415

    import minitorch  # noqa: PLC0415

    out: dict[str, Any] = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "minitorch": minitorch.__version__,
        "machine": platform.machine(),
        "processor": platform.processor() or platform.machine(),
    }
    for name, loader in (("dezero", dezero), ("torch", torch)):
        try:
            out[name] = getattr(loader(), "__version__", "?")
        except ImportError:
            out[name] = None
    return out
