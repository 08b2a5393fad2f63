"""Issue 14 (items 2, 6, 8) and issue 20 (create_graph hint): the core's own checks.

Misuse of a Function (called twice, the class called on the input, a backward without
``return``), inputs edited in place between forward and backward, gradcheck's messages,
and the message for differentiating a gradient made without ``create_graph=True``.
PyTorch 2.13 (float64) is the reference where it defines the answer.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minitorch.ops as F
from minitorch import Function, Variable, nn, no_grad, optim
from minitorch.gradcheck import GradcheckError, gradcheck, gradgradcheck


class Square(Function):
    def forward(self, x):
        return x**2

    def backward(self, gy):
        (x,) = self.inputs
        return 2 * x * gy


# -- item 2: one Function instance records one call ----------------------------------------
def test_item2_second_call_of_a_function_instance_raises_instead_of_corrupting():
    a, b = Variable(np.array(3.0)), Variable(np.array(4.0))
    f = Square()
    ya = f(a)
    with pytest.raises(RuntimeError, match=r"Square\(\) was already called.*Square\(\)\(x\)"):
        f(b)
    with pytest.raises(RuntimeError, match="already called"), no_grad():
        f(b)  # forward would overwrite what the first graph's backward needs
    ya.backward()
    assert a.grad.data == 6.0 and b.grad is None  # the first graph is intact


def test_item2_an_instance_that_recorded_nothing_may_be_called_again():
    f = Square()
    with no_grad():
        f(Variable(np.array(2.0)))
    y = f(Variable(np.array(3.0)))
    assert y.data == 9.0


def test_item2_calling_the_class_on_the_input_gets_a_hint():
    with pytest.raises(TypeError, match=r"Square\(\) takes no arguments.*Square\(\)\(x\)"):
        Square(Variable(np.array(2.0)))


# -- item 6: editing an input in place after forward ---------------------------------------
def test_item6_writing_into_an_input_after_forward_raises_naming_function_and_input():
    # The issue's example: PyTorch raises for x.mul_ / x[...] = 5 here; minitorch gave 10.
    x = Variable(np.array(3.0), name="x")
    y = x * x
    x.data[...] = 5.0
    with pytest.raises(RuntimeError, match=r"input 0 of Mul \(Variable 'x'.*modified after"):
        y.backward()


def test_item6_replacing_data_after_forward_raises():
    x = Variable(np.array([1.0, 2.0]))
    y = F.sum(F.exp(x))
    x.data = np.array([5.0, 6.0])
    with pytest.raises(RuntimeError, match=r"input 0 of Exp .*replaced"):
        y.backward()


def test_item6_writes_through_another_view_are_detected_and_ndarray_operands_are_copied():
    base = np.array([1.0, 2.0, 3.0])
    x = Variable(base[:2])  # x.data is a view of base
    y = F.sum(x * x)
    base[0] = 10.0
    with pytest.raises(RuntimeError, match="modified after the forward pass"):
        y.backward()
    mask = np.array([1.0, 0.0])
    w = Variable(np.array([2.0, 3.0]))
    z = F.sum(w * mask)  # the graph keeps its own copy of the user's ndarray
    mask[1] = 1.0
    z.backward()
    np.testing.assert_array_equal(w.grad.data, [1.0, 0.0])  # the forward point's mask


def test_item6_unchanged_or_equal_values_and_edits_after_backward_are_fine():
    x = Variable(np.array(3.0))
    y = x * x
    x.data = np.array(3.0)  # replaced by an equal array: the gradient is the same
    y.backward()
    assert x.grad.data == 6.0
    x.data[...] = 4.0  # after backward: the usual optimizer step
    assert (x * x).data == 16.0


def test_item6_optimizer_steps_in_place_after_backward_keep_working():
    model = nn.Linear(3, 2, rng=0)
    opt = optim.SGD(model.parameters(), lr=0.05)
    x = np.ones((4, 3), np.float32)
    losses = []
    for _ in range(3):
        loss = F.mean(model(x) ** 2)
        model.zero_grad()
        loss.backward()
        opt.step()  # in place on param.data
        losses.append(float(loss.data))
    assert losses[2] < losses[0]
    stale = F.sum(model(x) ** 2)
    opt.step()  # a step between forward and backward: the next backward must refuse
    with pytest.raises(RuntimeError, match="modified after the forward pass"):
        stale.backward()


def test_item6_second_backward_after_an_in_place_step_raises_like_pytorch():
    torch = pytest.importorskip("torch")
    xt = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
    yt = xt * xt
    yt.backward(retain_graph=True)
    with torch.no_grad():
        xt.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        yt.backward()
    x = Variable(np.array(3.0))
    y = x * x
    y.backward()
    x.data += 1.0
    with pytest.raises(RuntimeError, match="modified after the forward pass"):
        y.backward()


def test_item6_a_leaf_used_by_many_functions_is_compared_once_per_pass_and_still_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A large weight used at every step (an RNN) shares one snapshot among its Functions;
    # the engine compares it once per backward pass, and an edit is still caught (issue
    # 17). (A small one, under 64 kB, is compared by each Function: cheaper than sharing.)
    w = Variable(np.linspace(0.5, 1.0, 100 * 100).reshape(100, 100), name="w")
    h: Any = np.full((100, 100), 0.5)  # an ndarray operand: copied, no snapshot
    for _ in range(20):
        h = F.tanh(h * w)
    loss = F.sum(h)
    compared = []
    real = Function.check_leaves_unchanged

    def counting(self: Function, checked: set[int] | None = None) -> None:
        before = set(checked or ())
        real(self, checked)
        compared.extend((checked or set()) - before)

    monkeypatch.setattr(Function, "check_leaves_unchanged", counting)
    loss.backward(retain_grad=False)
    assert len(compared) == 1  # the one snapshot of w, compared the first time only
    stale = F.sum(F.tanh(h * w) * w)
    w.data[0] = 3.0
    with pytest.raises(RuntimeError, match=r"Variable 'w'.*modified after the forward pass"):
        stale.backward()


def test_item6_create_graph_backward_checks_too():
    x = Variable(np.array(2.0))
    y = x * x * x
    x.data[...] = 1.0
    with pytest.raises(RuntimeError, match="modified after the forward pass"):
        y.backward(create_graph=True)


# -- item 8: a backward without return; gradcheck's messages --------------------------------
def test_item8_backward_returning_none_asks_about_a_missing_return():
    class Forgot(Function):
        def forward(self, x):
            return 2 * x

        def backward(self, gy):
            2 * gy  # noqa: B018 (the mistake under test)

    with pytest.raises(TypeError, match=r"Forgot.backward returned None.*forget `return`"):
        Forgot()(Variable(np.array(1.0))).backward()


def test_item8_gradcheck_of_a_function_returning_an_ndarray_says_so():
    with pytest.raises(TypeError, match=r"numpy.ndarray .*not a Variable"):
        gradcheck(lambda x: np.exp(x.data), np.array([0.5, 1.0]))


def test_item8_gradcheck_of_a_function_cut_from_its_inputs_says_why():
    with pytest.raises(GradcheckError, match=r"does not depend on its inputs through the graph"):
        gradcheck(lambda x: Variable(np.exp(x.data)), np.array([0.5, 1.0]))


def test_item8_gradgradcheck_names_itself_and_the_non_differentiable_backward():
    class NumpyExp(Function):
        def forward(self, x):
            return np.exp(x)

        def backward(self, gy):
            return gy * np.exp(self.inputs[0].data)  # right values, but a constant

    gradcheck(lambda x: NumpyExp()(x), np.array([0.5, -1.0]))  # first order is right
    with pytest.raises(GradcheckError) as info:
        gradgradcheck(lambda x: NumpyExp()(x), np.array([0.5, -1.0]))
    message = str(info.value)
    assert message.startswith("gradgradcheck (the second-order check")
    assert "not differentiable" in message and ".data or NumPy" in message


# -- issue 20: differentiating a first-order gradient names create_graph=True ----------------
def test_issue20_backward_of_a_first_order_gradient_mentions_create_graph():
    x = Variable(np.array(2.0))
    F.tanh(x).backward()  # forgot create_graph=True
    gx = x.grad
    x.clear_grad()
    with pytest.raises(RuntimeError, match=r"first-order backward.*create_graph=True"):
        gx.backward()
    with pytest.raises(RuntimeError, match="did you forget create_graph=True"):
        (gx * 3.0).backward()  # computed from it: the same hint


def test_issue20_constants_still_get_the_no_grad_message():
    with no_grad():
        y = Variable(np.array(2.0)) * 3.0
    with pytest.raises(RuntimeError, match=r"computed inside no_grad\(\) or only from constants"):
        y.backward()
