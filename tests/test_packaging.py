"""pyproject.toml: the package installs without warnings, and `make demo` installs little."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

BUILD_METADATA = """\
import tempfile
from setuptools import build_meta
print(build_meta.prepare_metadata_for_build_wheel(tempfile.mkdtemp(dir='.')))
print(build_meta.build_editable(tempfile.mkdtemp(dir='.')))  # what `make` installs
"""


def test_metadata_and_editable_wheel_build_without_warnings_and_have_the_spdx_license(
    tmp_path: Path,
) -> None:
    setuptools = pytest.importorskip("setuptools")
    if int(setuptools.__version__.split(".")[0]) < 77:
        pytest.skip("pyproject.toml needs setuptools>=77 (the SPDX license form)")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, tmp_path / name)
    for package in ("minitorch", "viz"):  # the metadata needs the layout, not the code
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    done = subprocess.run(
        [sys.executable, "-c", BUILD_METADATA],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    # e.g. `project.license` as a table, or the boxed "Editable installation" warning of
    # setuptools' import-hook strategy (package-dir avoids it)
    assert "Warning" not in done.stderr and "!!" not in done.stderr, done.stderr
    dist_info = next(tmp_path.glob("tmp*/minitorch-*.dist-info"))
    metadata = (dist_info / "METADATA").read_text(encoding="utf-8")
    assert "License-Expression: MIT" in metadata
    assert "License-File: LICENSE" in metadata


# ---- the demo extra: what `make demo` installs -------------------------------------------

# What `make demo` installs and imports: NumPy, the renderer (graphviz + graphviz-pure),
# matplotlib with Pillow, the progress bar and scikit-learn's digits. Nothing for Jupyter,
# the docs or the tests.
DEMO_REQUIREMENTS = {
    "numpy",
    "graphviz",
    "graphviz-pure",
    "matplotlib",
    "pillow",
    "tqdm",
    "scikit-learn",
}
HEAVY = {"jupyterlab", "nbgrader", "mkdocs", "playwright", "mypy", "torch", "anywidget"}
DEMO_VENV_LIMIT_MB = 400

# Runs the demo (one epoch) as a lean .venv would: importing a module of any distribution
# outside the allowed ones (argv[2], JSON) fails, as it would where it is not installed.
DEMO_WITHOUT_THE_REST = """\
import json, runpy, sys
from importlib import metadata

allowed = set(json.loads(sys.argv[2])) | {"minitorch"}
providers = metadata.packages_distributions()
hidden = {
    module for module, names in providers.items()
    if not {n.lower().replace("_", "-") for n in names} & allowed
} - {"examples", "viz", "minitorch"}
tried = set()


class NotInTheDemoVenv:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in hidden:
            tried.add(name.split(".")[0])
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, NotInTheDemoVenv())
sys.argv = ["demo", "--epochs", "1", "--no-progress", "--out", sys.argv[1]]
try:
    runpy.run_module("examples.demo", run_name="__main__", alter_sys=True)
except SystemExit as exit:
    assert not exit.code, exit.code
print(json.dumps(sorted(tried)))
"""


def _name(requirement: str) -> str:
    from packaging.requirements import Requirement

    return Requirement(requirement).name.lower().replace("_", "-")


def project_requirements(extras: set[str]) -> set[str]:
    """minitorch's own requirements with ``extras``, following ``minitorch[...]`` entries."""
    from packaging.requirements import Requirement

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    found, todo, seen = set(), list(project["dependencies"]), set()
    todo += [r for extra in extras for r in project["optional-dependencies"][extra]]
    while todo:
        requirement = Requirement(todo.pop())
        if requirement.name == "minitorch":
            new = requirement.extras - seen
            seen |= new
            todo += [r for extra in new for r in project["optional-dependencies"][extra]]
        elif requirement.marker is None or requirement.marker.evaluate():
            found.add(_name(str(requirement)))
    return found


def installed_closure(names: set[str]) -> set[str]:
    """``names`` and everything they require, as installed here (lower-case names)."""
    from importlib import metadata

    from packaging.requirements import Requirement

    closure, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name in closure:
            continue
        closure.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        for text in requires:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(_name(text))
    return closure


def test_the_demo_extra_is_exactly_what_the_demo_needs() -> None:
    pytest.importorskip("packaging")
    demo = project_requirements({"demo"})
    assert demo == DEMO_REQUIREMENTS, sorted(demo ^ DEMO_REQUIREMENTS)
    assert not installed_closure(demo) & HEAVY


def test_the_demo_extra_is_viz_without_the_widget_plus_tqdm_and_scikit_learn() -> None:
    """The demo lists viz's requirements itself (without anywidget): the same pins."""
    tomllib = pytest.importorskip("tomllib")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
    viz = [r for r in extras["viz"] if _name(r) != "anywidget"]
    assert [r for r in extras["demo"] if _name(r) not in ("tqdm", "scikit-learn")] == viz
    assert set(extras["data"]) <= set(extras["demo"])


def test_the_demo_runs_with_only_the_demo_extra_installed(tmp_path: Path) -> None:
    """Every distribution outside the demo extra's closure is hidden from the demo's
    imports: it must still train and write every picture."""
    pytest.importorskip("packaging")
    closure = installed_closure(project_requirements({"demo"}))
    done = subprocess.run(
        [sys.executable, "-c", DEMO_WITHOUT_THE_REST, str(tmp_path), json.dumps(sorted(closure))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "final test accuracy" in done.stdout
    written = {p.name for p in tmp_path.iterdir()}
    assert {"loss_graph.svg", "backward.html", "training.png", "predictions.png"} <= written


def test_the_demo_venv_stays_under_400_mb() -> None:
    """The files of the demo extra's distributions, as installed here, plus pip and
    setuptools: what `make demo` puts into .venv (without bytecode; it installs with
    --no-compile, so Python compiles only what it imports)."""
    pytest.importorskip("packaging")
    from importlib import metadata

    sizes, missing = 0, []
    for name in installed_closure(project_requirements({"demo"})) | {"pip", "setuptools"}:
        try:
            files = metadata.distribution(name).files or []
        except metadata.PackageNotFoundError:
            missing.append(name)
            continue
        for file in files:
            if "__pycache__" not in file.parts and file.size:
                sizes += file.size
    if missing:
        pytest.skip(f"not installed here: {', '.join(sorted(missing))}")
    assert sizes / 2**20 <= DEMO_VENV_LIMIT_MB, f"{sizes / 2**20:.0f} MB"


def test_the_course_pages_install_line_brings_jupyterlab_and_what_the_notebooks_use() -> None:
    """docs/course.md: `pip install -e ".[X]"`, then `jupyter lab <folder>`, must work."""
    pytest.importorskip("packaging")
    page = (ROOT / "docs" / "course.md").read_text(encoding="utf-8")
    lines = re.findall(r'^pip install -e "\.\[([a-z,]+)\]"$', page, re.MULTILINE)
    assert len(lines) == 1, lines
    assert re.search(r"^jupyter lab (notebooks|build/student)$", page, re.MULTILINE)
    installed = project_requirements(set(lines[0].split(",")))
    assert {"jupyterlab", "anywidget", "graphviz-pure", "matplotlib", "scikit-learn"} <= installed
