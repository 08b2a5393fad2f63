"""jacfwd computes one column while the function runs and replays the ops for the others.

Each test here is a case a trial found where that split gave a wrong answer or an error
that named the wrong thing: values edited in place after use, ``unchain()`` on the
transform's own input, a Function written only as a ``vjp``, and the messages of
forward-mode rules at points where a derivative does not exist.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch.func as mf
import minitorch.ops as F
from minitorch import Function, Variable

X = np.array([0.5, -1.2, 2.0])


def test_a_closed_over_leaf_edited_after_use_is_refused_by_jacfwd_as_by_jacrev() -> None:
    buf = Variable(np.array([1.0, 2.0, 3.0]))

    def f(a):
        y = a * buf
        buf.data[...] += 10.0  # a buffer updated after it was used
        return y

    for transform in (mf.jacfwd, mf.jacrev):
        buf.data[...] = [1.0, 2.0, 3.0]
        with pytest.raises(RuntimeError, match="input 1 of Mul .* was modified"):
            transform(f)(X)


def test_an_input_edited_after_use_is_refused_by_jacfwd() -> None:
    def f(a):
        y = a * a
        a.data[...] = 0.0
        return y

    with pytest.raises(RuntimeError, match=r"jacfwd: input 0 of Mul .* shape \(3,\).*copy"):
        mf.jacfwd(f)(X.copy())


def test_an_output_edited_before_its_next_use_is_refused_by_jacfwd() -> None:
    def f(a):
        y = F.exp(a)  # exp's tangent rule reads its output y
        y.data[...] += 1.0
        return y * 2.0

    with pytest.raises(RuntimeError, match="jacfwd: output 0 of Exp .* was modified"):
        mf.jacfwd(f)(X)


def test_an_edit_before_first_use_is_not_refused() -> None:
    buf = Variable(np.array([1.0, 2.0, 3.0]))

    def f(a):
        buf.data[...] = [4.0, 5.0, 6.0]  # before any op reads it: nothing to replay wrongly
        return a * buf

    np.testing.assert_array_equal(mf.jacfwd(f)(X).data, np.diag([4.0, 5.0, 6.0]))


def test_edits_no_replayed_rule_reads_are_not_refused() -> None:
    # a leaf edited before its first use by an op a tangent reaches, and a leaf read only
    # where no tangent flows
    p = Variable(np.array([1.0, 2.0, 3.0]), name="p")

    def edited_before_use(a):
        p.data[...] = [4.0, 5.0, 6.0]
        return a * p

    def side_computation(a):
        F.sum(p * p)  # no tangent reaches this op
        p.data -= 0.1 * p.data
        return a * 2.0

    for f in (edited_before_use, side_computation):
        p.data[...] = [1.0, 2.0, 3.0]
        forward = mf.jacfwd(f)(X.copy()).data
        p.data[...] = [1.0, 2.0, 3.0]
        np.testing.assert_allclose(forward, mf.jacrev(f)(X.copy()).data)


def test_a_result_edited_after_it_was_made_is_refused() -> None:
    # Div's tangent rule reads its output y (its backward does not save it): replaying it
    # on an edited y would be wrong, so any op's result edited after it was made is
    # refused (jacfwd cannot tell which rules read theirs; Mul's would not)
    def divided(a):
        y = 1.0 / a
        y.data[...] += 1.0
        return y

    def multiplied(a):
        y = a * 2.0
        y.data[...] += 1.0
        return y * y

    for f, op in ((divided, "Div"), (multiplied, "Mul")):
        with pytest.raises(RuntimeError, match=f"jacfwd: output 0 of {op} .* was modified"):
            mf.jacfwd(f)(X.copy())


def test_a_large_value_edited_after_use_is_refused_too() -> None:
    # above 64 kB the stamp is the fingerprint, not the bytes
    x = np.linspace(0.1, 1.0, 3)
    big = Variable(np.ones((3, 5000)))

    def f(a):
        y = F.sum(F.reshape(a, (3, 1)) * big, axis=1)
        big.data[1, 7] = 2.0
        return y

    with pytest.raises(RuntimeError, match="jacfwd: input 1 of Mul"):
        mf.jacfwd(f)(x)


def test_unchain_on_the_transforms_own_input_changes_nothing_in_either_mode() -> None:
    # reverse mode has no creator to cut there; forward mode now agrees (it dropped the seed)
    def f(a):
        a.unchain()
        return a * a

    for transform in (mf.jacfwd, mf.jacrev):
        np.testing.assert_allclose(transform(f)(X).data, np.diag(2 * X))
    _, tangent = mf.jvp(f, (X,), (np.ones(3),))
    np.testing.assert_allclose(tangent.data, 2 * X)


def test_unchain_on_an_intermediate_still_cuts_in_forward_mode() -> None:
    def f(a):
        h = a * 3.0
        h.unchain()
        return h * a

    for transform in (mf.jacfwd, mf.jacrev):
        np.testing.assert_allclose(transform(f)(X).data, np.diag(3 * X))


class LogCoshOnce(Function):
    """Written as the docs teach: a forward and a vjp, no tangent rule."""

    def forward(self, x):
        ax = np.abs(x)
        return ax + np.log1p(np.exp(-2.0 * ax)) - np.log(2.0)

    def vjp(self, xp, xs, y, gy):
        (x,) = xs
        return gy * xp.tanh(x)


def test_jacfwd_of_a_function_written_only_as_a_vjp() -> None:
    # the double-vjp fallback used to leave a short-lived output in the op's slot, so
    # jacfwd's second column raised "the output Variable no longer exists"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # "no tangent rule": said once
        for f in (lambda a: LogCoshOnce()(a), lambda a: LogCoshOnce()(a) * 2.0):
            np.testing.assert_allclose(mf.jacfwd(f)(X).data, mf.jacrev(f)(X).data, atol=1e-15)
        np.testing.assert_allclose(
            mf.jacfwd(lambda a: LogCoshOnce()(a))(X).data, np.diag(np.tanh(X))
        )


def test_forward_mode_eigh_at_a_repeated_eigenvalue_names_the_direction() -> None:
    m = np.diag([1.0, 1.0, 2.0])
    # reverse mode: the sum of the eigenvalues is smooth
    np.testing.assert_allclose(mf.grad(lambda a: F.sum(F.eigh(a)[0]))(m).data, np.eye(3))
    # a tangent that keeps the eigenspace: fine
    _, (tw, _) = mf.jvp(F.eigh, (m,), (np.eye(3),))
    np.testing.assert_allclose(tw.data, [1.0, 1.0, 1.0])
    # one that mixes it: the values split too, and the message says so (not "vectors")
    with pytest.raises(
        ValueError, match=r"eigh: repeated values \[1.0\], and the tangent direction mixes"
    ) as info:
        mf.jacfwd(lambda a: F.sum(F.eigh(a)[0]))(m)
    assert "reverse mode (grad, jacrev)" in str(info.value)


def test_vjp_fn_names_both_structures() -> None:
    _, vjp_fn = mf.vjp(lambda a: {"s": a * 2.0, "t": a * 3.0}, X)
    with pytest.raises(
        ValueError, match=r"got \{'t': \*, 's': \*\}, expected \{'s': \*, 't': \*\}.*order counts"
    ):
        vjp_fn({"t": np.ones(3), "s": np.ones(3)})
    with pytest.raises(ValueError, match=r"got \(\*,\), expected \(\*, \*\)"):
        mf.jvp(lambda a, b: a * b, (X, X), (X,))
