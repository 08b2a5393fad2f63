"""Issue 32, item 1: each op keeps only what its gradient rule reads (``Function.saves``).

Memory is measured, not assumed: the arrays of a chain's size that are still alive are
counted through weak references. Expected values are counted by hand or come from
closed forms (d/dx exp = exp, d/dx tanh = 1 - tanh², d/dx sigmoid = s (1 - s)).
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import minitorch.ops as F
from minitorch import Config, Function, Variable, autograd, using_config
from minitorch.core.saved import Unsaved

N = 10_000  # the chain's arrays: 80,000 bytes each


def alive(refs: list[weakref.ref]) -> int:
    return sum(ref() is not None for ref in refs)


def chain(x: Variable, refs: list[weakref.ref]) -> Variable:
    """exp, + 1, * 0.5, five times; a weak reference to each op's output array."""
    y = x
    for _ in range(5):
        for op in (F.exp, lambda v: v + 1.0, lambda v: v * 0.5):
            y = op(y)
            refs.append(weakref.ref(y.data))
    return y


def test_a_chain_keeps_only_the_outputs_of_exp() -> None:
    refs: list[weakref.ref] = []
    x = Variable(np.linspace(-1.0, 0.0, N))
    y = chain(x, refs)
    gc.collect()
    # alive: the 5 outputs of exp (its rule reads y) and y itself; the outputs of + 1 and
    # * 0.5 are read by no rule (x * 0.5 needs 0.5, not x) and were freed in forward
    assert alive(refs) == 5 + 1
    y.sum().backward()
    values, v = [], x.data  # the chain rule by hand: each step v -> (exp(v) + 1) / 2
    for _ in range(5):
        values.append(v)
        v = (np.exp(v) + 1.0) * 0.5
    grad = np.ones(N)
    for v in reversed(values):
        grad = grad * 0.5 * np.exp(v)
    np.testing.assert_allclose(x.grad.data, grad, rtol=1e-12)


def test_save_all_keeps_every_intermediate() -> None:
    refs: list[weakref.ref] = []
    with using_config("save_all", True):
        y = chain(Variable(np.linspace(-1.0, 0.0, N)), refs)
    gc.collect()
    assert alive(refs) == 15
    assert not Config.save_all
    del y


def test_an_unsaved_input_is_an_edge_with_shape_and_creator() -> None:
    x = Variable(np.ones((2, 3)))
    h = F.exp(x)
    y = h + 1.0
    (edge, constant) = y.creator.inputs
    assert type(edge) is Unsaved and type(constant) is Variable  # leaves stay held
    assert edge.creator is h.creator and edge.index == 0
    assert (edge.shape, edge.dtype, edge.ndim, edge.size) == ((2, 3), np.float64, 2, 6)
    assert edge.generation == h.generation and edge.requires_grad
    assert edge.live() is h  # the user still holds h
    del h
    gc.collect()
    assert edge.live() is None


def test_a_wrong_declaration_raises_naming_the_op_the_input_and_saves() -> None:
    class BadSin(Function):
        saves = ()  # wrong: the rule reads x

        def forward(self, x):
            return np.sin(x)

        def vjp(self, xp, xs, y, gy):
            (x,) = xs
            return gy * xp.cos(x)

    x = Variable(np.array([0.3, 0.4]))
    y = BadSin()(x * 1.0)
    with pytest.raises(RuntimeError, match=r"BadSin.*input 0.*BadSin.saves = \(\)"):
        y.sum().backward()
    # a leaf input is a stand-in for the rule too: the declaration fails on any input
    with pytest.raises(RuntimeError, match="does not save it for backward"):
        BadSin()(x).sum().backward()


def test_an_unsaved_output_refuses_use() -> None:
    class BadExp(Function):
        saves = ("inputs",)  # wrong: the rule reads y

        def forward(self, x):
            return np.exp(x)

        def vjp(self, xp, xs, y, gy):
            return gy * y

    with pytest.raises(RuntimeError, match=r"BadExp.*output 0"):
        BadExp()(Variable(np.array([1.0]))).sum().backward()


def test_saves_must_be_a_tuple_of_inputs_and_output() -> None:
    with pytest.raises(TypeError, match="saves"):

        class Wrong(Function):
            saves = "output"


@pytest.mark.parametrize(
    ("op", "second"),
    [
        (F.exp, lambda x: np.exp(x)),
        (F.tanh, lambda x: -2 * np.tanh(x) * (1 - np.tanh(x) ** 2)),
        (F.sigmoid, lambda x: (s := 1 / (1 + np.exp(-x))) * (1 - s) * (1 - 2 * s)),
    ],
)
def test_second_derivative_through_a_dropped_output(op, second) -> None:
    x = Variable(np.array([-0.7, 0.2, 1.5]))
    y = (op(x) * 1.0).sum()  # op's output is dropped: * 1.0 does not save it
    gc.collect()
    (gx,) = autograd.grad(y, x, create_graph=True)
    (ggx,) = autograd.grad(gx.sum(), x)
    np.testing.assert_allclose(ggx.data, second(x.data), rtol=1e-10)


