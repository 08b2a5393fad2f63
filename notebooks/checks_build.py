"""Checks for the "build it yourself" exercises of notebooks 07-13.

These extend :mod:`checks` (the shared helpers: ``check_close``, ``explain_errors``, ...)
with what the later notebooks need:

* :func:`exercise` — run the student's code; a stub that still raises
  ``NotImplementedError`` says "not done yet", and a Variable/ndarray mix-up becomes one
  line of guidance (:data:`TYPE_HINTS`);
* :func:`check_close_diagnosed` — compare with a reference, and when the answer equals a
  known wrong variant (a forgotten bias correction, ``/`` instead of ``//``), name it;
* :func:`check_methods_of_function` — check ``backward`` *and* ``backward_array`` of a
  Function against finite differences separately, naming the method that is wrong;
* :func:`yours_or_reference` — where an exercise builds on an earlier one, use the
  student's earlier answer if it works and a reference version otherwise, and say so;
* the reference pieces for those fallbacks and the capstone's checks (notebook 13).

Every check can be re-run: none of them changes the student's objects except where the
exercise is about changing them (an optimizer's ``step``), and then they work on copies.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from checks import check_close, check_true, explain_errors, ok

__all__ = [
    "TYPE_HINTS",
    "check_close_diagnosed",
    "check_methods_of_function",
    "exercise",
    "is_done",
    "ok",
    "yours_or_reference",
]

#: ``(pattern, hint)`` pairs for the usual Variable <-> ndarray mix-ups: the raw
#: TypeError/AttributeError becomes one line saying which type it is and what to use.
TYPE_HINTS: tuple[tuple[str, str], ...] = (
    (
        "not supported between instances of 'Variable'",
        "this is a Variable: compare its values, `v.data`, not the Variable itself",
    ),
    (
        "records no graph for comparisons",  # minitorch's own message for x < 0
        "this is a Variable: compare its values, `v.data`, not the Variable itself",
    ),
    (
        "'Variable' does not support ufuncs",
        "this is a Variable: NumPy functions need arrays. Use `.data` for plain numbers, "
        "or the minitorch op (F.exp, F.tanh, `@`, ...) to stay differentiable",
    ),
    (
        "does not record a graph for Variables",  # minitorch's own message names the op
        "this is a Variable: NumPy functions need arrays. Use `.data` for plain numbers, "
        "or the minitorch op named above to stay differentiable",
    ),
    (
        "'numpy.ndarray' object has no attribute 'creator'",
        "this is an ndarray, not a Variable: build it with minitorch ops (F.<op>) so that "
        "it has a creator",
    ),
    (
        "'numpy.ndarray' object has no attribute",
        "this is an ndarray, not a Variable: use F.<op> on Variables, or read `.data` only "
        "where a plain array is wanted",
    ),
    (
        "'Variable' object has no attribute",
        "this is a Variable: its array is `.data`",
    ),
    (
        "'NoneType' object has no attribute",
        "something is None: a function without `return`, or a `.grad` read before backward()",
    ),
    (
        "maximum recursion depth exceeded",
        "a method calls itself without end: inside __setattr__, set attributes with "
        "object.__setattr__(self, name, value), never self.name = value",
    ),
    (
        "'float' object cannot be interpreted as an integer",
        "a count must be an int: use // (floor division), or math.ceil(...) for rounding up",
    ),
    (
        "memoryview",
        "an ndarray's .data is its raw memory buffer: here the gradient is already an "
        "ndarray, so use p.grad itself, not p.grad.data",
    ),
    (
        "setting an array element with a sequence",
        "a Variable was written into an ndarray: use `.data` on the right-hand side",
    ),
)

NOT_DONE = (
    "{what}: this exercise is not done yet. Replace `raise NotImplementedError()` (and the "
    "comment above it) with your code, run that cell, then run this check again."
)


@contextmanager
def exercise(what: str, *hints: tuple[str, str]) -> Iterator[None]:
    """Run the student's code for ``what``, turning errors into guidance.

    * ``NotImplementedError`` from an untouched stub is re-raised with the message "this
      exercise is not done yet" (still a ``NotImplementedError``, so nbgrader and the
      run-until-the-first-exercise test see the same type);
    * any other exception becomes an ``AssertionError`` naming the exception, the
      student's line and the first matching hint — ``hints`` first, then
      :data:`TYPE_HINTS`;
    * ``AssertionError`` (a failed check) passes unchanged.

    Example:
        >>> with exercise("f(x)"):
        ...     raise NotImplementedError()
        Traceback (most recent call last):
        ...
        NotImplementedError: f(x): this exercise is not done yet. Replace ...
    """
    try:
        try:
            yield
        except NameError as err:
            tb = err.__traceback__
            while tb is not None and tb.tb_next is not None:
                tb = tb.tb_next
            if tb is not None and tb.tb_frame.f_code.co_name == "<module>":
                # raised at a cell's top level, not inside the student's function: a name
                # the exercise defines is missing
                raise NotImplementedError(NOT_DONE.format(what=what) + f" ({err})") from None
            raise
    except NotImplementedError as err:
        if "backward is not defined" in str(err):  # the stub of backward_array raised
            raise NotImplementedError(
                NOT_DONE.format(what=what) + f" ({err}: the engine fell back to backward "
                "because backward_array raised NotImplementedError)"
            ) from None
        if str(err) and "not done yet" not in str(err):  # a library's own: keep it
            raise
        raise NotImplementedError(str(err) if str(err) else NOT_DONE.format(what=what)) from None
    except AssertionError:
        raise
    except Exception as err:
        with explain_errors(what, *hints, *TYPE_HINTS):
            raise err from None


def _array(name: str, value: Any) -> np.ndarray:
    """``value`` (a number, an ndarray or a Variable) as a float64 array, or a clear error."""
    if value is None:
        raise AssertionError(f"{name} is None: did you forget to `return` the result?")
    try:
        return np.asarray(getattr(value, "data", value), dtype=np.float64)
    except (TypeError, ValueError):
        raise AssertionError(
            f"{name} should be a number or an array, got {type(value).__name__}"
        ) from None


def is_done(probe: Callable[[], Any]) -> bool:
    """True if ``probe()`` runs without raising ``NotImplementedError`` (or anything else)."""
    try:
        probe()
    except Exception:
        return False
    return True


def yours_or_reference(name: str, yours: Any, reference: Any, probe: Callable[[Any], Any]) -> Any:
    """Return ``yours`` if ``probe(yours)`` passes, else ``reference``, and say which.

    Used where one exercise builds on an earlier one: an unfinished earlier exercise must
    not fail the later one (nbgrader would take two points for one mistake).

    Args:
        name: what is chosen ("TwoLayerNet").
        yours: the student's object.
        reference: a working version.
        probe: raises (``AssertionError``, ``NotImplementedError``, ...) if ``yours`` is
            not usable.

    Example:
        >>> yours_or_reference("f", None, abs, lambda f: f(-1))
        using the reference f for now (yours: TypeError: 'NoneType' object is not callable)
        <built-in function abs>
    """
    try:
        probe(yours)
    except Exception as err:
        reason = (
            "not done yet"
            if isinstance(err, NotImplementedError)
            else (f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}")
        )
        print(f"using the reference {name} for now (yours: {reason})")
        return reference
    print(f"using your {name}")
    return yours


def check_close_diagnosed(
    name: str,
    got: Any,
    expected: Any,
    mistakes: dict[str, Any] | list[tuple[str, Any]] | None = None,
    atol: float = 1e-6,
    rtol: float = 1e-5,
    hint: Any = "",
) -> None:
    """:func:`checks.check_close`, but first recognise known wrong answers.

    Args:
        name: what is checked.
        got: the student's value.
        expected: the right value.
        mistakes: ``{hint: value}`` (or a list of such pairs); if ``got`` equals
            ``value`` (and ``value`` differs from ``expected``), the message is that hint.
        atol: absolute tolerance.
        rtol: relative tolerance.
        hint: passed on to ``check_close`` for other wrong answers.

    Example:
        >>> check_close_diagnosed("x", 2.5, 2.0, {"used / instead of //": 2.5})
        Traceback (most recent call last):
        ...
        AssertionError: x is 2.5 but should be 2: used / instead of //
    """
    got_array = _array(name, got)
    expected_array = _array("the reference", expected)
    pairs = mistakes.items() if isinstance(mistakes, dict) else (mistakes or [])
    for text, value in pairs:
        wrong = np.asarray(value, dtype=np.float64)
        if wrong.shape != got_array.shape or np.allclose(wrong, expected_array, atol=atol):
            continue
        if np.allclose(got_array, wrong, atol=atol, rtol=rtol):
            shown = f"{got_array.item():.6g}" if got_array.size == 1 else "wrong"
            should = f" but should be {expected_array.item():.6g}" if got_array.size == 1 else ""
            raise AssertionError(f"{name} is {shown}{should}: {text}")
    check_close(name, got, expected, atol=atol, rtol=rtol, hint=hint)


def _numeric_gradient(f: Callable[..., Any], arrays: list[np.ndarray], k: int) -> np.ndarray:
    """Central differences of ``sum(f(*arrays))`` with respect to ``arrays[k]``."""
    from minitorch import Variable, no_grad

    eps = 1e-6
    grad = np.zeros_like(arrays[k])
    for index in np.ndindex(arrays[k].shape):
        values = []
        for step in (eps, -eps):
            shifted = [a.copy() for a in arrays]
            shifted[k][index] += step
            with no_grad():
                values.append(float(np.sum(f(*[Variable(a) for a in shifted]).data)))
        grad[index] = (values[0] - values[1]) / (2 * eps)
    return grad


def check_methods_of_function(
    name: str,
    make: Callable[[], Any],
    *inputs: np.ndarray,
    methods: tuple[str, ...] = ("backward", "backward_array"),
) -> None:
    """Check each backward method of a Function against finite differences, by name.

    A Function has two backwards: ``backward`` (minitorch ops, used with
    ``create_graph=True``) and ``backward_array`` (NumPy, the fast first-order path). A
    mistake in one of them must be reported as a mistake *there*: this runs
    ``sum(f(x)).backward(create_graph=True)`` for ``backward`` and a plain ``backward()``
    for ``backward_array``, and compares each gradient with central differences.

    Args:
        name: the Function's name ("LogCosh").
        make: returns a fresh instance (a Function records one call).
        inputs: the arrays to test at.
        methods: which of the two to check.

    Raises:
        AssertionError: naming the method, the input, the index, the finite-difference
            value and the method's value.
    """
    from minitorch import Variable

    arrays = [np.array(a, dtype=np.float64) for a in inputs]
    for method in methods:
        variables = [Variable(a.copy()) for a in arrays]
        with exercise(f"{name}.{method}"):
            y = make()(*variables)
            y.sum().backward(create_graph=(method == "backward"))
        for k, v in enumerate(variables):
            which = f" for input {k}" if len(arrays) > 1 else ""
            if v.grad is None:
                raise AssertionError(f"your {name}.{method} gave no gradient{which}")
            numeric = _numeric_gradient(lambda *xs: make()(*xs), arrays, k)
            got = np.asarray(v.grad.data, dtype=np.float64)
            if got.shape != numeric.shape:
                raise AssertionError(
                    f"your {name}.{method} returns a gradient of shape {got.shape}{which}; "
                    f"the input has shape {numeric.shape}"
                )
            bad = ~np.isclose(got, numeric, atol=1e-5, rtol=1e-4)
            if bad.any():
                index = tuple(int(i) for i in np.argwhere(bad)[0])
                sign = " (the sign is flipped)" if np.allclose(got, -numeric, atol=1e-5) else ""
                used = (
                    "used by backward(create_graph=True)"
                    if method == "backward"
                    else "used by a plain backward()"
                )
                raise AssertionError(
                    f"your {name}.{method} ({used}) is wrong{which} at index {index}: "
                    f"finite differences give {numeric[index]:.6g}, your {method} gives "
                    f"{got[index]:.6g}{sign}"
                )


def check_returns_variables(name: str, make: Callable[[], Any], *inputs: np.ndarray) -> None:
    """Assert that ``backward`` of a Function returns Variables (or None), not ndarrays.

    A backward on ndarrays gives the right numbers on a first-order backward, but it cannot
    be differentiated again (``create_graph=True``, notebook 06). For a Function whose
    gradients do not depend on its inputs (an addition), the second-order check cannot see
    that, so this looks at the types directly.
    """
    from minitorch import Variable

    f = make()
    with exercise(f"{name}.backward"):
        y = f(*[Variable(np.array(a, dtype=np.float64)) for a in inputs])
        grads = f.backward(Variable(np.ones(y.shape)))
    grads = grads if isinstance(grads, (tuple, list)) else (grads,)
    for k, g in enumerate(grads):
        if g is not None and not isinstance(g, Variable):
            raise AssertionError(
                f"your {name}.backward returns a {type(g).__name__} for input {k}: this is "
                "an ndarray, so backward(create_graph=True) cannot differentiate it. Work on "
                "the Variables (gy, self.inputs) with minitorch ops (F.sum_to, @, .T)"
            )


# -- notebook 09 -------------------------------------------------------------------------
def diagnose_history(history: Any) -> str:
    """Say what a training loss history shows: ``""`` if nothing odd, else a hint.

    A loss that turns nan/inf, or ends well above its lowest value, is the signature of
    gradients that pile up between steps: without ``zero_grad()`` every ``backward()``
    adds to the old gradients, and the steps grow until training diverges.

    Example:
        >>> diagnose_history([1.0, 0.5, 0.2, 0.9, 3.0])
        'the loss fell to 0.2 and then rose to 3 ...'
    """
    values = np.asarray(list(history), dtype=np.float64)
    if values.size < 2:
        return "history should hold the loss of every step (a list of floats)"
    if not np.all(np.isfinite(values)):
        return (
            "the loss became nan/inf: the steps blew up. Did you call optimizer.zero_grad() "
            "before each backward()? Without it the gradients add up from step to step"
        )
    low = float(values.min())
    if values[-1] > 2 * low + 1e-3 and values[-1] > 0.1:
        return (
            f"the loss fell to {low:.3g} and then rose to {values[-1]:.3g} ... did you call "
            "optimizer.zero_grad() before each backward()? Without it every backward() adds "
            "to the old gradients and the steps keep growing"
        )
    return ""


def check_registration(module_class: type, parameter_class: type) -> None:
    """Check a student's ``Module.__setattr__`` registration (notebook 09, exercise 4)."""

    def fresh(cls_name: str, body: Callable[[Any], None]) -> Any:
        cls = type(cls_name, (module_class,), {})
        with exercise(f"{cls_name}()"):
            obj = cls()
            body(obj)
        return obj

    def arrays(*shape: int) -> Any:
        return parameter_class(np.zeros(shape))

    def params(obj: Any) -> list[Any]:
        with exercise("parameters()"):
            found = list(obj.parameters())
        return found

    from minitorch import Variable

    def setup_flat(m: Any) -> None:
        m.W = arrays(2, 3)
        m.b = arrays(3)
        m.scale = 2.0
        m.note = np.ones(3)
        m.cache = Variable(np.ones(2))  # a Variable, but not a Parameter

    flat = fresh("Flat", setup_flat)
    if not (
        getattr(flat, "scale", None) == 2.0
        and isinstance(getattr(flat, "W", None), parameter_class)
    ):
        raise AssertionError(
            "the attributes themselves are missing (self.W raises AttributeError): "
            "__setattr__ must still set them, with object.__setattr__(self, name, value)"
        )
    found = params(flat)
    if any(isinstance(p, str) for p in found):
        raise AssertionError(
            "parameters() yields the names: iterating over a dict gives its keys; yield "
            "from self._params.values()"
        )
    if any(p is flat.note or p is flat.cache for p in found) or len(found) > 2:
        raise AssertionError(
            f"parameters() gave {len(found)} values, but only the Parameters W and b should "
            "be registered: check isinstance(value, Parameter) in __setattr__"
        )
    if len(found) < 2:
        raise AssertionError(
            f"parameters() gave {len(found)} values, expected 2 (W and b): does "
            "__setattr__ store each Parameter in self._params?"
        )
    if not (found[0] is flat.W and found[1] is flat.b):
        raise AssertionError("parameters() should give W then b, in assignment order")

    def setup_nested(m: Any) -> None:
        m.first = fresh("Inner", setup_flat)
        m.c = arrays(1)
        m.second = fresh("Inner2", setup_flat)

    nested = fresh("Outer", setup_nested)
    found = params(nested)
    expected = [nested.c, nested.first.W, nested.first.b, nested.second.W, nested.second.b]
    if len(found) == 1:
        raise AssertionError(
            "parameters() found only the outer Parameter c: register sub-modules too (an "
            "isinstance(value, Module) case in __setattr__) and yield their parameters()"
        )
    ids = [id(p) for p in found]
    if sorted(ids) != sorted(id(p) for p in expected):
        raise AssertionError(
            f"a model with a Parameter and two sub-modules has 5 Parameters; parameters() "
            f"gave {len(found)}"
        )
    if ids != [id(p) for p in expected]:
        raise AssertionError(
            "order: first the module's own Parameters, then each sub-module's, in "
            "assignment order (as PyTorch and minitorch do)"
        )

    def setup_replace(m: Any) -> None:
        m.W = arrays(2)
        m.W = arrays(4)

    replaced = fresh("Replace", setup_replace)
    found = params(replaced)
    if len(found) != 1 or found[0].data.shape != (4,):
        raise AssertionError(
            "assigning self.W twice should leave one Parameter, the new one: key the "
            "registry by the attribute's name (a dict), so the new value replaces the old"
        )


