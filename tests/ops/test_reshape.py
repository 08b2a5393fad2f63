"""Op table for minitorch/ops/reshape.py (reshape, transpose, broadcast_to, sum_to,
expand_dims, squeeze, flatten, astype) and minitorch/ops/join.py (concatenate, stack)."""

from __future__ import annotations

import numpy as np
import pytest
from op_harness import OpCase, OpTableTests

import minitorch.ops as F
from minitorch import Variable


def _sum_to_ref(x, shape):
    lead = x.ndim - len(shape)
    y = x.sum(axis=tuple(range(lead))) if lead else x
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and y.shape[i] != 1)
    return y.sum(axis=axes, keepdims=True)


CASES = [
    OpCase(
        "reshape",
        lambda x: F.reshape(x, (4, -1)),
        lambda x: x.reshape(4, 3),
        ((3, 4),),
        torch_fn=lambda x: x.reshape(4, -1),
    ),
    OpCase(
        "reshape_0d",
        lambda x: F.reshape(x, (1, 1)),
        lambda x: x.reshape(1, 1),
        ((),),
        torch_fn=lambda x: x.reshape(1, 1),
    ),
    OpCase(
        "transpose",
        F.transpose,
        np.transpose,
        ((2, 3, 4),),
        torch_fn=lambda x: x.permute(2, 1, 0),
    ),
    OpCase(
        "transpose_axes",
        lambda x: F.transpose(x, (1, -1, 0)),
        lambda x: np.transpose(x, (1, 2, 0)),
        ((2, 3, 4),),
        torch_fn=lambda x: x.permute(1, 2, 0),
    ),
    OpCase(
        "broadcast_to",
        lambda x: F.broadcast_to(x, (2, 3, 4)),
        lambda x: np.broadcast_to(x, (2, 3, 4)),
        ((3, 1),),
        torch_fn=lambda x: x.expand(2, 3, 4),
    ),
    OpCase(
        "broadcast_to_0d",
        lambda x: F.broadcast_to(x, (2, 3)),
        lambda x: np.broadcast_to(x, (2, 3)),
        ((),),
        torch_fn=lambda x: x.expand(2, 3),
    ),
    OpCase(
        "sum_to",
        lambda x: F.sum_to(x, (3, 1)),
        lambda x: _sum_to_ref(x, (3, 1)),
        ((2, 3, 4),),
        torch_fn=lambda x: x.sum(0).sum(1, keepdim=True),
    ),
    OpCase(
        "expand_dims",
        lambda x: F.expand_dims(x, (0, -1)),
        lambda x: np.expand_dims(x, (0, -1)),
        ((3, 4),),
        torch_fn=lambda x: x[None, ..., None],
    ),
    OpCase(
        "squeeze_all",
        F.squeeze,
        np.squeeze,
        ((1, 3, 1, 4),),
        torch_fn=lambda x: x.squeeze(),
    ),
    OpCase(
        "squeeze_axis",
        lambda x: F.squeeze(x, -2),
        lambda x: np.squeeze(x, -2),
        ((1, 3, 1, 4),),
        torch_fn=lambda x: x.squeeze(-2),
    ),
    OpCase(
        "flatten",
        F.flatten,
        lambda x: x.flatten(),
        ((2, 3, 4),),
        torch_fn=lambda x: x.flatten(),
    ),
    OpCase(
        "flatten_from_1",
        lambda x: F.flatten(x, 1),
        lambda x: x.reshape(2, 12),
        ((2, 3, 4),),
        torch_fn=lambda x: x.flatten(1),
    ),
    OpCase(
        "concatenate",
        lambda a, b, c: F.concatenate([a, b, c], axis=1),
        lambda a, b, c: np.concatenate([a, b, c], axis=1),
        ((2, 1), (2, 3), (2, 2)),
        torch_fn=lambda a, b, c: __import__("torch").cat([a, b, c], dim=1),
    ),
    OpCase(
        "concatenate_neg_axis",
        lambda a, b: F.concatenate([a, b], axis=-3),
        lambda a, b: np.concatenate([a, b], axis=-3),
        ((1, 2, 3), (2, 2, 3)),
        torch_fn=lambda a, b: __import__("torch").cat([a, b], dim=-3),
    ),
    OpCase(
        "stack",
        lambda a, b: F.stack([a, b], axis=-1),
        lambda a, b: np.stack([a, b], axis=-1),
        ((3, 4), (3, 4)),
        torch_fn=lambda a, b: __import__("torch").stack([a, b], dim=-1),
    ),
    OpCase(
        "stack_0d",
        lambda a, b: F.stack([a, b]),
        lambda a, b: np.stack([a, b]),
        ((), ()),
        torch_fn=lambda a, b: __import__("torch").stack([a, b]),
    ),
    OpCase(
        "astype_float32_roundtrip",
        lambda x: F.astype(F.astype(x, np.float32) * 3.0, np.float64),
        lambda x: (x.astype(np.float32) * np.float32(3.0)).astype(np.float64),
        ((3, 4),),
        float32=False,
        loose=True,
    ),
]


