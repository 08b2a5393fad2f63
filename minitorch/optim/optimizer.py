"""``Optimizer``: the base class of update rules, and the gradient hooks.

An optimizer holds a list of Parameters. ``step()`` runs the hooks (gradient
transformations such as weight decay or clipping) on the parameters that have a
gradient, then applies the update rule to each of them under ``no_grad()``.

Updates are **in place** on ``param.data`` (``param.data -= ...``): fast, and every
reference to the parameter sees the new value. Each update counts a new version of the
parameter (``minitorch.core.bump_version``), so a graph recorded before the step
refuses to backpropagate through it. Gradients are never modified in place —
a hook that changes a gradient assigns a new ``param.grad`` Variable — because the
engine may share one gradient array between several Variables of the graph.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from minitorch.core import Variable, bump_version, no_grad

#: A hook receives the parameters that have a gradient, before the update.
Hook = Callable[[list[Variable]], None]


class Optimizer:
    """Base class: collects the parameters, runs hooks, applies ``update_one`` to each.

    Subclasses implement ``update_one(param, grad, state)``, which changes
    ``param.data`` in place from ``grad`` (an ndarray, never to be modified) and the
    per-parameter ``state`` dict (moment estimates, step counts).

    Args:
        params: an iterable of Parameters/Variables, or a Module (its ``parameters()``).
            Duplicates (shared weights) are kept once.
        lr: the learning rate, read at every step (a scheduler may change it).

    Attributes:
        params: the parameters, in order.
        lr: the learning rate.
        hooks: callables run on the parameters with a gradient before each update.
        state: one dict per parameter with the rule's buffers.

    Raises:
        TypeError: if an element of ``params`` is not a Variable, or ``lr`` is not a
            number (the message names the optimizer and the value).
        ValueError: if ``params`` is empty or ``lr`` is negative, NaN or infinite.

    Example:
        >>> from minitorch.optim import SGD
        >>> w = Variable(np.array([1.0, 2.0]))
        >>> opt = SGD([w], lr=0.5)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        variable([0. 0.])
    """

    def __init__(self, params: Iterable[Variable] | Any, lr: float = 0.01) -> None:
        self.params = _collect(type(self).__name__, params)
        check_non_negative(type(self).__name__, lr=lr)
        self.lr = float(lr)
        self.hooks: list[Hook] = []
        self.state: list[dict[str, Any]] = [{} for _ in self.params]

    def add_hook(self, hook: Hook) -> Optimizer:
        """Append a hook (e.g. :class:`WeightDecay`, :class:`ClipGrad`); returns ``self``.

        Raises:
            TypeError: if ``hook`` is not callable.
        """
        if not callable(hook):
            raise TypeError(
                f"{type(self).__name__}.add_hook: {type(hook).__name__} is not callable"
            )
        self.hooks.append(hook)
        return self

    def zero_grad(self) -> None:
        """Set every parameter's ``grad`` to ``None`` before the next backward pass."""
        for param in self.params:
            param.grad = None

    def step(self) -> None:
        """Run the hooks, then update every parameter whose ``grad`` is not ``None``."""
        with_grad = [p for p in self.params if p.grad is not None]
        for hook in self.hooks:
            hook(with_grad)
        with no_grad():
            for param, state in zip(self.params, self.state):
                if param.grad is not None:
                    self.update_one(param, param.grad.data, state)
                    bump_version(param)  # a graph recorded before the step now refuses

    def update_one(self, param: Variable, grad: np.ndarray, state: dict[str, Any]) -> None:
        """Update ``param.data`` in place from ``grad``; subclasses define the rule."""
        raise NotImplementedError(f"{type(self).__name__}.update_one is not defined")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(lr={self.lr}, params={len(self.params)})"


def _collect(owner: str, params: Any) -> list[Variable]:
    if hasattr(params, "parameters") and callable(params.parameters):
        params = params.parameters()
    if isinstance(params, Variable):
        raise TypeError(f"{owner}: params must be an iterable of Variables; wrap one in [ ]")
    if callable(params) and not hasattr(params, "__iter__"):  # model.parameters, uncalled
        name = getattr(params, "__name__", type(params).__name__)
        raise TypeError(
            f"{owner}: params is the method model.{name} itself, not called: call it, "
            f"model.{name}() (or pass the model itself)"
        )
    collected: list[Variable] = []
    seen: set[int] = set()
    for i, param in enumerate(params):
        if not isinstance(param, Variable):
            raise TypeError(f"{owner}: params[{i}] is a {type(param).__name__}, not a Variable")
        if id(param) not in seen:
            seen.add(id(param))
            collected.append(param)
    if not collected:
        raise ValueError(f"{owner}: got an empty list of parameters")
    return collected