def check_loader(loader_class: type) -> None:
    """Check a student's DataLoader with ``shuffle`` and ``drop_last`` (notebook 09)."""
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
        raise AssertionError(
            f"10 samples in batches of 4 should give batch sizes [4, 4, 2], got {sizes}"
            + ("; keep the last, smaller batch unless drop_last" if sizes == [4, 4] else "")
        )
    if not np.array_equal(np.concatenate([tb for _, tb in batches]), t):
        raise AssertionError("with shuffle=False the batches should follow the dataset order")
    with exercise("len(loader)"):
        n = len(plain)
    if n != 3:
        raise AssertionError(f"len(loader) should be the number of batches, 3, got {n}")

    with exercise("SimpleLoader(..., drop_last=True)"):
        dropping = loader_class(x, t, batch_size=4, shuffle=False, drop_last=True)
    sizes = [len(tb) for _, tb in epoch(dropping)]
    if sizes != [4, 4]:
        raise AssertionError(f"drop_last=True should drop the short last batch: got {sizes}")
    with exercise("len(loader) with drop_last"):
        n = len(dropping)
    if n != 2:
        raise AssertionError(
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
                raise AssertionError(
                    "the inputs and labels of a batch no longer belong together: index x "
                    "and t with the same indices"
                )
        orders.append(np.concatenate([tb for _, tb in batches]))
    for order in orders:
        if sorted(order.tolist()) != list(range(10)):
            raise AssertionError(
                "each epoch should visit every sample exactly once (a permutation), got "
                f"{order.tolist()}: use rng.permutation(n), not rng.integers"
            )
    if np.array_equal(orders[0], t):
        raise AssertionError("shuffle=True should change the order: draw a permutation")
    if np.array_equal(orders[0], orders[1]):
        raise AssertionError(
            "both epochs had the same order: draw a new permutation at the start of each "
            "epoch (in __iter__), from a generator made once in __init__"
        )
    with exercise("SimpleLoader(..., seed=0) twice"):
        again = loader_class(x, t, batch_size=3, shuffle=True, seed=0)
    first = np.concatenate([tb for _, tb in epoch(again)])
    if not np.array_equal(first, orders[0]):
        raise AssertionError(
            "two loaders with the same seed should give the same order: make the "
            "generator with np.random.default_rng(seed) in __init__"
        )


def check_two_layer_net(net_class: type, quiet: bool = False) -> None:
    """Check notebook 09's exercise 2: two ``nn.Linear`` layers and ``l2(tanh(l1(x)))``."""
    from minitorch import Parameter

    with exercise("TwoLayerNet(3, 5, 2)"):
        net = net_class(3, 5, 2)
        names = [name for name, _ in net.named_parameters()]
    if names != ["l1.W", "l1.b", "l2.W", "l2.b"]:
        raise AssertionError(
            f"parameters should be l1.W, l1.b, l2.W, l2.b (in order), found {names}: store "
            "the layers as self.l1 and self.l2, each an nn.Linear"
        )
    if not all(isinstance(p, Parameter) for p in net.parameters()):
        raise AssertionError("use nn.Linear so the weights are Parameters")
    x = np.ones((4, 3), dtype=np.float32)
    with exercise("your forward"):
        out = net(x)
    if not hasattr(out, "creator"):
        raise AssertionError(
            f"forward returned a {type(out).__name__}: this is an ndarray, not a Variable; "
            "use the layers and F.tanh (no .data, no np.tanh) so that backward works"
        )
    if out.shape != (4, 2):
        raise AssertionError(f"a batch of 4 inputs should give shape (4, 2), got {out.shape}")
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
        },
        atol=1e-5,
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


