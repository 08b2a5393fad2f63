"""Fuzzing: random expression trees over random broadcastable shapes.

Each tree is evaluated twice — with minitorch ops on Variables and with NumPy on arrays —
and its gradient is checked against central differences (and PyTorch when installed).
``make test`` runs a modest number of examples; ``make fuzz`` sets ``MINITORCH_FUZZ``
to run many more.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minitorch.ops as F
from minitorch import Variable, gradcheck

EXAMPLES = int(os.environ.get("MINITORCH_FUZZ", "25"))

# name -> (minitorch function, NumPy reference, torch reference name) on safe domains:
# log/sqrt/div only ever see arguments bounded away from 0 and negatives.
UNARY: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "neg": (lambda x: -x, lambda x: -x),
    "sin": (F.sin, np.sin),
    "cos": (F.cos, np.cos),
    "tanh": (F.tanh, np.tanh),
    "square": (F.square, np.square),
    "exp_tanh": (lambda x: F.exp(F.tanh(x)), lambda x: np.exp(np.tanh(x))),
    "log1p_sq": (lambda x: F.log(1.0 + x * x), lambda x: np.log(1.0 + x * x)),
    "sqrt1p_sq": (lambda x: F.sqrt(1.0 + F.square(x)), lambda x: np.sqrt(1.0 + x * x)),
    "sum_keep": (
        lambda x: F.sum(x, axis=-1, keepdims=True) if x.ndim else x,
        lambda x: np.sum(x, axis=-1, keepdims=True) if x.ndim else x,
    ),
    "mean_keep": (
        lambda x: F.mean(x, axis=0, keepdims=True) if x.ndim else x,
        lambda x: np.mean(x, axis=0, keepdims=True) if x.ndim else x,
    ),
}
BINARY: dict[str, tuple[Callable[[Any, Any], Any], Callable[[Any, Any], Any]]] = {
    "add": (lambda a, b: a + b, np.add),
    "sub": (lambda a, b: a - b, np.subtract),
    "mul": (lambda a, b: a * b, np.multiply),
    "safe_div": (lambda a, b: a / (1.5 + b * b), lambda a, b: a / (1.5 + b * b)),
    "pow_pos": (lambda a, b: (1.0 + a * a) ** F.tanh(b), lambda a, b: (1.0 + a * a) ** np.tanh(b)),
}


@dataclass(frozen=True)
class Node:
    op: str
    children: tuple[Any, ...]  # Node or int (input index)


def trees(n_inputs: int) -> st.SearchStrategy[Any]:
    leaves = st.integers(0, n_inputs - 1)

    def extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        unary = st.builds(lambda op, c: Node(op, (c,)), st.sampled_from(sorted(UNARY)), children)
        binary = st.builds(
            lambda op, a, b: Node(op, (a, b)), st.sampled_from(sorted(BINARY)), children, children
        )
        return unary | binary

    return st.recursive(leaves, extend, max_leaves=8)


def depth(tree: Any) -> int:
    return 0 if isinstance(tree, int) else 1 + max(depth(c) for c in tree.children)


@st.composite
def broadcastable_inputs(draw: st.DrawFn) -> list[np.ndarray]:
    base = draw(st.lists(st.integers(1, 3), min_size=0, max_size=3))
    arrays = []
    for _ in range(draw(st.integers(1, 3))):
        drop = draw(st.integers(0, len(base)))
        shape = [1 if draw(st.booleans()) else d for d in base[drop:]]
        seed = draw(st.integers(0, 2**16))
        arrays.append(np.random.default_rng(seed).uniform(-1.5, 1.5, size=shape))
    return arrays


def evaluate(tree: Any, inputs: list[Any], numpy: bool) -> Any:
    if isinstance(tree, int):
        return inputs[tree]
    table = {**UNARY, **BINARY}[tree.op]
    fn = table[1] if numpy else table[0]
    return fn(*[evaluate(c, inputs, numpy) for c in tree.children])


FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@FUZZ
@given(data=st.data())
def test_random_expression_matches_numpy_and_finite_differences(data: st.DataObject) -> None:
    arrays = data.draw(broadcastable_inputs())
    tree = data.draw(trees(len(arrays)).filter(lambda t: depth(t) <= 6))
    expected = evaluate(tree, arrays, numpy=True)
    result = evaluate(tree, [Variable(a) for a in arrays], numpy=False)
    if not isinstance(result, Variable):  # the tree is a bare input
        return
    np.testing.assert_allclose(result.data, expected, rtol=1e-10, atol=1e-12)
    assert result.shape == np.shape(expected)
    assert gradcheck(lambda *xs: evaluate(tree, list(xs), numpy=False), *arrays)


@FUZZ
@given(data=st.data())
def test_random_expression_gradients_match_torch(data: st.DataObject) -> None:
    torch = pytest.importorskip("torch")
    arrays = data.draw(broadcastable_inputs())
    tree = data.draw(trees(len(arrays)).filter(lambda t: depth(t) <= 6))
    variables = [Variable(a) for a in arrays]
    result = evaluate(tree, variables, numpy=False)
    if not isinstance(result, Variable):
        return
    result.sum().backward()
    tensors = [torch.tensor(a, requires_grad=True) for a in arrays]
    torch_ops = torch_table(torch)
    evaluate_torch(tree, tensors, torch_ops).sum().backward()
    for v, t in zip(variables, tensors):
        expected = np.zeros_like(v.data) if t.grad is None else t.grad.numpy()
        actual = np.zeros_like(v.data) if v.grad is None else v.grad.data
        np.testing.assert_allclose(actual, expected, rtol=1e-9, atol=1e-12)


def torch_table(torch: Any) -> dict[str, Callable[..., Any]]:
    return {
        "neg": lambda x: -x,
        "sin": torch.sin,
        "cos": torch.cos,
        "tanh": torch.tanh,
        "square": torch.square,
        "exp_tanh": lambda x: torch.exp(torch.tanh(x)),
        "log1p_sq": lambda x: torch.log(1.0 + x * x),
        "sqrt1p_sq": lambda x: torch.sqrt(1.0 + x * x),
        "sum_keep": lambda x: x.sum(dim=-1, keepdim=True) if x.ndim else x,
        "mean_keep": lambda x: x.mean(dim=0, keepdim=True) if x.ndim else x,
        "add": torch.add,
        "sub": torch.sub,
        "mul": torch.mul,
        "safe_div": lambda a, b: a / (1.5 + b * b),
        "pow_pos": lambda a, b: (1.0 + a * a) ** torch.tanh(b),
    }


def evaluate_torch(tree: Any, inputs: list[Any], table: dict[str, Callable[..., Any]]) -> Any:
    if isinstance(tree, int):
        return inputs[tree]
    return table[tree.op](*[evaluate_torch(c, inputs, table) for c in tree.children])
