"""Layer constructors reject bad arguments at once, naming the layer and the argument.

Before, ``Linear('a', 2)`` failed with NumPy's ``'<' not supported between 'str' and
'int'`` and ``Embedding(2.5, 3)`` or ``LSTM(None, 'h')`` with similar raw errors.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from minitorch import nn

BAD_TYPES: list[tuple[str, Callable[[], object], str]] = [
    ("Linear", lambda: nn.Linear("a", 2), "Linear: in_features must be a positive int or None"),  # type: ignore[arg-type]
    ("Linear", lambda: nn.Linear(2, 2.0), "Linear: out_features must be a positive int"),  # type: ignore[arg-type]
    ("Linear", lambda: nn.Linear(True, 2), "Linear: in_features"),
    ("Conv2d", lambda: nn.Conv2d("3", 4, 3), "Conv2d: in_channels"),  # type: ignore[arg-type]
    ("Conv2d", lambda: nn.Conv2d(3, None, 3), "Conv2d: out_channels"),  # type: ignore[arg-type]
    ("ConvTranspose2d", lambda: nn.ConvTranspose2d(None, 4, 3), "ConvTranspose2d: in_channels"),  # type: ignore[arg-type]
    ("Conv2d", lambda: nn.Conv2d(3, 4, (3, True)), r"Conv2d: kernel_size .* got \(3, True\)"),
    ("Conv2d", lambda: nn.Conv2d(3, 4, (3, 3, 3)), "Conv2d: kernel_size must be an int or a pair"),  # type: ignore[arg-type]
    ("ConvTranspose2d", lambda: nn.ConvTranspose2d(3, 4, "3"), "ConvTranspose2d: kernel_size"),  # type: ignore[arg-type]
    ("Embedding", lambda: nn.Embedding(2.5, 3), "Embedding: num_embeddings"),  # type: ignore[arg-type]
    ("Embedding", lambda: nn.Embedding(10, "3"), "Embedding: embedding_dim"),  # type: ignore[arg-type]
    ("RNN", lambda: nn.RNN("x", 4), "RNN: input_size"),  # type: ignore[arg-type]
    ("LSTM", lambda: nn.LSTM(3, "h"), "LSTM: hidden_size"),  # type: ignore[arg-type]
    ("BatchNorm1d", lambda: nn.BatchNorm1d("4"), "BatchNorm1d: num_features"),  # type: ignore[arg-type]
    ("BatchNorm2d", lambda: nn.BatchNorm2d(4.0), "BatchNorm2d: num_features"),  # type: ignore[arg-type]
    ("LayerNorm", lambda: nn.LayerNorm("4"), "LayerNorm: normalized_shape"),  # type: ignore[arg-type]
    ("Dropout", lambda: nn.Dropout("0.5"), "Dropout: p must be a number"),  # type: ignore[arg-type]
    ("MLP", lambda: nn.MLP([2, "3", 1]), r"MLP: sizes\[1\]"),  # type: ignore[list-item]
    ("MLP", lambda: nn.MLP([2, 3], dropout="x"), "MLP: dropout"),  # type: ignore[arg-type]
    # h35: stride/padding/eps/momentum were not checked at construction
    ("Conv2d", lambda: nn.Conv2d(3, 4, 3, stride="2"), "Conv2d: stride must be an int or a pair"),  # type: ignore[arg-type]
    ("Conv2d", lambda: nn.Conv2d(3, 4, 3, padding=1.5), "Conv2d: padding must be an int"),  # type: ignore[arg-type]
    ("MaxPool2d", lambda: nn.MaxPool2d("2"), "MaxPool2d: kernel_size"),  # type: ignore[arg-type]
    ("BatchNorm1d", lambda: nn.BatchNorm1d(3, momentum="0.1"), "BatchNorm1d: momentum must be a"),  # type: ignore[arg-type]
    ("BatchNorm1d", lambda: nn.BatchNorm1d(3, eps="1e-5"), "BatchNorm1d: eps must be a pos"),  # type: ignore[arg-type]
    ("LayerNorm", lambda: nn.LayerNorm(3, eps=None), "LayerNorm: eps must be a positive number"),  # type: ignore[arg-type]
]  # fmt: skip

BAD_VALUES: list[tuple[str, Callable[[], object], str]] = [
    ("Linear", lambda: nn.Linear(3, 0), "Linear: out_features must be positive, got 0"),
    ("Linear", lambda: nn.Linear(-1, 2), "Linear: in_features must be positive, got -1"),
    ("Conv2d", lambda: nn.Conv2d(0, 4, 3), "Conv2d: in_channels must be positive"),
    ("Conv2d", lambda: nn.Conv2d(3, 4, (3, 0)), r"Conv2d: kernel_size must be positive"),
    ("ConvTranspose2d", lambda: nn.ConvTranspose2d(3, 4, -1), "ConvTranspose2d: kernel_size must"),
    ("Embedding", lambda: nn.Embedding(0, 3), "Embedding: num_embeddings must be positive"),
    ("RNN", lambda: nn.RNN(3, 0), "RNN: hidden_size must be positive"),
    ("LSTM", lambda: nn.LSTM(-2, 4), "LSTM: input_size must be positive"),
    ("BatchNorm2d", lambda: nn.BatchNorm2d(0), "BatchNorm2d: num_features must be positive"),
    ("LayerNorm", lambda: nn.LayerNorm((4, 0)), "LayerNorm: normalized_shape must be positive"),
    ("Dropout", lambda: nn.Dropout(-0.1), r"Dropout: p must be in \[0, 1\]"),
    ("Dropout", lambda: nn.Dropout(math.nan), r"Dropout: p must be in \[0, 1\]"),
    ("MLP", lambda: nn.MLP([2, 0, 1]), r"MLP: sizes\[1\] must be positive"),
    # h35: stride/padding/eps/momentum were not checked at construction
    ("Conv2d", lambda: nn.Conv2d(3, 4, 3, stride=0), "Conv2d: stride must be positive, got 0"),
    ("Conv2d", lambda: nn.Conv2d(3, 4, 3, stride=(1, 0)), r"Conv2d: stride .* got \(1, 0\)"),
    ("Conv2d", lambda: nn.Conv2d(3, 4, 3, padding=-1), "Conv2d: padding must be non-negative"),
    ("ConvTranspose2d", lambda: nn.ConvTranspose2d(3, 4, 2, stride=0), "ConvTranspose2d: stride"),
    ("ConvTranspose2d", lambda: nn.ConvTranspose2d(3, 4, 2, padding=-1), "ConvTranspose2d: pad"),
    ("MaxPool2d", lambda: nn.MaxPool2d(2, stride=0), "MaxPool2d: stride must be positive"),
    ("AvgPool2d", lambda: nn.AvgPool2d(0), "AvgPool2d: kernel_size must be positive"),
    ("AvgPool2d", lambda: nn.AvgPool2d(2, padding=-1), "AvgPool2d: padding must be non-neg"),
    # refused at construction, as torch.nn.AvgPool2d(2, padding=2) (was: at the first call)
    ("AvgPool2d", lambda: nn.AvgPool2d(2, padding=2), r"AvgPool2d: padding \(2, 2\) .* half"),
    ("MaxPool2d", lambda: nn.MaxPool2d((4, 2), padding=(2, 2)), r"MaxPool2d: padding .* half"),
    ("BatchNorm1d", lambda: nn.BatchNorm1d(3, momentum=1.5), r"BatchNorm1d: momentum .*1\.5"),
    ("BatchNorm2d", lambda: nn.BatchNorm2d(3, momentum=-0.1), "BatchNorm2d: momentum must be"),
    ("BatchNorm1d", lambda: nn.BatchNorm1d(3, momentum=math.nan), "BatchNorm1d: momentum"),
    ("BatchNorm1d", lambda: nn.BatchNorm1d(3, eps=0.0), "BatchNorm1d: eps must be a positive"),
    ("BatchNorm", lambda: nn.BatchNorm(3, eps=-1e-5), "BatchNorm: eps must be a positive"),
    ("LayerNorm", lambda: nn.LayerNorm(3, eps=0), "LayerNorm: eps must be a positive number"),
]


@pytest.mark.parametrize("layer, build, message", BAD_TYPES, ids=[m for _, _, m in BAD_TYPES])
def test_a_size_of_the_wrong_type_is_a_type_error_naming_layer_and_argument(
    layer: str, build: Callable[[], object], message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        build()


@pytest.mark.parametrize("layer, build, message", BAD_VALUES, ids=[m for _, _, m in BAD_VALUES])
def test_a_non_positive_size_is_a_value_error_naming_layer_and_argument(
    layer: str, build: Callable[[], object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        build()


def test_numpy_integers_and_lazy_sizes_are_accepted() -> None:
    layer = nn.Linear(np.int64(3), np.int32(2), rng=0)
    assert type(layer.in_features) is int and layer.out_features == 2
    assert nn.Linear(None, 2).in_features is None
    assert nn.LSTM(None, 4).input_size is None
    assert nn.BatchNorm1d().num_features is None
    assert nn.Dropout(1).p == 1.0  # like F.dropout and PyTorch: everything dropped


def test_pool_padding_over_half_the_kernel_is_refused_at_construction_as_torch() -> None:
    torch = pytest.importorskip("torch")
    for build in (nn.AvgPool2d, nn.MaxPool2d):
        with pytest.raises(ValueError, match=rf"{build.__name__}: padding \(2, 2\)"):
            build(2, padding=2)
        build(2, padding=1)  # half the kernel is allowed, as in PyTorch
    with pytest.raises(RuntimeError, match="at most half"):
        torch.nn.AvgPool2d(2, padding=2)(torch.ones(1, 1, 4, 4))


def test_mlp_of_separate_sizes_says_to_pass_one_list():
    with pytest.raises(TypeError, match=r"nn\.MLP\(\[3, 4, 1\]\)"):
        nn.MLP(3, [4], 1)  # type: ignore[arg-type]
    assert nn.MLP([3, 4, 1], rng=0)(np.zeros((2, 3), np.float32)).shape == (2, 1)
