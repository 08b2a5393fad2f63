"""The "build it yourself" exercises of notebooks 07-11 and 13: their checks and pictures.

Three kinds of test:

* **typical mistakes** — a wrong answer a student would write is fed to the notebook's
  check helper, and the message must name the mistake (not merely fail);
* **pictures** — the helpers that draw them keep text readable and colour scales honest;
* **independence** — a cell that does not parse fails only its own check, and the
  capstone's success line says how many pieces were the student's. The notebooks run
  in-process here (one pass per notebook, with a snapshot of the namespace before each
  exercise), which is much cheaper than a kernel per exercise. That every exercise says
  "not done yet" untouched and passes solved alone is played for every notebook, in a
  kernel in the student copy, by ``test_exercises_graded_alone.py``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
sys.path.insert(0, str(NOTEBOOKS))

import matplotlib  # noqa: E402

matplotlib.use("Agg")

import checks_build as cb  # noqa: E402
import checks_nb08 as cb08  # noqa: E402
import checks_nb09 as cb09  # noqa: E402
import checks_nb10 as cb10  # noqa: E402
import checks_nb11 as cb11  # noqa: E402
import checks_nb13 as cb13  # noqa: E402
import checks_nb13_reference as cb13r  # noqa: E402
import inprocess  # noqa: E402
import pictures  # noqa: E402

import minitorch.ops as F  # noqa: E402
from minitorch import Function, Parameter, Variable, optim  # noqa: E402

# Injected wrong answers overflow and divide by zero in NumPy: the student's warnings.
pytestmark = pytest.mark.filterwarnings("ignore:.*encountered in:RuntimeWarning")


def fails_with(fragment: str, call: Any, *args: Any, exc: type = AssertionError) -> str:
    with pytest.raises(exc) as info:
        call(*args)
    message = str(info.value)
    assert fragment in message, message
    return message


# -- shared helpers ----------------------------------------------------------------------
def test_exercise_says_not_done_for_an_untouched_stub() -> None:
    def stub() -> None:
        raise NotImplementedError()

    with pytest.raises(NotImplementedError, match="not done yet"):
        with cb.exercise("f(x)"):
            stub()


def test_exercise_turns_a_missing_answer_name_into_not_done() -> None:
    with pytest.raises(NotImplementedError, match="not done yet.*'trained' is not defined"):
        with cb.exercise("Exercise 3"):
            exec("trained", {})  # noqa: S102 - a NameError raised in the check cell itself


@pytest.mark.parametrize(
    ("mistake", "fragment"),
    [
        (lambda x: x <= 0.5, "this is a Variable: compare its values"),
        (lambda x: np.exp(x), "this is a Variable: NumPy functions need arrays"),
        (lambda x: np.ones(3).creator, "this is an ndarray, not a Variable"),
    ],
)
def test_variable_ndarray_confusion_becomes_one_line(mistake: Any, fragment: str) -> None:
    x = Variable(np.ones(3))
    with pytest.raises(AssertionError) as info:
        with cb.exercise("your code"):
            mistake(x)
    assert fragment in str(info.value)


def test_yours_or_reference_falls_back_and_says_so(capsys: pytest.CaptureFixture) -> None:
    def stub(*_: Any) -> None:
        raise NotImplementedError()

    chosen = cb.yours_or_reference("thing", stub, abs, lambda f: f(1))
    assert chosen is abs
    assert "using the reference thing for now (yours: not done yet)" in capsys.readouterr().out


# -- 07 ----------------------------------------------------------------------------------
def test_07_add_bias_backward_on_ndarrays_is_caught() -> None:
    class AddBias(Function):
        def forward(self, x: np.ndarray, b: np.ndarray) -> np.ndarray:
            return x + b

        def backward(self, gy: Any) -> Any:
            return gy.data, gy.data.sum(axis=0)  # right numbers, but ndarrays

    fails_with(
        "this is an ndarray",
        cb.check_returns_variables,
        "AddBias",
        AddBias,
        np.ones((2, 3)),
        np.ones(3),
    )


def test_07_square_w_mistake_is_named() -> None:
    rng = np.random.default_rng(0)
    W, gy = rng.standard_normal((3, 3)), np.ones((2, 3))
    fails_with(
        "for a square W the shapes also fit gy @ W",
        cb.check_close_diagnosed,
        "x.grad",
        gy @ W,
        gy @ W.T,
        {"for a square W the shapes also fit gy @ W": gy @ W},
    )


def test_07_prose_no_longer_claims_a_unique_product() -> None:
    text = (NOTEBOOKS / "src" / "07_tensors.py").read_text()
    assert "only one way to multiply" not in text
    assert "the only products with the" not in text


# -- 08 ----------------------------------------------------------------------------------
class _LogCosh(Function):
    sign = 1.0

    def forward(self, x: np.ndarray) -> np.ndarray:
        return np.log(np.cosh(x))

    def backward(self, gy: Any) -> Any:
        (x,) = self.inputs
        return gy * F.tanh(x) * self.sign


def test_08_a_sign_error_in_backward_is_named_with_the_values() -> None:
    class Buggy(_LogCosh):
        sign = -1.0

    message = fails_with(
        "the sign is flipped", cb08.check_backward, "LogCosh", Buggy, np.array([0.5, -1.2])
    )
    assert "finite differences give" in message  # the right value is the finite difference


def test_08_a_correct_function_passes() -> None:
    cb08.check_backward("LogCosh", _LogCosh, np.array([0.5, -1.2]))


class _Hypot(Function):
    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.hypot(a, b)

    def backward(self, gy: Any) -> Any:
        a, b = self.inputs
        y = F.sqrt(a * a + b * b)
        return self.grads(gy, a, b, y)

    def grads(self, gy: Any, a: Any, b: Any, y: Any) -> Any:
        return F.sum_to(gy * a / y, a.shape), F.sum_to(gy * b / y, b.shape)


_A, _B = np.array([[3.0, -1.0, 0.5], [1.0, 2.0, -2.0]]), np.array([[4.0, 1.0, -1.5]] * 2)


@pytest.mark.parametrize(
    ("grads", "fragment"),
    [
        (lambda gy, a, b, y: (gy * b / y, gy * a / y), "the gradients are swapped"),
        (lambda gy, a, b, y: (a / y, b / y), "gy is left out"),
        (lambda gy, a, b, y: (2 * gy * a / y, 2 * gy * b / y), "2 times the right gradient"),
        (lambda gy, a, b, y: (gy * a / (y - y), gy * b / y), "nan/inf"),
    ],
)
def test_08_the_kind_of_a_wrong_gradient_is_named(grads: Any, fragment: str) -> None:
    class Buggy(_Hypot):
        def grads(self, gy: Any, a: Any, b: Any, y: Any) -> Any:
            return grads(gy, a, b, y)

    cb08.check_backward("Hypot", _Hypot, _A, _B)
    fails_with(fragment, cb08.check_backward, "Hypot", Buggy, _A, _B)


def test_08_swapped_formulas_of_broadcast_inputs_are_not_told_to_swap_returns() -> None:
    # inputs of other shapes: the gradients cannot come back in the wrong order, so a
    # swap is of the formulas (a teacher's trial: "return g1, g0" then failed on shapes)
    class Swapped(_Hypot):
        def grads(self, gy: Any, a: Any, b: Any, y: Any) -> Any:
            return F.sum_to(gy * b / y, a.shape), F.sum_to(gy * a / y, b.shape)

    b = np.array([4.0, 1.0, -1.5])
    cb08.check_backward("Hypot", _Hypot, _A, b)
    message = fails_with("the gradients are swapped", cb08.check_backward, "Hypot", Swapped, _A, b)
    assert "order of the inputs" not in message
    assert "the formula for input 0 uses input 1" in message


def test_08_a_broadcast_gradient_not_reduced_names_sum_to() -> None:
    class Unreduced(_Hypot):
        def grads(self, gy: Any, a: Any, b: Any, y: Any) -> Any:
            return gy * a / y, gy * b / y

    fails_with("xp.sum_to(g, x.shape)", cb08.check_backward, "Hypot", Unreduced, _A, _B[0])


def test_08_explains_the_weighted_numbers_of_gradcheck() -> None:
    text = (NOTEBOOKS / "src" / "08_custom_functions_and_gradcheck.py").read_text()
    assert "w_i f'(x_i)" in text


# -- 09 ----------------------------------------------------------------------------------
def test_09_diverging_loss_names_zero_grad() -> None:
    assert "zero_grad" in cb09.diagnose_history([0.7, 0.4, 0.3, 2.0, 800.0])
    assert "zero_grad" in cb09.diagnose_history([0.7, 0.5, 0.4, 0.3, 0.25, 0.2, 3.0, np.nan])
    # nan at once: each step overshoots (the learning rate), not stale gradients
    assert "without ever falling: " in cb09.diagnose_history([0.7, float("nan")])
    assert "almost at once: " in cb09.diagnose_history([0.7, 0.4, float("nan")])
    assert cb09.diagnose_history([0.7, 0.4, 0.2, 0.08]) == ""


class _GoodModule:
    def __init__(self) -> None:
        object.__setattr__(self, "_params", {})
        object.__setattr__(self, "_modules", {})

    def __setattr__(self, name: str, value: Any) -> None:
        self._params.pop(name, None)
        self._modules.pop(name, None)
        if isinstance(value, Parameter):
            self._params[name] = value
        elif isinstance(value, _GoodModule):
            self._modules[name] = value
        object.__setattr__(self, name, value)

    def parameters(self) -> Iterator[Any]:
        yield from self._params.values()
        for m in self._modules.values():
            yield from m.parameters()


def test_09_registration_accepts_a_good_module() -> None:
    cb09.check_registration(_GoodModule, Parameter)


def test_09_registration_everything_registered() -> None:
    class Everything(_GoodModule):
        def __setattr__(self, name: str, value: Any) -> None:
            self._params[name] = value
            object.__setattr__(self, name, value)

    fails_with(
        "only the Parameters W and b should be registered",
        cb09.check_registration,
        Everything,
        Parameter,
    )


def test_09_registration_forgot_object_setattr() -> None:
    class Forgot(_GoodModule):
        def __setattr__(self, name: str, value: Any) -> None:
            if isinstance(value, Parameter):
                self._params[name] = value

    fails_with("object.__setattr__", cb09.check_registration, Forgot, Parameter)


def test_09_registration_no_submodules() -> None:
    class Flat(_GoodModule):
        def parameters(self) -> Iterator[Any]:
            yield from self._params.values()

    fails_with("the sub-modules are in self._modules", cb09.check_registration, Flat, Parameter)


def test_09_registration_list_instead_of_dict() -> None:
    class Listing(_GoodModule):
        def __init__(self) -> None:
            object.__setattr__(self, "_plist", [])
            object.__setattr__(self, "_modules", {})

        def __setattr__(self, name: str, value: Any) -> None:
            if isinstance(value, Parameter):
                self._plist.append(value)
            elif isinstance(value, _GoodModule):
                self._modules[name] = value
            object.__setattr__(self, name, value)

        def parameters(self) -> Iterator[Any]:
            yield from self._plist
            for m in self._modules.values():
                yield from m.parameters()

    fails_with(
        "key the registry by the attribute's name", cb09.check_registration, Listing, Parameter
    )


class _Loader:
    def __init__(
        self,
        x: Any,
        t: Any,
        batch_size: int,
        shuffle: bool = True,
        drop_last: bool = False,
        seed: Any = None,
    ) -> None:
        self.x, self.t, self.b, self.shuffle, self.drop = x, t, batch_size, shuffle, drop_last
        self.rng = np.random.default_rng(seed)

    def __len__(self) -> int:
        n = len(self.x)
        return n // self.b if self.drop else -(-n // self.b)

    def order(self) -> np.ndarray:
        return self.rng.permutation(len(self.x)) if self.shuffle else np.arange(len(self.x))

    def __iter__(self) -> Iterator[Any]:
        order = self.order()
        for i in range(len(self)):
            idx = order[i * self.b : (i + 1) * self.b]
            yield self.x[idx], self.t[idx]


def test_09_loader_accepts_a_good_loader() -> None:
    cb09.check_loader(_Loader)


@pytest.mark.parametrize(
    ("override", "fragment"),
    [
        ({"__len__": lambda self: len(self.x) // self.b}, "batch sizes [4, 4, 2]"),
        ({"__len__": lambda self: -(-len(self.x) // self.b)}, "drop_last=True should drop"),
        (
            {
                "order": lambda self: (
                    np.random.default_rng(0).permutation(len(self.x))
                    if self.shuffle
                    else np.arange(len(self.x))
                )
            },
            "both epochs had the same order",
        ),
        (
            {
                "order": lambda self: (
                    self.rng.integers(0, len(self.x), len(self.x))
                    if self.shuffle
                    else np.arange(len(self.x))
                )
            },
            "exactly once (a permutation)",
        ),
        (
            {
                "order": lambda self: (
                    np.random.permutation(len(self.x)) if self.shuffle else np.arange(len(self.x))
                )
            },
            "same seed should give the same order",
        ),
    ],
)
def test_09_loader_mistakes_are_named(override: dict[str, Any], fragment: str) -> None:
    broken = type("Broken", (_Loader,), override)
    fails_with(fragment, cb09.check_loader, broken)


def test_09_loader_mixing_up_x_and_t_is_named() -> None:
    class Unaligned(_Loader):
        def __iter__(self) -> Iterator[Any]:
            order = self.order()
            for i in range(len(self)):
                idx = order[i * self.b : (i + 1) * self.b]
                yield self.x[idx], self.t[np.sort(idx)]

    fails_with("no longer belong together", cb09.check_loader, Unaligned)


# -- 10: optimizers ----------------------------------------------------------------------
class _SGD:
    forget = False

    def __init__(self, params: Any, lr: float, momentum: float = 0.9) -> None:
        self.params, self.lr, self.momentum = list(params), lr, momentum
        self.v = [np.zeros_like(p.data) for p in self.params]

    def zero_grad(self) -> None:
        for p in self.params:
            p.clear_grad()

    def step(self) -> None:
        for k, p in enumerate(self.params):
            if self.forget:
                self.v[k] = np.zeros_like(p.data)
            self.v[k] = self.momentum * self.v[k] + p.grad.data
            p.data -= self.lr * self.v[k]


def _check_sgd(cls: type) -> None:
    cb10.check_optimizer(
        "MySGD",
        lambda ps: cls(ps, lr=0.05, momentum=0.9),
        lambda ps: optim.SGD(ps, lr=0.05, momentum=0.9),
        cb10.sgd_variants(0.05, 0.9),
    )


def test_10_sgd_accepts_the_right_rule() -> None:
    _check_sgd(_SGD)


def test_10_sgd_velocity_not_kept_is_named() -> None:
    fails_with(
        "equal plain SGD: the velocity is not kept",
        _check_sgd,
        type("Forget", (_SGD,), {"forget": True}),
    )


def test_10_sgd_grad_variable_in_numpy_is_named() -> None:
    class UsesVariable(_SGD):
        def step(self) -> None:
            for p in self.params:
                p.data -= self.lr * p.grad  # a Variable in an in-place ndarray update

    fails_with("this is a Variable", _check_sgd, UsesVariable)


class _Adam:
    correct, t_start = True, 0

    def __init__(
        self, params: Any, lr: float = 0.001, betas: Any = (0.9, 0.999), eps: float = 1e-8
    ) -> None:
        self.params, self.lr, self.betas, self.eps = list(params), lr, betas, eps
        self.m = [np.zeros_like(p.data) for p in self.params]
        self.v = [np.zeros_like(p.data) for p in self.params]
        self.t = self.t_start

    def zero_grad(self) -> None:
        for p in self.params:
            p.clear_grad()

    def step(self) -> None:
        b1, b2 = self.betas
        self.t += 1
        for p, m, v in zip(self.params, self.m, self.v):
            g = p.grad.data
            m[...] = b1 * m + (1 - b1) * g
            v[...] = b2 * v + (1 - b2) * g * g
            if self.correct:
                mh, vh = m / (1 - b1**self.t), v / (1 - b2**self.t)
            else:
                mh, vh = m, v
            p.data -= self.lr * mh / (np.sqrt(vh) + self.eps)


def _check_adam(cls: type) -> None:
    cb10.check_optimizer(
        "MyAdam",
        lambda ps: cls(ps, lr=0.1),
        lambda ps: optim.Adam(ps, lr=0.1),
        cb10.adam_variants(0.1, (0.9, 0.999), 1e-8),
    )


def test_10_adam_accepts_the_right_rule() -> None:
    _check_adam(_Adam)


def test_10_adam_without_bias_correction_is_named() -> None:
    fails_with("no bias correction", _check_adam, type("NoCorr", (_Adam,), {"correct": False}))


def test_10_adam_step_count_from_zero_is_named() -> None:
    fails_with(
        "t should be 1 at the first step", _check_adam, type("Late", (_Adam,), {"t_start": 1})
    )


# -- 11: convolution pieces, LSTM, clipping ----------------------------------------------
def test_11_conv_output_size_true_division_is_caught() -> None:
    # (8 - 3) / 2 + 1 = 3.5: the case the old check lacked
    fails_with(
        "use floor division //",
        cb.check_close_diagnosed,
        "conv_output_size",
        3.5,
        3,
        {"a window fits only whole times: use floor division //": 3.5},
    )
    assert (8, 3, 2, 0) in cb11._SIZE_CASES


def test_11_im2col_reference_matches_minitorch() -> None:
    x = np.random.default_rng(0).standard_normal((2, 3, 5, 4))
    np.testing.assert_allclose(cb11.reference_im2col(x, 3), F.im2col(Variable(x), 3).data)
    cb11.check_im2col(cb11.reference_im2col)
    cb11.check_col2im(cb11.reference_col2im)


def test_11_im2col_window_order_mistake_is_named() -> None:
    def swapped(x: np.ndarray, k: int) -> np.ndarray:
        n, c, h, w = x.shape
        oh, ow = h - k + 1, w - k + 1
        col = np.zeros((n, c * k * k, oh * ow))
        for i in range(oh):
            for j in range(ow):
                col[:, :, j * oh + i] = x[:, :, i : i + k, j : j + k].reshape(n, -1)
        return col

    fails_with("the windows are in the wrong order", cb11.check_im2col, swapped)


def test_11_col2im_overwriting_is_named() -> None:
    def overwrite(col: np.ndarray, x_shape: Any, k: int) -> np.ndarray:
        n, c, h, w = x_shape
        oh, ow = h - k + 1, w - k + 1
        x = np.zeros(x_shape)
        for i in range(oh):
            for j in range(ow):
                x[:, :, i : i + k, j : j + k] = col[:, :, i * ow + j].reshape(n, c, k, k)
        return x

    fails_with("must add up (+=), not overwrite", cb11.check_col2im, overwrite)


def test_11_lstm_reference_matches_minitorch_lstm() -> None:
    from minitorch import nn

    rng = np.random.default_rng(1)
    lstm = nn.LSTM(3, 2, rng=0, dtype=np.float64)
    x = rng.standard_normal((4, 3))
    h = lstm(x).data  # from zero state
    zeros = np.zeros((4, 2))
    bias = lstm.x2h.b.data + (lstm.h2h.b.data if lstm.h2h.b is not None else 0)
    ref_h, _ = cb11.lstm_reference(x, zeros, zeros, lstm.x2h.W.data, lstm.h2h.W.data, bias)
    np.testing.assert_allclose(h, ref_h, rtol=1e-10)


def test_11_lstm_variants_differ_from_the_reference() -> None:
    rng = np.random.default_rng(2)
    args = [rng.standard_normal(s) for s in [(2, 3), (2, 2), (2, 2), (8, 3), (8, 2), (8,)]]
    h, c = cb11.lstm_reference(*args)
    for hint, (hv, cv) in cb11.lstm_variants(*args).items():
        assert not (np.allclose(hv, h) and np.allclose(cv, c)), hint


def test_11_clipping_per_parameter_is_named() -> None:
    def local(params: Any, max_norm: float) -> float:
        total = 0.0
        for p in params:
            n = float(np.sqrt(np.sum(p.grad.data**2)))
            total += n * n
            if n > max_norm:
                p.grad = Variable(p.grad.data * max_norm / n)
        return float(np.sqrt(total))

    fails_with("clipped by its own norm", cb11.check_clip, local)


def test_11_clipping_returning_the_clipped_norm_is_named() -> None:
    def after(params: Any, max_norm: float) -> float:
        norm = float(np.sqrt(sum(np.sum(p.grad.data**2) for p in params)))
        if norm > max_norm:
            for p in params:
                p.grad = Variable(p.grad.data * max_norm / norm)
        return min(norm, max_norm)

    fails_with("the norm *before* clipping", cb11.check_clip, after)


def test_11_reference_clip_passes_the_check() -> None:
    cb11.check_clip(cb11.reference_clip)


def test_11_dead_filters_are_found() -> None:
    maps = np.zeros((3, 4, 4))
    maps[0, 1, 1] = 0.5
    maps[2, 0, 0] = 1.0
    assert cb11.dead_filters(maps) == [1]


# -- 13: capstone ------------------------------------------------------------------------
class _T:
    def __init__(self, data: Any, creator: Any = None) -> None:
        self.data = np.asarray(data, dtype=np.float64)
        self.grad = None
        self.creator = creator


class _F:
    def __call__(self, *inputs: Any) -> Any:
        return cb13r.reference_pieces(_T, _F, _P)["call"](self, *inputs)


class _P(_T):
    pass


def test_13_reference_pieces_pass_their_own_checks() -> None:
    ref = cb13r.reference_pieces(_T, _F, _P)
    cb13.check_call(ref["call"], _T, _F)
    cb13.check_engine(ref["backward"], _T)
    cb13.check_function_backward(
        "Linear",
        ref["Linear"],
        _T,
        [np.ones((2, 3)), np.ones((4, 3)), np.ones(4)],
        ["x", "W", "b"],
    )
    cb13.check_softmax_ce(ref["SoftmaxCrossEntropy"], _T)
    cb09.check_registration(ref["Module"], _P)
    cb13.check_capstone_adam(lambda ps: ref["Adam"](ps, lr=0.1), _P)


def test_13_engine_without_accumulation_is_named() -> None:
    def overwrite(y: Any) -> None:  # the right order, but = instead of +=
        y.grad = np.ones_like(y.data)
        for f in _reverse_topological(y):
            grads = f.backward(f.output.grad)
            grads = grads if isinstance(grads, tuple) else (grads,)
            for x, g in zip(f.inputs, grads):
                x.grad = g

    fails_with("must *add* its gradients", cb13.check_engine, overwrite, _T)


def test_13_engine_in_wrong_order_is_named() -> None:
    def preorder(y: Any) -> None:  # a stack walk: a Function may run before all grads arrive
        y.grad = np.ones_like(y.data)
        stack, seen = [y.creator], set()
        while stack:
            f = stack.pop()
            if f is None or id(f) in seen:
                continue
            seen.add(id(f))
            grads = f.backward(f.output.grad)
            grads = grads if isinstance(grads, tuple) else (grads,)
            for x, g in zip(f.inputs, grads):
                x.grad = g if x.grad is None else x.grad + g
                stack.append(x.creator)

    fails_with("reverse topological order", cb13.check_engine, preorder, _T)


def _reverse_topological(y: Any) -> list[Any]:
    order: list[Any] = []
    seen: set[int] = set()

    def visit(f: Any) -> None:
        if f is None or id(f) in seen:
            return
        seen.add(id(f))
        for x in f.inputs:
            visit(x.creator)
        order.append(f)

    visit(y.creator)
    return order[::-1]


def _all_tensors(y: Any) -> list[Any]:
    out = [y]
    for f in _reverse_topological(y):
        out.extend(f.inputs)
    return out


def test_13_linear_transposed_weight_gradient_is_named() -> None:
    ref = cb13r.reference_pieces(_T, _F, _P)

    class Wrong(ref["Linear"]):  # type: ignore[misc, valid-type]
        def backward(self, gy: np.ndarray) -> Any:
            x, W, _ = (t.data for t in self.inputs)
            return gy @ W, x.T @ gy, gy.sum(axis=0)

    fails_with(
        "gradient of W has shape (4, 3), but W has shape (3, 4)",
        cb13.check_function_backward,
        "Linear",
        Wrong,
        _T,
        [np.ones((5, 4)), np.ones((3, 4)), np.ones(3)],
        ["x", "W", "b"],
    )


def test_13_softmax_ce_without_mean_is_named() -> None:
    ref = cb13r.reference_pieces(_T, _F, _P)

    class Summed(ref["SoftmaxCrossEntropy"]):  # type: ignore[misc, valid-type]
        def forward(self, z: np.ndarray) -> Any:
            return super().forward(z) * len(z)

    fails_with("take the mean", cb13.check_softmax_ce, Summed, _T)


def test_13_softmax_ce_unstable_is_named() -> None:
    ref = cb13r.reference_pieces(_T, _F, _P)

    class Naive(ref["SoftmaxCrossEntropy"]):  # type: ignore[misc, valid-type]
        def forward(self, z: np.ndarray) -> Any:
            with np.errstate(all="ignore"):
                p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
                self.log_p = np.log(p)
            return -self.log_p[np.arange(len(z)), self.labels].mean()

    fails_with("subtract each row's maximum", cb13.check_softmax_ce, Naive, _T)


def test_13_framework_using_minitorch_is_caught() -> None:
    import minitorch.data as data
    from minitorch import nn

    cb13.check_no_minitorch({"Digits": data.Digits, "np": np, "Tensor": _T})
    fails_with(
        "your framework uses minitorch: Linear", cb13.check_no_minitorch, {"Linear": nn.Linear}
    )


# -- pictures ----------------------------------------------------------------------------
def test_heatmap_text_is_dark_on_the_light_end_of_viridis() -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    texts = pictures.annotated_heatmap(ax, np.array([[0.0, 1.0]]), cmap="viridis")
    assert [t.get_color() for t in texts] == ["white", "black"]  # dark purple, bright yellow
    plt.close(fig)


def test_07_broadcast_figure_has_no_fixed_text_colour() -> None:
    text = (NOTEBOOKS / "src" / "07_tensors.py").read_text()
    assert 'color="white"' not in text and "annotated_heatmap(" in text


def test_diverging_image_has_symmetric_limits() -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    image = pictures.diverging_image(ax, np.array([[-0.2, 1.5]]))
    assert image.get_clim() == (-1.5, 1.5)
    plt.close(fig)


def test_11_filters_picture_uses_symmetric_limits_and_a_colour_bar() -> None:
    text = (NOTEBOOKS / "src" / "11_conv_and_rnn.py").read_text()
    assert 'cmap="RdBu"' not in text  # every diverging picture goes through diverging_image
    assert "fig.colorbar(" in text and "dead_filters(" in text


@pytest.mark.parametrize("draw", ["im2col", "maxpool", "rnn"])
def test_new_pictures_draw(draw: str) -> None:
    import matplotlib.pyplot as plt

    if draw == "im2col":
        fig = pictures.draw_im2col(np.arange(25.0).reshape(5, 5), 3)
    elif draw == "maxpool":
        fig = pictures.draw_maxpool_backward(np.arange(16.0).reshape(4, 4), np.ones((2, 2)))
    else:
        fig = pictures.draw_unrolled_rnn(6, 3)
    assert fig.axes
    plt.close(fig)


# -- typical mistakes of notebook 07 -----------------------------------------------------
BUILD_NOTEBOOKS = ["07", "08", "09", "10", "11", "12", "13"]


def _solve_alone(
    prefix: str,
    k: int,
    make_student: ModuleType,
    run_notebooks: ModuleType,
    edit: tuple[str, str] | None = None,
) -> BaseException | None:
    return inprocess.solve_alone(prefix, k, edit)


# A student's typical mistakes in notebook 07, injected into the solution (notebook,
# exercise number, replaced text, replacement), and a fragment the check's message must
# contain. Notebooks 08-13 have their catalogue in test_mistake_catalogue.py.
MISTAKES = [
    (
        "07",
        2,
        "return gy @ W.T, x.T @ gy",
        "return gy.data @ W.data.T, x.data.T @ gy.data",
        "computed on raw NumPy arrays",
    ),
    (
        "07",
        2,
        "return gy @ W.T, x.T @ gy",
        "return gy @ W, x.T @ gy",
        "for a square W the shapes also fit gy @ W",
    ),
    (
        "07",
        3,
        "return gy, F.sum_to(gy, b.shape)",
        "return gy.data, gy.data.sum(axis=0)",
        "this is an ndarray",
    ),
    ("07", 3, "return gy, F.sum_to(gy, b.shape)", "return gy, gy", "F.sum_to(gy, b.shape)"),
]


# Some injected mistakes divide by zero or overflow: NumPy's RuntimeWarning is the student's
# to see in the notebook, not noise in the test run.
@pytest.mark.filterwarnings("ignore:.*encountered in:RuntimeWarning")
@pytest.mark.parametrize(
    ("prefix", "k", "old", "new", "fragment"),
    MISTAKES,
    ids=[f"{m[0]}-ex{m[1]}-{i}" for i, m in enumerate(MISTAKES)],
)
def test_a_typical_mistake_gets_specific_feedback(
    prefix: str,
    k: int,
    old: str,
    new: str,
    fragment: str,
    make_student: ModuleType,
    run_notebooks: ModuleType,
) -> None:
    error = _solve_alone(prefix, k, make_student, run_notebooks, (old, new))
    assert error is not None, f"{prefix} exercise {k}: the mistake passed the check"
    assert isinstance(error, AssertionError), f"{type(error).__name__}: {error}"
    assert fragment in str(error), str(error)


def test_every_build_notebook_has_checks_that_say_not_done() -> None:
    for prefix in BUILD_NOTEBOOKS:
        text = next((NOTEBOOKS / "src").glob(f"{prefix}_*.py")).read_text()
        # 07 checks with checks.py (check_defined), 08-13 with checks_build and checks_nbNN
        assert re.search(r"checks_(build|nb\d\d) import|check_defined", text), prefix


# -- a syntax error costs one exercise; success lines say what ran ------------------------
SYNTAX_ERROR = "def broken(:  # a typo: this cell defines nothing\n"


@pytest.mark.parametrize(
    ("prefix", "k"),
    [("09", 2), ("11", 3), ("11", 9), ("13", 1), ("13", 2), ("13", 3), ("13", 4), ("13", 6)],
    ids=lambda v: str(v),
)
def test_a_cell_that_does_not_parse_fails_only_its_own_check(prefix: str, k: int) -> None:
    """The exercises built on exercise k fall back to stand-ins (globals().get), so only
    exercise k's check fails — with "not done yet", as the name it defines is missing."""
    results = inprocess.run_whole(prefix, broken={k: SYNTAX_ERROR})
    failed = {j: f"{type(e).__name__}: {e}"[:300] for j, (e, _) in results.items() if e}
    assert set(failed) == {k}, failed
    assert "not done yet" in failed[k], failed[k]


