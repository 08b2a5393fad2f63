"""Checks for notebook 12 (forward and reverse mode): tangent rules and Jacobians.

The exercises ask for a particular *way* of computing (one ``jvp`` per input, the
cheaper mode, a Hessian-vector product without the Hessian), so the checks record how
the answer was computed as well as what it is: :func:`recording` counts the calls of
``minitorch.func``'s transforms while the student's code runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from checks import CheckFailed, check_close
from checks_build import check_close_diagnosed, exercise, require, short_errors

_TRANSFORMS = ("jvp", "vjp", "grad", "jacfwd", "jacrev", "hessian", "hvp")


@contextmanager
def recording() -> Iterator[dict[str, int]]:
    """Count the calls of ``minitorch.func``'s transforms made inside the block.

    The student's ``mf.jvp(...)`` looks the name up on the module at call time, so
    wrapping the module's attributes sees every call; they are restored afterwards.
    """
    import minitorch.func as mf

    counts = dict.fromkeys(_TRANSFORMS, 0)
    saved = {name: getattr(mf, name) for name in _TRANSFORMS}

    def counted(name: str) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            counts[name] += 1
            return saved[name](*args, **kwargs)

        return call

    for name in _TRANSFORMS:
        setattr(mf, name, counted(name))
    try:
        yield counts
    finally:
        for name, value in saved.items():
            setattr(mf, name, value)


def check_tangent_rule(make: Callable[[], Any]) -> None:
    """Check notebook 12's ``LogCosh.jvp``: the tangent, to first and second order."""
    require("LogCosh", make)
    import minitorch.func as mf

    def log_cosh(x: Any) -> Any:
        return make()(x)

    points, direction = np.array([-1.5, 0.2, 2.0]), np.array([1.0, -2.0, 0.5])
    with exercise("mf.jvp(log_cosh, (points,), (direction,))"):
        _, tangent = mf.jvp(log_cosh, (points,), (direction,))
    slope = np.tanh(points)
    y = np.logaddexp(points, -points) - np.log(2.0)
    check_close_diagnosed(
        "the tangent of your LogCosh",
        tangent,
        slope * direction,
        [
            ("the sign is flipped", -slope * direction),
            ("the tangent tx is left out: the tangent of y is tanh(x) * tx", slope),
            (
                "that is tanh(y), the output's: the derivative is tanh of the *input* x",
                np.tanh(y) * direction,
            ),
            ("that is tx * y, the tangent times the output log(cosh x): the derivative is "
             "tanh(x), of the input x = xs[0]", y * direction),
            ("that is 1 - tanh(x)**2, the second derivative", (1 - slope**2) * direction),
            ("that is the tangent tx itself: multiply by dy/dx = tanh(x)", direction),
            (
                "that is cosh(x) * tx: d/dx log cosh x = sinh x / cosh x = tanh x",
                np.cosh(points) * direction,
            ),
        ],
        hint="the tangent of y is (dy/dx) * tx, elementwise, with dy/dx = tanh(x)",
    )
    with exercise(
        "a jvp of your jvp",
        ("TypeError", "write the rule with minitorch ops (F.tanh), not NumPy, so it nests"),
    ):
        _, second = mf.jvp(
            lambda x: mf.jvp(log_cosh, (x,), (np.ones(3),))[1], (points,), (np.ones(3),)
        )
    check_close_diagnosed(
        "the second derivative (a jvp of your jvp)",
        second,
        1 - slope**2,
        {
            "a jvp of your rule gives 0: it is computed on NumPy arrays (.data); write it "
            "with minitorch ops (F.tanh) on the Variables, so that it nests": np.zeros(3)
        },
        hint="write the rule with minitorch ops (F.tanh) on the Variables, not NumPy on "
        ".data, so that it nests",
    )


