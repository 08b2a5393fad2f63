"""Recurrent layers: ``RNN`` (Elman) and ``LSTM``, single layer, batch first.

Both keep their hidden state between calls, so a long sequence can be fed one step (or
one chunk) at a time, DeZero-style. The graph then grows across calls; truncated
backpropagation through time cuts it after each chunk with ``loss.unchain_backward()``
(or ``layer.unchain_state()``): the state keeps its value but becomes a leaf. Call
``reset_state()`` before an unrelated sequence.

Weights: ``x2h`` (a ``Linear`` from the input, with the bias) and ``h2h`` (a ``Linear``
from the previous hidden state, without bias). For the LSTM both produce the four gates
stacked in PyTorch's order ``i, f, g, o``, so ``torch.nn.LSTM`` weights copy over as
``x2h.W = weight_ih``, ``h2h.W = weight_hh``, ``x2h.b = bias_ih + bias_hh``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import minitorch.ops as F
from minitorch.core import Operand, Variable
from minitorch.nn.checks import check_lazy_size, check_size
from minitorch.nn.init import RNGLike, as_generator
from minitorch.nn.layers import Linear
from minitorch.nn.module import Module

_NONLINEARITIES = {"tanh": F.tanh, "relu": F.relu}


class _Recurrent(Module):
    """Shared plumbing: weights, the shape checks and the loop over time steps."""

    gates = 1

    def __init__(
        self,
        input_size: int | None,
        hidden_size: int,
        bias: bool,
        rng: RNGLike,
        dtype: Any,
    ) -> None:
        super().__init__()
        input_size = check_lazy_size(type(self).__name__, "input_size", input_size)
        hidden_size = check_size(type(self).__name__, "hidden_size", hidden_size)
        generator = as_generator(rng)
        size = self.gates * hidden_size
        self.input_size, self.hidden_size = input_size, hidden_size
        self.x2h = Linear(input_size, size, bias=bias, rng=generator, dtype=dtype)
        self.h2h = Linear(hidden_size, size, bias=False, rng=generator, dtype=dtype)
        self.h: Variable | None = None

    def reset_state(self) -> None:
        """Forget the hidden state: the next call starts a new sequence."""
        self.h = None

    def unchain_state(self) -> None:
        """Keep the state's value but cut the graph behind it (truncated BPTT)."""
        if self.h is not None:
            self.h.unchain_backward()

    def step(self, x: Operand) -> Variable:
        """Advance one time step on ``x`` of shape ``(N, input_size)``; return ``h``."""
        raise NotImplementedError

    def forward(self, x: Operand) -> Variable:
        """One step for ``(N, input_size)`` input, every step for ``(N, T, input_size)``.

        Returns ``h`` of shape ``(N, hidden_size)``, or all of them, ``(N, T, hidden_size)``.
        """
        shape = np.shape(x.data if isinstance(x, Variable) else x)
        expected = self.x2h.in_features  # None until a lazy layer sees its first input
        if len(shape) not in (2, 3) or shape[-1] != (expected or shape[-1]):
            size = expected or "input_size"
            raise ValueError(
                f"{type(self).__name__}: expected input (N, {size}) or (N, T, {size}), got {shape}"
            )
        if self.h is not None and self.h.shape[0] != shape[0]:
            raise ValueError(
                f"{type(self).__name__}: the hidden state has batch size {self.h.shape[0]} "
                f"but the input {shape} has {shape[0]}; call reset_state() first"
            )
        if len(shape) == 2:
            return self.step(x)
        steps = [self.step(F.get_item(x, (slice(None), t))) for t in range(shape[1])]
        return F.stack(steps, axis=1)

    def _preactivation(self, x: Operand) -> Variable:
        z = self.x2h(x)
        return z if self.h is None else z + self.h2h(self.h)

    def extra_repr(self) -> str:
        return f"{self.x2h.in_features}, {self.hidden_size}"


