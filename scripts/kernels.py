"""Jupyter kernels for the test runs, talking over Unix sockets instead of TCP ports.

Two pytest workers start kernels side by side (nbval, the graded-alone exercises, the
feedback tests). Over TCP, jupyter_client picks each kernel's five ports by binding port 0
and letting it go again; the kernel binds them a moment later, and if another process took
one in between, the kernel stops with ``Address already in use`` and the test run reports
``Kernel died before replying to kernel_info`` for every cell of that notebook (seen once in
CI, in ``make nbval``). Unix sockets in a folder of this process's own leave nothing to
race for.

The socket path must be absolute: the kernel runs in the notebook's folder, the client in
the repository root, and a relative path would name two different files.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

_SOCKET_DIR: tempfile.TemporaryDirectory[str] | None = None


def kernel_transport() -> dict[str, str]:
    """Keyword arguments for a ``jupyter_client`` kernel manager: Unix sockets where possible.

    Returns:
        ``{"transport": "ipc", "ip": "<private folder>/kernel"}`` on POSIX systems, where
        jupyter_client names each socket ``<ip>-<n>`` and skips names already taken; ``{}``
        elsewhere (Windows), which keeps TCP.
    """
    global _SOCKET_DIR
    if os.name != "posix":
        return {}
    if _SOCKET_DIR is None:
        # Removed when the interpreter exits; shutting a kernel down removes its sockets.
        _SOCKET_DIR = tempfile.TemporaryDirectory(prefix="minitorch-kernels-")
    return {"transport": "ipc", "ip": os.path.join(_SOCKET_DIR.name, "kernel")}


def kernel_manager(manager_class: Any = None, **kwargs: Any) -> Any:
    """A kernel manager (``jupyter_client.KernelManager`` by default) on :func:`kernel_transport`.

    ``kwargs`` go to the manager's constructor (``kernel_name=...``, and for nbval its
    ``kernel_spec_manager``); nbval calls this in place of ``KernelManager``.
    """
    if manager_class is None:
        from jupyter_client.manager import KernelManager

        manager_class = KernelManager
    return manager_class(**kernel_transport(), **kwargs)


def start_kernel(cwd: str, kernel_name: str = "python3", startup_timeout: float = 60) -> Any:
    """Start a kernel in ``cwd`` and wait until it answers; return ``(manager, client)``.

    Raises:
        RuntimeError: the kernel died or did not answer within ``startup_timeout`` seconds
            (the kernel is shut down first).
    """
    manager = kernel_manager(kernel_name=kernel_name)
    manager.start_kernel(cwd=cwd)
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=startup_timeout)
    except RuntimeError:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
        raise
    return manager, client
