"""Function transforms (``import minitorch.func as mf``), after JAX and ``torch.func``.

* forward mode: :func:`jvp` (one pass with tangents, no backward), :func:`jacfwd`;
* reverse mode: :func:`vjp`, :func:`grad`, :func:`value_and_grad` (JAX's order),
  :func:`grad_and_value` (torch.func's order), :func:`jacrev`;
* second order: :func:`hessian` (forward-over-reverse), :func:`hvp`.

Each returns functions or values that other transforms can differentiate again.
Importing this package also installs the double-vjp fallback that gives tangents to a
user Function without a ``jvp`` rule.
"""

from minitorch.func.reverse import double_vjp
from minitorch.func.transforms import (
    grad,
    grad_and_value,
    hessian,
    hvp,
    jacfwd,
    jacrev,
    jvp,
    value_and_grad,
    vjp,
)

__all__ = [
    "double_vjp",
    "grad",
    "grad_and_value",
    "hessian",
    "hvp",
    "jacfwd",
    "jacrev",
    "jvp",
    "value_and_grad",
    "vjp",
]
