"""Issue 17: each op's gradient formula is written once (``vjp``), with few exceptions.

An op may keep an explicit ``backward_array`` beside its differentiable formula only for
a stated numerical or memory reason, given in a comment at the top of the method.
"""

from __future__ import annotations

import inspect
import pkgutil
from importlib import import_module

import minitorch.ops
from minitorch import Function

MAX_TWO_FORMULAS = 12


def _op_classes() -> list[type[Function]]:
    classes = []
    for info in pkgutil.iter_modules(minitorch.ops.__path__, "minitorch.ops."):
        module = import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Function)
                and value.__module__ == module.__name__
            ):
                classes.append(value)
    return classes


def _defines(cls: type, name: str) -> bool:
    return any(name in vars(klass) for klass in cls.__mro__ if klass is not Function)


def test_every_op_has_exactly_one_differentiable_formula() -> None:
    for cls in _op_classes():
        has_vjp, has_backward = _defines(cls, "vjp"), _defines(cls, "backward")
        assert has_vjp != has_backward, f"{cls.__name__}: define vjp or backward, not both"


def _writes(cls: type, name: str) -> bool:
    """Does the class write ``name`` itself (not a default minitorch gave it)?"""
    method = vars(cls).get(name)
    return method is not None and not getattr(method, "default_array_rule", False)


def test_at_most_twelve_ops_keep_a_second_array_formula_each_with_its_reason() -> None:
    two = [cls for cls in _op_classes() if _writes(cls, "backward_array")]
    assert len(two) <= MAX_TWO_FORMULAS, [cls.__name__ for cls in two]
    for cls in two:
        lines = inspect.getsource(vars(cls)["backward_array"]).splitlines()
        assert any(line.strip().startswith("#") for line in lines[1:4]), (
            f"{cls.__name__}.backward_array: say in a comment at its top why the array "
            "path differs from the formula"
        )


def test_the_namespaces_offer_the_same_names() -> None:
    from minitorch.ops.namespaces import ARRAY_OPS, GRAPH_OPS

    assert vars(ARRAY_OPS).keys() == vars(GRAPH_OPS).keys()
    assert Function.array_ops is ARRAY_OPS and Function.graph_ops is GRAPH_OPS
