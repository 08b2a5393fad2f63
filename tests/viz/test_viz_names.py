"""viz.names: the names the stepper gives Variables a user did not name."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pytest

import minitorch.ops as F
import viz
from minitorch import Variable
from viz.graph import walk
from viz.names import MAX_EXPRESSION, derived_names, is_plain


def names_of(*outputs: Variable) -> dict[str, str]:
    """Each Variable's name, keyed by the Variable's own name where it has one."""
    graph = walk(list(outputs))
    names, _ = derived_names(graph)
    return {vn.id: names[vn.id] for vn in graph.variables}


def test_expressions_keep_the_parentheses_their_meaning_needs() -> None:
    a, b, c = (Variable(np.array(v), name=n) for v, n in [(1.0, "a"), (2.0, "b"), (3.0, "c")])
    expressions = [(a + b) * c, a / (b * c), a - (b - c), -(c + b), (a * b) ** c]
    shown = set(names_of(*[e.sum() for e in expressions]).values())  # several outputs
    assert {"a+b", "(a+b)*c", "b*c", "a/(b*c)", "b-c", "a-(b-c)", "-(c+b)", "a*b"} <= shown
    assert "(a*b)**c" in shown


def test_the_output_is_y_or_loss_and_never_takes_a_users_name() -> None:
    x = Variable(np.array([[0.5, 1.0]]), name="x")
    assert names_of(F.tanh(x).sum())["v3"] == "y"
    loss = F.softmax_cross_entropy(x, np.array([1]))
    assert "loss" in names_of(loss).values()
    y = Variable(np.array(1.0), name="y")
    assert sorted(names_of(y * 2.0).values()) == ["2.0", "out", "y"]  # y2 reads as a y


def test_a_long_or_repeated_expression_is_named_by_its_function_and_count() -> None:
    x = Variable(np.array(0.5), name="x" * MAX_EXPRESSION)  # tanh(...) would be too long
    graph = walk([F.tanh(F.tanh(x)) * 2.0])
    names, counted = derived_names(graph)
    assert {names[i] for i in counted} == {"tanh1"}
    assert "tanh(tanh1)" in names.values()
    z = Variable(np.array(0.5), name="z")
    twice = names_of((z * z) + (z * z))  # two different nodes, one expression
    assert sorted(twice.values()) == ["mul2", "y", "z", "z*z"]
    assert len(set(twice.values())) == len(twice)


@pytest.mark.parametrize(
    "name, plain", [("x", True), ("layers.0.W", True), ("-1.5", True), ("x*2.0", False),
                    ("tanh(x)", False), ("-x", False)],
)  # fmt: skip
def test_is_plain(name: str, plain: bool) -> None:
    assert is_plain(name) is plain


def names_in(*outputs: Variable, **options: object) -> list[str]:
    """The bold names a static drawing shows, in the order it declares them."""
    dot = viz.to_dot(list(outputs), show_shapes=False, **options)  # type: ignore[arg-type]
    return [name for node, name in re.findall(r"\t(v\d+) \[label=<<B>(.*?)</B>", dot)]


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        # ** groups from the right and binds tighter than unary minus: -x**2 is -(x**2)
        (lambda x, a, b: ((-x) ** 2.0).exp(), "(-x)**2.0"),
        (lambda x, a, b: (-(x**2.0)).exp(), "-(x**2.0)"),
        (lambda x, a, b: ((x**2.0) ** 3.0).exp(), "(x**2.0)**3.0"),
        (lambda x, a, b: (Variable(np.array(-2.0), requires_grad=False) ** x).exp(), "(-2.0)**x"),
        # * and @ share a precedence but do not regroup: a*(b@c) is not (a*b)@c
        (lambda x, a, b: (a * (b @ a)).sum(), "a*(b@a)"),
        (lambda x, a, b: ((a * b) @ a).sum(), "a*b@a"),
        (lambda x, a, b: (x - (x - 1.0)).exp(), "x-(x-1.0)"),
        (lambda x, a, b: (x * -2.0).exp(), "x*(-2.0)"),
        # a name the user wrote with operators in it is one operand; a call is one word
        (lambda x, a, b: (Variable(np.array(1.0), name="p+q") * x).exp(), "(p+q)*x"),
        (lambda x, a, b: (Variable(np.array(1.0), name="-p") ** 2.0).exp(), "(-p)**2.0"),
        (lambda x, a, b: (Variable(np.array(1.0), name="f(p)") + x).exp(), "f(p)+x"),
    ],
)
def test_a_derived_name_reads_as_the_maths_it_names(
    make: Callable[..., Variable], expected: str
) -> None:
    x = Variable(np.array(2.0), name="x")
    a, b = Variable(np.ones((2, 2)), name="a"), Variable(np.ones((2, 2)), name="b")
    assert expected in names_in(make(x, a, b))


def test_a_gradient_drawn_on_its_own_is_grad_whatever_x_grad_holds_now() -> None:
    x = Variable(np.array(1.0), name="x")
    F.tanh(x).backward(create_graph=True)
    gx = x.grad
    assert gx is not None
    assert names_in(gx) == ["x", "tanh(x)", "1.0", "grad"]
    x.clear_grad()  # notebook 06's recipe: the same picture after it
    assert names_in(gx) == ["x", "tanh(x)", "1.0", "grad"]
    a, b = Variable(np.array(2.0), name="a"), Variable(np.array(3.0), name="b")
    (a * b).backward(create_graph=True)  # b.grad = 1.0 * a: b is not in its graph
    assert b.grad is not None and names_in(b.grad)[-1] == "grad"


def test_hidden_constants_still_give_their_value_to_names() -> None:
    x = Variable(np.array(1.0), name="x")
    names = names_in(F.tanh(x * 2.0).sum(), hide_constants=True)
    assert names == ["x", "x*2.0", "tanh(x*2.0)", "y"]


def test_several_outputs_are_named_by_what_they_compute() -> None:
    x = Variable(np.array(1.0), name="x")
    a = x * 2.0
    b = a.exp()
    assert names_in(a, b, (a * b).tanh()) == [
        "x", "2.0", "x*2.0", "exp(x*2.0)", "x*2.0*exp(x*2.0)", "tanh(x*2.0*exp(x*2.0))",
    ]  # fmt: skip
    many = [x.sin() for _ in range(300)]  # the same expression: sin(x), then sin2, sin3 ...
    names = names_in(*many)
    assert names[1:4] == ["sin(x)", "sin2", "sin3"] and len(set(names)) == len(names)


def test_a_product_keeps_the_brackets_of_a_matmul_inside_its_right_operand() -> None:
    a, b, c = (Variable(np.eye(2) + k, name=n) for k, n in [(1.0, "a"), (2.0, "b"), (3.0, "c")])
    assert "a*(b@c*c)" in names_in((a * ((b @ c) * c)).sum())
    assert "a*(b@c/c)" in names_in((a * ((b @ c) / c)).sum())
    assert "a*b@c" in names_in(((a * b) @ c).sum())  # (a*b)@c: Python reads it so


def test_a_hidden_constant_is_bracketed_as_a_drawn_one_is() -> None:
    x = Variable(np.array(2.0), name="x")
    minus_two = Variable(np.array(-2.0), requires_grad=False)
    assert "(-2.0)**x" in names_in((minus_two**x).exp(), hide_constants=True)
    p_plus_q = Variable(np.array(1.0), name="p+q", requires_grad=False)
    assert "(p+q)*x" in names_in((p_plus_q * x).exp(), hide_constants=True)


def test_captions_bracket_an_output_name_with_operators() -> None:
    x = Variable(np.array(0.5), name="x")
    y = F.tanh(x)
    y.name = "dy/dx"
    captions = " ".join(viz.BackwardStepper(viz.trace_backward(y)).captions())
    assert "∂(dy/dx)/∂x" in captions and "∂dy/dx/" not in captions
