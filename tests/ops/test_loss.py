"""Op table for minitorch/ops/loss.py: softmax_cross_entropy, mean_squared_error,
binary_cross_entropy (with logits), dropout; plus accuracy and the dtype traps."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from op_harness import OpCase, OpTableTests

import minitorch
import minitorch.ops as F
from minitorch import Variable

LABELS = np.array([0, 3, 1, 3, 2])
IGNORED = np.array([0, -100, 1, 3, -100])
CLASS_WEIGHT = np.array([0.5, 1.0, 2.0, 3.0])
POS_WEIGHT = np.array([1.0, 2.0, 0.5, 3.0])


def _np_reduce(losses, reduction):
    if reduction == "none":
        return losses
    return losses.mean() if reduction == "mean" else losses.sum()


def _np_nll(logp, t, weight, reduction):
    keep = t != -100
    safe = np.where(keep, t, 0)
    w = weight[safe] * keep
    losses = -logp[np.arange(len(t)), safe] * w
    if reduction == "none":
        return losses
    return losses.sum() if reduction == "sum" else losses.sum() / w.sum()


def _np_cross_entropy(x, t, reduction="mean", ignore_index=None):
    z = x - x.max(axis=1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    keep = np.ones(len(t), bool) if ignore_index is None else t != ignore_index
    losses = np.where(keep, -log_p[np.arange(len(t)), np.where(keep, t, 0)], 0.0)
    if reduction == "none":
        return losses
    return losses.sum() if reduction == "sum" else losses.sum() / keep.sum()


def _torch_ce(t, **kwargs):
    def fn(x):
        import torch

        extra = {k: torch.as_tensor(v) if k == "weight" else v for k, v in kwargs.items()}
        return torch.nn.functional.cross_entropy(x, torch.as_tensor(t), **extra)

    return fn


def _dropout_seeded(x, p=0.3):
    minitorch.manual_seed(0)
    return F.dropout(x, p)


def _np_dropout_seeded(x, p=0.3):
    keep = np.random.default_rng(0).random(x.shape) >= p
    return x * keep / (1 - p)


CASES = [
    *[
        OpCase(
            f"softmax_cross_entropy_{reduction}",
            lambda x, r=reduction: F.softmax_cross_entropy(x, LABELS, reduction=r),
            lambda x, r=reduction: _np_cross_entropy(x, LABELS, r),
            ((5, 4),),
            torch_fn=_torch_ce(LABELS, reduction=reduction),
        )
        for reduction in ("mean", "sum", "none")
    ],
    OpCase(
        "softmax_cross_entropy_ignore_index",
        lambda x: F.softmax_cross_entropy(x, IGNORED, ignore_index=-100),
        lambda x: _np_cross_entropy(x, IGNORED, ignore_index=-100),
        ((5, 4),),
        torch_fn=_torch_ce(IGNORED, ignore_index=-100),
    ),
    OpCase(
        "softmax_cross_entropy_ignore_index_none",
        lambda x: F.softmax_cross_entropy(x, IGNORED, ignore_index=-100, reduction="none"),
        lambda x: _np_cross_entropy(x, IGNORED, "none", ignore_index=-100),
        ((5, 4),),
        torch_fn=_torch_ce(IGNORED, ignore_index=-100, reduction="none"),
    ),
    OpCase(
        "mean_squared_error",
        F.mean_squared_error,
        lambda x0, x1: np.mean((x0 - x1) ** 2),
        ((3, 4), (3, 4)),
        torch_fn=lambda x0, x1: __import__("torch").nn.functional.mse_loss(x0, x1),
    ),
    OpCase(
        "binary_cross_entropy",
        F.binary_cross_entropy,
        lambda p, t: np.mean(-(t * np.log(p) + (1 - t) * np.log(1 - p))),
        ((3, 4), (3, 4)),
        make=lambda rng: [rng.uniform(0.05, 0.95, (3, 4)), rng.uniform(0, 1, (3, 4))],
        torch_fn=lambda p, t: __import__("torch").nn.functional.binary_cross_entropy(p, t),
    ),
    OpCase(
        "binary_cross_entropy_sum_weight",
        lambda p, t: F.binary_cross_entropy(p, t, weight=np.arange(4.0), reduction="sum"),
        lambda p, t: np.sum(-(t * np.log(p) + (1 - t) * np.log(1 - p)) * np.arange(4.0)),
        ((4,), (4,)),
        make=lambda rng: [rng.uniform(0.05, 0.95, 4), rng.uniform(0, 1, 4)],
        torch_fn=lambda p, t: __import__("torch").nn.functional.binary_cross_entropy(
            p, t, weight=__import__("torch").arange(4.0, dtype=p.dtype), reduction="sum"
        ),
        float32=False,  # the float64 weight promotes, as in NumPy
    ),
    OpCase(
        "binary_cross_entropy_with_logits",
        F.binary_cross_entropy_with_logits,
        lambda x, t: np.mean(
            -(t * np.log(1 / (1 + np.exp(-x))) + (1 - t) * np.log(1 - 1 / (1 + np.exp(-x))))
        ),
        ((3, 4), (3, 4)),
        make=lambda rng: [rng.uniform(-3, 3, (3, 4)), rng.uniform(0, 1, (3, 4))],
        torch_fn=lambda x, t: __import__("torch").nn.functional.binary_cross_entropy_with_logits(
            x, t
        ),
    ),
    OpCase(
        "binary_cross_entropy_with_logits_sum",
        lambda x, t: F.binary_cross_entropy_with_logits(x, t, reduction="sum"),
        lambda x, t: np.sum(np.log1p(np.exp(x)) - x * t),
        ((4,), (4,)),
        make=lambda rng: [rng.uniform(-3, 3, 4), rng.uniform(0, 1, 4)],
    ),
    OpCase(
        "binary_cross_entropy_with_logits_pos_weight",
        lambda x, t: F.binary_cross_entropy_with_logits(x, t, pos_weight=POS_WEIGHT),
        lambda x, t: np.mean(
            -(
                POS_WEIGHT * t * np.log(1 / (1 + np.exp(-x)))
                + (1 - t) * np.log(1 - 1 / (1 + np.exp(-x)))
            )
        ),
        ((3, 4), (3, 4)),
        make=lambda rng: [rng.uniform(-3, 3, (3, 4)), rng.uniform(0, 1, (3, 4))],
        torch_fn=lambda x, t: __import__("torch").nn.functional.binary_cross_entropy_with_logits(
            x, t, pos_weight=__import__("torch").as_tensor(POS_WEIGHT)
        ),
        float32=False,  # the float64 pos_weight promotes, as in NumPy
    ),
    *[
        OpCase(
            f"mse_loss_{reduction}",
            lambda x0, x1, r=reduction: F.mse_loss(x0, x1, reduction=r),
            lambda x0, x1, r=reduction: _np_reduce((x0 - x1) ** 2, r),
            ((3, 4), (3, 4)),
            torch_fn=lambda x0, x1, r=reduction: __import__("torch").nn.functional.mse_loss(
                x0, x1, reduction=r
            ),
        )
        for reduction in ("mean", "sum", "none")
    ],
    *[
        OpCase(
            f"l1_loss_{reduction}",
            lambda x0, x1, r=reduction: F.l1_loss(x0, x1, reduction=r),
            lambda x0, x1, r=reduction: _np_reduce(np.abs(x0 - x1), r),
            ((3, 4), (3, 4)),
            torch_fn=lambda x0, x1, r=reduction: __import__("torch").nn.functional.l1_loss(
                x0, x1, reduction=r
            ),
            second_order=False,  # |x| has no second derivative at the kink, gradgradcheck noise
        )
        for reduction in ("mean", "sum", "none")
    ],
    *[
        OpCase(
            f"nll_loss_{reduction}",
            lambda x, r=reduction: F.nll_loss(x, IGNORED, weight=CLASS_WEIGHT, reduction=r),
            lambda x, r=reduction: _np_nll(x, IGNORED, CLASS_WEIGHT, r),
            ((5, 4),),
            torch_fn=lambda x, r=reduction: __import__("torch").nn.functional.nll_loss(
                x,
                __import__("torch").as_tensor(IGNORED),
                weight=__import__("torch").as_tensor(CLASS_WEIGHT),
                reduction=r,
            ),
        )
        for reduction in ("mean", "sum", "none")
    ],
    OpCase(
        "cross_entropy_weight",
        lambda x: F.cross_entropy(x, IGNORED, weight=CLASS_WEIGHT),
        lambda x: _np_nll(
            x
            - x.max(1, keepdims=True)
            - np.log(np.exp(x - x.max(1, keepdims=True)).sum(1))[:, None],
            IGNORED,
            CLASS_WEIGHT,
            "mean",
        ),
        ((5, 4),),
        torch_fn=_torch_ce(IGNORED, weight=CLASS_WEIGHT),
    ),
    OpCase(
        "cross_entropy_default_ignore_index",
        lambda x: F.cross_entropy(x, IGNORED),
        lambda x: _np_cross_entropy(x, IGNORED, ignore_index=-100),
        ((5, 4),),
        torch_fn=_torch_ce(IGNORED),
    ),
    OpCase("dropout_seeded", _dropout_seeded, _np_dropout_seeded, ((4, 5),)),
]


class TestLossTable(OpTableTests):
    cases = CASES


# -- softmax_cross_entropy ----------------------------------------------------------------
def test_cross_entropy_with_logits_of_plus_minus_1000_is_finite_and_exact():
    logits = np.array([[1000.0, -1000.0, 0.0], [-1000.0, 1000.0, 1000.0]])
    t = np.array([1, 2])
    x = Variable(logits.copy())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss = F.softmax_cross_entropy(x, t)
        loss.backward()
    # row 0: -log softmax = 2000; row 1: log 2
    np.testing.assert_allclose(loss.data, (2000.0 + np.log(2)) / 2, rtol=1e-15)
    expected = np.array([[1.0, -1.0, 0.0], [0.0, 0.5, -0.5]]) / 2
    np.testing.assert_allclose(x.grad.data, expected, rtol=1e-15, atol=1e-300)


def test_cross_entropy_label_out_of_range_names_label_and_class_count():
    x = Variable(np.zeros((3, 5)))
    with pytest.raises(ValueError, match=r"label 7 at position 1 is out of range for 5 classes"):
        F.softmax_cross_entropy(x, np.array([0, 7, 1]))
    with pytest.raises(ValueError, match=r"label -1 at position 2 is out of range for 5 classes"):
        F.softmax_cross_entropy(x, np.array([0, 1, -1]))


def test_cross_entropy_rejects_float_labels_and_bad_shapes():
    x = Variable(np.zeros((2, 3)))
    with pytest.raises(TypeError, match="labels must be integers"):
        F.softmax_cross_entropy(x, np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match=r"labels of shape \(3,\) for logits \(2, 3\)"):
        F.softmax_cross_entropy(x, np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="reduction must be one of"):
        F.softmax_cross_entropy(x, np.array([0, 1]), reduction="avg")


def test_cross_entropy_repeated_backward_adds_exactly_one_gradient_per_call(rng):
    x = Variable(rng.standard_normal((4, 3)))
    loss = F.softmax_cross_entropy(x, np.array([0, 1, 2, 0]))
    loss.backward()
    first = x.grad.data.copy()
    loss.backward()  # the softmax kept by forward must not have been modified
    np.testing.assert_allclose(x.grad.data, 2 * first, rtol=1e-15)


def test_cross_entropy_accepts_a_list_of_labels():
    x = Variable(np.zeros((2, 4)))
    np.testing.assert_allclose(F.softmax_cross_entropy(x, [1, 3]).data, np.log(4.0))


# -- dtypes through a small network -------------------------------------------------------
def test_float32_network_with_python_scalars_and_int64_labels_stays_float32(rng):
    x = rng.standard_normal((6, 4)).astype(np.float32)
    t = rng.integers(0, 3, 6).astype(np.int64)
    W1 = Variable((rng.standard_normal((5, 4)) * 0.5).astype(np.float32))
    b1 = Variable(np.zeros(5, np.float32))
    W2 = Variable((rng.standard_normal((3, 5)) * 0.5).astype(np.float32))
    h = F.relu(F.linear(x * 2.0 + 1.0, W1, b1))
    h = F.sigmoid(h) * 0.5 - 0.25
    h = F.dropout(h, 0.2)
    logits = F.linear(h, W2) / 3.0
    loss = F.softmax_cross_entropy(logits, t) + 0.01 * F.sum(W1**2)
    for v in (h, logits, loss):
        assert v.dtype == np.float32
    loss.backward()
    for p in (W1, b1, W2):
        assert p.grad is not None and p.grad.dtype == np.float32
    bce = F.binary_cross_entropy_with_logits(logits, np.float32(0.5) * np.ones_like(logits.data))
    bce_p = F.binary_cross_entropy(F.sigmoid(logits), np.float32(0.5) * np.ones_like(logits.data))
    assert bce_p.dtype == np.float32
    mse = F.mean_squared_error(logits, np.zeros((6, 3), np.float32))
    assert bce.dtype == np.float32 and mse.dtype == np.float32


# -- mean_squared_error / binary_cross_entropy --------------------------------------------
def test_mean_squared_error_is_the_mean_over_all_elements():
    x = Variable(np.array([[1.0, 2.0], [3.0, 4.0]]))
    assert F.mean_squared_error(x, np.zeros((2, 2))).data == (1 + 4 + 9 + 16) / 4


def test_binary_cross_entropy_with_logits_is_stable_for_huge_logits():
    x = Variable(np.array([1000.0, -1000.0, 1000.0, -1000.0]))
    t = np.array([1.0, 0.0, 0.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss = F.binary_cross_entropy_with_logits(x, t, reduction="none")
        loss.sum().backward()
    np.testing.assert_allclose(loss.data, [0.0, 0.0, 1000.0, 1000.0])
    np.testing.assert_allclose(x.grad.data, [0.0, 0.0, 1.0, -1.0])  # sigmoid(x) - t


def test_binary_cross_entropy_names_nan_inputs_and_where_they_come_from():
    # fresh-user trial: NaN probabilities said "got values in [nan, nan]"
    p = Variable(np.array([[0.2, np.nan], [0.5, np.nan]]))
    with pytest.raises(ValueError) as err:
        F.binary_cross_entropy(p, np.ones((2, 2)))
    message = str(err.value)
    assert "nan, nan" not in message
    assert "input holds 2 NaN of 4 probabilities (the first at index (0, 1))" in message
    assert "detect_anomaly" in message and "learning rate" in message
    with pytest.raises(ValueError, match=r"1 NaN of 1 probabilities \(the first at index \(\)\)"):
        F.binary_cross_entropy(Variable(np.array(np.nan)), np.array(1.0))


def test_binary_cross_entropy_out_of_range_points_to_logits():
    with pytest.raises(ValueError, match=r"values in \[-2, 3\]; for logits .*with_logits"):
        F.binary_cross_entropy(Variable(np.array([-2.0, 0.5, 3.0])), np.ones(3))


# -- dropout ------------------------------------------------------------------------------
def test_dropout_is_identity_in_test_mode_and_for_p_zero():
    x = Variable(np.ones((3, 3)))
    with minitorch.test_mode():
        assert F.dropout(x, 0.9) is x
    assert F.dropout(x, 0.0) is x


def test_dropout_same_seed_same_mask_and_inverted_scaling():
    x = Variable(np.ones((200, 50)))
    minitorch.manual_seed(3)
    y1 = F.dropout(x, 0.25)
    minitorch.manual_seed(3)
    y2 = F.dropout(x, 0.25)
    np.testing.assert_array_equal(y1.data, y2.data)
    assert set(np.unique(y1.data)) <= {0.0, 1 / 0.75}
    assert abs(y1.data.mean() - 1.0) < 0.05  # expectation kept by the 1/(1-p) scaling
    y1.sum().backward()
    np.testing.assert_array_equal(x.grad.data, y1.data)  # gradient: the same scaled mask


def test_dropout_p_one_zeros_everything_and_bad_p_raises():
    x = Variable(np.ones(4))
    np.testing.assert_array_equal(F.dropout(x, 1.0).data, np.zeros(4))
    with pytest.raises(ValueError, match=r"dropout: p must be in \[0, 1\], got 1.5"):
        F.dropout(x, 1.5)


def test_dropout_does_not_touch_numpy_global_random_state():
    np.random.seed(0)
    expected = np.random.random()
    np.random.seed(0)
    F.dropout(Variable(np.ones(10)), 0.5)
    assert np.random.random() == expected


# -- accuracy -----------------------------------------------------------------------------
def test_accuracy_is_a_float_and_builds_no_graph():
    y = Variable(np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]]))
    acc = F.accuracy(y, np.array([1, 1, 1]))
    assert isinstance(acc, float)
    assert acc == pytest.approx(2 / 3)


def test_accuracy_refuses_nan_scores_counting_the_rows():
    # Row 0 is right (argmax 1 = label 1); rows 1 and 3 hold NaN. np.argmax takes the
    # first NaN as the maximum, so row 3 (NaN in column 0, label 0) used to count as right.
    scores = np.array([[0.1, 0.9], [0.2, np.nan], [0.7, 0.3], [np.nan, 0.5]])
    with pytest.raises(ValueError) as err:
        F.accuracy(Variable(scores), np.array([1, 1, 0, 0]))
    message = str(err.value)
    assert message.startswith(
        "accuracy: scores hold NaN in 2 of 4 rows (the first is row 1), and argmax would "
        "take a NaN's column as the prediction; a NaN is made upstream"
    )
    assert "detect_anomaly()" in message


def test_accuracy_of_integer_scores_needs_no_nan_check():
    assert F.accuracy(np.array([[0, 3], [5, 1]]), np.array([1, 1])) == 0.5


def test_accuracy_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match=r"accuracy: scores must be \(N, C\)"):
        F.accuracy(np.zeros((3, 2)), np.zeros(2, int))


@pytest.mark.parametrize(
    "op",
    [
        F.mean_squared_error,
        F.mse_loss,
        F.l1_loss,
        F.binary_cross_entropy,
        F.binary_cross_entropy_with_logits,
    ],
)
def test_elementwise_losses_refuse_different_shapes_naming_both(op):
    # (N, 1) against (N,) would broadcast to (N, N): a plausible, silently wrong loss.
    with pytest.raises(
        ValueError, match=rf"{op.__name__}: input of shape \(3, 1\) and target of shape \(3,\)"
    ):
        op(Variable(np.full((3, 1), 0.5)), np.full(3, 0.5))


# Regression (commit fc6df65): the 1/(1-p) scale was cast to int, so kept values were not rescaled.
def test_dropout_of_integers_scales_by_the_exact_inverse_keep_probability():
    import minitorch

    minitorch.manual_seed(0)
    y = F.dropout(Variable(np.full(1000, 10), requires_grad=False), 0.3)
    kept = y.data[y.data != 0]
    np.testing.assert_allclose(kept, 10 / 0.7)  # the int cast truncated 1/0.7 to 1


# Regression (commit fc6df65): the mask's dtype must follow a float32 input.
def test_dropout_keeps_float32():
    y = F.dropout(Variable(np.ones(10, np.float32)), 0.3)
    assert y.dtype == np.float32


# --- accuracy: one-column scores and float labels are refused


def test_accuracy_refuses_one_column_scores_and_says_how_to_threshold():
    scores = np.array([[0.9], [0.2], [0.8]])
    with pytest.raises(ValueError, match=r"accuracy: .*one column.*\(y\[:, 0\] > 0\.5\) == t"):
        F.accuracy(scores, [1, 0, 1])  # was 0.333: the argmax of one column is always 0


@pytest.mark.parametrize("labels", [np.array([1.0, 0.0]), np.array([True, False])])
def test_accuracy_refuses_non_integer_labels_as_cross_entropy_does(labels):
    scores = np.array([[0.1, 0.9], [0.8, 0.2]])
    with pytest.raises(TypeError, match="accuracy: labels must be integers"):
        F.accuracy(scores, labels)
    with pytest.raises(TypeError, match="cross_entropy: labels must be integers"):
        F.cross_entropy(scores, labels)


def test_accuracy_one_hot_labels_get_the_argmax_fix():
    scores = np.array([[0.1, 0.9], [0.8, 0.2]])
    for one_hot in (np.eye(2), np.eye(2, dtype=np.int64)):
        with pytest.raises((TypeError, ValueError), match=r"targets\.argmax\(axis=1\)"):
            F.accuracy(scores, one_hot)


def test_accuracy_still_counts_integer_labels():
    scores = np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]])
    assert F.accuracy(scores, np.array([1, 1, 1], dtype=np.uint8)) == pytest.approx(2 / 3)
    assert F.accuracy(scores, [1, 0, 1]) == 1.0


# --- cross_entropy names itself, and says probability targets are not supported


@pytest.mark.parametrize("weight", [None, np.array([1.0, 2.0, 3.0])])
def test_cross_entropy_with_one_hot_targets_names_the_op_and_the_fix(weight):
    logits = Variable(np.zeros((2, 3)))
    one_hot = np.eye(3)[[2, 0]]
    with pytest.raises(TypeError) as info:
        F.cross_entropy(logits, one_hot, weight=weight)
    message = str(info.value)
    assert message.startswith("cross_entropy: labels must be integers")
    assert "not supported" in message and "labels = targets.argmax(axis=1)" in message
    assert "softmax_cross_entropy" not in message and "nll_loss" not in message


@pytest.mark.parametrize("weight", [None, np.array([1.0, 2.0, 3.0])])
def test_cross_entropy_errors_name_cross_entropy_with_weight_too(weight):
    logits = Variable(np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"^cross_entropy: label 5 at position 1"):
        F.cross_entropy(logits, np.array([0, 5]), weight=weight)
    with pytest.raises(ValueError, match=r"^cross_entropy: labels of shape \(3,\)"):
        F.cross_entropy(logits, np.array([0, 1, 2]), weight=weight)
    with pytest.raises(ValueError, match=r"^cross_entropy: weight must have shape \(3,\)"):
        F.cross_entropy(logits, np.array([0, 1]), weight=np.ones(2))


def test_integer_one_hot_labels_get_the_argmax_fix():
    with pytest.raises(ValueError, match=r"cross_entropy: .*targets\.argmax\(axis=1\)"):
        F.cross_entropy(Variable(np.zeros((2, 3))), np.eye(3, dtype=np.int64)[[2, 0]])


def test_whole_float_labels_get_the_astype_fix():
    with pytest.raises(TypeError, match=r"labels\.astype\(np\.int64\)"):
        F.cross_entropy(Variable(np.zeros((2, 3))), np.array([2.0, 0.0]))


def test_nll_loss_messages_still_name_nll_loss():
    with pytest.raises(TypeError, match="^nll_loss: labels must be integers"):
        F.nll_loss(Variable(np.zeros((2, 3))), np.array([2.0, 0.0]))


@pytest.mark.parametrize("label", [3, -1])
def test_accuracy_refuses_labels_out_of_range_as_cross_entropy_does(label):
    # Fresh-user trial: such a row silently counted as wrong (argmax never equals it).
    scores = np.eye(3)[[0, 1, 2, 0]]
    labels = np.array([0, 1, 2, label])
    with pytest.raises(ValueError, match=rf"accuracy: label {label} at position 3 .*3 classes"):
        F.accuracy(scores, labels)
    with pytest.raises(ValueError, match="out of range for 3 classes"):
        F.cross_entropy(scores, labels)
