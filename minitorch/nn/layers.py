"""Basic layers: ``Linear``, ``Sequential``, ``MLP`` and the activation modules
``ReLU``, ``Tanh``, ``Sigmoid``, ``Activation`` (any op function), ``Dropout``."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

import minitorch.ops as F
from minitorch.core import Config, Operand, Variable
from minitorch.nn.checks import check_lazy_size, check_probability, check_size
from minitorch.nn.init import INITS, RNGLike, as_generator, init_weight
from minitorch.nn.module import Module, Parameter


class Linear(Module):
    """Affine layer ``y = x @ W.T + b`` (``F.linear``), as ``torch.nn.Linear``.

    ``W`` is drawn with He or Xavier scaling (:func:`~minitorch.nn.init.init_weight`),
    ``b`` starts at zero. With ``in_features=None`` the layer is lazy: ``W`` exists from
    the start (so optimizers can hold it) but gets its value at the first call, from
    the input's last dimension.

    Shapes:
        x ``(*, in_features)`` -> ``(*, out_features)``; ``W`` ``(out_features,
        in_features)``, ``b`` ``(out_features,)``.

    Args:
        in_features: input size, or ``None`` to infer it at the first call.
        out_features: output size.
        bias: whether to add ``b``.
        init: ``"xavier"`` (default; tanh, sigmoid, output layers) or ``"he"`` (ReLU).
        rng: a Generator, an int seed, or ``None`` for minitorch's default generator.
        dtype: the parameters' floating dtype.

    Raises:
        TypeError: if a size is not an int (``in_features`` may be ``None``).
        ValueError: for non-positive sizes or an unknown ``init``.

    Example:
        >>> layer = Linear(3, 2, rng=0)
        >>> layer
        Linear(in_features=3, out_features=2, bias=True)
        >>> layer(np.ones((4, 3), dtype=np.float32)).shape
        (4, 2)
        >>> [(name, p.shape) for name, p in layer.named_parameters()]
        [('W', (2, 3)), ('b', (2,))]

    References:
        K. He et al., ICCV 2015; X. Glorot and Y. Bengio, AISTATS 2010 (initialisation).
    """

    def __init__(
        self,
        in_features: int | None,
        out_features: int,
        bias: bool = True,
        init: str = "xavier",
        rng: RNGLike = None,
        dtype: Any = np.float32,
    ) -> None:
        super().__init__()
        in_features = check_lazy_size("Linear", "in_features", in_features)
        out_features = check_size("Linear", "out_features", out_features)
        if init not in INITS:
            raise ValueError(f"Linear: init must be one of {INITS}, got {init!r}")
        self.out_features = out_features
        self.init = init
        self.dtype = np.dtype(dtype)
        self.rng = as_generator(rng) if rng is not None else None
        self.W = Parameter(None)
        if in_features is not None:
            self._init_W(in_features)
        self.b = Parameter(np.zeros(out_features, dtype=self.dtype)) if bias else None

    @property
    def in_features(self) -> int | None:
        """The input size, read from ``W`` (``None`` while a lazy ``W`` has no value).

        Derived, not stored: weights loaded into a never-called lazy layer fix it too.
        """
        return self.W.data.shape[1] if self.W.data is not None else None

    def _init_W(self, in_features: int) -> None:
        shape = (self.out_features, in_features)
        self.W.data = init_weight(shape, self.init, self.rng, self.dtype)

    def forward(self, x: Operand) -> Variable:
        """``x @ W.T + b``; initialises a lazy ``W`` from ``x.shape[-1]``.

        Only a ``W`` without a value is initialised: weights loaded into a lazy layer
        before its first call are kept.
        """
        if self.W.data is None:
            self._init_W(int(np.shape(x.data if isinstance(x, Variable) else x)[-1]))
        return F.linear(x, self.W, self.b)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.b is not None}"
        )


class Sequential(Module):
    """Apply modules one after another; sub-modules are named ``"0"``, ``"1"``, ...

    Args:
        *layers: Modules, applied in order.

    Raises:
        TypeError: if a layer is not a Module.

    Example:
        >>> model = Sequential(Linear(2, 4, rng=0), ReLU(), Linear(4, 1, rng=1))
        >>> [name for name, _ in model.named_parameters()]
        ['0.W', '0.b', '2.W', '2.b']
        >>> model(np.zeros((5, 2), dtype=np.float32)).shape
        (5, 1)
    """

    def __init__(self, *layers: Module) -> None:
        super().__init__()
        for layer in layers:
            self.append(layer)

    def append(self, layer: Module) -> Sequential:
        """Add ``layer`` at the end; returns ``self``."""
        if not isinstance(layer, Module):
            if isinstance(layer, (list, tuple)) and any(isinstance(m, Module) for m in layer):
                fix = "pass the layers themselves: nn.Sequential(*layers), not a list"
            else:
                fix = "wrap functions in a Module, e.g. nn.ReLU() instead of F.relu"
            raise TypeError(
                f"Sequential: layer {len(self)} is a {type(layer).__name__}, not a Module ({fix})"
            )
        setattr(self, str(len(self)), layer)
        return self

    def forward(self, x: Any) -> Any:
        """Feed ``x`` through every layer in order."""
        for layer in self._modules.values():
            x = layer(x)
        return x

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __getitem__(self, index: int) -> Module:
        layers = list(self._modules.values())
        if not -len(layers) <= index < len(layers):
            raise IndexError(f"Sequential: index {index} out of range for {len(layers)} layers")
        return layers[index]


class ReLU(Module):
    """``max(x, 0)`` elementwise (``F.relu``).

    Example:
        >>> ReLU()(np.array([-1.0, 2.0]))
        variable([0. 2.])
    """

    def forward(self, x: Operand) -> Variable:
        """Apply ``F.relu``."""
        return F.relu(x)


class Tanh(Module):
    """Hyperbolic tangent elementwise (``F.tanh``).

    Example:
        >>> Tanh()(np.array([0.0]))
        variable([0.])
    """

    def forward(self, x: Operand) -> Variable:
        """Apply ``F.tanh``."""
        return F.tanh(x)


class Sigmoid(Module):
    """Logistic sigmoid ``1 / (1 + exp(-x))`` elementwise (``F.sigmoid``).

    Example:
        >>> Sigmoid()(np.array([0.0]))
        variable([0.5])
    """

    def forward(self, x: Operand) -> Variable:
        """Apply ``F.sigmoid``."""
        return F.sigmoid(x)


class Dropout(Module):
    """Inverted dropout with probability ``p`` in training mode, identity after ``eval()``.

    Args:
        p: probability of zeroing an element, in ``[0, 1]``.

    Raises:
        TypeError: if ``p`` is not a number.
        ValueError: if ``p`` is outside ``[0, 1]`` (``p = 1`` drops everything).

    Example:
        >>> drop = Dropout(0.5).eval()
        >>> drop(np.ones(3))
        variable([1. 1. 1.])

    References:
        N. Srivastava et al., "Dropout: a simple way to prevent neural networks from
        overfitting", JMLR 15, 2014.
    """

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        self.p = check_probability("Dropout", "p", p)

    def forward(self, x: Operand) -> Variable:
        """Apply ``F.dropout`` in training mode: this module's flag (and not ``test_mode()``)."""
        return F.dropout(x, self.p, training=self.training and Config.train)

    def extra_repr(self) -> str:
        return f"p={self.p}"


