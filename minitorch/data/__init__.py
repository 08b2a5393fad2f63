"""Datasets, mini-batch loading and per-sample transforms (``minitorch.data``).

``Dataset`` holds samples (``ds[i] -> (x, t)``), ``DataLoader`` yields shuffled ndarray
mini-batches, and the built-in datasets (``Spiral``, ``SineCurve``, ``Digits``,
``MNIST``) work offline.
"""

from minitorch.data.dataloader import DataLoader
from minitorch.data.dataset import ArrayDataset, Dataset
from minitorch.data.datasets import Digits, SineCurve, Spiral
from minitorch.data.mnist import MNIST, IDXError, read_idx
from minitorch.data.transforms import Compose, Flatten, Normalize, ToFloat

__all__ = [
    "MNIST",
    "ArrayDataset",
    "Compose",
    "DataLoader",
    "Dataset",
    "Digits",
    "Flatten",
    "IDXError",
    "Normalize",
    "SineCurve",
    "Spiral",
    "ToFloat",
    "read_idx",
]