class TestReshapeTable(OpTableTests):
    cases = CASES


def test_astype_changes_dtype_and_converts_the_gradient_back():
    x = Variable(np.array([1.0, 2.0]))
    y = F.astype(x, np.float32)
    assert y.dtype == np.float32
    (y * 2.0).sum().backward()
    assert x.grad is not None and x.grad.dtype == np.float64
    np.testing.assert_array_equal(x.grad.data, [2.0, 2.0])


def test_astype_to_the_same_dtype_returns_the_variable():
    x = Variable(np.zeros(2))
    assert F.astype(x, np.float64) is x
    assert x.astype("float64") is x


def test_concatenate_error_names_all_shapes():
    with pytest.raises(ValueError, match=r"concatenate: cannot join shapes \(2, 3\), \(3, 3\)"):
        F.concatenate([Variable(np.zeros((2, 3))), Variable(np.zeros((3, 3)))], axis=1)


def test_concatenate_names_an_axis_out_of_range_and_0d_inputs():
    # Found by a fresh-user trial: both said only "cannot join shapes".
    with pytest.raises(ValueError, match=r"axis 3 is out of range for arrays of 1 dims"):
        F.concatenate([np.ones(2)], axis=3)
    with pytest.raises(ValueError, match=r"cannot join 0-d arrays .*F\.stack"):
        F.concatenate([Variable(np.array(1.0)), Variable(np.array(2.0))])


def test_stack_rejects_different_shapes():
    with pytest.raises(ValueError, match=r"stack: .*\(2,\), \(3,\)"):
        F.stack([Variable(np.zeros(2)), Variable(np.zeros(3))])


def test_squeeze_rejects_an_axis_whose_size_is_not_one():
    with pytest.raises(ValueError, match=r"squeeze: cannot squeeze axis 1 of shape \(1, 3\)"):
        F.squeeze(Variable(np.zeros((1, 3))), 1)


def test_expand_dims_rejects_out_of_range_axis():
    with pytest.raises(ValueError, match="expand_dims: axis 3"):
        F.expand_dims(Variable(np.zeros((2, 3))), 3)


def test_flatten_methods_follow_numpy_and_torch():
    x = Variable(np.arange(24.0).reshape(2, 3, 4))
    assert x.flatten().shape == (24,)
    assert F.flatten(x, 1, 2).shape == (2, 12)
    assert F.flatten(x, 0, 1).shape == (6, 4)
    with pytest.raises(ValueError, match="flatten: start_dim=2 comes after end_dim=1"):
        F.flatten(x, 2, 1)


def test_concatenate_gradient_of_an_unused_part_is_zero():
    a, b = Variable(np.ones((2, 2))), Variable(np.ones((2, 3)))
    y = F.concatenate([a, b], axis=1)
    y[:, :2].sum().backward()
    np.testing.assert_array_equal(a.grad.data, np.ones((2, 2)))
    np.testing.assert_array_equal(b.grad.data, np.zeros((2, 3)))


