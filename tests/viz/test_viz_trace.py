"""viz.trace_backward records the engine's own backward pass, step by step."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch.ops as F
import viz
from minitorch import Function, Variable, no_grad


def diamond(x_value: np.ndarray) -> tuple[Variable, Variable]:
    """x feeds two branches that meet again: y = sin(x) * exp(x) (a fan-in at x)."""
    x = Variable(x_value.copy(), name="x")
    return x, F.sin(x) * F.exp(x)


def test_diamond_records_each_function_once_in_a_valid_order() -> None:
    x, y = diamond(np.array([0.3, -1.2]))
    trace = viz.trace_backward(y)
    funcs = [step.function for step in trace]
    assert sorted(step.name for step in trace) == ["Exp", "Mul", "Sin"]
    assert len({id(f) for f in funcs}) == len(funcs) == len(trace.graph.functions)
    position = {id(f): i for i, f in enumerate(funcs)}
    for f in funcs:  # every consumer of a Function's output runs before it
        for out in f.outputs:
            for g in funcs:
                if any(inp is out() for inp in g.inputs):
                    assert position[id(g)] < position[id(f)]


def test_diamond_gradients_are_the_engines_and_the_closed_form() -> None:
    value = np.array([0.3, -1.2])
    x, y = diamond(value)
    trace = viz.trace_backward(y)
    x_plain, y_plain = diamond(value)
    y_plain.backward()
    assert x.grad is not None and x_plain.grad is not None
    closed_form = np.cos(value) * np.exp(value) + np.sin(value) * np.exp(value)
    np.testing.assert_allclose(x_plain.grad.data, closed_form, rtol=1e-12)
    np.testing.assert_array_equal(x.grad.data, x_plain.grad.data)
    np.testing.assert_array_equal(trace.leaf_grads["v1"], x_plain.grad.data)
    assert trace.graph.variables[0].var is x  # node ids count in forward order


def test_steps_hold_upstream_and_sent_gradients() -> None:
    value = np.array([0.3, -1.2])
    x, y = diamond(value)
    trace = viz.trace_backward(y)
    mul = trace[0]
    assert mul.name == "Mul"
    np.testing.assert_array_equal(mul.grads_in[0], np.ones(2))
    np.testing.assert_allclose(mul.grads_out[0], np.exp(value))  # d(a*b)/da = b
    np.testing.assert_allclose(mul.grads_out[1], np.sin(value))
    sin = next(step for step in trace if step.name == "Sin")
    np.testing.assert_allclose(sin.grads_in[0], np.exp(value))
    np.testing.assert_allclose(sin.grads_out[0], np.exp(value) * np.cos(value))


def test_fan_in_is_recorded_as_an_accumulation() -> None:
    value = np.array([0.3, -1.2])
    x, y = diamond(value)
    trace = viz.trace_backward(y)
    accumulations = [acc for step in trace for acc in step.accumulations]
    assert len(accumulations) == 1
    (acc,) = accumulations
    assert acc.node_id == trace.graph.var_id(x)
    np.testing.assert_allclose(acc.before + acc.added, acc.total)
    assert x.grad is not None
    np.testing.assert_allclose(acc.total, x.grad.data)
    assert acc.earlier  # the other branch sent its part in an earlier step
    assert "x accumulates" in str(trace)


def test_variable_used_twice_by_one_function() -> None:
    x = Variable(np.array(3.0), name="x")
    trace = viz.trace_backward(x * x)
    (step,) = trace.steps
    assert step.input_ids == ("v1", "v1")
    assert [float(acc.total) for acc in step.accumulations] == [6.0]
    assert [acc.earlier for acc in step.accumulations] == [False]  # nothing held before


def test_the_trace_sets_no_attribute_on_any_function() -> None:
    x, y = diamond(np.array([0.5]))
    functions = [step.function for step in viz.trace_backward(y)]
    before = [dict(vars(f)) for f in functions]
    x.clear_grad()
    viz.trace_backward(y)
    assert [dict(vars(f)) for f in functions] == before
    for f in functions:
        assert "backward" not in vars(f) and "backward_array" not in vars(f)


def test_the_trace_module_imports_neither_the_stepper_nor_patches() -> None:
    import ast
    import inspect

    import viz.trace

    source = inspect.getsource(viz.trace)
    imported = {
        node.module for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ImportFrom)
    }
    assert "viz.stepper" not in imported
    assert "setattr(" not in source


class Cube(Function):
    """y = x**3 with only the differentiable backward (no backward_array)."""

    def forward(self, x: np.ndarray) -> np.ndarray:
        return x**3

    def backward(self, gy: Variable) -> Variable:
        (x,) = self.inputs
        return gy * 3.0 * x * x


def test_function_without_backward_array_is_traced_through_backward() -> None:
    x = Variable(np.array(2.0), name="x")
    trace = viz.trace_backward(Cube()(x))
    assert [step.name for step in trace] == ["Cube"]
    assert float(trace[0].grads_out[0]) == 12.0
    assert x.grad is not None and float(x.grad.data) == 12.0


def test_broadcasting_graph_matches_plain_backward() -> None:
    rng = np.random.default_rng(0)
    W_value, x_value = rng.standard_normal((2, 3)), rng.standard_normal(3)

    def loss() -> tuple[Variable, Variable, Variable]:
        W, x = Variable(W_value.copy(), name="W"), Variable(x_value.copy(), name="x")
        return W, x, F.tanh((W * x).sum(axis=1)).sum()

    W, x, y = loss()
    trace = viz.trace_backward(y)
    W2, x2, y2 = loss()
    y2.backward()
    for traced, plain in ((W, W2), (x, x2)):
        assert traced.grad is not None and plain.grad is not None
        np.testing.assert_array_equal(traced.grad.data, plain.grad.data)
        np.testing.assert_array_equal(
            trace.leaf_grads[trace.graph.var_id(traced)], plain.grad.data
        )


def test_create_graph_trace_keeps_a_differentiable_gradient() -> None:
    x = Variable(np.array(0.7), name="x")
    viz.trace_backward(F.tanh(x), create_graph=True)
    gx = x.grad
    assert gx is not None and gx.creator is not None
    np.testing.assert_allclose(gx.data, 1 - np.tanh(0.7) ** 2)


def test_errors_leave_the_graph_untouched() -> None:
    with pytest.raises(TypeError, match="not a minitorch Variable"):
        viz.trace_backward(np.ones(2))  # type: ignore[arg-type]
    x, y = diamond(np.array([0.5]))
    with no_grad():
        z = y * 2.0  # recorded nothing: no graph to trace
        with pytest.raises(RuntimeError, match="no_grad"):
            viz.trace_backward(z)
    assert y.creator is not None and "backward_array" not in vars(y.creator)


def test_a_leaf_is_traced_as_no_steps_and_its_seed() -> None:
    x = Variable(np.array([1.0, 2.0]), name="x")
    trace = viz.trace_backward(x)
    assert len(trace) == 0 and list(trace) == []
    np.testing.assert_array_equal(trace.seed, [1.0, 1.0])
    np.testing.assert_array_equal(trace.leaf_grads["v1"], [1.0, 1.0])
    assert trace.with_grad == ("v1",) and trace.grads_before == {}


def test_an_output_needing_no_gradient_has_no_seed() -> None:
    # relu's create_graph gradient depends on no input: the engine seeds nothing and only
    # gives x zeros, so the trace must not claim a seed at the output either.
    x = Variable(np.array(2.0), name="x")
    F.relu(x).backward(create_graph=True)
    gx = x.grad
    x.clear_grad()
    trace = viz.trace_backward(gx)
    assert len(trace) == 0 and trace.seed is None and trace.grads_after(0) == {}
    assert trace.leaf_grads == {} and trace.with_grad == ()
    assert float(x.grad.data) == 0.0


def test_the_trace_records_how_backward_was_called_and_who_keeps_a_grad() -> None:
    x = Variable(np.array(2.0), name="x")
    h = x.exp()
    h.name = "h"
    y = h * 3.0
    y.name = "y"
    plain = viz.trace_backward(y)
    ids = {vn.var.name: vn.id for vn in plain.graph.variables if vn.var.name}
    assert not plain.retain_grad and not plain.create_graph
    assert plain.with_grad == (ids["x"],) and h.grad is None
    x.clear_grad()
    kept = viz.trace_backward(y, retain_grad=True)
    assert kept.retain_grad and set(kept.with_grad) == {ids["x"], ids["h"], ids["y"]}
    assert h.grad is not None and y.grad is not None
    x.clear_grad()
    assert viz.trace_backward(y, create_graph=True).create_graph
