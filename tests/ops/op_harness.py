"""The generic op-table harness of STYLE.md ("Tests").

Each op is a row (:class:`OpCase`): the minitorch function, a NumPy reference written in
the test (never computed with minitorch), the input shapes (broadcast pairs and 0-d
included) and the input domain. A test module lists its rows in ``CASES`` and subclasses
:class:`OpTableTests`; ``tests/ops/conftest.py`` parametrizes every generic test of the
class over the rows:

* forward equals the NumPy reference (float64);
* ``gradcheck`` (central differences, float64);
* every gradient has its input's shape and dtype;
* the three ways the engine can run an op's formula agree: its ``backward_array`` (the
  fast path, usually the ``vjp`` on NumPy), its ``backward`` on constants (forced by
  :func:`force_fallback`) and the ``create_graph`` gradients (the ``vjp`` on ops);
* second order: ``gradgradcheck`` where the op is twice differentiable;
* the op's ``saves`` declaration holds: on intermediate inputs (``x + 0.0``, which the
  op does not keep unless it declares it) the gradients, first order and
  ``create_graph``, equal the leaf inputs' (minitorch's own ops get an unsaved leaf as
  its array, so only an intermediate input shows a wrong declaration), ``save_all`` off;
* PyTorch 2.13 agrees, when installed;
* ``no_grad()`` builds no graph;
* float32 inputs give float32 outputs and float32 gradients.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import minitorch.core.saved as saved
from minitorch import Config, Function, Variable, no_grad, using_config
from minitorch.core.graph import functions
from minitorch.gradcheck import gradcheck, gradgradcheck

Shape = tuple[int, ...]


@dataclass(frozen=True)
class OpCase:
    """One row of an op table.

    Attributes:
        name: a short id shown by pytest.
        fn: the minitorch op, called with one Variable per shape.
        ref: the NumPy reference, called with the same ndarrays.
        shapes: the input shapes.
        domain: inputs are drawn uniformly from this interval ...
        make: ... unless ``make(rng)`` returns the inputs itself.
        torch_fn: the same computation in PyTorch (tensors in, tensor out), or None.
        second_order: run ``gradgradcheck``.
        float32: run the float32 dtype check.
        loose: use the loose gradcheck tolerances (chains through float32).
    """

    name: str
    fn: Callable[..., Any]
    ref: Callable[..., np.ndarray]
    shapes: Sequence[Shape] = ((3, 4),)
    domain: tuple[float, float] = (-2.0, 2.0)
    make: Callable[[np.random.Generator], list[np.ndarray]] | None = None
    torch_fn: Callable[..., Any] | None = None
    second_order: bool = True
    float32: bool = True
    loose: bool = False

    def __str__(self) -> str:
        return self.name

    def inputs(self, rng: np.random.Generator) -> list[np.ndarray]:
        if self.make is not None:
            return [np.asarray(a, dtype=np.float64) for a in self.make(rng)]
        low, high = self.domain
        return [np.asarray(rng.uniform(low, high, shape)) for shape in self.shapes]


def _graph_classes(y: Variable) -> set[type[Function]]:
    """The Function classes in the graph behind ``y``."""
    return {type(func) for func in functions(y)}


def via_backward(self: Function, *gys: Any) -> Any:
    """A ``backward_array`` that runs ``backward`` on constants (graph building is off).

    That is the first-order path of a user Function that defines only ``backward``: the
    differentiable formula on constant Variables.
    """
    gxs = self.backward(*[Variable(gy, requires_grad=False) for gy in gys])
    gxs = gxs if isinstance(gxs, (tuple, list)) else (gxs,)
    return tuple(gx.data if isinstance(gx, Variable) else gx for gx in gxs)


def force_fallback(monkeypatch: pytest.MonkeyPatch, classes: set[type[Function]]) -> None:
    """Make each class's first-order backward run its ``backward`` on constants."""
    for cls in classes:
        monkeypatch.setattr(cls, "backward_array", via_backward)


def _grads(
    case: OpCase, arrays: list[np.ndarray], create_graph: bool = False, via: str = "leaf"
) -> list[Any]:
    """The gradients of ``sum(fn(*xs) * weight)`` for leaves ``xs`` over ``arrays``.

    ``via="intermediate"`` hands the op ``x + 0.0`` instead of each floating ``x`` (an
    Add, which saves nothing: the same values, no copy kept) and drops those Variables
    before backward, so the op's rule can read only what its ``saves`` kept. Integer
    inputs (labels, indices) stay as they are.
    """
    xs = [Variable(a.copy()) for a in arrays]
    ins = [_intermediate(x) if via == "intermediate" else x for x in xs]
    y = case.fn(*ins)
    del ins  # nothing but the graph holds the intermediates now
    weight = np.linspace(-1.0, 2.0, y.size).reshape(y.shape)  # every output element matters
    (y * weight).sum().backward(create_graph=create_graph)
    return [None if x.grad is None else x.grad.data for x in xs]


