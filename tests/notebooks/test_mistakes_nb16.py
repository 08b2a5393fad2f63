"""Typical mistakes in the exercises of notebook 16 (memory and cost) get feedback that names them.

Each case replaces an exercise's answer by a classic wrong answer, runs the exercise's
check cell in this process (the notebook's import cell, the wrong answer, the check) and
asserts that the message names the mistake. The untouched stub must give "not done yet",
and the solution must pass.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import pytest
from exercise_runner import NOT_DONE, NOTEBOOKS, SOURCES, load_script

NAME = "16_memory_and_cost"


def _predicted(exp: str, add: str, sin: str, total: str) -> str:
    return (
        "def predicted_saved_bytes(n):\n"
        f"    return {{'Exp': {exp}, 'Add': {add}, 'Sin': {sin}, 'Sum': {total}}}\n"
    )


def _sigmoid(
    keeps: str | None = "False",
    forward: str = "1.0 / (1.0 + np.exp(-x))",
    backward: str = "y = self.output()\n        return gy * y * (1.0 - y)",
) -> str:
    rule = f"    def saves_input(self, i):\n        return {keeps}\n" if keeps is not None else ""
    return (
        "class Sigmoid(Function):\n"
        + f"    def forward(self, x):\n        return {forward}\n"
        + f"    def backward(self, gy):\n        {backward}\n"
        + rule
    )


FROM_INPUT = "(x,) = self.inputs\n        s = F.sigmoid(x)\n        return gy * s * (1.0 - s)"


def _checkpointed(body: str) -> str:
    return f"def checkpointed(blocks, x):\n    h = x\n{body}"


CHECKPOINT_LOOP = "    for block in blocks:\n        h = minitorch.checkpoint(block, h)\n"


def _state(table: str, tail: str = "copies * n_params * itemsize") -> str:
    return (
        "def state_bytes(n_params, optimizer, itemsize=8):\n"
        f"    copies = {table}[optimizer]\n    return {tail}\n"
    )


ADAM = "{'SGD': 0, 'SGD momentum': 1, 'Adam': %s}"

MISTAKES: dict[int, list[tuple[str, str, str]]] = {
    1: [
        ("everything", _predicted("16 * n", "16 * n", "16 * n", "16 * n"), "input and its output"),
        ("elements", _predicted("n", "0", "n", "0"), "numbers of elements"),
        ("float32", _predicted("4 * n", "0", "4 * n", "0"), "float32"),
        (
            "exp keeps input too",
            _predicted("16 * n", "0", "8 * n", "0"),
            "Exp keeps only its output",
        ),
        ("exp keeps nothing", _predicted("0", "0", "8 * n", "0"), "Exp keeps its output"),
        ("add keeps its input", _predicted("8 * n", "8 * n", "8 * n", "0"), "Add keeps nothing"),
        ("sin keeps nothing", _predicted("8 * n", "0", "0", "0"), "Sin keeps its input"),
        ("sin keeps both", _predicted("8 * n", "0", "16 * n", "0"), "not its output"),
        ("sum keeps its input", _predicted("8 * n", "0", "8 * n", "8 * n"), "Sum keeps nothing"),
        (
            "sum keeps its output",
            _predicted("8 * n", "0", "8 * n", "8"),
            "not even its one-element",
        ),
        (
            "a list",
            "def predicted_saved_bytes(n):\n    return [8 * n, 0, 8 * n, 0]\n",
            "should return a dict",
        ),
        (
            "a missing op",
            "def predicted_saved_bytes(n):\n    return {'Exp': 8 * n, 'Sin': 8 * n}\n",
            "no entry for Add, Sum",
        ),
    ],
    2: [
        ("the default", _sigmoid(keeps=None), "keeps its input and its output"),
        ("keeps the input", _sigmoid(keeps="True"), "keeps its input and its output"),
        (
            "keeps what needs a gradient",
            _sigmoid(keeps="self.needs_input_grad[i]"),
            "keeps its input and its output",
        ),
        ("wrong sign", _sigmoid(forward="1.0 / (1.0 + np.exp(x))"), "wrong sign"),
        (
            "no gy",
            _sigmoid(backward="y = self.output()\n        return y * (1.0 - y)"),
            "gy is not multiplied",
        ),
        (
            "no 1 - y",
            _sigmoid(backward="y = self.output()\n        return gy * y"),
            "(1 - y) is missing",
        ),
        (
            "x for y",
            _sigmoid(
                keeps="True", backward="(x,) = self.inputs\n        return gy * x * (1.0 - x)"
            ),
            "uses x where y belongs",
        ),
        ("reads the input it lets go", _sigmoid(backward=FROM_INPUT), "which saves_input lets go"),
        ("forward on the wrong formula", _sigmoid(forward="np.tanh(x)"), "1 / (1 + exp(-x))"),
    ],
    3: [
        ("returns a tuple", _checkpointed(CHECKPOINT_LOOP + "    return h,\n"), "returns a tuple"),
        (
            "returns every output",
            "def checkpointed(blocks, x):\n    outs, h = [], x\n    for block in blocks:\n"
            "        h = minitorch.checkpoint(block, h)\n        outs.append(h)\n"
            "    return outs\n",
            "returns a list",
        ),
        (
            "no checkpoint",
            _checkpointed("    for block in blocks:\n        h = block(h)\n    return h\n"),
            "no block is checkpointed",
        ),
        (
            "checkpoint of the value",
            _checkpointed(
                "    for block in blocks:\n        h = minitorch.checkpoint(block(h))\n"
                "    return h\n"
            ),
            "not checkpoint(block(h))",
        ),
        (
            "every block on x",
            _checkpointed(
                "    for block in blocks:\n        h = minitorch.checkpoint(block, x)\n"
                "    return h\n"
            ),
            "previous block's output",
        ),
        (
            "one checkpoint around all",
            "def checkpointed(blocks, x):\n    def run(h):\n        for block in blocks:\n"
            "            h = block(h)\n        return h\n"
            "    return minitorch.checkpoint(run, x)\n",
            "1 Checkpoint for 3 blocks",
        ),
        (
            "the last block plain",
            _checkpointed(
                "    for block in blocks[:-1]:\n        h = minitorch.checkpoint(block, h)\n"
                "    return blocks[-1](h)\n"
            ),
            "also records",
        ),
        (
            "under no_grad",
            "def checkpointed(blocks, x):\n    h = x\n    with minitorch.no_grad():\n"
            "        for block in blocks:\n            h = minitorch.checkpoint(block, h)\n"
            "    return h\n",
            "no graph",
        ),
        (
            "returns the input",
            _checkpointed(
                "    for block in blocks:\n        minitorch.checkpoint(block, h)\n    return h\n"
            ),
            "differs from running the blocks",
        ),
    ],
    4: [
        ("Adam counts the parameters", _state(ADAM % 3), "counts the parameters too"),
        ("Adam one array", _state(ADAM % 1), "not one"),
        ("Adam with params and grads", _state(ADAM % 4), "parameters and their gradients"),
        (
            "momentum keeps nothing",
            _state("{'SGD': 0, 'SGD momentum': 0, 'Adam': 2}"),
            "momentum keeps one buffer",
        ),
        ("momentum two buffers", _state("{'SGD': 0, 'SGD momentum': 2, 'Adam': 2}"), "not two"),
        (
            "SGD keeps the gradient",
            _state("{'SGD': 1, 'SGD momentum': 1, 'Adam': 2}"),
            "plain SGD keeps nothing",
        ),
        ("elements", _state(ADAM % 2, "copies * n_params"), "number of elements"),
        ("itemsize ignored", _state(ADAM % 2, "copies * n_params * 8"), "itemsize is ignored"),
        ("bits", _state(ADAM % 2, "copies * n_params * itemsize * 8"), "expected"),
    ],
}


def _render(message: str) -> list[str]:
    sys.path.insert(0, str(NOTEBOOKS))
    try:
        from checks import render
    finally:
        sys.path.remove(str(NOTEBOOKS))
    return render(message)


def _cells() -> tuple[Any, list[tuple[int, int]]]:
    run_notebooks = load_script("run_notebooks")
    nb = run_notebooks.build_notebook(SOURCES / f"{NAME}.py")
    return nb, run_notebooks.exercises(nb)


def _message(k: int, answer: str | None) -> str:
    """Run the import cell, exercise ``k``'s cell (or ``answer``) and its check."""
    make_student = load_script("make_student")
    nb, pairs = _cells()
    solution, check = pairs[k - 1]
    first = next(c for c in nb.cells if c.cell_type == "code")
    namespace: dict[str, Any] = {"__name__": "__main__"}
    cwd = os.getcwd()
    sys.path.insert(0, str(NOTEBOOKS))
    os.chdir(NOTEBOOKS)
    try:
        setup = "\n".join(line for line in first.source.splitlines() if not line.startswith("%"))
        exec(setup, namespace)
        exec(
            make_student.strip_source(nb.cells[solution].source) if answer is None else answer,
            namespace,
        )
        try:
            exec(nb.cells[check].source, namespace)
        except AssertionError as err:
            return str(err)
        return ""
    finally:
        os.chdir(cwd)
        sys.path.remove(str(NOTEBOOKS))


CASES = [
    pytest.param(k, answer, words, id=f"ex{k}-{mistake}")
    for k, cases in MISTAKES.items()
    for mistake, answer, words in cases
]


@pytest.mark.parametrize(("k", "answer", "words"), CASES)
def test_the_check_names_the_mistake(k: int, answer: str, words: str) -> None:
    message = _message(k, answer)
    assert words in message, f"the check said: {message!r}"
    assert len(_render(message)) <= 3, message  # what Jupyter shows: at most three lines


@pytest.mark.parametrize("k", sorted(MISTAKES))
def test_the_untouched_stub_is_not_done_yet(k: int) -> None:
    assert NOT_DONE in _message(k, None)


@pytest.mark.parametrize("k", sorted(MISTAKES))
def test_the_solution_passes(k: int) -> None:
    nb, pairs = _cells()
    assert _message(k, nb.cells[pairs[k - 1][0]].source) == ""


def test_every_exercise_has_at_least_eight_mistakes() -> None:
    _, pairs = _cells()
    assert len(pairs) == len(MISTAKES) == 4
    for k in range(1, len(pairs) + 1):
        assert len(MISTAKES[k]) >= 8, k
