"""Two core leftovers of issue 26: ``Variable.__index__``, and the operand numbering of
reflected operators (``'a' * x`` names operand 0, the left one, as written)."""

from __future__ import annotations

import operator

import numpy as np
import pytest

from minitorch import Variable

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint16])
def test_an_integer_one_element_variable_is_an_index_as_in_pytorch(dtype: type) -> None:
    n = Variable(np.array(2, dtype=dtype), requires_grad=False)
    t = torch.tensor(2)
    assert list(range(n)) == list(range(t)) == [0, 1]
    assert ["a", "b", "c"][n] == ["a", "b", "c"][t] == "c"
    assert operator.index(Variable(np.array([3]))) == operator.index(torch.tensor([3])) == 3


@pytest.mark.parametrize(
    "data, says",
    [
        (np.array(2.0), "dtype is float64; use int(x.item())"),
        (np.array(True), "dtype is bool"),
        (np.array([1, 2]), "it has 2 elements"),
    ],
)
def test_a_float_or_multi_element_variable_is_no_index(data: np.ndarray, says: str) -> None:
    with pytest.raises(TypeError, match="only integer Variables of one element") as info:
        ["a", "b", "c"][Variable(data)]
    assert says in str(info.value)
    with pytest.raises(TypeError):  # PyTorch refuses the float too
        ["a", "b", "c"][torch.tensor(2.0)]


@pytest.mark.parametrize("op", [operator.add, operator.mul, operator.sub, operator.truediv])
def test_reflected_operators_number_operands_as_written(op) -> None:  # noqa: ANN001
    x = Variable(np.ones(2))
    with pytest.raises(TypeError, match=r": operand 0 has unsupported type str"):
        op("a", x)
    with pytest.raises(TypeError, match=r": operand 1 has unsupported type str"):
        op(x, "a")


@pytest.mark.parametrize("op", [operator.add, operator.mul])
def test_reflected_overflow_names_the_left_operand(op) -> None:  # noqa: ANN001
    x = Variable(np.ones(2, dtype=np.int8), requires_grad=False)
    with pytest.raises(OverflowError, match=r"operand 0, the Python int 300"):
        op(300, x)
    with pytest.raises(OverflowError, match=r"operand 1, the Python int 300"):
        op(x, 300)


def test_a_reflected_product_keeps_its_value_and_gradient() -> None:
    x = Variable(np.array([1.0, 2.0]))
    y = (3.0 * x + 1.0 + x * 2.0).sum()
    y.backward()
    assert x.grad is not None
    np.testing.assert_array_equal(x.grad.data, [5.0, 5.0])
