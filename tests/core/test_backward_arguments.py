"""What a newcomer's trial found at the edges of backward() and autograd.grad.

Each case was met by a fresh user who knows PyTorch; the expected behaviour is
PyTorch's (or, where minitorch differs on purpose, a message saying what to do).
"""

from __future__ import annotations

import numpy as np
import pytest

from minitorch import Variable, autograd, no_grad


def test_an_output_gradient_passed_to_backward_gets_a_hint() -> None:
    x = Variable(np.array([1.0, 2.0]))
    y = x * 2
    with pytest.raises(TypeError, match=r"takes no output gradient.*grad_outputs=g"):
        y.backward(np.ones(2))  # PyTorch's y.backward(gradient)
    with pytest.raises(TypeError, match="create_graph must be True or False"):
        y.backward(False, Variable(np.ones(2)))
    assert x.grad is None  # nothing ran


def test_backward_inside_no_grad_runs_a_graph_recorded_outside() -> None:
    x = Variable(np.array([1.0, 2.0]))
    z = (x * x).sum()
    with no_grad():
        z.backward()  # as in PyTorch: the graph exists, no_grad only stops new recording
    np.testing.assert_array_equal(x.grad.data, [2.0, 4.0])  # 2x, by hand


def test_backward_inside_no_grad_of_a_result_computed_there_still_explains() -> None:
    x = Variable(np.array([1.0, 2.0]))
    with no_grad():
        y = x * x
        with pytest.raises(RuntimeError, match="inside no_grad"):
            y.backward()


def test_grad_refuses_an_integer_input_as_backward_does() -> None:
    xi = Variable(np.array([1, 2]))
    with pytest.raises(TypeError, match="only floating-point Variables hold gradients"):
        (xi * xi).sum().backward()
    with pytest.raises(TypeError, match=r"input 0 has dtype int64.*only floating-point"):
        autograd.grad((xi * xi).sum(), xi)


def test_grad_names_an_ndarray_input_as_an_ndarray() -> None:
    x = Variable(np.array([1.0]))
    z = (x * x).sum()
    message = r"inputs\[0\] is an ndarray \(dtype float64, shape \(1,\)\)"
    with pytest.raises(TypeError, match=message):
        autograd.grad(z, np.array([1.0]))
