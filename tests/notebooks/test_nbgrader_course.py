"""The course as a teacher runs it with nbgrader (the optional ``course`` extra).

On two real notebooks, with the repository's ``nbgrader_config.py``: ``nbgrader
generate_assignment`` and ``autograde`` give full marks to the solutions, 0 to the
untouched release, and to a submission with exactly one exercise solved exactly that
exercise's points — for every exercise, so no exercise costs points for another one; a
cell that does not parse costs its own exercise only.

nbgrader's commands start a fresh process each (about 5 s before any work), so the
module generates both assignments in one call and grades every submission of both in
one ``autograde`` call; the tests then read the one gradebook.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import nbformat
import pytest
from exercise_runner import ROOT, load_script

nbgrader = pytest.importorskip(
    "nbgrader",
    reason="nbgrader is not installed (pip install -e '.[course]' or make course installs "
    "nbgrader 0.9.x)",
)

NOTEBOOK = "01_variables_and_numerical_diff"
CAPSTONE = "13_your_own_framework"


def _nbgrader(*args: str, root: Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    # nbgrader calls its `alembic` helper by name: the environment's bin/ must be on PATH
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    exchange = root.parent / "exchange"
    command = [sys.executable, "-m", "nbgrader", *args, f"--Exchange.root={exchange}"]
    if cwd == ROOT:  # the teacher's side: nbgrader_config.py there gives the course id
        command.append(f"--CourseDirectory.root={root}")
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"nbgrader {args[0]} failed:\n{done.stdout}\n{done.stderr}"
    return done


def _notebooks(root: Path, name: str) -> tuple[nbformat.NotebookNode, nbformat.NotebookNode]:
    """The release and the source (with the solutions) of assignment ``name``."""
    release = nbformat.read(root / "release" / name / f"{name}.ipynb", as_version=4)
    source = nbformat.read(root / "source" / name / f"{name}.ipynb", as_version=4)
    return release, source


def _submit(
    root: Path,
    student: str,
    release: nbformat.NotebookNode,
    solved: set[int],
    source: nbformat.NotebookNode,
    pairs: list[tuple[int, int]],
    name: str = NOTEBOOK,
) -> Path:
    """Submit ``release`` with the exercises ``solved`` (0-based) as ``student``'s."""
    nb = nbformat.from_dict(release)
    for k in solved:
        cell = pairs[k][0]
        nb.cells[cell].source = source.cells[cell].source  # the teacher's solution
    folder = root / "submitted" / student / name
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / f"{name}.ipynb")
    for helper in (root / "release" / name).glob("*.py"):
        (folder / helper.name).write_text(helper.read_text())
    return folder / f"{name}.ipynb"


def _break(path: Path, cell: int, source: str | None = None, append: str = "") -> None:
    """Replace (or extend) cell ``cell`` of the submitted notebook at ``path``."""
    nb = nbformat.read(path, as_version=4)
    nb.cells[cell].source = (nb.cells[cell].source if source is None else source) + append
    nbformat.write(nb, path)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A course directory after ``make_course`` and ``generate_assignment`` of both
    notebooks (done once, in one nbgrader call)."""
    root = tmp_path_factory.mktemp("generated") / "course"
    make_course: ModuleType = load_script("make_course")
    assert make_course.make_course(root, [NOTEBOOK[:2], CAPSTONE[:2]]) == [NOTEBOOK, CAPSTONE]
    _nbgrader("generate_assignment", "*", "--force", root=root)
    for name in (NOTEBOOK, CAPSTONE):
        assert (root / "release" / name / f"{name}.ipynb").is_file(), name
    return root


def _copy(generated: Path, tmp_path: Path) -> Path:
    root = tmp_path / "course"
    shutil.copytree(generated, root)
    return root


# Notebook 01: every exercise solved; none; each one alone; all but exercise 2, whose cell
# stops at a SyntaxError (its name is never defined: that must cost exactly its point).
# The capstone (13) has the longest chain: Exercise 4's SoftmaxCrossEntropy is used by the
# training (7) and the gradients (8); a typo that makes its cell unparsable must cost
# Exercise 4's points only (docs/for-teachers.md promises it).
SYNTAX_BROKEN, CAPSTONE_BROKEN = 1, 3  # 0-based: exercise 2 of 01, exercise 4 of 13


@pytest.fixture(scope="module")
def graded(generated: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every submission of both notebooks, graded by one ``nbgrader autograde`` call."""
    root = _copy(generated, tmp_path_factory.mktemp("graded"))
    run_notebooks: ModuleType = load_script("run_notebooks")
    assert not (root / "release" / NOTEBOOK / "conftest.py").exists()
    release, source = _notebooks(root, NOTEBOOK)
    pairs = run_notebooks.exercises(source)
    assert len(pairs) >= 2
    students = {"solved": set(range(len(pairs))), "untouched": set()}
    students.update({f"only{k + 1}": {k} for k in range(len(pairs))})
    for student, solved in students.items():
        _submit(root, student, release, solved, source, pairs)
    broken = _submit(root, "syntax2", release, set(range(len(pairs))), source, pairs)
    _break(
        broken, pairs[SYNTAX_BROKEN][0], "def numerical_diff(f, x, h=1e-4):\n    return (f(x + h)"
    )

    cap_release, cap_source = _notebooks(root, CAPSTONE)
    cap_pairs = run_notebooks.exercises(cap_source)
    typo = _submit(root, "typo", cap_release, set(range(len(cap_pairs))), cap_source,
                   cap_pairs, name=CAPSTONE)  # fmt: skip
    _break(typo, cap_pairs[CAPSTONE_BROKEN][0],
           append="\n    def broken(:  # a typo: the cell does not parse\n")  # fmt: skip

    _nbgrader("autograde", "*", root=root)  # every assignment, every student, one process
    _nbgrader("generate_feedback", NOTEBOOK, "--student=only1", root=root)

    from nbgrader.api import Gradebook

    def points(nb: nbformat.NotebookNode, exercises: list[tuple[int, int]]) -> list[float]:
        return [nb.cells[check].metadata["nbgrader"]["points"] for _, check in exercises]

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        scores = {s: gradebook.find_submission(NOTEBOOK, s).score for s in [*students, "syntax2"]}
        max_score = gradebook.find_submission(NOTEBOOK, "solved").max_score
        capstone = gradebook.find_submission(CAPSTONE, "typo")
        cap_score, cap_max = capstone.score, capstone.max_score
    return {
        "root": root,
        "points": points(source, pairs),
        "scores": scores,
        "max_score": max_score,
        "capstone_points": points(cap_source, cap_pairs),
        "capstone": (cap_score, cap_max),
    }


