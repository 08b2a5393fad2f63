"""``Module`` and ``Parameter``: the containers that hold a model's weights.

A Module registers every ``Parameter``, sub-``Module`` and buffer assigned to one of its
attributes, in insertion-ordered dicts (never sets: the order must not depend on
hashing), so ``named_parameters()`` walks the tree in the order the model was written
and yields dotted names such as ``layers.0.W`` — the keys of saved weight files.

Training mode (PyTorch's semantics): each Module has its own ``training`` flag;
``train()``/``eval()`` set it on the module and everything below it, and a child can be
switched back afterwards (``model.eval(); model.dropout.train()`` keeps that one dropout
active: Monte-Carlo dropout). ``Module.__call__`` runs ``forward`` with ``Config.train``
set to *this module's* flag — and off inside ``minitorch.test_mode()`` — so the functional
ops (``F.dropout``, ``F.batch_norm``) called in a forward follow the module that calls
them, and ``Dropout``/``BatchNorm`` follow their own flag, not their parent's.
"""

from __future__ import annotations

import contextvars
import os
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from minitorch.core import Config, Variable, using_config
from minitorch.nn import weights

# While a Module's forward runs: (the Config.train the user set outside every module, the
# value Module.__call__ set). A nested module starts again from the user's value, so a
# child in training mode is not switched off by its parent's eval(); a test_mode() or
# using_config("train", ...) entered inside a forward is noticed (Config.train no longer
# holds the value set here) and becomes the user's value for the modules below it.
_train_context: contextvars.ContextVar[tuple[bool, bool] | None] = contextvars.ContextVar(
    "minitorch_module_train", default=None
)


class Parameter(Variable):
    """A Variable that a :class:`Module` collects as a trainable weight.

    Assigned to a Module attribute without a name, it is named after the attribute
    (``"W"``), and the name grows into the dotted path as the module is placed in
    bigger ones (``"layers.0.W"``), so graph drawings show where each weight lives.

    Args:
        data: the initial value (an ndarray), or ``None`` for a weight whose shape is
            known only at the first call (lazy layers).
        name: an explicit label (kept as given).
        requires_grad: ``False`` freezes the weight: backward computes no gradient for
            it, so optimizers leave it alone.

    Raises:
        TypeError: if ``data`` is not an ndarray or ``None``.

    Example:
        >>> Parameter(np.array([1.0, 2.0]))
        parameter([1. 2.])
    """

    __slots__ = ("auto_named",)

    def __init__(
        self, data: np.ndarray | None, name: str | None = None, requires_grad: bool = True
    ) -> None:
        super().__init__(data, name=name, requires_grad=requires_grad)
        self.auto_named = False

    def __repr__(self) -> str:
        return "parameter" + super().__repr__()[len("variable") :].replace("\n ", "\n  ")


