"""minitorch: a NumPy-only autograd framework you can read, draw and trust.

Import ``minitorch`` for the core (``Variable``, ``Function``, ``Config``, ``no_grad``),
``minitorch.ops as F`` for the ops; ``nn``, ``optim`` and ``data`` build on them.
"""

from minitorch import autograd, data, nn, ops, optim
from minitorch.checkpointing import checkpoint
from minitorch.core import (
    Config,
    Function,
    Operand,
    Variable,
    as_array,
    as_variable,
    detect_anomaly,
    no_grad,
    test_mode,
    using_config,
)
from minitorch.gradcheck import GradcheckError, gradcheck, gradgradcheck
from minitorch.history import History
from minitorch.nn import Parameter
from minitorch.profiler import profile
from minitorch.random import manual_seed

__version__ = "0.1.0"

__all__ = [
    "Config",
    "Function",
    "GradcheckError",
    "History",
    "Operand",
    "Parameter",
    "Variable",
    "as_array",
    "as_variable",
    "autograd",
    "checkpoint",
    "data",
    "detect_anomaly",
    "gradcheck",
    "gradgradcheck",
    "manual_seed",
    "nn",
    "no_grad",
    "ops",
    "optim",
    "profile",
    "test_mode",
    "using_config",
]
