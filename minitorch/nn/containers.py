"""Containers of sub-modules: ``ModuleList`` and ``ModuleDict`` (as in ``torch.nn``).

A Module registers the Modules assigned to its attributes, but it cannot see inside a
plain Python list or dict: ``self.hidden = [Linear(4, 4), Linear(4, 4)]`` would hide the
layers from ``parameters()``, and the optimizer would never train them. (minitorch
refuses that assignment with a ``TypeError``; PyTorch accepts it silently.) These two
containers are Modules holding Modules, registered under their index (``"0"``,
``"1"``, ...) or key, so the parameters of ``self.hidden = ModuleList([...])`` are named
``hidden.0.W``, ``hidden.1.W``, ... and everything that walks the module tree
(``parameters()``, ``state_dict()``, ``train()``/``eval()``, ``zero_grad()``, ``repr``)
sees them. Unlike :class:`~minitorch.nn.Sequential`, they have no ``forward``: the model
decides how to use them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, overload

from minitorch.nn.module import Module


class ModuleList(Module):
    """A list of Modules, registered under their indices ``"0"``, ``"1"``, ...

    Use it wherever a model keeps a variable number of layers. Indexing, ``len``,
    iteration, ``append``, ``extend``, ``insert`` and ``del`` work as on a list; after an
    insertion or deletion the layers are renumbered (``hidden.2.W`` becomes
    ``hidden.1.W`` when layer 1 is deleted), as in ``torch.nn.ModuleList``.

    Args:
        modules: an iterable of Modules (default: empty).

    Raises:
        TypeError: if an element is not a Module (the message names its index and type).
        IndexError: for an index out of range.
        NotImplementedError: when called: a ModuleList has no ``forward`` (loop over it in
            your model's ``forward``, or use :class:`~minitorch.nn.Sequential`).

    Example:
        >>> from minitorch.nn import Linear
        >>> class Deep(Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.hidden = ModuleList([Linear(2, 2, rng=i) for i in range(2)])
        ...     def forward(self, x):
        ...         for layer in self.hidden:
        ...             x = layer(x)
        ...         return x
        >>> [name for name, _ in Deep().named_parameters()]
        ['hidden.0.W', 'hidden.0.b', 'hidden.1.W', 'hidden.1.b']
        >>> Deep().hidden
        ModuleList(
          (0): Linear(in_features=2, out_features=2, bias=True)
          (1): Linear(in_features=2, out_features=2, bias=True)
        )
    """

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _checked(self, module: object, index: int) -> Module:
        if not isinstance(module, Module):
            raise TypeError(
                f"ModuleList: element {index} is a {type(module).__name__}, not a Module"
            )
        return module

    def _index(self, index: int) -> int:
        if not isinstance(index, int) or isinstance(index, bool):
            raise TypeError(
                f"ModuleList: indices must be ints (or slices), got {type(index).__name__}"
            )
        if not -len(self) <= index < len(self):
            raise IndexError(f"ModuleList: index {index} out of range for {len(self)} modules")
        return index % len(self)

    def append(self, module: Module) -> ModuleList:
        """Add ``module`` at the end (registered as ``str(len(self))``); returns ``self``."""
        setattr(self, str(len(self)), self._checked(module, len(self)))
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        """Append every Module of ``modules``; returns ``self``."""
        if isinstance(modules, Module) and not isinstance(modules, ModuleList):
            raise TypeError("ModuleList.extend: expected an iterable of Modules, got a Module")
        for module in list(modules):
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> None:
        """Insert ``module`` before ``index`` (list semantics); later modules move up."""
        modules = list(self._modules.values())
        modules.insert(index, self._checked(module, index))
        self._renumber(modules)

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(list(self._modules.values()))

    @overload
    def __getitem__(self, index: int) -> Module: ...
    @overload
    def __getitem__(self, index: slice) -> ModuleList: ...
    def __getitem__(self, index: int | slice) -> Module | ModuleList:
        modules = list(self._modules.values())
        if isinstance(index, slice):
            return ModuleList(modules[index])
        return modules[self._index(index)]

    def __setitem__(self, index: int | slice, module: Any) -> None:
        if isinstance(index, slice):  # ml[0:2] = [a, b], as on a list (then renumbered)
            modules = list(self._modules.values())
            modules[index] = [self._checked(m, i) for i, m in enumerate(module)]
            self._renumber(modules)
            return
        setattr(self, str(self._index(index)), self._checked(module, index))

    def __delitem__(self, index: int | slice) -> None:
        modules = list(self._modules.values())
        if isinstance(index, slice):
            del modules[index]
        else:
            del modules[self._index(index)]
        self._renumber(modules)

    def _renumber(self, modules: list[Module]) -> None:
        """Register ``modules`` as ``"0"``, ``"1"``, ... again (after insert/delete)."""
        old = {id(m): key for key, m in self._modules.items()}
        for key in list(self._modules):
            object.__delattr__(self, key)
        self._modules.clear()
        for i, module in enumerate(modules):
            if id(module) in old:  # moved: its Parameters' labels follow the new index
                _rename_parameters(module, old[id(module)], str(i))
            setattr(self, str(i), module)  # registers it (and labels a new one, as append)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Not defined: a ModuleList only holds layers (iterate over it instead)."""
        raise NotImplementedError(
            "ModuleList has no forward: iterate over it in your model's forward "
            "(for layer in self.layers: x = layer(x)), or use nn.Sequential"
        )


class ModuleDict(Module):
    """A dict of Modules by string key, registered under their keys (``heads.cls.W``).

    Keys keep insertion order. ``d[key]``, ``d[key] = module``, ``del d[key]``, ``in``,
    ``len``, iteration over the keys, ``keys()``, ``values()``, ``items()``,
    ``update()`` and ``pop()`` work as on a dict.

    Args:
        modules: a mapping or an iterable of ``(key, Module)`` pairs (default: empty).

    Raises:
        TypeError: if a key is not a string or a value is not a Module.
        KeyError: for a missing key, or a key that is empty, contains ``"."`` or is the
            name of a ModuleDict attribute (``"items"``, ``"training"``): such a key
            would break the dotted parameter names or hide the method.
        NotImplementedError: when called (a ModuleDict has no ``forward``).

    Example:
        >>> from minitorch.nn import Linear
        >>> heads = ModuleDict({"cls": Linear(4, 3, rng=0), "box": Linear(4, 2, rng=1)})
        >>> [name for name, _ in heads.named_parameters()]
        ['cls.W', 'cls.b', 'box.W', 'box.b']
        >>> heads["box"]
        Linear(in_features=4, out_features=2, bias=True)
    """

    def __init__(
        self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]] | None = None
    ) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __setitem__(self, key: str, module: Module) -> None:
        if not isinstance(key, str):
            raise TypeError(f"ModuleDict: keys must be strings, got {type(key).__name__}")
        if not key or "." in key or (key not in self._modules and hasattr(self, key)):
            raise KeyError(
                f"ModuleDict: invalid key {key!r} (keys must be non-empty, contain no '.', "
                "and not be the name of a ModuleDict attribute)"
            )
        if not isinstance(module, Module):
            raise TypeError(
                f"ModuleDict: value for {key!r} is a {type(module).__name__}, not a Module"
            )
        setattr(self, key, module)

    def __getitem__(self, key: str) -> Module:
        if key not in self._modules:
            raise KeyError(f"ModuleDict: no module {key!r} (keys: {list(self._modules)})")
        return self._modules[key]

    def __delitem__(self, key: str) -> None:
        self[key]  # noqa: B018 - raises the KeyError for a missing key
        delattr(self, key)

    def __contains__(self, key: object) -> bool:
        return key in self._modules

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._modules))

    def keys(self) -> list[str]:
        """The keys, in insertion order."""
        return list(self._modules)

    def values(self) -> list[Module]:
        """The Modules, in insertion order."""
        return list(self._modules.values())

    def items(self) -> list[tuple[str, Module]]:
        """``(key, Module)`` pairs, in insertion order."""
        return list(self._modules.items())

    def update(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]]) -> None:
        """Add or replace entries from a mapping or an iterable of ``(key, Module)`` pairs."""
        pairs = modules.items() if isinstance(modules, Mapping) else modules
        for key, module in pairs:
            self[key] = module

    def pop(self, key: str) -> Module:
        """Remove ``key`` and return its Module."""
        module = self[key]
        del self[key]
        return module

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Not defined: a ModuleDict only holds layers (index it in your forward)."""
        raise NotImplementedError(
            "ModuleDict has no forward: pick its modules by key in your model's forward"
        )


def _rename_parameters(module: Module, old: str, new: str) -> None:
    """Move auto-named Parameters of ``module`` from index ``old`` to ``new`` in their name."""
    if old == new:
        return
    for path, param in module.named_parameters():
        name = param.name or ""
        if param.auto_named and (name == f"{old}.{path}" or name.endswith(f".{old}.{path}")):
            param.name = name[: len(name) - len(f"{old}.{path}")] + f"{new}.{path}"