# Regression, found in review: a dropped gradient of one input broke a later second-order backward.
def test_second_order_through_concatenate_with_a_constant_input():
    a = Variable(np.array([1.0, 2.0]))
    b = Variable(np.array([3.0]), requires_grad=False)
    (F.concatenate([a, b]) ** 3).sum().backward(create_graph=True)
    ga = a.grad
    a.clear_grad()
    ga.sum().backward()  # raised "output 1 of Split was freed before backward"
    np.testing.assert_allclose(a.grad.data, [6.0, 12.0])


# Regression, found in review: a dropped gradient of one input broke a later second-order backward.
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


# Regression, found in review: a negative axis was not normalised in the second-order path.
def test_gradgradcheck_of_concatenate_along_a_negative_axis():
    from minitorch.gradcheck import gradgradcheck

    rng = np.random.default_rng(0)
    arrays = [rng.normal(size=(2, 3)), rng.normal(size=(2, 1)), rng.normal(size=(2, 2))]
    assert gradgradcheck(lambda *xs: F.concatenate(xs, -1) ** 2, *arrays)


@pytest.mark.parametrize(
    "view",
    [
        lambda c: F.reshape(c, (1,)),
        lambda c: F.reshape(c, (1, 1)),
        lambda c: F.transpose(c),
        lambda c: F.expand_dims(c, 0),
        lambda c: F.flatten(c),
        lambda c: F.sum_to(c, ()),  # the same shape: forward returns its input
        lambda c: F.get_item(c, ...),  # x[...] of a 0-d array is a view
    ],
)
def test_a_view_of_a_python_number_is_writeable_and_leaves_the_constant_alone(view) -> None:
    # Python numbers become shared read-only 0-d arrays; a view of one used to be
    # read-only too ("assignment destination is read-only") or the shared array itself.
    out = view(2.5)
    out.data[...] = 1.0
    np.testing.assert_array_equal(out.data, np.ones(out.shape))
    np.testing.assert_array_equal(view(2.5).data, np.full(out.shape, 2.5))
    np.testing.assert_array_equal((Variable(np.ones(2)) * 2.5).data, [2.5, 2.5])


def test_views_of_variables_still_share_memory() -> None:
    a = np.arange(6.0)
    assert np.shares_memory(F.reshape(Variable(a), (2, 3)).data, a)  # no extra copy
    assert np.shares_memory(F.transpose(Variable(a.reshape(2, 3))).data, a)


@pytest.mark.parametrize("axis", [-3, 2, 1.0])
def test_stack_axis_out_of_range_names_stack(axis):
    with pytest.raises(ValueError) as info:
        F.stack([np.ones(3), np.zeros(3)], axis=axis)
    message = str(info.value)
    assert message.startswith("stack: axis") and "-2..1" in message
    assert "expand_dims" not in message  # the internal op the trial saw named


@pytest.mark.parametrize("axis", [-2, -1, 0, 1])
def test_stack_every_valid_axis_matches_numpy(axis):
    a, b = np.arange(3.0), np.arange(3.0, 6.0)
    np.testing.assert_array_equal(F.stack([a, b], axis=axis).data, np.stack([a, b], axis=axis))


@pytest.mark.parametrize(("op", "torch_name"), [("concatenate", "cat"), ("stack", "stack")])
def test_concatenate_and_stack_name_axis_for_pytorchs_dim(op, torch_name):
    torch = pytest.importorskip("torch")
    a, b = np.ones((2, 3)), np.zeros((2, 3))
    want = getattr(torch, torch_name)([torch.tensor(a), torch.tensor(b)], dim=1).numpy()
    with pytest.raises(TypeError, match=rf"^{op}\(\) .*'dim' \(PyTorch's name\).*axis=$"):
        getattr(F, op)([a, b], dim=1)
    np.testing.assert_array_equal(getattr(F, op)([a, b], axis=1).data, want)


def test_concatenate_of_arrays_not_in_a_sequence_says_to_pass_a_list():
    with pytest.raises(TypeError, match=r"F\.concatenate\(\[a, b\]\)"):
        F.concatenate(np.ones(2), np.ones(3))
    np.testing.assert_array_equal(  # the spelling it recommends works
        F.concatenate([np.ones(2), np.zeros(3)]).data, np.concatenate([np.ones(2), np.zeros(3)])
    )
