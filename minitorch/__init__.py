"""minitorch: a NumPy-only autograd framework you can read, draw and trust.

Import ``minitorch`` for the core (``Variable``, ``Function``, ``Config``, ``no_grad``),
``minitorch.ops as F`` for the ops; ``nn``, ``optim`` and ``data`` build on them.
"""

from minitorch import ops
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
from minitorch.random import manual_seed

__version__ = "0.1.0"

__all__ = [
    "Config",
    "Function",
    "GradcheckError",
    "Operand",
    "Variable",
    "as_array",
    "as_variable",
    "detect_anomaly",
    "gradcheck",
    "gradgradcheck",
    "manual_seed",
    "no_grad",
    "ops",
    "test_mode",
    "using_config",
]
