"""nn.ModuleList / nn.ModuleDict, and the refusal of plain containers of layers.

Regression (fresh-user trial, h35 item 1): ``self.hidden = [nn.Linear(4, 4), ...]`` left
those layers out of ``named_parameters()`` without a word, so they never trained.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch.ops as F
from minitorch import nn
from minitorch.optim import SGD


class Deep(nn.Module):
    def __init__(self, n: int = 2) -> None:
        super().__init__()
        self.hidden = nn.ModuleList([nn.Linear(4, 4, rng=i) for i in range(n)])
        self.out = nn.Linear(4, 1, rng=9)

    def forward(self, x):
        for layer in self.hidden:
            x = F.relu(layer(x))
        return self.out(x)


def test_plain_list_of_modules_is_refused_with_a_hint():
    class Hidden(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.hidden = [nn.Linear(4, 4) for _ in range(2)]

    with pytest.raises(TypeError, match=r"Hidden\.hidden: a plain list .*nn\.ModuleList"):
        Hidden()


def test_plain_list_filled_by_append_is_refused_when_parameters_are_asked_for():
    # Fresh-user trial: `self.blocks = []` then `.append(layer)` slipped past the check
    # at assignment, and the blocks were silently never trained or saved.
    class Blocks(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.head = nn.Linear(2, 1)
            self.blocks = []
            for _ in range(3):
                self.blocks.append(nn.Linear(2, 2))

    model = Blocks()
    with pytest.raises(TypeError, match=r"Blocks\.blocks: a plain list .*blocks\[0\].*ModuleList"):
        list(model.parameters())
    with pytest.raises(TypeError, match="ModuleList"):
        SGD(model.parameters(), lr=0.1)


@pytest.mark.parametrize(
    "value, where, hint",
    [
        ((nn.ReLU(),), r"h\[0\]", "ModuleList"),
        ({"a": nn.ReLU()}, r"h\['a'\]", "ModuleDict"),
        ([[1, nn.ReLU()]], r"h\[0\]\[1\]", "ModuleList"),  # nested
        ([nn.Parameter(np.zeros(2))], r"h\[0\]", "own attribute"),
    ],
)
def test_plain_containers_holding_layers_or_parameters_are_refused(value, where, hint):
    model = nn.Module()
    with pytest.raises(TypeError, match=f"{where}.*{hint}"):
        model.h = value


def test_plain_containers_without_layers_and_aliases_of_registered_layers_are_fine():
    model = nn.Module()
    model.sizes = [1, 2, 3]
    model.fc = nn.Linear(2, 2, rng=0)
    model.order = [model.fc, model.fc.W]  # already registered: trained anyway
    model.order.append(model.fc)
    model.losses = []
    model.losses.append(0.5)
    assert [name for name, _ in model.named_parameters()] == ["fc.W", "fc.b"]


def test_module_list_parameters_are_registered_with_dotted_names():
    model = Deep()
    names = [name for name, _ in model.named_parameters()]
    assert names == ["hidden.0.W", "hidden.0.b", "hidden.1.W", "hidden.1.b", "out.W", "out.b"]
    assert [p.name for _, p in model.named_parameters()] == names
    assert len(list(model.parameters())) == 6


def test_module_list_layers_are_trained_by_an_optimizer():
    model = Deep()
    before = model.hidden[0].W.data.copy()
    opt = SGD(model, lr=0.1)
    x = np.random.default_rng(0).normal(size=(8, 4)).astype(np.float32)
    loss = F.mean_squared_error(model(x), np.ones((8, 1), np.float32))
    loss.backward()
    assert model.hidden[0].W.grad is not None
    opt.step()
    assert not np.array_equal(model.hidden[0].W.data, before)
    model.zero_grad()
    assert all(p.grad is None for p in model.parameters())


def test_module_list_state_dict_round_trip(tmp_path):
    model, other = Deep(), Deep()
    for p in other.parameters():
        p.data = p.data + 1.0
    assert list(model.state_dict())[:2] == ["hidden.0.W", "hidden.0.b"]
    other.save_weights(tmp_path / "w.npz")
    model.load_weights(tmp_path / "w.npz")
    np.testing.assert_array_equal(model.hidden[1].W.data, other.hidden[1].W.data)


def test_module_list_train_eval_reach_the_layers():
    model = nn.Module()
    model.blocks = nn.ModuleList([nn.Dropout(0.5), nn.BatchNorm1d(2)])
    model.eval()
    assert [m.training for m in model.blocks] == [False, False]
    model.blocks[1].train()
    assert model.blocks[1].training and not model.blocks[0].training


def test_module_list_list_operations_renumber():
    layers = nn.ModuleList([nn.Linear(2, 2, rng=0)])
    relu, last = nn.ReLU(), nn.Linear(2, 3, rng=1)
    layers.append(relu).extend([last])
    assert len(layers) == 3 and layers[-1] is last and list(layers)[1] is relu
    assert isinstance(layers[1:], nn.ModuleList) and len(layers[1:]) == 2
    model = nn.Module()
    model.hidden = layers
    del model.hidden[0]
    assert [n for n, _ in model.named_parameters()] == ["hidden.1.W", "hidden.1.b"]
    assert last.W.name == "hidden.1.W"  # the label follows the new index
    layers.insert(0, nn.Tanh())
    assert [type(m).__name__ for m in layers] == ["Tanh", "ReLU", "Linear"]
    assert [n for n, _ in model.named_parameters()] == ["hidden.2.W", "hidden.2.b"]
    layers[0] = nn.Sigmoid()
    assert isinstance(layers[0], nn.Sigmoid)


def test_module_list_errors():
    layers = nn.ModuleList([nn.ReLU()])
    with pytest.raises(TypeError, match="element 1 is a function, not a Module"):
        layers.append(F.relu)
    with pytest.raises(IndexError, match="index 3 out of range for 1 modules"):
        layers[3]
    with pytest.raises(NotImplementedError, match="iterate over it"):
        layers(np.zeros(2))


def test_module_list_repr_is_nested():
    text = repr(Deep(1))
    assert "(hidden): ModuleList(\n    (0): Linear(in_features=4, out_features=4" in text


def test_module_dict_registers_by_key():
    model = nn.Module()
    model.heads = nn.ModuleDict({"cls": nn.Linear(4, 3, rng=0)})
    model.heads["box"] = nn.Linear(4, 2, rng=1)
    assert [n for n, _ in model.named_parameters()] == [
        "heads.cls.W",
        "heads.cls.b",
        "heads.box.W",
        "heads.box.b",
    ]
    assert list(model.heads) == ["cls", "box"] and "box" in model.heads
    assert model.heads.pop("cls").out_features == 3
    assert model.heads.keys() == ["box"] and len(model.heads) == 1
    assert [n for n, _ in model.named_parameters()] == ["heads.box.W", "heads.box.b"]


@pytest.mark.parametrize("key, error", [("a.b", KeyError), ("items", KeyError), (3, TypeError)])
def test_module_dict_refuses_bad_keys(key, error):
    with pytest.raises(error):
        nn.ModuleDict()[key] = nn.ReLU()


def test_module_dict_refuses_non_modules_and_missing_keys():
    heads = nn.ModuleDict()
    with pytest.raises(TypeError, match="value for 'a' is a int, not a Module"):
        heads["a"] = 1
    with pytest.raises(KeyError, match="no module 'b'"):
        heads["b"]


def test_replacing_a_layer_keeps_its_place_in_the_order():
    heads = nn.ModuleDict({"a": nn.Linear(2, 2, rng=0), "b": nn.Linear(2, 2, rng=1)})
    heads["a"] = nn.Linear(2, 3, rng=2)
    assert heads.keys() == ["a", "b"] and heads["a"].out_features == 3
    model = nn.Module()
    model.fc1, model.fc2 = nn.Linear(2, 2, rng=0), nn.Linear(2, 2, rng=1)
    model.fc1 = nn.Linear(2, 2, rng=3)  # as in PyTorch: same name, same place
    assert [n for n, _ in model.named_parameters()][:2] == ["fc1.W", "fc1.b"]


def test_sequential_given_a_list_says_to_unpack_it():
    with pytest.raises(TypeError, match=r"nn\.Sequential\(\*layers\)"):
        nn.Sequential([nn.Linear(2, 2), nn.ReLU()])


def test_module_list_slice_assignment_replaces_and_renumbers():
    # Fresh-user trial: ml[0:1] = [...] said "indices must be ints or slices, got slice".
    ml = nn.ModuleList([nn.Linear(2, 2, rng=0), nn.Linear(2, 3, rng=1)])
    last = ml[1]
    ml[0:1] = [nn.ReLU(), nn.Linear(2, 2, rng=2)]
    assert [type(m).__name__ for m in ml] == ["ReLU", "Linear", "Linear"] and ml[2] is last
    assert [name for name, _ in ml.named_parameters()] == ["1.W", "1.b", "2.W", "2.b"]
    with pytest.raises(TypeError, match="element 0 is a int, not a Module"):
        ml[0:1] = [3]
