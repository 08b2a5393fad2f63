"""Stochastic gradient descent: ``SGD`` (with momentum, Nesterov, weight decay) and
``MomentumSGD`` (the velocity form of DeZero and Chainer)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from minitorch.core import Variable
from minitorch.optim.optimizer import Optimizer, check_fraction, check_non_negative


class SGD(Optimizer):
    """Stochastic gradient descent, optionally with (Nesterov) momentum and weight decay.

    With ``g = grad + weight_decay * p`` the update is ``p <- p - lr * g`` when
    ``momentum == 0``; otherwise a buffer ``b`` (``b = g`` at the first step, then
    ``b <- momentum * b + g``) replaces ``g``, or ``g + momentum * b`` with
    ``nesterov=True`` — PyTorch's ``torch.optim.SGD`` formulation.

    Shapes:
        each buffer has its parameter's shape and dtype.

    Args:
        params: Parameters/Variables or a Module.
        lr: learning rate.
        momentum: momentum factor in ``[0, 1)``.
        nesterov: use Nesterov momentum (needs ``momentum > 0``).
        weight_decay: L2 coefficient added to the gradient.

    Raises:
        TypeError: if ``lr``, ``momentum`` or ``weight_decay`` is not a number (the
            message names the optimizer and the value).
        ValueError: for a negative ``lr``/``weight_decay``, ``momentum`` outside
            ``[0, 1)``, or ``nesterov`` without momentum.

    Example:
        >>> w = Variable(np.array([1.0]))
        >>> opt = SGD([w], lr=0.1, momentum=0.9)
        >>> for _ in range(2):
        ...     opt.zero_grad()
        ...     (w * w).sum().backward()
        ...     opt.step()
        >>> w  # 1 - 0.1*2 = 0.8; b = 0.9*2 + 1.6 = 3.4; 0.8 - 0.34
        variable([0.46])

    References:
        H. Robbins and S. Monro, "A stochastic approximation method", Ann. Math. Statist.
        22(3), 1951. B. T. Polyak, "Some methods of speeding up the convergence of
        iteration methods", USSR Comput. Math. Math. Phys. 4(5), 1964. I. Sutskever,
        J. Martens, G. Dahl, G. Hinton, "On the importance of initialization and momentum
        in deep learning", ICML 2013 (Nesterov momentum).
    """

    def __init__(
        self,
        params: Iterable[Variable] | Any,
        lr: float = 0.01,
        momentum: float = 0.0,
        nesterov: bool = False,
        weight_decay: float = 0.0,
    ) -> None:
        super().__init__(params, lr)
        check_non_negative("SGD", weight_decay=weight_decay)
        momentum = check_fraction("SGD", "momentum", momentum)
        if nesterov and momentum == 0.0:
            raise ValueError("SGD: nesterov=True needs momentum > 0")
        self.momentum = momentum
        self.nesterov = nesterov
        self.weight_decay = weight_decay

    def update_one(self, param: Variable, grad: np.ndarray, state: dict[str, Any]) -> None:
        """``p -= lr * g`` with the momentum buffer ``state["momentum_buffer"]``."""
        if self.weight_decay:
            grad = grad + self.weight_decay * param.data
        if self.momentum:
            buf = state.get("momentum_buffer")
            if buf is None:
                # np.array, not grad.copy(): for a 0-d parameter with weight decay, grad is a
                # NumPy scalar, and `buf *= momentum` on a scalar would not update the state.
                buf = state["momentum_buffer"] = np.array(grad, dtype=param.dtype)
            else:
                buf *= self.momentum
                buf += grad
            grad = grad + self.momentum * buf if self.nesterov else buf
        param.data -= self.lr * grad


class MomentumSGD(Optimizer):
    """Momentum SGD in velocity form: ``v <- momentum * v - lr * g``, ``p <- p + v``.

    With a constant learning rate this equals :class:`SGD` with ``momentum`` (``v`` is
    ``-lr`` times its buffer); it is the form used by DeZero and Chainer and in most
    textbooks ("heavy ball").

    Shapes:
        ``state["velocity"]`` has its parameter's shape and dtype.

    Args:
        params: Parameters/Variables or a Module.
        lr: learning rate.
        momentum: momentum factor in ``[0, 1)``.

    Raises:
        TypeError: if ``lr`` or ``momentum`` is not a number.
        ValueError: for a negative ``lr`` or ``momentum`` outside ``[0, 1)``.

    Example:
        >>> w = Variable(np.array([1.0]))
        >>> opt = MomentumSGD([w], lr=0.1, momentum=0.9)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        variable([0.8])

    References:
        B. T. Polyak, "Some methods of speeding up the convergence of iteration methods",
        USSR Comput. Math. Math. Phys. 4(5), 1964. D. E. Rumelhart, G. E. Hinton,
        R. J. Williams, "Learning representations by back-propagating errors", Nature 323,
        1986.
    """

    def __init__(
        self, params: Iterable[Variable] | Any, lr: float = 0.01, momentum: float = 0.9
    ) -> None:
        super().__init__(params, lr)
        self.momentum = check_fraction("MomentumSGD", "momentum", momentum)

    def update_one(self, param: Variable, grad: np.ndarray, state: dict[str, Any]) -> None:
        """``v = momentum * v - lr * g``; ``p += v``."""
        velocity = state.get("velocity")
        if velocity is None:
            velocity = state["velocity"] = np.zeros_like(param.data)
        velocity *= self.momentum
        velocity -= self.lr * grad
        param.data += velocity
