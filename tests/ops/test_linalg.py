"""Op table for minitorch/ops/linalg.py: matmul (every np.matmul case) and linear."""

from __future__ import annotations

import numpy as np
import pytest
from op_harness import OpCase, OpTableTests

import minitorch.ops as F
from minitorch import Variable
from minitorch.ops.linalg import Linear


def _torch_matmul(a, b):
    import torch

    return torch.matmul(a, b)


def _torch_linear(*args):
    import torch

    return torch.nn.functional.linear(*args)


MATMUL_SHAPES = [
    ((3, 4), (4, 2)),
    ((4,), (4, 2)),
    ((3, 4), (4,)),
    ((4,), (4,)),
    ((2, 1, 3, 4), (5, 4, 2)),
    ((4,), (5, 4, 2)),
    ((5, 3, 4), (4,)),
    ((5, 3, 4), (4, 2)),
]

CASES = [
    *[
        OpCase(f"matmul{a}@{b}", F.matmul, np.matmul, (a, b), torch_fn=_torch_matmul)
        for a, b in MATMUL_SHAPES
    ],
    OpCase(
        "rmatmul_ndarray",
        lambda b: np.arange(6.0).reshape(2, 3) @ b,
        lambda b: np.arange(6.0).reshape(2, 3) @ b,
        ((3, 2),),
        float32=False,  # a float64 ndarray promotes, as in NumPy
    ),
    OpCase(
        "linear",
        F.linear,
        lambda x, W, b: x @ W.T + b,
        ((4, 3), (2, 3), (2,)),
        torch_fn=_torch_linear,
    ),
    OpCase(
        "linear_no_bias", F.linear, lambda x, W: x @ W.T, ((4, 3), (2, 3)), torch_fn=_torch_linear
    ),
    OpCase(
        "linear_3d_input",
        F.linear,
        lambda x, W, b: x @ W.T + b,
        ((2, 4, 3), (5, 3), (5,)),
        torch_fn=_torch_linear,
    ),
    OpCase(
        "linear_1d_input",
        F.linear,
        lambda x, W, b: W @ x + b,
        ((3,), (2, 3), (2,)),
        torch_fn=_torch_linear,
    ),
]


class TestLinalgTable(OpTableTests):
    cases = CASES


def test_matmul_error_names_both_shapes_and_inner_dimensions():
    a, b = Variable(np.zeros((3, 4))), Variable(np.zeros((5, 2)))
    with pytest.raises(ValueError) as info:
        F.matmul(a, b)
    assert str(info.value) == "matmul: (3, 4) @ (5, 2): inner dimensions 4 and 5 differ"


def test_matmul_rejects_0d_operands():
    with pytest.raises(ValueError, match=r"matmul: \(\) @ \(3,\)"):
        F.matmul(Variable(np.array(2.0)), Variable(np.ones(3)))


def test_matmul_rejects_batch_dimensions_that_do_not_broadcast():
    with pytest.raises(ValueError, match=r"batch dimensions \(2,\) and \(3,\) do not broadcast"):
        F.matmul(Variable(np.zeros((2, 3, 4))), Variable(np.zeros((3, 4, 5))))


def test_matmul_of_1d_operands_gives_numpy_shapes_and_gradients():
    v, w = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])
    M = np.arange(6.0).reshape(3, 2)
    x0, x1 = Variable(v.copy()), Variable(w.copy())
    y = x0 @ x1
    assert y.shape == () and y.data == 32.0
    y.backward()
    np.testing.assert_array_equal(x0.grad.data, w)  # d(v.w)/dv = w
    np.testing.assert_array_equal(x1.grad.data, v)
    x0, m = Variable(v.copy()), Variable(M.copy())
    y = x0 @ m
    assert y.shape == (2,)
    y.sum().backward()
    np.testing.assert_array_equal(x0.grad.data, M.sum(axis=1))
    np.testing.assert_array_equal(m.grad.data, np.outer(v, np.ones(2)))


