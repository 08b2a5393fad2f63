"""Checks for notebook 11 (convolutions and recurrent nets): clipping, im2col/col2im,
max-pool and LSTM references with their typical wrong variants."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from checks import CheckFailed, check_close, check_true
from checks_build import check_close_diagnosed, exercise, require, short_errors
from checks_nb08 import check_backward


def check_clip(clip: Callable[..., Any]) -> None:
    """Check a student's ``clip_grad_norm(params, max_norm)`` against minitorch's ClipGrad."""
    require("clip_grad_norm", clip)
    from minitorch import Variable
    from minitorch.optim import ClipGrad

    # norms 8 and 6, global norm 10; no single value is above max_norm = 5
    grads = [np.array([[4.0, -4.0], [4.0, 4.0]]), np.array([6.0])]

    def fresh() -> list[Any]:
        params = [Variable(np.zeros_like(g)) for g in grads]
        for p, g in zip(params, grads):
            p.grad = Variable(g.copy())
        return params

    ours = fresh()
    ClipGrad(5.0)(ours)
    theirs = fresh()
    with exercise("clip_grad_norm(params, 5.0)"):
        norm = clip(theirs, 5.0)
    check_close_diagnosed(
        "the returned norm",
        norm,
        10.0,
        {
            "return the norm *before* clipping (it is what one logs)": 5.0,
            "the norm is the square root of the sum of squares": 100.0,
            "the global norm is the L2 norm, sqrt of the sum of squares, not the sum of "
            "absolute values": 22.0,
            "the norm runs over all gradients together, not the largest one's": 8.0,
        },
        hint="the global norm is sqrt of the sum of every gradient's squares: sqrt(64 + 36)",
    )
    for k, a in enumerate(theirs):
        if not isinstance(a.grad, Variable):
            raise CheckFailed(
                f"gradient {k} is now a {type(a.grad).__name__}: this is an ndarray, but a "
                "gradient is a Variable; assign p.grad = Variable(p.grad.data * scale)"
            )
    for k, (a, b) in enumerate(zip(theirs, ours)):
        local = np.array(grads[k]) * min(1.0, 5.0 / np.sqrt(np.sum(grads[k] ** 2)))
        check_close_diagnosed(
            f"gradient {k} after clipping",
            a.grad,
            b.grad,
            {
                "each gradient was clipped by its own norm: use the global norm of all "
                "gradients together, so the joint direction is kept": local,
                "the scale is inverted: multiply by max_norm / norm (below 1)": np.array(grads[k])
                * (10.0 / 5.0),
                "clip the norm, not each value: multiply every gradient by max_norm / norm": (
                    np.clip(grads[k], -5.0, 5.0)
                ),
            },
            hint="multiply every gradient by max_norm / norm when norm > max_norm",
        )
    small = fresh()
    with exercise("clip_grad_norm(params, 100.0)"):
        clip(small, 100.0)
    for k, p in enumerate(small):
        check_close_diagnosed(
            f"gradient {k} with a norm below max_norm",
            p.grad,
            grads[k],
            {
                "leave the gradients alone when the norm is already small enough (clip only "
                "if norm > max_norm)": grads[k] * (100.0 / 10.0)
            },
        )
    unused = Variable(np.zeros(3))  # a parameter no loss used: its grad is None
    skip = (
        "NoneType",
        "a parameter that got no gradient has p.grad None: leave it out, "
        "[p for p in params if p.grad is not None]",
    )
    with exercise("clip_grad_norm(params with one p.grad None, 5.0)", skip):
        norm = clip([*fresh(), unused], 5.0)
    check_close("the norm with a parameter that has no gradient", norm, 10.0)
    if unused.grad is not None:
        raise CheckFailed(
            "clip_grad_norm gave a gradient to a parameter that had none (p.grad was None): "
            "leave such parameters out"
        )


def reference_clip(params: list[Any], max_norm: float) -> float:
    """minitorch's ClipGrad as a function: clip in place, return the norm before clipping."""
    from minitorch.optim import ClipGrad

    clip = ClipGrad(max_norm)
    clip(params)
    return clip.last_norm


