"""Checks for notebook 09 (a first neural network): training histories, module registration,
the data loader and the two-layer net."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from checks import CheckFailed
from checks_build import check_close_diagnosed, exercise, require, short_errors


def gradients_piled_up(model: Any, loss_of: Callable[[Any], Any]) -> bool:
    """Do ``model``'s stored gradients look like a sum over many steps (no ``zero_grad``)?

    After a loop that clears the gradients before each ``backward()``, each ``.grad`` is
    one step's gradient; without ``zero_grad()`` it is the sum of every step's, which in
    a run that diverged is tens to hundreds of times the gradient at the final
    parameters (``loss_of(model)`` gives that loss). Measured on notebook 09's sine
    task: 34x and 254x without ``zero_grad``, 7x for a learning rate that diverges.
    """
    params = list(model.parameters())
    stored = [p.grad for p in params]
    if all(g is None for g in stored):
        return False  # cleared after the last step: nothing piles up

    def norm() -> float:
        return float(np.sqrt(sum(np.sum(p.grad.data**2) for p in params if p.grad is not None)))

    before = norm()
    for p in params:
        p.grad = None
    try:
        loss_of(model).backward()
        now = norm()
    finally:
        for p, g in zip(params, stored):
            p.grad = g
    return before > 20 * now + 1e-12


def diagnose_history(history: Any, piled_up: bool | None = None) -> str:
    """Say what a training loss history shows: ``""`` if nothing odd, else a hint.

    A loss that turns nan/inf without ever falling is the signature of a learning rate too
    large for the optimizer. One that falls and then turns nan/inf, or ends well above its
    lowest value, has steps that grew: a learning rate that is too large, or gradients
    that pile up between steps (without ``zero_grad()`` every ``backward()`` adds to the
    old gradients); ``piled_up`` (:func:`gradients_piled_up`) says which, else the message
    names both. A history of Variables (``loss`` instead of
    ``loss.item()``) is named as such.

    Example:
        >>> diagnose_history([1.0, 0.5, 0.2, 0.9, 3.0])  # doctest: +ELLIPSIS
        'the loss fell to 0.2 and then rose to 3: the steps grew too large. ...'
    """
    history = list(history)
    if any(hasattr(loss, "creator") for loss in history):  # Variables, graphs and all
        return (
            "history holds Variables (each with its whole graph): append the loss's number, "
            "history.append(loss.item())"
        )
    values = np.asarray(history, dtype=np.float64)
    if values.size < 2:
        return "history should hold the loss of every step (a list of floats)"
    if not np.all(np.isfinite(values)):
        first_bad = int(np.flatnonzero(~np.isfinite(values))[0])
        before = values[:first_bad]
        never_fell = before.min() > 0.9 * values[0]
        if first_bad <= 5 or never_fell:  # it never learnt anything, or blew up at once
            how = "without ever falling" if never_fell else "almost at once"
            return (
                f"the loss became nan/inf after {first_bad} steps, {how}: each step "
                "overshoots — the learning rate is too large for this optimizer; lower it "
                "(Adam with lr=0.05 works)"
            )
        return _grew("the loss fell, then became nan/inf", piled_up)
    if np.allclose(values, values[0]):
        return (
            "the loss never changed: the optimizer does not update this model's parameters "
            "(give it trained.parameters()), or it never steps"
        )
    low = float(values.min())
    if values[-1] > 2 * low + 1e-3 and values[-1] > 0.1:
        return _grew(f"the loss fell to {low:.3g} and then rose to {values[-1]:.3g}", piled_up)
    return ""


def _grew(what: str, piled_up: bool | None) -> str:
    """Why a loss that fell then grew: piled-up gradients, a large learning rate, or (not
    known which) both named."""
    zero = (
        "did you call optimizer.zero_grad() before each backward()? Without it every "
        "backward() adds to the old gradients and the steps keep growing"
    )
    rate = "the learning rate is too large for this optimizer: lower it (Adam with lr=0.05)"
    if piled_up is None:
        return f"{what}: the steps grew too large. Either {rate}, or {zero}"
    return f"{what}: {zero if piled_up else rate}"


def check_registration(
    module_class: type, parameter_class: type, tensor_class: type | None = None
) -> None:
    """Check a student's ``Module.__setattr__`` registration (notebook 09, exercise 4).

    ``tensor_class`` is the framework's plain tensor (a Parameter's base class), which
    must not be registered: minitorch's Variable by default, the capstone's Tensor in
    notebook 13.
    """
    require("the Module class", module_class)

    def fresh(cls_name: str, body: Callable[[Any], None]) -> Any:
        cls = type(cls_name, (module_class,), {})
        with exercise(f"{cls_name}()"):
            obj = cls()
            body(obj)
        return obj

    def arrays(*shape: int) -> Any:
        return parameter_class(np.zeros(shape))

    def params(obj: Any) -> list[Any]:
        with exercise(
            "parameters()",
            (
                "object has no attribute 'parameters'",
                "self._modules holds a non-Module: a Parameter was stored there. Put "
                "Parameters in self._params, only Modules in self._modules",
            ),
        ):
            found = list(obj.parameters())
        if any(isinstance(p, module_class) for p in found):
            raise CheckFailed(
                "parameters() yielded a sub-module itself: yield its Parameters, "
                "`yield from module.parameters()`"
            )
        return found

    from minitorch import Variable

    def setup_flat(m: Any) -> None:
        m.W = arrays(2, 3)
        m.b = arrays(3)
        m.scale = 2.0
        m.note = np.ones(3)
        m.cache = (tensor_class or Variable)(np.ones(2))  # a tensor, but not a Parameter

    flat = fresh("Flat", setup_flat)
    if not (
        getattr(flat, "scale", None) == 2.0
        and isinstance(getattr(flat, "W", None), parameter_class)
    ):
        raise CheckFailed(
            "the attributes themselves are missing (self.W raises AttributeError): "
            "__setattr__ must still set them, with object.__setattr__(self, name, value)"
        )
    found = params(flat)
    if any(isinstance(p, str) for p in found):
        raise CheckFailed(
            "parameters() yields the names: iterating over a dict gives its keys; yield "
            "from self._params.values()"
        )
    if any(p is flat.note or p is flat.cache for p in found) or len(found) > 2:
        raise CheckFailed(
            f"parameters() gave {len(found)} values, but only the Parameters W and b should "
            "be registered: check isinstance(value, Parameter) in __setattr__"
        )
    if len(found) < 2:
        raise CheckFailed(
            f"parameters() gave {len(found)} values, expected 2 (W and b): does "
            "__setattr__ store each Parameter in self._params?"
        )
    if not (found[0] is flat.W and found[1] is flat.b):
        raise CheckFailed("parameters() should give W then b, in assignment order")

    def setup_nested(m: Any) -> None:
        m.first = fresh("Inner", setup_flat)
        m.c = arrays(1)
        m.second = fresh("Inner2", setup_flat)

    nested = fresh("Outer", setup_nested)
    found = params(nested)
    expected = [nested.c, nested.first.W, nested.first.b, nested.second.W, nested.second.b]
    if len(found) == 1:
        registered = vars(nested).get("_modules", {})
        if isinstance(registered, dict) and len(registered) == 2:  # __setattr__ is right
            raise CheckFailed(
                "parameters() found only the outer Parameter c: the sub-modules are in "
                "self._modules, so after your own Parameters also yield from each "
                "sub-module's parameters()"
            )
        raise CheckFailed(
            "parameters() found only the outer Parameter c: register sub-modules too (an "
            f"isinstance(value, {module_class.__name__}) case in __setattr__) and yield "
            "their parameters()"
        )
    ids = [id(p) for p in found]
    if sorted(ids) != sorted(id(p) for p in expected):
        raise CheckFailed(
            f"a model with a Parameter and two sub-modules has 5 Parameters; parameters() "
            f"gave {len(found)}"
        )
    if ids != [id(p) for p in expected]:
        raise CheckFailed(
            "order: first the module's own Parameters, then each sub-module's, in "
            "assignment order (as PyTorch and minitorch do)"
        )

    def setup_replace(m: Any) -> None:
        m.W = arrays(2)
        m.W = arrays(4)

    replaced = fresh("Replace", setup_replace)
    found = params(replaced)
    if len(found) != 1 or found[0].data.shape != (4,):
        raise CheckFailed(
            "assigning self.W twice should leave one Parameter, the new one: key the "
            "registry by the attribute's name (a dict), so the new value replaces the old"
        )

    def setup_unset(m: Any) -> None:
        m.W = arrays(2)
        m.W = 3.0  # no longer a Parameter

    unset = fresh("Unset", setup_unset)
    if params(unset):
        raise CheckFailed(
            "self.W = 3.0 after self.W = Parameter(...) should unregister W: a plain value "
            "replaces the Parameter, so remove the name from the registry first "
            "(self._params.pop(name, None))"
        )


def check_loader(loader_class: type) -> None:
    """Check a student's DataLoader with ``shuffle`` and ``drop_last`` (notebook 09)."""
    require("SimpleLoader", loader_class)
    x = np.arange(10.0).reshape(10, 1) * 10.0
    t = np.arange(10)

    def epoch(loader: Any) -> list[tuple[np.ndarray, np.ndarray]]:
        with exercise("iterating over your loader"):
            batches = [(np.asarray(xb), np.asarray(tb)) for xb, tb in loader]
        return batches

    with exercise("SimpleLoader(x, t, batch_size=4, shuffle=False)"):
        plain = loader_class(x, t, batch_size=4, shuffle=False)
    batches = epoch(plain)
    sizes = [len(tb) for _, tb in batches]
    if sizes != [4, 4, 2]:
        short = sizes == [len(range(10)[i * 4 : (i + 1) * 4 - 1]) for i in range(3)]
        raise CheckFailed(
            f"10 samples in batches of 4 should give batch sizes [4, 4, 2], got {sizes}"
            + ("; keep the last, smaller batch unless drop_last" if sizes == [4, 4] else "")
            + (
                "; each batch is one short: order[i*B:(i+1)*B] already stops before (i+1)*B"
                if short
                else ""
            )
        )
    if not np.array_equal(np.concatenate([tb for _, tb in batches]), t):
        raise CheckFailed("with shuffle=False the batches should follow the dataset order")
    with exercise("len(loader)"):
        n = len(plain)
    if n != 3:
        raise CheckFailed(f"len(loader) should be the number of batches, 3, got {n}")

    with exercise("SimpleLoader(..., drop_last=True)"):
        dropping = loader_class(x, t, batch_size=4, shuffle=False, drop_last=True)
    sizes = [len(tb) for _, tb in epoch(dropping)]
    if sizes != [4, 4]:
        raise CheckFailed(f"drop_last=True should drop the short last batch: got {sizes}")
    with exercise("len(loader) with drop_last"):
        n = len(dropping)
    if n != 2:
        raise CheckFailed(
            f"with drop_last=True, len(loader) is 10 // 4 = 2, got {n} (math.ceil without "
            "drop_last, floor division with it)"
        )

    with exercise("SimpleLoader(..., shuffle=True, seed=0)"):
        shuffled = loader_class(x, t, batch_size=3, shuffle=True, seed=0)
    orders = []
    for _ in range(2):
        batches = epoch(shuffled)
        for xb, tb in batches:
            if not np.array_equal(xb[:, 0], tb * 10.0):
                raise CheckFailed(
                    "the inputs and labels of a batch no longer belong together: index x "
                    "and t with the same indices"
                )
        orders.append(np.concatenate([tb for _, tb in batches]))
    for order in orders:
        if sorted(order.tolist()) != list(range(10)):
            raise CheckFailed(
                "each epoch should visit every sample exactly once (a permutation), got "
                f"{order.tolist()}: use rng.permutation(n), not rng.integers"
            )
    if np.array_equal(orders[0], t):
        raise CheckFailed("shuffle=True should change the order: draw a permutation")
    if np.array_equal(orders[0], orders[1]):
        raise CheckFailed(
            "both epochs had the same order: draw a new permutation at the start of each "
            "epoch (in __iter__), from a generator made once in __init__"
        )
    with exercise("SimpleLoader(..., seed=0) twice"):
        again = loader_class(x, t, batch_size=3, shuffle=True, seed=0)
    first = np.concatenate([tb for _, tb in epoch(again)])
    if not np.array_equal(first, orders[0]):
        raise CheckFailed(
            "two loaders with the same seed should give the same order: make the "
            "generator with np.random.default_rng(seed) in __init__"
        )


