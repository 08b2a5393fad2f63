"""Regression tests for op bugs found in review (each failed before its fix)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch.ops as F
from minitorch import Variable


# -- pow at a zero base ------------------------------------------------------------------
def test_pow_to_the_zero_has_zero_gradient_at_zero_base():
    x = Variable(np.array([0.0, 2.0]))
    (x**0.0).sum().backward()
    np.testing.assert_array_equal(x.grad.data, [0.0, 0.0])  # was [nan, 0]


def test_pow_exponent_gradient_at_zero_base_is_zero():
    x0 = Variable(np.array([0.0, 0.0, 2.0]))
    x1 = Variable(np.array([2.0, 0.0, 3.0]))
    F.pow(x0, x1).sum().backward()
    np.testing.assert_allclose(x1.grad.data, [0.0, 0.0, 8.0 * np.log(2.0)])  # was nan, -inf
    np.testing.assert_allclose(x0.grad.data, [0.0, 0.0, 12.0])


def test_zero_to_a_variable_power_matches_torch():
    torch = pytest.importorskip("torch")
    x = Variable(np.array([0.5, 1.0, 2.0]))
    (0.0**x).sum().backward()
    tx = torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64, requires_grad=True)
    (0.0**tx).sum().backward()
    np.testing.assert_array_equal(x.grad.data, tx.grad.numpy())


@pytest.mark.parametrize("create_graph", [False, True])
def test_pow_zero_base_gradients_agree_on_both_paths(create_graph):
    x0 = Variable(np.array([[0.0], [3.0]]))  # broadcast against the exponent row
    x1 = Variable(np.array([0.0, 1.5, 2.0]))
    F.pow(x0, x1).sum().backward(create_graph=create_graph)
    assert np.isfinite(x0.grad.data).all() and np.isfinite(x1.grad.data).all()
    np.testing.assert_allclose(x0.grad.data[1], 0.0 + 1.5 * 3**0.5 + 2 * 3.0)


def test_pow_second_derivative_of_square_at_zero():
    x = Variable(np.array([0.0, 1.0]))
    y = (x**2.0).sum()
    y.backward(create_graph=True)
    gx = x.grad
    x.clear_grad()
    gx.sum().backward()
    np.testing.assert_allclose(x.grad.data, [2.0, 2.0])


def test_pow_integer_to_negative_power_names_the_problem_not_broadcasting():
    with pytest.raises(ValueError, match="Integers to negative integer powers") as info:
        Variable(np.array([2, 3])) ** -1
    assert "broadcast" not in str(info.value)


def test_pow_shapes_that_do_not_broadcast_still_say_so():
    with pytest.raises(ValueError, match=r"pow: shapes \(2,\) and \(3,\) do not broadcast"):
        F.pow(Variable(np.ones(2)), Variable(np.ones(3)))


# -- reductions and softmax of a 0-d array ------------------------------------------------
@pytest.mark.parametrize("axis", [0, -1, (0,), None])
@pytest.mark.parametrize(
    ("fn", "expected"),
    [(F.sum, 3.0), (F.mean, 3.0), (F.max, 3.0), (F.min, 3.0), (F.logsumexp, 3.0)],
    ids=["sum", "mean", "max", "min", "logsumexp"],
)
def test_reductions_of_a_0d_array_accept_axis_0_and_minus_1(fn, expected, axis):
    x = Variable(np.array(3.0))
    y = fn(x, axis=axis)  # axis=0 leaked NumPy's AxisError; axis=-1 raised ValueError
    assert y.shape == ()
    np.testing.assert_allclose(y.data, expected)
    y.backward()
    np.testing.assert_allclose(x.grad.data, 1.0)


@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax])
def test_softmax_of_a_0d_array_matches_torch(fn):
    torch = pytest.importorskip("torch")
    x = Variable(np.array(3.0))
    y = fn(x)  # the default axis=-1 raised ValueError for 0-d input
    tx = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
    ty = getattr(torch, fn.__name__)(tx, -1)
    np.testing.assert_allclose(y.data, ty.item())
    y.backward()
    ty.backward()
    np.testing.assert_allclose(x.grad.data, tx.grad.item())


def test_var_of_a_0d_array_over_axis_0():
    np.testing.assert_allclose(F.var(Variable(np.array(3.0)), axis=0).data, 0.0)


@pytest.mark.parametrize("axis", [1, -2, (0, -1)])
def test_reductions_of_a_0d_array_reject_other_axes_with_value_error(axis):
    with pytest.raises(ValueError, match="sum: "):
        F.sum(Variable(np.array(3.0)), axis=axis)


# -- second order through concatenate / stack ---------------------------------------------
def test_second_order_through_concatenate_with_a_constant_input():
    a = Variable(np.array([1.0, 2.0]))
    b = Variable(np.array([3.0]), requires_grad=False)
    (F.concatenate([a, b]) ** 3).sum().backward(create_graph=True)
    ga = a.grad
    a.clear_grad()
    ga.sum().backward()  # raised "output 1 of Split was freed before backward"
    np.testing.assert_allclose(a.grad.data, [6.0, 12.0])


def test_second_order_through_stack_when_one_gradient_is_dropped():
    a = Variable(np.array([1.0, 2.0]))
    b = Variable(np.array([3.0, 4.0]))
    (F.stack([a, b], axis=1) ** 3).sum().backward(create_graph=True)
    ga = a.grad
    a.clear_grad()
    b.clear_grad()
    del b  # its gradient (and the graph node that made it) are gone
    ga.sum().backward()
    np.testing.assert_allclose(a.grad.data, [6.0, 12.0])


def test_gradgradcheck_of_concatenate_along_a_negative_axis():
    from minitorch.gradcheck import gradgradcheck

    rng = np.random.default_rng(0)
    arrays = [rng.normal(size=(2, 3)), rng.normal(size=(2, 1)), rng.normal(size=(2, 2))]
    assert gradgradcheck(lambda *xs: F.concatenate(xs, -1) ** 2, *arrays)


# -- dropout of an integer array ---------------------------------------------------------
def test_dropout_of_integers_scales_by_the_exact_inverse_keep_probability():
    import minitorch

    minitorch.manual_seed(0)
    y = F.dropout(Variable(np.full(1000, 10), requires_grad=False), 0.3)
    kept = y.data[y.data != 0]
    np.testing.assert_allclose(kept, 10 / 0.7)  # the int cast truncated 1/0.7 to 1


def test_dropout_keeps_float32():
    y = F.dropout(Variable(np.ones(10, np.float32)), 0.3)
    assert y.dtype == np.float32


# -- batch norm in evaluation of integer input --------------------------------------------
def test_batch_norm_evaluation_of_integer_images_is_not_truncated():
    x = np.array([[10, 200], [30, 40]], dtype=np.uint8)
    mean, var = np.array([20.0, 100.0]), np.array([100.0, 4000.0])
    y = F.batch_norm(x, mean, var, eps=0.0)  # gave all zeros: stats were cast to uint8
    np.testing.assert_allclose(y.data, (x - mean) / np.sqrt(var))


def test_batch_norm_layer_in_eval_mode_matches_train_mode_statistics_for_integers():
    from minitorch.nn import BatchNorm1d

    x = np.array([[1, 50], [3, 70], [8, 90]], dtype=np.int64)
    bn = BatchNorm1d(2, momentum=1.0, dtype=np.float64)
    bn(x)  # training: running stats := batch stats (unbiased variance)
    y = bn.eval()(x)
    expected = (x - x.mean(axis=0)) / np.sqrt(x.var(axis=0, ddof=1) + 1e-5)
    np.testing.assert_allclose(y.data, expected)


# -- empty arrays ------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(0,), (3, 0)])
def test_logsumexp_over_an_empty_axis_is_minus_inf_as_torch(shape):
    x = Variable(np.zeros(shape))
    y = F.logsumexp(x, axis=-1)  # np.max raised "zero-size array to reduction"
    assert y.shape == shape[:-1] and np.all(y.data == -np.inf)
    y.backward()
    assert x.grad.shape == shape


@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax])
@pytest.mark.parametrize(("shape", "axis"), [((3, 0), -1), ((0, 3), 0), ((0,), 0)])
def test_softmax_of_an_empty_array_is_empty(fn, shape, axis):
    x = Variable(np.zeros(shape, np.float32))
    y = fn(x, axis)
    assert y.shape == shape and y.dtype == np.float32
    y.backward()
    assert x.grad.shape == shape


def test_max_over_a_non_empty_axis_of_an_empty_array_is_empty_as_numpy():
    x = Variable(np.zeros((0, 3)))
    y = F.max(x, axis=1)  # raised although np.max gives an empty (0,) result
    assert y.shape == (0,)
    y.backward()
    assert x.grad.shape == (0, 3)


def test_max_over_an_empty_axis_still_raises():
    with pytest.raises(ValueError, match=r"max: cannot reduce an empty array of shape \(3, 0\)"):
        F.max(Variable(np.zeros((3, 0))), axis=1)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: F.conv2d(x, np.ones((2, 1, 2, 2)), np.zeros(2), stride=1, padding=1),
        lambda x: F.conv_transpose2d(x, np.ones((1, 2, 2, 2)), None, stride=2),
        lambda x: F.max_pool2d(x, 2),
        lambda x: F.avg_pool2d(x, 2),
        lambda x: F.im2col(x, 2),
    ],
    ids=["conv2d", "conv_transpose2d", "max_pool2d", "avg_pool2d", "im2col"],
)
def test_window_ops_accept_an_empty_batch(fn):
    x = Variable(np.zeros((0, 1, 4, 4)))
    y = fn(x)  # "cannot reshape array of size 0 into shape (0,newaxis,...)"
    nonempty = fn(Variable(np.zeros((1, 1, 4, 4))))
    assert y.shape == (0,) + nonempty.shape[1:]
    y.backward()
    assert x.grad.shape == x.shape


def test_conv2d_weight_gradient_of_an_empty_batch_is_zero():
    W = Variable(np.ones((2, 1, 2, 2)))
    F.conv2d(np.zeros((0, 1, 3, 3)), W).sum().backward()
    np.testing.assert_array_equal(W.grad.data, np.zeros((2, 1, 2, 2)))


def test_fourth_derivative_of_a_cube_at_zero_is_zero_not_nan():
    x = Variable(np.array([0.0, 1.0]))
    current = x**3
    derivatives = []
    for _ in range(4):  # 3x^2, 6x, 6 (= 6 x**0), 0: the last was 6 * 0 * 0**-1 = NaN
        x.clear_grad()
        current.backward(create_graph=True)
        current = x.grad
        derivatives.append(current.data.copy())
    np.testing.assert_array_equal(derivatives, [[0.0, 3.0], [0.0, 6.0], [6.0, 6.0], [0.0, 0.0]])


# -- mean / var / std agree with NumPy to the last bit -------------------------------------
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_mean_var_std_are_bit_identical_to_numpy(dtype):
    rng = np.random.default_rng(0)
    for n in range(1, 25):
        a = (rng.normal(size=(n, 3)) * 10.0 ** rng.integers(-3, 3)).astype(dtype)
        x = Variable(a)
        # multiplying by 1/count differed from np.mean in the last bit for ~1 in 4 inputs
        np.testing.assert_array_equal(F.mean(x, axis=0).data, np.mean(a, axis=0))
        np.testing.assert_array_equal(F.mean(x).data, np.mean(a))
        np.testing.assert_array_equal(F.var(x, axis=0).data, np.var(a, axis=0))
        if n > 1:
            np.testing.assert_array_equal(F.std(x, 0, ddof=1).data, np.std(a, 0, ddof=1))


# -- linear promotes with its bias ------------------------------------------------------
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