# -- notebook 10: optimizers -------------------------------------------------------------
def _problem(seed: int = 0) -> tuple[list[np.ndarray], Callable[[list[Any]], Any]]:
    """Starting values and a loss with different curvatures, for optimizer checks."""
    rng = np.random.default_rng(seed)
    starts = [rng.standard_normal((2, 3)), rng.standard_normal(3)]
    scales = [np.array([[1.0, 3.0, 0.5], [2.0, 0.2, 1.0]]), np.array([4.0, 0.1, 1.0])]

    def loss(params: list[Any]) -> Any:
        total = None
        for p, s in zip(params, scales):
            term = (p * p * s).sum() + (p * s).sum()
            total = term if total is None else total + term
        return total

    return starts, loss


def run_optimizer(make: Callable[[list[Any]], Any], steps: int) -> list[list[np.ndarray]]:
    """Run ``steps`` optimizer steps on :func:`_problem`; return the parameters after each."""
    from minitorch import Variable

    starts, loss = _problem()
    params = [Variable(s.copy()) for s in starts]
    optimizer = make(params)
    trace = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss(params).backward()
        optimizer.step()
        trace.append([p.data.copy() for p in params])
    return trace


def _numpy_trace(
    update: Callable[[np.ndarray, np.ndarray, dict[str, Any], int], np.ndarray], steps: int
) -> list[list[np.ndarray]]:
    """The same run as :func:`run_optimizer` with a NumPy update rule (for wrong variants)."""
    starts, _ = _problem()
    scales = [np.array([[1.0, 3.0, 0.5], [2.0, 0.2, 1.0]]), np.array([4.0, 0.1, 1.0])]
    params = [s.copy() for s in starts]
    states: list[dict[str, Any]] = [{} for _ in params]
    trace = []
    for t in range(1, steps + 1):
        for i, (p, s) in enumerate(zip(params, scales)):
            grad = 2 * p * s + s
            params[i] = update(p, grad, states[i], t)
        trace.append([p.copy() for p in params])
    return trace


