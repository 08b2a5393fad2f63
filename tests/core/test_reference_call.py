"""The twelve-line reference ``__call__`` of docs/concepts/backward.md agrees with the real one.

The page shows students what ``Function.__call__`` does without its speed-ups; this test
runs both on the same operands (Variables, constants, Python numbers, float32, ``no_grad``,
several outputs) and compares everything the reference sets.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from minitorch import Function, Variable, no_grad

PAGE = Path(__file__).resolve().parents[2] / "docs" / "concepts" / "backward.md"


def _reference() -> Any:
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    (block,) = [b for b in blocks if "def reference_call" in b]
    body = block[block.index("def reference_call") :].rstrip().splitlines()[1:]
    assert len(body) <= 12, f"the reference __call__ has {len(body)} lines"
    namespace: dict[str, Any] = {"np": np}
    exec(compile(block, str(PAGE), "exec"), namespace)  # noqa: S102 (our own docs)
    return namespace["reference_call"]


class Scale(Function):
    def forward(self, x: np.ndarray, c: np.ndarray) -> np.ndarray:
        return x * c

    def backward(self, gy: Variable) -> tuple[Variable, Variable]:
        x, c = self.inputs
        return gy * c, gy * x


class Split(Function):
    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return x[:1].copy(), x[1:].copy()


def _operands(kind: str) -> tuple[Any, ...]:
    x = Variable(np.array([1.0, 2.0]))
    y = x * 2.0  # a Variable of generation 1
    return {
        "two_variables": (y, x),
        "python_float": (y, 0.5),
        "python_int": (x, 3),
        "float32_and_float": (Variable(np.ones(2, np.float32)), 2.0),
        "ndarray_constant": (x, np.array([3, 4])),
        "only_constants": (Variable(np.ones(2), requires_grad=False), 2.0),
        "list_operand": (x, [1.0, 2.0]),
    }[kind]


def _summary(func: Function, out: Any) -> dict[str, Any]:
    outs = out if isinstance(out, list) else [out]
    recorded = outs[0].creator is not None
    return {
        "values": [y.data.tolist() for y in outs],
        "dtypes": [y.dtype for y in outs],
        "requires_grad": [y.requires_grad for y in outs],
        "generations": [y.generation for y in outs],
        "creator_is_func": [y.creator is func for y in outs],
        "inputs": [id(x) if x.creator else x.data.tolist() for x in func.inputs]
        if recorded
        else None,
        "needs": func.needs_input_grad if recorded else None,
        "func_generation": func.generation if recorded else None,
        "outputs_alive": [ref() is y for ref, y in zip(func.outputs, outs)] if recorded else None,
    }


@pytest.mark.parametrize(
    "kind",
    [
        "two_variables",
        "python_float",
        "python_int",
        "float32_and_float",
        "ndarray_constant",
        "only_constants",
        "list_operand",
    ],
)
@pytest.mark.parametrize("graph", [True, False], ids=["recording", "no_grad"])
def test_reference_call_agrees_with_function_call(kind: str, graph: bool) -> None:
    reference = _reference()

    class ReferenceScale(Scale):
        __call__ = reference

    operands = _operands(kind)
    real, ref = Scale(), ReferenceScale()
    if graph:
        got_real, got_ref = real(*operands), ref(*operands)
    else:
        with no_grad():
            got_real, got_ref = real(*operands), ref(*operands)
    assert _summary(real, got_real) == _summary(ref, got_ref)


def test_reference_call_agrees_for_several_outputs() -> None:
    reference = _reference()

    class ReferenceSplit(Split):
        __call__ = reference

    x = Variable(np.arange(3.0))
    real, ref = Split(), ReferenceSplit()
    assert _summary(real, real(x)) == _summary(ref, ref(x))