@pytest.mark.slow
def test_autograde_gives_each_exercise_its_own_points(graded: dict[str, Any]) -> None:
    root, points, scores, max_score = (
        graded[k] for k in ("root", "points", "scores", "max_score")
    )
    assert (root / "feedback" / "only1" / NOTEBOOK / f"{NOTEBOOK}.html").is_file()
    assert max_score == sum(points)
    assert scores["solved"] == max_score, scores
    assert scores["untouched"] == 0, scores
    for k in range(len(points)):
        assert scores[f"only{k + 1}"] == points[k], (
            f"exercise {k + 1} solved alone scored {scores[f'only{k + 1}']}, not {points[k]}"
        )


@pytest.mark.slow
def test_one_syntax_error_costs_only_its_own_exercise(graded: dict[str, Any]) -> None:
    """A cell that does not even parse (so it defines nothing) loses its own exercise's
    points, and the exercises built on it fall back to the notebook's stand-ins instead of
    failing too: in notebook 01 (exercise 2) and in the capstone (exercise 4)."""
    points, max_score = graded["points"], graded["max_score"]
    syntax = graded["scores"]["syntax2"]
    assert syntax == max_score - points[SYNTAX_BROKEN], (
        f"one SyntaxError cost {max_score - syntax} points"
    )
    (score, cap_max), cap_points = graded["capstone"], graded["capstone_points"]
    assert cap_max == sum(cap_points)
    assert score == cap_max - cap_points[CAPSTONE_BROKEN], (
        f"one syntax error in exercise {CAPSTONE_BROKEN + 1} cost {cap_max - score} points, "
        f"not {cap_points[CAPSTONE_BROKEN]}"
    )


@pytest.mark.slow
def test_release_fetch_submit_collect_on_one_machine(generated: Path, tmp_path: Path) -> None:
    """The cycle of docs/for-teachers.md: the course id comes from nbgrader_config.py."""
    root, student = _copy(generated, tmp_path), tmp_path / "student"
    student.mkdir()
    _nbgrader("release_assignment", NOTEBOOK, root=root)
    outbound = root.parent / "exchange" / "minitorch" / "outbound" / NOTEBOOK
    assert (outbound / f"{NOTEBOOK}.ipynb").is_file() and (outbound / "checks.py").is_file()
    _nbgrader("fetch_assignment", NOTEBOOK, "--course=minitorch", root=root, cwd=student)
    assert (student / NOTEBOOK / f"{NOTEBOOK}.ipynb").is_file()
    _nbgrader("submit", NOTEBOOK, "--course=minitorch", root=root, cwd=student)
    _nbgrader("collect", NOTEBOOK, root=root)
    assert list((root / "submitted").glob(f"*/{NOTEBOOK}/{NOTEBOOK}.ipynb"))