def check_optimizer(
    name: str,
    yours: Callable[[list[Any]], Any],
    reference: Callable[[list[Any]], Any],
    variants: dict[str, Callable[..., np.ndarray]],
    steps: int = 6,
) -> None:
    """Compare ``steps`` steps of the student's optimizer with minitorch's, step by step.

    ``variants`` maps a hint to a NumPy update rule ``(p, grad, state, t) -> new p`` of a
    typical mistake; a trajectory that matches one gets that hint.
    """
    with exercise(
        f"your {name}",
        (
            "broadcast",
            "the shapes don't fit: keep one state array per parameter (a list, like self.params)",
        ),
    ):
        got = run_optimizer(yours, steps)
    expected = run_optimizer(reference, steps)
    wrong = {hint: _numpy_trace(rule, steps) for hint, rule in variants.items()}
    for step in range(steps):
        for k in range(len(expected[step])):
            g, e = got[step][k], expected[step][k]
            if g.shape != e.shape:
                raise AssertionError(
                    f"after step {step + 1}, parameter {k} has shape {g.shape}, expected {e.shape}"
                )
            if np.allclose(g, e, atol=1e-7, rtol=1e-6):
                continue
            if not np.any(np.isfinite(g)):
                raise AssertionError(
                    f"your {name}'s parameters all became nan or inf at step {step + 1}: a "
                    "division by zero? (1 - beta**t) is 0 when t = 0, so count t up before "
                    "using it"
                )
            if not np.all(np.isfinite(g)):
                raise AssertionError(
                    f"some of your {name}'s parameters became nan at step {step + 1} (where "
                    "the gradient is negative): the square root of a negative number. v must "
                    "average the squared gradient, g * g, which is never negative"
                )
            for hint, trace in wrong.items():
                if all(
                    np.allclose(got[s][j], trace[s][j], atol=1e-7, rtol=1e-6)
                    for s in range(step + 1)
                    for j in range(len(trace[s]))
                ):
                    raise AssertionError(
                        f"your {name} differs from minitorch's at step {step + 1}: {hint}"
                    )
            if step > 0 and all(np.allclose(got[0][j], expected[0][j]) for j in range(2)):
                note = " (step 1 was right, so the state kept between steps is the suspect)"
            else:
                note = ""
            check_close(
                f"parameter {k} after step {step + 1} of your {name}",
                g,
                e,
                atol=1e-7,
                rtol=1e-6,
                hint=note.strip(" ()"),
            )


