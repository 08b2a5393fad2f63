"""Layers and models (``minitorch.nn``), in the style of ``torch.nn``.

``Module`` registers ``Parameter``s and sub-modules on attribute assignment; ``Linear``,
``Sequential``, ``MLP`` and the activation modules build on it; weights are saved and
loaded as ``.npz`` keyed by dotted parameter names.
"""

from minitorch.nn.init import init_weight
from minitorch.nn.layers import MLP, Dropout, Linear, ReLU, Sequential, Sigmoid, Tanh
from minitorch.nn.module import Module, Parameter
from minitorch.nn.weights import WeightFileError

__all__ = [
    "MLP",
    "Dropout",
    "Linear",
    "Module",
    "Parameter",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "Tanh",
    "WeightFileError",
    "init_weight",
]
