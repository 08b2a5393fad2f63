"""Every public op with uint8, int8 and bool inputs: the right value or a clear TypeError.

The rule (docs/api/ops.md, "Integer and bool inputs"): ops defined only on real numbers
(sigmoid, softplus, the softmax family, logsumexp, the losses, the normalisations)
convert integer and bool inputs to float64 before computing, as NumPy's true division
does; the ops that are NumPy ufuncs or NumPy operators (``exp``, ``add``, ``matmul``,
``max`` ...) and the ops that only move values (``reshape``, ``where`` ...) give NumPy's
own result, dtype included (``np.exp(int8)`` is float16, ``uint8 - uint8`` wraps as in
NumPy). Where NumPy itself refuses (``-bool``) the error is a TypeError naming the op.

Before the rule, ``sigmoid(uint8 [1, 2, 3])`` was ``[0 0 0]`` (``-x`` wrapped) and
``softmax`` of it was NaN: silently wrong values. Each row's reference is computed here
without minitorch: the same op on float64 inputs (a real-only op), or NumPy's expression
on the integer inputs themselves (a NumPy-equivalent op).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import minitorch.ops as F
from minitorch import Variable, manual_seed

DTYPES = [np.uint8, np.int8, np.bool_]
MASK = np.array([True, False, True])


def values(dtype: Any, shape: tuple[int, ...] = (2, 3)) -> np.ndarray:
    """Small inputs of ``dtype``: negative entries for int8, 0 and 1 for bool."""
    base = {
        np.uint8: [1, 2, 3, 4, 0, 2],
        np.int8: [1, -2, 3, -4, 0, 2],
        np.bool_: [True, False, True, False, False, True],
    }[dtype]
    size = int(np.prod(shape))
    return np.resize(np.array(base, dtype=dtype), size).reshape(shape)


def probs(dtype: Any, shape: tuple[int, ...] = (2, 3)) -> np.ndarray:
    """0/1 values of ``dtype`` (valid probabilities and binary targets)."""
    return (values(np.bool_, shape)).astype(dtype)


def labels(n: int = 2) -> np.ndarray:
    return np.array([2, 0, 1, 1][:n])


@dataclass(frozen=True)
class Row:
    """An op called on integer inputs made by ``make(dtype)``.

    ``numpy``: the NumPy expression on the same (integer) inputs, for ops whose result is
    NumPy's own; ``None`` for real-only ops, compared with the op on float64 inputs.
    """

    name: str
    make: Callable[[Any], tuple[Any, ...]]
    call: Callable[..., Any]
    numpy: Callable[..., Any] | None = None


def x1(dtype: Any) -> tuple[Any, ...]:
    return (values(dtype),)


def x2(dtype: Any) -> tuple[Any, ...]:
    return values(dtype), values(dtype)[::-1].copy()


def sq(dtype: Any) -> tuple[Any, ...]:
    """An invertible, symmetric positive-definite 2x2 matrix of ``dtype`` (bool: I)."""
    return (np.eye(2, dtype=dtype) if dtype is np.bool_ else np.array([[2, 1], [1, 2]], dtype),)


def unit(dtype: Any) -> tuple[Any, ...]:
    return (probs(dtype),)


def zero(dtype: Any) -> tuple[Any, ...]:
    return (np.zeros((2, 3), dtype=dtype),)


def positive(dtype: Any) -> tuple[Any, ...]:
    """Values >= 1 of ``dtype`` (all True for bool)."""
    return (np.ones((2, 3), bool) if dtype is np.bool_ else np.abs(values(dtype)) + 1,)


def _pool_ref(x: np.ndarray) -> np.ndarray:
    """2x2 max pooling, stride 2, of a (1, 1, 3, 4) image: two windows in the top rows."""
    return np.array([[[[x[0, 0, :2, :2].max(), x[0, 0, :2, 2:].max()]]]], dtype=x.dtype)


def _seeded_dropout(x: Any) -> Any:
    manual_seed(0)  # the same mask for the integer and the float64 call
    return F.dropout(x, 0.5, training=True)


def img(dtype: Any) -> tuple[Any, ...]:
    return (values(dtype, (1, 1, 3, 4)),)


ROWS = [
    # Real-only ops: integers and bools are computed in float64.
    Row("sigmoid", x1, F.sigmoid),
    Row("softplus", x1, F.softplus),
    Row("softmax", x1, F.softmax),
    Row("log_softmax", x1, F.log_softmax),
    Row("logsumexp", x1, F.logsumexp),
    Row("logsumexp_axis", x1, lambda x: F.logsumexp(x, axis=1)),
    Row("leaky_relu", x1, lambda x: F.leaky_relu(x, 0.1)),
    Row("var", x1, lambda x: F.var(x, axis=1)),
    Row("std", x1, lambda x: F.std(x, axis=1)),
    Row("mean", x1, F.mean),
    Row("div", x2, lambda a, b: F.div(a, b + 10)),
    Row("cross_entropy", x1, lambda x: F.cross_entropy(x, labels())),
    Row(
        "cross_entropy_weight",
        x1,
        lambda x: F.cross_entropy(x, labels(), weight=np.array([1.0, 2.0, 3.0])),
    ),
    Row("softmax_cross_entropy", x1, lambda x: F.softmax_cross_entropy(x, labels())),
    Row("nll_loss", x1, lambda x: F.nll_loss(x, labels())),
    Row("mse_loss", x2, F.mse_loss),
    Row("mean_squared_error", x2, F.mean_squared_error),
    Row("l1_loss", x2, F.l1_loss),
    Row(
        "binary_cross_entropy", lambda d: (probs(d), probs(d)[::-1].copy()), F.binary_cross_entropy
    ),
    Row(
        "binary_cross_entropy_with_logits",
        lambda d: (values(d), probs(d)),
        F.binary_cross_entropy_with_logits,
    ),
    Row("batch_norm", x1, lambda x: F.batch_norm(x, None, None, training=True)),
    Row(
        "batch_norm_eval",
        x1,
        lambda x: F.batch_norm(x, np.array([0.5, 1.0, 0.0]), np.array([2.0, 1.0, 4.0])),
    ),
    Row("layer_norm", x1, lambda x: F.layer_norm(x, 3)),
    Row("accuracy", x1, lambda x: F.accuracy(x.astype(np.int64) * 0 + x, labels())),
    Row("avg_pool2d", img, lambda x: F.avg_pool2d(x, 2)),
    Row("dropout", x1, lambda x: _seeded_dropout(x)),
    Row("linear", x1, lambda x: F.linear(x, np.ones((4, 3)), np.zeros(4))),
    Row("conv2d", img, lambda x: F.conv2d(x, np.ones((2, 1, 2, 2)))),
    Row("conv_transpose2d", img, lambda x: F.conv_transpose2d(x, np.ones((1, 2, 2, 2)))),
    Row("gelu", x1, F.gelu),
    Row("gelu_tanh", x1, lambda x: F.gelu(x, approximate="tanh")),
    Row(
        "scaled_dot_product_attention",
        x2,
        lambda q, k: F.scaled_dot_product_attention(q, k, k, is_causal=True),
    ),
    Row("attention_weights", x2, lambda q, k: F.attention_weights(q, k)),
    Row("erf", x1, F.erf),
    Row("erfc", x1, F.erfc),
    # NumPy-equivalent ops: NumPy's own result, dtype included.
    # Inputs inside each domain (no NaN or inf warnings): 0/1 for arcsin, |x| + 1 for logs.
    *[Row(name, make, getattr(F, name), getattr(np, name)) for name, make in (
        ("tan", x1), ("arctan", x1), ("sinh", x1), ("cosh", x1), ("arcsinh", x1),
        ("expm1", x1), ("exp2", x1), ("arcsin", unit), ("arccos", unit), ("arctanh", zero),
        ("log1p", positive), ("log2", positive), ("log10", positive), ("arccosh", positive))],
    *[Row(name, x2, getattr(F, name), getattr(np, name))
      for name in ("arctan2", "hypot", "logaddexp", "logaddexp2")],
    Row("exp", x1, F.exp, np.exp),
    Row(
        "log",
        lambda d: (values(d) + 0 if d is np.bool_ else np.abs(values(d)) + 1,),
        F.log,
        np.log,
    ),
    Row("sin", x1, F.sin, np.sin),
    Row("cos", x1, F.cos, np.cos),
    Row("tanh", x1, F.tanh, np.tanh),
    Row(
        "sqrt", lambda d: (values(d) if d is not np.int8 else np.abs(values(d)),), F.sqrt, np.sqrt
    ),
    Row("square", x1, F.square, np.square),
    Row("abs", x1, F.abs, np.abs),
    # An array exponent: what a Python-number exponent becomes is the core's NEP 50 rule.
    Row("pow", x1, lambda x: F.pow(x, np.array(2)), lambda x: np.power(x, np.array(2))),
    Row("add", x2, F.add, np.add),
    Row("sub", x2, F.sub, np.subtract),
    Row("mul", x2, F.mul, np.multiply),
    Row("neg", x1, F.neg, np.negative),
    Row("matmul", x1, lambda x: F.matmul(x, x.T), lambda x: x @ x.T),
    Row("sum", x1, F.sum, np.sum),
    # numpy.linalg computes integer input in float64: so do these.
    Row("inv", sq, F.inv, np.linalg.inv),
    Row("det", sq, F.det, np.linalg.det),
    Row("slogdet", sq, lambda x: F.slogdet(x).logabsdet, lambda x: np.linalg.slogdet(x)[1]),
    Row("solve", sq, lambda x: F.solve(x, x[0]), lambda x: np.linalg.solve(x, x[0])),
    Row("pinv", x1, F.pinv, np.linalg.pinv),
    Row("cholesky", sq, F.cholesky, np.linalg.cholesky),
    Row("eigh", sq, lambda x: F.eigh(x).eigenvalues, lambda x: np.linalg.eigh(x)[0]),
    Row("svd", x1, lambda x: F.svd(x, False, False), lambda x: np.linalg.svd(x, False, False)),
    Row("norm_large_int8", lambda d: (np.full(3, 100 if d is np.int8 else 1, d),), F.norm,
        np.linalg.norm),  # 100 * 100 wraps in int8: NumPy computes norms in float64
    Row("norm", x1, F.norm, np.linalg.norm),
    Row("einsum", x1, lambda x: F.einsum("ij->j", x), lambda x: np.einsum("ij->j", x)),
    Row("prod", x1, lambda x: F.prod(x, axis=1), lambda x: np.prod(x, axis=1)),
    Row("cumsum", x1, lambda x: F.cumsum(x, axis=1), lambda x: np.cumsum(x, axis=1)),
    Row("cumprod", x1, F.cumprod, np.cumprod),
    Row("max", x1, lambda x: F.max(x, axis=1), lambda x: np.max(x, axis=1)),
    Row("min", x1, lambda x: F.min(x, axis=1), lambda x: np.min(x, axis=1)),
    Row("relu", x1, F.relu, lambda x: np.maximum(x, 0)),
    Row("clip", x1, lambda x: F.clip(x, 0, 1), lambda x: np.clip(x, 0, 1)),
    Row("maximum", x2, F.maximum, np.maximum),
    Row("minimum", x2, F.minimum, np.minimum),
    Row("where", x2, lambda a, b: F.where(a > 1, a, b), lambda a, b: np.where(a > 1, a, b)),
    Row("get_item", x1, lambda x: F.get_item(x, (0, [2, 1])), lambda x: x[0, [2, 1]]),
    Row("reshape", x1, lambda x: F.reshape(x, (3, 2)), lambda x: x.reshape(3, 2)),
    Row("transpose", x1, F.transpose, np.transpose),
    Row(
        "broadcast_to",
        x1,
        lambda x: F.broadcast_to(x, (2, 2, 3)),
        lambda x: np.broadcast_to(x, (2, 2, 3)),
    ),
    Row("sum_to", x1, lambda x: F.sum_to(x, (1, 3)), lambda x: x.sum(axis=0, keepdims=True)),
    Row("expand_dims", x1, lambda x: F.expand_dims(x, 0), lambda x: x[None]),
    Row("squeeze", lambda d: (values(d, (1, 3)),), F.squeeze, np.squeeze),
    Row("flatten", x1, F.flatten, np.ravel),
    Row(
        "concatenate", x2, lambda a, b: F.concatenate([a, b]), lambda a, b: np.concatenate([a, b])
    ),
    Row("stack", x2, lambda a, b: F.stack([a, b]), lambda a, b: np.stack([a, b])),
    Row("astype", x1, lambda x: F.astype(x, np.float32), lambda x: x.astype(np.float32)),
    Row("dropout_eval", x1, lambda x: F.dropout(x, 0.5, training=False), lambda x: x),
    Row("max_pool2d", img, lambda x: F.max_pool2d(x, 2), lambda x: _pool_ref(x)),
    Row("pooling", img, lambda x: F.pooling(x, 2), lambda x: _pool_ref(x)),
    Row("im2col", img, lambda x: F.im2col(x, (3, 4)), lambda x: x.reshape(1, 12, 1)),
    Row(
        "col2im",
        lambda d: (values(d, (1, 12, 1)),),
        lambda c: F.col2im(c, (3, 4), (3, 4)),
        lambda c: c.reshape(1, 1, 3, 4),
    ),
    Row(
        "embedding",
        lambda d: (values(d, (4, 2)),),
        lambda w: F.embedding(np.array([3, 0]), w),
        lambda w: w[[3, 0]],
    ),
    Row("tril", x1, F.tril, np.tril),
    Row("triu", x1, lambda x: F.triu(x, 1), lambda x: np.triu(x, 1)),
    Row(
        "masked_fill",
        x1,
        lambda x: F.masked_fill(x, MASK, 1),
        lambda x: np.where(MASK, np.asarray(1, x.dtype), x),  # x's dtype, as torch
    ),
]

# Ops that do not take an array of values as their first operand (nothing to audit):
# none today; a new public op must get a row above (test_every_public_op_has_a_row).
NOT_APPLICABLE: set[str] = set()


def _array(result: Any) -> np.ndarray:
    return np.asarray(result.data if isinstance(result, Variable) else result)


def test_every_public_op_has_a_row() -> None:
    covered = {row.name for row in ROWS} | NOT_APPLICABLE
    missing = sorted(set(F.__all__) - covered)
    assert not missing, f"add a row to ROWS for {missing}"


# log(False) is -inf, for NumPy (which warns) and for F.log alike
@pytest.mark.filterwarnings("ignore:divide by zero encountered in log:RuntimeWarning")
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
def test_integer_input_gives_the_right_value_or_names_the_op(row: Row, dtype: Any) -> None:
    inputs = row.make(dtype)
    if row.numpy is not None:
        try:
            expected = np.asarray(row.numpy(*inputs))
        except TypeError:  # NumPy refuses (-bool, bool - bool): so must the op, by name
            with pytest.raises(TypeError, match=rf"\b{row.name}\b"):
                row.call(*inputs)
            return
        got = _array(row.call(*inputs))
        assert got.dtype == expected.dtype, (row.name, got.dtype, expected.dtype)
        np.testing.assert_array_equal(got, expected)
        return
    floats = tuple(np.asarray(a, dtype=np.float64) for a in inputs)
    expected = _array(row.call(*floats))
    got = _array(row.call(*inputs))
    assert got.dtype == expected.dtype, (row.name, got.dtype, expected.dtype)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12, err_msg=row.name)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_the_issue_examples(dtype: Any) -> None:
    """The values of the fresh-user trial, against float64 NumPy written out here."""
    a = np.array([1, 2, 3] if dtype is not np.bool_ else [1, 0, 1], dtype=dtype)
    f = a.astype(np.float64)
    np.testing.assert_allclose(F.sigmoid(a).data, 1 / (1 + np.exp(-f)))
    e = np.exp(f - f.max())
    np.testing.assert_allclose(F.softmax(a).data, e / e.sum())
    np.testing.assert_allclose(F.log_softmax(a).data, np.log(e / e.sum()))
    np.testing.assert_allclose(F.logsumexp(a).data, np.log(np.exp(f).sum()))
    ce = np.log(np.exp(f).sum()) - f[2]
    np.testing.assert_allclose(F.cross_entropy(a.reshape(1, 3), [2]).data, ce)
    b = a[::-1].copy()
    np.testing.assert_allclose(F.l1_loss(a, b).data, np.mean(np.abs(f - f[::-1])))


def test_uint8_l1_loss_of_the_trial() -> None:
    a, b = np.array([1, 2, 3], np.uint8), np.array([3, 2, 1], np.uint8)
    assert F.l1_loss(a, b).data == pytest.approx(4 / 3)  # was 85.33: 1 - 3 wrapped to 254
    assert F.l1_loss(a, b).dtype == np.float64


def test_real_only_ops_keep_float32() -> None:
    """The conversion touches integers and bools only: a float32 input stays float32."""
    x = np.array([[1.0, 2.0, 3.0]], dtype=np.float32)
    for y in (
        F.sigmoid(x),
        F.softmax(x),
        F.log_softmax(x),
        F.logsumexp(x, axis=1),
        F.cross_entropy(x, [2]),
        F.l1_loss(x, x),
        F.layer_norm(x, 3),
    ):
        assert y.dtype == np.float32


def test_uint8_images_through_a_layer_match_float_images() -> None:
    """MNIST's uint8 pixels fed to a model without ToFloat: the right loss, not wraps."""
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, size=(4, 1, 5, 5), dtype=np.uint8)
    W = Variable(rng.standard_normal((3, 25)) * 0.01)
    t = np.array([0, 1, 2, 1])
    loss = F.cross_entropy(F.linear(F.flatten(images, 1), W), t)
    expected = F.cross_entropy(F.linear(F.flatten(images.astype(np.float64), 1), W), t)
    np.testing.assert_allclose(loss.data, expected.data, rtol=1e-12)
    loss.backward()
    assert W.grad is not None and np.isfinite(W.grad.data).all()
