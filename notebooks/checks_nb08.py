"""Checks for notebook 08 (writing a Function): each backward path checked on its own."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from checks_build import _numeric_gradient, exercise


def check_methods_of_function(
    name: str,
    make: Callable[[], Any],
    *inputs: np.ndarray,
    methods: tuple[str, ...] = ("backward", "backward_array"),
) -> None:
    """Check each backward method of a Function against finite differences, by name.

    A Function has two backwards: ``backward`` (minitorch ops, used with
    ``create_graph=True``) and ``backward_array`` (NumPy, the fast first-order path). A
    mistake in one of them must be reported as a mistake *there*: this runs
    ``sum(f(x)).backward(create_graph=True)`` for ``backward`` and a plain ``backward()``
    for ``backward_array``, and compares each gradient with central differences.

    Args:
        name: the Function's name ("LogCosh").
        make: returns a fresh instance (a Function records one call).
        inputs: the arrays to test at.
        methods: which of the two to check.

    Raises:
        AssertionError: naming the method, the input, the index, the finite-difference
            value and the method's value.
    """
    from minitorch import Variable

    arrays = [np.array(a, dtype=np.float64) for a in inputs]
    for method in methods:
        variables = [Variable(a.copy()) for a in arrays]
        with exercise(f"{name}.{method}"):
            y = make()(*variables)
            y.sum().backward(create_graph=(method == "backward"))
        for k, v in enumerate(variables):
            which = f" for input {k}" if len(arrays) > 1 else ""
            if v.grad is None:
                raise AssertionError(f"your {name}.{method} gave no gradient{which}")
            numeric = _numeric_gradient(lambda *xs: make()(*xs), arrays, k)
            got = np.asarray(v.grad.data, dtype=np.float64)
            if got.shape != numeric.shape:
                raise AssertionError(
                    f"your {name}.{method} returns a gradient of shape {got.shape}{which}; "
                    f"the input has shape {numeric.shape}"
                )
            bad = ~np.isclose(got, numeric, atol=1e-5, rtol=1e-4)
            if bad.any():
                index = tuple(int(i) for i in np.argwhere(bad)[0])
                sign = " (the sign is flipped)" if np.allclose(got, -numeric, atol=1e-5) else ""
                used = (
                    "used by backward(create_graph=True)"
                    if method == "backward"
                    else "used by a plain backward()"
                )
                raise AssertionError(
                    f"your {name}.{method} ({used}) is wrong{which} at index {index}: "
                    f"finite differences give {numeric[index]:.6g}, your {method} gives "
                    f"{got[index]:.6g}{sign}"
                )
