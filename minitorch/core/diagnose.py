"""The engine's and Function's checks, and the messages that explain a failure.

The engine (``backward.py``) and ``Function.__call__`` (``function.py``) run a cheap test
inline and call into this module only when it fails, so the idea stays readable there
and the long explanations live here. Every message names the op, the argument and the
offending shape, dtype or value, and says what to do instead.
"""

from __future__ import annotations

import inspect
import os
import traceback
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from minitorch.core.config import current_state
from minitorch.core.saved import Unsaved, grad_key
from minitorch.core.variable import Variable

if TYPE_CHECKING:
    from minitorch.core.function import Function

Grad = Any  # np.ndarray on the first-order path, Variable with create_graph=True


# -- the engine ------------------------------------------------------------------------
def check_start(y: Variable, retain_grad: Any = False, create_graph: Any = False) -> None:
    """The errors of a backward that cannot start (no graph inside no_grad, no data, an
    output gradient passed as PyTorch's ``y.backward(gradient)``)."""
    flags = (("retain_grad", retain_grad), ("create_graph", create_graph))
    usual = type(retain_grad) is bool and type(create_graph) is bool  # nothing to check
    for name, flag in () if usual else flags:
        if isinstance(flag, (np.ndarray, Variable)):
            raise TypeError(
                f"backward(): {name} must be True or False, got a {type(flag).__name__} "
                f"of shape {flag.shape}. minitorch's backward takes no output gradient "
                "(PyTorch's y.backward(gradient)): use autograd.grad(y, x, "
                "grad_outputs=g), or (y * g).sum().backward()"
            )
    state = current_state()
    if not state.enable_backprop and not state.in_backward and y.creator is None:
        raise RuntimeError(
            "backward() was called inside no_grad(): no graph was recorded; "
            "compute the loss outside the no_grad() block"
        )
    if y.data is None:
        raise RuntimeError("backward(): the Variable holds no data (data is None)")


def constant_output_message(j: int) -> str:
    """Why ``autograd.grad`` cannot differentiate its output ``j``: it has no graph."""
    return (
        f"autograd.grad: output {j} does not require a gradient and has no creator: it "
        "was created with requires_grad=False, or computed inside no_grad() or only from "
        "constants, so no graph leads back to the inputs"
    )


def no_graph_message(y: Variable) -> str:
    """Why ``y.backward()`` has nothing to do, with the fix for the likely mistake."""
    label = f"Variable {y.name!r}" if y.name else "this Variable"
    transform = getattr(y, "_first_order_grad", False)
    if isinstance(transform, str):  # a constant result of a minitorch.func transform
        return (
            f"backward(): {label} is (or was computed only from) a result of "
            f"minitorch.func.{transform}, which is a constant here: no input of the call "
            "(nor a Parameter the function uses) requires grad, or the call ran inside "
            "no_grad(), so the transform recorded no graph around its result. To "
            "differentiate it, call the transform outside no_grad() on an input that "
            f"requires grad (mf.{transform}(f)(Variable(x)), not a plain ndarray), or "
            f"compose transforms (mf.grad(lambda x: mf.{transform}(f)(x).sum())(x))"
        )
    if transform:
        return (
            f"backward(): {label} is (or was computed only from) a gradient made by a "
            "first-order backward(), which records no graph, so it cannot be differentiated "
            "again: did you forget create_graph=True? Compute the first "
            "gradient with backward(create_graph=True) (e.g. y.backward(create_graph=True); "
            "gx = x.grad; x.clear_grad(); gx.backward()) to get second derivatives"
        )
    # A Variable made with requires_grad=False and one computed under no_grad() look
    # alike (no creator, no gradient wanted): the message names both.
    return (
        f"backward(): {label} does not require a gradient: it was created with "
        "requires_grad=False, or computed inside no_grad() or only from constants (arrays "
        "such as x.data, which is x's ndarray without its graph: compute with x itself), "
        "so no graph leads back to a Variable that needs one"
    )


