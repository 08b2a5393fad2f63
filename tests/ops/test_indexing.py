"""Op table for minitorch/ops/indexing.py: get_item (every kind of index) and where."""

from __future__ import annotations

import numpy as np
import pytest
from op_harness import OpCase, OpTableTests

import minitorch.ops as F
from minitorch import Variable

MASK = np.array(
    [[True, False, True, True], [False, False, True, False], [True, True, False, False]]
)
COND = np.array([True, False, False, True])

INDICES = {
    "int": 1,
    "slice": (slice(None), slice(1, 3)),
    "step_slice": (slice(None, None, -1), slice(0, 4, 2)),
    "int_array_repeated": np.array([0, 2, 0, 0]),
    "list_repeated": [2, 2, 1],
    "pair_of_int_arrays": (np.array([0, 0, 2]), np.array([1, 1, 3])),
    "bool_mask": MASK,
    "none_and_ellipsis": (None, ..., 1),
    "mixed_slice_array": (slice(0, 2), np.array([3, 3, 0])),
}


def _torch_index(index):
    def fn(x):
        import torch

        if isinstance(index, tuple):
            key = tuple(torch.as_tensor(i) if isinstance(i, np.ndarray) else i for i in index)
        elif isinstance(index, (np.ndarray, list)):
            key = torch.as_tensor(np.asarray(index))
        else:
            key = index
        return x[key]

    return fn


CASES = [
    *[
        OpCase(
            f"get_item[{name}]",
            lambda x, index=index: F.get_item(x, index),
            lambda x, index=index: x[np.asarray(index) if isinstance(index, list) else index],
            ((3, 4),),
            torch_fn=None if name == "step_slice" else _torch_index(index),
        )
        for name, index in INDICES.items()
    ],
    OpCase(
        "getitem_operator",
        lambda x: x[1:, [0, 0]],
        lambda x: x[1:, [0, 0]],
        ((3, 4),),
        torch_fn=lambda x: x[1:, [0, 0]],
    ),
    OpCase(
        "where",
        lambda x0, x1: F.where(COND, x0, x1),
        lambda x0, x1: np.where(COND, x0, x1),
        ((3, 4), (3, 4)),
        torch_fn=lambda x0, x1: __import__("torch").where(
            __import__("torch").tensor(COND), x0, x1
        ),
    ),
    OpCase(
        "where_broadcast",
        lambda x0, x1: F.where(COND, x0, x1),
        lambda x0, x1: np.where(COND, x0, x1),
        ((3, 1), ()),
        torch_fn=lambda x0, x1: __import__("torch").where(
            __import__("torch").tensor(COND), x0, x1
        ),
    ),
]


class TestIndexingTable(OpTableTests):
    cases = CASES


def test_get_item_repeated_indices_accumulate_like_np_add_at():
    x = Variable(np.arange(5.0))
    index = np.array([1, 1, 1, 4, 0, 4])
    y = x[index]
    weights = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    (y * weights).sum().backward()
    expected = np.zeros(5)
    np.add.at(expected, index, weights)  # [5, 6, 0, 0, 10]
    np.testing.assert_array_equal(x.grad.data, expected)
    np.testing.assert_array_equal(x.grad.data, [5.0, 6.0, 0.0, 0.0, 10.0])


def test_get_item_repeated_rows_of_a_matrix():
    W = Variable(np.zeros((3, 2)))
    W[[0, 2, 0]].sum().backward()
    np.testing.assert_array_equal(W.grad.data, [[2.0, 2.0], [0.0, 0.0], [1.0, 1.0]])


def test_get_item_second_order_through_repeated_indices():
    x = Variable(np.array([1.0, 2.0, 3.0]))
    y = (x[[0, 0, 2]] ** 2).sum()  # = 2 x0^2 + x2^2
    y.backward(create_graph=True)
    gx = x.grad
    np.testing.assert_array_equal(gx.data, [4.0, 0.0, 6.0])
    x.clear_grad()
    gx.sum().backward()
    np.testing.assert_array_equal(x.grad.data, [4.0, 0.0, 2.0])


def test_get_item_out_of_bounds_names_index_and_shape():
    with pytest.raises(IndexError, match=r"get_item: index 5 on shape \(3,\)"):
        F.get_item(Variable(np.zeros(3)), 5)


def test_where_gives_the_condition_no_gradient_and_routes_gy():
    cond = Variable(np.array([1.0, 0.0, 1.0]))
    x0, x1 = Variable(np.ones(3)), Variable(np.zeros(3))
    F.where(cond, x0, x1).sum().backward()
    assert cond.grad is None
    np.testing.assert_array_equal(x0.grad.data, [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(x1.grad.data, [0.0, 1.0, 0.0])


def test_where_python_int_out_of_range_names_where_and_the_fix():
    """The trial's where(mask, uint8_array, -1): NumPy 2's rule, refused by name.

    np.where itself wraps -1 around to 255; NumPy 2 refuses such a Python int in
    arithmetic (uint8_array + (-1)), and so does minitorch's where (the operand
    conversion in core raises it; this checks what a user of where sees).
    """
    mask = np.array([True, False, True])
    with pytest.raises(OverflowError) as info:
        F.where(mask, np.array([1, 2, 3], dtype=np.uint8), -1)
    message = str(info.value)
    assert message.startswith("Where: operand 1, the Python int -1")
    assert "uint8" in message and "np.int64(-1)" in message
    with pytest.raises(OverflowError, match=r"^Where: operand 0, the Python int 300, .* int8"):
        F.where(mask, 300, Variable(np.array([1, 2, 3], dtype=np.int8)))


def test_where_python_int_in_range_keeps_the_integer_dtype():
    mask = np.array([True, False, True])
    y = F.where(mask, np.array([1, 2, 3], dtype=np.uint8), 7)
    assert y.dtype == np.uint8
    np.testing.assert_array_equal(y.data, np.where(mask, np.array([1, 2, 3], np.uint8), 7))
    z = F.where(mask, np.array([1, 2, 3], dtype=np.uint8), np.int16(-1))  # a strong int16
    np.testing.assert_array_equal(z.data, [1, -1, 3])