ACTIVATIONS: dict[str, tuple[type[Module], str]] = {
    "relu": (ReLU, "he"),
    "tanh": (Tanh, "xavier"),
    "sigmoid": (Sigmoid, "xavier"),
}


class MLP(Module):
    """A multi-layer perceptron: ``Linear`` layers with an activation between them.

    ``MLP([2, 10, 3], "sigmoid")`` is ``Linear(2, 10) -> Sigmoid -> Linear(10, 3)``,
    stored as ``self.layers`` (parameters ``layers.0.W``, ``layers.0.b``,
    ``layers.2.W``, ...). Hidden layers use He initialisation before ReLU and Xavier
    before tanh/sigmoid; the output layer (no activation) uses Xavier.

    Shapes:
        x ``(N, sizes[0])`` -> ``(N, sizes[-1])``.

    Args:
        sizes: layer widths, input first; ``sizes[0]`` may be ``None`` (lazy input size).
        activation: ``"relu"``, ``"tanh"``, ``"sigmoid"``, a Module class or zero-argument
            callable returning a Module (``nn.ReLU``), or an op function of one Variable
            (``F.relu``, DeZero's style; wrapped in :class:`Activation`). Hidden layers use
            He initialisation before ReLU (``"relu"``, ``nn.ReLU``, ``F.relu``,
            ``F.leaky_relu``) and Xavier otherwise.
        dropout: if positive, a ``Dropout(dropout)`` after each hidden activation.
        rng: a Generator, an int seed or ``None`` (minitorch's default generator).
        dtype: the parameters' dtype.

    Raises:
        TypeError: if ``sizes`` is not a list (or other sequence) of sizes.
        ValueError: if fewer than two sizes are given or the activation name is unknown.

    Example:
        >>> model = MLP([2, 10, 3], "sigmoid", rng=0)
        >>> model(np.zeros((4, 2), dtype=np.float32)).shape
        (4, 3)
        >>> model
        MLP(
          (layers): Sequential(
            (0): Linear(in_features=2, out_features=10, bias=True)
            (1): Sigmoid()
            (2): Linear(in_features=10, out_features=3, bias=True)
          )
        )
    """

    def __init__(
        self,
        sizes: Sequence[int | None],
        activation: str | Callable[..., Any] = "relu",
        dropout: float = 0.0,
        rng: RNGLike = None,
        dtype: Any = np.float32,
    ) -> None:
        super().__init__()
        if isinstance(sizes, (int, np.integer, str)) or not hasattr(sizes, "__len__"):
            raise TypeError(
                f"MLP: sizes must be one list of layer widths, input first, got a "
                f"{type(sizes).__name__} ({sizes!r}): write nn.MLP([3, 4, 1]) (3 inputs, a "
                "hidden layer of 4, 1 output), not nn.MLP(3, [4], 1)"
            )
        if len(sizes) < 2:
            raise ValueError(f"MLP: sizes needs an input and an output size, got {list(sizes)}")
        check_lazy_size("MLP", "sizes[0]", sizes[0])
        out_sizes = [check_size("MLP", f"sizes[{i}]", n) for i, n in enumerate(sizes[1:], 1)]
        dropout = check_probability("MLP", "dropout", dropout)
        make_activation, hidden_init = _activation(activation)
        generator = as_generator(rng)
        layers = Sequential()
        for i, (n_in, n_out) in enumerate(zip(sizes[:-1], out_sizes)):
            last = i == len(sizes) - 2
            init = "xavier" if last else hidden_init
            layers.append(Linear(n_in, n_out, init=init, rng=generator, dtype=dtype))
            if not last:
                layers.append(make_activation())
                if dropout > 0.0:
                    layers.append(Dropout(dropout))
        self.layers = layers

    def forward(self, x: Operand) -> Variable:
        """Run the layers."""
        return self.layers(x)


