"""The root conftest.py reports skipped tests in one line per reason, not one per file."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]


def root_conftest() -> object:
    spec = importlib.util.spec_from_file_location("root_conftest", ROOT / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_skips_in_many_files_are_one_line() -> None:
    # Under the repository (build/ is git-ignored), so that the root conftest.py applies.
    folder = ROOT / "build" / "skip-summary-test"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    try:
        for k in range(4):
            (folder / f"test_needs_{k}.py").write_text(
                "import pytest\n\n\n"
                "def test_it():\n"
                "    pytest.importorskip('minitorch_has_no_such_module')\n\n\n"
                "def test_runs():\n"
                "    assert True\n",
                encoding="utf-8",
            )
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider",
             str(folder)],
            cwd=ROOT, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    lines = [line for line in done.stdout.splitlines() if "SKIPPED" in line]
    assert done.returncode == 0, done.stdout + done.stderr
    assert lines == [
        "SKIPPED 4 tests: could not import 'minitorch_has_no_such_module': "
        "No module named 'minitorch_has_no_such_module'"
    ], done.stdout


def test_missing_torch_names_the_cross_checks_and_how_to_run_them() -> None:
    conftest = root_conftest()
    report = SimpleNamespace(
        longrepr=("tests/x.py", 3, "Skipped: could not import 'torch': No module named 'torch'")
    )
    reason = conftest.skip_reason(report)  # type: ignore[attr-defined]
    assert reason.startswith("could not import 'torch'")
    assert "PyTorch cross-checks" in reason and "CROSSCHECK=1 make test" in reason
