"""Adaptive learning-rate methods: ``AdaGrad``, ``AdaDelta``, ``Adam`` and ``AdamW``.

Each keeps running statistics of the gradient per parameter (in ``state``) and scales
the step element by element. The formulas follow the papers, written the way PyTorch's
``torch.optim`` implements them (``eps`` placement included), so results can be compared.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from minitorch.core import Variable
from minitorch.optim.optimizer import Optimizer, check_fraction, check_non_negative


class AdaGrad(Optimizer):
    """AdaGrad: ``h <- h + g²``, ``p <- p - lr * g / (sqrt(h) + eps)``.

    Parameters with rarely large gradients keep large steps; the effective rate decays
    as squared gradients accumulate.

    Shapes:
        ``state["sum"]`` has its parameter's shape.

    Args:
        params: Parameters/Variables or a Module.
        lr: learning rate.
        eps: added to the denominator for stability.

    Raises:
        TypeError: if ``lr`` or ``eps`` is not a number (the message names AdaGrad).
        ValueError: if ``lr`` or ``eps`` is negative.

    Example:
        >>> w = Variable(np.array([1.0]))
        >>> opt = AdaGrad([w], lr=0.1, eps=0.0)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w  # 1 - 0.1 * 2 / 2
        variable([0.9])

    References:
        J. Duchi, E. Hazan, Y. Singer, "Adaptive subgradient methods for online learning
        and stochastic optimization", JMLR 12, 2011.
    """

    def __init__(
        self, params: Iterable[Variable] | Any, lr: float = 0.01, eps: float = 1e-10
    ) -> None:
        super().__init__(params, lr)
        check_non_negative("AdaGrad", eps=eps)
        self.eps = eps

    def update_one(self, param: Variable, grad: np.ndarray, state: dict[str, Any]) -> None:
        """Accumulate ``g²`` and take the scaled step."""
        total = state.setdefault("sum", np.zeros_like(param.data))
        total += grad * grad
        param.data -= self.lr * grad / (np.sqrt(total) + self.eps)


class AdaDelta(Optimizer):
    """AdaDelta: a step whose units match the parameter, without a hand-set rate.

    ``E[g²] <- rho E[g²] + (1 - rho) g²``;
    ``Δ = sqrt(E[Δ²] + eps) / sqrt(E[g²] + eps) * g``;
    ``E[Δ²] <- rho E[Δ²] + (1 - rho) Δ²``; ``p <- p - lr * Δ`` (``lr = 1`` in the paper).

    Shapes:
        ``state["square_avg"]`` and ``state["acc_delta"]`` have the parameter's shape.

    Args:
        params: Parameters/Variables or a Module.
        lr: scale of the step (1.0 is the paper's method).
        rho: decay of the running averages, in ``[0, 1]`` (the paper's 0.95; PyTorch's
            default is 0.9).
        eps: the constant inside both square roots.

    Raises:
        TypeError: if ``lr``, ``rho`` or ``eps`` is not a number.
        ValueError: if ``lr``/``eps`` is negative or ``rho`` is outside ``[0, 1]``.

    Example:
        >>> w = Variable(np.array([1.0]))
        >>> opt = AdaDelta([w], rho=0.0, eps=1e-4)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w  # 1 - sqrt(1e-4) / sqrt(4 + 1e-4) * 2 ≈ 1 - 0.01
        variable([0.99000012])

    References:
        M. D. Zeiler, "ADADELTA: An adaptive learning rate method", arXiv:1212.5701, 2012,
        Algorithm 1.
    """

    def __init__(
        self,
        params: Iterable[Variable] | Any,
        lr: float = 1.0,
        rho: float = 0.95,
        eps: float = 1e-6,
    ) -> None:
        super().__init__(params, lr)
        check_non_negative("AdaDelta", eps=eps)
        self.rho = check_fraction("AdaDelta", "rho", rho, closed=True)
        self.eps = eps

    def update_one(self, param: Variable, grad: np.ndarray, state: dict[str, Any]) -> None:
        """Update both running averages and take the step."""
        square_avg = state.setdefault("square_avg", np.zeros_like(param.data))
        acc_delta = state.setdefault("acc_delta", np.zeros_like(param.data))
        rho = self.rho
        square_avg *= rho
        square_avg += (1.0 - rho) * grad * grad
        delta = np.sqrt(acc_delta + self.eps) / np.sqrt(square_avg + self.eps) * grad
        acc_delta *= rho
        acc_delta += (1.0 - rho) * delta * delta
        param.data -= self.lr * delta


class Adam(Optimizer):
    """Adam: bias-corrected running moments of the gradient.

    At step ``t`` with ``g = grad + weight_decay * p``:
    ``m <- β1 m + (1 - β1) g``; ``v <- β2 v + (1 - β2) g²``;
    ``p <- p - lr * m̂ / (sqrt(v̂) + eps)`` with ``m̂ = m / (1 - β1^t)``,
    ``v̂ = v / (1 - β2^t)``.

    Shapes:
        ``state["m"]`` and ``state["v"]`` have the parameter's shape; ``state["step"]``
        is the parameter's own step count ``t`` (parameters without a gradient at some
        step do not advance).

    Args:
        params: Parameters/Variables or a Module.
        lr: learning rate (the paper's ``α``).
        betas: ``(β1, β2)``, each in ``[0, 1)``.
        eps: added to ``sqrt(v̂)``.
        weight_decay: L2 coefficient added to the gradient, so it enters the moments and
            is rescaled by ``1 / sqrt(v̂)`` like the gradient (coupled; :class:`AdamW`
            decouples it).

    Raises:
        TypeError: if ``lr``/``eps``/``weight_decay`` is not a number or ``betas`` is not a
            pair of numbers (the message names the optimizer and the value).
        ValueError: for negative ``lr``/``eps``/``weight_decay`` or betas outside ``[0, 1)``.

    Example:
        >>> w = Variable(np.array([1.0]))
        >>> opt = Adam([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w  # the first step moves every coordinate by about lr
        variable([0.9])

    References:
        D. P. Kingma and J. Ba, "Adam: A method for stochastic optimization", ICLR 2015,
        arXiv:1412.6980, Algorithm 1.
    """

    def __init__(
        self,
        params: Iterable[Variable] | Any,
        lr: float = 0.001,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
    ) -> None:
        super().__init__(params, lr)
        name = type(self).__name__
        check_non_negative(name, eps=eps, weight_decay=weight_decay)
        if not isinstance(betas, (tuple, list)) or len(betas) != 2:
            raise TypeError(f"{name}: betas must be a pair of numbers in [0, 1), got {betas!r}")
        self.betas = (
            check_fraction(name, "betas[0]", betas[0]),
            check_fraction(name, "betas[1]", betas[1]),
        )
        self.eps = eps
        self.weight_decay = weight_decay

    def update_one(self, param: Variable, grad: np.ndarray, state: dict[str, Any]) -> None:
        """Update the moments and take the bias-corrected step."""
        if self.weight_decay:
            grad = grad + self.weight_decay * param.data
        self._adam_step(param, grad, state)

    def _adam_step(self, param: Variable, grad: np.ndarray, state: dict[str, Any]) -> None:
        beta1, beta2 = self.betas
        m = state.setdefault("m", np.zeros_like(param.data))
        v = state.setdefault("v", np.zeros_like(param.data))
        state["step"] = step = state.get("step", 0) + 1
        m *= beta1
        m += (1.0 - beta1) * grad
        v *= beta2
        v += (1.0 - beta2) * grad * grad
        m_hat = m / (1.0 - beta1**step)
        v_hat = v / (1.0 - beta2**step)
        param.data -= self.lr * m_hat / (np.sqrt(v_hat) + self.eps)


class AdamW(Adam):
    """AdamW: Adam with decoupled weight decay, ``p <- p - lr * weight_decay * p`` first.

    The decay shrinks the weights directly instead of entering the moment estimates, so
    a weight's decay does not depend on its gradient history (under :class:`Adam`'s
    coupled ``weight_decay`` a weight with large gradients is barely decayed). Then the
    :class:`Adam` step follows with the raw gradient: the moments, bias correction,
    ``state`` and the arguments ``params``, ``lr``, ``betas``, ``eps`` are Adam's.

    Args:
        weight_decay: the decoupled decay coefficient, PyTorch's default 0.01 (with 0,
            AdamW is Adam).

    Raises:
        TypeError: as Adam's (the message names AdamW).
        ValueError: for negative ``lr``/``eps``/``weight_decay`` or betas outside ``[0, 1)``
            (the message names AdamW).

    Example:
        >>> w = Variable(np.array([1.0]))
        >>> opt = AdamW([w], lr=0.1, weight_decay=0.5)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w  # 1 * (1 - 0.1 * 0.5) - 0.1
        variable([0.85])

    References:
        I. Loshchilov and F. Hutter, "Decoupled weight decay regularization", ICLR 2019,
        arXiv:1711.05101, Algorithm 2.
    """

    def __init__(
        self,
        params: Iterable[Variable] | Any,
        lr: float = 0.001,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.01,
    ) -> None:  # Adam's, with PyTorch's AdamW default for weight_decay
        super().__init__(params, lr, betas, eps, weight_decay)

    def update_one(self, param: Variable, grad: np.ndarray, state: dict[str, Any]) -> None:
        """Shrink the weights, then take the Adam step with the raw gradient."""
        if self.weight_decay:
            param.data *= 1.0 - self.lr * self.weight_decay
        self._adam_step(param, grad, state)
