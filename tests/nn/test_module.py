"""Module registration, naming, modes, repr; Linear, Sequential, MLP, activations."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch import Config, Variable
from minitorch.nn import (
    MLP,
    Dropout,
    Linear,
    Module,
    Parameter,
    ReLU,
    Sequential,
    Sigmoid,
    Tanh,
    init_weight,
)


class Block(Module):
    def __init__(self) -> None:
        super().__init__()
        self.z = Parameter(np.zeros(1))
        self.inner = Linear(2, 3, rng=0)
        self.a = Parameter(np.ones(2))
        self.note = "not registered"

    def forward(self, x):
        return self.inner(x)


def test_registration_keeps_assignment_order_and_dotted_names():
    model = Sequential(Block(), Linear(3, 1, rng=1))
    names = [name for name, _ in model.named_parameters()]
    # As in PyTorch: a module's own parameters (in assignment order), then its children's.
    assert names == ["0.z", "0.a", "0.inner.W", "0.inner.b", "1.W", "1.b"]
    assert [p.name for p in model.parameters()] == names
    assert [name for name, _ in model.named_modules()] == ["", "0", "0.inner", "1"]


def test_mlp_parameter_names_are_layer_paths():
    model = MLP([2, 5, 4, 3], "relu", rng=0)
    names = [name for name, _ in model.named_parameters()]
    assert names == [f"layers.{i}.{k}" for i in (0, 2, 4) for k in ("W", "b")]
    assert model.layers[2].W.name == "layers.2.W"


def test_explicit_parameter_names_are_kept():
    class Named(Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = Parameter(np.ones(1), name="my weight")

    holder = Sequential(Named())
    assert holder[0].w.name == "my weight"


def test_shared_parameter_is_listed_once_and_reassignment_unregisters():
    block = Block()
    block.alias = block.a
    assert [p for p in block.parameters()].count(block.a) == 1
    assert block.a.name == "a"  # a tied Parameter keeps its first name
    block.a = "now a string"
    assert "a" not in dict(block.named_parameters())
    del block.z
    assert [n for n, _ in block.named_parameters()] == ["alias", "inner.W", "inner.b"]


def test_missing_super_init_raises_pytorch_message():
    class Broken(Module):
        def __init__(self) -> None:
            self.W = Parameter(np.ones(1))

    with pytest.raises(
        AttributeError, match=r"cannot assign parameters before Module.__init__\(\)"
    ):
        Broken()

    class Lazy(Module):
        def __init__(self) -> None:
            pass

        def forward(self, x):
            return x

    with pytest.raises(RuntimeError, match="call super\\(\\).__init__\\(\\)"):
        Lazy()(1.0)


def test_zero_grad_clears_all_parameters():
    model = MLP([2, 4, 3], "tanh", rng=0)
    loss = minitorch.ops.softmax_cross_entropy(
        model(np.ones((5, 2), np.float32)), np.zeros(5, int)
    )
    loss.backward()
    assert all(p.grad is not None for p in model.parameters())
    model.zero_grad()
    assert all(p.grad is None for p in model.parameters())


def test_train_eval_switch_dropout():
    minitorch.manual_seed(0)
    model = Sequential(Dropout(0.5))
    x = np.ones((100, 100))
    assert model.training and model[0].training
    y_train = model(x).data
    assert 0.4 < (y_train == 0).mean() < 0.6
    assert set(np.unique(y_train)) == {0.0, 2.0}
    assert model.eval() is model and not model[0].training
    np.testing.assert_array_equal(model(x).data, x)
    model.train()
    assert (model(x).data == 0).any()
    with minitorch.test_mode():  # the global switch also wins over a module in training mode
        np.testing.assert_array_equal(model(x).data, x)
    assert Config.train


def test_eval_mode_is_restored_after_the_call_even_on_error():
    class Fails(Module):
        def forward(self, x):
            assert not Config.train
            raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        Fails().eval()(1.0)
    assert Config.train


def test_repr_tree():
    model = Sequential(Linear(2, 3, rng=0), Tanh(), Dropout(0.1), Block())
    assert repr(model) == (
        "Sequential(\n"
        "  (0): Linear(in_features=2, out_features=3, bias=True)\n"
        "  (1): Tanh()\n"
        "  (2): Dropout(p=0.1)\n"
        "  (3): Block(\n"
        "    (inner): Linear(in_features=2, out_features=3, bias=True)\n"
        "  )\n"
        ")"
    )
    assert repr(Parameter(np.eye(2))) == "parameter([[1. 0.]\n           [0. 1.]])"


def test_linear_matches_numpy_and_gradients_flow():
    layer = Linear(3, 2, rng=0, dtype=np.float64)
    x = np.random.default_rng(1).standard_normal((4, 3))
    y = layer(x)
    np.testing.assert_allclose(y.data, x @ layer.W.data.T + layer.b.data)
    y.sum().backward()
    np.testing.assert_allclose(layer.W.grad.data, np.ones((2, 4)) @ x)
    np.testing.assert_allclose(layer.b.grad.data, [4.0, 4.0])
    assert layer.W.shape == (2, 3) and layer.W.dtype == np.float64
    assert Linear(3, 2, bias=False).b is None
    assert [n for n, _ in Linear(3, 2, bias=False).named_parameters()] == ["W"]


def test_lazy_linear_infers_in_features_and_keeps_parameter_identity():
    layer = Linear(None, 4, rng=0)
    W = layer.W
    assert W.data is None and "in_features=None" in repr(layer)
    layer(np.ones((2, 7), np.float32))
    assert layer.W is W and W.shape == (4, 7) and layer.in_features == 7
    assert "in_features=7" in repr(layer)


def test_initialisation_scales_and_seeding():
    he = init_weight((400, 500), "he", rng=0, dtype=np.float64)
    xavier = init_weight((400, 500), "xavier", rng=0, dtype=np.float64)
    assert he.std() == pytest.approx(np.sqrt(2 / 500), rel=0.02)
    assert xavier.std() == pytest.approx(np.sqrt(2 / 900), rel=0.02)
    np.testing.assert_array_equal(Linear(3, 2, rng=5).W.data, Linear(3, 2, rng=5).W.data)
    minitorch.manual_seed(3)
    first = MLP([2, 4, 1]).layers[0].W.data.copy()
    minitorch.manual_seed(3)
    np.testing.assert_array_equal(MLP([2, 4, 1]).layers[0].W.data, first)
    relu_W = MLP([1000, 1000, 2], "relu", rng=0).layers[0].W.data
    assert relu_W.std() == pytest.approx(np.sqrt(2 / 1000), rel=0.02)


def test_layer_argument_errors():
    with pytest.raises(ValueError, match="Linear: in_features must be positive, got 0"):
        Linear(0, 3)
    with pytest.raises(ValueError, match="init must be one of"):
        Linear(2, 3, init="orthogonal")
    with pytest.raises(ValueError, match="activation must be one of"):
        MLP([2, 3], "gelu")
    with pytest.raises(ValueError, match="sizes needs"):
        MLP([2])
    with pytest.raises(TypeError, match="not a Module"):
        Sequential(Linear(2, 2), minitorch.ops.relu)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Dropout: p"):
        Dropout(1.5)
    with pytest.raises(TypeError, match="rng must be"):
        Linear(2, 2, rng="seed")  # type: ignore[arg-type]
    with pytest.raises(IndexError, match="index 3"):
        Sequential(ReLU())[3]


def test_activation_modules_match_numpy():
    x = np.array([-2.0, 0.0, 3.0])
    np.testing.assert_allclose(ReLU()(x).data, np.maximum(x, 0))
    np.testing.assert_allclose(Tanh()(x).data, np.tanh(x))
    np.testing.assert_allclose(Sigmoid()(x).data, 1 / (1 + np.exp(-x)))


def test_mlp_with_activation_factory_and_dropout():
    model = MLP([3, 8, 8, 2], activation=Tanh, dropout=0.2, rng=0)
    kinds = [type(layer).__name__ for layer in model.layers]
    assert kinds == ["Linear", "Tanh", "Dropout", "Linear", "Tanh", "Dropout", "Linear"]
    assert model(np.ones((1, 3), np.float32)).shape == (1, 2)


def test_parameter_is_exported_from_minitorch_and_is_a_variable():
    assert minitorch.Parameter is Parameter
    assert isinstance(Parameter(np.ones(1)), Variable)


def test_buffers_are_registered_and_updated_by_assignment():
    class Stats(Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("running_mean", np.zeros(2))

        def forward(self, x):
            self.running_mean = self.running_mean + 1.0
            return x

    model = Sequential(Stats())
    model(0.0)
    assert [n for n, _ in model.named_buffers()] == ["0.running_mean"]
    np.testing.assert_array_equal(dict(model.named_buffers())["0.running_mean"], [1.0, 1.0])
    assert list(model.parameters()) == []
    with pytest.raises(TypeError, match="buffer 'running_mean' must be an ndarray"):
        model[0].running_mean = [1, 2]


def test_mlp_matches_torch_forward_and_gradients():
    torch = pytest.importorskip("torch")
    model = MLP([4, 6, 3], "tanh", rng=0, dtype=np.float64)
    tmodel = torch.nn.Sequential(
        torch.nn.Linear(4, 6), torch.nn.Tanh(), torch.nn.Linear(6, 3)
    ).double()
    with torch.no_grad():  # same weights: both store W as (out_features, in_features)
        for (name, p), tp in zip(model.named_parameters(), tmodel.parameters()):
            assert tuple(tp.shape) == p.shape, name
            tp.copy_(torch.from_numpy(p.data))
    x = np.random.default_rng(0).standard_normal((5, 4))
    t = np.array([0, 2, 1, 1, 0])
    loss = minitorch.ops.softmax_cross_entropy(model(x), t)
    loss.backward()
    tloss = torch.nn.functional.cross_entropy(tmodel(torch.from_numpy(x)), torch.from_numpy(t))
    tloss.backward()
    assert float(loss.data) == pytest.approx(tloss.item(), rel=1e-12)
    for p, tp in zip(model.parameters(), tmodel.parameters()):
        np.testing.assert_allclose(p.grad.data, tp.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_optimizer_takes_a_module_directly():
    from minitorch.optim import SGD

    model = MLP([2, 3, 1], rng=0)
    assert SGD(model).params == list(model.parameters())


def test_frozen_parameter_gets_no_gradient_and_is_not_updated():
    from minitorch.optim import SGD

    layer = Linear(2, 1, rng=0, dtype=np.float64)
    layer.W.requires_grad = False
    frozen = layer.W.data.copy()
    opt = SGD(layer, lr=0.1)
    layer(np.ones((3, 2))).sum().backward()
    opt.step()
    assert layer.W.grad is None and layer.b.grad is not None
    np.testing.assert_array_equal(layer.W.data, frozen)
    assert not Parameter(np.ones(1), requires_grad=False).requires_grad


# ---- a Parameter, a Module or a buffer assigned over another ------------------------------


class _BufferThenParameter(Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("x", np.zeros(2))
        self.x = Parameter(np.ones(2))


def test_a_parameter_assigned_over_a_buffer_replaces_it_in_the_state_dict():
    model = _BufferThenParameter()
    assert list(model.named_buffers()) == []
    # The stale buffer (zeros) used to overwrite the Parameter (ones) in the saved state.
    np.testing.assert_array_equal(model.state_dict()["x"], [1.0, 1.0])


def test_a_module_assigned_over_a_buffer_replaces_it():
    class Holder(Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("inner", np.zeros(2))
            self.inner = Linear(2, 1, rng=0)

    assert sorted(Holder().state_dict()) == ["inner.W", "inner.b"]


def test_register_buffer_replaces_a_parameter_of_the_same_name():
    class Holder(Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = Parameter(np.ones(2))
            self.register_buffer("w", np.zeros(2))

    model = Holder()
    assert list(model.parameters()) == []
    np.testing.assert_array_equal(model.state_dict()["w"], [0.0, 0.0])


def test_parameter_over_buffer_round_trips_through_a_file(tmp_path):
    path = tmp_path / "w.npz"
    _BufferThenParameter().save_weights(path)
    model = _BufferThenParameter()
    model.x.data = np.full(2, 7.0)
    model.load_weights(path)
    np.testing.assert_array_equal(model.x.data, [1.0, 1.0])
