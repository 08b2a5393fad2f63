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


# What a student may add to an answer cell of notebook 05 (calls of their own to backward),
# which its check must survive: exercise (0-based) -> the lines appended to the answer.
OWN_BACKWARD_CALLS = {
    1: "z.backward()\nz.backward()",  # the old check ran backward itself
    2: "loss.backward(retain_grad=True)",
}


def _run_with_answers(stem: str, extras: dict[int, str]) -> list[str]:
    """Run ``stem``, solutions in, in one kernel; each exercise ``k`` of ``extras`` is
    answered with ``extras[k]`` appended and its check run three times, then answered
    as written for the cells after it. Return the errors of those answers and checks."""
    run_notebooks = load_script("run_notebooks")
    nb = run_notebooks.build_notebook(SOURCES / f"{stem}.py")
    pairs = run_notebooks.exercises(nb)
    variants = {pairs[k][0]: (k, extra) for k, extra in extras.items()}
    last = max(pairs[k][1] for k in extras)
    errors, kernel = [], Kernel()
    try:
        for i, cell in enumerate(nb.cells[: last + 1]):
            if cell.cell_type != "code":
                continue
            if i in variants:
                k, extra = variants[i]
                check = nb.cells[pairs[k][1]].source
                for code in (cell.source + "\n" + extra,) + (check,) * 3:
                    ename, evalue = kernel.run(code)
                    if ename:
                        errors.append(f"exercise {k + 1}: {ename}: {evalue}")
            ename, evalue = kernel.run(cell.source)
            assert not ename, f"cell {i}: {ename}: {evalue}"
    finally:
        kernel.close()
    return errors


@pytest.mark.slow
def test_a_check_survives_the_students_own_backward_calls() -> None:
    assert _run_with_answers("05_seeing_the_graph", OWN_BACKWARD_CALLS) == []