class RNN(_Recurrent):
    """Elman recurrent layer: ``h_t = tanh(x_t W_ih^T + b + h_{t-1} W_hh^T)``.

    The first step of a sequence has no ``h_{t-1}`` term (the state starts at zero).

    Shapes:
        x ``(N, input_size)`` (one step) or ``(N, T, input_size)`` (a chunk) ->
        ``(N, hidden_size)`` or ``(N, T, hidden_size)``. ``x2h.W`` ``(hidden_size,
        input_size)``, ``x2h.b`` ``(hidden_size,)``, ``h2h.W`` ``(hidden_size,
        hidden_size)``.

    Args:
        input_size: features per step, or ``None`` to infer at the first call.
        hidden_size: the state size.
        nonlinearity: ``"tanh"`` (default) or ``"relu"``.
        bias: whether ``x2h`` has a bias.
        rng: a Generator, an int seed, or ``None`` for minitorch's default generator.
        dtype: the parameters' dtype.

    Raises:
        ValueError: for a bad size or nonlinearity; at call time, if the input is not
            ``(N, input_size)``/``(N, T, input_size)`` or its batch size differs from the
            state's (call ``reset_state()``).

    Example:
        >>> rnn = RNN(1, 4, rng=0)
        >>> rnn(np.zeros((2, 1), dtype=np.float32)).shape  # one step
        (2, 4)
        >>> rnn(np.zeros((2, 5, 1), dtype=np.float32)).shape  # five more, state carried
        (2, 5, 4)
        >>> rnn.reset_state()

    References:
        Elman, "Finding Structure in Time", Cognitive Science 14, 1990; Werbos,
        "Backpropagation Through Time", Proc. IEEE 78, 1990.
    """

    def __init__(
        self,
        input_size: int | None,
        hidden_size: int,
        nonlinearity: str = "tanh",
        bias: bool = True,
        rng: RNGLike = None,
        dtype: Any = np.float32,
    ) -> None:
        if nonlinearity not in _NONLINEARITIES:
            raise ValueError(f"RNN: nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")
        super().__init__(input_size, hidden_size, bias, rng, dtype)
        self.nonlinearity = nonlinearity

    def step(self, x: Operand) -> Variable:
        """Advance one time step; return the new ``h``."""
        self.h = _NONLINEARITIES[self.nonlinearity](self._preactivation(x))
        return self.h


class LSTM(_Recurrent):
    """Long short-term memory layer (PyTorch's gate order ``i, f, g, o``).

    With ``z = x_t W_ih^T + b + h_{t-1} W_hh^T`` split into four blocks:
    ``i, f, o = sigmoid(...)``, ``g = tanh(...)``, ``c_t = f * c_{t-1} + i * g`` and
    ``h_t = o * tanh(c_t)``. Both ``h`` and ``c`` are carried between calls.

    Shapes:
        x ``(N, input_size)`` or ``(N, T, input_size)`` -> ``(N, hidden_size)`` or
        ``(N, T, hidden_size)``; ``x2h.W`` ``(4 * hidden_size, input_size)``,
        ``h2h.W`` ``(4 * hidden_size, hidden_size)``.

    Args:
        input_size: features per step, or ``None`` to infer at the first call.
        hidden_size: the state size.
        bias: whether ``x2h`` has a bias.
        rng: a Generator, an int seed, or ``None``.
        dtype: the parameters' dtype.

    Raises:
        ValueError: as :class:`RNN`.

    Example:
        >>> lstm = LSTM(3, 2, rng=0)
        >>> lstm(np.zeros((4, 6, 3), dtype=np.float32)).shape
        (4, 6, 2)
        >>> lstm.c.shape
        (4, 2)

    References:
        Hochreiter & Schmidhuber, "Long Short-Term Memory", Neural Computation 9, 1997;
        Gers, Schmidhuber & Cummins, "Learning to Forget", 2000 (the forget gate).
    """

    gates = 4

    def __init__(
        self,
        input_size: int | None,
        hidden_size: int,
        bias: bool = True,
        rng: RNGLike = None,
        dtype: Any = np.float32,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, rng, dtype)
        self.c: Variable | None = None

    def reset_state(self) -> None:
        """Forget ``h`` and ``c``: the next call starts a new sequence."""
        self.h = self.c = None

    def unchain_state(self) -> None:
        """Keep ``h`` and ``c`` but cut the graph behind them (truncated BPTT)."""
        for state in (self.h, self.c):
            if state is not None:
                state.unchain_backward()

    def step(self, x: Operand) -> Variable:
        """Advance one time step; return the new ``h`` (``c`` is kept on the layer)."""
        z, size = self._preactivation(x), self.hidden_size
        i, f, g, o = (
            F.get_item(z, (slice(None), slice(k * size, (k + 1) * size))) for k in range(4)
        )
        i, f, g, o = F.sigmoid(i), F.sigmoid(f), F.tanh(g), F.sigmoid(o)
        self.c = i * g if self.c is None else f * self.c + i * g
        self.h = o * F.tanh(self.c)
        return self.h