def sgd_variants(lr: float, momentum: float) -> dict[str, Callable[..., np.ndarray]]:
    """Typical wrong momentum-SGD updates, for :func:`check_optimizer`."""

    def no_memory(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        return p - lr * g

    def no_momentum_factor(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        s["v"] = s.get("v", 0) + g
        return p - lr * s["v"]

    def lr_in_buffer_wrong_sign(
        p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int
    ) -> np.ndarray:
        s["v"] = momentum * s.get("v", 0) + lr * g
        return p + s["v"]

    return {
        "your steps equal plain SGD: the velocity must persist between steps "
        "(store it per parameter, e.g. in a dict or list on self, and update it)": no_memory,
        "the velocity only grows: multiply the old velocity by momentum before adding the "
        "gradient": no_momentum_factor,
        "the parameters move uphill: subtract the step (p.data -= lr * v)": (
            lr_in_buffer_wrong_sign
        ),
    }


def adam_variants(
    lr: float, betas: tuple[float, float], eps: float
) -> dict[str, Callable[..., np.ndarray]]:
    """Typical wrong Adam updates, for :func:`check_optimizer`."""
    b1, b2 = betas

    def moments(g: np.ndarray, s: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
        s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
        s["v"] = b2 * s.get("v", 0) + (1 - b2) * g * g
        return s["m"], s["v"]

    def no_correction(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        m, v = moments(g, s)
        return p - lr * m / (np.sqrt(v) + eps)

    def no_square(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
        s["v"] = b2 * s.get("v", 0) + (1 - b2) * g
        m_hat, v_hat = s["m"] / (1 - b1**t), s["v"] / (1 - b2**t)
        return p - lr * m_hat / (np.sqrt(np.abs(v_hat)) + eps)

    def t_from_zero(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        m, v = moments(g, s)
        tt = t + 1
        return p - lr * (m / (1 - b1**tt)) / (np.sqrt(v / (1 - b2**tt)) + eps)

    def t_frozen(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        m, v = moments(g, s)
        return p - lr * (m / (1 - b1)) / (np.sqrt(v / (1 - b2)) + eps)

    def eps_inside(p: np.ndarray, g: np.ndarray, s: dict[str, Any], t: int) -> np.ndarray:
        m, v = moments(g, s)
        return p - lr * (m / (1 - b1**t)) / np.sqrt(v / (1 - b2**t) + eps)

    return {
        "eps goes outside the square root: m_hat / (sqrt(v_hat) + eps)": eps_inside,
        "no bias correction: divide m by (1 - beta1**t) and v by (1 - beta2**t), with t the "
        "number of steps taken so far (1 at the first step)": no_correction,
        "the second moment should average the *squared* gradient, g * g": no_square,
        "the step count t should be 1 at the first step (count it up before using it)": (
            t_from_zero
        ),
        "the step count t stays at 1: keep it on self and add 1 at every step()": t_frozen,
    }


def check_clip(clip: Callable[..., Any]) -> None:
    """Check a student's ``clip_grad_norm(params, max_norm)`` against minitorch's ClipGrad."""
    from minitorch import Variable
    from minitorch.optim import ClipGrad

    grads = [np.array([[3.0, 0.0], [0.0, 4.0]]), np.array([12.0])]  # global norm 13

    def fresh() -> list[Any]:
        params = [Variable(np.zeros_like(g)) for g in grads]
        for p, g in zip(params, grads):
            p.grad = Variable(g.copy())
        return params

    ours = fresh()
    ClipGrad(6.5)(ours)
    theirs = fresh()
    with exercise("clip_grad_norm(params, 6.5)"):
        norm = clip(theirs, 6.5)
    check_close_diagnosed(
        "the returned norm",
        norm,
        13.0,
        {"return the norm *before* clipping (it is what one logs)": 6.5},
        hint="the global norm is sqrt of the sum of every gradient's squares: sqrt(9+16+144)",
    )
    for k, a in enumerate(theirs):
        if not isinstance(a.grad, Variable):
            raise AssertionError(
                f"gradient {k} is now a {type(a.grad).__name__}: this is an ndarray, but a "
                "gradient is a Variable; assign p.grad = Variable(p.grad.data * scale)"
            )
    for k, (a, b) in enumerate(zip(theirs, ours)):
        local = np.array(grads[k]) * min(1.0, 6.5 / np.sqrt(np.sum(grads[k] ** 2)))
        check_close_diagnosed(
            f"gradient {k} after clipping",
            a.grad,
            b.grad,
            {
                "each gradient was clipped by its own norm: use the global norm of all "
                "gradients together, so the joint direction is kept": local
            },
            hint="multiply every gradient by max_norm / norm when norm > max_norm",
        )
    small = fresh()
    with exercise("clip_grad_norm(params, 100.0)"):
        clip(small, 100.0)
    for k, p in enumerate(small):
        check_close(
            f"gradient {k} with a norm below max_norm",
            p.grad,
            grads[k],
            hint="leave the gradients alone when the norm is already small enough",
        )


def reference_clip(params: list[Any], max_norm: float) -> float:
    """minitorch's ClipGrad as a function: clip in place, return the norm before clipping."""
    from minitorch.optim import ClipGrad

    clip = ClipGrad(max_norm)
    clip(params)
    return clip.last_norm


# -- notebook 11: convolution pieces -----------------------------------------------------
def reference_im2col(x: np.ndarray, k: int) -> np.ndarray:
    """``(N, C, H, W) -> (N, C*k*k, H_out*W_out)``, stride 1, no padding, by loops."""
    n, c, h, w = x.shape
    oh, ow = h - k + 1, w - k + 1
    col = np.zeros((n, c * k * k, oh * ow))
    for i in range(oh):
        for j in range(ow):
            col[:, :, i * ow + j] = x[:, :, i : i + k, j : j + k].reshape(n, -1)
    return col


def reference_col2im(col: np.ndarray, x_shape: tuple[int, ...], k: int) -> np.ndarray:
    """The adjoint of :func:`reference_im2col`: add every column back into its window."""
    n, c, h, w = x_shape
    oh, ow = h - k + 1, w - k + 1
    x = np.zeros(x_shape)
    for i in range(oh):
        for j in range(ow):
            x[:, :, i : i + k, j : j + k] += col[:, :, i * ow + j].reshape(n, c, k, k)
    return x


def check_im2col(f: Callable[..., Any]) -> None:
    """Check notebook 11's ``im2col_np(x, k)`` against ``F.im2col``."""
    import minitorch.ops as F
    from minitorch import Variable

    rng_ = np.random.default_rng(11)
    for shape, k in [((1, 1, 4, 4), 2), ((2, 3, 5, 4), 3), ((1, 2, 3, 3), 3)]:
        x = rng_.standard_normal(shape)
        with exercise(f"im2col_np(x of shape {shape}, k={k})"):
            got = f(x, k)
        expected = F.im2col(Variable(x), k).data
        check_true(
            np.shape(got) == expected.shape,
            f"im2col_np(x of shape {shape}, k={k}) has shape {np.shape(got)}, expected "
            f"{expected.shape} = (N, C*k*k, H_out*W_out), with H_out = H - k + 1 "
            "windows along an axis of length H",
        )
        n, ckk = expected.shape[:2]
        oh, ow = shape[2] - k + 1, shape[3] - k + 1
        swapped = expected.reshape(n, ckk, oh, ow).transpose(0, 1, 3, 2).reshape(n, ckk, -1)
        check_close_diagnosed(
            f"im2col_np(x of shape {shape}, k={k})",
            got,
            expected,
            {
                "the windows are in the wrong order: column i * W_out + j is window (i, j), with "
                "i the row (move along a row first)": swapped
            },
        )


def check_col2im(f: Callable[..., Any]) -> None:
    """Check notebook 11's ``col2im_np(col, x_shape, k)``: values, sums, adjointness."""
    import minitorch.ops as F
    from minitorch import Variable

    rng_ = np.random.default_rng(12)
    ones = np.ones((1, 4, 4))  # every column all ones: each pixel counts its windows
    with exercise(
        "col2im_np(ones, (1, 1, 3, 3), 2)",
        (
            "cannot reshape",
            "col2im is not a "
            "reshape: the windows overlap. Start from np.zeros(x_shape) and add each "
            "column into its window",
        ),
    ):
        got = f(ones, (1, 1, 3, 3), 2)
    counts = np.array([[[[1.0, 2, 1], [2, 4, 2], [1, 2, 1]]]])
    check_close_diagnosed(
        "col2im_np of all-ones columns",
        got,
        counts,
        {"overlapping windows must add up (+=), not overwrite (=)": np.ones((1, 1, 3, 3))},
        hint="each pixel should count the windows it belongs to (the centre is in all 4)",
    )
    for shape, k in [((2, 3, 5, 4), 3), ((1, 2, 4, 4), 2)]:
        x = rng_.standard_normal(shape)
        col = rng_.standard_normal(reference_im2col(x, k).shape)
        with exercise(f"col2im_np(col, {shape}, {k})"):
            got = f(col, shape, k)
        check_close(
            f"col2im_np(col, {shape}, {k})", got, F.col2im(Variable(col), shape[2:], k).data
        )
        # the adjoint identity <im2col(x), col> = <x, col2im(col)>: col2im is im2col's
        # backward
        check_close(
            "<im2col(x), col> - <x, col2im(col)>",
            np.sum(reference_im2col(x, k) * col) - np.sum(x * got),
            0.0,
            atol=1e-9,
        )


def maxpool_variants(x: np.ndarray, gy: np.ndarray) -> dict[str, np.ndarray]:
    """Typical wrong gradients of a 2x2 max-pool (notebook 11, exercise 6)."""
    swapped, no_stride = np.zeros_like(x), np.zeros_like(x)
    for index in np.ndindex(gy.shape):
        n, c, i, j = index
        a = int(np.argmax(x[n, c, 2 * i : 2 * i + 2, 2 * j : 2 * j + 2]))
        r, s = divmod(a, 2)
        swapped[n, c, 2 * i + s, 2 * j + r] = gy[index]
        no_stride[n, c, i + r, j + s] = gy[index]
    return {
        "the winners' rows and columns are swapped: divmod(a, 2) gives (row, column)": swapped,
        "window (i, j) starts at row 2*i and column 2*j of x: the winner is at "
        "(2*i + row, 2*j + column)": no_stride,
    }


def check_connected(name: str, f: Callable[..., Any], *inputs: np.ndarray) -> None:
    """Assert that every input reaches the output through the graph (no ``.data`` cut)."""
    from minitorch import Variable

    variables = [Variable(np.array(a, dtype=np.float64)) for a in inputs]
    with exercise(name):
        result = f(*variables)
        outputs = list(result) if isinstance(result, (tuple, list)) else [result]
        total = outputs[0].sum()
        for y in outputs[1:]:
            total = total + y.sum()
        total.backward()
    for k, v in enumerate(variables):
        if v.grad is None:
            raise AssertionError(
                f"your {name}'s result does not depend on input {k} in the graph, so it gets "
                "no gradient: a `.data` (or an np.* function) cut the graph. Use Variables "
                "and minitorch ops throughout"
            )


# -- notebook 11b: LSTM ------------------------------------------------------------------
def lstm_reference(
    x: np.ndarray, h: np.ndarray, c: np.ndarray, W: np.ndarray, U: np.ndarray, b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """One LSTM step in NumPy (gate order i, f, g, o as PyTorch and minitorch)."""
    z = x @ W.T + h @ U.T + b
    i, f, g, o = np.split(z, 4, axis=1)

    def sig(a: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-a))

    c_new = sig(f) * c + sig(i) * np.tanh(g)
    return sig(o) * np.tanh(c_new), c_new


def lstm_variants(
    x: np.ndarray, h: np.ndarray, c: np.ndarray, W: np.ndarray, U: np.ndarray, b: np.ndarray
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Typical wrong LSTM steps: ``{hint: (h, c)}``."""
    z = x @ W.T + h @ U.T + b
    i, f, g, o = np.split(z, 4, axis=1)

    def sig(a: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-a))

    out = {}
    c1 = sig(f) * c + sig(i) * np.tanh(g)
    out["h should be o * tanh(c_new), the *new* cell state, not the old one"] = (
        sig(o) * np.tanh(c),
        c1,
    )
    out["h is o * tanh(c_new): the tanh is missing"] = (sig(o) * c1, c1)
    c2 = sig(f) * c + sig(i) * sig(g)
    out["the candidate g uses tanh, not sigmoid (values in -1..1)"] = (sig(o) * np.tanh(c2), c2)
    c3 = sig(i) * c + sig(f) * np.tanh(g)
    out["gate order is i, f, g, o: f multiplies the old cell state, i the candidate"] = (
        sig(o) * np.tanh(c3),
        c3,
    )
    return out


def float_weights(*arrays: np.ndarray) -> list[np.ndarray]:
    """float64 copies (gradcheck needs float64)."""
    return [np.array(a, dtype=np.float64) for a in arrays]


def dead_filters(maps: np.ndarray, tol: float = 0.0) -> list[int]:
    """Indices ``k`` of feature maps ``maps[k]`` (after ReLU) that are zero everywhere."""
    return [k for k in range(len(maps)) if float(np.max(maps[k])) <= tol]


def rounded(value: float) -> float:
    """``value`` rounded to 2 decimals (for stable printed numbers)."""
    return math.floor(value * 100 + 0.5) / 100


def copy_params(params: list[Any]) -> list[Any]:
    """Deep copies of Variables (checks never change the student's objects)."""
    return [copy.deepcopy(p) for p in params]


# -- notebook 13: the capstone -----------------------------------------------------------
# The student's framework has its own Tensor (an array, .grad as an ndarray, .creator), a
# Function base class whose __call__ calls the global ``call``, and an engine ``backward``.
# The checks below build their test graphs by hand (setting ``inputs``/``output``), so
# each exercise is checked without the others.
class _Op:
    """A hand-made node for the engine check: ``backward`` returns fixed formulas."""

    def __init__(
        self,
        tensor_class: type,
        inputs: list[Any],
        value: np.ndarray,
        grads: Callable[[np.ndarray], tuple[np.ndarray, ...]],
    ) -> None:
        self.inputs = inputs
        self.output = tensor_class(value, creator=self)
        self._grads = grads

    def backward(self, gy: np.ndarray) -> tuple[np.ndarray, ...]:
        return self._grads(gy)


def check_call(call: Callable[..., Any], tensor_class: type, function_class: type) -> None:
    """Check the capstone's ``call(f, *inputs)``: wrap, run forward, record the graph."""

    class Twice(function_class):  # type: ignore[misc, valid-type]
        def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
            self.seen = (a, b)
            return 2 * a + b

        def backward(self, gy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return 2 * gy, gy

    a = tensor_class(np.array([1.0, 2.0]))
    f = Twice()
    with exercise(
        "call(f, a, np.array([10.0, 20.0]))",
        (
            "'Tensor'",
            "a Tensor ended up where an array belongs: wrap only the inputs that are not "
            "Tensors yet (isinstance(x, Tensor)), and give f.forward their arrays, x.data",
        ),
    ):
        y = call(f, a, np.array([10.0, 20.0]))
    if not isinstance(y, tensor_class):
        raise AssertionError(
            f"call should return a Tensor, got {type(y).__name__}: wrap forward's result, "
            "Tensor(result, creator=f)"
        )
    seen = getattr(f, "seen", None)
    if seen is None or any(isinstance(s, tensor_class) for s in seen):
        raise AssertionError("forward should receive the inputs' arrays (x.data), not the Tensors")
    check_close("call(f, a, b).data", y.data, np.array([12.0, 24.0]))
    if y.creator is not f:
        raise AssertionError("the output's creator should be f (Tensor(result, creator=f))")
    inputs = list(getattr(f, "inputs", []) or [])
    if len(inputs) != 2 or inputs[0] is not a:
        raise AssertionError(
            "f.inputs should be the list of input Tensors (the same objects: a, then b), so "
            "the engine can walk back from f to them"
        )
    if not isinstance(inputs[1], tensor_class):
        raise AssertionError(
            "a plain ndarray input should be wrapped in a Tensor (a constant) before it is "
            "stored in f.inputs"
        )
    if getattr(f, "output", None) is not y:
        raise AssertionError("store the output on the Function too, f.output = the Tensor")


def check_engine(backward: Callable[[Any], None], tensor_class: type) -> None:
    """Check the capstone's ``backward(y)`` on hand-built graphs with known gradients."""
    T = tensor_class
    # 1. y = x * x + x: x is used three times
    x = T(np.array([1.0, 2.0, -3.0]))
    sq = _Op(T, [x, x], x.data**2, lambda g: (g * x.data, g * x.data))
    y = _Op(T, [sq.output, x], sq.output.data + x.data, lambda g: (g, g)).output
    none_hint = (
        "NoneType",
        "a gradient is None: either y.grad was never set (start with "
        "y.grad = np.ones_like(y.data)), or a Function ran before its output's gradient "
        "arrived - walk the depth-first list *reversed*, last appended first",
    )
    with exercise("backward(y) for y = x*x + x", none_hint):
        backward(y)
    if x.grad is None:
        raise AssertionError(
            "x.grad is None after backward(y): set y.grad = np.ones_like(y.data), then give "
            "each input of each Function its gradient"
        )
    overwritten = (
        "only the last contribution survived: a Tensor used several times must *add* its "
        "gradients (x.grad = g if x.grad is None else x.grad + g)"
    )
    check_close_diagnosed(
        "x.grad for y = x*x + x",
        x.grad,
        2 * x.data + 1,
        [
            (overwritten, np.ones(3)),
            (overwritten, x.data),
            (overwritten, x.data + 1),
            (overwritten, 2 * x.data),
        ],
    )
    check_close(
        "y.grad (the seed)", y.grad, np.ones(3), hint="start with y.grad = np.ones_like(y.data)"
    )
    # 2. a diamond: a = exp(u); b = a * a; c = b + a. a's creator must wait for both uses.
    u = T(np.array([0.5, -1.0]))
    ea = np.exp(u.data)
    exp = _Op(T, [u], ea, lambda g: (g * ea,))
    a = exp.output
    b = _Op(T, [a, a], ea**2, lambda g: (g * ea, g * ea)).output
    c = _Op(T, [b, a], ea**2 + ea, lambda g: (g, g)).output
    with exercise("backward(c) for c = exp(u)**2 + exp(u)", none_hint):
        backward(c)
    expected = (2 * ea + 1) * ea
    if u.grad is not None and np.allclose(u.grad, ea) and not np.allclose(ea, expected):
        raise AssertionError(
            "the gradient of u is exp(u), the share of only one path: a Function's backward "
            "ran before all gradients of its output had arrived. Visit the Functions in "
            "reverse topological order (a depth-first search that appends a Function after "
            "its inputs' creators, then reversed)"
        )
    check_close(
        "u.grad for c = exp(u)**2 + exp(u)",
        u.grad,
        expected,
        hint="each Function's backward must run once, after all the gradients of its "
        "output have been added up: reverse topological order",
    )


def _set_graph(f: Any, tensor_class: type, arrays: list[np.ndarray]) -> Any:
    """Run ``f.forward`` and record inputs/output by hand (independent of ``call``)."""
    f.inputs = [tensor_class(a) for a in arrays]
    out = f.forward(*[t.data for t in f.inputs])
    f.output = tensor_class(out, creator=f)
    return out


def _numeric(
    make: Callable[[], Any],
    tensor_class: type,
    arrays: list[np.ndarray],
    k: int,
    weights: np.ndarray,
) -> np.ndarray:
    eps = 1e-6
    grad = np.zeros_like(arrays[k])
    for index in np.ndindex(arrays[k].shape):
        total = []
        for step in (eps, -eps):
            shifted = [a.copy() for a in arrays]
            shifted[k][index] += step
            total.append(float(np.sum(_set_graph(make(), tensor_class, shifted) * weights)))
        grad[index] = (total[0] - total[1]) / (2 * eps)
    return grad


def check_function_backward(
    name: str,
    make: Callable[[], Any],
    tensor_class: type,
    arrays: list[np.ndarray],
    names: list[str],
    mistakes: Callable[[np.ndarray], dict[int, dict[str, Any]]] | None = None,
    shape_hints: list[str] | None = None,
) -> None:
    """Compare a capstone Function's ``backward`` with central differences, input by input.

    ``mistakes(gy)`` may return ``{input index: {hint: wrong gradient}}``;
    ``shape_hints[k]`` is added when input k's gradient has the wrong shape.
    """
    arrays = [np.array(a, dtype=np.float64) for a in arrays]
    f = make()
    with exercise(f"{name}.forward"):
        out = _set_graph(f, tensor_class, arrays)
    gy = np.random.default_rng(4).standard_normal(np.shape(out))
    with exercise(
        f"{name}.backward",
        (
            "matmul",
            "check the shapes of the product: gy is "
            "(N, D_out), W is (D_out, D_in), x is (N, D_in)",
        ),
    ):
        grads = f.backward(gy)
    grads = grads if isinstance(grads, (tuple, list)) else (grads,)
    if len(grads) != len(arrays):
        raise AssertionError(
            f"{name}.backward should return {len(arrays)} gradients (one per input: "
            f"{', '.join(names)}), got {len(grads)}"
        )
    wrong = mistakes(gy) if mistakes else {}
    for k, (g, a) in enumerate(zip(grads, arrays)):
        if g is None or np.shape(g) != a.shape:
            shape = None if g is None else np.shape(g)
            extra = f"\n  hint: {shape_hints[k]}" if shape_hints and shape_hints[k] else ""
            raise AssertionError(
                f"{name}.backward: the gradient of {names[k]} has shape {shape}, but "
                f"{names[k]} has shape {a.shape} (a gradient has its input's shape){extra}"
            )
        numeric = _numeric(make, tensor_class, arrays, k, gy)
        check_close_diagnosed(
            f"{name}.backward's gradient of {names[k]}",
            g,
            numeric,
            wrong.get(k, {}),
            atol=1e-5,
            rtol=1e-4,
        )


def check_softmax_ce(make: Callable[[np.ndarray], Any], tensor_class: type) -> None:
    """Check the capstone's ``SoftmaxCrossEntropy(labels)``: values, stability, gradient."""
    import minitorch.ops as F
    from minitorch import Variable

    z = np.array([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3], [1000.0, 999.0, 0.0]])
    t = np.array([0, 2, 1])
    f = make(t)
    with exercise("SoftmaxCrossEntropy(t).forward(z)"):
        got = _set_graph(f, tensor_class, [z])
    if not np.all(np.isfinite(got)):
        raise AssertionError(
            "the loss is inf/nan for logits near 1000: subtract each row's maximum before "
            "np.exp (softmax does not change)"
        )
    zv = Variable(z.copy())
    ref = F.softmax_cross_entropy(zv, t)
    ref.backward()
    probs = np.exp(z - z.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    picked = -np.log(probs[np.arange(3), t])
    check_close_diagnosed(
        "SoftmaxCrossEntropy forward",
        got,
        ref.data,
        {
            "that is the sum over the batch: take the mean": picked.sum(),
            "the loss is -log of the probability of the *true* class, p[arange(N), t]": -np.log(
                probs[np.arange(3), [1, 0, 0]]
            ).mean(),
        },
        atol=1e-6,
    )
    with exercise(
        "SoftmaxCrossEntropy.backward",
        (
            "object has no attribute",
            "keep what backward needs on self in forward (self.p = ... or self.log_p = ...)",
        ),
    ):
        grads = f.backward(np.array(1.0))
    grads = grads if isinstance(grads, (tuple, list)) else (grads,)
    onehot = np.eye(3)[t]
    check_close_diagnosed(
        "the gradient of the logits",
        grads[0],
        zv.grad.data,
        {
            "divide by N: the loss is a mean over the batch": probs - onehot,
            "the sign is flipped: the gradient is softmax - one_hot": (onehot - probs) / 3,
            "subtract the one-hot labels: the gradient is (softmax - one_hot) / N": probs / 3,
        },
        hint="the gradient is (softmax - one_hot(t)) / N: subtract 1 only at the entries "
        "[np.arange(N), t], one per row",
    )
    f2 = make(t)
    _set_graph(f2, tensor_class, [z])
    grads2 = f2.backward(np.array(2.0))
    grads2 = grads2 if isinstance(grads2, (tuple, list)) else (grads2,)
    check_close(
        "the gradient for an upstream gy = 2",
        grads2[0],
        2 * zv.grad.data,
        hint="multiply by the incoming gy (a number: the loss is a scalar)",
    )


def check_capstone_adam(make: Callable[[list[Any]], Any], parameter_class: type) -> None:
    """Six steps of the capstone's Adam (``p.grad`` an ndarray) against minitorch's Adam."""
    from minitorch import Variable
    from minitorch.optim import Adam

    starts, _ = _problem()
    scales = [np.array([[1.0, 3.0, 0.5], [2.0, 0.2, 1.0]]), np.array([4.0, 0.1, 1.0])]
    mine = [parameter_class(s.copy()) for s in starts]
    theirs = [Variable(s.copy()) for s in starts]
    with exercise("Adam(params, lr=0.1)"):
        opt = make(mine)
    ref = Adam(theirs, lr=0.1)
    hints = adam_variants(0.1, (0.9, 0.999), 1e-8)
    traces = {h: _numpy_trace(rule, 6) for h, rule in hints.items()}
    for step in range(6):
        for p, v, s in zip(mine, theirs, scales):
            p.grad = 2 * p.data * s + s
            v.grad = Variable(2 * v.data * s + s)
        with exercise("Adam.step()"):
            opt.step()
        ref.step()
        for k, (p, v) in enumerate(zip(mine, theirs)):
            if np.allclose(p.data, v.data, atol=1e-7, rtol=1e-6):
                continue
            if not np.any(np.isfinite(p.data)):
                raise AssertionError(
                    f"your Adam's parameters became nan at step {step + 1}: a division by "
                    "zero? (1 - beta**t) is 0 when t = 0, so count t up (self.t += 1) before "
                    "using it"
                )
            for hint, trace in traces.items():
                if np.allclose(p.data, trace[step][k], atol=1e-7, rtol=1e-6):
                    raise AssertionError(f"your Adam differs at step {step + 1}: {hint}")
            check_close(
                f"parameter {k} after step {step + 1} of your Adam",
                p.data,
                v.data,
                atol=1e-7,
                rtol=1e-6,
            )


def check_no_minitorch(namespace: dict[str, Any]) -> None:
    """The capstone's framework must not use minitorch, except ``minitorch.data``."""
    import types

    used = []
    for key, value in namespace.items():
        if key.startswith("_") or key in {"In", "Out"}:
            continue
        module = (
            value.__name__
            if isinstance(value, types.ModuleType)
            else getattr(value, "__module__", "") or ""
        )
        if (
            isinstance(module, str)
            and module.startswith("minitorch")
            and not module.startswith("minitorch.data")
        ):
            used.append(key)
        for base in getattr(value, "__mro__", ())[1:]:
            owner = getattr(base, "__module__", "")
            if owner.startswith("minitorch.") and not owner.startswith("minitorch.data"):
                used.append(f"{key} (a subclass of {base.__module__}.{base.__name__})")
    if used:
        raise AssertionError(
            "your framework uses minitorch: "
            + ", ".join(sorted(set(used)))
            + ". Only the data loaders (minitorch.data) may come from minitorch"
        )


def check_batch_gradients(
    batch_gradients: Callable[..., Any], mlp_class: type, x: np.ndarray, t: np.ndarray
) -> float:
    """Compare the capstone model's gradients on one batch with minitorch's; return the gap."""
    import minitorch.ops as F
    from minitorch import Variable, nn

    model = mlp_class(x.shape[1], 32, 10, seed=3)
    with exercise("batch_gradients(model, x, t)"):
        batch_gradients(model, x, t)  # twice: the answer must not depend on earlier calls
        result = batch_gradients(model, x, t)
        if not isinstance(result, (list, tuple)):
            raise AssertionError(
                f"batch_gradients returned a {type(result).__name__}: return a list of the "
                "gradients, in the order of model.parameters()"
            )
        grads = [np.asarray(getattr(g, "data", g), dtype=np.float64) for g in result]
    params = list(model.parameters())
    if len(grads) != len(params):
        raise AssertionError(
            f"batch_gradients should return one gradient per parameter ({len(params)}, in "
            f"model.parameters() order), got {len(grads)}"
        )
    l1, l2 = nn.Linear(x.shape[1], 32, dtype=np.float64), nn.Linear(32, 10, dtype=np.float64)
    for layer, mine in ((l1, model.l1), (l2, model.l2)):
        layer.W.data = mine.W.data.copy()
        layer.b.data = mine.b.data.copy()
    loss = F.softmax_cross_entropy(l2(F.relu(l1(Variable(x.astype(np.float64))))), t)
    loss.backward()
    reference = [l1.W.grad.data, l1.b.grad.data, l2.W.grad.data, l2.b.grad.data]
    names = ["l1.W", "l1.b", "l2.W", "l2.b"]
    gap = 0.0
    for name, g, r, p in zip(names, grads, reference, params):
        if np.array_equal(g, p.data):
            raise AssertionError(
                f"for {name} you returned the parameter's values: return its gradient, p.grad"
            )
        if g.shape != r.shape:
            raise AssertionError(f"the gradient of {name} has shape {g.shape}, expected {r.shape}")
        if np.allclose(g, 2 * r, atol=1e-9):
            raise AssertionError(
                f"the gradient of {name} is twice minitorch's: the gradients of an earlier "
                "backward were still there; call model.zero_grad() first"
            )
        check_close(
            f"the gradient of {name} (minitorch's is the reference)", g, r, atol=1e-8, rtol=1e-6
        )
        gap = max(gap, float(np.max(np.abs(g - r))))
    return gap


def diagnose_training(
    model: Any,
    untrained: list[np.ndarray],
    loader: Any,
    rng_state: Any,
    loss_of: Callable[[Any, Any, Any], Any],
) -> None:
    """Say what went wrong in the capstone's training loop (notebook 13, exercise 7).

    ``untrained`` are the weights before the loop, ``rng_state`` the loader's generator
    state then (it moves on with every epoch, so it tells whether the loop ran).
    ``loss_of(model, x, t)`` computes a loss Tensor with the student's framework.
    """
    params = list(model.parameters())
    unchanged = all(np.array_equal(p.data, u) for p, u in zip(params, untrained))
    if unchanged and loader.rng.bit_generator.state == rng_state:
        raise NotImplementedError(NOT_DONE.format(what="Exercise 7 (the training loop)"))
    if unchanged:
        if all(p.grad is None for p in params):
            raise AssertionError(
                "the loop ran but the weights never changed, and no gradient was computed: "
                "call loss.backward() for every batch"
            )
        raise AssertionError(
            "the loop ran but the weights never changed: call optimizer.step() after "
            "loss.backward(), for every batch"
        )
    kept = [None if p.grad is None else np.array(p.grad, copy=True) for p in params]
    if any(g is None for g in kept):
        return
    xb, tb = loader.dataset.data[:64], loader.dataset.label[:64]  # not the loader: its order
    model.zero_grad()  # must not move on
    loss_of(model, xb, tb).backward()
    fresh = float(np.sqrt(sum(np.sum(p.grad**2) for p in params)))
    left = float(np.sqrt(sum(np.sum(g**2) for g in kept if g is not None)))
    for p, g in zip(params, kept):  # leave the model as it was
        p.grad = g
    if left > 20 * fresh:
        raise AssertionError(
            f"the gradients left after training have norm {left:.3g}, far above one batch's "
            f"({fresh:.3g}): they piled up over all steps. Call model.zero_grad() before "
            "each loss.backward()"
        )


def reference_pieces(
    tensor_class: type, function_class: type, parameter_class: type
) -> dict[str, Any]:
    """Working versions of the capstone's pieces, built on the student's base classes.

    The capstone uses them only for a piece whose exercise does not pass yet, so that one
    unfinished exercise does not block the training at the end.
    """
    T = tensor_class

    def call(f: Any, *inputs: Any) -> Any:
        inputs = tuple(x if isinstance(x, T) else T(x) for x in inputs)
        f.inputs = list(inputs)
        f.output = T(f.forward(*[x.data for x in inputs]), creator=f)
        return f.output

    def backward(y: Any) -> None:
        order: list[Any] = []
        seen: set[int] = set()
        stack = [(y.creator, False)]
        while stack:
            f, done = stack.pop()
            if f is None or (not done and id(f) in seen):
                continue
            if done:
                order.append(f)
                continue
            seen.add(id(f))
            stack.append((f, True))
            stack.extend((x.creator, False) for x in f.inputs)
        y.grad = np.ones_like(y.data)
        for f in reversed(order):
            if f.output.grad is None:
                continue
            grads = f.backward(f.output.grad)
            grads = grads if isinstance(grads, (tuple, list)) else (grads,)
            for x, g in zip(f.inputs, grads):
                if g is not None:
                    x.grad = g if x.grad is None else x.grad + g

    class Linear(function_class):  # type: ignore[misc, valid-type]
        def forward(self, x: np.ndarray, W: np.ndarray, b: np.ndarray) -> np.ndarray:
            return x @ W.T + b

        def backward(self, gy: np.ndarray) -> tuple[np.ndarray, ...]:
            x, W, _ = (t.data for t in self.inputs)
            return gy @ W, gy.T @ x, gy.sum(axis=0)

    class ReLU(function_class):  # type: ignore[misc, valid-type]
        def forward(self, x: np.ndarray) -> np.ndarray:
            return np.maximum(x, 0.0)

        def backward(self, gy: np.ndarray) -> np.ndarray:
            return gy * (self.inputs[0].data > 0)

    class SoftmaxCrossEntropy(function_class):  # type: ignore[misc, valid-type]
        def __init__(self, labels: np.ndarray) -> None:
            self.labels = np.asarray(labels)

        def forward(self, z: np.ndarray) -> np.ndarray:
            shifted = z - z.max(axis=1, keepdims=True)
            self.log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
            return -self.log_p[np.arange(len(z)), self.labels].mean()

        def backward(self, gy: np.ndarray) -> np.ndarray:
            n = len(self.labels)
            grad = np.exp(self.log_p)
            grad[np.arange(n), self.labels] -= 1.0
            return gy * grad / n

    class Module:
        def __init__(self) -> None:
            object.__setattr__(self, "_params", {})
            object.__setattr__(self, "_modules", {})

        def __setattr__(self, name: str, value: Any) -> None:
            self._params.pop(name, None)
            self._modules.pop(name, None)
            if isinstance(value, parameter_class):
                self._params[name] = value
            elif isinstance(value, Module):
                self._modules[name] = value
            object.__setattr__(self, name, value)

        def parameters(self) -> Iterator[Any]:
            yield from self._params.values()
            for module in self._modules.values():
                yield from module.parameters()

        def zero_grad(self) -> None:
            for p in self.parameters():
                p.grad = None

        def __call__(self, *args: Any) -> Any:
            return self.forward(*args)  # type: ignore[attr-defined]

    class Adam:
        def __init__(
            self,
            params: Any,
            lr: float = 0.001,
            betas: tuple[float, float] = (0.9, 0.999),
            eps: float = 1e-8,
        ) -> None:
            self.params = list(params)
            self.lr, self.betas, self.eps, self.t = lr, betas, eps, 0
            self.m = [np.zeros_like(p.data) for p in self.params]
            self.v = [np.zeros_like(p.data) for p in self.params]

        def step(self) -> None:
            b1, b2 = self.betas
            self.t += 1
            for p, m, v in zip(self.params, self.m, self.v):
                if p.grad is None:
                    continue
                m *= b1
                m += (1 - b1) * p.grad
                v *= b2
                v += (1 - b2) * p.grad**2
                m_hat, v_hat = m / (1 - b1**self.t), v / (1 - b2**self.t)
                p.data -= self.lr * m_hat / (np.sqrt(v_hat) + self.eps)

    return {
        "call": call,
        "backward": backward,
        "Linear": Linear,
        "ReLU": ReLU,
        "SoftmaxCrossEntropy": SoftmaxCrossEntropy,
        "Module": Module,
        "Adam": Adam,
    }
