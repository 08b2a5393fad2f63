"""Layers and models (``minitorch.nn``), in the style of ``torch.nn``.

``Module`` registers ``Parameter``s and sub-modules on attribute assignment (and
``ModuleList``/``ModuleDict`` hold a variable number of them); ``Linear``, ``Sequential``,
``MLP`` and the activation modules build on it; weights are saved and
loaded as ``.npz`` keyed by dotted parameter names.
"""

from minitorch.nn.attention import GELU, MultiheadAttention, Projection
from minitorch.nn.containers import ModuleDict, ModuleList
from minitorch.nn.conv import AvgPool2d, Conv2d, ConvTranspose2d, Flatten, MaxPool2d
from minitorch.nn.embedding import Embedding
from minitorch.nn.init import init_weight
from minitorch.nn.layers import (
    MLP,
    Activation,
    Dropout,
    Linear,
    ReLU,
    Sequential,
    Sigmoid,
    Tanh,
)
from minitorch.nn.module import Module, Parameter
from minitorch.nn.normalization import BatchNorm, BatchNorm1d, BatchNorm2d, LayerNorm
from minitorch.nn.recurrent import LSTM, RNN
from minitorch.nn.transformer import (
    LearnedPositionalEmbedding,
    SinusoidalPositionalEncoding,
    TransformerEncoderLayer,
    sinusoidal_positions,
)
from minitorch.nn.weights import WeightFileError

__all__ = [
    "Activation",
    "AvgPool2d",
    "BatchNorm",
    "BatchNorm1d",
    "BatchNorm2d",
    "Conv2d",
    "ConvTranspose2d",
    "Dropout",
    "Embedding",
    "Flatten",
    "GELU",
    "LSTM",
    "LayerNorm",
    "LearnedPositionalEmbedding",
    "Linear",
    "MLP",
    "MaxPool2d",
    "Module",
    "ModuleDict",
    "ModuleList",
    "MultiheadAttention",
    "Parameter",
    "Projection",
    "RNN",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "SinusoidalPositionalEncoding",
    "Tanh",
    "TransformerEncoderLayer",
    "WeightFileError",
    "init_weight",
    "sinusoidal_positions",
]
