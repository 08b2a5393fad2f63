"""``f"{x:.3f}"``, ``float(x)`` refused with ``.item()``, and PyTorch spellings on a Variable.

Regression (fresh-user trial, h35 item 3): ``float(loss)`` and ``f"{loss:.3f}"`` failed
with messages that did not mention ``.item()``, and ``x.size()``, ``x.detach()``,
``x.view(...)``, ``x.dim()`` gave plain Python errors.
"""

from __future__ import annotations

import copy
import math
import pickle

import numpy as np
import pytest

import minitorch.ops as F
from minitorch import Variable, nn


@pytest.mark.parametrize("data", [np.array(0.25), np.array([0.25]), np.array([[0.25]])])
@pytest.mark.parametrize("convert", [float, int, math.exp, math.sqrt])
def test_conversion_to_a_python_number_is_refused_with_item(data, convert):
    # PyTorch converts here, so `math.exp(x) + 2 * x` silently loses the exp term's
    # gradient; minitorch asks for x.item() (a number) or F.exp (the graph).
    with pytest.raises(TypeError, match=r"no gradient would flow.*x\.item\(\).*F\.exp"):
        convert(Variable(data))


def test_conversion_of_several_elements_names_data():
    with pytest.raises(TypeError, match=r"3 elements \(shape \(3,\)\): use x\.data"):
        float(Variable(np.ones(3)))


def test_format_follows_torch():
    torch = pytest.importorskip("torch")
    for value in (2.7, -2.7, 3.0):
        x, t = Variable(np.array(value)), torch.tensor(value, dtype=torch.float64)
        assert f"{x:.3f}" == f"{t:.3f}" and f"{x:e}" == f"{t:e}"


def test_format_of_a_loss_after_backward_is_its_number():
    x = Variable(np.array([1.0, 2.0]))
    loss = F.sum(x * x)
    loss.backward()
    assert f"loss {loss:.2f}" == "loss 5.00" and loss.item() == 5.0


def test_format_spec_on_several_elements_names_item():
    with pytest.raises(TypeError, match=r"one element \(use x\.item\(\).*shape \(3,\)"):
        f"{Variable(np.ones(3)):.3f}"


def test_empty_format_spec_is_str_for_any_shape():
    x = Variable(np.array([1.0, 2.0]))
    assert f"{x}" == str(x) == "variable([1. 2.])"
    assert format(Variable(np.array(1.5)), "") == "variable(1.5)"


def test_integer_variables_format_with_integer_specs():
    assert f"{Variable(np.array(7)):03d}" == "007"
    with pytest.raises(ValueError, match="Unknown format code 'd'"):  # as format(7.5, "d")
        f"{Variable(np.array(7.5)):d}"


def test_numpy_refusals_are_unchanged():
    x = Variable(np.array(0.5))
    with pytest.raises(TypeError, match="use x.data"):
        np.asarray(x)
    with pytest.raises(TypeError, match="F.exp"):
        np.exp(x)
    assert repr(x) == "variable(0.5)"
    assert repr(copy.deepcopy(x)) == "variable(0.5)"
    assert pickle.loads(pickle.dumps(x)).data == 0.5


@pytest.mark.parametrize(
    "name, hint",
    [
        ("detach", r"x\.data .*Variable\(x\.data\)"),
        ("view", r"x\.reshape"),
        ("dim", r"x\.ndim"),
        ("numel", r"x\.size"),
        ("unsqueeze", r"F\.expand_dims"),
    ],
)
def test_pytorch_attribute_names_get_the_minitorch_spelling(name, hint):
    x = Variable(np.ones((2, 3)))
    message = f"no attribute '{name}' \\(a PyTorch name\\).*{hint}"
    with pytest.raises(AttributeError, match=message):
        getattr(x, name)
    assert not hasattr(x, name)  # still a missing attribute for duck typing
    with pytest.raises(AttributeError, match=hint):
        getattr(nn.Parameter(np.ones(2)), name)


def test_an_unknown_attribute_keeps_python_s_message():
    with pytest.raises(AttributeError, match="^'Variable' object has no attribute 'foo'$"):
        Variable(np.ones(2)).foo  # noqa: B018


def test_size_is_an_int_and_size_call_names_shape():
    x = Variable(np.ones((2, 3)))
    assert x.size == 6 and isinstance(x.size, int) and np.zeros(x.size).shape == (6,)
    with pytest.raises(TypeError, match=r"not PyTorch's size\(\) method: use x\.shape"):
        x.size()


def test_a_computed_variable_pickles_as_a_leaf_with_its_gradient():
    # Fresh-user trial: pickle.dumps(loss) failed on the weak references of its graph.
    x = Variable(np.array([1.0, 2.0]), name="x")
    loss = F.sum(x * x)
    loss.backward(create_graph=True)
    saved = pickle.loads(pickle.dumps(loss))
    assert saved.creator is None and saved.generation == 0 and saved.data == 5.0
    leaf = pickle.loads(pickle.dumps(x))
    assert leaf.name == "x" and leaf.grad.creator is None
    np.testing.assert_array_equal(leaf.grad.data, [2.0, 4.0])
    assert x.grad.creator is not None  # the original keeps its graph
    copied = copy.deepcopy(loss)
    assert copied.creator is None and loss.creator is not None


@pytest.mark.parametrize(
    ("name", "library", "hint"),
    [
        ("cleargrad", "DeZero", r"x\.clear_grad\(\)"),
        ("zero_grad", "PyTorch", r"x\.clear_grad\(\)"),
    ],
)
def test_other_libraries_names_for_clearing_the_gradient(name, library, hint):
    x = Variable(np.ones(2))
    with pytest.raises(AttributeError, match=rf"'{name}' \(a {library} name\).*{hint}"):
        getattr(x, name)()
    assert not hasattr(x, name)


def test_round_is_refused_like_float():
    x = Variable(np.array(2.4))
    for call in (lambda: round(x), lambda: round(x, 1)):
        with pytest.raises(TypeError, match=r"round\(x(, 1)?\) would turn .* x\.item\(\)"):
            call()


def test_backward_of_a_result_computed_from_data_names_data():
    x = Variable(np.array([1.0, 2.0]))
    with pytest.raises(RuntimeError, match=r"arrays such as x\.data.*compute with x itself"):
        F.sum(x.data * x.data).backward()
