"""python -m viz: expressions drawn, derivatives of order N, everything else rejected."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from viz_helpers import requires_dot

from viz.cli import ExpressionError, check_expression, evaluate, main, parse_var

ROOT = Path(__file__).resolve().parents[2]


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(args)
    out, err = capsys.readouterr()
    return status, out, err


def test_expression_gradients_match_the_closed_form(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(
        ["tanh(x) * y + x**2", "--var", "x=1.0", "--var", "y=2.0", "--grads"], capsys
    )
    assert status == 0
    assert out.startswith("digraph minitorch {")
    t = np.tanh(1.0)
    assert f"value = {t * 2 + 1:.4f}" in err
    assert f"x.grad = {2 * (1 - t**2) + 2:.4f}" in err
    assert f"y.grad = {t:.4f}" in err
    assert "grad: 0.7616" in out


@requires_dot
def test_writes_the_file_named_by_o(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "graph.svg"
    status, out, _ = run(
        ["tanh(x) * y + x**2", "--var", "x=1.0", "--var", "y=2.0", "--grads", "-o", str(target)],
        capsys,
    )
    assert status == 0 and f"wrote {target}" in out
    assert target.read_text(encoding="utf-8").startswith("<?xml")


def test_order_two_draws_the_second_derivative_graph(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(["tanh(x)", "--var", "x=0.5", "--order", "2"], capsys)
    assert status == 0
    t = np.tanh(0.5)
    assert f"d²y/dx² = {-2 * t * (1 - t**2):.4f}" in err
    assert 'fillcolor="#bcbddc"' in out  # Functions made by backward(create_graph=True)


def test_order_beyond_a_polynomial_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(["x * 3", "--var", "x=2", "--order", "2"], capsys)
    assert status == 2 and "zero everywhere" in err


def test_array_variables_and_reductions(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(["sum(x * x, axis=0)", "--var", "x=1,2,3", "--grads"], capsys)
    assert status == 0 and "value = 14.0" in err and "x.grad = [2. 4. 6.]" in err


def test_stepper_page_is_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "steps.html"
    status, _, _ = run(["exp(x) * x", "--var", "x=1", "--stepper", str(page)], capsys)
    assert status == 0 and page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


REJECTED = [
    ("__import__('os')", "unknown function '__import__'"),
    ("__import__('os').system('touch pwned')", "attribute access"),
    ("x.__class__", "attribute access"),
    ("x.data", "attribute access"),
    ("foo + x", "unknown name 'foo'"),
    ("open('f')", "unknown function 'open'"),
    ("(lambda: x)()", "lambda"),
    ("x[0]", "subscripts"),
    ("x.__dict__['a']", "subscripts"),
    ("[x for x in y]", "'ListComp' expressions"),
    ("'text' * x", "only numbers"),
    ("x if x else x", "conditional"),
    ("x < 2", "comparisons"),
    ("x(1)", "is a variable, not a function"),
    ("tanh", "is a function; call it"),
    ("sum(x, axis=__import__('os'))", "must be a number"),
    ("sin(*x)", "starred"),
    ("exp(x, y=1)", "takes no keyword 'y'"),
    ("x +", "cannot parse"),
    ("(x := 2)", "assignment expressions"),
    ("2 + 3", "uses no variable"),
]


@pytest.mark.parametrize("expression, message", REJECTED)
def test_everything_outside_the_whitelist_is_rejected(expression: str, message: str) -> None:
    x = parse_var("x=1.0")[1]
    with pytest.raises(ExpressionError, match=message.replace("(", r"\(").replace("[", r"\[")):
        evaluate(check_expression(expression, ["x"]), {"x": x})


def test_rejection_exits_with_status_2_and_runs_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    status, out, err = run(["__import__('os').system('touch pwned')", "--var", "x=1"], capsys)
    assert status == 2 and out == "" and "attribute access" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("text", ["__class__=1", "tanh=1", "1x=2", "x", "x=abc", "x=[1, 'a']"])
def test_bad_var_options_are_rejected(text: str) -> None:
    with pytest.raises(ExpressionError, match="--var"):
        parse_var(text)


def test_module_entry_point_runs_in_a_fresh_process() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "viz", "x * y", "--var", "x=2", "--var", "y=3", "--values"],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "<B>Mul</B>" in result.stdout and "data: 6.0" in result.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "viz", "x.__class__", "--var", "x=2"],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    assert bad.returncode == 2 and "attribute access" in bad.stderr


def test_output_into_a_missing_folder_is_one_line_before_computing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "nodir" / "a.svg"
    status, out, err = run(["x*x", "--var", "x=1", "-o", str(target)], capsys)
    assert status == 2 and out == ""
    assert err == f"viz: cannot write {target}: the folder {target.parent} does not exist\n"


def test_unwritable_output_names_the_users_path_not_the_temp_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, dir: str, prefix: str, suffix: str) -> None:
        raise PermissionError(13, "Permission denied", f"{dir}/{prefix}x1y2{suffix}")

    monkeypatch.setattr("viz.draw.tempfile.mkstemp", refuse)
    target = tmp_path / "a.dot"
    status, _, err = run(["x*x", "--var", "x=1", "-o", str(target)], capsys)
    assert status == 2
    assert err == f"viz: cannot write {target}: Permission denied\n"


@requires_dot
def test_dpi_sets_the_png_resolution(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sizes = []
    for dpi in ([], ["--dpi", "96"]):  # the default is 192 dpi: twice as wide
        target = tmp_path / f"graph{len(dpi)}.png"
        status, out, _ = run(["tanh(x) * 2", "--var", "x=1.0", "-o", str(target), *dpi], capsys)
        assert status == 0 and f"wrote {target}" in out
        sizes.append(int.from_bytes(target.read_bytes()[16:20], "big"))
    assert abs(sizes[0] - 2 * sizes[1]) <= 3, sizes


@pytest.mark.parametrize(
    "option",
    [["--order", "-1"], ["-o", "a.jpeg"], ["--dpi", "10", "-o", "a.png"], ["--dpi", "150"],
     ["--dpi", "150", "-o", "a.svg"]],
)  # fmt: skip
def test_bad_options_are_rejected_before_anything_is_computed(
    option: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(["x*x", "--var", "x=1", *option], capsys)
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1 and "value =" not in err


def test_unwritable_output_exits_2_without_a_traceback(tmp_path: Path) -> None:
    target = tmp_path / "nodir" / "a.svg"
    result = subprocess.run(
        [sys.executable, "-m", "viz", "x*x", "--var", "x=1", "-o", str(target)],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    assert result.returncode == 2
    assert (
        result.stderr == f"viz: cannot write {target}: the folder {target.parent} does not exist\n"
    )


def test_order_and_grads_label_what_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(["tanh(x)", "--var", "x=0.5", "--order", "3", "--grads"], capsys)
    assert status == 0
    t = np.tanh(0.5)
    s2 = 1 - t**2  # sech^2
    d3 = -2 * s2**2 + 4 * t**2 * s2  # the 3rd derivative of tanh
    d4 = 16 * t * s2**2 - 8 * t**3 * s2  # and the 4th
    lines = err.splitlines()
    assert lines[0] == f"value = {t:.4f}"
    assert lines[1] == f"d³y/dx³ = {d3:.4f}"
    assert lines[2] == f"x.grad = ∂(d³y/dx³)/∂x = {d4:.4f}"
    assert "<B>d3y/dx3</B>" in out  # the drawn output is named as in the demo


def test_order_one_is_named_dy_dx_and_avoids_a_variable_called_y(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run(["x * y", "--var", "x=2", "--var", "y=3", "--order", "1"], capsys)
    assert status == 0
    assert "df/dx = 3.0" in err  # y is a variable here, so the expression is f
    assert "<B>df/dx</B>" in out


def test_grads_keep_the_intermediate_gradients(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["exp(x * 2)", "--var", "x=0.0", "--grads"], capsys)
    assert status == 0
    # x * 2 is an intermediate (v3): d exp(u)/du = exp(0) = 1 is kept and drawn
    mul_out = next(line for line in out.splitlines() if line.startswith("\tv3 "))
    assert "grad: 1.0" in mul_out
    assert "not kept" not in out


def test_missing_variable_says_how_to_pass_it(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(["x * w", "--var", "x=1"], capsys)
    assert status == 2 and out == ""
    assert "pass --var w=VALUE" in err


def test_a_variable_given_twice_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(["x * 2", "--var", "x=1", "--var", "x=2"], capsys)
    assert status == 2 and out == ""
    assert "--var x is given twice" in err


def test_overflow_is_one_line_and_no_numpy_warning(capsys: pytest.CaptureFixture[str]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning escaping would fail the test
        status, _, err = run(["exp(x) - exp(x)", "--var", "x=1000", "--grads"], capsys)
    assert status == 0
    problem = [line for line in err.splitlines() if line.startswith("viz: warning:")]
    assert len(problem) == 1
    assert "value holds nan (invalid value)" in problem[0]  # inf - inf
    assert "x.grad holds" in problem[0]  # exp(1000) overflows in the gradient too
    assert "RuntimeWarning" not in err


def test_nothing_is_printed_as_a_result_when_the_command_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import viz.cli

    def failing_render(*args: object, **kwargs: object) -> Path:
        raise OSError("viz: cannot write g.svg: disk full")

    monkeypatch.setattr(viz.cli, "render", failing_render)
    status, out, err = run(["x * 2", "--var", "x=1", "-o", str(tmp_path / "g.svg")], capsys)
    assert status == 2
    assert out == "" and "value =" not in err
    assert err.strip() == "viz: cannot write g.svg: disk full"


def test_rankdir_has_help() -> None:
    from viz.cli import build_parser

    text = build_parser().format_help()
    rankdir_help = text[text.rindex("--rankdir") :].split("--stepper")[0]
    assert "left to right" in rankdir_help