def check_two_layer_net(net_class: type, quiet: bool = False) -> None:
    """Check notebook 09's exercise 2: two ``nn.Linear`` layers and ``l2(tanh(l1(x)))``."""
    require("TwoLayerNet", net_class)
    from minitorch import Parameter

    with exercise("TwoLayerNet(3, 5, 2)"):
        net = net_class(3, 5, 2)
        names = [name for name, _ in net.named_parameters()]
    if names != ["l1.W", "l1.b", "l2.W", "l2.b"]:
        raise CheckFailed(
            f"parameters should be l1.W, l1.b, l2.W, l2.b (in order), found {names}: store "
            "the layers as self.l1 and self.l2, each an nn.Linear"
        )
    if not all(isinstance(p, Parameter) for p in net.parameters()):
        raise CheckFailed("use nn.Linear so the weights are Parameters")
    x = np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32)
    with exercise(
        "your forward",
        (
            "ValueError",
            "the shapes do not chain: self.l1 = nn.Linear(n_in, hidden), self.l2 = "
            "nn.Linear(hidden, n_out), and forward applies l1 first",
        ),
    ):
        out = net(x)
    if not hasattr(out, "creator"):
        raise CheckFailed(
            f"forward returned a {type(out).__name__}: this is an ndarray, not a Variable; "
            "use the layers and F.tanh (no .data, no np.tanh) so that backward works"
        )
    if out.shape != (4, 2):
        raise CheckFailed(f"a batch of 4 inputs should give shape (4, 2), got {out.shape}")
    hidden = np.tanh(x @ net.l1.W.data.T + net.l1.b.data)
    check_close_diagnosed(
        "your forward",
        out,
        hidden @ net.l2.W.data.T + net.l2.b.data,
        {
            "apply tanh between the two layers": (x @ net.l1.W.data.T + net.l1.b.data)
            @ net.l2.W.data.T
            + net.l2.b.data,
            "tanh goes between the layers, not after the last one": np.tanh(
                hidden @ net.l2.W.data.T + net.l2.b.data
            ),
            "tanh goes between the layers, not after the last one (your forward has it "
            "after l2 only)": np.tanh(
                (x @ net.l1.W.data.T + net.l1.b.data) @ net.l2.W.data.T + net.l2.b.data
            ),
            "the activation between the layers is tanh, not sigmoid": 1
            / (1 + np.exp(-(x @ net.l1.W.data.T + net.l1.b.data)))
            @ net.l2.W.data.T
            + net.l2.b.data,
            "the activation between the layers is tanh, not ReLU": np.maximum(
                x @ net.l1.W.data.T + net.l1.b.data, 0
            )
            @ net.l2.W.data.T
            + net.l2.b.data,
        },
        atol=1e-5,
    )
    out.sum().backward()
    if net.l1.W.grad is None:
        raise CheckFailed(
            "the first layer gets no gradient: the graph is cut between the layers (a .data "
            "or an np.* function); use F.tanh on the Variable"
        )
    del quiet  # the same checks; the caller decides what to print