def check_jacobian_by_columns(jacobian_by_columns: Callable[..., Any]) -> None:
    """Check ``jacobian_by_columns(f, x)``: the Jacobian, built from one ``jvp`` per input."""
    require("jacobian_by_columns", jacobian_by_columns)
    import minitorch.func as mf
    import minitorch.ops as F

    calls: list[int] = []

    def curve(x: Any) -> Any:
        calls.append(1)  # count the forward passes
        return F.concatenate([F.sin(x), x * x, F.exp(x[0:1])])

    x = np.array([0.3, -1.2])
    expected = mf.jacrev(curve)(x).data
    ones = mf.jvp(curve, (x,), (np.ones(2),))[1].data  # every column's tangent all ones
    calls.clear()
    with recording() as counts, exercise("jacobian_by_columns(curve, x_check)"):
        jac = jacobian_by_columns(curve, x)
    used = [name for name in ("jacfwd", "jacrev", "hessian") if counts[name]]
    if used:
        raise CheckFailed(
            f"jacobian_by_columns used mf.{used[0]}: the exercise is to build the Jacobian "
            "yourself, one mf.jvp per input (the column of e_j), stacked on axis 1"
        )
    if counts["vjp"] and not counts["jvp"]:
        raise CheckFailed(
            "jacobian_by_columns used mf.vjp: a vjp gives a *row* of the Jacobian; this "
            "exercise builds it by columns, one mf.jvp per input"
        )
    if not counts["jvp"]:
        raise CheckFailed(
            "jacobian_by_columns made no mf.jvp call: build column j from "
            "mf.jvp(f, (x,), (e_j,)), with e_j the one-hot tangent"
        )
    values = np.asarray(getattr(jac, "data", jac), dtype=np.float64)
    if values.ndim != 2:
        raise CheckFailed(
            f"your Jacobian has shape {values.shape}: stack the columns into a matrix, "
            "np.stack(columns, axis=1), shape (outputs, inputs)"
        )
    if values.shape == (expected.shape[0], expected.shape[1] - 1):
        raise CheckFailed(
            "your Jacobian has one column too few: one column per input, j over range(x.size)"
        )
    check_close_diagnosed(
        "your Jacobian",
        values,
        expected,
        [
            (
                "the columns are stacked as rows: stack them on axis 1 (np.stack(cols, axis=1))",
                expected.T,
            ),
            (
                "every column is the same: the tangent for column j is the one-hot e_j, not "
                "all ones",
                np.stack([ones, ones], axis=1),
            ),
        ],
        hint="column j is the jvp with the one-hot tangent e_j; stack columns on axis 1",
    )
    if len(calls) != 2:
        raise CheckFailed(
            f"with 2 inputs, 2 forward passes suffice (one jvp each); f ran {len(calls)} times"
        )