class Module:
    """Base class of layers and models: subclass it, assign weights, define ``forward``.

    Call ``super().__init__()`` first in ``__init__``; then every attribute set to a
    :class:`Parameter` or a Module is registered, in order. ``model(x)`` calls
    ``forward(x)`` with ``Config.train`` set to this module's ``training`` flag for the
    duration of the call (and off inside ``minitorch.test_mode()``): after ``eval()``
    dropout is the identity and batch norm uses its running statistics. Each module
    has its own flag, as in PyTorch: ``eval()`` sets it on every sub-module, and a
    sub-module switched back with ``train()`` trains even inside a parent in eval mode.

    Attributes:
        training: ``True`` after ``train()`` (the default), ``False`` after ``eval()``;
            set per module (``train()``/``eval()`` set it recursively).

    A plain ``list``, ``tuple``, ``dict`` or ``set`` holding Modules or Parameters is
    refused: the module cannot see inside it, so those layers would silently never train
    (PyTorch accepts it silently). Use :class:`~minitorch.nn.ModuleList` or
    :class:`~minitorch.nn.ModuleDict`. A container of Modules already registered here (a
    list kept for convenience, ``[self.fc1, self.fc2]``) is accepted.

    Raises:
        AttributeError: when a Parameter or Module is assigned before
            ``super().__init__()`` ran (PyTorch's message).
        TypeError: when a list, tuple, dict or set containing a Module or Parameter not
            registered on this module (at any depth) is assigned to an attribute; the
            message names the attribute, where the Module sits in it, and the container
            to use instead.

    Example:
        >>> class Affine(Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.W = Parameter(np.ones((2, 2)))
        ...         self.b = Parameter(np.zeros(2))
        ...     def forward(self, x):
        ...         return x @ self.W + self.b
        >>> model = Affine()
        >>> [name for name, _ in model.named_parameters()]
        ['W', 'b']
        >>> model(np.array([[1.0, 2.0]]))
        variable([[3. 3.]])
    """

    training: bool
    _parameters: dict[str, Parameter]
    _modules: dict[str, Module]
    _buffers: dict[str, np.ndarray | None]

    def __init__(self) -> None:
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "training", True)

    # -- registration --------------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        registries = self.__dict__.get("_parameters"), self.__dict__.get("_modules")
        if isinstance(value, (Parameter, Module)) and registries[0] is None:
            kind = "parameters" if isinstance(value, Parameter) else "module"
            raise AttributeError(
                f"cannot assign {kind} before Module.__init__() call "
                f"(call super().__init__() first in {type(self).__name__}.__init__)"
            )
        if registries[0] is not None:
            # A Parameter replacing a Parameter (a Module replacing a Module) keeps its
            # place in the order, as in PyTorch; anything else leaves that registry.
            if not isinstance(value, Parameter):
                self._parameters.pop(name, None)
            if not isinstance(value, Module):
                self._modules.pop(name, None)
            if isinstance(value, (Parameter, Module)):  # it replaces a buffer of that name
                self._buffers.pop(name, None)
            if isinstance(value, Parameter):
                self._parameters[name] = value
                if value.name is None:  # a shared (tied) Parameter keeps its first name
                    value.name, value.auto_named = name, True
            elif isinstance(value, Module):
                self._modules[name] = value
                _prefix_names(value, name)
            elif name in self._buffers:
                self._buffers[name] = _check_buffer(self, name, value)
            elif isinstance(value, _CONTAINERS):
                _refuse_hidden_modules(self, name, value)
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        self._unregister(name)
        self.__dict__.get("_buffers", {}).pop(name, None)
        object.__delattr__(self, name)

    def _unregister(self, name: str) -> None:
        self._parameters.pop(name, None)
        self._modules.pop(name, None)

    def register_buffer(self, name: str, value: np.ndarray | None) -> None:
        """Register a non-trainable array (e.g. batch norm's running mean) as state.

        Buffers are saved and loaded with the weights but never seen by optimizers.
        Assigning a new ndarray to ``self.<name>`` later updates the buffer; assigning a
        Parameter or Module there replaces it (it is no longer a buffer), and a buffer
        replaces a Parameter or Module of the same name.

        Raises:
            AttributeError: before ``super().__init__()``.
            TypeError: if ``value`` is not an ndarray or ``None``.
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._buffers[name] = _check_buffer(self, name, value)
        self._unregister(name)  # a Parameter or Module of that name is replaced
        object.__setattr__(self, name, value)

    # -- traversal -----------------------------------------------------------------------
    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, Module]]:
        """Yield ``(dotted name, module)`` for this module (``""``) and all below it."""
        _check_initialised(self)
        seen: set[int] = set()
        stack: list[tuple[str, Module]] = [(prefix, self)]
        while stack:
            name, module = stack.pop()
            if id(module) in seen:
                continue
            seen.add(id(module))
            yield name, module
            children = [(_join(name, key), child) for key, child in module._modules.items()]
            stack.extend(reversed(children))

    def named_parameters(self) -> Iterator[tuple[str, Parameter]]:
        """Yield ``(dotted name, Parameter)``, each Parameter once (shared ones too).

        The order is PyTorch's: a module's own Parameters in assignment order, then each
        sub-module's, depth first, in assignment order.
        """
        modules = list(self.named_modules())
        _refuse_filled_containers(modules)  # a plain list filled by append() after assignment
        seen: set[int] = set()
        for prefix, module in modules:
            for key, param in module._parameters.items():
                if id(param) not in seen:
                    seen.add(id(param))
                    yield _join(prefix, key), param

    def parameters(self) -> Iterator[Parameter]:
        """Yield every Parameter once, in registration order (what optimizers take)."""
        for _, param in self.named_parameters():
            yield param

    def named_buffers(self) -> Iterator[tuple[str, np.ndarray | None]]:
        """Yield ``(dotted name, array)`` for every registered buffer."""
        for prefix, module in self.named_modules():
            for key, value in module._buffers.items():
                yield _join(prefix, key), value

    def children(self) -> Iterator[Module]:
        """Yield the direct sub-modules, in registration order."""
        _check_initialised(self)
        yield from self._modules.values()

    # -- training ------------------------------------------------------------------------
    def zero_grad(self) -> None:
        """Set every parameter's ``grad`` to ``None``."""
        for param in self.parameters():
            param.grad = None

    def train(self, mode: bool = True) -> Module:
        """Set training mode on this module and every sub-module; returns ``self``.

        Sub-modules keep their own flag afterwards: ``model.eval()`` then
        ``model.dropout.train()`` leaves only that dropout in training mode.
        """
        for _, module in self.named_modules():
            object.__setattr__(module, "training", bool(mode))
        return self

    def eval(self) -> Module:
        """Switch to inference mode (``train(False)``): dropout off, batch norm frozen."""
        return self.train(False)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        _check_initialised(self)
        current = Config.train
        context = _train_context.get()
        # The user's switch: Config.train as seen outside every module, unless it was
        # changed inside the enclosing forward (then that change is the user's).
        user = context[0] if context is not None and context[1] == current else current
        train = self.training and user
        token = _train_context.set((user, train))
        try:
            if train == current:
                return self.forward(*args, **kwargs)
            with using_config("train", train):
                return self.forward(*args, **kwargs)
        finally:
            _train_context.reset(token)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Compute the output; every subclass defines it."""
        raise NotImplementedError(f"{type(self).__name__}.forward is not defined")

    # -- weights -------------------------------------------------------------------------
    def state_dict(self) -> dict[str, np.ndarray]:
        """Every parameter's and buffer's array by dotted name (the arrays themselves).

        Raises:
            RuntimeError: if a lazy parameter has no value yet (run one forward pass).
        """
        return weights.state_dict(self)

    def load_state_dict(self, arrays: Mapping[str, np.ndarray], source: str = "") -> None:
        """Set parameters and buffers from ``arrays`` after validating all of them.

        Raises:
            WeightFileError: (a ``ValueError``) listing every missing, unexpected and
                mis-shaped array; the module is left unchanged.
        """
        weights.load_state_dict(self, arrays, source)

    def save_weights(self, path: str | os.PathLike[str]) -> None:
        """Write the state dict to ``path`` as ``.npz`` atomically (temp file + rename).

        Raises:
            RuntimeError: if a lazy parameter has no value yet.
            FileNotFoundError: if the folder of ``path`` does not exist (the message names
                ``path`` and the folder).
            OSError: if the file cannot be written; the message names ``path`` and no
                partial file is left.
        """
        weights.save_weights(self, path)

    def load_weights(self, path: str | os.PathLike[str]) -> None:
        """Load weights saved by :meth:`save_weights` (``allow_pickle=False``).

        Raises:
            FileNotFoundError: if ``path`` does not exist.
            IsADirectoryError: if ``path`` is a directory.
            WeightFileError: (a ``ValueError``) naming the file, if it is corrupt,
                truncated, holds pickled objects, or does not match the model (every
                mismatch listed). The model is left unchanged on any error.
        """
        weights.load_weights(self, path)

    # -- display -------------------------------------------------------------------------
    def extra_repr(self) -> str:
        """The text inside this module's parentheses in ``repr`` (layer settings)."""
        return ""

    def __repr__(self) -> str:
        if "_modules" not in self.__dict__ or not self._modules:
            return f"{type(self).__name__}({self.extra_repr()})"
        lines = [f"{type(self).__name__}({self.extra_repr()}"]
        for name, child in self._modules.items():
            body = repr(child).replace("\n", "\n  ")
            lines.append(f"  ({name}): {body}")
        return "\n".join(lines) + "\n)"


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _check_initialised(module: Module) -> None:
    if "_modules" not in module.__dict__:
        raise RuntimeError(
            f"{type(module).__name__} is not initialised: call super().__init__() at the "
            f"start of {type(module).__name__}.__init__"
        )


