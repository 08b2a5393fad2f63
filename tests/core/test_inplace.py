"""In-place edits of leaf inputs between forward and backward (minitorch/core/inplace.py).

The snapshots are compared bit for bit, machine words at a time for large arrays, and a
changed weight is copied into the snapshot it already has (with a new version) instead of
a new copy per training step. These tests pin what that must still detect.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch.ops as F
from minitorch import Variable
from minitorch.core.inplace import LeafSnapshot, same_values

BIG = (300, 300)  # 720 kB of float64: the word-by-word comparison path


@pytest.mark.parametrize("shape", [(), (5,), BIG])
@pytest.mark.parametrize("where", ["first", "last"])
def test_one_changed_element_is_caught(shape: tuple[int, ...], where: str) -> None:
    w = Variable(np.linspace(-1.0, 1.0, int(np.prod(shape))).reshape(shape), name="w")
    loss = F.sum(w * w)
    flat = w.data.reshape(-1)  # a view: writes reach w.data
    flat[0 if where == "first" else -1] += 1e-12
    with pytest.raises(RuntimeError, match=r"Variable 'w'.*written to in place"):
        loss.backward()


def test_nan_weights_are_unchanged_when_untouched() -> None:
    w = Variable(np.full(BIG, np.nan))
    loss = F.sum(w * 2.0)
    loss.backward()  # NaN compares equal to itself bit for bit: no false alarm
    assert w.grad is not None


@pytest.mark.parametrize("shape", [(3,), BIG])
def test_a_weight_changed_between_two_uses_fails_the_first_use_only_when_it_changed(
    shape: tuple[int, ...],
) -> None:
    # An RNN-like graph: w is used, changed in place, used again. A large w: the second
    # use copies the new values into w's snapshot (a new version), and the first use's
    # backward must see that its values are gone, even though the current bytes match the
    # snapshot. A small w: each use keeps its own bytes.
    w = Variable(np.ones(shape), name="w")
    first = F.sum(w * 3.0)
    w.data *= 2.0
    second = F.sum(w * 3.0)
    second.backward()
    with pytest.raises(RuntimeError, match="modified after the forward pass"):
        first.backward()


def test_an_unchanged_weight_shares_one_snapshot_across_uses() -> None:
    w = Variable(np.ones(BIG))
    a, b = (w * 2.0).creator, (w * 3.0).creator
    ((_, snap_a, version_a),) = a.leaf_snapshots
    ((_, snap_b, version_b),) = b.leaf_snapshots
    assert snap_a is snap_b and version_a == version_b == 0


def test_training_steps_reuse_the_snapshot_buffer() -> None:
    w = Variable(np.ones(BIG))
    F.sum(w * w).backward()
    buffer = w._snapshot.copy
    w.data -= 0.1 * w.grad.data  # an optimizer step after backward: allowed
    F.sum(w * w).backward()
    assert w._snapshot.copy is buffer and w._snapshot.version == 1
    np.testing.assert_array_equal(buffer, w.data)


def test_non_contiguous_leaves_and_replacements_by_equal_values() -> None:
    base = np.arange(12.0).reshape(3, 4)
    w = Variable(base.T)  # a transposed view: not C-contiguous
    loss = F.sum(w * w)
    w.data = np.array(base.T, order="C")  # replaced by equal values: fine
    loss.backward()
    np.testing.assert_array_equal(w.grad.data, 2 * base.T)
    loss = F.sum(w * w)
    w.data = w.data + 1.0
    with pytest.raises(RuntimeError, match="replaced"):
        loss.backward()


@pytest.mark.parametrize("dtype", ["float64", "float32", "int8", "bool"])
def test_same_values_is_bit_for_bit(dtype: str) -> None:
    a = (np.arange(40_000) % 7).astype(dtype)
    b = a.copy()
    assert same_values(a, b)
    b[-1] = not b[-1] if dtype == "bool" else b[-1] + 1
    assert not same_values(a, b)
    zeros = np.zeros(10_000)
    assert not same_values(zeros, -zeros)  # -0.0 == 0.0 numerically, not bit for bit


def test_snapshot_copy_is_private() -> None:
    data = np.ones(4)
    snapshot = LeafSnapshot(data)
    data[0] = 5.0
    assert snapshot.copy[0] == 1.0 and snapshot.version == 0


def test_in_place_dtype_or_shape_changes_of_small_leaves_are_caught() -> None:
    # Found by a fresh-user trial: small arrays were compared by their bytes alone.
    w = Variable(np.full(4, 1.5), requires_grad=False, name="w")
    c = Variable(np.ones(4))
    y = F.sum(w * c)
    w.data.dtype = np.int64  # the same memory, read as integers
    with pytest.raises(RuntimeError, match=r"Variable 'w'.*modified after the forward pass"):
        y.backward()
    v = Variable(np.arange(4.0).reshape(1, 4), name="v")
    y = F.sum(v * v)
    v.data.shape = (4, 1)
    with pytest.raises(RuntimeError, match=r"Variable 'v'.*modified after the forward pass"):
        y.backward()


def test_replacement_by_a_different_dtype_says_so() -> None:
    w = Variable(np.ones(3))
    y = F.sum(w * w)
    w.data = w.data.astype(np.float32)
    with pytest.raises(RuntimeError, match="different values, shape or dtype"):
        y.backward()


def test_each_use_of_a_small_leaf_is_checked_against_its_own_values() -> None:
    w = Variable(np.ones(3), name="w")
    first = F.sum(w * 3.0)
    w.data *= 2.0
    second = F.sum(w * 3.0)
    with pytest.raises(RuntimeError, match="modified after the forward pass"):
        first.backward()
    w.data /= 2.0  # back to the values of the first use: its gradient is right again
    first.backward()
    np.testing.assert_array_equal(w.grad.data, np.full(3, 3.0))
    with pytest.raises(RuntimeError, match="modified after the forward pass"):
        second.backward()


# -- arrays an op keeps besides its inputs (found by a fresh-user trial) ----------------
# Labels, indices, masks and conditions were kept by reference, so a data loader writing
# the next batch into the same buffer before backward silently moved the gradient. The
# graph now keeps the values of the forward point; each expected gradient is by hand.
def test_labels_edited_after_forward_do_not_move_the_gradient() -> None:
    labels = np.array([0, 2])
    x = Variable(np.zeros((2, 3)))
    loss = F.softmax_cross_entropy(x, labels)
    labels[:] = [1, 1]
    loss.backward()
    onehot = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    np.testing.assert_allclose(x.grad.data, (1 / 3 - onehot) / 2)  # (softmax - onehot) / N


def test_labels_in_a_constant_variable_edited_after_forward_do_not_move_the_gradient() -> None:
    labels = Variable(np.array([0, 2]), requires_grad=False)
    x = Variable(np.zeros((2, 3)))
    loss = F.softmax_cross_entropy(x, labels)
    labels.data[:] = [1, 1]
    loss.backward()
    onehot = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    np.testing.assert_allclose(x.grad.data, (1 / 3 - onehot) / 2)


def test_embedding_indices_edited_after_forward_do_not_move_the_gradient() -> None:
    indices = np.array([0, 2])
    W = Variable(np.arange(6.0).reshape(3, 2))
    loss = F.sum(F.embedding(indices, W) * np.array([[1.0, 2.0], [3.0, 4.0]]))
    indices[:] = [1, 1]
    loss.backward()
    np.testing.assert_array_equal(W.grad.data, [[1.0, 2.0], [0.0, 0.0], [3.0, 4.0]])


@pytest.mark.parametrize(
    "index", [np.array([0, 2]), np.array([True, False, True])], ids=["integers", "mask"]
)
def test_an_index_edited_after_forward_does_not_move_the_gradient(index: np.ndarray) -> None:
    x = Variable(np.array([1.0, 2.0, 3.0]))
    loss = F.sum(x[index] * np.array([1.0, 10.0]))
    index[:] = ~index if index.dtype == bool else [1, 1]
    loss.backward()
    np.testing.assert_array_equal(x.grad.data, [1.0, 0.0, 10.0])


def test_a_where_condition_edited_after_forward_does_not_move_the_gradient() -> None:
    condition = np.array([True, False, True])
    x = Variable(np.array([1.0, 2.0, 3.0]))
    loss = F.sum(F.where(condition, x, 0.0))
    condition[:] = False
    loss.backward()
    np.testing.assert_array_equal(x.grad.data, [1.0, 0.0, 1.0])


def test_data_replaced_by_a_non_array_is_a_clear_error() -> None:
    for big in (False, True):
        x = Variable(np.ones(BIG if big else 3), name="x")
        loss = F.sum(x * x)
        x.data = 5.0  # type: ignore[assignment]
        with pytest.raises(RuntimeError, match=r"Variable 'x'\) no longer holds an ndarray"):
            loss.backward()
    w = Variable(np.ones(3), name="w")
    loss = F.sum(w * w)
    loss.backward()
    w.data = w.data - 0.1 * w.grad  # type: ignore[assignment]  # the newcomer's mistake
    with pytest.raises(RuntimeError, match=r"x\.grad\.data"):
        loss.backward()


def test_an_array_clip_bound_edited_after_forward_does_not_move_the_gradient() -> None:
    # Found by a second trial: Clip recomputes its mask from the bounds in backward.
    low = np.array(0.0)
    x = Variable(np.array([-1.0, 0.5, 2.0]))
    loss = F.sum(F.clip(x, low, 1.0))
    low[...] = 0.7
    loss.backward()
    np.testing.assert_array_equal(x.grad.data, [0.0, 1.0, 0.0])  # torch.clamp(x, 0, 1)


def test_an_array_like_operand_edited_after_forward_does_not_move_the_gradient() -> None:
    buffer = np.array([1.0, 0.0, 2.0])
    x = Variable(np.array([1.0, 2.0, 3.0]))
    loss = F.sum(x * memoryview(buffer))  # np.asarray would share the buffer's memory
    buffer[0] = 50.0
    loss.backward()
    np.testing.assert_array_equal(x.grad.data, [1.0, 0.0, 2.0])


def test_as_constant_copies_what_a_graph_keeps_unless_told_not_to() -> None:
    from minitorch.core.function import as_constant

    a = np.array([1, 2, 3])
    kept = as_constant(a, "test")
    a[0] = 100
    np.testing.assert_array_equal(kept, [1, 2, 3])
    v = Variable(np.array([1.0, 0.0]))
    assert as_constant(v, "test", dtype=bool).tolist() == [True, False]
    assert not np.shares_memory(as_constant(v, "test"), v.data)
    assert np.shares_memory(as_constant(a, "test", copy=False), a)  # under no_grad()
    with pytest.raises(TypeError, match=r"^test is a numpy\.ma\.MaskedArray"):
        as_constant(np.ma.masked_array([1.0], mask=[True]), "test", copy=False)