def check_grad_inputs(xs: list[Variable]) -> None:
    """``autograd.grad``'s inputs must require a gradient."""
    for i, x in enumerate(xs):
        if not x.requires_grad:
            raise RuntimeError(
                f"autograd.grad: input {i} does not require a gradient (requires_grad is "
                "False); create it with requires_grad=True, or leave it out of inputs"
            )
        if x.data is not None and x.dtype.kind not in "fc":  # as backward() refuses it
            raise TypeError(
                f"autograd.grad: input {i} has dtype {x.dtype}, but only floating-point "
                "Variables hold gradients; create it from floats, e.g. "
                "Variable(data.astype(float))"
            )


def as_list(grad_outputs: Any) -> list[Any]:
    """``autograd.grad``'s ``grad_outputs`` as a list (one entry per output)."""
    try:
        return list(grad_outputs)
    except TypeError:
        raise TypeError(
            f"autograd.grad: grad_outputs is a {type(grad_outputs).__name__}; pass one "
            "vector per output (a list or tuple of Variables, ndarrays or None), or, for "
            "one output, the vector itself (a Variable, ndarray or number)"
        ) from None


def released_message(func: Function) -> str:
    """A backward through a graph that ``autograd.grad(retain_graph=False)`` released."""
    return (
        f"Trying to backward through the graph a second time: {type(func).__name__} was "
        "released by minitorch.autograd.grad(..., retain_graph=False) (the default unless "
        "create_graph=True). Pass retain_graph=True to the first call to differentiate "
        "the same graph again"
    )


def checked_gradients(func: Function, gxs: Any) -> tuple[Any, ...]:
    """What a backward returned, as one gradient per input, or a clear error."""
    if isinstance(gxs, list):
        gxs = tuple(gxs)
    elif gxs is None:  # a bare None, not (None,) or (g, None): almost always a missing return
        raise TypeError(
            f"{type(func).__name__}.backward returned None, but its input(s) need a "
            "gradient: did you forget `return`? Return one gradient per input (a tuple "
            "for several inputs; None inside the tuple for an input without one)"
        )
    elif type(gxs) is not tuple:
        gxs = (gxs,)
    if len(gxs) != len(func.inputs):
        raise ValueError(
            f"{type(func).__name__}.backward returned {len(gxs)} gradient(s) for "
            f"{len(func.inputs)} input(s); return one per input (None where there is none)"
        )
    return gxs


def checked_gradient(
    func: Function, index: int, x: Variable, gx: Grad, create_graph: bool
) -> Grad:
    """Check a gradient's type and shape against its input; match the input's dtype."""
    x_data = x if type(x) is Unsaved else x.data  # an Unsaved input: shape and dtype only
    if type(gx) is np.float64 and not create_graph and x_data.dtype == np.float64:
        if x_data.shape == ():  # 0-d arithmetic on arrays gives a NumPy scalar: the usual
            return np.asarray(gx)  # case of a 0-d chain, so it goes first and fast
    if create_graph and not isinstance(gx, Variable):
        gx = Variable(np.asarray(gx), requires_grad=False)
    elif not create_graph and type(gx) is not np.ndarray:
        gx = _coerce_array(func, index, gx)
    data = gx.data if create_graph else gx
    if data.shape != x_data.shape:
        raise ValueError(
            f"{type(func).__name__}.backward: gradient for input {index} has shape "
            f"{data.shape} but the input has shape {x_data.shape}; reduce broadcast "
            "dimensions with sum_to(gx, x.shape)"
        )
    if data.dtype != x_data.dtype and x_data.dtype.kind == "f":
        # A float32 input gets a float32 gradient on both paths, even when the backward
        # met a float64 constant; ``astype`` keeps the create_graph gradient differentiable.
        gx = gx.astype(x_data.dtype)
    return gx


def _coerce_array(func: Function, index: int, gx: Any) -> np.ndarray:
    if isinstance(gx, (np.ndarray, np.generic, float, int)):
        return np.asarray(gx)
    raise TypeError(
        f"{type(func).__name__}.backward_array returned a {type(gx).__name__} for input "
        f"{index}; return ndarrays (or None)"
    )