# -- notebook 11: convolution pieces -----------------------------------------------------
def reference_im2col(x: np.ndarray, k: int) -> np.ndarray:
    """``(N, C, H, W) -> (N, C*k*k, H_out*W_out)``, stride 1, no padding, by loops."""
    n, c, h, w = x.shape
    oh, ow = h - k + 1, w - k + 1
    col = np.zeros((n, c * k * k, oh * ow))
    for i in range(oh):
        for j in range(ow):
            col[:, :, i * ow + j] = x[:, :, i : i + k, j : j + k].reshape(n, -1)
    return col


def reference_col2im(col: np.ndarray, x_shape: tuple[int, ...], k: int) -> np.ndarray:
    """The adjoint of :func:`reference_im2col`: add every column back into its window."""
    n, c, h, w = x_shape
    oh, ow = h - k + 1, w - k + 1
    x = np.zeros(x_shape)
    for i in range(oh):
        for j in range(ow):
            x[:, :, i : i + k, j : j + k] += col[:, :, i * ow + j].reshape(n, c, k, k)
    return x


def _window_pairs(
    h: int, w: int, k: int, order: str = "row", slices: str = "ij", shrink: int = 0
) -> list[tuple[int, int, int]]:
    """``(column, top, left)`` for every window, with the typical index slips.

    ``order="col"`` numbers the windows down the columns first (``j * H_out + i``);
    ``slices="ji"`` starts window (i, j) at row j and column i; ``shrink=1`` drops the
    last row and column of windows (``range(H - k)``).
    """
    oh, ow = h - k + 1, w - k + 1
    pairs = []
    for i in range(oh - shrink):
        for j in range(ow - shrink):
            column = i * ow + j if order == "row" else j * oh + i
            top, left = (i, j) if slices == "ij" else (j, i)
            pairs.append((column, top, left))
    return pairs


def _im2col_variant(x: np.ndarray, k: int, layout: str = "chw", **slips: Any) -> np.ndarray:
    """im2col with the slips of :func:`_window_pairs` and a window flattening ``layout``."""
    n, c, h, w = x.shape
    col = np.zeros((n, c * k * k, (h - k + 1) * (w - k + 1)))
    for column, top, left in _window_pairs(h, w, k, **slips):
        window = x[:, :, top : top + k, left : left + k]
        if layout == "hwc":
            window = window.transpose(0, 2, 3, 1)
        elif layout == "cwh":
            window = window.transpose(0, 1, 3, 2)
        col[:, :, column] = window.reshape(n, -1)
    return col


def _col2im_variant(
    col: np.ndarray,
    x_shape: tuple[int, ...],
    k: int,
    layout: str = "chw",
    add: bool = True,
    **slips: Any,
) -> np.ndarray:
    """col2im with the slips of :func:`_window_pairs`, a window ``layout``, and ``=`` for
    ``+=`` unless ``add``."""
    n, c, h, w = x_shape
    x = np.zeros(x_shape)
    for column, top, left in _window_pairs(h, w, k, **slips):
        if layout == "hwc":
            window = col[:, :, column].reshape(n, k, k, c).transpose(0, 3, 1, 2)
        else:
            window = col[:, :, column].reshape(n, c, k, k)
        if add:
            x[:, :, top : top + k, left : left + k] += window
        else:
            x[:, :, top : top + k, left : left + k] = window
    return x


_ORDER = (
    "the windows are in the wrong order: column i * W_out + j holds window (i, j), the slice "
    "x[:, :, i:i+k, j:j+k] (i the row: move along a row first)"
)
_LAYOUT = (
    "a window's values go in (channel, row, column) order, as .reshape(n, -1) of "
    "x[:, :, i:i+k, j:j+k] gives them, without a transpose"
)
_SHRINK = "the last row and column of windows are missing: i runs over range(H - k + 1)"
_INDEX_HINTS = (
    (
        "IndexError",
        "an index runs past the end: column i * W_out + j (W_out = W - k + 1, the windows "
        "along a row) and window rows i .. i + k - 1",
    ),
    (
        "could not broadcast",
        "a window and a column do not fit: window (i, j) = x[:, :, i:i+k, j:j+k], "
        ".reshape(n, -1), is column i * W_out + j, shape (N, C*k*k)",
    ),
    (
        "could not be broadcast",
        "a window and a column do not fit: window (i, j) = x[:, :, i:i+k, j:j+k], "
        ".reshape(n, -1), is column i * W_out + j, shape (N, C*k*k)",
    ),
)


