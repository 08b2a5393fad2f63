"""Optimizers (``minitorch.optim``): update rules, gradient hooks and lr schedules.

Every optimizer updates ``param.data`` in place under ``no_grad()``, skips parameters
whose ``grad`` is ``None`` and never modifies a gradient array.
"""

from minitorch.optim.adaptive import AdaDelta, AdaGrad, Adam, AdamW
from minitorch.optim.optimizer import ClipGrad, Optimizer, WeightDecay
from minitorch.optim.scheduler import StepLR
from minitorch.optim.sgd import SGD, MomentumSGD

__all__ = [
    "SGD",
    "AdaDelta",
    "AdaGrad",
    "Adam",
    "AdamW",
    "ClipGrad",
    "MomentumSGD",
    "Optimizer",
    "StepLR",
    "WeightDecay",
]
