"""The Makefile's recipes, read with ``make -n`` (nothing runs): what a fresh user meets."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="no `make` program")


# The environment of a make started by a test: without the flags of a `make test` around it.
# Without the flags of an enclosing make, and without CI/CROSSCHECK (which add the
# crosscheck extra to the test targets: CI runs this file under CI=true).
MAKE_ENV = {
    k: v
    for k, v in os.environ.items()
    if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "CI", "CROSSCHECK")
}


def dry_run(target: str) -> list[str]:
    """The commands ``make -n TARGET`` would run, one per line."""
    done = subprocess.run(
        ["make", "-n", target], cwd=ROOT, capture_output=True, text=True, check=True, env=MAKE_ENV
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
    assert "venv_extras.sh .venv lab,course" in text  # the optional extra with nbgrader


def test_demo_and_test_need_no_graphviz_install() -> None:
    # graphviz-pure (the viz extra) draws the pictures: no apt-get, no ensure_graphviz.sh
    for target in ("demo", "pytest", "notebooks"):
        text = "\n".join(dry_run(target))
        assert "ensure_graphviz" not in text and "install -y -qq graphviz" not in text, target


def test_notebooks_and_nbval_use_the_pinned_renderer() -> None:
    (nbval,) = [line for line in dry_run("nbval") if "--nbval" in line]
    assert nbval.startswith("MINITORCH_VIZ_RENDERER=graphviz-pure ")
    (run,) = [line for line in dry_run("notebooks") if "run_notebooks.py" in line]
    assert run.startswith("MINITORCH_VIZ_RENDERER=graphviz-pure ")
    source = (ROOT / "scripts" / "run_notebooks.py").read_text(encoding="utf-8")
    assert '"MINITORCH_VIZ_RENDERER": "graphviz-pure"' in source  # run directly, too


# ---- what each command installs ----------------------------------------------------------

EXTRAS_OF = {
    "demo": "demo",
    "lab": "lab",
    "student": "lab",
    "notebooks": "lab",
    "docs": "docs",
    "course": "lab,course",
    "bench": "viz,bench",
    "milestones": "demo,milestones",
    "lint": "demo,dev,docs,lab,course,milestones,text",
    "pytest": "demo,dev,docs,lab,course,milestones,text",
    "test": "demo,dev,docs,lab,course,milestones,text",
}


@pytest.mark.parametrize("target", sorted(EXTRAS_OF))
def test_each_command_installs_only_its_own_extras(target: str) -> None:
    installs = [line for line in dry_run(target) if "venv_extras.sh" in line or "pip " in line]
    assert installs, f"make {target} installs nothing"
    wanted = {extra for line in installs for extra in line.split()[-1].split(",")}
    assert wanted == set(EXTRAS_OF[target].split(",")), (target, installs)


FAKE_PYTHON = """#!/bin/sh
echo "$@" >> "$(dirname "$0")/../pip.log"
"""


@pytest.fixture
def fake_venv(tmp_path: Path) -> Path:
    """A .venv whose python only logs its arguments, in a project with a pyproject.toml."""
    (tmp_path / "pyproject.toml").write_text("[project]\n")
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text(FAKE_PYTHON)
    (venv / "bin" / "python").chmod(0o755)
    return venv


def ensure(venv: Path, extras: str) -> list[str]:
    """Run scripts/venv_extras.sh for ``extras``; return the pip commands it ran since."""
    log = venv / "pip.log"
    before = log.read_text().splitlines() if log.exists() else []
    subprocess.run(
        [str(ROOT / "scripts" / "venv_extras.sh"), str(venv), extras],
        cwd=venv.parent,
        capture_output=True,
        check=True,
    )
    return (log.read_text().splitlines() if log.exists() else [])[len(before) :]


def test_extras_are_installed_once_and_a_later_command_adds_only_its_own(
    fake_venv: Path,
) -> None:
    assert ensure(fake_venv, "demo") == ["-m pip install -q --no-compile -e .[demo]"]
    assert ensure(fake_venv, "demo") == []  # a second `make demo` runs no pip
    # `make test` after `make demo`: one pip run with everything, the demo kept
    assert ensure(fake_venv, "demo,dev,lab") == [
        "-m pip install -q --no-compile -e .[demo,dev,lab]"
    ]
    assert ensure(fake_venv, "lab") == []
    assert (fake_venv / ".extras").read_text().strip() == "demo,dev,lab"


def test_an_edited_pyproject_installs_the_extras_again(fake_venv: Path) -> None:
    ensure(fake_venv, "demo,dev")
    stamp = fake_venv / ".extras"
    os.utime(stamp, (stamp.stat().st_mtime - 10,) * 2)  # pyproject.toml is now newer
    assert ensure(fake_venv, "demo") == ["-m pip install -q --no-compile -e .[demo]"]
    assert stamp.read_text().strip() == "demo"


def test_make_test_prints_the_time_of_each_phase_and_stops_at_a_failure(
    fake_venv: Path,
) -> None:
    (fake_venv / ".extras").write_text("demo,dev,docs,lab,course,milestones,text,crosscheck\n")
    done = subprocess.run(
        ["make", "test", f"VENV={fake_venv}", "TEST_PHASES=help no-such-phase help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=MAKE_ENV,
    )
    assert done.returncode != 0
    out = done.stdout
    times = out[out.index("make test, time per phase:") :].splitlines()[1:]
    assert [line.split()[0] for line in times[:2]] == ["help", "no-such-phase"]
    assert all(line.split()[-1] == "s" and line.split()[-2].isdigit() for line in times[:2])
    assert "make test: no-such-phase failed" in out
    assert (fake_venv / "pip.log").exists() is False  # the extras were there already


def test_make_test_runs_every_phase_the_readme_promises() -> None:
    help_text = subprocess.run(
        ["make", "help"], cwd=ROOT, capture_output=True, text=True, check=True, env=MAKE_ENV
    ).stdout
    assert "phases: make lint typecheck docs pytest nbval doctest" in help_text


# ---- make help and the docs --------------------------------------------------------------

MAKE_COMMAND = re.compile(r"(?:`|^\s*)(?:[A-Z_]+=\S+ )*make ([a-z][a-z-]*)", re.MULTILINE)


def documented_targets() -> dict[str, str]:
    """Every ``make X`` the README and the docs show (in code), with one file naming it."""
    pages = [ROOT / "README.md", ROOT / "notebooks" / "README.md", *ROOT.glob("docs/**/*.md")]
    found: dict[str, str] = {}
    for page in pages:
        for target in MAKE_COMMAND.findall(page.read_text(encoding="utf-8")):
            found.setdefault(target, str(page.relative_to(ROOT)))
    return found


def test_make_help_lists_every_target_the_docs_mention() -> None:
    help_text = subprocess.run(
        ["make", "help"], cwd=ROOT, capture_output=True, text=True, check=True, env=MAKE_ENV
    ).stdout
    listed = set(re.findall(r"^make ([a-z][a-z-]*)", help_text, re.MULTILINE))
    documented = documented_targets()
    assert {"demo", "test", "lab", "lab-student", "docs", "bench"} <= set(documented)
    missing = {t: where for t, where in documented.items() if t not in listed}
    assert not missing, f"`make help` does not list: {missing}"


# ---- JupyterLab without nbgrader's teacher tools -----------------------------------------


def jupyter_lab_command(target: str) -> str:
    (line,) = [line for line in dry_run(target) if "jupyter lab" in line]
    return line


@pytest.mark.parametrize("target", ["lab", "lab-student"])
def test_lab_switches_nbgrader_off_through_the_config_path(target: str) -> None:
    line = jupyter_lab_command(target)
    config = ROOT / "scripts" / "jupyter"
    assert line.startswith(f"JUPYTER_CONFIG_PATH={config}")
    page = json.loads((config / "labconfig" / "page_config.json").read_text())
    assert page["disabledExtensions"] == {"@jupyter/nbgrader": True}  # menus, Validate
    server = json.loads((config / "jupyter_server_config.json").read_text())
    switched = server["ServerApp"]["jpserver_extensions"]
    assert switched and not any(switched.values())
    assert all(name.startswith("nbgrader.server_extensions.") for name in switched)


NBGRADER_SERVER = Path(sys.prefix, "etc", "jupyter", "jupyter_server_config.d", "nbgrader.json")


@pytest.mark.slow
def test_lab_starts_without_nbgrader_errors_or_teacher_tools(tmp_path: Path) -> None:
    """Start JupyterLab as `make lab` does, read its log and its page's configuration."""
    if importlib.util.find_spec("jupyterlab") is None or not NBGRADER_SERVER.exists():
        pytest.skip("needs jupyterlab and nbgrader (the lab and course extras)")
    enabled = json.loads(NBGRADER_SERVER.read_text())["ServerApp"]["jpserver_extensions"]
    switched = json.loads(
        (ROOT / "scripts" / "jupyter" / "jupyter_server_config.json").read_text()
    )
    assert set(enabled) <= set(switched["ServerApp"]["jpserver_extensions"])
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "JUPYTER_CONFIG_PATH": str(ROOT / "scripts" / "jupyter")}
    env["JUPYTER_RUNTIME_DIR"] = str(tmp_path / "runtime")
    lab = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "notebooks", "--no-browser", "--allow-root",
         f"--port={port}", "--IdentityProvider.token=t", "--ServerApp.open_browser=False"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        page, deadline = "", time.monotonic() + 120
        while not page and time.monotonic() < deadline and lab.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/lab?token=t") as reply:
                    page = reply.read().decode()
            except OSError:
                time.sleep(0.3)
    finally:
        lab.terminate()
        log = lab.communicate(timeout=60)[0]
    assert page, log
    config = re.search(
        r'id="jupyter-config-data" type="application/json">(.*?)</script>', page, re.S
    )
    assert config, page[:500]
    disabled = json.loads(config.group(1))["disabledExtensions"]
    assert "@jupyter/nbgrader" in disabled
    errors = [line for line in log.splitlines() if line.startswith("[E ")]
    assert not errors, errors
    assert "nbgrader" not in log, log  # no nbgrader server extension was loaded
