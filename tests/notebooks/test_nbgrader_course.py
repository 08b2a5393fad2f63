"""The course as a teacher runs it with nbgrader (the optional ``course`` extra).

On one real notebook, with the repository's ``nbgrader_config.py``: ``nbgrader
generate_assignment`` and ``autograde`` give full marks to the solutions, 0 to the
untouched release, and to a submission with exactly one exercise solved exactly that
exercise's points — for every exercise, so no exercise costs points for another one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import nbformat
import pytest
from exercise_runner import ROOT, load_script

nbgrader = pytest.importorskip(
    "nbgrader",
    reason="nbgrader is not installed (pip install -e '.[course]' or make course installs "
    "nbgrader 0.9.x)",
)

NOTEBOOK = "01_variables_and_numerical_diff"


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


def _submit(
    root: Path,
    student: str,
    release: nbformat.NotebookNode,
    solved: set[int],
    source: nbformat.NotebookNode,
    pairs: list[tuple[int, int]],
) -> None:
    nb = nbformat.from_dict(release)
    for k in solved:
        cell = pairs[k][0]
        nb.cells[cell].source = source.cells[cell].source  # the teacher's solution
    folder = root / "submitted" / student / NOTEBOOK
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / f"{NOTEBOOK}.ipynb")
    for helper in (root / "release" / NOTEBOOK).glob("*.py"):
        (folder / helper.name).write_text(helper.read_text())


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A course directory after ``make_course`` and ``generate_assignment`` (done once)."""
    root = tmp_path_factory.mktemp("generated") / "course"
    make_course: ModuleType = load_script("make_course")
    assert make_course.make_course(root, [NOTEBOOK[:2]]) == [NOTEBOOK]
    _nbgrader("generate_assignment", NOTEBOOK, "--force", root=root)
    return root


def _copy(generated: Path, tmp_path: Path) -> Path:
    root = tmp_path / "course"
    shutil.copytree(generated, root)
    return root


@pytest.mark.slow
def test_autograde_gives_each_exercise_its_own_points(generated: Path, tmp_path: Path) -> None:
    root = _copy(generated, tmp_path)
    run_notebooks: ModuleType = load_script("run_notebooks")

    release = nbformat.read(root / "release" / NOTEBOOK / f"{NOTEBOOK}.ipynb", as_version=4)
    source = nbformat.read(root / "source" / NOTEBOOK / f"{NOTEBOOK}.ipynb", as_version=4)
    assert not (root / "release" / NOTEBOOK / "conftest.py").exists()
    pairs = run_notebooks.exercises(source)
    assert len(pairs) >= 2
    points = [source.cells[check].metadata["nbgrader"]["points"] for _, check in pairs]
    students = {"solved": set(range(len(pairs))), "untouched": set()}
    students.update({f"only{k + 1}": {k} for k in range(len(pairs))})
    for student, solved in students.items():
        _submit(root, student, release, solved, source, pairs)
    # everything solved, but exercise 2's cell stops at a SyntaxError: its name is never
    # defined, and that must cost exactly exercise 2's point (issue 28)
    _submit(root, "syntax2", release, set(range(len(pairs))), source, pairs)
    broken = root / "submitted" / "syntax2" / NOTEBOOK / f"{NOTEBOOK}.ipynb"
    nb = nbformat.read(broken, as_version=4)
    nb.cells[pairs[1][0]].source = "def numerical_diff(f, x, h=1e-4):\n    return (f(x + h)"
    nbformat.write(nb, broken)
    _nbgrader("autograde", NOTEBOOK, root=root)
    _nbgrader("generate_feedback", NOTEBOOK, "--student=only1", root=root)
    assert (root / "feedback" / "only1" / NOTEBOOK / f"{NOTEBOOK}.html").is_file()

    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        scores = {s: gradebook.find_submission(NOTEBOOK, s).score for s in students}
        max_score = gradebook.find_submission(NOTEBOOK, "solved").max_score
    assert max_score == sum(points)
    assert scores["solved"] == max_score, scores
    assert scores["untouched"] == 0, scores
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        syntax = gradebook.find_submission(NOTEBOOK, "syntax2").score
    assert syntax == max_score - points[1], f"one SyntaxError cost {max_score - syntax} points"
    for k in range(len(pairs)):
        assert scores[f"only{k + 1}"] == points[k], (
            f"exercise {k + 1} solved alone scored {scores[f'only{k + 1}']}, not {points[k]}"
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