def check_non_negative(owner: str, **values: object) -> None:
    """Check the optimizers' rates and coefficients (``lr=...``, ``eps=...``) at construction.

    Each must be a finite real number ``>= 0`` (a Python or NumPy int or float; not a
    ``bool``, a string or a Variable).

    Raises:
        TypeError: naming ``owner``, the argument and the value, if it is not a number
            (``lr="0.1"`` fails here, not with ``'>=' not supported ...`` later).
        ValueError: naming ``owner`` and the first argument that is negative, NaN or
            infinite.

    Example:
        >>> check_non_negative("SGD", lr=0.1, weight_decay=-1.0)
        Traceback (most recent call last):
        ...
        ValueError: SGD: weight_decay must be non-negative, got -1.0
        >>> check_non_negative("SGD", lr="0.1")
        Traceback (most recent call last):
        ...
        TypeError: SGD: lr must be a number, got '0.1' (str)
    """
    for name, value in values.items():
        number = check_number(owner, name, value)
        if not 0.0 <= number < math.inf:  # also rejects NaN
            raise ValueError(f"{owner}: {name} must be non-negative, got {value}")


def check_number(owner: str, name: str, value: object) -> float:
    """Return ``value`` as a float if it is a real number (``bool`` excluded).

    Raises:
        TypeError: naming ``owner``, ``name`` and the value's type otherwise.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        kind = type(value).__name__
        raise TypeError(f"{owner}: {name} must be a number, got {value!r} ({kind})")
    return float(value)


def check_fraction(owner: str, name: str, value: object, closed: bool = False) -> float:
    """Return a decay coefficient as a float in ``[0, 1)`` (``[0, 1]`` with ``closed``).

    Raises:
        TypeError: if ``value`` is not a real number.
        ValueError: naming ``owner``, ``name`` and ``value`` if it is out of range or NaN.

    Example:
        >>> check_fraction("SGD", "momentum", 1.0)
        Traceback (most recent call last):
        ...
        ValueError: SGD: momentum must be in [0, 1), got 1.0
    """
    number = check_number(owner, name, value)
    if not (0.0 <= number <= 1.0 if closed else 0.0 <= number < 1.0):  # rejects NaN too
        raise ValueError(f"{owner}: {name} must be in [0, 1{']' if closed else ')'}, got {value}")
    return number


class WeightDecay:
    """Hook adding L2 weight decay to the gradients: ``g <- g + rate * p``.

    This is the gradient of ``rate / 2 * ||p||²`` added to the loss. For adaptive
    optimizers prefer :class:`~minitorch.optim.AdamW`'s decoupled decay.

    Args:
        rate: the decay coefficient (≥ 0).

    Raises:
        TypeError: if ``rate`` is not a number.
        ValueError: if ``rate`` is negative.

    Example:
        >>> p = Variable(np.array([2.0]))
        >>> p.grad = Variable(np.array([1.0]))
        >>> WeightDecay(0.5)([p])
        >>> p.grad
        variable([2.])

    References:
        A. Krogh and J. A. Hertz, "A simple weight decay can improve generalization",
        NeurIPS 1992.
    """

    def __init__(self, rate: float) -> None:
        check_non_negative("WeightDecay", rate=rate)
        self.rate = rate

    def __call__(self, params: list[Variable]) -> None:
        for param in params:
            assert param.grad is not None
            # np.asarray: for 0-d arrays NumPy returns a scalar, which Variable rejects.
            grad = np.asarray(param.grad.data + self.rate * param.data)
            param.grad = Variable(grad, requires_grad=False)

    def __repr__(self) -> str:
        return f"WeightDecay({self.rate})"


class ClipGrad:
    """Hook clipping the global gradient norm: if ``‖g‖ > max_norm``, ``g <- g * max_norm / ‖g‖``.

    ``‖g‖`` is the L2 norm of all gradients concatenated, so the direction of the joint
    update is kept (as ``torch.nn.utils.clip_grad_norm_``, with its ``1e-6`` guard).
    The norm before clipping is kept in ``last_norm``, useful to log.

    Args:
        max_norm: the largest allowed global norm (> 0).

    Raises:
        TypeError: if ``max_norm`` is not a number.
        ValueError: if ``max_norm`` is not positive.

    Example:
        >>> p = Variable(np.array([0.0]))
        >>> p.grad = Variable(np.array([-10.0]))
        >>> clip = ClipGrad(2.0)
        >>> clip([p])
        >>> clip.last_norm, p.grad.data.round(4)
        (10.0, array([-2.]))

    References:
        R. Pascanu, T. Mikolov, Y. Bengio, "On the difficulty of training recurrent
        neural networks", ICML 2013, section 3.2.
    """

    def __init__(self, max_norm: float) -> None:
        if not check_number("ClipGrad", "max_norm", max_norm) > 0.0:
            raise ValueError(f"ClipGrad: max_norm must be positive, got {max_norm}")
        self.max_norm = max_norm
        self.last_norm = 0.0

    def __call__(self, params: list[Variable]) -> None:
        grads = [p.grad.data for p in params if p.grad is not None]
        self.last_norm = float(np.sqrt(sum(float(np.sum(np.square(g))) for g in grads)))
        scale = self.max_norm / (self.last_norm + 1e-6)
        if scale < 1.0:
            for param in params:
                if param.grad is None:  # a parameter no loss reached: nothing to scale
                    continue
                grad = np.asarray(param.grad.data * scale)  # 0-d: a scalar otherwise
                param.grad = Variable(grad, requires_grad=False)

    def __repr__(self) -> str:
        return f"ClipGrad(max_norm={self.max_norm})"
