"""Op table for minitorch/ops/gelu.py and minitorch/ops/attention.py: gelu (exact and tanh),
scaled_dot_product_attention (every mask kind, causal, scale), tril, triu, masked_fill."""

from __future__ import annotations

import math

import numpy as np
import pytest
from op_harness import OpCase, OpTableTests

import minitorch.ops as F
from minitorch import Variable
from minitorch.gradcheck import gradcheck

TORCH_1E10 = {"rtol": 1e-10, "atol": 1e-10}  # the bar: PyTorch 2.13, float64

_erf = np.vectorize(math.erf)


def _np_gelu(x):
    return x * 0.5 * (1.0 + _erf(x / math.sqrt(2.0)))


def _np_gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


def _np_sdpa(q, k, v, mask=None, causal=False, scale=None):
    """Attention written out in NumPy: masked scores, a softmax with 0 for empty rows."""
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = q @ np.swapaxes(k, -1, -2) * scale
    allowed = np.ones(scores.shape, bool)
    if causal:
        allowed &= np.tri(*scores.shape[-2:], dtype=bool)
    if mask is not None and mask.dtype == bool:
        allowed &= mask
    elif mask is not None:
        scores = scores + mask
    scores = np.where(allowed, scores, -np.inf)
    peak = np.max(scores, -1, keepdims=True)
    e = np.exp(scores - np.where(np.isinf(peak), 0, peak))
    total = e.sum(-1, keepdims=True)
    return (e / np.where(total == 0, 1, total)) @ v


def _tf():
    import torch.nn.functional as tf

    return tf


def _torch_tensor(a):
    import torch

    return torch.as_tensor(a)


BOOL_MASK = np.array(
    [[True, False, True, True, False], [True, True, True, False, True], [False] * 5]
)  # the last query may attend to nothing: zero output, zero gradient (PyTorch 2.13)
FLOAT_MASK = np.array(
    [[0.0, -1.0, 0.5, -np.inf, 0.0], [0.3, 0.0, -2.0, 1.0, 0.0], [-np.inf, 0.0, 0.0, 0.1, 0.2]]
)
QKV = ((2, 3, 4), (2, 5, 4), (2, 5, 3))  # (N, L, E), (N, S, E), (N, S, Ev)
HEADS = ((2, 2, 4, 3), (2, 2, 4, 3), (2, 2, 4, 3))  # (N, heads, L, E), L == S


def _sdpa_case(name, shapes, fn, ref, torch_fn):
    return OpCase(f"sdpa_{name}", fn, ref, shapes, torch_fn=torch_fn)


CASES = [
    OpCase(
        "gelu(3,4)", F.gelu, _np_gelu, ((3, 4),), domain=(-4, 4), torch_fn=lambda x: _tf().gelu(x)
    ),
    OpCase("gelu()", F.gelu, _np_gelu, ((),), torch_fn=lambda x: _tf().gelu(x)),
    OpCase(
        "gelu_tanh(3,4)",
        lambda x: F.gelu(x, approximate="tanh"),
        _np_gelu_tanh,
        ((3, 4),),
        domain=(-4, 4),
        torch_fn=lambda x: _tf().gelu(x, approximate="tanh"),
    ),
    _sdpa_case(
        "plain",
        QKV,
        F.scaled_dot_product_attention,
        _np_sdpa,
        lambda q, k, v: _tf().scaled_dot_product_attention(q, k, v),
    ),
    _sdpa_case(
        "bool_mask",
        QKV,
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=BOOL_MASK),
        lambda q, k, v: _np_sdpa(q, k, v, BOOL_MASK),
        lambda q, k, v: _tf().scaled_dot_product_attention(
            q, k, v, attn_mask=_torch_tensor(BOOL_MASK)
        ),
    ),
    _sdpa_case(
        "float_mask",
        QKV,
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=FLOAT_MASK),
        lambda q, k, v: _np_sdpa(q, k, v, FLOAT_MASK),
        lambda q, k, v: _tf().scaled_dot_product_attention(
            q, k, v, attn_mask=_torch_tensor(FLOAT_MASK)
        ),
    ),
    _sdpa_case(
        "causal_heads",
        HEADS,
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
        lambda q, k, v: _np_sdpa(q, k, v, causal=True),
        lambda q, k, v: _tf().scaled_dot_product_attention(q, k, v, is_causal=True),
    ),
    _sdpa_case(
        "bool_mask_scale",
        QKV,
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=BOOL_MASK, scale=0.3),
        lambda q, k, v: _np_sdpa(q, k, v, BOOL_MASK, scale=0.3),
        lambda q, k, v: _tf().scaled_dot_product_attention(
            q, k, v, attn_mask=_torch_tensor(BOOL_MASK), scale=0.3
        ),
    ),
    OpCase("tril", lambda x: F.tril(x, -1), lambda x: np.tril(x, -1), ((2, 3, 4),)),
    OpCase("triu", lambda x: F.triu(x, 1), lambda x: np.triu(x, 1), ((3, 4),)),
    OpCase(
        "masked_fill",
        lambda x: F.masked_fill(x, BOOL_MASK[0], 0.5),
        lambda x: np.where(BOOL_MASK[0], 0.5, x),
        ((3, 5),),
        torch_fn=lambda x: x.masked_fill(_torch_tensor(BOOL_MASK[0]), 0.5),
    ),
]


