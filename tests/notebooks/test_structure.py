"""The course notebooks: structure, sources in sync, and the student version stripped."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
SOURCE_NOTEBOOKS = sorted(NOTEBOOKS.glob("[0-9]*.ipynb"))

SOLUTION = "### BEGIN SOLUTION"


def _read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def _solution_cells(nb: nbformat.NotebookNode) -> list[int]:
    return [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and SOLUTION in c.source]


def _solution_lines(source: str) -> list[str]:
    lines, inside = [], False
    for line in source.splitlines():
        marker = line.strip()
        if marker in ("### BEGIN SOLUTION", "### BEGIN HIDDEN TESTS"):
            inside = True
        elif marker in ("### END SOLUTION", "### END HIDDEN TESTS"):
            inside = False
        elif inside and marker:
            lines.append(marker)
    return lines


def test_there_are_notebooks() -> None:
    assert len(SOURCE_NOTEBOOKS) >= 1


def test_strip_source_replaces_solution_with_stub_at_its_indentation(
    make_student: ModuleType,
) -> None:
    source = "def f(x):\n    ### BEGIN SOLUTION\n    return x + 1\n    ### END SOLUTION\nf(1)"
    assert make_student.strip_source(source) == (
        "def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()\nf(1)"
    )


def test_strip_source_removes_hidden_tests(make_student: ModuleType) -> None:
    source = "check(a)\n### BEGIN HIDDEN TESTS\ncheck(b)\n### END HIDDEN TESTS\nok()"
    assert make_student.strip_source(source) == "check(a)\nok()"


@pytest.mark.parametrize(
    "source", ["### BEGIN SOLUTION\nx = 1", "x = 1\n### END SOLUTION", "### END HIDDEN TESTS"]
)
def test_strip_source_rejects_unbalanced_markers(make_student: ModuleType, source: str) -> None:
    with pytest.raises(ValueError, match="make_student"):
        make_student.strip_source(source)


def test_parse_cells_reads_markdown_code_and_tags(run_notebooks: ModuleType) -> None:
    text = '# %% [markdown]\n# # Title\n#\n# text\n\n# %% tags=["check"]\nx = 1\n'
    assert run_notebooks.parse_cells(text) == [
        ("markdown", [], "# Title\n\ntext"),
        ("code", ["check"], "x = 1"),
    ]


@pytest.mark.parametrize("path", SOURCE_NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_matches_its_python_source(path: Path, run_notebooks: ModuleType) -> None:
    built = run_notebooks.build_notebook(NOTEBOOKS / "src" / f"{path.stem}.py")
    stored = _read(path)
    assert [c.source for c in stored.cells] == [c.source for c in built.cells], (
        f"{path.name} differs from notebooks/src/{path.stem}.py: run `make notebooks`"
    )


@pytest.mark.parametrize("path", SOURCE_NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_has_goals_picture_summary_and_exercises(path: Path) -> None:
    nb = _read(path)
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "Learning goals" in nb.cells[0].source
    assert "## Summary" in markdown
    solutions = _solution_cells(nb)
    # 2-5 in the early notebooks; up to 9 where the student builds the pieces (07-13)
    assert 2 <= len(solutions) <= 9, f"{path.name} has {len(solutions)} exercises"
    for i in solutions:
        following = nb.cells[i + 1]
        assert "check" in following.metadata.get("tags", []), (
            f"{path.name}: exercise cell {i} is not followed by a check cell"
        )
    kinds = {
        kind
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        for kind in o.get("data", {})
    }
    html = [
        o["data"]["text/html"]
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if "text/html" in o.get("data", {})
    ]
    assert "image/png" in kinds or "image/svg+xml" in kinds or any("<svg" in h for h in html)


@pytest.mark.parametrize("path", SOURCE_NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_committed_executed_without_errors(path: Path) -> None:
    nb = _read(path)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    # what JupyterLab 4 writes on save: anything else marks the notebook modified on opening
    assert nb.metadata["kernelspec"]["display_name"] == "Python 3 (ipykernel)"
    for cell in nb.cells:
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        assert cell.execution_count is not None, f"{path.name}: a cell was not executed"
        errors = [o for o in cell.outputs if o["output_type"] == "error"]
        if "raises-exception" not in cell.metadata.get("tags", []):
            assert not errors, f"{path.name}: {errors[0]['ename']} in a cell"


@pytest.mark.parametrize("path", SOURCE_NOTEBOOKS, ids=lambda p: p.stem)
def test_student_version_has_every_exercise_stripped(path: Path, student_dir: Path) -> None:
    source, student = _read(path), _read(student_dir / path.name)
    assert len(source.cells) == len(student.cells)
    student_text = "\n".join(c.source for c in student.cells)
    outside = "\n".join(
        line.strip()
        for c in source.cells
        for line in c.source.splitlines()
        if line.strip() not in _solution_lines(c.source)
    )
    for index in _solution_cells(source):
        stripped = student.cells[index].source
        assert "# YOUR CODE HERE" in stripped and "raise NotImplementedError()" in stripped
    for marker in ("### BEGIN SOLUTION", "### END SOLUTION", "HIDDEN TESTS"):
        assert marker not in student_text
    student_lines = {line.strip() for line in student_text.splitlines()}
    for cell in source.cells:
        for line in _solution_lines(cell.source):
            if line not in outside:
                assert line not in student_lines, f"solution text left in {path.name}: {line}"


@pytest.mark.parametrize("path", SOURCE_NOTEBOOKS, ids=lambda p: p.stem)
def test_student_version_has_no_outputs(path: Path, student_dir: Path) -> None:
    for cell in _read(student_dir / path.name).cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None


def test_student_directory_has_the_helper_module(student_dir: Path) -> None:
    assert (student_dir / "checks.py").is_file()


def test_student_directory_has_no_nbval_conftest(student_dir: Path) -> None:
    """nbval's conftest.py belongs to the test suite; in a student folder it would make
    pytest skip the student's own notebooks and confuse anyone who opens it."""
    assert (NOTEBOOKS / "conftest.py").is_file()  # so this test can fail
    assert not (student_dir / "conftest.py").exists()


