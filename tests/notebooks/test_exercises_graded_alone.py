"""Every exercise is graded on its own, in the student copy, and the copy runs as handed out.

For each notebook source (``notebooks/src/*.py``, so a new notebook is covered as soon as
it exists), one kernel started in the student copy's folder (``make student``) plays a
student who solved one exercise at a time (``exercise_runner.play_notebook``): with the
stub, the check must say "this exercise is not done yet"; with the solution it must pass,
and pass again when run twice and after the answer cell is re-run; then the stub is put
back, and every cell that is not an exercise must run with the exercises unsolved. So a
student copy runs top to bottom until its exercises, and nbgrader takes exactly one point
for one mistake.

One kernel per notebook keeps the cost linear in the course. The notebooks are split
over two classes so that ``pytest -n 2 --dist loadscope`` plays the halves in parallel.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from exercise_runner import (
    SOURCES,
    Kernel,
    load_script,
    play_notebook,
    source_notebooks,
)

# About half of the playing time each (the training notebooks 10, 11 and 13 are the long ones).
FIRST_HALF, SECOND_HALF = source_notebooks(last="09"), source_notebooks(first="10")


def _id(source: Path) -> str:
    return source.stem


def _play(source: Path, student_dir: Path) -> None:
    problems = play_notebook(source, cwd=student_dir)
    assert not problems, "\n".join(problems)


@pytest.mark.slow
class TestNotebooks01To09:
    @pytest.mark.parametrize("source", FIRST_HALF, ids=_id)
    def test_each_exercise_is_graded_on_its_own(self, source: Path, student_dir: Path) -> None:
        _play(source, student_dir)


@pytest.mark.slow
class TestNotebooks10On:
    @pytest.mark.parametrize("source", SECOND_HALF, ids=_id)
    def test_each_exercise_is_graded_on_its_own(self, source: Path, student_dir: Path) -> None:
        _play(source, student_dir)


# A notebook whose exercise 2 is graded only if exercise 1 is solved, and whose last cell
# needs exercise 1 too: both must be reported, which needs the stub of 1 put back.
ENTANGLED = """\
# %%
class NotDoneYet(Exception):
    pass

# %%
def first():
    ### BEGIN SOLUTION
    return 1
    ### END SOLUTION

# %% tags=["check"]
try:
    assert first() == 1
except NotImplementedError:
    raise NotDoneYet("this exercise is not done yet") from None

# %%
### BEGIN SOLUTION
second = 2
### END SOLUTION

# %% tags=["check"]
if "second" not in globals():
    raise NotDoneYet("this exercise is not done yet")
assert second == 2 * first()

# %%
print(first())

# %%
### BEGIN SOLUTION
third = 3
### END SOLUTION

# %% tags=["check"]
if "third" not in globals():
    raise NotDoneYet("this exercise is not done yet")
"""


def test_the_player_finds_an_exercise_graded_only_with_an_earlier_one(tmp_path: Path) -> None:
    source = tmp_path / "99_entangled.py"
    source.write_text(ENTANGLED)
    problems = play_notebook(source, cwd=tmp_path)
    assert len(problems) == 2, problems
    assert problems[0].startswith("99 exercise 2: check: NotImplementedError"), problems
    assert problems[1].startswith("99 cell 5 failed with the other exercises unsolved"), problems


# ---- a check survives what a student adds to the answer cell ------------------------------


def _run_with_answer(stem: str, k: int, answer_suffix: str) -> list[str]:
    """Run ``stem`` up to exercise ``k`` (0-based), solved with ``answer_suffix`` appended
    to the answer cell, then its check three times; return the errors."""
    run_notebooks = load_script("run_notebooks")
    nb = run_notebooks.build_notebook(SOURCES / f"{stem}.py")
    solution, check = run_notebooks.exercises(nb)[k]
    errors, kernel = [], Kernel()
    try:
        for i, cell in enumerate(nb.cells[:solution]):
            if cell.cell_type == "code":
                ename, evalue = kernel.run(cell.source)
                assert not ename, f"cell {i}: {ename}: {evalue}"
        for code in (nb.cells[solution].source + "\n" + answer_suffix,) + (
            nb.cells[check].source,
        ) * 3:
            ename, evalue = kernel.run(code)
            if ename:
                errors.append(f"{ename}: {evalue}")
    finally:
        kernel.close()
    return errors


@pytest.mark.slow
@pytest.mark.parametrize(
    ("stem", "k", "extra"),
    [
        ("05_seeing_the_graph", 1, "z.backward()\nz.backward()"),  # the old check ran backward
        ("05_seeing_the_graph", 2, "loss.backward(retain_grad=True)"),
    ],
)
def test_a_check_survives_the_students_own_backward_calls(stem: str, k: int, extra: str) -> None:
    assert _run_with_answer(stem, k, extra) == []
