"""The Makefile's recipes, read with ``make -n`` (nothing runs): what a fresh user meets."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="no `make` program")


def dry_run(target: str) -> list[str]:
    """The commands ``make -n TARGET`` would run, one per line."""
    done = subprocess.run(
        ["make", "-n", target], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return done.stdout.splitlines()


def test_lab_passes_allow_root_only_as_root() -> None:
    (line,) = [line for line in dry_run("lab") if "jupyter lab" in line]
    # Jupyter refuses to start as root without --allow-root; evaluate the recipe's shell
    # words with `echo` in place of jupyter to see the flags it would get.
    shown = subprocess.run(
        ["bash", "-c", line.replace(".venv/bin/jupyter", "echo", 1)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert shown[:2] == ["lab", "notebooks"]
    assert ("--allow-root" in shown) == (os.geteuid() == 0)


def torch_note_command() -> str:
    """The shell command that ``make pytest`` runs just before pytest: the torch note."""
    text = "\n".join(dry_run("pytest"))
    start = text.index('.venv/bin/python -c "import importlib')
    return text[start : text.index(".venv/bin/pytest", start)]


@pytest.mark.parametrize("has_torch", [False, True])
def test_make_test_says_the_torch_cross_checks_are_skipped_only_without_torch(
    has_torch: bool,
) -> None:
    if has_torch and importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed here")
    # Without site-packages (python -S) torch cannot be found: the branch of a fresh laptop.
    python = sys.executable if has_torch else f"{sys.executable} -S"
    command = torch_note_command().replace(".venv/bin/python", python, 1)
    printed = subprocess.run(
        ["bash", "-c", command], capture_output=True, text=True, check=True
    ).stdout
    if has_torch:
        assert printed == ""
    else:
        assert printed.count("\n") == 1 and "PyTorch cross-checks are skipped" in printed
        assert "CROSSCHECK=1 make test" in printed and "torch==2.13.0" in printed


def test_readme_says_how_to_run_the_torch_cross_checks() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.index("make demo") < readme.index("make test") < readme.index("CROSSCHECK")
    assert "`CROSSCHECK=1 make test` installs `torch==2.13.0`" in readme


def test_lab_student_opens_the_student_copies() -> None:
    lines = dry_run("lab-student")
    assert any("scripts/make_student.py --out build/student" in line for line in lines)
    (line,) = [line for line in lines if "jupyter lab" in line]
    assert "jupyter lab build/student" in line


def test_course_lays_out_nbgrader_source_and_installs_the_extra() -> None:
    text = "\n".join(dry_run("course"))
    assert "scripts/make_course.py" in text
    assert ",course]" in text  # the optional extra with nbgrader


def test_demo_and_test_need_no_graphviz_install() -> None:
    # graphviz-pure (the viz extra) draws the pictures: no apt-get, no ensure_graphviz.sh
    for target in ("demo", "pytest", "notebooks"):
        text = "\n".join(dry_run(target))
        assert "ensure_graphviz" not in text and "install -y -qq graphviz" not in text, target


def test_notebooks_and_nbval_use_the_pinned_renderer() -> None:
    (nbval,) = [line for line in dry_run("pytest") if "--nbval" in line]
    assert nbval.startswith("MINITORCH_VIZ_RENDERER=graphviz-pure ")
    (run,) = [line for line in dry_run("notebooks") if "run_notebooks.py" in line]
    assert run.startswith("MINITORCH_VIZ_RENDERER=graphviz-pure ")
    source = (ROOT / "scripts" / "run_notebooks.py").read_text(encoding="utf-8")
    assert '"MINITORCH_VIZ_RENDERER": "graphviz-pure"' in source  # run directly, too