def test_course_source_has_the_helpers_but_not_conftest(tmp_path: Path) -> None:
    from exercise_runner import load_script

    names = load_script("make_course").make_course(tmp_path, ["01"])
    folder = tmp_path / "source" / names[0]
    assert (folder / f"{names[0]}.ipynb").is_file() and (folder / "checks.py").is_file()
    assert not (folder / "conftest.py").exists()


def test_exercises_are_paired_with_their_checks(run_notebooks: ModuleType) -> None:
    nb = run_notebooks.build_notebook(NOTEBOOKS / "src" / "01_variables_and_numerical_diff.py")
    pairs = run_notebooks.exercises(nb)
    assert len(pairs) == 4
    for solution, check in pairs:
        assert "### BEGIN SOLUTION" in nb.cells[solution].source
        assert "check" in nb.cells[check].metadata["tags"] and check > solution


@pytest.mark.parametrize("path", SOURCE_NOTEBOOKS, ids=lambda p: p.stem)
def test_outputs_hold_nothing_that_changes_between_runs(path: Path) -> None:
    """NumPy scalar reprs, memory addresses and kernel paths would break nbval elsewhere."""
    for cell in _read(path).cells:
        for output in cell.get("outputs", []):
            texts = [output.get("text", "")] + [
                v for k, v in output.get("data", {}).items() if k in ("text/plain",)
            ]
            for text in texts:
                for fragile in ("np.float", "np.int", " at 0x", "/tmp/ipykernel_"):
                    assert fragile not in text, f"{path.name}: {fragile!r} in an output"


@pytest.mark.parametrize("path", SOURCE_NOTEBOOKS, ids=lambda p: p.stem)
def test_grade_ids_read_as_notebook_and_exercise(path: Path, run_notebooks: ModuleType) -> None:
    """A gradebook row says ``nb06_ex4``, matching "06 Ex4" in the notebook (issue 28)."""
    stored = _read(path)
    built = run_notebooks.build_notebook(NOTEBOOKS / "src" / f"{path.stem}.py")
    assert [c.metadata.get("nbgrader") for c in stored.cells] == [
        c.metadata.get("nbgrader") for c in built.cells
    ], f"{path.name}: nbgrader metadata differs from the source's: run `make notebooks`"
    for k, (solution, check) in enumerate(run_notebooks.exercises(stored), start=1):
        assert stored.cells[check].metadata["nbgrader"]["grade_id"] == f"nb{path.name[:2]}_ex{k}"
        assert stored.cells[solution].metadata["nbgrader"]["grade_id"] == (
            f"nb{path.name[:2]}_ex{k}_answer"
        )
        assert f"Exercise {k}" in "\n".join(
            c.source for c in stored.cells[:solution] if c.cell_type == "markdown"
        )
