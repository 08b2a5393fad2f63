"""nn.GELU, nn.MultiheadAttention, nn.TransformerEncoderLayer and the position encodings:
PyTorch 2.13's weights loaded, outputs and gradients equal to 1e-10 in float64; gradcheck,
gradgradcheck and the forward-mode adjoint test."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch.func as mf
import minitorch.nn as nn
from minitorch import Variable
from minitorch.gradcheck import gradgradcheck

TOL = {"rtol": 1e-10, "atol": 1e-10}


@pytest.fixture
def torch():
    torch = pytest.importorskip("torch")
    # PyTorch's fused inference path (eval, no grad) is a different kernel; compare the
    # reference computation.
    torch.backends.mha.set_fastpath_enabled(False)
    yield torch
    torch.backends.mha.set_fastpath_enabled(True)


def _state(module) -> dict[str, np.ndarray]:
    return {name: t.detach().numpy().copy() for name, t in module.state_dict().items()}


def _pair_mha(torch, batch_first=False, bias=True):
    theirs = torch.nn.MultiheadAttention(8, 2, bias=bias, batch_first=batch_first).double()
    ours = nn.MultiheadAttention(8, 2, bias=bias, batch_first=batch_first, dtype=np.float64)
    ours.load_state_dict(_state(theirs))
    return ours, theirs


def _compare_grads(ours, theirs, xs, ts) -> None:
    params = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        np.testing.assert_allclose(p.grad.data, params[name].grad.numpy(), **TOL, err_msg=name)
    for x, t in zip(xs, ts):
        np.testing.assert_allclose(x.grad.data, t.grad.numpy(), **TOL)


MHA_MASKS = {
    "none": (None, None),
    "bool_attn_mask": (~np.tri(4, 6, 1, dtype=bool), None),
    "float_attn_mask_per_head": ("float3d", None),
    "key_padding_mask": (None, np.array([[False] * 4 + [True] * 2, [True] + [False] * 5])),
    "both": (~np.tri(4, 6, 1, dtype=bool), np.array([[False] * 5 + [True], [False] * 6])),
}


@pytest.mark.parametrize("masks", MHA_MASKS, ids=str)
@pytest.mark.parametrize("average", [True, False], ids=["averaged", "per_head"])
@pytest.mark.parametrize("batch_first", [False, True], ids=["seq_first", "batch_first"])
def test_mha_matches_torch(torch, rng, masks, average, batch_first) -> None:
    ours, theirs = _pair_mha(torch, batch_first)
    attn_mask, padding = MHA_MASKS[masks]
    if isinstance(attn_mask, str):  # (N * heads, L, S) additive
        attn_mask = rng.standard_normal((4, 4, 6))
    shape_q, shape_k = ((2, 4, 8), (2, 6, 8)) if batch_first else ((4, 2, 8), (6, 2, 8))
    arrays = [rng.standard_normal(s) for s in (shape_q, shape_k, shape_k)]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    t_kw = {
        "attn_mask": None if attn_mask is None else torch.tensor(attn_mask),
        "key_padding_mask": None if padding is None else torch.tensor(padding),
        "average_attn_weights": average,
    }
    out_t, w_t = theirs(*ts, **t_kw)
    xs = [Variable(a.copy()) for a in arrays]
    out, w = ours(*xs, attn_mask=attn_mask, key_padding_mask=padding, average_attn_weights=average)
    np.testing.assert_allclose(out.data, out_t.detach().numpy(), **TOL)
    np.testing.assert_allclose(w.data, w_t.detach().numpy(), **TOL)
    g_out, g_w = rng.standard_normal(out.shape), rng.standard_normal(w.shape)
    ((out_t * torch.tensor(g_out)).sum() + (w_t * torch.tensor(g_w)).sum()).backward()
    ((out * g_out).sum() + (w * g_w).sum()).backward()
    _compare_grads(ours, theirs, xs, ts)


def test_mha_unbatched_and_without_weights_match_torch(torch, rng) -> None:
    ours, theirs = _pair_mha(torch, bias=False)
    x = rng.standard_normal((5, 8))
    padding = np.array([False, False, True, False, False])
    out_t, w_t = theirs(*[torch.tensor(x)] * 3, key_padding_mask=torch.tensor(padding))
    out, w = ours(x, x, x, key_padding_mask=padding)
    np.testing.assert_allclose(out.data, out_t.detach().numpy(), **TOL)
    np.testing.assert_allclose(w.data, w_t.detach().numpy(), **TOL)
    out_t, none_t = theirs(*[torch.tensor(x)] * 3, need_weights=False)
    out, none = ours(x, x, x, need_weights=False)
    assert none is None and none_t is None
    np.testing.assert_allclose(out.data, out_t.detach().numpy(), **TOL)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # -inf - -inf
def test_mha_fully_padded_sequence_is_nan_with_weights_and_zero_without(torch, rng) -> None:
    """PyTorch's two paths differ here (a plain softmax vs SDPA's); minitorch follows both."""
    ours, theirs = _pair_mha(torch, batch_first=True)
    x = rng.standard_normal((2, 3, 8))
    padding = np.array([[True] * 3, [False] * 3])
    for need in (True, False):
        out_t, _ = theirs(
            *[torch.tensor(x)] * 3, key_padding_mask=torch.tensor(padding), need_weights=need
        )
        out, _ = ours(x, x, x, key_padding_mask=padding, need_weights=need)
        np.testing.assert_allclose(out.data, out_t.detach().numpy(), **TOL, equal_nan=True)
    assert np.all(np.isnan(ours(x, x, x, key_padding_mask=padding)[0].data[0]))


@pytest.mark.parametrize("norm_first", [False, True], ids=["post_ln", "pre_ln"])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("batch_first", [False, True], ids=["seq_first", "batch_first"])
def test_encoder_layer_loads_torch_state_and_matches_in_eval(
    torch, rng, norm_first, activation, batch_first
) -> None:
    kw = {
        "dropout": 0.1,
        "activation": activation,
        "batch_first": batch_first,
        "norm_first": norm_first,
    }
    theirs = torch.nn.TransformerEncoderLayer(8, 2, 12, **kw).double().eval()
    ours = nn.TransformerEncoderLayer(8, 2, 12, **kw, dtype=np.float64).eval()
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    ours.load_state_dict(_state(theirs))
    src = rng.standard_normal((3, 5, 8))
    length, batch = (5, 3) if batch_first else (3, 5)
    mask = ~np.tri(length, dtype=bool)
    padding = np.zeros((batch, length), bool)
    padding[0, -1] = True
    t_src = torch.tensor(src, requires_grad=True)
    out_t = theirs(t_src, torch.tensor(mask), torch.tensor(padding), is_causal=True)
    x = Variable(src.copy())
    out = ours(x, mask, padding, is_causal=True)
    np.testing.assert_allclose(out.data, out_t.detach().numpy(), **TOL)
    weight = rng.standard_normal(out.shape)
    (out_t * torch.tensor(weight)).sum().backward()
    (out * weight).sum().backward()
    _compare_grads(ours, theirs, [x], [t_src])


def _small_layer(norm_first: bool) -> nn.TransformerEncoderLayer:
    layer = nn.TransformerEncoderLayer(
        4,
        2,
        6,
        dropout=0.0,
        activation="gelu",
        norm_first=norm_first,
        batch_first=True,
        rng=0,
        dtype=np.float64,
    )
    return layer


@pytest.mark.parametrize("norm_first", [False, True], ids=["post_ln", "pre_ln"])
def test_encoder_layer_gradcheck_and_gradgradcheck(rng, norm_first, tol) -> None:
    layer = _small_layer(norm_first)
    mask = ~np.tri(3, dtype=bool)
    x = rng.standard_normal((2, 3, 4))
    assert gradgradcheck(lambda s: layer(s, mask), x, **tol.gradcheck)


@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_gradcheck_and_gradgradcheck(rng, need_weights, tol) -> None:
    mha = nn.MultiheadAttention(4, 2, batch_first=True, rng=1, dtype=np.float64)
    padding = np.array([[False, False, True], [False, False, False]])

    def f(q, kv):
        out, w = mha(q, kv, kv, key_padding_mask=padding, need_weights=need_weights)
        return out if w is None else out + w.sum()

    q, kv = rng.standard_normal((2, 2, 4)), rng.standard_normal((2, 3, 4))
    assert gradgradcheck(f, q, kv, **tol.gradcheck)


def _adjoint(fn, xs, rng) -> None:
    """``<u, J v> == <J^T u, v>``: the tangent rules are the transposes of the vjp rules."""
    vs = [rng.standard_normal(x.shape) for x in xs]
    _, ty = mf.jvp(fn, tuple(xs), tuple(vs))
    u = rng.standard_normal(ty.shape)
    _, vjp_fn = mf.vjp(fn, *xs)
    gxs = vjp_fn(u)
    rhs = sum(float(np.sum(g.data * v)) for g, v in zip(gxs, vs))
    assert float(np.sum(u * ty.data)) == pytest.approx(rhs, rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("norm_first", [False, True], ids=["post_ln", "pre_ln"])
def test_encoder_layer_jvp_is_the_adjoint_of_vjp(rng, norm_first) -> None:
    layer = _small_layer(norm_first)
    _adjoint(lambda s: layer(s, ~np.tri(3, dtype=bool)), [rng.standard_normal((2, 3, 4))], rng)


def test_mha_jvp_is_the_adjoint_of_vjp(rng) -> None:
    mha = nn.MultiheadAttention(4, 2, batch_first=True, rng=1, dtype=np.float64)
    xs = [rng.standard_normal((2, 2, 4)), rng.standard_normal((2, 3, 4))]
    _adjoint(lambda q, kv: mha(q, kv, kv, average_attn_weights=False)[1], xs, rng)
    _adjoint(lambda q, kv: mha(q, kv, kv)[0], xs, rng)


def test_gelu_module_matches_torch(torch, rng) -> None:
    x = rng.standard_normal((3, 4)) * 3
    for approximate in ("none", "tanh"):
        expected = torch.nn.GELU(approximate)(torch.tensor(x)).numpy()
        np.testing.assert_allclose(nn.GELU(approximate)(x).data, expected, **TOL)


def test_encoder_layer_dropout_is_off_in_eval_and_on_in_training(rng) -> None:
    layer = nn.TransformerEncoderLayer(8, 2, 12, dropout=0.5, rng=0, dtype=np.float64)
    x = rng.standard_normal((3, 2, 8))
    first = layer.eval()(x).data
    np.testing.assert_array_equal(first, layer(x).data)
    assert not np.allclose(first, layer.train()(x).data)


def test_mha_refuses_heads_that_do_not_divide_the_width() -> None:
    with pytest.raises(ValueError, match="divisible"):
        nn.MultiheadAttention(6, 4)


def test_mha_is_causal_needs_the_mask_as_in_torch() -> None:
    mha = nn.MultiheadAttention(4, 2)
    x = np.ones((3, 1, 4), np.float32)
    with pytest.raises(RuntimeError, match="attn_mask"):
        mha(x, x, x, is_causal=True)


def test_mha_refuses_inputs_of_the_wrong_width() -> None:
    with pytest.raises(ValueError, match="query must be"):
        nn.MultiheadAttention(4, 2)(np.ones((3, 1, 5)), np.ones((3, 1, 4)), np.ones((3, 1, 4)))


def test_encoder_layer_refuses_an_unknown_activation() -> None:
    with pytest.raises(ValueError, match="activation"):
        nn.TransformerEncoderLayer(4, 2, activation="swish")


def test_sinusoidal_positions_follow_the_paper() -> None:
    table = nn.sinusoidal_positions(7, 6, dtype=np.float64)
    t, i = 5, 2  # P[t, 2i] = sin(t / 10000^(2i/d)), P[t, 2i+1] = cos(...)
    assert table[t, 2 * i] == pytest.approx(np.sin(t / 10000 ** (2 * i / 6)))
    assert table[t, 2 * i + 1] == pytest.approx(np.cos(t / 10000 ** (2 * i / 6)))


def test_position_modules_add_the_rows_from_start() -> None:
    x = np.zeros((1, 2, 6), np.float32)
    enc = nn.SinusoidalPositionalEncoding(6, 10)
    np.testing.assert_allclose(enc(x, start=3).data[0], nn.sinusoidal_positions(10, 6)[3:5])
    learned = nn.LearnedPositionalEmbedding(10, 6, rng=0)
    np.testing.assert_allclose(learned(x, start=4).data[0], learned.embedding.W.data[4:6])
    with pytest.raises(ValueError, match="max_len=10"):
        learned(x, start=9)