def _check_buffer(module: Module, name: str, value: Any) -> np.ndarray | None:
    if value is not None and not isinstance(value, np.ndarray):
        raise TypeError(
            f"{type(module).__name__}: buffer {name!r} must be an ndarray or None, "
            f"got {type(value).__name__}"
        )
    return value


_CONTAINERS = (list, tuple, dict, set, frozenset)
_REGISTRIES = frozenset({"_parameters", "_modules", "_buffers"})


def _refuse_hidden_modules(module: Module, name: str, value: Any) -> None:
    """Raise if the plain container ``value`` holds an unregistered Module or Parameter.

    Such layers would be invisible to ``parameters()`` (the optimizer would never train
    them) and to ``state_dict()``/``train()``/``eval()``: a silent bug worth an error.
    Modules and Parameters already registered on ``module`` (``self.order = [self.fc1,
    self.fc2]``, a list kept for convenience) are fine: they are trained anyway.
    """
    found = list(_find_hidden(value, name))
    if not found:
        return
    known = {id(m) for _, m in module.named_modules()}
    known.update(id(p) for _, p in module.named_parameters())
    _refuse_unknown(module, name, value, found, known)


def _refuse_filled_containers(modules: list[tuple[str, Module]]) -> None:
    """The check of :func:`_refuse_hidden_modules`, for lists filled after assignment.

    ``self.blocks = []`` and then ``self.blocks.append(nn.Linear(2, 2))`` (the commonest
    way to build a list of layers) never passes through ``__setattr__``; the first
    ``parameters()`` (an optimizer, ``state_dict()``) looks again.
    """
    known: set[int] | None = None
    for _, module in modules:
        for name, value in module.__dict__.items():
            if not isinstance(value, _CONTAINERS) or not value or name in _REGISTRIES:
                continue
            found = list(_find_hidden(value, name))
            if not found:
                continue
            if known is None:
                known = {id(m) for _, m in modules}
                known.update(id(p) for _, m in modules for p in m._parameters.values())
            _refuse_unknown(module, name, value, found, known)


