"""Defects a student and a teacher found in notebooks 01-06, each pinned by a test.

The general ones (templates, "not done yet", each exercise graded alone, checks that
run twice) are tested for every notebook in test_exercise_templates.py and
test_exercises_graded_alone*.py; here are the cases those cannot express.
"""

from __future__ import annotations

import re

import nbformat
import numpy as np
import pytest
from exercise_runner import NOTEBOOKS, SOURCES, Kernel, load_script

from minitorch import Variable


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


def _source(stem: str) -> str:
    return (SOURCES / f"{stem}.py").read_text()


def _outputs(stem: str) -> str:
    nb = nbformat.read(NOTEBOOKS / f"{stem}.ipynb", as_version=4)
    return "\n".join(
        o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs
    )


def test_04_says_an_int_has_mul_and_returns_not_implemented() -> None:
    assert (2).__mul__(Variable(np.ones(1))) is NotImplemented  # the fact the prose states
    text = _source("04_operator_overloading")
    assert not re.search(r"has no `?__mul__`?", text), "04 claims an int has no __mul__"
    assert "An int *has* a `__mul__`" in text and "NotImplemented" in text
    assert "returns NotImplemented, so Python calls x.__rmul__(2)" in _outputs(
        "04_operator_overloading"
    )


def test_06_calls_the_growth_of_higher_order_graphs_exponential() -> None:
    match = re.search(r"Functions per order: ([\d, ]+)", _outputs("06_higher_order_derivatives"))
    assert match, "06 should print the graph sizes per order"
    sizes = [int(n) for n in match.group(1).replace(", ", " ").replace(",", "").split()]
    # The first derivative's graph is the forward Tanh and its backward, one TanhGrad.
    assert len(sizes) == 10 and sizes[0] == 2 and sizes == sorted(sizes)
    ratios = np.array(sizes[1:]) / np.array(sizes[:-1])
    assert np.all(ratios[-5:] > 2.5), "the graphs grow by a constant factor per order"
    text = _source("06_higher_order_derivatives")
    assert "rather than exponential" not in text and "stays polynomial" not in text
    assert "grow **exponentially** in the order" in text
    factor = f"{ratios[-5:].prod() ** 0.2:.1f}"  # the prose states the factor the output shows
    assert f"about {factor} per order" in text and f"about ×{factor} per order" in text


def test_notebook_06_prose_gives_the_size_its_output_prints() -> None:
    """Issue 28: the prose said 33 Functions for the fourth derivative, the output 29."""
    nb = nbformat.read(NOTEBOOKS / "06_higher_order_derivatives.ipynb", as_version=4)
    printed = "".join(
        o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs
    )
    size = re.search(r"derivative 4: its graph has (\d+) Functions", printed)
    assert size, "the sizes of the derivatives' graphs are no longer printed"
    prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert f"has {size.group(1)} Functions (printed above)" in prose


def test_course_page_leads_with_the_student_copies() -> None:
    """Issue 28: docs/course.md led with `make lab`, which opens the solutions."""
    text = (NOTEBOOKS.parent / "docs" / "course.md").read_text()
    section = text[text.index("## Running them yourself") :]
    first_command = re.search(r"```bash\n(make [\w-]+)", section)
    assert first_command and first_command.group(1) == "make lab-student", section[:300]
