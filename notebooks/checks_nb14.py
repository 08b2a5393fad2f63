"""Checks for notebook 14 (attention and the transformer block).

Every check computes its reference with NumPy, here, and never with minitorch's own
attention or LayerNorm. When an answer is wrong it is compared with the answers that the
typical mistakes give (each computed here too): a match names the mistake; otherwise the
first differing element is reported.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from checks import CheckFailed, check_close, check_is_array, check_is_variable, explain_errors

Mistakes = list[tuple[str, Any]]  # (what the mistake is, the array it gives)


def diagnose(name: str, got: Any, expected: Any, mistakes: Mistakes, hint: str = "") -> None:
    """Pass if ``got`` is ``expected``; else name the first mistake whose result it matches.

    Raises:
        CheckFailed: "<name> looks like <mistake>" for a known mistake, else the
            first differing element (:func:`checks.check_close`).

    Example:
        >>> diagnose("y", np.ones(2), np.zeros(2), [("the ones mistake", np.ones(2))])
        Traceback (most recent call last):
        ...
        checks.CheckFailed: y is wrong: the ones mistake
    """
    got_array = np.asarray(getattr(got, "data", got), dtype=np.float64)
    expected_array = np.asarray(expected, dtype=np.float64)
    if got_array.shape == expected_array.shape and np.allclose(
        got_array, expected_array, rtol=1e-5, atol=1e-7, equal_nan=True
    ):
        return
    for mistake, value in mistakes:
        wrong = np.asarray(value, dtype=np.float64)
        if wrong.shape == got_array.shape and np.allclose(
            got_array, wrong, rtol=1e-5, atol=1e-7, equal_nan=True
        ):
            raise CheckFailed(f"{name} is wrong: {mistake}")
    check_close(name, got_array, expected_array, hint=hint)


def _softmax(z: np.ndarray, axis: int = -1) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        e = np.exp(z - np.max(z, axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)


def _attention(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    scale: float,
    allowed: np.ndarray | None,
    fill: float = -np.inf,
    axis: int = -1,
    after: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    scores = q @ k.T * scale
    if allowed is not None and not after:
        scores = np.where(allowed, scores, fill)
    w = _softmax(scores, axis)
    if allowed is not None and after:
        w = w * allowed
    return w @ v, w


# -- Exercise 1: causal attention --------------------------------------------------------
def check_causal_attention(causal_attention: Callable[..., Any]) -> None:
    """Exercise 1: ``causal_attention(q, k, v) -> (out, weights)`` for one head."""
    from minitorch import Variable

    rng = np.random.default_rng(14)
    t, d = 5, 3
    q, k, v = (rng.normal(size=(t, d)) for _ in range(3))
    with explain_errors(
        "causal_attention(q, k, v)",
        ("matmul: shapes", "the scores are q @ k.T: (T, d) @ (d, T) -> (T, T)"),
        ("cannot be broadcast", "the scores must be (T, T), one per query and key: q @ k.T"),
        ("masked_fill", "F.masked_fill(scores, mask, -np.inf) takes a bool mask: True = fill"),
    ):
        result = causal_attention(Variable(q), Variable(k), Variable(v))
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise CheckFailed("causal_attention should return two things: (out, weights)")
    out, weights = result
    check_is_variable("out", out)
    check_is_variable("weights", weights)
    tril = np.tril(np.ones((t, t), dtype=bool))
    s = 1 / np.sqrt(d)
    got_w = np.asarray(weights.data, dtype=np.float64)
    if got_w.shape == (t, t) and np.isnan(got_w).any():
        rows = sorted({int(i) for i in np.argwhere(np.isnan(got_w))[:, 0]})
        which = (
            "the first row (query 0) has no key left: the diagonal is masked too — a query "
            "may attend to itself (np.tril with k=0)"
            if rows == [0]
            else "the last row has no key left: the mask is applied the wrong way round — "
            "masked_fill replaces where the mask is True, so pass the *future* positions (~allowed)"
        )
        raise CheckFailed(f"weights has NaN in rows {rows}: {which}")
    mistakes = [
        ("the scores are not scaled: divide q @ k.T by sqrt(d)", _attention(q, k, v, 1, tril)[1]),
        (
            "the scores are divided by d: the scale is 1/sqrt(d)",
            _attention(q, k, v, 1 / d, tril)[1],
        ),
        (
            "the scores are multiplied by sqrt(d): divide instead",
            _attention(q, k, v, np.sqrt(d), tril)[1],
        ),
        (
            "the scores are divided by sqrt(T): the scale is 1/sqrt(d), d the width of q and k",
            _attention(q, k, v, 1 / np.sqrt(t), tril)[1],
        ),
        (
            "the mask is not applied: each query sees the future keys too",
            _attention(q, k, v, s, None)[1],
        ),
        (
            "the mask lets each query see one future key: use np.tril(..., k=0)",
            _attention(q, k, v, s, np.tril(np.ones((t, t), dtype=bool), 1))[1],
        ),
        (
            "the mask is applied the wrong way round: the past is masked, the future kept",
            _attention(q, k, v, s, ~np.tril(np.ones((t, t), dtype=bool), -1))[1],
        ),
        (
            "the masked scores are filled with 0, not -inf: exp(0) = 1 still gives them weight",
            _attention(q, k, v, s, tril, fill=0.0)[1],
        ),
        (
            "the softmax runs over axis 0 (the queries): each row of weights, one query's "
            "weights over the keys, must sum to 1: axis=-1",
            _attention(q, k, v, s, tril, axis=0)[1],
        ),
        (
            "the mask is applied after the softmax: the rows no longer sum to 1; fill the "
            "scores with -inf before the softmax",
            _attention(q, k, v, s, tril, after=True)[1],
        ),
        ("weights holds the scores before the softmax", np.where(tril, q @ k.T * s, -np.inf)),
    ]
    expected_out, expected_w = _attention(q, k, v, s, tril)
    diagnose("weights", weights, expected_w, mistakes)
    diagnose(
        "out",
        out,
        expected_out,
        [("out is v @ weights or weights.T @ v: it is weights @ v", expected_w.T @ v)],
    )
    out.sum().backward()  # the graph must reach q, k and v


# -- Exercise 2: softmax backward ----------------------------------------------------------
def check_softmax_backward(softmax_backward: Callable[..., Any]) -> None:
    """Exercise 2: ``softmax_backward(w, gw) -> gz`` with ``w = softmax(z, axis=-1)``."""
    rng = np.random.default_rng(2)
    for shape in ((4, 4), (2, 3, 4)):
        w = _softmax(rng.normal(size=shape))
        gw = rng.normal(size=shape)
        with explain_errors(
            "softmax_backward(w, gw)",
            ("could not be broadcast", "keep the summed axis: sum(..., axis=-1, keepdims=True)"),
        ):
            got = softmax_backward(w.copy(), gw.copy())
        check_is_array("softmax_backward's result", got)
        inner = (gw * w).sum(axis=-1, keepdims=True)
        mistakes = [
            (
                "this is w * gw: only the diagonal of the Jacobian; subtract sum(gw * w) "
                "(the off-diagonal terms -w_i w_j)",
                w * gw,
            ),
            ("this is gw - sum(gw * w): multiply by w too", gw - inner),
            ("this is w * (1 - w) * gw: the diagonal of the Jacobian only", w * (1 - w) * gw),
            (
                "the sum runs over axis 0: sum over the softmax's axis (-1)",
                w * (gw - (gw * w).sum(axis=0, keepdims=True)),
            ),
            (
                "the sum has no keepdims: it broadcasts along the wrong axis",
                w * (gw - (gw * w).sum(axis=-1)[..., None, :]) if len(shape) == 2 else None,
            ),
            (
                "the sum runs over every element: sum over the last axis only",
                w * (gw - (gw * w).sum()),
            ),
            (
                "the sum forgot w: it is sum(gw * w), not sum(gw)",
                w * (gw - gw.sum(axis=-1, keepdims=True)),
            ),
            ("the sign is flipped: w * (gw - sum(gw * w))", w * (inner - gw)),
        ]
        diagnose(
            f"softmax_backward on shape {shape}",
            got,
            w * (gw - inner),
            [(m, a) for m, a in mistakes if a is not None],
        )


# -- Exercise 3: split heads -----------------------------------------------------------------
def check_split_heads(split_heads: Callable[..., Any]) -> None:
    """Exercise 3: ``split_heads(x, n_heads)``: ``(N, T, D) -> (N, H, T, D // H)``."""
    from minitorch import Variable

    n, t, h, dh = 2, 5, 3, 4
    x = np.arange(n * t * h * dh, dtype=np.float64).reshape(n, t, h * dh)
    with explain_errors(
        "split_heads(x, 3)", ("cannot reshape", "N * T * D numbers: (N, T, H, D // H)")
    ):
        got = split_heads(Variable(x), h)
    check_is_variable("split_heads(x, 3)", got)
    expected = x.reshape(n, t, h, dh).transpose(0, 2, 1, 3)
    shape = tuple(np.shape(got.data))
    if shape == (n, t, h, dh):
        raise CheckFailed(
            f"split_heads(x, 3) has shape {shape}, (N, T, H, D // H): the heads are split "
            "but not moved in front of the time axis: transpose(0, 2, 1, 3)"
        )
    if shape == (h, n, t, dh):
        raise CheckFailed(
            f"split_heads(x, 3) has shape {shape}: the batch axis comes first, (N, H, T, D // H)"
        )
    mistakes = [
        (
            "reshaped straight to (N, H, T, D // H): that cuts the sequence, not each "
            "token's features, into heads; reshape to (N, T, H, D // H), then transpose(0, 2, 1, 3)",
            x.reshape(n, h, t, dh),
        ),
        (
            "the heads take every H-th feature (reshape to (N, T, D // H, H)): head h must "
            "get the features h * D//H ... (h + 1) * D//H - 1, a contiguous slice",
            x.reshape(n, t, dh, h).transpose(0, 3, 1, 2),
        ),
    ]
    diagnose("split_heads(x, 3)", got, expected, mistakes)


# -- Exercise 4: LayerNorm -------------------------------------------------------------------
def _layer_norm(
    x, weight, bias, eps, ddof=0, axis=-1, outside=False, center=True, center_var=True
):
    mu = x.mean(axis=axis, keepdims=True)
    dev = x - mu if center_var else x
    var = (dev**2).sum(axis=axis, keepdims=True) / (x.shape[axis] - ddof)
    xhat = (x - mu if center else x) / (np.sqrt(var) + eps if outside else np.sqrt(var + eps))
    return xhat * weight + bias


def check_layer_norm(layer_norm: Callable[..., Any]) -> None:
    """Exercise 4: ``layer_norm(x, weight, bias, eps)`` over the last axis, on Variables."""
    from minitorch import Variable

    rng = np.random.default_rng(4)
    x = rng.normal(size=(4, 4)) * 0.5 + 1.0
    weight, bias, eps = rng.normal(size=4) + 1, rng.normal(size=4), 0.1
    with explain_errors("layer_norm(x, weight, bias, 0.1)"):
        got = layer_norm(Variable(x), Variable(weight), Variable(bias), eps)
    check_is_variable("layer_norm(x, weight, bias, 0.1)", got)
    std = np.sqrt(x.var(axis=-1, keepdims=True) + eps)
    mistakes = [
        (
            "the variance is the unbiased one (divided by n - 1): LayerNorm divides by n",
            _layer_norm(x, weight, bias, eps, ddof=1),
        ),
        (
            "eps is added to the standard deviation: it goes inside the square root, sqrt(var + eps)",
            _layer_norm(x, weight, bias, eps, outside=True),
        ),
        ("eps is left out", _layer_norm(x, weight, bias, 0.0)),
        (
            "it normalises over axis 0 (across the tokens): LayerNorm normalises each token's "
            "features, the last axis",
            _layer_norm(x, weight, bias, eps, axis=0),
        ),
        ("the mean is not subtracted from x", _layer_norm(x, weight, bias, eps, center=False)),
        (
            "the variance is E[x²], without subtracting the mean first",
            _layer_norm(x, weight, bias, eps, center_var=False),
        ),
        (
            "it divides by the variance, not the standard deviation",
            (x - x.mean(-1, keepdims=True)) / (std**2) * weight + bias,
        ),
        (
            "weight and bias are swapped: y = x̂ * weight + bias",
            (x - x.mean(-1, keepdims=True)) / std * bias + weight,
        ),
        ("weight and bias are not applied", (x - x.mean(-1, keepdims=True)) / std),
    ]
    diagnose("layer_norm(x, weight, bias, 0.1)", got, _layer_norm(x, weight, bias, eps), mistakes)
    got.sum().backward()


# -- Exercise 5: LayerNorm backward ----------------------------------------------------------
def check_layer_norm_backward(layer_norm_backward: Callable[..., Any]) -> None:
    """Exercise 5: ``layer_norm_backward(x, gy, eps) -> gx`` for ``y = (x - mean) / sqrt(var + eps)``."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(3, 5)) * 0.5
    gy = rng.normal(size=(3, 5))
    eps = 0.1
    with explain_errors(
        "layer_norm_backward(x, gy, 0.1)",
        ("could not be broadcast", "keep the reduced axis: mean(..., axis=-1, keepdims=True)"),
    ):
        got = layer_norm_backward(x.copy(), gy.copy(), eps)
    check_is_array("layer_norm_backward's result", got)

    def grad(
        sigma_ddof=0, axis=-1, mean_term=True, xhat_term=True, sign=1.0, e=eps, times=False,
        xhat_times=False,
    ):
        mu = x.mean(axis=axis, keepdims=True)
        var = ((x - mu) ** 2).sum(axis=axis, keepdims=True) / (x.shape[axis] - sigma_ddof)
        sigma = np.sqrt(var + e)
        xhat = (x - mu) * sigma if xhat_times else (x - mu) / sigma
        inner = gy.copy()
        if mean_term:
            inner = inner - gy.mean(axis=axis, keepdims=True)
        if xhat_term:
            inner = inner - sign * xhat * (gy * xhat).mean(axis=axis, keepdims=True)
        return inner * sigma if times else inner / sigma

    mistakes = [
        (
            "this is gy / sigma: the mean and sigma depend on x too — subtract mean(gy) and "
            "x̂ * mean(gy * x̂)",
            grad(mean_term=False, xhat_term=False),
        ),
        (
            "the term x̂ * mean(gy * x̂) (from sigma depending on x) is missing",
            grad(xhat_term=False),
        ),
        ("the term mean(gy) (from the mean depending on x) is missing", grad(mean_term=False)),
        ("the x̂ * mean(gy * x̂) term has the wrong sign: subtract it", grad(sign=-1.0)),
        ("sigma uses the unbiased variance (n - 1): LayerNorm divides by n", grad(sigma_ddof=1)),
        ("the means run over axis 0: use the last axis, with keepdims=True", grad(axis=0)),
        ("it multiplies by sigma: divide by sigma = sqrt(var + eps)", grad(times=True)),
        ("x̂ is (x - mu) * sigma: divide, x̂ = (x - mu) / sigma", grad(xhat_times=True)),
        (
            "x̂ is (x - mu) * sigma and the result is multiplied by sigma: divide by sigma, both",
            grad(xhat_times=True, times=True),
        ),
        ("eps is left out of sigma = sqrt(var + eps)", grad(e=0.0)),
    ]
    diagnose("layer_norm_backward(x, gy, 0.1)", got, grad(), mistakes)


# -- Exercise 6: a Pre-LN block ----------------------------------------------------------------
def _ln(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps) * w + b


def _mha(h: np.ndarray, p: dict[str, np.ndarray], heads: int, causal: bool | str) -> np.ndarray:
    n, t, d = h.shape
    qkv = h @ p["self_attn.in_proj_weight"].T + p["self_attn.in_proj_bias"]
    q, k, v = (
        a.reshape(n, t, heads, d // heads).transpose(0, 2, 1, 3) for a in np.split(qkv, 3, -1)
    )
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d // heads)
    allowed = np.tril(np.ones((t, t), dtype=bool))
    if causal in ("inverted", "inverted, nan"):  # the allowed positions passed as the mask
        allowed = ~allowed
    if causal:
        scores = np.where(allowed, scores, -np.inf)
    w = _softmax(scores)
    if causal == "inverted":  # need_weights=False: a query with no key left gets zeros
        w = np.nan_to_num(w, nan=0.0)
    out = (w @ v).transpose(0, 2, 1, 3).reshape(n, t, d)
    return out @ p["self_attn.out_proj.weight"].T + p["self_attn.out_proj.bias"]


def _block(
    x,
    p,
    heads,
    eps,
    *,
    residual1=True,
    residual2=True,
    post=False,
    causal=True,
    same_norm=False,
    mlp_on_x=False,
    add_normed=False,
):
    def ln(i: int, a: np.ndarray) -> np.ndarray:
        j = 1 if same_norm else i
        return _ln(a, p[f"norm{j}.weight"], p[f"norm{j}.bias"], eps)

    def mlp(a: np.ndarray) -> np.ndarray:
        hidden = np.maximum(a @ p["linear1.weight"].T + p["linear1.bias"], 0)
        return hidden @ p["linear2.weight"].T + p["linear2.bias"]

    if post:
        x = ln(1, x + _mha(x, p, heads, causal))
        return ln(2, x + mlp(x))
    h = ln(1, x)
    a = _mha(h, p, heads, causal)
    x = (h if add_normed else x) * residual1 + a
    m = mlp(x if mlp_on_x else ln(2, x))
    return x * residual2 + m


def check_pre_ln_block(block_class: type, layer: Any) -> None:
    """Exercise 6: ``block_class(layer)(x)`` is the Pre-LN block with a causal mask.

    ``layer`` is an ``nn.TransformerEncoderLayer`` whose sub-modules the block uses; its
    weights are read as arrays and the block recomputed here in NumPy. Its LayerNorms'
    weights and biases are set to random values first (a fresh LayerNorm's are all ones
    and zeros, and ``ln1`` could not be told from ``ln2``).
    """
    from minitorch import Variable

    rng = np.random.default_rng(6)
    for norm in (layer.norm1, layer.norm2):
        for p in (norm.weight, norm.bias):
            p.data[...] = rng.normal(size=p.shape) * 0.5 + (1.0 if p is norm.weight else 0.0)
    x = rng.normal(size=(2, 4, layer.self_attn.embed_dim))
    with explain_errors(
        "PreLNBlock(layer)(x)",
        (
            "not enough values to unpack",
            "self.attn returns (output, weights): a, _ = self.attn(...)",
        ),
        ("tuple", "self.attn returns (output, weights): a, _ = self.attn(...)"),
    ):
        got = block_class(layer)(Variable(x))
    check_is_variable("PreLNBlock(layer)(x)", got)
    p = {name: np.asarray(v.data, dtype=np.float64) for name, v in layer.named_parameters()}
    heads, eps = layer.self_attn.num_heads, layer.norm1.eps

    def variant(**kw: Any) -> np.ndarray:
        return _block(x, p, heads, eps, **kw)

    mistakes = [
        (
            "the residual of the attention is missing: x = x + attn(ln1(x))",
            variant(residual1=False),
        ),
        ("the residual of the MLP is missing: return x + mlp(ln2(x))", variant(residual2=False)),
        ("both residuals are missing", variant(residual1=False, residual2=False)),
        (
            "this is the Post-LN block (LayerNorm after each residual add); Pre-LN normalises "
            "the input of each branch: x + attn(ln1(x))",
            variant(post=True),
        ),
        (
            "the residual adds the normalised input: it is x + attn(ln1(x)), not ln1(x) + attn(...)",
            variant(add_normed=True),
        ),
        ("the causal mask is not applied: pass attn_mask=self.future(T)", variant(causal=False)),
        (
            "the mask is the wrong way round: attn_mask is True where a key is *blocked*, so "
            "pass self.future(T) itself, not its negation",
            variant(causal="inverted"),
        ),
        (
            "the mask is the wrong way round: attn_mask is True where a key is *blocked*, so "
            "pass self.future(T) itself, not its negation",
            variant(causal="inverted, nan"),
        ),
        ("ln1 is used twice: the MLP's input goes through ln2", variant(same_norm=True)),
        ("the MLP reads x, not ln2(x)", variant(mlp_on_x=True)),
    ]
    diagnose("PreLNBlock(layer)(x)", got, variant(), mistakes)
