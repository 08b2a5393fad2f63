"""Learning-rate schedules: ``StepLR``."""

from __future__ import annotations

import numpy as np

from minitorch.optim.optimizer import Optimizer, check_number


class StepLR:
    """Multiply the learning rate by ``gamma`` every ``step_size`` epochs.

    ``lr(epoch) = base_lr * gamma ** (epoch // step_size)``; call :meth:`step` once at
    the end of each epoch, after the optimizer's steps (as ``torch.optim.lr_scheduler``).

    Args:
        optimizer: the optimizer whose ``lr`` to set.
        step_size: epochs between decays (≥ 1).
        gamma: the decay factor.

    Attributes:
        base_lr: the optimizer's ``lr`` when the scheduler was made.
        last_epoch: the number of ``step()`` calls so far.

    Raises:
        TypeError: if ``optimizer`` is not an :class:`Optimizer`, ``step_size`` is not an
            int or ``gamma`` not a number.
        ValueError: if ``step_size < 1`` or ``gamma`` is not positive.

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> from minitorch.optim import SGD
        >>> opt = SGD([Variable(np.zeros(1))], lr=1.0)
        >>> sched = StepLR(opt, step_size=2, gamma=0.5)
        >>> lrs = []
        >>> for epoch in range(5):
        ...     lrs.append(opt.lr)
        ...     sched.step()
        >>> lrs
        [1.0, 1.0, 0.5, 0.5, 0.25]

    References:
        I. Goodfellow, Y. Bengio, A. Courville, *Deep Learning* (MIT Press, 2016),
        section 8.3.1 (learning-rate decay for SGD).
    """

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"StepLR: expected an Optimizer, got {type(optimizer).__name__}")
        if isinstance(step_size, bool) or not isinstance(step_size, (int, np.integer)):
            raise TypeError(f"StepLR: step_size must be an int, got {step_size!r}")
        if step_size < 1:
            raise ValueError(f"StepLR: step_size must be >= 1, got {step_size}")
        if not check_number("StepLR", "gamma", gamma) > 0.0:
            raise ValueError(f"StepLR: gamma must be positive, got {gamma}")
        self.optimizer = optimizer
        self.step_size = step_size
        self.gamma = gamma
        self.base_lr = optimizer.lr
        self.last_epoch = 0

    def step(self) -> None:
        """End an epoch: advance the count and set the optimizer's ``lr``."""
        self.last_epoch += 1
        self.optimizer.lr = self.base_lr * self.gamma ** (self.last_epoch // self.step_size)

    def get_last_lr(self) -> float:
        """The learning rate now in force."""
        return self.optimizer.lr

    def __repr__(self) -> str:
        return f"StepLR(step_size={self.step_size}, gamma={self.gamma}, lr={self.optimizer.lr})"