def _intermediate(x: Variable) -> Variable:
    """``x + 0.0`` for a floating ``x`` (an op's output: it has a creator), else ``x``."""
    if not np.issubdtype(x.dtype, np.floating):
        return x
    u = x + 0.0
    assert u.creator is not None and np.array_equal(u.data, x.data)
    return u


class OpTableTests:
    """Generic tests run on every row of ``CASES`` (the subclass sets ``cases``)."""

    cases: Sequence[OpCase] = ()

    def test_forward_matches_numpy(self, case: OpCase, rng: np.random.Generator, tol: Any):
        arrays = case.inputs(rng)
        y = case.fn(*[Variable(a.copy()) for a in arrays])
        expected = np.asarray(case.ref(*[a.copy() for a in arrays]))
        assert isinstance(y, Variable)
        assert y.shape == expected.shape
        np.testing.assert_allclose(y.data, expected, **tol.float64)

    def test_gradcheck(self, case: OpCase, rng: np.random.Generator, tol: Any):
        settings = tol.gradcheck_loose if case.loose else tol.gradcheck
        assert gradcheck(case.fn, *case.inputs(rng), **settings)

    def test_gradient_shapes_and_dtypes(self, case: OpCase, rng: np.random.Generator):
        arrays = case.inputs(rng)
        for a, g in zip(arrays, _grads(case, arrays)):
            assert g is not None
            assert g.shape == a.shape
            assert g.dtype == a.dtype

    def test_backward_array_equals_backward(
        self, case: OpCase, rng: np.random.Generator, tol: Any, monkeypatch: pytest.MonkeyPatch
    ):
        arrays = case.inputs(rng)
        fast = _grads(case, arrays)
        differentiable = _grads(case, arrays, create_graph=True)
        probe = case.fn(*[Variable(a.copy()) for a in arrays])
        force_fallback(monkeypatch, _graph_classes(probe))
        slow = _grads(case, arrays)
        for g_fast, g_diff, g_slow in zip(fast, differentiable, slow):
            np.testing.assert_allclose(g_fast, g_slow, **tol.float64)
            np.testing.assert_allclose(g_fast, g_diff, **tol.float64)

    def test_saves_declaration_on_intermediate_inputs(
        self, case: OpCase, rng: np.random.Generator, tol: Any, monkeypatch: pytest.MonkeyPatch
    ):
        arrays = case.inputs(rng)
        # Every unsaved input an edge, whatever its size (minitorch's ops keep small ones).
        monkeypatch.setattr(saved, "SMALL_VALUE", -1)
        with using_config("save_all", False):
            assert Config.save_all is False  # else every input is kept: nothing is tested
            for create_graph in (False, True):
                leaf = _grads(case, arrays, create_graph)
                inner = _grads(case, arrays, create_graph, via="intermediate")
                for g_leaf, g_inner in zip(leaf, inner, strict=True):
                    assert g_leaf is not None and g_inner is not None
                    np.testing.assert_allclose(g_inner, g_leaf, **tol.float64)

    def test_second_order(self, case: OpCase, rng: np.random.Generator, tol: Any):
        if not case.second_order:
            pytest.skip(f"{case.name}: not twice differentiable through this path")
        settings = tol.gradcheck_loose if case.loose else tol.gradcheck
        assert gradgradcheck(case.fn, *case.inputs(rng), **settings)

    def test_matches_torch(self, case: OpCase, rng: np.random.Generator, tol: Any):
        torch = pytest.importorskip("torch")
        if case.torch_fn is None:
            pytest.skip(f"{case.name}: no PyTorch counterpart")
        arrays = case.inputs(rng)
        ts = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
        out = case.torch_fn(*ts)
        weight = np.linspace(-1.0, 2.0, out.numel()).reshape(tuple(out.shape))
        (out * torch.tensor(weight)).sum().backward()
        xs = [Variable(a.copy()) for a in arrays]
        y = case.fn(*xs)
        (y * weight).sum().backward()
        np.testing.assert_allclose(y.data, out.detach().numpy(), **tol.torch)
        for x, t in zip(xs, ts):
            assert x.grad is not None and t.grad is not None
            np.testing.assert_allclose(x.grad.data, t.grad.numpy(), **tol.torch)

    def test_no_grad_builds_no_graph(self, case: OpCase, rng: np.random.Generator):
        xs = [Variable(a) for a in case.inputs(rng)]
        with no_grad():
            y = case.fn(*xs)
        assert y.creator is None

    def test_float32_in_float32_out(self, case: OpCase, rng: np.random.Generator):
        if not case.float32:
            pytest.skip(f"{case.name}: the row opts out of the float32 check (dtype promotion)")
        xs = [Variable(a.astype(np.float32)) for a in case.inputs(rng)]
        y = case.fn(*xs)
        assert y.dtype == np.float32
        y.backward()
        for x in xs:
            assert x.grad is not None and x.grad.dtype == np.float32