def check_cheapest_jacobian(cheapest_jacobian: Callable[..., Any]) -> None:
    """Check ``cheapest_jacobian(f, x)``: forward mode for tall, reverse for wide."""
    require("cheapest_jacobian", cheapest_jacobian)
    import minitorch.func as mf
    import minitorch.ops as F

    runs: list[str] = []
    W_tall = np.arange(12.0).reshape(6, 2) / 10
    W_wide = np.arange(12.0).reshape(2, 6) / 10

    def tall(x: Any) -> Any:
        runs.append("tall")
        return F.tanh(F.matmul(W_tall, x))

    def wide(x: Any) -> Any:
        runs.append("wide")
        return F.tanh(F.matmul(W_wide, x))

    expected = {"tall": mf.jacrev(tall)(np.ones(2)).data, "wide": mf.jacfwd(wide)(np.ones(6)).data}
    runs.clear()
    modes = {}
    for name, f, x in (("tall", tall, np.ones(2)), ("wide", wide, np.ones(6))):
        with recording() as counts, exercise(f"cheapest_jacobian({name}, np.ones({x.size}))"):
            got = cheapest_jacobian(f, x)
        check_close(f"the {name} Jacobian", got, expected[name])
        modes[name] = (
            "forward"
            if counts["jacfwd"] and not counts["jacrev"]
            else "reverse"
            if counts["jacrev"] and not counts["jacfwd"]
            else "both"
            if counts["jacrev"]
            else "neither"
        )
    if modes == {"tall": "reverse", "wide": "forward"}:
        raise CheckFailed(
            "the modes are swapped: forward mode (jacfwd, one pass per input) is cheaper for "
            "the tall Jacobian (more outputs than inputs), reverse mode (jacrev) for the wide one"
        )
    for name, cheap in (("tall", "forward"), ("wide", "reverse")):
        if modes[name] == "neither":
            raise CheckFailed(
                f"cheapest_jacobian({name}, ...) called neither mf.jacfwd nor mf.jacrev: "
                "choose one of the two by the shape"
            )
        if modes[name] == "both":
            raise CheckFailed(
                f"cheapest_jacobian({name}, ...) ran both modes: run one, chosen by the shape "
                "(compare x.size with the output's size)"
            )
        if modes[name] != cheap:
            raise CheckFailed(
                f"for the {name} Jacobian use {cheap} mode: "
                + (
                    "jacfwd costs one pass per input, and tall has fewer inputs than outputs"
                    if name == "tall"
                    else "jacrev costs one pass per output, and wide has fewer outputs than inputs"
                )
            )
    square = np.arange(9.0).reshape(3, 3) / 10

    def square_f(x: Any) -> Any:
        return F.tanh(F.matmul(square, x))

    right = mf.jacfwd(square_f)(np.ones(3)).data
    with recording() as counts, exercise("cheapest_jacobian(square, np.ones(3))"):
        got = cheapest_jacobian(square_f, np.ones(3))
    check_close("the square Jacobian", got, right)
    if counts["jacrev"] or not counts["jacfwd"]:
        raise CheckFailed(
            "for a square Jacobian (3 inputs, 3 outputs) use forward mode, as the exercise says "
            "(n <= m): compare with <=, not <"
        )
    n_tall, n_wide = runs.count("tall"), runs.count("wide")
    if n_tall != 2 or n_wide != 2:
        raise CheckFailed(
            f"f ran {n_tall} times for tall and {n_wide} times for wide; one probe f(x) (for "
            "the output size) plus one run inside the chosen transform are 2 each"
        )


def check_hessian_vector_product(hvp: Callable[..., Any]) -> None:
    """Check ``hessian_vector_product(f, x, v)``: H v in one pass, no full Hessian."""
    require("hessian_vector_product", hvp)
    evaluations: list[int] = []

    def energy(x: Any) -> Any:
        evaluations.append(1)
        return (x**4).sum() / 4 + (x[0] * x[1] * x[2])

    x, v = np.array([1.0, 2.0, -1.0]), np.array([0.5, -1.0, 2.0])
    H = np.diag(3 * x**2) + np.array([[0, x[2], x[1]], [x[2], 0, x[0]], [x[1], x[0], 0]])
    gradient = x**3 + np.array([x[1] * x[2], x[0] * x[2], x[0] * x[1]])
    with recording() as counts, exercise("hessian_vector_product(energy, x_hvp, v_hvp)"):
        got = hvp(energy, x, v)
    if counts["hessian"]:
        raise CheckFailed(
            "hessian_vector_product built the whole Hessian (mf.hessian): the point is H v "
            "without it, mf.jvp(mf.grad(f), (x,), (v,))"
        )
    check_close_diagnosed(
        "your H v",
        got,
        H @ v,
        [
            (
                "that is the gradient of f, not H v: mf.jvp returns (value, tangent), and the "
                "tangent is H v",
                gradient,
            ),
            (
                "that is the gradient in the direction v, g . v: H v is a vector, the jvp of "
                "the gradient",
                np.array(gradient @ v),
            ),
            ("the direction v is left out: that is H @ ones", H @ np.ones(3)),
            ("the sign is flipped", -H @ v),
        ],
        hint="mf.jvp(mf.grad(f), (x,), (v,)) returns (gradient, H v)",
    )
    if len(evaluations) != 1:
        raise CheckFailed(
            f"f should run once (a forward pass over one backward pass, no full Hessian and "
            f"no finite differences); it ran {len(evaluations)} times"
        )


short_errors(globals())  # whatever escapes a check is shown short
