"""Op table for minitorch/ops/activation.py: sigmoid, relu, leaky_relu, softplus, clip,
maximum, minimum, softmax, log_softmax."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from op_harness import OpCase, OpTableTests

import minitorch.ops as F
from minitorch import Variable


def _np_sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _np_softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _torch(name, **kwargs):
    def fn(*xs):
        import torch

        return getattr(torch.nn.functional, name)(*xs, **kwargs)

    return fn


def _elementwise(name, fn, ref, torch_fn):
    return [
        OpCase(f"{name}(3,4)", fn, ref, ((3, 4),), torch_fn=torch_fn),
        OpCase(f"{name}()", fn, ref, ((),), torch_fn=torch_fn),
    ]


def _binary(name, fn, ref, torch_name):
    def torch_fn(x0, x1):
        import torch

        return getattr(torch, torch_name)(x0, x1)

    shapes = [((3, 4), (3, 4)), ((3, 1), (4,)), ((), (2, 3))]
    return [OpCase(f"{name}{a}{b}", fn, ref, (a, b), torch_fn=torch_fn) for a, b in shapes]


CASES = [
    *_elementwise("sigmoid", F.sigmoid, _np_sigmoid, lambda x: x.sigmoid()),
    *_elementwise("relu", F.relu, lambda x: np.maximum(x, 0), _torch("relu")),
    *_elementwise(
        "leaky_relu",
        lambda x: F.leaky_relu(x, 0.1),
        lambda x: np.where(x > 0, x, 0.1 * x),
        _torch("leaky_relu", negative_slope=0.1),
    ),
    *_elementwise("softplus", F.softplus, lambda x: np.log1p(np.exp(x)), _torch("softplus")),
    *_elementwise(
        "clip",
        lambda x: F.clip(x, -0.5, 1.0),
        lambda x: np.clip(x, -0.5, 1.0),
        lambda x: x.clamp(-0.5, 1.0),
    ),
    OpCase(
        "clip_upper_only",
        lambda x: F.clip(x, None, 0.3),
        lambda x: np.minimum(x, 0.3),
        ((3, 4),),
        torch_fn=lambda x: x.clamp(max=0.3),
    ),
    *_binary("maximum", F.maximum, np.maximum, "maximum"),
    *_binary("minimum", F.minimum, np.minimum, "minimum"),
    OpCase("softmax", F.softmax, _np_softmax, ((3, 4),), torch_fn=_torch("softmax", dim=-1)),
    OpCase(
        "softmax_axis0",
        lambda x: F.softmax(x, axis=0),
        lambda x: _np_softmax(x, axis=0),
        ((3, 4, 2),),
        torch_fn=_torch("softmax", dim=0),
    ),
    OpCase(
        "log_softmax",
        F.log_softmax,
        lambda x: np.log(_np_softmax(x)),
        ((3, 4),),
        torch_fn=_torch("log_softmax", dim=-1),
    ),
    OpCase(
        "log_softmax_axis1",
        lambda x: F.log_softmax(x, axis=1),
        lambda x: np.log(_np_softmax(x, axis=1)),
        ((2, 3, 4),),
        torch_fn=_torch("log_softmax", dim=1),
    ),
]


class TestActivationTable(OpTableTests):
    cases = CASES


def test_sigmoid_is_stable_at_plus_minus_1000_without_warnings():
    x = Variable(np.array([-1000.0, -40.0, 0.0, 40.0, 1000.0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(over="raise", invalid="raise", divide="raise"):
            y = F.sigmoid(x)
            y.sum().backward()
    assert y.data[0] == 0.0 and y.data[-1] == 1.0 and y.data[2] == 0.5
    # full relative precision in the tail: 1 / (1 + e^40)
    np.testing.assert_allclose(y.data[1], 1.0 / (1.0 + np.exp(40.0)), rtol=1e-14)
    assert np.all(np.isfinite(x.grad.data))
    assert x.grad.data[0] == 0.0 and x.grad.data[2] == 0.25


def test_sigmoid_float32_is_stable():
    x = Variable(np.array([-1000.0, 1000.0], dtype=np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = F.sigmoid(x)
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y.data, [0.0, 1.0])


def test_relu_grad_at_zero_is_zero():
    x = Variable(np.array([-1.0, 0.0, 1.0]))
    F.relu(x).sum().backward()
    np.testing.assert_array_equal(x.grad.data, [0.0, 0.0, 1.0])


def test_leaky_relu_grad_at_zero_is_the_slope():
    x = Variable(np.array([-1.0, 0.0, 1.0]))
    F.leaky_relu(x, 0.2).sum().backward()
    np.testing.assert_allclose(x.grad.data, [0.2, 0.2, 1.0])


def test_clip_gradient_includes_the_bounds():
    x = Variable(np.array([-1.0, 0.0, 0.5, 1.0, 2.0]))
    F.clip(x, 0.0, 1.0).sum().backward()
    np.testing.assert_array_equal(x.grad.data, [0.0, 1.0, 1.0, 1.0, 0.0])


def test_clip_rejects_bad_bounds():
    with pytest.raises(ValueError, match="clip: x_min=2.0 is greater than x_max=1.0"):
        F.clip(Variable(np.zeros(2)), 2.0, 1.0)
    with pytest.raises(ValueError, match="clip: give at least one"):
        F.clip(Variable(np.zeros(2)), None, None)


@pytest.mark.parametrize("op", [F.maximum, F.minimum])
def test_maximum_minimum_ties_split_one_unit_of_gradient(op):
    x0 = Variable(np.array([1.0, 2.0, 3.0]))
    x1 = Variable(np.array([1.0, 0.0, 5.0]))
    op(x0, x1).sum().backward()
    np.testing.assert_array_equal(x0.grad.data + x1.grad.data, [1.0, 1.0, 1.0])
    assert x0.grad.data[0] == 0.5 and x1.grad.data[0] == 0.5


def test_maximum_ties_match_torch():
    torch = pytest.importorskip("torch")
    a, b = np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 3.0])
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    torch.maximum(ta, tb).sum().backward()
    x0, x1 = Variable(a.copy()), Variable(b.copy())
    F.maximum(x0, x1).sum().backward()
    np.testing.assert_array_equal(x0.grad.data, ta.grad.numpy())
    np.testing.assert_array_equal(x1.grad.data, tb.grad.numpy())


def test_maximum_tie_with_a_broadcast_scalar_accumulates_halves():
    x = Variable(np.array(1.0))
    F.maximum(x, np.array([1.0, 1.0, 0.0])).backward()
    assert x.grad.data == 0.5 + 0.5 + 1.0


def test_softmax_and_log_softmax_with_logits_of_plus_minus_1000():
    logits = np.array([[1000.0, -1000.0, 1000.0], [-1000.0, -1000.0, -1000.0]])
    x = Variable(logits.copy())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = F.softmax(x)
        log_p = F.log_softmax(x)
    np.testing.assert_allclose(p.data, [[0.5, 0.0, 0.5], [1 / 3, 1 / 3, 1 / 3]], rtol=1e-15)
    np.testing.assert_allclose(
        log_p.data, [[-np.log(2), -2000 - np.log(2), -np.log(2)], [-np.log(3)] * 3], rtol=1e-15
    )
    weights = np.array([[1.0, 2.0, 3.0], [0.0, 1.0, -1.0]])
    (log_p * weights).sum().backward()
    # d/dx sum(w * log_softmax(x)) = w - softmax(x) * sum(w)
    expected = weights - p.data * weights.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(x.grad.data, expected, rtol=1e-12, atol=1e-15)


def test_softmax_rows_sum_to_one_for_any_axis(rng):
    x = rng.standard_normal((2, 3, 4)) * 50
    for axis in (0, 1, -1, (1, 2)):
        p = F.softmax(Variable(x), axis=axis)
        np.testing.assert_allclose(p.data.sum(axis=axis), 1.0, rtol=1e-12)


# Regression, found in review: axis -1 on a 0-d array raised; PyTorch gives 1 (and 0 for
# log_softmax).
@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax])
def test_softmax_of_a_0d_array_matches_torch(fn):
    torch = pytest.importorskip("torch")
    x = Variable(np.array(3.0))
    y = fn(x)  # the default axis=-1 raised ValueError for 0-d input
    tx = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
    ty = getattr(torch, fn.__name__)(tx, -1)
    np.testing.assert_allclose(y.data, ty.item())
    y.backward()
    ty.backward()
    np.testing.assert_allclose(x.grad.data, tx.grad.item())


# Regression (commit f9ce3c8): np.max raised on empty input.
@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax])
@pytest.mark.parametrize(("shape", "axis"), [((3, 0), -1), ((0, 3), 0), ((0,), 0)])
def test_softmax_of_an_empty_array_is_empty(fn, shape, axis):
    x = Variable(np.zeros(shape, np.float32))
    y = fn(x, axis)
    assert y.shape == shape and y.dtype == np.float32
    y.backward()
    assert x.grad.shape == shape


# --- clip with bounds that are Variables: each bound gets the gradient where it is the
# output, as torch.clamp(x, min=tensor, max=tensor) gives it.


def _torch_clamp_grads(x, lo, hi):
    """x.grad, lo.grad, hi.grad of torch.clamp(x, lo, hi).sum() in float64 (None: no bound)."""
    torch = pytest.importorskip("torch")
    tensors = [
        None if a is None else torch.tensor(a, dtype=torch.float64, requires_grad=True)
        for a in (x, lo, hi)
    ]
    torch.clamp(*tensors).sum().backward()
    return [None if t is None else t.grad.numpy() for t in tensors]


def _clip_grads(x, lo, hi):
    xs = [None if a is None else Variable(np.array(a, dtype=np.float64)) for a in (x, lo, hi)]
    F.clip(*xs).sum().backward()
    return [None if v is None else v.grad.data for v in xs]


_NAN = float("nan")
# Every combination of below / at / inside / above / NaN for x against two bounds.
_CLIP_ROWS = [
    (x, lo, hi)
    for x in (-1.0, 0.0, 0.5, 1.0, 2.0, _NAN)
    for lo in (0.0, _NAN)
    for hi in (0.0, 1.0, _NAN)
]


@pytest.mark.parametrize("which", ["both", "min", "max"])
def test_clip_variable_bounds_get_the_gradient_torch_gives(which):
    x = np.array([r[0] for r in _CLIP_ROWS])
    lo = np.array([r[1] for r in _CLIP_ROWS]) if which != "max" else None
    hi = np.array([r[2] for r in _CLIP_ROWS]) if which != "min" else None
    expected = _torch_clamp_grads(x, lo, hi)
    got = _clip_grads(x, lo, hi)
    for name, g, e in zip(("x", "x_min", "x_max"), got, expected):
        if e is not None:
            np.testing.assert_array_equal(g, e, err_msg=name)


def test_clip_tie_with_a_bound_goes_to_x():
    x, lo, hi = Variable(np.array([0.0, 1.0])), Variable(np.zeros(2)), Variable(np.ones(2))
    F.clip(x, lo, hi).sum().backward()
    np.testing.assert_array_equal(x.grad.data, [1.0, 1.0])
    np.testing.assert_array_equal(lo.grad.data, [0.0, 0.0])
    np.testing.assert_array_equal(hi.grad.data, [0.0, 0.0])


def test_clip_the_trial_example_gives_the_bound_a_gradient():
    x = Variable(np.array([-2.0, 0.5, 3.0]))
    lo = Variable(np.array(0.0))
    F.clip(x, lo, 1.0).sum().backward()
    assert lo.grad is not None  # was None: the bound was copied out of the graph
    assert lo.grad.data == 1.0  # only x = -2 is below it
    np.testing.assert_array_equal(x.grad.data, [0.0, 1.0, 0.0])


def test_clip_broadcast_bounds_sum_their_gradient():
    rng = np.random.default_rng(0)
    x = Variable(rng.uniform(-2, 2, (4, 3)))
    lo = Variable(np.array([-0.5, 0.0, 0.5]))  # one bound per column
    hi = Variable(np.array([[1.0], [0.8], [1.5], [0.9]]))  # one per row
    F.clip(x, lo, hi).sum().backward()
    np.testing.assert_array_equal(lo.grad.data, (x.data < lo.data).sum(axis=0))
    np.testing.assert_array_equal(hi.grad.data, (x.data > hi.data).sum(axis=1, keepdims=True))
    xt, lot, hit = _torch_clamp_grads(x.data, lo.data, hi.data)
    np.testing.assert_array_equal(x.grad.data, xt)
    np.testing.assert_array_equal(lo.grad.data, lot)
    np.testing.assert_array_equal(hi.grad.data, hit)


def test_clip_with_only_the_bound_a_variable():
    """x an ndarray (a constant): backward reaches the bound, not 'only constants'."""
    lo = Variable(np.array([0.0, 0.0, 0.0]))
    y = F.clip(np.array([-1.0, 0.5, 2.0]), lo, 1.0)
    y.sum().backward()
    np.testing.assert_array_equal(lo.grad.data, [1.0, 0.0, 0.0])


def test_clip_bounds_gradcheck():
    from minitorch.gradcheck import gradcheck, gradgradcheck

    rng = np.random.default_rng(1)
    x = rng.uniform(-2, 2, (3, 4))
    lo = rng.uniform(-1.0, -0.2, (4,))
    hi = rng.uniform(0.2, 1.0, (3, 1))
    assert gradcheck(F.clip, x, lo, hi)
    assert gradcheck(lambda b: F.clip(x, b, None), lo)
    assert gradcheck(lambda b: F.clip(x, None, b), hi)
    # second order through the masks (0 a.e.) and a product that makes it non-zero
    assert gradgradcheck(lambda a, b, c: F.clip(a, b, c) * a, x, lo, hi)


def test_clip_variable_bound_under_create_graph():
    x = Variable(np.array([-2.0, 0.5, 3.0]))
    lo = Variable(np.array(0.5))
    y = (F.clip(x, lo, None) * lo).sum()  # d/dlo = (#below) * lo + sum(clip) = 0.5 + 4
    y.backward(create_graph=True)
    assert lo.grad.data == pytest.approx(1 * 0.5 + (0.5 + 0.5 + 3.0))
    (glo,) = [lo.grad]
    lo.clear_grad()
    glo.backward()  # d/dlo of the gradient: 2 * (#below) = 2
    assert lo.grad.data == pytest.approx(2.0)


def test_clip_forward_mode_tangent_of_a_bound():
    from minitorch.func import jvp

    x = np.array([-2.0, 0.5, 3.0])
    _, t = jvp(lambda b: F.clip(x, b, 1.0), (np.array(0.0),), (np.array(1.0),))
    np.testing.assert_array_equal(t.data if isinstance(t, Variable) else t, [1.0, 0.0, 0.0])


def test_clip_variable_bounds_are_checked_for_order():
    with pytest.raises(ValueError, match="clip: x_min=.* is greater than x_max"):
        F.clip(Variable(np.zeros(2)), Variable(np.array(2.0)), Variable(np.array(1.0)))


# --- gradients at NaN inputs, as PyTorch


def test_relu_passes_the_gradient_at_nan_as_torch():
    x = np.array([np.nan, 0.0, 1.0, -1.0])
    v = Variable(x.copy())
    F.relu(v).sum().backward()
    np.testing.assert_array_equal(v.grad.data, [1.0, 0.0, 1.0, 0.0])  # was 0 at NaN
    torch = pytest.importorskip("torch")
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    torch.relu(t).sum().backward()
    np.testing.assert_array_equal(v.grad.data, t.grad.numpy())


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum_at_nan_and_ties_as_torch(name):
    nan = np.nan
    a = np.array([nan, 1.0, 2.0, nan, 3.0, 1.0])
    b = np.array([0.0, nan, 2.0, nan, 1.0, 3.0])
    va, vb = Variable(a.copy()), Variable(b.copy())
    getattr(F, name)(va, vb).sum().backward()
    # NaN anywhere: both operands receive gy (neither lost a comparison); ties: halves.
    np.testing.assert_array_equal(va.grad.data[:4], [1.0, 1.0, 0.5, 1.0])
    np.testing.assert_array_equal(vb.grad.data[:4], [1.0, 1.0, 0.5, 1.0])
    torch = pytest.importorskip("torch")
    ta, tb = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (a, b))
    getattr(torch, name)(ta, tb).sum().backward()
    np.testing.assert_array_equal(va.grad.data, ta.grad.numpy())
    np.testing.assert_array_equal(vb.grad.data, tb.grad.numpy())


def test_maximum_nan_forward_tangent_matches_the_gradient():
    from minitorch.func import jvp

    a, b = np.array([np.nan, 1.0]), np.array([0.0, 2.0])
    _, t = jvp(F.maximum, (a, b), (np.ones(2), np.zeros(2)))
    np.testing.assert_array_equal(t.data if isinstance(t, Variable) else t, [1.0, 0.0])


# --- leaky_relu's slope must be a real number


@pytest.mark.parametrize("slope", ["0.1", True, np.array(0.2), Variable(np.array(0.2)), None])
def test_leaky_relu_refuses_a_slope_that_is_no_real_number(slope):
    with pytest.raises(TypeError, match="leaky_relu: negative_slope must be a real number"):
        F.leaky_relu(Variable(np.array([-1.0, 1.0])), slope)


def test_leaky_relu_variable_slope_names_the_learnable_alternative():
    with pytest.raises(TypeError, match=r"F\.where\(x\.data > 0, x, slope \* x\)"):
        F.leaky_relu(Variable(np.array([-1.0, 1.0])), Variable(np.array(0.2)))


@pytest.mark.parametrize("slope", [0, 1, 0.2, np.float32(0.2), np.int64(1)])
def test_leaky_relu_accepts_python_and_numpy_numbers(slope):
    y = F.leaky_relu(Variable(np.array([-1.0, 1.0])), slope)
    np.testing.assert_allclose(y.data, [-float(slope), 1.0], rtol=1e-7)
