"""The test runs' kernels talk over Unix sockets, so two workers cannot race for a TCP port.

CI once lost a whole notebook to ``Kernel died before replying to kernel_info``: nbval's
two workers started kernels side by side and one kernel's port was taken before it bound
it (``scripts/kernels.py``).
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest
from exercise_runner import NOTEBOOKS, load_script

kernels = load_script("kernels")
pytestmark = pytest.mark.skipif(os.name != "posix", reason="Unix sockets need a POSIX system")


def run(client, code: str) -> str:
    """Run ``code`` in the kernel and return what it printed."""
    printed: list[str] = []

    def hook(msg: dict) -> None:
        if msg["msg_type"] == "stream":
            printed.append(msg["content"]["text"])

    reply = client.execute_interactive(code, output_hook=hook, timeout=60)
    assert reply["content"]["status"] == "ok", reply["content"]
    return "".join(printed)


def test_a_kernel_in_another_folder_answers_over_unix_sockets(tmp_path: Path) -> None:
    manager, client = kernels.start_kernel(cwd=str(tmp_path))
    try:
        info = manager.get_connection_info()
        assert info["transport"] == "ipc"
        # absolute: the kernel (in tmp_path) and this process must name the same files
        assert os.path.isabs(info["ip"])
        assert Path(f"{info['ip']}-{info['shell_port']}").exists()
        assert run(client, "import os; print(os.getcwd())").strip() == str(tmp_path)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    assert not Path(f"{info['ip']}-{info['shell_port']}").exists()  # sockets cleaned up


def test_two_kernels_at_once_get_sockets_of_their_own(tmp_path: Path) -> None:
    started = [kernels.start_kernel(cwd=str(tmp_path)) for _ in range(2)]
    try:
        sockets = [
            {f"{m.ip}-{m.get_connection_info()[name]}" for name in ("shell_port", "iopub_port")}
            for m, _ in started
        ]
        assert not sockets[0] & sockets[1]
        assert [run(c, "print(6 * 7)").strip() for _, c in started] == ["42", "42"]
    finally:
        for manager, client in started:
            client.stop_channels()
            manager.shutdown_kernel(now=True)


def test_nbval_starts_its_kernels_over_unix_sockets() -> None:
    nbval_kernel = pytest.importorskip("nbval.kernel")
    original = nbval_kernel.KernelManager
    spec = importlib.util.spec_from_file_location("notebooks_conftest", NOTEBOOKS / "conftest.py")
    assert spec is not None and spec.loader is not None
    try:
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
        manager, client = nbval_kernel.start_new_kernel(
            kernel_name=nbval_kernel.CURRENT_ENV_KERNEL_NAME, cwd=str(NOTEBOOKS)
        )
        try:
            assert manager.transport == "ipc"
            assert run(client, "print(1 + 1)").strip() == "2"
        finally:
            client.stop_channels()
            manager.shutdown_kernel(now=True)
    finally:
        nbval_kernel.KernelManager = original