def _refuse_unknown(
    module: Module,
    name: str,
    value: Any,
    found: list[tuple[str, Module | Parameter]],
    known: set[int],
) -> None:
    hidden = [(where, item) for where, item in found if id(item) not in known]
    if not hidden:
        return
    where, item = hidden[0]
    kind = "Module" if isinstance(item, Module) else "Parameter"
    if isinstance(item, Module):
        use = "nn.ModuleDict({...})" if isinstance(value, dict) else "nn.ModuleList([...])"
        fix = f"use self.{name} = {use}, which registers each layer"
    else:
        fix = "assign each Parameter to its own attribute, or put them in a Module"
    raise TypeError(
        f"{type(module).__name__}.{name}: a plain {type(value).__name__} holding a {kind} "
        f"({where}) is not registered, so its parameters would never be trained, saved or "
        f"switched by train()/eval(); {fix}"
    )


def _find_hidden(value: Any, where: str) -> Iterator[tuple[str, Module | Parameter]]:
    """Every Module/Parameter inside nested containers, with its path (``name[1]``)."""
    stack: list[tuple[str, Any]] = [(where, value)]
    seen: set[int] = set()
    while stack:
        path, item = stack.pop()
        if isinstance(item, (Module, Parameter)):
            yield path, item
        elif isinstance(item, _CONTAINERS) and id(item) not in seen:
            seen.add(id(item))
            if isinstance(item, dict):
                children = [(f"{path}[{k!r}]", v) for k, v in item.items()]
            elif isinstance(item, (list, tuple)):
                children = [(f"{path}[{i}]", v) for i, v in enumerate(item)]
            else:
                children = [(f"an element of {path}", v) for v in item]
            stack.extend(reversed(children))


def _prefix_names(child: Module, name: str) -> None:
    """Extend auto-named Parameters of a newly attached ``child`` with ``name.``."""
    for path, param in child.named_parameters():
        if param.auto_named and param.name == path:
            param.name = f"{name}.{path}"