def test_the_capstone_says_how_many_pieces_were_yours() -> None:
    """13 Ex7 with every piece a stand-in must not praise "your framework"."""
    results = inprocess.run_whole("13", solved={7})
    error, printed = results[7]
    assert error is None, error
    assert "stand-ins only" in printed, printed
    assert "your framework reads" not in printed
    results = inprocess.run_whole("13", solved={1, 2, 3, 7})
    assert (
        "with 4 of your pieces and 3 stand-ins (SoftmaxCrossEntropy, Module, Adam)"
        in (results[7][1])
    ), results[7][1]


# -- the checks do not read minitorch's wording --------------------------------------------
def test_a_reworded_refusal_keeps_its_hint() -> None:
    """A refusal is recognised by the Variable method that raised it, not by its text."""

    class Reworded(Variable):
        def __lt__(self, other: Any) -> bool:
            raise TypeError("any wording at all")

        def __array_ufunc__(self, *args: Any, **kwargs: Any) -> Any:
            raise TypeError("any other wording")

    with pytest.raises(AssertionError, match="compare its values"):
        with cb.exercise("f(x)"):
            _ = Reworded(np.ones(2)) < 0.5
    with pytest.raises(AssertionError, match="NumPy functions need arrays"):
        with cb.exercise("f(x)"):
            np.exp(Reworded(np.ones(2)))


def test_the_course_checks_match_no_minitorch_message() -> None:
    fragments = [
        "records no graph",
        "does not record a graph",
        "does not support ufuncs",
        "backward is not defined",
        "gradient for input",
        "reduce broadcast dimensions",
    ]
    for path in NOTEBOOKS.glob("checks_*.py"):
        text = path.read_text()
        found = [f for f in fragments if f in text]
        assert not found, f"{path.name} matches minitorch's wording: {found}"
    for prefix in ["08", "09", "10", "11", "12", "13"]:
        text = next((NOTEBOOKS / "src").glob(f"{prefix}_*.py")).read_text()
        assert not [f for f in fragments if f in text], prefix


def test_11_a_wrong_conv_backward_is_not_told_about_an_unwritten_method() -> None:
    """Second edition: a wrong ConvIm2col.backward_array was told its unwritten backward
    "gives nan, the right value". There is one backward now, and NaN is no value."""
    error = inprocess.solve_alone("11", 5, ("return gx, gW", "return gx, 2 * gW"))
    assert isinstance(error, AssertionError), error
    assert "nan" not in str(error) and "backward_array" not in str(error), error
    assert "gW" in str(error), error
