"""Checks for notebook 11 (convolutions and recurrent nets): a convolution by loops, its
output size, the im2col convolution's backward, max-pool variants and dead filters.

The im2col pieces live in ``checks_nb11_im2col`` and the recurrent ones in
``checks_nb11_rnn``; this module hands them on, so the notebook imports every check of
notebook 11 from here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from checks import CheckFailed
from checks_build import check_close_diagnosed, exercise, require, short_errors
from checks_nb08 import check_backward
from checks_nb11_im2col import check_col2im, check_im2col, reference_col2im, reference_im2col
from checks_nb11_rnn import (
    check_clip,
    check_rnn_step,
    lstm_diagnosis,
    lstm_reference,
    lstm_variants,
    reference_clip,
)

__all__ = [
    "check_clip",
    "check_col2im",
    "check_conv2d_naive",
    "check_conv_backward",
    "check_conv_output_size",
    "check_im2col",
    "check_rnn_step",
    "dead_filters",
    "lstm_diagnosis",
    "lstm_reference",
    "lstm_variants",
    "maxpool_variants",
    "reference_clip",
    "reference_col2im",
    "reference_im2col",
]


def maxpool_variants(x: np.ndarray, gy: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """Typical wrong gradients of a 2x2 max-pool (notebook 11, exercise 6).

    Each index slip moves the winners' mask; the gradient is then either ``gy`` routed to
    the moved positions or ``upsample(gy) * mask`` (each position gets the ``gy`` of the
    window it lies in): both forms are returned for each slip.
    """
    slips = {
        "the winners' rows and columns are swapped: divmod(a, 2) gives (row, column)": (
            lambda i, j, r, s: (2 * i + s, 2 * j + r)
        ),
        "window (i, j) starts at row 2*i and column 2*j of x: the winner is at "
        "(2*i + row, 2*j + column)": lambda i, j, r, s: (i + r, j + s),
    }
    spread = np.repeat(np.repeat(gy, 2, axis=2), 2, axis=3)
    out = []
    for hint, where in slips.items():
        routed, mask = np.zeros_like(x), np.zeros_like(x)
        for index in np.ndindex(gy.shape):
            n, c, i, j = index
            a = int(np.argmax(x[n, c, 2 * i : 2 * i + 2, 2 * j : 2 * j + 2]))
            row, col = where(i, j, *divmod(a, 2))
            routed[n, c, row, col] = gy[index]
            mask[n, c, row, col] = 1.0
        out += [(hint, routed), (hint, spread * mask)]
    return out


def dead_filters(maps: np.ndarray, tol: float = 0.0) -> list[int]:
    """Indices ``k`` of feature maps ``maps[k]`` (after ReLU) that are zero everywhere."""
    return [k for k in range(len(maps)) if float(np.max(maps[k])) <= tol]


# -- exercise 1: a convolution by loops ----------------------------------------------------
def _conv_loops(x: np.ndarray, w: np.ndarray, corner: str = "ij") -> np.ndarray:
    """Cross-correlation of a 2-D ``x`` with a 2-D ``w`` (valid, stride 1), by loops.

    ``corner`` names the window's top-left corner of ``out[i, j]``: ``"ij"`` is right;
    ``"ii"``, ``"jj"`` are the index slips.
    """
    kh, kw = w.shape
    out = np.zeros((x.shape[0] - kh + 1, x.shape[1] - kw + 1))
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            top, left = ({"i": i, "j": j}[c] for c in corner)
            window = x[top : top + kh, left : left + kw]
            out[i, j] = np.sum(window * w) if window.shape == w.shape else np.nan
    return out


def check_conv2d_naive(f: Callable[..., Any]) -> None:
    """Check notebook 11's ``conv2d_naive(x, w)`` (2-D, valid, stride 1, no flip).

    The wrong answers are named by what they equal: the filter flipped (a textbook
    convolution), turned, the output transposed, the window averaged, or an output of
    the wrong size.
    """
    require("conv2d_naive", f)
    rng_ = np.random.default_rng(0)
    for shape in [(4, 4), (7, 6)]:
        x, w = rng_.standard_normal(shape), rng_.standard_normal((3, 3))
        if shape == (4, 4):
            w = rng_.standard_normal((2, 2))
        with exercise(
            f"conv2d_naive(x of shape {shape}, w of shape {w.shape})",
            ("IndexError", "the windows run past the edge: i goes over range(H - K + 1)"),
            (
                "could not be broadcast",
                "each window is x[i:i+K, j:j+K]: K rows and K columns, the filter's shape",
            ),
        ):
            got = np.asarray(f(x, w), dtype=np.float64)
        right = _conv_loops(x, w)
        h_out, w_out = right.shape
        if got.shape != right.shape:
            fewer = got.shape == (h_out - 1, w_out - 1)
            raise CheckFailed(
                f"conv2d_naive of a {shape} input and a {w.shape} filter has shape "
                f"{got.shape}, expected {right.shape} = (H - K + 1, W - K + 1)"
                + (": the last window is missing, range(H - K + 1) includes it" if fewer else "")
            )
        check_close_diagnosed(
            f"conv2d_naive on a {shape} input",
            got,
            right,
            [
                (
                    "the filter is flipped: that is the textbook convolution; conv2d here "
                    "(as in PyTorch) slides w as it is, sum(x[i:i+K, j:j+K] * w)",
                    _conv_loops(x, w[::-1, ::-1]),
                ),
                ("the filter's rows are flipped: use w as it is", _conv_loops(x, w[::-1])),
                (
                    "the filter's columns are flipped: use w as it is",
                    _conv_loops(x, w[:, ::-1]),
                ),
                ("the filter is transposed: use w, not w.T", _conv_loops(x, w.T)),
                (
                    "each output is the *sum* of window * w, not its mean",
                    _conv_loops(x, w) / w.size,
                ),
                *(
                    (
                        "the window of out[i, j] starts at row i and column j: x[i:i+K, j:j+K]",
                        _conv_loops(x, w, corner),
                    )
                    for corner in ("ii", "jj")
                ),
                *(
                    [("the output is transposed: out[i, j], row i", right.T)]
                    if right.shape[0] == right.shape[1]
                    else []
                ),
            ],
            hint="out[i, j] = sum(x[i:i+K, j:j+K] * w), the filter as it is",
        )


# -- exercise 5: the im2col convolution's backward -----------------------------------------
def check_conv_backward(make: Callable[[], Any], x: np.ndarray, w: np.ndarray) -> None:
    """Check ``ConvIm2col``'s ``backward`` against ``F.conv2d``'s gradients, by kind of slip.

    Shapes first (a ``gcol`` not folded back, a ``gW`` not summed over the batch), then
    the values with the typical wrong variants, then both engine paths against finite
    differences (:func:`checks_nb08.check_backward`) on a small case.
    """
    require("ConvIm2col", make)
    import minitorch.ops as F
    from minitorch import Variable

    f = make()
    with exercise("ConvIm2col forward"):
        y = f(Variable(x.copy()), Variable(w.copy()))
    gy = np.random.default_rng(6).standard_normal(y.shape)
    with exercise(
        "ConvIm2col.backward",
        (
            "ValueError",
            "a shape does not fit: gy2 @ col^T is (N, C_out, C*k*k), so F.sum it over "
            "axis 0 before the reshape to W.shape; W2.T @ gy2 is (N, C*k*k, L)",
        ),
    ):
        grads = f.backward(Variable(gy))
    grads = tuple(grads) if isinstance(grads, (tuple, list)) else (grads,)
    if len(grads) != 2 or any(g is None for g in grads):
        raise CheckFailed("ConvIm2col.backward should return two gradients, (gx, gW)")
    gx, gW = (np.asarray(getattr(g, "data", g), dtype=np.float64) for g in grads)
    k = w.shape[2]
    col = reference_im2col(x, k)
    if gx.shape == w.shape and gW.shape == x.shape:
        raise CheckFailed(
            "the gradients are swapped: return (gx, gW), in the order of the inputs (x, W)"
        )
    if gx.shape != x.shape:
        folded = gx.shape == col.shape
        raise CheckFailed(
            f"gx has shape {gx.shape}, but x has shape {x.shape}"
            + (
                ": that is im2col's shape (gcol = W2.T @ gy); fold it back with "
                "F.col2im(gcol, x.shape[2:], k)"
                if folded
                else ""
            )
        )
    if gW.shape != w.shape:
        per_image = gW.shape[:1] == x.shape[:1] and gW.size == x.shape[0] * w.size
        raise CheckFailed(
            f"gW has shape {gW.shape}, but W has shape {w.shape}"
            + (
                ": one gradient per image; the same filters serve every image, so sum "
                "over the batch axis (F.sum(..., axis=0))"
                if per_image
                else ": reshape the (C_out, C*k*k) product to W.shape"
            )
        )
    xr, wr = Variable(x.copy()), Variable(w.copy())
    (F.conv2d(xr, wr) * gy).sum().backward()
    gy2 = gy.reshape(gy.shape[0], gy.shape[1], -1)
    right_w = wr.grad.data
    check_close_diagnosed(
        "the filters' gradient gW",
        gW,
        right_w,
        [
            (
                "gW is summed over the batch: the same filters are used for every image "
                "(you kept only the first image's share)",
                (gy2[0] @ col[0].T).reshape(w.shape),
            ),
            ("gW should be the *sum* over the batch, not the mean", right_w / x.shape[0]),
            (
                "gW was transposed before the reshape: sum over n of gy[n] @ col[n].T has "
                "W2's shape (C_out, C*k*k); reshape that",
                right_w.reshape(w.shape[0], -1).T.reshape(w.shape),
            ),
            ("the sign of gW is flipped", -right_w),
            (
                "gy is left out of gW: multiply by the incoming gradient",
                np.einsum("nol,ncl->oc", np.ones_like(gy2), col).reshape(w.shape),
            ),
        ],
        hint="gW = sum over n of gy[n] @ col[n].T, reshaped to W.shape",
    )
    check_close_diagnosed(
        "the input's gradient gx",
        gx,
        xr.grad.data,
        [("the sign of gx is flipped", -xr.grad.data)],
        hint="gcol = W2.T @ gy, then col2im (fold) back to x's shape",
    )
    check_backward("ConvIm2col", make, x[:1, :2, :4, :4], w[:2, :2, :2, :2])


# -- exercise 2: the output size ---------------------------------------------------------
_SIZE_CASES = [
    (6, 3, 1, 0),
    (8, 3, 1, 1),
    (28, 5, 1, 2),
    (7, 3, 2, 0),
    (8, 2, 2, 0),
    (5, 3, 2, 1),
    (8, 3, 2, 0),
    (10, 4, 3, 1),
]

#: Wrong formulas ``(h, k, s, p) -> size`` and what each one gets wrong.
_SIZE_MISTAKES: list[tuple[str, Callable[[int, int, int, int], float]]] = [
    (
        "a window fits only whole times: use floor division // (here (H + 2P - K) / S is "
        "not a whole number)",
        lambda h, k, s, p: (h + 2 * p - k) / s + 1,
    ),
    ("the padding goes on both sides: H + 2P", lambda h, k, s, p: (h + p - k) // s + 1),
    ("don't forget the + 1 (the first window)", lambda h, k, s, p: (h + 2 * p - k) // s),
    (
        "divide by the stride: the window moves S pixels at a time",
        lambda h, k, s, p: h + 2 * p - k + 1,
    ),
    (
        "the padding adds to the size: H + 2P, not H - 2P",
        lambda h, k, s, p: (h - 2 * p - k) // s + 1,
    ),
    (
        "round down: a window that does not fit whole is dropped (floor, //)",
        lambda h, k, s, p: -(-(h + 2 * p - k) // s) + 1,
    ),
    (
        "the + 1 comes after the division: (H + 2P - K) // S + 1",
        lambda h, k, s, p: (h + 2 * p - k + 1) // s,
    ),
    ("subtract the filter size K", lambda h, k, s, p: (h + 2 * p + k) // s + 1),
]


def check_conv_output_size(f: Callable[..., Any]) -> None:
    """Check ``conv_output_size(h, k, stride, padding)`` on all cases at once.

    A wrong formula is named only if it explains *every* case (two slips can agree on
    one case, never on all of them).
    """
    require("conv_output_size", f)
    got = []
    for h, k, s, p in _SIZE_CASES:
        with exercise(f"conv_output_size(h={h}, k={k}, stride={s}, padding={p})"):
            got.append(f(h, k, s, p))
    right = [(h + 2 * p - k) // s + 1 for h, k, s, p in _SIZE_CASES]
    values = np.asarray(got, dtype=np.float64)
    if not np.allclose(values, right):
        for text, rule in _SIZE_MISTAKES:
            wrong = np.array([rule(*case) for case in _SIZE_CASES], dtype=np.float64)
            if np.allclose(values, wrong):
                raise CheckFailed(f"conv_output_size: {text}")
        bad = int(np.argmax(~np.isclose(values, right)))
        h, k, s, p = _SIZE_CASES[bad]
        raise CheckFailed(
            f"conv_output_size(h={h}, k={k}, stride={s}, padding={p}) is {got[bad]} but "
            f"should be {right[bad]} = floor((H + 2P - K) / S) + 1"
        )
    for value, (h, k, s, p) in zip(got, _SIZE_CASES):
        if not isinstance(value, (int, np.integer)):
            raise CheckFailed(
                f"conv_output_size(h={h}, k={k}, stride={s}, padding={p}) should be an int, "
                f"got {type(value).__name__}: use // (floor division)"
            )


short_errors(globals())  # whatever escapes a check is shown short