class Activation(Module):
    """A Module that applies an op function, e.g. ``Activation(F.relu)``.

    What ``MLP(sizes, activation=F.relu)`` puts between its layers (DeZero's style of
    passing an activation function).

    Args:
        fn: a function of one Variable returning a Variable (``F.relu``, ``F.tanh``...).

    Example:
        >>> Activation(F.relu)(np.array([-1.0, 2.0]))
        variable([0. 2.])
    """

    def __init__(self, fn: Callable[[Any], Variable]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x: Operand) -> Variable:
        """Apply ``fn``."""
        return self.fn(x)

    def extra_repr(self) -> str:
        return getattr(self.fn, "__name__", repr(self.fn))


_HE_FUNCTIONS = ("relu", "leaky_relu")  # op functions followed by He initialisation


def _activation(
    activation: str | Callable[..., Any],
) -> tuple[Callable[[], Module], str]:
    if isinstance(activation, str):
        if activation not in ACTIVATIONS:
            raise ValueError(
                f"MLP: activation must be one of {sorted(ACTIVATIONS)}, a Module class or an "
                f"op function such as F.relu, got {activation!r}"
            )
        return ACTIVATIONS[activation]
    if not callable(activation):
        raise TypeError(
            f"MLP: activation must be a name, a Module class or an op function (F.relu), "
            f"got {activation!r}"
        )
    if isinstance(activation, type) or not _takes_an_argument(activation):
        # A Module class (nn.ReLU) or a zero-argument factory returning a Module.
        return activation, "he" if activation is ReLU else "xavier"
    fn = activation  # an op function of one Variable: F.relu, F.tanh, a lambda x: ...
    init = "he" if getattr(fn, "__name__", "") in _HE_FUNCTIONS else "xavier"
    return (lambda: Activation(fn)), init


def _takes_an_argument(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` needs a positional argument (an op function) or none (a factory)."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin without a signature: treat as an op
        return True
    return any(
        p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        for p in signature.parameters.values()
    )
