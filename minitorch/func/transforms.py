"""Function transforms: ``jvp``, ``vjp``, ``grad``, ``value_and_grad``, ``jacfwd``,
``jacrev``, ``hessian`` and ``hvp``, with ``torch.func``'s argument conventions.

Each takes a function and returns its derivative (or evaluates it). ``jvp`` is true
forward mode: one forward pass that carries tangents through every op's tangent rule
(``Function.jvp``), with no backward at all. The reverse-mode transforms run the
ordinary engine. Every result stays differentiable inside another transform, so they
compose: ``grad(grad(f))``, ``jacfwd(jacrev(f))`` (that is ``hessian``), ``jvp`` of
``grad`` (``hvp``).

References:
    Griewank and Walther, *Evaluating Derivatives* (2nd ed., 2008), ch. 3 (forward and
    reverse mode) and 5 (higher order); the JAX and torch.func documentation for the API.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import minitorch.ops as F
from minitorch.core import Variable
from minitorch.core import forward as _forward
from minitorch.func import pytree
from minitorch.func.reverse import gradients, lift, nested, transform_scope

Argnums = int | tuple[int, ...]


def jvp(
    func: Callable[..., Any],
    primals: Sequence[Any],
    tangents: Sequence[Any],
    *,
    has_aux: bool = False,
) -> tuple[Any, ...]:
    """Evaluate ``func(*primals)`` and its Jacobian-vector product in one forward pass.

    Forward mode: each op computes its output tangent from its input tangents with its
    tangent rule as it runs (the dual-number idea), so ``J @ v`` costs about one more
    forward pass, and no backward runs.

    Shapes:
        each tangent has its primal's shape; each output tangent has its output's shape.

    Args:
        func: a function of Variables returning a Variable/ndarray or a tuple/list/dict
            of them (with ``has_aux=True``: a pair ``(output, aux)``).
        primals: a tuple (or list) of the positional arguments: Variables, ndarrays or
            tuples/lists/dicts of them.
        tangents: the same structure as ``primals``, one floating-point tangent per leaf.
        has_aux: ``func`` returns ``(output, aux)``; ``aux`` is passed through untouched.

    Returns:
        ``(outputs, output_tangents)``, or ``(outputs, output_tangents, aux)``.

    Raises:
        TypeError: if ``primals``/``tangents`` are not tuples or lists, a leaf is not a
            Variable/ndarray, a primal is not floating point, or ``func`` returns
            something else than Variables/ndarrays.
        ValueError: if the structures or a tangent's shape differ from the primals'.

    Example:
        >>> import numpy as np, minitorch.func as mf
        >>> from minitorch import Variable
        >>> y, ty = mf.jvp(lambda x: x * x, (np.array(3.0),), (np.array(1.0),))
        >>> float(y.data), float(ty.data)
        (9.0, 6.0)
    """
    (out, aux), out_tangents = _jvp(func, primals, tangents, has_aux, "jvp")
    return (out, out_tangents, aux) if has_aux else (out, out_tangents)


def _jvp(
    func: Callable[..., Any], primals: Any, tangents: Any, has_aux: bool, name: str
) -> tuple[tuple[Any, Any], Any]:
    leaves, spec, paths = _leaves_of(primals, "primals", name)
    t_leaves, t_spec, _ = _leaves_of(tangents, "tangents", name)
    if t_spec != spec:
        raise ValueError(f"{name}: tangents must have the same structure as primals")
    with transform_scope(), _forward.tangent_level() as level:
        xs = [lift(_differentiable(x, path, name), False) for x, path in zip(leaves, paths)]
        for x, tx, path in zip(xs, t_leaves, paths):
            level.set(x, _tangent_for(x, tx, path.replace("primals", "tangents"), name))
        args = pytree.unflatten(spec, xs)
        out, aux = _split_aux(func(*args), has_aux, name)
        ys, out_spec = _outputs_of(out, name)
        tys = [_tangent_of(level, y) for y in ys]
    return (pytree.unflatten(out_spec, ys), aux), pytree.unflatten(out_spec, tys)


def vjp(func: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """Evaluate ``func(*primals)`` and return a function for vector-Jacobian products.

    Reverse mode: the forward pass records the graph once; each call of ``vjp_fn(v)``
    runs one backward pass and returns ``v @ J`` for every primal.

    Args:
        func: a function of Variables (see :func:`jvp` for what it may return).
        *primals: its positional arguments (Variables, ndarrays or nests of them).
        has_aux: ``func`` returns ``(output, aux)``.

    Returns:
        ``(outputs, vjp_fn)`` or ``(outputs, vjp_fn, aux)``; ``vjp_fn(cotangents)``
        takes one cotangent per output (the outputs' structure and shapes) and returns a
        tuple with one gradient per primal (each primal's structure and shapes).

    Raises:
        TypeError, ValueError: as :func:`jvp`; ``vjp_fn`` raises ``ValueError`` for a
            cotangent of the wrong structure or shape.

    Example:
        >>> import numpy as np, minitorch.func as mf
        >>> y, vjp_fn = mf.vjp(lambda x: x * x, np.array([1.0, 2.0]))
        >>> vjp_fn(np.array([1.0, 1.0]))
        (variable([2. 4.]),)
    """
    leaves, spec, paths = _leaves_of(primals, "primals", "vjp")
    with transform_scope():
        xs = [lift(_differentiable(x, path, "vjp")) for x, path in zip(leaves, paths)]
        out, aux = _split_aux(func(*pytree.unflatten(spec, xs)), has_aux, "vjp")
        ys, out_spec = _outputs_of(out, "vjp")
        create_graph = nested()

    def vjp_fn(cotangents: Any) -> tuple[Any, ...]:
        cts, ct_spec, ct_paths = pytree.flatten(cotangents, "cotangents")
        if ct_spec != out_spec:
            raise ValueError("vjp_fn: cotangents must have the same structure as the outputs")
        for y, ct, path in zip(ys, cts, ct_paths):
            _check_like(y, ct, path, "vjp_fn")
        (gxs,) = gradients(ys, [cts], xs, create_graph or nested(inside=False))
        return tuple(pytree.unflatten(spec, gxs))

    output = pytree.unflatten(out_spec, ys)
    return (output, vjp_fn, aux) if has_aux else (output, vjp_fn)


def value_and_grad(
    func: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False
) -> Callable[..., Any]:
    """Return a function computing ``func``'s value and its gradient w.r.t. ``argnums``.

    ``func`` must return a one-element floating-point Variable/ndarray (a loss).

    Args:
        func: the function to differentiate.
        argnums: the position of the argument to differentiate (an int), or a tuple of
            positions; negative positions count from the end.
        has_aux: ``func`` returns ``(value, aux)``; ``aux`` is returned, not differentiated.

    Returns:
        A function returning ``(value, gradient)``, or ``((value, aux), gradient)`` with
        ``has_aux``; the gradient has the argument's structure and shapes (a tuple of
        those when ``argnums`` is a tuple).

    Raises:
        ValueError: (when called) if an ``argnums`` is out of range or repeated, or the
            value has more than one element.
        TypeError: (when called) if ``argnums`` is not an int/tuple of ints, or the value
            is not a floating-point Variable/ndarray.

    Example:
        >>> import numpy as np, minitorch.func as mf
        >>> value, g = mf.value_and_grad(lambda x: (x * x).sum())(np.array([1.0, 2.0]))
        >>> float(value.data), g
        (5.0, variable([2. 4.]))
    """

    return _value_and_grad(func, argnums, has_aux, "grad")


def _value_and_grad(
    func: Callable[..., Any], argnums: Argnums, has_aux: bool, name: str
) -> Callable[..., Any]:
    """:func:`value_and_grad`, with ``name`` the transform its errors name."""

    def wrapper(*args: Any) -> tuple[Any, Any]:
        positions = _positions(argnums, len(args), name)
        leaves, spec, paths = _leaves_of(tuple(args[i] for i in positions), "args", name)
        with transform_scope():
            xs = [lift(_differentiable(x, path, name)) for x, path in zip(leaves, paths)]
            chosen = pytree.unflatten(spec, xs)
            call_args = list(args)
            for i, x in zip(positions, chosen):
                call_args[i] = x
            out, aux = _split_aux(func(*call_args), has_aux, name)
            value = _scalar_output(out, name)
            (gxs,) = gradients([value], [[np.ones(value.shape, value.dtype)]], xs, nested())
        per_arg = pytree.unflatten(spec, gxs)
        result = per_arg[0] if isinstance(argnums, int) else per_arg
        return ((value, aux), result) if has_aux else (value, result)

    return wrapper


def grad_and_value(
    func: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False
) -> Callable[..., Any]:
    """:func:`value_and_grad` in ``torch.func``'s order: ``(gradient, value)``.

    With ``has_aux`` the result is ``(gradient, (value, aux))``, as ``torch.func`` returns.

    Example:
        >>> import numpy as np, minitorch.func as mf
        >>> g, value = mf.grad_and_value(lambda x: (x * x).sum())(np.array([3.0]))
        >>> g, float(value.data)
        (variable([6.]), 9.0)
    """
    inner = value_and_grad(func, argnums, has_aux)

    def wrapper(*args: Any) -> tuple[Any, Any]:
        value, gradient = inner(*args)
        return gradient, value

    return wrapper


def grad(func: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False) -> Callable:
    """Return the gradient function of ``func`` (a function returning a scalar).

    ``grad(f)(x)`` is ``df/dx`` with ``x``'s shape; ``grad(grad(f))`` differentiates again.
    Arguments, results and errors as :func:`value_and_grad`, without the value: the
    result is the gradient, or ``(gradient, aux)`` with ``has_aux``.

    Example:
        >>> import numpy as np, minitorch.func as mf
        >>> import minitorch.ops as F
        >>> mf.grad(mf.grad(lambda x: F.sin(x)))(np.array(0.0))
        variable(-0.0)
    """
    inner = value_and_grad(func, argnums, has_aux)

    def wrapper(*args: Any) -> Any:
        value, gradient = inner(*args)
        return (gradient, value[1]) if has_aux else gradient

    return wrapper


def jacrev(func: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False) -> Callable:
    """Return a function computing the Jacobian of ``func`` by reverse mode.

    One forward pass, then one backward pass per *output* element: cheap when the
    function is wide (many inputs, few outputs), as a loss is.

    Shapes:
        for an output of shape ``o`` and an argument of shape ``i``: ``o + i``.

    Args:
        func: the function (see :func:`jvp` for what it may return).
        argnums: which argument(s), as in :func:`value_and_grad`.
        has_aux: ``func`` returns ``(output, aux)``; the result is then ``(jac, aux)``.

    Returns:
        A function returning the Jacobian: the outputs' structure, with each leaf the
        argument's structure (a tuple over ``argnums`` when it is a tuple) of arrays.

    Raises:
        TypeError, ValueError: as :func:`value_and_grad` (when called).

    Example:
        >>> import numpy as np, minitorch.func as mf
        >>> mf.jacrev(lambda x: x * x)(np.array([1.0, 2.0]))
        variable([[2. 0.]
                  [0. 4.]])
    """
    return _jacobian(func, argnums, has_aux, "jacrev", _columns_rev)


def jacfwd(func: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False) -> Callable:
    """Return a function computing the Jacobian of ``func`` by forward mode.

    One forward pass with tangents per *input* element (no backward): cheap when the
    function is tall (few inputs, many outputs). Arguments, shapes and errors as
    :func:`jacrev`.

    Example:
        >>> import numpy as np, minitorch.func as mf
        >>> mf.jacfwd(lambda x: x * x)(np.array([1.0, 2.0]))
        variable([[2. 0.]
                  [0. 4.]])
    """
    return _jacobian(func, argnums, has_aux, "jacfwd", _columns_fwd)


def hessian(func: Callable[..., Any], argnums: Argnums = 0) -> Callable:
    """Return a function computing the Hessian of a scalar ``func``: ``jacfwd(jacrev(f))``.

    Forward-over-reverse: the gradient by one backward pass, differentiated by forward
    mode once per input element.

    Shapes:
        an argument of shape ``i`` gives ``i + i``.

    Example:
        >>> import numpy as np, minitorch.func as mf
        >>> mf.hessian(lambda x: (x ** 3).sum())(np.array([1.0, 2.0]))
        variable([[ 6.  0.]
                  [ 0. 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)


def hvp(func: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any]) -> tuple:
    """Evaluate a scalar ``func`` and its Hessian-vector product ``H @ v`` (forward-over-reverse).

    ``jvp`` of the gradient: one backward pass inside one forward pass with tangents,
    about the cost of a few gradients, without ever forming ``H``.

    Args:
        func: a function returning a one-element floating-point Variable.
        primals: a tuple of its arguments (all are differentiated).
        tangents: the vector ``v``, with the structure and shapes of ``primals``.

    Returns:
        ``(value, hvp)``; ``hvp`` is a tuple with one entry per primal.

    Raises:
        TypeError, ValueError: as :func:`jvp` and :func:`grad`.

    Example:
        >>> import numpy as np, minitorch.func as mf
        >>> value, (hv,) = mf.hvp(lambda x: (x ** 3).sum(), (np.array([1.0, 2.0]),),
        ...                       (np.array([1.0, 0.0]),))
        >>> hv
        variable([6. 0.])
    """
    if not isinstance(primals, (tuple, list)):
        raise TypeError(f"hvp: primals must be a tuple, got {type(primals).__name__}")
    with_grad = _value_and_grad(func, tuple(range(len(primals))), False, "hvp")
    ((value, _), _), (_, hvps) = _jvp(with_grad, primals, tangents, False, "hvp")
    return value, hvps


# -- Jacobians ----------------------------------------------------------------------------
def _jacobian(
    func: Callable[..., Any], argnums: Argnums, has_aux: bool, name: str, columns: Callable
) -> Callable:
    def wrapper(*args: Any) -> Any:
        positions = _positions(argnums, len(args), name)
        leaves, spec, paths = _leaves_of(tuple(args[i] for i in positions), "args", name)
        leaves = [_differentiable(x, path, name) for x, path in zip(leaves, paths)]

        def call(xs: list[Variable]) -> Any:
            call_args = list(args)
            for i, x in zip(positions, pytree.unflatten(spec, xs)):
                call_args[i] = x
            return _split_aux(func(*call_args), has_aux, name)

        with transform_scope():
            blocks, out_spec, aux = columns(call, leaves, name)
        per_output = [pytree.unflatten(spec, row) for row in blocks]
        if isinstance(argnums, int):
            per_output = [row[0] for row in per_output]
        jac = pytree.unflatten(out_spec, per_output)
        return (jac, aux) if has_aux else jac

    return wrapper


def _columns_rev(call: Callable, leaves: list[Any], name: str) -> tuple[list, Any, Any]:
    """One backward pass per output element; ``blocks[o][i]`` has shape ``o.shape + i.shape``."""
    xs = [lift(x) for x in leaves]
    out, aux = call(xs)
    ys, out_spec = _outputs_of(out, name)
    blocks = []
    for index, y in enumerate(ys):
        seeds = []
        for j in range(y.size):
            seed = np.zeros(y.size, y.dtype)
            seed[j] = 1
            seeds.append([seed.reshape(y.shape) if k == index else None for k in range(len(ys))])
        rows = gradients(ys, seeds, xs, nested()) if seeds else []
        blocks.append([_stack_rows([r[i] for r in rows], y.shape, x) for i, x in enumerate(xs)])
    return blocks, out_spec, aux


def _columns_fwd(call: Callable, leaves: list[Any], name: str) -> tuple[list, Any, Any]:
    """One forward pass with tangents per input element (no backward at all)."""
    columns: list[list[list[Variable]]] = []  # [input i][element j] -> tangent per output
    first: tuple[list[Variable], Any, Any] | None = None
    for i, x in enumerate(leaves):
        per_element = []
        for j in range(_size(x)):
            with _forward.tangent_level() as level:
                xs = [lift(v, False) for v in leaves]
                tangent = np.zeros(_size(x), xs[i].dtype)
                tangent[j] = 1
                level.set(xs[i], Variable(tangent.reshape(xs[i].shape), requires_grad=False))
                out, aux = call(xs)
                ys, out_spec = _outputs_of(out, name)
                per_element.append([_tangent_of(level, y) for y in ys])
            first = first or (ys, out_spec, aux)
        columns.append(per_element)
    if first is None:  # no input elements at all: evaluate once for the output shapes
        out, aux = call([lift(v, False) for v in leaves])
        ys, out_spec = _outputs_of(out, name)
        first = (ys, out_spec, aux)
    ys, out_spec, aux = first
    blocks = [
        [_stack_columns([col[k] for col in columns[i]], y, leaves[i]) for i in range(len(leaves))]
        for k, y in enumerate(ys)
    ]
    return blocks, out_spec, aux


def _stack_rows(rows: list[Variable], out_shape: tuple[int, ...], x: Variable) -> Variable:
    if not rows:
        return Variable(np.zeros(out_shape + x.shape, x.dtype), requires_grad=False)
    return F.reshape(F.stack(rows, axis=0), out_shape + x.shape)


def _stack_columns(cols: list[Variable], y: Variable, x: Any) -> Variable:
    shape = y.shape + tuple(np.shape(x.data if isinstance(x, Variable) else x))
    if not cols:
        return Variable(np.zeros(shape, y.dtype), requires_grad=False)
    return F.reshape(F.stack(cols, axis=-1), shape)


def _size(x: Any) -> int:
    return int(np.size(x.data if isinstance(x, Variable) else x))


# -- checks and conversions ---------------------------------------------------------------
def _leaves_of(tree: Any, what: str, name: str) -> tuple[list[Any], pytree.TreeSpec, list[str]]:
    if what in ("primals", "tangents") and not isinstance(tree, (tuple, list)):
        raise TypeError(
            f"{name}: {what} must be a tuple (or list) of arguments, got "
            f"{type(tree).__name__}; write ({what[:-1]},) for one argument"
        )
    leaves, spec, paths = pytree.flatten(tuple(tree), what)
    for leaf, path in zip(leaves, paths):
        if not isinstance(leaf, (Variable, np.ndarray)):
            raise TypeError(
                f"{name}: {path} is a {type(leaf).__name__}; pass Variables or ndarrays "
                "(or tuples/lists/dicts of them)"
            )
    return leaves, spec, paths


def _differentiable(x: Variable | np.ndarray, path: str, name: str) -> Variable | np.ndarray:
    dtype = x.dtype
    if dtype.kind != "f":
        raise TypeError(
            f"{name}: {path} has dtype {dtype}; only floating-point inputs can be "
            "differentiated (convert with .astype(float))"
        )
    return x


def _tangent_for(x: Variable, tx: Any, path: str, name: str) -> Variable:
    _check_like(x, tx, path, name)
    return tx if isinstance(tx, Variable) else Variable(tx, requires_grad=False)


def _check_like(y: Variable, t: Any, path: str, name: str) -> None:
    if not isinstance(t, (Variable, np.ndarray)):
        raise TypeError(f"{name}: {path} is a {type(t).__name__}; pass a Variable or ndarray")
    if t.shape != y.shape:
        raise ValueError(
            f"{name}: {path} has shape {t.shape} but must match its primal's shape {y.shape}"
        )
    if t.dtype.kind != "f":
        raise TypeError(f"{name}: {path} has dtype {t.dtype}; tangents must be floating point")


def _split_aux(result: Any, has_aux: bool, name: str) -> tuple[Any, Any]:
    if not has_aux:
        return result, None
    if not isinstance(result, tuple) or len(result) != 2:
        raise TypeError(
            f"{name}(has_aux=True): the function must return a tuple (output, aux), got "
            f"{type(result).__name__}"
            + (f" of length {len(result)}" if isinstance(result, tuple) else "")
        )
    return result


def _outputs_of(out: Any, name: str) -> tuple[list[Variable], pytree.TreeSpec]:
    leaves, spec, paths = pytree.flatten(out, "output")
    ys = []
    for leaf, path in zip(leaves, paths):
        if isinstance(leaf, np.ndarray):
            leaf = Variable(leaf, requires_grad=False)
        if not isinstance(leaf, Variable):
            raise TypeError(
                f"{name}: the function returned a {type(leaf).__name__} as {path}; return a "
                "Variable or ndarray (or a tuple/list/dict of them)"
            )
        if leaf.dtype.kind != "f":
            raise TypeError(
                f"{name}: {path} has dtype {leaf.dtype}, which is not differentiable; return "
                "floating-point values (return integers through has_aux=True)"
            )
        ys.append(leaf)
    return ys, spec


def _scalar_output(out: Any, name: str) -> Variable:
    ys, spec = _outputs_of(out, name)
    if spec.kind != "leaf":
        raise TypeError(
            f"{name}: the function must return a single Variable, got a {spec.kind}; "
            "use has_aux=True to return extra values, or jacrev for several outputs"
        )
    (y,) = ys
    if y.size != 1:
        raise ValueError(
            f"{name}: the function must return one element (a loss), got shape {y.shape}; "
            "reduce it (e.g. .sum()) or use jacrev/vjp"
        )
    return y


def _positions(argnums: Argnums, n_args: int, name: str) -> tuple[int, ...]:
    raw = (argnums,) if isinstance(argnums, int) else argnums
    if not isinstance(raw, tuple) or not raw or not all(type(a) is int for a in raw):
        raise TypeError(
            f"{name}: argnums must be an int or a non-empty tuple of ints, got {argnums!r}"
        )
    positions = []
    for a in raw:
        if not -n_args <= a < n_args:
            raise ValueError(
                f"{name}: argnums={argnums!r} is out of range for a call with {n_args} "
                "positional argument(s)"
            )
        positions.append(a % n_args)
    if len(set(positions)) != len(positions):
        raise ValueError(f"{name}: argnums={argnums!r} names an argument twice")
    return tuple(positions)


def _tangent_of(level: _forward.TangentLevel, y: Variable) -> Variable:
    ty = level.get(y)
    return Variable(np.zeros_like(y.data), requires_grad=False) if ty is None else ty
