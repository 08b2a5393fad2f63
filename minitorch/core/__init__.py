"""The autograd core: Variable, Function, Config and the backward engine (``grad``).

Nothing here imports ``minitorch.ops`` or any layer above it; operators are bound onto
``Variable`` by ``minitorch/ops/variable_methods.py``.
"""

from minitorch.core.backward import grad
from minitorch.core.config import Config, detect_anomaly, no_grad, test_mode, using_config
from minitorch.core.function import Function
from minitorch.core.inplace import bump_version
from minitorch.core.saved import Unsaved, grad_key, saved_arrays
from minitorch.core.variable import Operand, Variable, as_array, as_variable

__all__ = [
    "Config",
    "Function",
    "Operand",
    "Unsaved",
    "Variable",
    "as_array",
    "as_variable",
    "bump_version",
    "detect_anomaly",
    "grad",
    "grad_key",
    "no_grad",
    "saved_arrays",
    "test_mode",
    "using_config",
]