def test_batched_matmul_gradient_is_summed_over_broadcast_batch():
    a = Variable(np.ones((5, 2, 3)))
    b = Variable(np.ones((3, 4)))  # shared by all 5 batch entries
    y = a @ b
    assert y.shape == (5, 2, 4)
    y.sum().backward()
    assert b.grad.shape == (3, 4)
    np.testing.assert_array_equal(b.grad.data, np.full((3, 4), 5 * 2.0))
    np.testing.assert_array_equal(a.grad.data, np.full((5, 2, 3), 4.0))


def test_linear_computes_no_gradient_for_a_constant_input():
    x = np.ones((4, 3))
    W, b = Variable(np.ones((2, 3))), Variable(np.zeros(2))
    func = Linear()
    y = func(x, W, b)
    gx, gW, gb = func.backward_array(np.ones(y.shape))
    assert gx is None
    assert gW.shape == (2, 3) and gb.shape == (2,)


def test_linear_error_names_the_shapes():
    with pytest.raises(ValueError, match=r"linear: x \(4, 3\) and W \(2, 5\)"):
        F.linear(Variable(np.zeros((4, 3))), Variable(np.zeros((2, 5))))
    with pytest.raises(ValueError, match=r"linear: b has shape \(3,\)"):
        F.linear(Variable(np.zeros((4, 3))), Variable(np.zeros((2, 3))), np.zeros(3))


def test_rmatmul_with_an_ndarray_on_the_left_returns_a_variable():
    y = np.eye(2) @ Variable(np.array([[1.0], [2.0]]))
    assert isinstance(y, Variable)
    np.testing.assert_array_equal(y.data, [[1.0], [2.0]])


# Regression (commit bf0b514): int x/W with a float b crashed (UFuncTypeError) and float32 x/W
# with a float64 b returned float32.
@pytest.mark.parametrize(
    ("x_dtype", "b_dtype"), [(np.int64, np.float64), (np.float32, np.float64), (np.float32,) * 2]
)
def test_linear_result_has_numpy_promoted_dtype_of_all_operands(x_dtype, b_dtype):
    x = np.array([[1, 2]], dtype=x_dtype)
    W = np.array([[1, 1], [2, 0]], dtype=x_dtype)
    b = np.array([0.5, -0.25], dtype=b_dtype)
    y = F.linear(x, W, b)  # int: UFuncTypeError from `y += b`; float32 + float64 b: float32
    expected = x @ W.T + b
    assert y.dtype == expected.dtype
    np.testing.assert_array_equal(y.data, expected)


def test_linear_of_bools_counts_in_float64_as_torch_does_in_float():
    torch = pytest.importorskip("torch")
    x = np.array([[True, False, True], [True, True, True]])
    W = np.array([[True, True, False], [False, True, True]])
    b = np.array([True, False])
    with pytest.raises(RuntimeError):  # PyTorch refuses bool; NumPy's bool @ is logical
        torch.nn.functional.linear(torch.tensor(x), torch.tensor(W))
    want = torch.nn.functional.linear(
        torch.tensor(x, dtype=torch.float64),
        torch.tensor(W, dtype=torch.float64),
        torch.tensor(b, dtype=torch.float64),
    ).numpy()
    y = F.linear(x, W, b)
    assert y.dtype == np.float64
    np.testing.assert_array_equal(y.data, want)  # [[2, 1], [3, 2]]: counts, not True
    np.testing.assert_array_equal(F.linear(x, W).data, want - b)


@pytest.mark.parametrize("bool_operand", ["x", "W", "b"])
def test_a_bool_operand_of_linear_takes_the_float32_of_the_others(bool_operand):
    # As x * W and F.matmul promote a bool: a bool next to float32 stays float32.
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    arrays = {
        "x": rng.standard_normal((2, 3)).astype(np.float32),
        "W": rng.standard_normal((4, 3)).astype(np.float32),
        "b": rng.standard_normal(4).astype(np.float32),
    }
    arrays[bool_operand] = arrays[bool_operand] > 0
    y = F.linear(arrays["x"], arrays["W"], arrays["b"])
    assert y.dtype == np.float32
    assert F.matmul(arrays["x"], arrays["W"].T).dtype == np.float32
    t = {k: torch.tensor(v.astype(np.float64)) for k, v in arrays.items()}
    want = torch.nn.functional.linear(t["x"], t["W"], t["b"]).numpy()
    np.testing.assert_allclose(y.data, want, rtol=1e-6)
