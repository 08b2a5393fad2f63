"""One row per differentiable op for the forward-mode tests: how to call it, on what.

Each row gives the minitorch computation (a function of Variables, the differentiable
inputs), a maker of float64 inputs away from kinks and ties (so central differences are
valid), and the same computation in PyTorch for the cross-checks (``None`` where PyTorch
has no direct counterpart). Non-differentiable arguments (labels, indices, shapes) are
fixed inside the functions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import minitorch.ops as F
from minitorch import manual_seed

Shape = tuple[int, ...]


@dataclass(frozen=True)
class TangentCase:
    """A row: ``fn(*Variables)``, its inputs, its PyTorch twin, and whether it is smooth."""

    name: str
    fn: Callable[..., Any]
    make: Callable[[np.random.Generator], list[np.ndarray]]
    torch_fn: Callable[..., Any] | None = None
    smooth: bool = True  # twice differentiable at the inputs: second-order checks apply
    # torch.func.hessian of batch_norm(training=True) is not symmetric in 2.13 (its
    # d(grad_weight)/dx block is wrong); torch.autograd.functional.hessian is the reference.
    torch_func_hessian: bool = True

    def __str__(self) -> str:
        return self.name


def _u(*shapes: Shape, low: float = -2.0, high: float = 2.0) -> Callable:
    return lambda rng: [np.asarray(rng.uniform(low, high, s)) for s in shapes]


def _away_from(points: tuple[float, ...], *shapes: Shape, gap: float = 0.2) -> Callable:
    """Uniform values in [-2, 2] at least ``gap`` from every kink in ``points``."""

    def make(rng: np.random.Generator) -> list[np.ndarray]:
        out = []
        for shape in shapes:
            x = rng.uniform(-2.0, 2.0, shape)
            for p in points:
                near = np.abs(x - p) < gap
                x = np.where(near, p + np.sign(x - p + 1e-12) * gap * 1.5, x)
            out.append(x)
        return out

    return make


def _distinct(*shapes: Shape) -> Callable:
    """Values with no ties (well separated), for max/min/pooling."""

    def make(rng: np.random.Generator) -> list[np.ndarray]:
        out = []
        for k, shape in enumerate(shapes):
            n = int(np.prod(shape))
            out.append((rng.permutation(n) * 0.1 - 0.05 * n).reshape(shape) + 0.033 * k)
        return out

    return make


def _torch() -> Any:
    import torch

    return torch


def _tf() -> Any:
    import torch.nn.functional as tf

    return tf


def _conditioned(*shapes: Shape) -> Callable:
    """Square matrices ``randn + 3 I`` (well conditioned); other shapes plain ``randn``."""

    def make(rng: np.random.Generator) -> list[np.ndarray]:
        out = [rng.standard_normal(s) for s in shapes]
        return [
            x + 3 * np.eye(s[-1]) if len(s) > 1 and s[-1] == s[-2] else x
            for x, s in zip(out, shapes)
        ]

    return make


def _spd(shape: Shape) -> Callable:
    """A symmetric positive-definite matrix with well separated eigenvalues 1, 2, 3 ..."""

    def make(rng: np.random.Generator) -> list[np.ndarray]:
        q, _ = np.linalg.qr(rng.standard_normal(shape))
        return [q @ np.diag(np.arange(1.0, shape[-1] + 1)) @ q.T]

    return make


def _sym(a: Any) -> Any:
    """``(a + a^T) / 2``: cholesky and eigh read one triangle; this makes every entry count."""
    return (a + a.T) / 2 if not hasattr(a, "mT") else (a + a.mT) / 2


def _eigh_mix(result: Any) -> Any:
    """Eigenvalues and the (sign-invariant) squares of the eigenvectors, as one array."""
    values, vectors = result
    return vectors * vectors * 2.0 + values


def _svd_mix(result: Any) -> Any:
    """A sign-invariant function of the reduced U, S, Vh (``(3, 4)`` input)."""
    u, s, vh = result
    return (u * u) @ (vh * vh) + s.reshape(3, 1)


LABELS = np.array([2, 0, 1, 2])
INDEX = np.array([0, 2, 2, 1])
IGNORED = np.array([2, -100, 1, 0])  # the second row is left out of the loss
ATTN_MASK = np.array([[True, False], [True, True], [False, False]])  # a row with no key
ADD_MASK = np.array([[0.0, -1.0], [0.5, -np.inf], [0.2, 0.0]])

CASES = [
    # -- arithmetic (broadcast pairs) --
    TangentCase("add", lambda a, b: a + b, _u((3, 4), (4,)), lambda a, b: a + b),
    TangentCase("sub", lambda a, b: a - b, _u((3, 1), (1, 4)), lambda a, b: a - b),
    TangentCase("mul", lambda a, b: a * b, _u((2, 3), (3,)), lambda a, b: a * b),
    TangentCase(
        "div",
        lambda a, b: a / b,
        lambda rng: [rng.uniform(-2, 2, (2, 3)), rng.uniform(1, 2, (3,))],
        lambda a, b: a / b,
    ),
    TangentCase("neg", lambda a: -a, _u((3,)), lambda a: -a),
    TangentCase("mul_0d", lambda a, b: a * b, _u((), (3,)), lambda a, b: a * b),
    # -- math --
    TangentCase(
        "pow",
        lambda a, b: a**b,
        lambda rng: [rng.uniform(0.5, 2, (3,)), rng.uniform(-1, 2, (3,))],
        lambda a, b: a**b,
    ),
    TangentCase("pow_const", lambda a: a**3, _u((4,)), lambda a: a**3),
    TangentCase("exp", F.exp, _u((3, 2)), lambda a: _torch().exp(a)),
    TangentCase("log", F.log, _u((4,), low=0.5), lambda a: _torch().log(a)),
    TangentCase("sin", F.sin, _u((4,)), lambda a: _torch().sin(a)),
    TangentCase("cos", F.cos, _u((4,)), lambda a: _torch().cos(a)),
    TangentCase("tanh", F.tanh, _u((4,)), lambda a: _torch().tanh(a)),
    TangentCase("sqrt", F.sqrt, _u((4,), low=0.5), lambda a: _torch().sqrt(a)),
    TangentCase("square", F.square, _u((4,)), lambda a: _torch().square(a)),
    TangentCase("abs", F.abs, _away_from((0.0,), (5,)), lambda a: _torch().abs(a), False),
    # -- trigonometric, hyperbolic, exponential and logarithmic (NumPy's names) --
    *[
        TangentCase(
            name,
            getattr(F, name),
            _u((4,), low=low, high=high),
            lambda a, name=name: getattr(_torch(), name)(a),
        )
        for name, low, high in [
            ("tan", -1.2, 1.2),
            ("arcsin", -0.9, 0.9),
            ("arccos", -0.9, 0.9),
            ("arctan", -2.0, 2.0),
            ("sinh", -2.0, 2.0),
            ("cosh", -2.0, 2.0),
            ("arcsinh", -2.0, 2.0),
            ("arccosh", 1.2, 3.0),
            ("arctanh", -0.9, 0.9),
            ("log1p", -0.5, 2.0),
            ("expm1", -2.0, 2.0),
            ("exp2", -2.0, 2.0),
            ("log2", 0.2, 3.0),
            ("log10", 0.2, 3.0),
        ]
    ],
    *[
        TangentCase(
            name,
            getattr(F, name),
            _u((3, 2), (2,), low=0.3),
            lambda a, b, name=name: getattr(_torch(), name)(a, b),
        )
        for name in ("arctan2", "hypot", "logaddexp", "logaddexp2")
    ],
    TangentCase("erf", F.erf, _u((4,)), lambda a: _torch().special.erf(a)),
    TangentCase("erfc", F.erfc, _u((4,)), lambda a: _torch().special.erfc(a)),
    # -- activations --
    TangentCase("sigmoid", F.sigmoid, _u((4,)), lambda a: _torch().sigmoid(a)),
    TangentCase("relu", F.relu, _away_from((0.0,), (5,)), lambda a: _tf().relu(a), False),
    TangentCase(
        "leaky_relu",
        lambda a: F.leaky_relu(a, 0.1),
        _away_from((0.0,), (5,)),
        lambda a: _tf().leaky_relu(a, 0.1),
        False,
    ),
    TangentCase("softplus", F.softplus, _u((4,)), lambda a: _tf().softplus(a)),
    TangentCase(
        "clip",
        lambda a: F.clip(a, -0.5, 0.5),
        _away_from((-0.5, 0.5), (6,)),
        lambda a: _torch().clamp(a, -0.5, 0.5),
        False,
    ),
    TangentCase(
        "maximum", F.maximum, _distinct((3, 4), (4,)), lambda a, b: _torch().maximum(a, b), False
    ),
    TangentCase(
        "minimum", F.minimum, _distinct((3, 4), (4,)), lambda a, b: _torch().minimum(a, b), False
    ),
    TangentCase(
        "softmax", lambda a: F.softmax(a, axis=1), _u((2, 3)), lambda a: _torch().softmax(a, 1)
    ),
    TangentCase(
        "log_softmax",
        lambda a: F.log_softmax(a, axis=-1),
        _u((2, 3)),
        lambda a: _torch().log_softmax(a, -1),
    ),
    # -- shape --
    TangentCase(
        "reshape", lambda a: F.reshape(a, (3, -1)), _u((2, 3)), lambda a: a.reshape(3, -1)
    ),
    TangentCase(
        "transpose",
        lambda a: F.transpose(a, (2, 0, 1)),
        _u((2, 3, 2)),
        lambda a: a.permute(2, 0, 1),
    ),
    TangentCase(
        "broadcast_to",
        lambda a: F.broadcast_to(a, (2, 3)),
        _u((3,)),
        lambda a: a.broadcast_to(2, 3),
    ),
    TangentCase(
        "sum_to", lambda a: F.sum_to(a, (1, 3)), _u((2, 3)), lambda a: a.sum(0, keepdim=True)
    ),
    TangentCase("expand_dims", lambda a: F.expand_dims(a, 1), _u((3,)), lambda a: a.unsqueeze(1)),
    TangentCase("squeeze", F.squeeze, _u((1, 3, 1)), lambda a: a.squeeze()),
    TangentCase("flatten", lambda a: F.flatten(a, 1), _u((2, 2, 2)), lambda a: a.flatten(1)),
    TangentCase(
        "concatenate",
        lambda a, b, c: F.concatenate([a, b, c], axis=1),
        _u((2, 1), (2, 3), (2, 2)),
        lambda a, b, c: _torch().cat([a, b, c], 1),
    ),
    TangentCase(
        "stack",
        lambda a, b: F.stack([a, b], axis=1),
        _u((3,), (3,)),
        lambda a, b: _torch().stack([a, b], 1),
    ),
    TangentCase("get_item_slice", lambda a: a[1:, ::2], _u((3, 4)), lambda a: a[1:, ::2]),
    TangentCase(
        "get_item_fancy", lambda a: a[INDEX], _u((3, 2)), lambda a: a[_torch().as_tensor(INDEX)]
    ),
    TangentCase(
        "where",
        lambda a, b: F.where(np.array([True, False, True]), a, b),
        _u((2, 3), (3,)),
        lambda a, b: _torch().where(_torch().tensor([True, False, True]), a, b),
    ),
    # -- reductions --
    TangentCase("sum", lambda a: F.sum(a, axis=0), _u((3, 2)), lambda a: a.sum(0)),
    TangentCase(
        "sum_keepdims",
        lambda a: F.sum(a, axis=(0, 2), keepdims=True),
        _u((2, 3, 2)),
        lambda a: a.sum((0, 2), keepdim=True),
    ),
    TangentCase("mean", lambda a: F.mean(a, axis=-1), _u((3, 2)), lambda a: a.mean(-1)),
    TangentCase("max", lambda a: F.max(a, axis=1), _distinct((3, 4)), lambda a: a.amax(1), False),
    TangentCase("min_all", F.min, _distinct((3, 4)), lambda a: a.amin(), False),
    TangentCase(
        "logsumexp",
        lambda a: F.logsumexp(a, axis=1),
        _u((2, 3)),
        lambda a: _torch().logsumexp(a, 1),
    ),
    TangentCase("var", lambda a: F.var(a, axis=0), _u((4, 2)), lambda a: a.var(0, correction=0)),
    TangentCase("std", lambda a: F.std(a, axis=0), _u((4, 2)), lambda a: a.std(0, correction=0)),
    TangentCase(
        "std_ddof_keepdims",
        lambda a: F.std(a, axis=1, keepdims=True, ddof=1),
        _u((2, 3)),
        lambda a: a.std(1, correction=1, keepdim=True),
    ),
    TangentCase("prod", lambda a: F.prod(a, axis=1), _u((3, 4)), lambda a: a.prod(1)),
    TangentCase(
        "prod_with_zeros",
        lambda a: F.prod(a, axis=0),
        lambda rng: [np.array([[0.0, 1.5, 0.0], [2.0, 0.0, 0.0], [-1.2, 0.7, 0.9]])],
        lambda a: a.prod(0),
    ),
    TangentCase("cumsum", lambda a: F.cumsum(a, axis=1), _u((2, 3)), lambda a: a.cumsum(1)),
    TangentCase("cumprod", lambda a: F.cumprod(a, axis=0), _u((3, 2)), lambda a: a.cumprod(0)),
    TangentCase(
        "cumprod_with_zeros",
        lambda a: F.cumprod(a, axis=-1),
        lambda rng: [np.array([[0.5, 0.0, 2.0, 0.0], [0.0, 1.5, -0.5, 2.0]])],
        lambda a: a.cumprod(-1),
    ),
    # -- linear algebra --
    TangentCase("matmul", F.matmul, _u((2, 3), (3, 4)), lambda a, b: a @ b),
    TangentCase("matmul_batched", F.matmul, _u((2, 2, 3), (3, 2)), lambda a, b: a @ b),
    TangentCase("matmul_vector", F.matmul, _u((3,), (3, 2)), lambda a, b: a @ b),
    TangentCase(
        "linear", F.linear, _u((4, 3), (2, 3), (2,)), lambda x, W, b: _tf().linear(x, W, b)
    ),
    *[
        TangentCase(
            f"einsum[{spec}]",
            lambda *xs, spec=spec: F.einsum(spec, *xs),
            _u(*shapes),
            lambda *xs, spec=spec: _torch().einsum(spec, *xs),
        )
        for spec, shapes in [
            ("ij,jk->ik", ((2, 3), (3, 2))),
            ("ii->i", ((3, 3),)),
            ("...ij,...j", ((2, 2, 3), (3,))),
            ("ij,ij->", ((2, 3), (2, 3))),
        ]
    ],
    # -- linear algebra beyond matmul (cholesky and eigh through sym(a): see _spd) --
    TangentCase("inv", F.inv, _conditioned((3, 3)), lambda a: _torch().linalg.inv(a)),
    TangentCase("det", F.det, _conditioned((2, 3, 3)), lambda a: _torch().linalg.det(a)),
    TangentCase(
        "slogdet",
        lambda a: F.slogdet(a).logabsdet,
        _conditioned((3, 3)),
        lambda a: _torch().linalg.slogdet(a).logabsdet,
    ),
    TangentCase(
        "solve", F.solve, _conditioned((3, 3), (3, 2)), lambda a, b: _torch().linalg.solve(a, b)
    ),
    TangentCase(
        "solve_vector",
        F.solve,
        _conditioned((3, 3), (3,)),
        lambda a, b: _torch().linalg.solve(a, b),
    ),
    TangentCase("pinv", F.pinv, _u((4, 3)), lambda a: _torch().linalg.pinv(a)),
    TangentCase(
        "cholesky",
        lambda a: F.cholesky(_sym(a)),
        _spd((3, 3)),
        lambda a: _torch().linalg.cholesky(_sym(a)),
    ),
    TangentCase(
        "eigh",
        lambda a: _eigh_mix(F.eigh(_sym(a))),
        _spd((3, 3)),
        lambda a: _eigh_mix(_torch().linalg.eigh(_sym(a))),
    ),
    TangentCase(
        "svdvals",
        lambda a: F.svd(a, compute_uv=False),
        _u((4, 3)),
        lambda a: _torch().linalg.svdvals(a),
    ),
    TangentCase(
        "svd",
        lambda a: _svd_mix(F.svd(a, full_matrices=False)),
        _u((3, 4)),
        lambda a: _svd_mix(_torch().linalg.svd(a, full_matrices=False)),
    ),
    TangentCase("norm", F.norm, _u((3, 4)), lambda a: _torch().linalg.norm(a)),
    TangentCase(
        "norm_nuc",
        lambda a: F.norm(a, "nuc"),
        _u((3, 4)),
        lambda a: _torch().linalg.norm(a, "nuc"),
    ),
    TangentCase(
        "norm_3_axis",
        lambda a: F.norm(a, 3, axis=1),
        _u((3, 4), low=0.3),
        lambda a: _torch().linalg.norm(a, 3, dim=1),
    ),
    # -- losses --
    TangentCase(
        "softmax_cross_entropy",
        lambda a: F.softmax_cross_entropy(a, LABELS),
        _u((4, 3)),
        lambda a: _tf().cross_entropy(a, _torch().as_tensor(LABELS)),
    ),
    TangentCase(
        "softmax_cross_entropy_none",
        lambda a: F.softmax_cross_entropy(a, LABELS, reduction="none"),
        _u((4, 3)),
        lambda a: _tf().cross_entropy(a, _torch().as_tensor(LABELS), reduction="none"),
    ),
    TangentCase(
        "softmax_cross_entropy_ignore_index",
        lambda a: F.softmax_cross_entropy(a, IGNORED, ignore_index=-100),
        _u((4, 3)),
        lambda a: _tf().cross_entropy(a, _torch().as_tensor(IGNORED), ignore_index=-100),
    ),
    TangentCase(
        "mean_squared_error",
        F.mean_squared_error,
        _u((3, 2), (3, 2)),
        lambda a, b: _tf().mse_loss(a, b),
    ),
    TangentCase(
        "binary_cross_entropy",
        lambda p, t: F.binary_cross_entropy(p, t),
        lambda rng: [rng.uniform(0.1, 0.9, (4,)), rng.uniform(0.1, 0.9, (4,))],
        lambda p, t: _tf().binary_cross_entropy(p, t),
    ),
    TangentCase(
        "binary_cross_entropy_with_logits",
        lambda a, t: F.binary_cross_entropy_with_logits(a, t),
        lambda rng: [rng.uniform(-2, 2, (4,)), rng.uniform(0.1, 0.9, (4,))],
        lambda a, t: _tf().binary_cross_entropy_with_logits(a, t),
    ),
    # -- convolution and pooling --
    TangentCase(
        "conv2d",
        lambda x, W, b: F.conv2d(x, W, b, stride=2, padding=1),
        _u((1, 2, 5, 5), (3, 2, 3, 3), (3,)),
        lambda x, W, b: _tf().conv2d(x, W, b, stride=2, padding=1),
    ),
    TangentCase(
        "conv_transpose2d",
        lambda x, W, b: F.conv_transpose2d(x, W, b, stride=2, padding=1),
        _u((1, 2, 3, 3), (2, 3, 3, 3), (3,)),
        lambda x, W, b: _tf().conv_transpose2d(x, W, b, stride=2, padding=1),
    ),
    TangentCase(
        "max_pool2d",
        lambda x: F.max_pool2d(x, 2, padding=1),
        _distinct((1, 2, 3, 3)),
        lambda x: _tf().max_pool2d(x, 2, padding=1),
        False,
    ),
    TangentCase(
        "avg_pool2d",
        lambda x: F.avg_pool2d(x, 2),
        _u((1, 2, 4, 4)),
        lambda x: _tf().avg_pool2d(x, 2),
    ),
    TangentCase(
        "im2col",
        lambda x: F.im2col(x, 2, stride=1, padding=1),
        _u((1, 2, 3, 3)),
        lambda x: _tf().unfold(x, 2, padding=1),
    ),
    TangentCase(
        "col2im",
        lambda c: F.col2im(c, (3, 3), 2, stride=1, padding=1),
        _u((1, 8, 16)),
        lambda c: _tf().fold(c, (3, 3), 2, padding=1),
    ),
    TangentCase(
        "batch_norm",
        lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
        _u((4, 3), (3,), (3,)),
        lambda x, w, b: _tf().batch_norm(x, None, None, w, b, training=True),
        torch_func_hessian=False,
    ),
    TangentCase(
        "layer_norm",
        lambda x: F.layer_norm(x, 3),
        _u((2, 3)),
        lambda x: _tf().layer_norm(x, (3,)),
    ),
    TangentCase(
        "embedding",
        lambda W: F.embedding(INDEX, W),
        _u((3, 2)),
        lambda W: _tf().embedding(_torch().as_tensor(INDEX), W),
    ),
    # -- attention (issue 30) --
    TangentCase("gelu", F.gelu, _u((2, 3), low=-3, high=3), lambda a: _tf().gelu(a)),
    TangentCase(
        "gelu_tanh",
        lambda a: F.gelu(a, approximate="tanh"),
        _u((2, 3), low=-3, high=3),
        lambda a: _tf().gelu(a, approximate="tanh"),
    ),
    TangentCase(
        "sdpa_causal",
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
        _u((2, 3, 4), (2, 3, 4), (2, 3, 2)),
        lambda q, k, v: _tf().scaled_dot_product_attention(q, k, v, is_causal=True),
    ),
    TangentCase(
        "sdpa_bool_mask_scale",
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, ATTN_MASK, scale=0.7),
        _u((3, 4), (2, 4), (2, 2)),
        lambda q, k, v: _tf().scaled_dot_product_attention(
            q, k, v, _torch().as_tensor(ATTN_MASK), scale=0.7
        ),
    ),
    TangentCase(
        "sdpa_float_mask",
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, ADD_MASK),
        _u((3, 4), (2, 4), (2, 2)),
        lambda q, k, v: _tf().scaled_dot_product_attention(q, k, v, _torch().as_tensor(ADD_MASK)),
    ),
    TangentCase("tril", lambda a: F.tril(a), _u((3, 3)), lambda a: _torch().tril(a)),
    TangentCase(
        "masked_fill",
        lambda a: F.masked_fill(a, ATTN_MASK, -1.0),
        _u((3, 2)),
        lambda a: a.masked_fill(_torch().as_tensor(ATTN_MASK), -1.0),
    ),
    TangentCase(
        "dropout",  # the same mask on every call: minitorch's generator reseeded
        lambda x: F.dropout(x, 0.5) if manual_seed(3) is not None else None,
        _u((6,)),
    ),
]


# Here, not in conftest.py: `from conftest import` is ambiguous when tests/ops runs too.
def central_difference(fn: Any, xs: list[np.ndarray], vs: list[np.ndarray], eps: float) -> Any:
    """``(f(x + eps v) - f(x - eps v)) / (2 eps)``: the directional derivative, numerically."""
    plus = fn(*[np.asarray(x + eps * v) for x, v in zip(xs, vs)])
    minus = fn(*[np.asarray(x - eps * v) for x, v in zip(xs, vs)])
    return (np.asarray(plus) - np.asarray(minus)) / (2 * eps)
