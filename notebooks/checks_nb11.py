"""Checks for notebook 11 (convolutions and recurrent nets): clipping, im2col/col2im,
max-pool and LSTM references with their typical wrong variants."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from checks import check_close, check_true
from checks_build import check_close_diagnosed, exercise


def check_clip(clip: Callable[..., Any]) -> None:
    """Check a student's ``clip_grad_norm(params, max_norm)`` against minitorch's ClipGrad."""
    from minitorch import Variable
    from minitorch.optim import ClipGrad

    grads = [np.array([[3.0, 0.0], [0.0, 4.0]]), np.array([12.0])]  # global norm 13

    def fresh() -> list[Any]:
        params = [Variable(np.zeros_like(g)) for g in grads]
        for p, g in zip(params, grads):
            p.grad = Variable(g.copy())
        return params

    ours = fresh()
    ClipGrad(6.5)(ours)
    theirs = fresh()
    with exercise("clip_grad_norm(params, 6.5)"):
        norm = clip(theirs, 6.5)
    check_close_diagnosed(
        "the returned norm",
        norm,
        13.0,
        {"return the norm *before* clipping (it is what one logs)": 6.5},
        hint="the global norm is sqrt of the sum of every gradient's squares: sqrt(9+16+144)",
    )
    for k, a in enumerate(theirs):
        if not isinstance(a.grad, Variable):
            raise AssertionError(
                f"gradient {k} is now a {type(a.grad).__name__}: this is an ndarray, but a "
                "gradient is a Variable; assign p.grad = Variable(p.grad.data * scale)"
            )
    for k, (a, b) in enumerate(zip(theirs, ours)):
        local = np.array(grads[k]) * min(1.0, 6.5 / np.sqrt(np.sum(grads[k] ** 2)))
        check_close_diagnosed(
            f"gradient {k} after clipping",
            a.grad,
            b.grad,
            {
                "each gradient was clipped by its own norm: use the global norm of all "
                "gradients together, so the joint direction is kept": local
            },
            hint="multiply every gradient by max_norm / norm when norm > max_norm",
        )
    small = fresh()
    with exercise("clip_grad_norm(params, 100.0)"):
        clip(small, 100.0)
    for k, p in enumerate(small):
        check_close(
            f"gradient {k} with a norm below max_norm",
            p.grad,
            grads[k],
            hint="leave the gradients alone when the norm is already small enough",
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


def check_im2col(f: Callable[..., Any]) -> None:
    """Check notebook 11's ``im2col_np(x, k)`` against ``F.im2col``."""
    import minitorch.ops as F
    from minitorch import Variable

    rng_ = np.random.default_rng(11)
    for shape, k in [((1, 1, 4, 4), 2), ((2, 3, 5, 4), 3), ((1, 2, 3, 3), 3)]:
        x = rng_.standard_normal(shape)
        with exercise(f"im2col_np(x of shape {shape}, k={k})"):
            got = f(x, k)
        expected = F.im2col(Variable(x), k).data
        check_true(
            np.shape(got) == expected.shape,
            f"im2col_np(x of shape {shape}, k={k}) has shape {np.shape(got)}, expected "
            f"{expected.shape} = (N, C*k*k, H_out*W_out), with H_out = H - k + 1 "
            "windows along an axis of length H",
        )
        n, ckk = expected.shape[:2]
        oh, ow = shape[2] - k + 1, shape[3] - k + 1
        swapped = expected.reshape(n, ckk, oh, ow).transpose(0, 1, 3, 2).reshape(n, ckk, -1)
        check_close_diagnosed(
            f"im2col_np(x of shape {shape}, k={k})",
            got,
            expected,
            {
                "the windows are in the wrong order: column i * W_out + j is window (i, j), with "
                "i the row (move along a row first)": swapped
            },
        )


def check_col2im(f: Callable[..., Any]) -> None:
    """Check notebook 11's ``col2im_np(col, x_shape, k)``: values, sums, adjointness."""
    import minitorch.ops as F
    from minitorch import Variable

    rng_ = np.random.default_rng(12)
    ones = np.ones((1, 4, 4))  # every column all ones: each pixel counts its windows
    with exercise(
        "col2im_np(ones, (1, 1, 3, 3), 2)",
        (
            "cannot reshape",
            "col2im is not a "
            "reshape: the windows overlap. Start from np.zeros(x_shape) and add each "
            "column into its window",
        ),
    ):
        got = f(ones, (1, 1, 3, 3), 2)
    counts = np.array([[[[1.0, 2, 1], [2, 4, 2], [1, 2, 1]]]])
    check_close_diagnosed(
        "col2im_np of all-ones columns",
        got,
        counts,
        {"overlapping windows must add up (+=), not overwrite (=)": np.ones((1, 1, 3, 3))},
        hint="each pixel should count the windows it belongs to (the centre is in all 4)",
    )
    for shape, k in [((2, 3, 5, 4), 3), ((1, 2, 4, 4), 2)]:
        x = rng_.standard_normal(shape)
        col = rng_.standard_normal(reference_im2col(x, k).shape)
        with exercise(f"col2im_np(col, {shape}, {k})"):
            got = f(col, shape, k)
        check_close(
            f"col2im_np(col, {shape}, {k})", got, F.col2im(Variable(col), shape[2:], k).data
        )
        # the adjoint identity <im2col(x), col> = <x, col2im(col)>: col2im is im2col's
        # backward
        check_close(
            "<im2col(x), col> - <x, col2im(col)>",
            np.sum(reference_im2col(x, k) * col) - np.sum(x * got),
            0.0,
            atol=1e-9,
        )


def maxpool_variants(x: np.ndarray, gy: np.ndarray) -> dict[str, np.ndarray]:
    """Typical wrong gradients of a 2x2 max-pool (notebook 11, exercise 6)."""
    swapped, no_stride = np.zeros_like(x), np.zeros_like(x)
    for index in np.ndindex(gy.shape):
        n, c, i, j = index
        a = int(np.argmax(x[n, c, 2 * i : 2 * i + 2, 2 * j : 2 * j + 2]))
        r, s = divmod(a, 2)
        swapped[n, c, 2 * i + s, 2 * j + r] = gy[index]
        no_stride[n, c, i + r, j + s] = gy[index]
    return {
        "the winners' rows and columns are swapped: divmod(a, 2) gives (row, column)": swapped,
        "window (i, j) starts at row 2*i and column 2*j of x: the winner is at "
        "(2*i + row, 2*j + column)": no_stride,
    }


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