class TestAttentionOps(OpTableTests):
    cases = CASES


@pytest.mark.parametrize("case", [c for c in CASES if c.torch_fn is not None], ids=str)
def test_matches_torch_to_1e_10(case: OpCase, rng: np.random.Generator) -> None:
    torch = pytest.importorskip("torch")
    arrays = case.inputs(rng)
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = case.torch_fn(*ts)
    weight = rng.standard_normal(tuple(out.shape))
    (out * torch.tensor(weight)).sum().backward()
    xs = [Variable(a.copy()) for a in arrays]
    y = case.fn(*xs)
    (y * weight).sum().backward()
    np.testing.assert_allclose(y.data, out.detach().numpy(), **TORCH_1E10)
    for x, t in zip(xs, ts):
        np.testing.assert_allclose(x.grad.data, t.grad.numpy(), **TORCH_1E10)


def test_a_query_with_no_allowed_key_gets_zero_output_and_zero_gradient(rng) -> None:
    q, k, v = (Variable(rng.standard_normal(s)) for s in QKV)
    y = F.scaled_dot_product_attention(q, k, v, attn_mask=BOOL_MASK)
    y.sum().backward()
    assert np.all(y.data[:, 2] == 0) and np.all(q.grad.data[:, 2] == 0)
    assert np.all(np.isfinite(k.grad.data)) and np.all(np.isfinite(v.grad.data))


def test_masked_keys_get_zero_gradient(rng) -> None:
    q, k, v = (Variable(rng.standard_normal(s)) for s in HEADS)
    F.scaled_dot_product_attention(q, k, v, is_causal=True)[..., 0, :].sum().backward()
    # the first query sees only the first key: no other key or value gets a gradient
    assert np.all(k.grad.data[..., 1:, :] == 0) and np.all(v.grad.data[..., 1:, :] == 0)


def test_float_mask_variable_gets_its_gradient(rng) -> None:
    q, k, v = (rng.standard_normal(s) for s in QKV)
    finite = np.where(np.isinf(FLOAT_MASK), -3.0, FLOAT_MASK)
    assert gradcheck(lambda m: F.scaled_dot_product_attention(q, k, v, attn_mask=m), finite)


def test_dropout_is_applied_whenever_dropout_p_is_positive(rng) -> None:
    q, k, v = (rng.standard_normal(s) for s in QKV)
    y = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    assert not np.allclose(y.data, _np_sdpa(q, k, v))


def test_sdpa_float32_stays_float32(rng) -> None:
    q, k, v = (Variable(rng.standard_normal(s).astype(np.float32)) for s in QKV)
    for y in (
        F.scaled_dot_product_attention(q, k, v, attn_mask=FLOAT_MASK),
        F.scaled_dot_product_attention(q, k[:, :3], v[:, :3], is_causal=True),
    ):
        assert y.dtype == np.float32


@pytest.mark.parametrize(
    "shapes, message",
    [(((3, 4), (5, 3), (5, 2)), "same last dimension"), (((4,), (4,), (4,)), "at least 2")],
)
def test_sdpa_refuses_mismatched_shapes(shapes, message) -> None:
    with pytest.raises(ValueError, match=message):
        F.scaled_dot_product_attention(*[np.ones(s) for s in shapes])


def test_sdpa_refuses_a_mask_that_does_not_broadcast() -> None:
    with pytest.raises(ValueError, match="attn_mask of shape"):
        F.scaled_dot_product_attention(
            np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2)), attn_mask=np.ones((2, 2), bool)
        )


def test_sdpa_refuses_an_integer_mask() -> None:
    with pytest.raises(TypeError, match="bool or float"):
        F.scaled_dot_product_attention(
            np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2)), attn_mask=np.ones((3, 5), int)
        )


def test_sdpa_refuses_a_mask_together_with_is_causal() -> None:
    with pytest.raises(RuntimeError, match="is_causal"):  # PyTorch's RuntimeError
        F.scaled_dot_product_attention(
            np.ones((3, 4)),
            np.ones((3, 4)),
            np.ones((3, 2)),
            np.ones((3, 3), bool),
            is_causal=True,
        )


def test_gelu_refuses_an_unknown_approximation() -> None:
    with pytest.raises(ValueError, match="approximate"):
        F.gelu(np.ones(2), approximate="erf")


def test_masked_fill_refuses_a_non_bool_mask() -> None:
    with pytest.raises(TypeError, match="bool"):
        F.masked_fill(np.ones(2), np.array([0, 1]), 0.0)


def test_tril_refuses_a_vector() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        F.tril(np.ones(3))
