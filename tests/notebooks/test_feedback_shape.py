"""A failing check shows only its message: at most three lines, no frames (issues 28, 29).

In a real kernel, as Jupyter and nbgrader's autograde run check cells: the error output
of a failing check is the message alone (``CheckFailed._render_traceback_``), at most
three lines of at most ``checks.WIDTH`` columns, with no frame of ``notebooks/checks.py``,
``contextlib`` or any other file; nbgrader's feedback HTML (nbconvert's classic template,
which does not wrap a ``<pre>``) shows the same lines.
"""

from __future__ import annotations

import html
import re

import nbformat
import pytest
from exercise_runner import NOTEBOOKS, load_script

WIDTH = 100  # notebooks/checks.py's WIDTH
ANSI = re.compile(r"\x1b\[[0-9;]*m")

CELLS = {
    "check_close": "check_close('your y', [1.0, 2.5], [1.0, 2.0], hint='did you add 0.5?')",
    "untouched stub": "def f():\n    raise NotImplementedError()\n"
    "with explain_errors('f()'):\n    f()",
    "student's error": "def g(x):\n    return x.datta\n"
    "with explain_errors('g(x)', ('datta', 'a typo')):\n    g(Variable(np.ones(2)))",
    "check_done": "ga = None\ncheck_done(ga=ga)",
    "gradient": "class Sq(Function):\n    def forward(self, x):\n        return x * x\n"
    "    def backward(self, gy):\n        return gy * self.inputs[0]\n"
    "check_gradient('Sq', lambda x: Sq()(x), np.array([0.5, -1.0]))",
    "long message": "check_true(False, 'word ' * 50)",
    "a check module's AssertionError": "import checks\nwith explain_errors('h()'):\n"
    "    checks.check_true(False, 'from a check module')",
    # notebooks 08-13: an untouched exercise, a name its cell never defined, a plain error
    "08-13 untouched stub": "from checks_build import exercise\ndef s():\n"
    "    raise NotImplementedError()\nwith exercise('s()'):\n    s()",
    "08-13 name not defined": "from checks_nb12 import check_hessian_vector_product\n"
    "check_hessian_vector_product(globals().get('hessian_vector_product'))",
    "08-13 plain error in a check": "from checks_nb12 import check_jacobian_by_columns\n"
    "check_jacobian_by_columns(42)",
    # notebooks 14 and 15 (issue 28): a known mistake, a wrong result shape, a plain raise
    "14 known mistake": "from checks_nb14 import check_softmax_backward\n"
    "check_softmax_backward(lambda w, gw: w * gw)",
    "14 wrong result": "from checks_nb14 import check_causal_attention\n"
    "check_causal_attention(lambda q, k, v: (q, k, v))",
    "15 known mistake": "from checks_nb15 import check_merge_pair\n"
    "check_merge_pair(lambda ids, pair, new: list(ids))",
    "15 wrong result": "from checks_nb15 import check_next_token_batch\n"
    "check_next_token_batch(lambda ids, starts, block: (ids, ids, ids))",
}


def visible(lines: list[str]) -> list[str]:
    return [ANSI.sub("", line) for line in "\n".join(lines).splitlines()]


@pytest.fixture(scope="module")
def executed() -> nbformat.NotebookNode:
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    setup = (
        "import numpy as np\nfrom minitorch import Function, Variable\n"
        "from checks import check_close, check_done, check_gradient, check_true, explain_errors"
    )
    nb.cells = [nbformat.v4.new_code_cell(setup)]
    nb.cells += [nbformat.v4.new_code_cell(code) for code in CELLS.values()]
    from jupyter_client.manager import AsyncKernelManager

    kernels = load_script("kernels")  # Unix sockets: no TCP port to race the other worker for
    client = NotebookClient(
        nb,
        km=kernels.kernel_manager(AsyncKernelManager, kernel_name="python3"),
        timeout=120,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    client.execute()
    return nb


def _error(nb: nbformat.NotebookNode, k: int) -> dict:
    errors = [o for o in nb.cells[k + 1].outputs if o.output_type == "error"]
    assert len(errors) == 1, nb.cells[k + 1].outputs
    return errors[0]


@pytest.mark.parametrize("k", range(len(CELLS)), ids=list(CELLS))
def test_a_failing_check_prints_at_most_three_short_lines(executed, k: int) -> None:
    error = _error(executed, k)
    lines = visible(error["traceback"])
    assert error["ename"] in ("CheckFailed", "NotDoneYet")
    assert lines[0].startswith("✗ "), lines
    assert len(lines) <= 3 or k == list(CELLS).index("long message"), lines
    assert all(len(line) <= WIDTH for line in lines), lines
    text = "\n".join(lines)
    for frame in ("Traceback", "checks.py", "contextlib", "File ", "----"):
        assert frame not in text, lines
    # the message itself, re-wrapped, is what was shown
    assert " ".join(text.replace("✗ ", "", 1).split()) == " ".join(error["evalue"].split())


def test_the_student_line_and_hint_are_kept(executed) -> None:
    lines = visible(_error(executed, list(CELLS).index("student's error"))["traceback"])
    assert len(lines) == 3, lines
    assert lines[0].startswith("✗ g(x) failed: AttributeError:") and "datta" in lines[0]
    assert lines[1:] == ["  in g: `return x.datta`", "  hint: a typo"]


def test_a_long_line_is_wrapped_not_cut(executed) -> None:
    lines = visible(_error(executed, list(CELLS).index("long message"))["traceback"])
    assert len(lines) == 3 and lines[1].startswith("  word"), lines
    assert " ".join(" ".join(lines).split()) == "✗ " + " ".join(["word"] * 50)


def test_feedback_html_shows_the_message_alone(executed) -> None:
    """nbgrader's feedback template extends nbconvert's classic one."""
    from nbconvert import HTMLExporter

    page, _ = HTMLExporter(template_name="classic").from_notebook_node(executed)
    errors = re.findall(r'output_error">\s*<pre>(.*?)</pre>', page, flags=re.S)
    assert len(errors) == len(CELLS)
    for block in errors:
        text = html.unescape(re.sub(r"<[^>]+>", "", block))
        lines = text.strip("\n").splitlines()
        assert lines[0].startswith("✗ ") and "Traceback" not in text, text
        assert all(len(line) <= WIDTH for line in lines), lines