def check_leaf(x: Variable) -> None:
    """Raise if the leaf ``x`` cannot take a gradient (its dtype, or a wrong old ``grad``)."""
    if not x.requires_grad:
        return
    if x.dtype.kind not in "fc":
        raise TypeError(
            f"backward(): a gradient reached {label(x)} of dtype {x.dtype} and shape "
            f"{x.shape}, but only floating-point Variables hold gradients. If it is a "
            "constant (a mask, labels, indices), create it with requires_grad=False (or "
            "pass the ndarray itself); if you want its gradient, create it from floats, "
            "e.g. Variable(data.astype(float))"
        )
    old = x.grad
    if isinstance(old, Variable) and old.data is None:  # `x.grad.data = None` by hand
        own = x.name if isinstance(x.name, str) and x.name.isidentifier() else "x"
        raise ValueError(
            f"backward(): {label(x)} of shape {x.shape} holds a .grad with no data "
            f"(its .grad.data is None), so the new gradient cannot be added to it; call "
            f"{own}.clear_grad() (or set {own}.grad = None) to start again from no gradient"
        )
    if old is not None and (not isinstance(old, Variable) or old.shape != x.shape):
        held = f"shape {old.shape}" if isinstance(old, Variable) else type(old).__name__
        raise ValueError(
            f"backward(): {label(x)} of shape {x.shape} holds a .grad of {held}, which "
            "the new gradient cannot be added to; a gradient is a Variable of its "
            "Variable's shape (set x.grad = None, or call clear_grad(), first)"
        )


def label(x: Variable) -> str:
    """``Variable 'name'``, or ``a Variable`` for one without a name."""
    return f"Variable {x.name!r}" if x.name else "a Variable"


def checked_graph_backward(func: Function, *gys: Variable) -> tuple[Grad, ...]:
    """``backward`` of a user's Function under ``create_graph``, checked.

    The engine runs this instead of ``backward`` for a class whose ``backward`` was
    written outside minitorch (``Function.graph_backward``); minitorch's own ops run
    their ``backward`` unchecked.

    Raises:
        RuntimeError: see :func:`check_graph_backward`.
    """
    gxs = checked_gradients(func, func.backward(*gys))
    check_graph_backward(func, gys, gxs)
    return gxs


def check_graph_backward(func: Function, gys: tuple[Grad, ...], gxs: tuple[Grad, ...]) -> None:
    """Under ``create_graph``: a user-written ``backward`` must build its gradients with
    minitorch ops on ``gy`` (and the inputs), or their derivatives would be silent zeros.

    Refused (as ``torch.autograd`` refuses a gradient without a graph), for a gradient
    that is not all zeros: an ndarray or number (NumPy on ``.data``); a new Variable (a
    leaf made inside backward, neither ``gy`` nor an input); and, when some ``gy`` is
    itself part of a graph, a gradient whose graph does not lead back to it.

    Raises:
        RuntimeError: naming the Function and the input, and saying how to write it.
    """
    own = {grad_key(v) for v in (*gys, *func.inputs)}  # an input not saved: by its edge
    live = {grad_key(gy) for gy in gys if gy.requires_grad}
    for i, gx in enumerate(gxs):
        if gx is None or not func.needs_input_grad[i]:
            continue
        if not isinstance(gx, Variable):
            why = f"is a {type(gx).__name__}, not a Variable (NumPy on .data records no graph)"
        elif gx.creator is None and gx.requires_grad and grad_key(gx) not in own:
            why = "is a new Variable made inside backward (Variable(...) of NumPy results)"
        elif live and not _leads_to(gx, live, own):
            why = "does not depend on the incoming gradient gy through minitorch ops"
        else:
            continue
        if not np.any(gx.data if isinstance(gx, Variable) else gx):
            continue  # a zero gradient: its derivative is zero too, nothing is lost
        raise RuntimeError(graph_backward_message(func, i, why))