class ReferenceTwoLayerNet:
    """A reference ``TwoLayerNet`` (notebook 09) for when exercise 2 is not done."""

    def __new__(cls, n_in: int, hidden: int, n_out: int) -> Any:
        import minitorch.ops as F
        from minitorch import nn

        class TwoLayerNet(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.l1 = nn.Linear(n_in, hidden)
                self.l2 = nn.Linear(hidden, n_out)

            def forward(self, x: Any) -> Any:
                return self.l2(F.tanh(self.l1(x)))

        return TwoLayerNet()


def check_sgd_step(sgd_step: Callable[..., Any]) -> None:
    """Check notebook 09's ``sgd_step(params, lr)``: the values, in place, grads cleared."""
    require("sgd_step", sgd_step)
    from minitorch import Variable

    p1, p2, p3 = (
        Variable(np.array([1.0, -2.0])),
        Variable(np.array([[3.0]])),
        Variable(np.array(0.5)),
    )
    before = p1.data
    ((p1 * p1).sum() + (p2 * 4.0).sum()).backward()
    start = [p1.data.copy(), p2.data.copy()]
    g = [p1.grad.data.copy(), p2.grad.data.copy()]
    with exercise(
        "sgd_step([p1, p2, p3], lr=0.1)",
        (
            "'NoneType' object has no attribute",
            "p.grad is None here: skip a parameter without a gradient (if p.grad is None: "
            "continue), and clear a gradient only after the update has used it",
        ),
    ):
        sgd_step([p1, p2, p3], lr=0.1)
    for k, p in enumerate((p1, p2)):
        right = start[k] - 0.1 * g[k]
        mistakes = {
            "the sign: a step goes downhill, p.data -= lr * p.grad.data": start[k] + 0.1 * g[k],
            "multiply the gradient by the learning rate lr": start[k] - g[k],
            f"p{k + 1} did not move: "
            + (
                "update p.data (p.data -= lr * p.grad.data)"
                if k == 0
                else "update every parameter (does the loop stop early, a return inside it?)"
            ): start[k],
            "that is p.data * (1 - lr): the step is lr times the gradient, not the value": start[k]
            * 0.9,
        }
        check_close_diagnosed(f"p{k + 1} after one step", p, right, mistakes)
    if p1.data is not before:
        raise CheckFailed(
            "update p.data in place (p.data -= ...): `p.data = p.data - ...` makes a new "
            "array, and anything that holds the old one no longer sees the update"
        )
    if p1.grad is not None or p2.grad is not None:
        raise CheckFailed("clear each gradient after the update (p.clear_grad())")
    check_close_diagnosed(
        "p3 (no gradient)", p3, np.array(0.5), hint="skip parameters without grad"
    )


short_errors(globals())  # whatever escapes a check is shown short