def test_retain_grad_and_grad_of_a_held_intermediate() -> None:
    x = Variable(np.array([0.5, 1.0]))
    h = F.exp(x)  # held by the user; Add below does not save it
    y = (h + 2.0).sum()
    (gh,) = autograd.grad(y, h, retain_graph=True)
    np.testing.assert_array_equal(gh.data, [1.0, 1.0])
    y.backward(retain_grad=True)
    np.testing.assert_array_equal(h.grad.data, [1.0, 1.0])
    np.testing.assert_allclose(x.grad.data, np.exp(x.data))


def test_a_user_function_keeps_everything_and_its_output() -> None:
    class Cube(Function):
        def forward(self, x):
            return x**3

        def backward(self, gy):
            (x,) = self.inputs
            y = self.output()  # unpacked from the saved array if the output is gone
            return 3 * y / x * gy

    x = Variable(np.array([2.0]))
    y = (Cube()(x * 1.0) * 1.0).sum()  # Cube's output is dropped (Mul does not save it)
    gc.collect()
    y.backward()
    np.testing.assert_allclose(x.grad.data, [12.0])


def test_unchain_backward_cuts_unsaved_edges() -> None:
    x = Variable(np.array(1.0))
    h = F.exp(x)
    y = h + 1.0
    y.unchain_backward()
    assert y.creator is None and h.creator is None


@pytest.mark.small_values_kept
@pytest.mark.parametrize(("n", "small"), [(1, True), (128, True), (129, False), (1000, False)])
@pytest.mark.parametrize("op", [lambda h: h + 1.0, lambda h: h * 2.0, lambda h: F.sum(h)])
def test_minitorch_ops_keep_inputs_up_to_1_kib_and_free_larger_ones(op, n, small) -> None:
    # An input of at most SMALL_VALUE bytes (128 float64) stays a Variable where its op
    # does not save it: its edge would cost about what it frees. Larger ones are edges.
    from minitorch.core.saved import SMALL_VALUE

    x = Variable(np.linspace(0.1, 1.0, n))
    h = F.sin(x)  # Sin saves its input, not its output
    assert (h.data.nbytes <= SMALL_VALUE) == small
    y = op(h)
    edge = y.creator.inputs[0]
    assert (edge is h) if small else (type(edge) is Unsaved and edge.live() is h)
    ref = weakref.ref(h.data)
    del h
    gc.collect()
    assert (ref() is not None) == small  # a large h is freed with its Variable
    F.sum(y).backward()  # d/dx of sin(x) (+ 1, * 2, summed): cos(x) times the factor
    factor = 2.0 if y.creator.__class__.__name__ == "Mul" else 1.0
    np.testing.assert_allclose(x.grad.data, factor * np.cos(x.data), rtol=1e-12)


@pytest.mark.small_values_kept
def test_a_function_written_outside_minitorch_gets_an_edge_however_small() -> None:
    # So that a wrong declaration fails on its first call, whatever the size.
    class Shift(Function):
        saves = ()

        def forward(self, x):
            return x + 1.0

        def backward(self, gy):
            (x,) = self.inputs  # wrong for saves = (): the rule reads only gy, but looks
            return gy * (x * 0.0 + 1.0)

    h = F.exp(Variable(np.array(0.5)))
    y = Shift()(h)
    assert type(y.creator.inputs[0]) is Unsaved
    with pytest.raises(RuntimeError, match=r"Shift's gradient rule used the value of its input 0"):
        y.backward()


@pytest.mark.small_values_kept
@pytest.mark.parametrize(("n", "small"), [(4, True), (1000, False)])
def test_a_graph_recorded_in_backward_keeps_small_values_and_frees_large_ones(n, small) -> None:
    # The graph of a derivative (create_graph) keeps inputs of at most SMALL_VALUE bytes
    # as Variables (an edge would cost about what it frees); larger ones become edges.
    from minitorch.core.graph import functions
    from minitorch.core.saved import SMALL_VALUE

    x = Variable(np.linspace(0.1, 1.0, n))
    assert (x.data.nbytes <= SMALL_VALUE) == small
    (gx,) = autograd.grad(F.sum(F.sin(x) * 3.0), x, create_graph=True)
    made = [f for f in functions(gx) if f.created_in_backward]
    edges = [v for f in made for v in f.inputs if type(v) is Unsaved]
    assert made and (not edges if small else edges)
    (ggx,) = autograd.grad(F.sum(gx), x)  # d/dx sum(3 cos x) = -3 sin x, either way
    np.testing.assert_allclose(ggx.data, -3.0 * np.sin(x.data), rtol=1e-12)


@pytest.mark.small_values_kept
@pytest.mark.parametrize("n", [128, 129])
def test_saved_arrays_count_what_an_op_declares_whatever_the_size(n) -> None:
    # x * 0.99 and x / 3.0 save the constant only (8 bytes), x + 1.0 nothing, on both
    # sides of 1 KiB, though a small x stays in the graph as its Variable.
    from minitorch.core.saved import saved_arrays

    h = F.sin(Variable(np.linspace(0.0, 1.0, n)))
    for y, saved in ((h * 0.99, 8), (h / 3.0, 8), (h + 1.0, 0)):
        assert sum(a.nbytes for a in saved_arrays(y.creator)) == saved