def _leads_to(gx: Variable, live: set[Any], own: set[Any]) -> bool:
    """Does ``gx``'s graph reach a Variable of ``live``? (not walking past ``own``)"""
    from minitorch.core.graph import functions

    if grad_key(gx) in live:
        return True
    walk = functions(gx, stop=lambda v: grad_key(v) in own)
    return any(grad_key(x) in live for f in walk for x in f.inputs)


def graph_backward_message(func: Function, index: int, why: str) -> str:
    """Why a NumPy-computed ``backward`` cannot give higher-order derivatives."""
    name = type(func).__name__
    return (
        f"{name}.backward: the gradient for input {index} {why}. Under create_graph=True "
        "(autograd.grad(..., create_graph=True), backward(create_graph=True), "
        "grad(grad(f)), jacrev(jacrev(f))) the gradient is differentiated again, and "
        f"this one would give silent zeros. Write {name}.backward with minitorch ops on "
        "gy and the inputs (e.g. x, = self.inputs; return 3 * x ** 2 * gy, not "
        f"Variable(3 * x.data ** 2 * gy.data)), or define {name}.vjp(self, xp, xs, y, gy) "
        "with the xp namespace instead of backward"
    )


def check_grads_finite(func: Function, gxs: tuple[Grad, ...]) -> None:
    """Under ``detect_anomaly()``: raise at the first NaN/inf gradient a backward returned."""
    for i, gx in enumerate(gxs):
        data = gx.data if isinstance(gx, Variable) else gx
        if data is None or not isinstance(data, np.ndarray) or data.dtype.kind not in "fc":
            continue
        if not np.isfinite(data).all():
            where = np.argwhere(~np.isfinite(data))[:5].tolist()
            raise FloatingPointError(
                f"detect_anomaly: {type(func).__name__}.backward returned NaN/inf in the "
                f"gradient of input {i} at positions {where} (shape {data.shape}); the "
                f"Function was created at {func.created_at or '<unknown>'}"
            )


def checking_finite(on_step: Any) -> Any:
    """``on_step`` (an observer of the engine's steps, or None) followed by
    :func:`check_grads_finite`: what the loop observes under ``detect_anomaly()``."""

    def observe(func: Function, gys: tuple[Grad, ...], gxs: tuple[Grad, ...]) -> None:
        if on_step is not None:
            on_step(func, gys, gxs)
        check_grads_finite(func, gxs)

    return observe


def check_jvp_signature(func: Function, n_inputs: int) -> None:
    """A tangent rule must take ``jvp(self, xs, y, *txs)``: say so, before a bare arity
    ``TypeError`` from the call (an old-style ``jvp(self, tx)``) can hide the contract."""
    try:
        inspect.signature(func.jvp).bind(*[None] * (2 + n_inputs))
    except TypeError:
        pass
    except ValueError:  # no signature to read (a builtin): let the call itself decide
        return
    else:
        return
    name = type(func).__name__
    raise TypeError(
        f"{name}.jvp{inspect.signature(func.jvp)} does not fit the tangent-rule contract: "
        f"minitorch calls {name}.jvp(xs, y, *txs), with xs the input Variables, y the "
        "output (a tuple for several outputs) and then one tangent per input (None for a "
        f"zero one) — {2 + n_inputs} arguments for {n_inputs} input(s) — and expects one "
        f"tangent per output, written with minitorch ops. E.g. for y = x ** 3: "
        "def jvp(self, xs, y, tx): (x,) = xs; return 3 * x ** 2 * tx"
    )


def as_variables(values: Variable | Sequence[Variable], what: str) -> list[Variable]:
    """``outputs`` or ``inputs`` of ``autograd.grad`` as a list of Variables, or an error."""
    one = isinstance(values, (Variable, np.ndarray))  # an ndarray is one (wrong) value
    values = [values] if one else list(values)  # type: ignore[list-item, arg-type]
    for i, v in enumerate(values):
        if not isinstance(v, Variable):
            kind = f"a {type(v).__name__}"
            if isinstance(v, np.ndarray):
                kind = f"an ndarray (dtype {v.dtype}, shape {v.shape})"
            raise TypeError(
                f"autograd.grad: {what}[{i}] is {kind}, not a Variable; "
                f"pass the Variable(s) of the graph"
            )
    if not values:
        raise ValueError(f"autograd.grad: {what} is empty")
    return values


