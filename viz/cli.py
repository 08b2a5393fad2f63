"""``python -m viz``: draw the graph of an expression from the command line.

    python -m viz "tanh(x) * y + x**2" --var x=1.0 --var y=2.0 --grads -o graph.svg
    python -m viz "tanh(x)" --var x=0.5 --order 2 -o d2.svg   # graph of d²/dx² tanh

The expression is parsed with :mod:`ast` and checked against a whitelist before anything
is computed — numbers, the ``--var`` names, the operators ``+ - * / ** @`` and unary
``-``, and calls of a fixed list of minitorch ops. Everything else (attribute access,
subscripts, lambdas, comprehensions, strings, unknown names such as ``__import__``) is
rejected with a clear error. The expression is never given to ``eval``: the checked tree
is evaluated node by node with minitorch ops.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import minitorch.ops as F
from minitorch import Variable, using_config
from viz.dot import to_dot
from viz.draw import FORMATS, GraphvizNotFoundError, check_folder, render
from viz.labels import format_array
from viz.renderer import check_dpi

#: Ops an expression may call, if minitorch provides them.
FUNCTION_NAMES = (
    "exp", "log", "sin", "cos", "tanh", "sqrt", "square", "abs", "sigmoid", "relu", "sum", "mean",
)  # fmt: skip
_KEYWORDS = {"sum": ("axis", "keepdims"), "mean": ("axis", "keepdims")}
_BINARY: dict[type[ast.operator], str] = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.Pow: "pow",
    ast.MatMult: "matmul",
}  # fmt: skip
_ALLOWED_NODES: tuple[type[ast.AST], ...] = (
    ast.Expression, ast.BinOp, ast.UnaryOp, ast.Call, ast.Name, ast.Constant, ast.Load,
    ast.USub, ast.UAdd, ast.keyword, *_BINARY,
)  # fmt: skip
_FORBIDDEN = {
    ast.Attribute: "attribute access (a.b)",
    ast.Subscript: "indexing and subscripts (a[i])",
    ast.Lambda: "lambda",
    ast.Starred: "starred arguments (*a)",
    ast.NamedExpr: "assignment expressions (:=)",
    ast.IfExp: "conditional expressions",
    ast.Compare: "comparisons",
    ast.BoolOp: "and/or",
}
MAX_LENGTH = 500


class ExpressionError(ValueError):
    """The expression uses something outside the whitelist (or does not parse)."""


def functions() -> dict[str, Callable[..., Variable]]:
    """The whitelisted ops that this minitorch provides, by name.

    Example:
        >>> "tanh" in functions() and "eval" not in functions()
        True
    """
    return {name: getattr(F, name) for name in FUNCTION_NAMES if hasattr(F, name)}


def check_expression(text: str, variables: Sequence[str]) -> ast.Expression:
    """Parse ``text`` and check every node against the whitelist.

    Args:
        text: the expression, e.g. ``"tanh(x) * y + x**2"``.
        variables: the names the expression may use as values.

    Returns:
        The checked ``ast.Expression``.

    Raises:
        ExpressionError: naming the first construct that is not allowed.

    Example:
        >>> check_expression("__import__('os')", ["x"])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        viz.cli.ExpressionError: viz: unknown function '__import__' (col 1); allowed: ...
    """
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"viz: expression longer than {MAX_LENGTH} characters")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"viz: cannot parse {text!r}: {exc.msg}") from None
    known = functions()
    nodes = list(ast.walk(tree))
    for node in nodes:  # first the kinds of syntax, so `a.b(...)` reports the attribute
        if not isinstance(node, _ALLOWED_NODES):
            what = _FORBIDDEN.get(type(node), f"'{type(node).__name__}' expressions")
            raise ExpressionError(f"viz: {what} not allowed{_where(node)}; {_allowed(known)}")
    for node in nodes:
        _check_node(node, known, variables)
    return tree


def _where(node: ast.AST) -> str:
    return f" (col {getattr(node, 'col_offset', -1) + 1})"


def _check_node(node: ast.AST, known: dict[str, Any], variables: Sequence[str]) -> None:
    where = _where(node)
    if isinstance(node, ast.Constant) and type(node.value) not in (int, float, bool):
        raise ExpressionError(f"viz: only numbers are allowed as constants, got {node.value!r}")
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name):
            raise ExpressionError(f"viz: only named functions can be called{where}")
        if node.func.id in variables:
            raise ExpressionError(f"viz: {node.func.id!r} is a variable, not a function{where}")
        if node.func.id not in known:
            raise ExpressionError(
                f"viz: unknown function {node.func.id!r}{where}; {_allowed(known)}"
            )
        for keyword in node.keywords:
            if keyword.arg not in _KEYWORDS.get(node.func.id, ()):
                raise ExpressionError(f"viz: {node.func.id}() takes no keyword {keyword.arg!r}")
            if not isinstance(keyword.value, ast.Constant):
                raise ExpressionError(f"viz: keyword {keyword.arg!r} must be a number")
    if isinstance(node, ast.Name) and node.id not in variables and node.id not in known:
        names = ", ".join(variables) or "none"
        raise ExpressionError(
            f"viz: unknown name {node.id!r}{where}; if it is a variable, pass --var "
            f"{node.id}=VALUE (variables given: {names}); {_allowed(known)}"
        )


def _allowed(known: dict[str, Any]) -> str:
    return f"allowed: numbers, variables, + - * / ** @, and {', '.join(known)}"


def evaluate(tree: ast.Expression, variables: dict[str, Variable]) -> Variable:
    """Compute a checked expression with minitorch ops (never ``eval``).

    The tree is walked in post-order with an explicit stack; each node becomes one
    minitorch op call (``a * b`` -> ``ops.mul``), so the result carries the full graph.

    Args:
        tree: the result of :func:`check_expression`.
        variables: name -> Variable for every name the expression uses as a value.

    Returns:
        The Variable the expression computes.

    Raises:
        ExpressionError: a name used in the wrong role (a variable called, a function
            used as a value) or a result that is not a Variable (a bare number).

    Example:
        >>> x = parse_var("x=2")[1]
        >>> evaluate(check_expression("x * x + 1", ["x"]), {"x": x})
        variable(5.0)
    """
    known = functions()
    # Post-order evaluation with an explicit stack: (node, children done?).
    stack: list[tuple[ast.AST, bool]] = [(tree.body, False)]
    results: list[Any] = []
    while stack:
        node, ready = stack.pop()
        children = _children(node)
        if not ready and children:
            stack.append((node, True))
            stack += [(child, False) for child in reversed(children)]
            continue
        args = [results.pop() for _ in children][::-1]
        results.append(_apply(node, args, variables, known))
    (result,) = results
    if not isinstance(result, Variable):
        raise ExpressionError("viz: the expression uses no variable; pass one with --var")
    return result


def _children(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.Call):
        return list(node.args)
    return []


def _apply(
    node: ast.AST, args: list[Any], variables: dict[str, Variable], known: dict[str, Any]
) -> Any:
    if isinstance(node, ast.Constant):
        value = node.value
        assert isinstance(value, (int, float, bool)), "checked by check_expression"
        try:
            return float(value)
        except OverflowError:
            raise ExpressionError("viz: a number in the expression is too large") from None
    if isinstance(node, ast.Name):
        if node.id in variables:
            return variables[node.id]
        raise ExpressionError(f"viz: {node.id} is a function; call it, e.g. {node.id}(x)")
    if isinstance(node, ast.UnaryOp):
        return -args[0] if isinstance(node.op, ast.USub) else args[0]
    if isinstance(node, ast.BinOp):
        op_name = _BINARY[type(node.op)]
        if not hasattr(F, op_name):
            raise ExpressionError(f"viz: this minitorch has no {op_name} op")
        if not any(isinstance(a, Variable) for a in args):
            return _numbers(op_name, args)
        return getattr(F, op_name)(*args)
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    kwargs = {
        str(kw.arg): kw.value.value for kw in node.keywords if isinstance(kw.value, ast.Constant)
    }
    return known[node.func.id](*args, **kwargs)


def _numbers(op_name: str, args: list[float]) -> float:
    """Arithmetic between two plain numbers (``2 ** 3`` inside an expression)."""
    x0, x1 = (np.float64(a) for a in args)
    with np.errstate(all="ignore"):
        ops = {
            "add": np.add,
            "sub": np.subtract,
            "mul": np.multiply,
            "div": np.divide,
            "pow": np.power,
        }
        if op_name not in ops:
            raise ExpressionError(f"viz: {op_name} needs a variable operand")
        return float(ops[op_name](x0, x1))


def parse_var(text: str) -> tuple[str, Variable]:
    """``"x=1.5"`` -> ``("x", Variable(1.5))``; ``x=1,2,3`` or ``x=[[1,2],[3,4]]`` give arrays.

    Raises:
        ExpressionError: for a bad name (not an identifier, a dunder, an op's name) or a
            value that is not a number or a (nested) list of numbers.

    Example:
        >>> parse_var("w=1,2")
        ('w', variable([1. 2.]))
    """
    name, sep, value = text.partition("=")
    name = name.strip()
    if not sep or not name.isidentifier() or name.startswith("__") or name in FUNCTION_NAMES:
        raise ExpressionError(
            f"viz: --var expects NAME=VALUE with a plain name (not a function name), got {text!r}"
        )
    try:
        raw = json.loads(value) if value.strip().startswith("[") else None
        if raw is None:
            raw = [float(part) for part in value.split(",")] if "," in value else float(value)
        data = np.asarray(raw, dtype=np.float64)
    except (ValueError, TypeError):
        raise ExpressionError(
            f"viz: --var {name}: {value!r} is not a number or list of numbers"
        ) from None
    return name, Variable(data, name=name)


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface (see the module docstring).

    Example:
        >>> build_parser().parse_args(["x", "--var", "x=1", "--order", "2"]).order
        2
    """
    parser = argparse.ArgumentParser(
        prog="python -m viz",
        description="Draw the autograd graph of an expression built with minitorch ops.",
        epilog=f"functions: {', '.join(FUNCTION_NAMES)}",
    )
    parser.add_argument("expression", help='e.g. "tanh(x) * y + x**2"')
    parser.add_argument(
        "--var",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a variable: x=1.0, x=1,2,3 or x=[[1,2],[3,4]] (repeatable)",
    )
    parser.add_argument(
        "--grads",
        action="store_true",
        help="run backward (keeping intermediate gradients) and show every gradient",
    )
    parser.add_argument("--values", action="store_true", help="show the values in the nodes")
    parser.add_argument(
        "--order",
        type=int,
        default=0,
        metavar="N",
        help="draw the graph of the N-th derivative (create_graph=True)",
    )
    parser.add_argument("--wrt", metavar="NAME", help="variable for --order (default: the first)")
    parser.add_argument(
        "-o",
        "--output",
        metavar="PATH",
        help="write .svg/.png/.pdf/.dot (default: DOT text on stdout)",
    )
    parser.add_argument(
        "--dpi",
        type=float,
        metavar="N",
        help="pixels per inch of a .png output, 36 to 1200 (default: 192, for projectors)",
    )
    parser.add_argument("--legend", action="store_true", help="add a colour legend")
    parser.add_argument(
        "--rankdir",
        default="TB",
        choices=["TB", "BT", "LR", "RL"],
        help="layout direction: TB top to bottom (default), BT bottom up, LR left to right, RL",
    )
    parser.add_argument(
        "--stepper",
        metavar="HTML",
        help="also write the backward pass as a step-through HTML page",
    )
    return parser  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the exit status (0 ok, 2 for a rejected expression or option).

    Args:
        argv: the arguments (default: ``sys.argv[1:]``).

    Returns:
        0 on success; 2 after printing a one-line error for a rejected expression, a bad
        ``--var`` or ``--order``, an unknown output suffix, an output file that cannot be
        written (its folder is missing, ...) or a missing ``dot`` program.

    Example:
        >>> main(["x * 2", "--var", "x=1", "-o", "graph.jpeg"])
        2
    """
    args = build_parser().parse_args(argv)
    try:
        return _run(args)
    except (ExpressionError, GraphvizNotFoundError, ValueError, TypeError, OSError) as exc:
        message = str(exc) if str(exc).startswith("viz") else f"viz: {exc}"
        print(f"{message}", file=sys.stderr)
        return 2


def _check_options(args: argparse.Namespace) -> None:
    """Reject bad options before anything is computed or printed."""
    if args.order < 0:
        raise ExpressionError(f"viz: --order must be 0 or more, got {args.order}")
    if args.output is not None:
        if Path(args.output).suffix.lower() not in FORMATS:
            suffixes = ", ".join(FORMATS)
            raise ValueError(f"viz: -o {args.output}: the suffix must be one of {suffixes}")
        check_folder(args.output)
    if args.dpi is not None:
        check_dpi(args.dpi, "viz: --dpi N")
        if args.output is None or Path(args.output).suffix.lower() != ".png":
            raise ValueError(f"viz: --dpi {args.dpi:g} is for a .png output (-o graph.png)")
    if args.stepper is not None:
        check_folder(args.stepper)


def _run(args: argparse.Namespace) -> int:
    """Compute everything, write the output, and only then print what was computed."""
    _check_options(args)
    variables = _variables(args.var)
    tree = check_expression(args.expression, list(variables))
    report: list[str] = []  # printed only once the command has succeeded
    # Every intermediate stays alive (Config.save_all), so the picture shows each value
    # and, with --grads, each intermediate gradient, as an expression's graph should.
    with _quiet_numpy(), using_config("save_all", True):
        target = evaluate(tree, variables)
        report.append(f"value = {format_array(target.data)}")
        values = [("value", target)]
        fname = "f" if "y" in variables else "y"
        wrt = _wrt(variables, args.wrt) if args.order else None
        if args.order and wrt is not None:
            target = _derivative(target, variables, wrt, args.order)
            target.name = _ascii_derivative(fname, wrt, args.order)
            label = _derivative_label(fname, wrt, args.order)
            report.append(f"{label} = {format_array(target.data)}")
            values.append((label, target))
        if args.grads or args.stepper:
            stepper = _backward(target, variables, args.stepper)
            if stepper is not None:
                report.append(f"wrote {stepper}")
            for name, var in variables.items():
                grad = "none" if var.grad is None else format_array(var.grad.data)
                # of the derivative drawn, not of y: x.grad = ∂(d²y/dx²)/∂x = ...
                of = f" = \u2202({label})/\u2202{name}" if args.order and wrt else ""
                report.append(f"{name}.grad{of} = {grad}")
                if var.grad is not None:
                    values.append((f"{name}.grad", var.grad))
    opts = dict(
        show_values=args.values, show_grads=args.grads, legend=args.legend, rankdir=args.rankdir
    )
    problem = _not_finite(values)
    info = sys.stderr if args.output is None else sys.stdout
    if args.output is None:
        text = to_dot(target, **opts)
        print("\n".join(report), file=info)
        sys.stdout.write(text)
    else:
        written = render(target, args.output, dpi=args.dpi, **opts)
        print("\n".join([*report, f"wrote {written}"]), file=info)
    if problem:
        print(problem, file=sys.stderr)
    return 0


def _variables(texts: Sequence[str]) -> dict[str, Variable]:
    """Parse every ``--var``; a name given twice is an error."""
    variables: dict[str, Variable] = {}
    for text in texts:
        name, var = parse_var(text)
        if name in variables:
            raise ExpressionError(f"viz: --var {name} is given twice; pass each variable once")
        variables[name] = var
    return variables


@contextlib.contextmanager
def _quiet_numpy() -> Iterator[None]:
    """No NumPy RuntimeWarnings (overflow, invalid value): one line reports them instead."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def _not_finite(values: list[tuple[str, Variable]]) -> str | None:
    """One line naming the results that hold inf (overflow) or nan (invalid), if any."""
    problems = []
    for label, var in values:
        data = np.asarray(var.data)
        if data.dtype.kind != "f":
            continue
        kinds = [
            word
            for word, bad in (
                ("inf (overflow)", np.isinf(data).any()),
                ("nan (invalid value)", np.isnan(data).any()),
            )
            if bad
        ]
        if kinds:
            problems.append(f"{label} holds {' and '.join(kinds)}")
    if not problems:
        return None
    return "viz: warning: " + "; ".join(problems) + " (NumPy warnings silenced)"


_SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def _derivative_label(fname: str, wrt: str, order: int) -> str:
    """``dy/dx``, ``d²y/dx²``, ``d¹⁰y/dx¹⁰`` (what the CLI prints)."""
    if order == 1:
        return f"d{fname}/d{wrt}"
    power = str(order).translate(_SUPERSCRIPTS)
    return f"d{power}{fname}/d{wrt}{power}"


def _ascii_derivative(fname: str, wrt: str, order: int) -> str:
    """``dy/dx``, ``d2y/dx2`` (the node's name in the graph, as in the demo)."""
    return f"d{fname}/d{wrt}" if order == 1 else f"d{order}{fname}/d{wrt}{order}"


def _wrt(variables: dict[str, Variable], wrt: str | None) -> str:
    if not variables:
        raise ExpressionError("viz: --order needs a variable; pass --var x=VALUE")
    name = wrt or next(iter(variables))
    if name not in variables:
        raise ExpressionError(f"viz: --wrt {name!r} is not one of the variables {list(variables)}")
    return name


def _derivative(
    target: Variable, variables: dict[str, Variable], name: str, order: int
) -> Variable:
    x = variables[name]
    for k in range(1, order + 1):
        x.clear_grad()
        if target.requires_grad:  # a constant (the last derivative) has no graph to follow
            target.backward(create_graph=True)
        if x.grad is None:
            raise ExpressionError(
                f"viz: derivative {k} w.r.t. {name} is zero everywhere; nothing to draw"
            )
        target = x.grad
    x.clear_grad()
    return target


def _backward(
    target: Variable, variables: dict[str, Variable], stepper: str | None
) -> Path | None:
    """Run backward from ``target`` (keeping intermediate grads); the stepper page if asked."""
    for var in variables.values():
        var.clear_grad()
    if stepper is None:
        target.backward(retain_grad=True)  # so --grads can show the intermediates' too
        return None
    from viz.stepper import BackwardStepper
    from viz.trace import trace_backward

    return BackwardStepper(trace_backward(target, retain_grad=True)).save_html(stepper)
