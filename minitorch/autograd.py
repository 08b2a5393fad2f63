"""``minitorch.autograd``: the backward engine as a function that returns gradients.

:func:`grad` is ``torch.autograd.grad``: the gradients of some outputs w.r.t. some
inputs, returned as a tuple, with no ``.grad`` written anywhere. ``Variable.backward``
is the other consumer of the same engine (``minitorch/core/backward.py``): it adds the
gradients into the leaves' ``.grad``.

Example:
    >>> import numpy as np
    >>> from minitorch import Variable, autograd
    >>> w = Variable(np.array([1.0, 2.0]))
    >>> autograd.grad((w * w).sum(), w)
    (variable([2. 4.]),)
"""

from minitorch.core import grad

__all__ = ["grad"]
