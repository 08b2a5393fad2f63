"""Checks for notebook 11's recurrent half: gradient clipping, one RNN step and one LSTM
step (any gate order or activation), with the LSTM reference and its typical wrong
variants.

The references are answers (later cells use them as stand-ins where yours fails):
reading them first spoils those exercises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from checks import CheckFailed, check_close
from checks_build import check_close_diagnosed, exercise, require


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
