"""Checks for notebook 11's im2col and col2im: the references and the typical slips
(a window's layout, its order, a shrunk output) that the checks name.

The references are the answers to notebook 11's im2col and col2im exercises (later
cells use them as stand-ins where yours fails): reading them first spoils those exercises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from checks import CheckFailed, check_close, check_true
from checks_build import check_close_diagnosed, exercise, require


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