# -- Function ----------------------------------------------------------------------------
def init_without_arguments(self: Function, *args: Any, **kwargs: Any) -> None:
    """``__init__`` of user Functions without one: explain ``Square(x)``."""
    if args or kwargs:
        name = type(self).__name__
        raise TypeError(
            f"{name}() takes no arguments: {name}(x) passes x to the class, not to an "
            f"instance. Create the Function, then call it on the input: {name}()(x)"
        )


def called_twice_message(func: Function) -> str:
    """A Function instance called a second time after it recorded a graph."""
    name = type(func).__name__
    return (
        f"{name}() was already called and recorded a graph; a Function instance records "
        f"one call (its inputs and outputs), so calling it again would corrupt that "
        f"graph. Create a new instance per call: {name}()(x)"
    )


def as_outputs(ys: Any, func: Function) -> list[Variable]:
    """What ``forward`` returned (an array, a NumPy scalar or a tuple), as Variables."""
    if type(ys) is not tuple:  # e.g. the NumPy scalar that 0-d arithmetic returns
        return [Variable(as_output(ys, func, 0))]
    return [Variable(as_output(y, func, i)) for i, y in enumerate(ys)]


def as_output(y: Any, func: Function, index: int) -> np.ndarray:
    """What ``forward`` returned for output ``index``, as an ndarray, or a clear error."""
    if type(y) is np.ndarray:
        return y
    if isinstance(y, (np.generic, int, float)):  # NumPy reductions on 0-d give scalars
        return np.asarray(y)
    if isinstance(y, np.ndarray):
        return y
    hint = ""
    if isinstance(y, Variable):  # forward computed with a Variable: some input's .data is one
        hint = (
            ": an input's .data holds a Variable instead of an ndarray. Did an update write "
            "x.data = x.data - lr * x.grad? Use the gradient's array: x.grad.data"
        )
    raise TypeError(
        f"{type(func).__name__}.forward must return ndarrays (or a tuple of them); "
        f"output {index} is a {type(y).__name__}{hint}"
    )


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # .../minitorch


def user_frame() -> str:
    """The innermost stack frame outside the minitorch package: where the user made this op.

    Frames of ``contextlib`` are skipped too (``with`` blocks of minitorch's helpers).
    """
    for frame in reversed(traceback.extract_stack()):
        path = os.path.abspath(frame.filename)
        if not path.startswith(_PACKAGE_DIR + os.sep) and "contextlib" not in path:
            return f"{frame.filename}:{frame.lineno} in {frame.name}: {frame.line}"
    return "<unknown>"


def check_forward_anomaly(func: Function, outputs: list[Variable]) -> None:
    """Under ``detect_anomaly()``: raise at the first NaN/inf a forward produced."""
    for i, y in enumerate(outputs):
        data = y.data
        if data is not None and data.dtype.kind in "fc" and not np.isfinite(data).all():
            where = np.argwhere(~np.isfinite(data))[:5].tolist()
            raise FloatingPointError(
                f"detect_anomaly: {type(func).__name__}.forward produced NaN/inf in output {i} "
                f"at positions {where} (shape {data.shape}), created at {user_frame()}"
            )


def pass_on_gradient_marks(xs: Any, outputs: list[Any]) -> None:
    """Constants computed from gradients keep the engine's marks on those gradients.

    ``_first_order_grad``: made by a first-order backward (or the func transform named),
    so ``backward()`` on it says why it has no graph. ``_constant_grad_of``: a
    ``create_graph`` gradient that depends on no input (relu, abs): its backward gives 0.
    """
    for x in xs:
        if mark := getattr(x, "_first_order_grad", False):
            for y in outputs:
                y._first_order_grad = mark
        leaf = getattr(x, "_constant_grad_of", None)
        if leaf is not None:
            for y in outputs:
                y._constant_grad_of = leaf