def check_im2col(f: Callable[..., Any]) -> None:
    """Check notebook 11's ``im2col_np(x, k)`` against ``F.im2col``, naming index slips."""
    require("im2col_np", f)
    import minitorch.ops as F
    from minitorch import Variable

    rng_ = np.random.default_rng(11)
    for shape, k in [((1, 1, 4, 4), 2), ((2, 3, 5, 4), 3), ((1, 2, 3, 3), 3)]:
        x = rng_.standard_normal(shape)
        with exercise(f"im2col_np(x of shape {shape}, k={k})", *_INDEX_HINTS):
            got = f(x, k)
        expected = F.im2col(Variable(x), k).data
        n, ckk, windows = expected.shape
        if np.shape(got) == (n, windows, ckk) and ckk != windows:
            raise CheckFailed(
                f"im2col_np has shape {np.shape(got)}: that is the transpose of each image's "
                "matrix; the windows are the columns, shape (N, C*k*k, H_out*W_out)"
            )
        check_true(
            np.shape(got) == expected.shape,
            f"im2col_np(x of shape {shape}, k={k}) has shape {np.shape(got)}, expected "
            f"{expected.shape} = (N, C*k*k, H_out*W_out), with H_out = H - k + 1 "
            "windows along an axis of length H",
        )
        variants = [
            (_ORDER, _im2col_variant(x, k, order="col")),
            (_LAYOUT, _im2col_variant(x, k, layout="hwc")),
            (_LAYOUT, _im2col_variant(x, k, layout="cwh")),
            (_SHRINK, _im2col_variant(x, k, shrink=1)),
        ]
        check_close_diagnosed(f"im2col_np(x of shape {shape}, k={k})", got, expected, variants)


def check_col2im(f: Callable[..., Any]) -> None:
    """Check notebook 11's ``col2im_np(col, x_shape, k)``: sums, index slips, adjointness."""
    require("col2im_np", f)
    import minitorch.ops as F
    from minitorch import Variable

    rng_ = np.random.default_rng(12)
    ones = np.arange(1.0, 17.0).reshape(1, 4, 4)  # distinct values: overlaps tell
    with exercise(
        "col2im_np(col, (1, 1, 3, 3), 2)",
        (
            "cannot reshape",
            "col2im is not a "
            "reshape: the windows overlap. Start from np.zeros(x_shape) and add each "
            "column into its window",
        ),
        *_INDEX_HINTS,
    ):
        got = f(ones, (1, 1, 3, 3), 2)
    small = (1, 1, 3, 3)
    summed = _col2im_variant(ones, small, 2)
    check_close_diagnosed(
        "col2im_np of a (1, 4, 4) col into (1, 1, 3, 3)",
        got,
        summed,
        [
            (
                "overlapping windows must add up (+=), not overwrite (=)",
                _col2im_variant(ones, small, 2, add=False),
            ),
            (_SHRINK, _col2im_variant(ones, small, 2, shrink=1)),
            (_ORDER, _col2im_variant(ones, small, 2, order="col")),
            (
                "col2im adds the overlapping windows up; do not divide by how many there are",
                summed / _col2im_variant(np.ones_like(ones), small, 2),
            ),
        ],
        hint="each pixel gets the sum of its entries in every window it belongs to (the "
        "centre is in all 4)",
    )
    for shape, k in [((2, 3, 5, 4), 3), ((1, 2, 4, 4), 2)]:
        x = rng_.standard_normal(shape)
        col = rng_.standard_normal(reference_im2col(x, k).shape)
        with exercise(f"col2im_np(col, {shape}, {k})", *_INDEX_HINTS):
            got = f(col, shape, k)
        expected = F.col2im(Variable(col), shape[2:], k).data
        cover = _col2im_variant(np.ones_like(col), shape, k)
        variants = [
            (_ORDER, _col2im_variant(col, shape, k, order="col")),
            (_LAYOUT, _col2im_variant(col, shape, k, layout="hwc")),
            (_SHRINK, _col2im_variant(col, shape, k, shrink=1)),
            (
                "col2im adds the overlapping windows up; do not divide by how many there are",
                expected / cover,
            ),
        ]
        check_close_diagnosed(f"col2im_np(col, {shape}, {k})", got, expected, variants)
        # the adjoint identity <im2col(x), col> = <x, col2im(col)>: col2im is im2col's
        # backward
        check_close(
            "<im2col(x), col> - <x, col2im(col)>",
            np.sum(reference_im2col(x, k) * col) - np.sum(x * got),
            0.0,
            atol=1e-9,
        )


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


