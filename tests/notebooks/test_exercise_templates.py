"""Every exercise can be solved from the student version as shown.

A check cell may read a name (or a string key, or an attribute) that the solution
defines — `predictions`, its keys, `x.cube` — only if the student version introduces it
*outside* the solution region: in the prose or in the exercise cell's template. Otherwise
the student sees a stub and a check that expects something never named (notebook 04's
dtype predictions and notebook 05's `predicted_order` did exactly that). Data-driven over
every ``notebooks/src/*.py``, so new notebooks are covered.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from types import ModuleType

import nbformat
import pytest
from exercise_runner import exercise_params

SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def solution_line_ranges(source: str) -> list[tuple[int, int]]:
    """1-based ``(first, last)`` line numbers strictly inside each solution region."""
    ranges, start = [], None
    for number, line in enumerate(source.splitlines(), start=1):
        if line.strip() == "### BEGIN SOLUTION":
            start = number
        elif line.strip() == "### END SOLUTION" and start is not None:
            ranges.append((start + 1, number - 1))
            start = None
    return ranges


def _module_scope_nodes(tree: ast.Module) -> list[ast.AST]:
    """Every node evaluated at module scope (not inside a def, class or lambda body)."""
    nodes: list[ast.AST] = []
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        nodes.append(node)
        if isinstance(node, SCOPES):
            continue  # its name is bound at module scope, its body is not
        stack.extend(ast.iter_child_nodes(node))
    return nodes


def defined_by_solution(source: str) -> set[str]:
    """Global names, attribute names and string constants the solution regions introduce."""
    ranges = solution_line_ranges(source)
    inside = [
        lambda n, a=a, b=b: a <= getattr(n, "lineno", 0) <= b for a, b in ranges
    ]
    found: set[str] = set()
    tree = ast.parse(source)
    for node in _module_scope_nodes(tree):
        if not any(test(node) for test in inside):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            found.add(node.attr)
        elif isinstance(node, SCOPES[:3]):
            found.add(node.name)
        elif isinstance(node, ast.alias):
            found.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.add(node.value)
    return found


def read_by_check(source: str) -> set[str]:
    """Names the check reads without defining them, attributes it reads, string keys."""
    tree = ast.parse(source)
    loads, stores, found = set(), set(), set()
    formatted = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loads if isinstance(node.ctx, ast.Load) else stores).add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            found.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in formatted:
                found.add(node.value)
    return found | (loads - stores)


def visible_text(nb: nbformat.NotebookNode, upto: int, make_student: ModuleType) -> str:
    """What the student version shows up to cell ``upto``, check cells excluded."""
    parts = []
    for cell in nb.cells[: upto + 1]:
        if "check" in cell.metadata.get("tags", []):
            continue
        parts.append(make_student.strip_source(cell.source))
    return "\n".join(parts)


def unexplained_names(
    nb: nbformat.NotebookNode, solution: int, check: int, make_student: ModuleType
) -> list[str]:
    """What the check reads that the solution defines but the student is never shown."""
    needed = defined_by_solution(nb.cells[solution].source) & read_by_check(
        nb.cells[check].source
    )
    shown = visible_text(nb, solution, make_student)
    return sorted(
        name
        for name in needed
        if not (re.search(rf"\b{re.escape(name)}\b", shown) if name.isidentifier()
                else name in shown)
    )


@pytest.mark.parametrize(("source", "k"), exercise_params())
def test_check_reads_only_what_the_student_version_names(
    source: Path, k: int, run_notebooks: ModuleType, make_student: ModuleType
) -> None:
    nb = run_notebooks.build_notebook(source)
    solution, check = run_notebooks.exercises(nb)[k]
    missing = unexplained_names(nb, solution, check, make_student)
    assert not missing, (
        f"{source.stem} exercise {k + 1}: the check reads {missing}, which only the solution "
        "defines: name them in the exercise cell's template or the prose"
    )


def _notebook(*cells: tuple[str, str, list[str]]) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    for kind, text, tags in cells:
        cell = (nbformat.v4.new_markdown_cell if kind == "md" else nbformat.v4.new_code_cell)(
            text
        )
        cell.metadata["tags"] = tags
        nb.cells.append(cell)
    return nb


def test_a_template_stripped_with_the_solution_is_caught(make_student: ModuleType) -> None:
    """The old notebook 04 exercise 3: `predictions` and its keys only in solution/check."""
    nb = _notebook(
        ("md", "Fill in the dtype each expression produces.", []),
        ("code", '### BEGIN SOLUTION\npredictions = {"a * 2.0": "float32"}\n'
         "### END SOLUTION", []),
        ("code", 'for expr in ["a * 2.0"]:\n    assert predictions[expr] == "float32"',
         ["check"]),
    )
    assert unexplained_names(nb, 1, 2, make_student) == ["a * 2.0", "float32", "predictions"]


def test_a_template_outside_the_solution_passes(make_student: ModuleType) -> None:
    nb = _notebook(
        ("md", 'Replace each None in `predictions` by "float32" or "float64".', []),
        ("code", 'predictions = {"a * 2.0": None}\n### BEGIN SOLUTION\n'
         'predictions = {"a * 2.0": "float32"}\n### END SOLUTION', []),
        ("code", 'for expr in ["a * 2.0"]:\n    assert predictions[expr] == "float32"',
         ["check"]),
    )
    assert unexplained_names(nb, 1, 2, make_student) == []


def test_names_local_to_a_function_do_not_count(make_student: ModuleType) -> None:
    nb = _notebook(
        ("code", "def f(x):\n    ### BEGIN SOLUTION\n    y = x + 1\n    return y\n"
         "    ### END SOLUTION", []),
        ("code", "y = f(1)\nassert y == 2", ["check"]),
    )
    assert unexplained_names(nb, 0, 1, make_student) == []
