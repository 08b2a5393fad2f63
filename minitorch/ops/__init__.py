"""Every differentiable op of minitorch (``import minitorch.ops as F``).

Modules form a fixed order — reshape, arithmetic, math, reduce, linalg, indexing,
activation, loss, conv — and each imports only earlier ones. Importing this package
binds the operators onto ``Variable`` (see :mod:`minitorch.ops.variable_methods`).
"""

from minitorch.ops.arithmetic import add, div, mul, neg, sub
from minitorch.ops.math import abs, cos, exp, log, pow, sin, sqrt, square, tanh
from minitorch.ops.reduce import mean, sum
from minitorch.ops.reshape import broadcast_to, reshape, sum_to, sum_to_array, transpose
from minitorch.ops.variable_methods import install as _install

_install()

__all__ = [
    "abs",
    "add",
    "broadcast_to",
    "cos",
    "div",
    "exp",
    "log",
    "mean",
    "mul",
    "neg",
    "pow",
    "reshape",
    "sin",
    "sqrt",
    "square",
    "sub",
    "sum",
    "sum_to",
    "sum_to_array",
    "tanh",
    "transpose",
]