def lstm_reference(
    x: np.ndarray, h: np.ndarray, c: np.ndarray, W: np.ndarray, U: np.ndarray, b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """One LSTM step in NumPy (gate order i, f, g, o as PyTorch and minitorch)."""
    z = x @ W.T + h @ U.T + b
    i, f, g, o = np.split(z, 4, axis=1)

    def sig(a: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-a))

    c_new = sig(f) * c + sig(i) * np.tanh(g)
    return sig(o) * np.tanh(c_new), c_new


def lstm_variants(
    x: np.ndarray, h: np.ndarray, c: np.ndarray, W: np.ndarray, U: np.ndarray, b: np.ndarray
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Typical wrong LSTM steps: ``{hint: (h, c)}``."""
    z = x @ W.T + h @ U.T + b
    i, f, g, o = np.split(z, 4, axis=1)

    def sig(a: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-a))

    out = {}
    c1 = sig(f) * c + sig(i) * np.tanh(g)
    out["h should be o * tanh(c_new), the *new* cell state, not the old one"] = (
        sig(o) * np.tanh(c),
        c1,
    )
    out["h is o * tanh(c_new): the tanh is missing"] = (sig(o) * c1, c1)
    c2 = sig(f) * c + sig(i) * sig(g)
    out["the candidate g uses tanh, not sigmoid (values in -1..1)"] = (sig(o) * np.tanh(c2), c2)
    c3 = sig(i) * c + sig(f) * np.tanh(g)
    out["gate order is i, f, g, o: f multiplies the old cell state, i the candidate"] = (
        sig(o) * np.tanh(c3),
        c3,
    )
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


# -- exercise 7: one RNN step ------------------------------------------------------------
def check_rnn_step(f: Callable[..., Any]) -> None:
    """Check ``rnn_step(x, h, Wx, Wh, b) = tanh(x @ Wx.T + h @ Wh.T + b)`` by kind of slip."""
    require("rnn_step", f)
    from minitorch import Variable

    rng_ = np.random.default_rng(3)
    x, h = rng_.standard_normal((2, 3)) * 0.5, rng_.standard_normal((2, 4)) * 0.5
    Wx, Wh, b = (rng_.standard_normal(s) * 0.5 for s in [(4, 3), (4, 4), (4,)])
    with exercise(
        "rnn_step",
        (
            "ValueError",
            "check the shapes: Wx is (hidden, inputs) and Wh is (hidden, hidden), as in "
            "nn.Linear, so x @ Wx.T and h @ Wh.T are (N, hidden)",
        ),
    ):
        out = f(*[Variable(a) for a in (x, h, Wx, Wh, b)])
    if not hasattr(out, "creator"):
        raise CheckFailed(
            f"rnn_step returned a {type(out).__name__}: build it with minitorch ops (F.tanh, "
            "@) on the Variables, so that backward works"
        )
    if out.shape != (2, 4):
        raise CheckFailed(f"rnn_step should give shape (N, hidden) = (2, 4), got {out.shape}")
    z = x @ Wx.T + h @ Wh.T + b
    check_close_diagnosed(
        "rnn_step",
        out,
        np.tanh(z),
        [
            ("the bias b is missing", np.tanh(z - b)),
            ("the activation is tanh, not sigmoid", 1 / (1 + np.exp(-z))),
            ("the activation is tanh, not ReLU", np.maximum(z, 0)),
            ("the tanh is missing: h_new = tanh(x Wx^T + h Wh^T + b)", z),
            ("the recurrent term h @ Wh.T is missing", np.tanh(x @ Wx.T + b)),
            ("the input term x @ Wx.T is missing", np.tanh(h @ Wh.T + b)),
            ("Wh is transposed: h @ Wh.T, as nn.Linear does", np.tanh(x @ Wx.T + h @ Wh + b)),
            ("the bias goes inside the tanh", np.tanh(z - b) + b),
        ],
        hint="h_new = tanh(x @ Wx.T + h @ Wh.T + b)",
    )


# -- exercise 8: one LSTM step, any gate order or activation -------------------------------
_GATES = "ifgo"


def _lstm_step(
    x: np.ndarray,
    h: np.ndarray,
    c: np.ndarray,
    W: np.ndarray,
    U: np.ndarray,
    b: np.ndarray,
    order: str = "ifgo",
    acts: str = "ssts",
) -> tuple[np.ndarray, np.ndarray]:
    """An LSTM step whose blocks of z are the gates ``order`` with activations ``acts``.

    ``acts[k]`` is ``s`` (sigmoid) or ``t`` (tanh) for gate ``_GATES[k]``; the right
    step is ``order="ifgo", acts="ssts"`` (PyTorch's and minitorch's).
    """
    z = x @ W.T + h @ U.T + b
    blocks = dict(zip(order, np.split(z, 4, axis=1)))

    def act(kind: str, a: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-a)) if kind == "s" else np.tanh(a)

    i, f, g, o = (act(acts[k], blocks[gate]) for k, gate in enumerate(_GATES))
    c_new = f * c + i * g
    return o * np.tanh(c_new), c_new


def lstm_diagnosis(h_got: np.ndarray, c_got: np.ndarray, args: list[np.ndarray]) -> str:
    """Name what differs in an LSTM step, by trying every gate order and activation.

    Returns ``""`` if no variant explains ``(h_got, c_got)``.
    """
    import itertools

    x, h, c, W, U, b = args
    right_h, right_c = _lstm_step(*args)
    close = lambda a, r: a.shape == r.shape and np.allclose(a, r, atol=1e-6)  # noqa: E731
    names = {"i": "input", "f": "forget", "g": "candidate", "o": "output"}
    if close(h_got, right_c) and close(c_got, right_h) and not close(right_h, right_c):
        return "the two results are swapped: return (h_new, c_new), in that order"
    zi, zf, zg, _ = np.split(x @ W.T + h @ U.T + b, 4, axis=1)
    i, f, g = 1 / (1 + np.exp(-zi)), 1 / (1 + np.exp(-zf)), np.tanh(zg)
    for text, value in [
        ("c_new = f * c + i * g: the input gate i is missing", f * c + g),
        ("c_new = f * c + i * g: the forget gate f is missing", c + i * g),
        ("c_new = f * c + i * g: the old cell state c is missing", i * g),
    ]:
        if close(c_got, value) and not close(value, right_c):
            return text
    if close(c_got, right_c):
        c_new = right_c
        zo = np.split(x @ W.T + h @ U.T + b, 4, axis=1)[3]
        o = 1 / (1 + np.exp(-zo))
        for text, value in [
            ("h should be o * tanh(c_new), the *new* cell state, not the old one", o * np.tanh(c)),
            ("h is o * tanh(c_new): the tanh is missing", o * c_new),
            ("h is o * tanh(c_new): the output gate o is missing", np.tanh(c_new)),
            (
                "the output gate o uses tanh (i, f, o are sigmoids, in 0..1)",
                np.tanh(zo) * np.tanh(c_new),
            ),
        ]:
            if close(h_got, value):
                return text
    for order in ("".join(p) for p in itertools.permutations(_GATES)):
        for acts in ("".join(a) for a in itertools.product("st", repeat=4)):
            if order == "ifgo" and acts == "ssts":
                continue
            h_v, c_v = _lstm_step(*args, order=order, acts=acts)
            if close(c_got, c_v) and not close(c_v, right_c):
                parts = []
                if order != "ifgo":
                    parts.append(
                        f"your gates are in the order {', '.join(order)}: z's four blocks are "
                        "i, f, g, o (as in PyTorch and minitorch): f multiplies the old cell "
                        "state, i the candidate g"
                    )
                wrong = [
                    f"the {names[g]} gate {g} uses {'sigmoid' if a == 's' else 'tanh'}"
                    for g, a, r in zip(_GATES, acts, "ssts")
                    if a != r
                ]
                if wrong:
                    parts.append(
                        "; ".join(wrong)
                        + " (i, f, o are sigmoids, in 0..1; the candidate g is a tanh, in -1..1)"
                    )
                return "; ".join(parts)
    return ""


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
