"""Every differentiable op of minitorch (``import minitorch.ops as F``).

Modules form a fixed order — reshape, arithmetic, math, elementwise (trig, explog,
special), reduce, scan, linalg, einsum, linalg_solve, linalg_decomp, linalg_norm,
indexing, activation, loss, then windows (im2col), conv, pool, normalization, embedding,
gelu, attention — and each imports only earlier ones. Complex numbers are out of scope:
the ops added for NumPy's catalogue (trig ... linalg_norm) refuse complex input by name.
Importing this package binds the operators onto ``Variable``
(see :mod:`minitorch.ops.variable_methods`).

Integer and bool inputs: the ops defined only on real numbers (sigmoid, softplus, the
softmax family, logsumexp, the losses, the normalisations) compute them in float64
(:func:`minitorch.ops.reshape.as_float`), since ``-x`` and ``x - max`` wrap around in
unsigned dtypes; the ufunc-like ops (exp, add, matmul, sum ...) and the ops that move
values give NumPy's own result dtype (``exp`` of int8 is float16, as ``np.exp``).
"""

from minitorch.ops.activation import (
    clip,
    leaky_relu,
    log_softmax,
    maximum,
    minimum,
    relu,
    sigmoid,
    softmax,
    softplus,
)
from minitorch.ops.arithmetic import add, div, mul, neg, sub
from minitorch.ops.attention import (
    attention_weights,
    masked_fill,
    scaled_dot_product_attention,
    tril,
    triu,
)
from minitorch.ops.conv import conv2d, conv_transpose2d
from minitorch.ops.einsum import einsum
from minitorch.ops.embedding import embedding
from minitorch.ops.explog import exp2, expm1, log1p, log2, log10, logaddexp, logaddexp2
from minitorch.ops.gelu import gelu
from minitorch.ops.indexing import get_item, where
from minitorch.ops.join import concatenate, stack
from minitorch.ops.linalg import linear, matmul
from minitorch.ops.linalg_decomp import cholesky, eigh, svd
from minitorch.ops.linalg_norm import norm
from minitorch.ops.linalg_solve import det, inv, pinv, slogdet, solve
from minitorch.ops.loss import (
    accuracy,
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    dropout,
    l1_loss,
    mean_squared_error,
    mse_loss,
    nll_loss,
    softmax_cross_entropy,
)
from minitorch.ops.math import abs, cos, exp, log, pow, sin, sqrt, square, tanh
from minitorch.ops.namespaces import install as _install_namespaces
from minitorch.ops.normalization import batch_norm, layer_norm
from minitorch.ops.pool import avg_pool2d, max_pool2d, pooling
from minitorch.ops.reduce import logsumexp, max, mean, min, std, sum, var
from minitorch.ops.reshape import (
    astype,
    broadcast_to,
    expand_dims,
    flatten,
    reshape,
    squeeze,
    sum_to,
    sum_to_array,  # noqa: F401 (the ndarray kernel: notebook 08 imports it; not in __all__)
    transpose,
)
from minitorch.ops.scan import cumprod, cumsum, prod
from minitorch.ops.special import erf, erfc
from minitorch.ops.trig import (
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    cosh,
    hypot,
    sinh,
    tan,
)
from minitorch.ops.variable_methods import install as _install
from minitorch.ops.windows import col2im, im2col

_install()
_install_namespaces()

__all__ = [
    "abs",
    "accuracy",
    "add",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "astype",
    "attention_weights",
    "avg_pool2d",
    "batch_norm",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "broadcast_to",
    "cholesky",
    "clip",
    "col2im",
    "concatenate",
    "conv2d",
    "conv_transpose2d",
    "cos",
    "cosh",
    "cross_entropy",
    "cumprod",
    "cumsum",
    "det",
    "div",
    "dropout",
    "eigh",
    "einsum",
    "embedding",
    "erf",
    "erfc",
    "exp",
    "exp2",
    "expand_dims",
    "expm1",
    "flatten",
    "gelu",
    "get_item",
    "hypot",
    "im2col",
    "inv",
    "l1_loss",
    "layer_norm",
    "leaky_relu",
    "linear",
    "log",
    "log10",
    "log1p",
    "log2",
    "log_softmax",
    "logaddexp",
    "logaddexp2",
    "logsumexp",
    "masked_fill",
    "matmul",
    "max",
    "max_pool2d",
    "maximum",
    "mean",
    "mean_squared_error",
    "min",
    "minimum",
    "mse_loss",
    "mul",
    "neg",
    "nll_loss",
    "norm",
    "pinv",
    "pooling",
    "pow",
    "prod",
    "relu",
    "reshape",
    "scaled_dot_product_attention",
    "sigmoid",
    "sin",
    "sinh",
    "slogdet",
    "softmax",
    "softmax_cross_entropy",
    "softplus",
    "solve",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "std",
    "sub",
    "sum",
    "sum_to",
    "svd",
    "tan",
    "tanh",
    "transpose",
    "tril",
    "triu",
    "var",
    "where",
]


# Names people reach for from DeZero or PyTorch that minitorch spells differently.
_RENAMED = {
    "sigmoid_cross_entropy": "binary_cross_entropy_with_logits",
    "linear_simple": "linear",
    "average": "mean",
    "argmax": "accuracy (for a score) or np.argmax(x.data) (no gradient)",
    "batch_norm2d": "batch_norm",
    "conv2d_simple": "conv2d",
    "max_pool": "max_pool2d",
    "avg_pool": "avg_pool2d",
    "swapaxes": "transpose",
    "permute": "transpose",
    "view": "reshape",
    "cat": "concatenate",
    "unsqueeze": "expand_dims",
    "clamp": "clip",
    "mse": "mse_loss",
    "nll": "nll_loss",
    "bce": "binary_cross_entropy",
    "sdpa": "scaled_dot_product_attention",
    # PyTorch's and the C library's names for NumPy's
    "asin": "arcsin",
    "acos": "arccos",
    "atan": "arctan",
    "atan2": "arctan2",
    "asinh": "arcsinh",
    "acosh": "arccosh",
    "atanh": "arctanh",
    "inverse": "inv",
    "cumulative_sum": "cumsum",
    "svdvals": "svd(x, compute_uv=False)",
    "eigvalsh": "eigh(x).eigenvalues",
    "vector_norm": "norm",
    "matrix_norm": "norm",
    "logdet": "slogdet(x).logabsdet",
}


def __getattr__(name: str) -> object:
    """Raise ``AttributeError`` for an unknown op, suggesting the closest name."""
    import difflib  # only on this error path

    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    hint = _RENAMED.get(name)
    if hint is None:
        close = difflib.get_close_matches(name, __all__, n=3, cutoff=0.6)
        hint = " or ".join(close) if close else None
    advice = f"; did you mean {hint}?" if hint else "; see dir(minitorch.ops) for every op"
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}{advice}")
