"""Checks for notebook 10's softmax and cross-entropy in NumPy: the values, the large
scores a stable softmax survives, and the usual mistakes named.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from checks import CheckFailed, check_close
from checks_build import check_close_diagnosed, exercise, require


def _non_finite_softmax(got: np.ndarray) -> str:
    """Why a softmax that did not overflow gives inf/nan: judged by its finite rows."""
    finite = np.all(np.isfinite(got), axis=1)
    if finite.any() and np.allclose(got[finite].sum(axis=1), 1.0):
        return (
            "softmax_np gives nan where a row's scores are far below the largest one: "
            "subtract each row's maximum (z.max(axis=1, keepdims=True)), not one for all"
        )
    return (
        "softmax_np gives inf/nan (a division by zero, not an overflow): each row should "
        "sum to 1: divide e by the sum of e over the row, e.sum(axis=1, keepdims=True)"
    )


def check_softmax_np(f: Callable[[np.ndarray], Any]) -> None:
    """Check notebook 10's ``softmax_np(z)``: rows that sum to 1, stable, right axis.

    The values first, on small scores (so a missing ``keepdims`` is named as such, not as
    an overflow), with the input compared afterwards (softmax must not change the scores
    it is given); then rows of large scores, one of them wide (0 to 1000), which only the
    shift by each row's *maximum* keeps finite.
    """
    require("softmax_np", f)
    small = np.array([[2.0, 1.0, 0.1], [0.0, 0.0, 0.0], [1.0, 3.0, 0.5]])
    given = small.copy()
    with exercise("softmax_np(z_test)"):
        got = np.asarray(f(given), dtype=np.float64)
    if not np.array_equal(given, small):
        raise CheckFailed(
            "softmax_np changed its input z in place (z -= ..., np.exp(z, out=z)): the caller's "
            "scores are gone; compute into new arrays, e = np.exp(z - m)"
        )
    if got.shape != small.shape:
        raise CheckFailed(f"softmax_np(z) should have z's shape {small.shape}, got {got.shape}")
    e = np.exp(small - small.max(axis=1, keepdims=True))
    right = e / e.sum(axis=1, keepdims=True)
    check_close_diagnosed("softmax_np", got, right, _softmax_mistakes(small, e, right))
    for z in ([[1000.0, 999.0, 998.1], [0.0, 0.0, 0.0]], [[0.0, 1000.0, 1.0]]):
        got = _large_scores(f, np.array(z))
        if got is None or not np.all(np.isfinite(got)):
            if len(z) == 1:  # the narrow rows passed: the shift is not each row's maximum
                raise CheckFailed(
                    "softmax_np is right for scores 1000, 999, 998.1 but not for 0, 1000, 1: "
                    "the shift must be each row's largest score, not its minimum or mean, so "
                    "that the largest exponent is exp(0) = 1"
                )
            if got is None:
                raise CheckFailed(
                    "softmax_np overflows for scores near 1000: subtract each row's maximum "
                    "first, z.max(axis=1, keepdims=True) (np.exp(1000) is inf)"
                )
            raise CheckFailed(_non_finite_softmax(got))
        check_close_diagnosed("softmax_np(scores near 1000)", got, _stable_softmax(np.array(z)))


def _large_scores(f: Callable[[np.ndarray], Any], z: np.ndarray) -> np.ndarray | None:
    """``f(z)``, or ``None`` if computing it overflowed."""
    with exercise("softmax_np(z_test)"):
        try:
            with np.errstate(over="raise"):  # an overflow, and only that, raises here
                return np.asarray(f(z.copy()), dtype=np.float64)
        except FloatingPointError:
            return None


def _stable_softmax(z: np.ndarray) -> np.ndarray:
    """The softmax of each row of ``z``, computed stably (the reference)."""
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _softmax_mistakes(
    small: np.ndarray, e: np.ndarray, right: np.ndarray
) -> list[tuple[str, np.ndarray]]:
    """Known wrong answers for the small scores, with what to say about each."""
    raw = np.exp(small)
    unkept = np.exp(small - small.max(axis=1))  # the maxima subtracted from the columns
    with np.errstate(divide="ignore", invalid="ignore"):  # z's row of zeros sums to 0
        by_scores = e / small.sum(axis=1, keepdims=True)
    mistakes = [
        (
            "keepdims=True: z.max(axis=1) has shape (N,), which is subtracted from the "
            "columns, not the rows; use z.max(axis=1, keepdims=True)",
            variant,
        )
        for variant in (unkept / unkept.sum(axis=1), unkept / unkept.sum(axis=1, keepdims=True))
    ]
    for top in (e, raw):  # with or without the shift by each row's maximum
        mistakes += [
            (
                "normalise each row separately: divide by e.sum(axis=1, keepdims=True), not "
                "the sum of everything",
                top / top.sum(),
            ),
            (
                "the sum runs over axis=0 (down the columns): each *row* is normalised, axis=1",
                top / top.sum(axis=0, keepdims=True),
            ),
            (
                "keepdims=True: e.sum(axis=1) has shape (N,), which divides the columns, not "
                "the rows",
                top / top.sum(axis=1),
            ),
        ]
    return mistakes + [
        (
            "each row should sum to 1: divide e by the sum of e over the row, "
            "e.sum(axis=1, keepdims=True), not by the sum of the scores z",
            by_scores,
        ),
        (
            "divide e by e.sum(axis=1, keepdims=True): np.exp(z) without the shift is on "
            "another scale (and overflows near 1000); subtract each row's maximum in both",
            e / raw.sum(axis=1, keepdims=True),
        ),
        ("divide by each row's sum: the probabilities must add up to 1", e),
        ("that is log-softmax: softmax is its exponential", np.log(right)),
        (
            "the sign: softmax is exp(z - max) / sum, not exp(max - z)",
            np.exp(-small) / np.exp(-small).sum(axis=1, keepdims=True),
        ),
    ]


def check_cross_entropy_np(f: Callable[..., Any]) -> None:
    """Check notebook 10's ``cross_entropy_np(z, t)``: the mean of -log p[label], stable."""
    require("cross_entropy_np", f)
    z = np.array([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]])
    t = np.array([0, 2])
    given = z.copy()
    with exercise("cross_entropy_np(z_test, [0, 2])"):
        got = f(given, t.copy())
    if not np.array_equal(given, z):
        raise CheckFailed(
            "cross_entropy_np changed its input z in place (z -= ...): the caller's scores "
            "are gone; compute into a new array, m = z.max(axis=1, keepdims=True); s = z - m"
        )
    m = z.max(axis=1, keepdims=True)
    log_p = z - m - np.log(np.exp(z - m).sum(axis=1, keepdims=True))
    per_row = -log_p[np.arange(2), t]
    check_close_diagnosed(
        "cross_entropy_np",
        got,
        per_row.mean(),
        [
            ("that is the sum over the rows: take the mean", per_row.sum()),
            ("the sign: the loss is -log p, a positive number", -per_row.mean()),
            (
                "pick each row's label, log_p[np.arange(N), t]: you averaged over every class",
                -log_p.mean(),
            ),
            (
                "log_p[:, t] picks column t[j] of every row, for every j: index rows and "
                "columns together, log_p[np.arange(N), t]",
                -log_p[:, t].mean(),
            ),
            ("use the natural log, np.log", per_row.mean() / np.log(2)),
            (
                "use each row's label t: you picked column 0 of every row",
                -log_p[:, 0].mean(),
            ),
            (
                "subtract the same maximum inside the log-sum-exp: log p = z - m - "
                "log(sum(exp(z - m)))",
                (per_row + m[:, 0]).mean(),
            ),
            ("that is -p[label], not -log p[label]", -np.exp(log_p[np.arange(2), t]).mean()),
        ],
        hint="average -log p[label] over the rows",
    )
    with exercise("cross_entropy_np on large scores"):
        big = f(np.array([[1000.0, 0.0]]), np.array([1]))
    check_close(
        "cross_entropy_np([[1000, 0]], [1])",
        big,
        1000.0,
        hint="subtract the row maximum and use the log-sum-exp form: p_t underflows to 0 "
        "here, and log(0) is -inf",
    )
