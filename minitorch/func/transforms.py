"""Function transforms: ``jvp``, ``vjp``, ``grad``, ``value_and_grad``, ``jacfwd``,
``jacrev``, ``hessian`` and ``hvp``, with ``torch.func``'s argument conventions.

Each takes a function and returns its derivative (or evaluates it). ``jvp`` is true
forward mode: one forward pass that carries tangents through every op's tangent rule
(``Function.jvp``), with no backward at all. The reverse-mode transforms run the
ordinary engine. Every result stays differentiable inside another transform, so they
compose: ``grad(grad(f))``, ``jacfwd(jacrev(f))`` (that is ``hessian``), ``jvp`` of
``grad`` (``hvp``).

As in ``torch.func``, a transform ignores an outer ``no_grad()`` (it differentiates all
the same, and its results are constants under it); only a ``no_grad`` inside the
function counts. Where an input requires grad, the results are part of its graph
(``mf.grad(f)(x).sum().backward()`` works).

References:
    Griewank and Walther, *Evaluating Derivatives* (2nd ed., 2008), ch. 3 (forward and
    reverse mode) and 5 (higher order); the JAX and torch.func documentation for the API.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitorch.core import Config
from minitorch.core import forward as _forward
from minitorch.func import pytree
from minitorch.func.checks import (
    Argnums,
    argnum_positions,
    check_like,
    differentiable,
    leaves_of,
    outputs_of,
    scalar_output,
    split_aux,
    tangent_for,
    tangent_of,
)
from minitorch.func.jacobians import columns_fwd, columns_rev, jacobian
from minitorch.func.reverse import (
    Boundary,
    boundary_here,
    forward_named,
    gradients,
    lift,
    transform_scope,
)


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
    leaves, spec, paths = leaves_of(primals, "primals", name)
    t_leaves, t_spec, _ = leaves_of(tangents, "tangents", name)
    if t_spec != spec:
        raise ValueError(pytree.mismatch_message(name, "tangents", t_spec, "primals", spec))
    with transform_scope() as boundary, forward_named(name), _forward.tangent_level() as level:
        xs = [lift(differentiable(x, path, name), False) for x, path in zip(leaves, paths)]
        for x, tx, path in zip(xs, t_leaves, paths):
            level.seed(x, tangent_for(x, tx, path.replace("primals", "tangents"), name))
        args = pytree.unflatten(spec, xs)
        out, aux = split_aux(func(*args), has_aux, name)
        ys, out_spec = outputs_of(out, name)
        tys = [tangent_of(level, y) for y in ys]
    return boundary.results(
        ((pytree.unflatten(out_spec, ys), aux), pytree.unflatten(out_spec, tys)), name
    )


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
    leaves, spec, paths = leaves_of(primals, "primals", "vjp")
    with transform_scope() as boundary:
        xs = [lift(differentiable(x, path, "vjp")) for x, path in zip(leaves, paths)]
        out, aux = split_aux(func(*pytree.unflatten(spec, xs)), has_aux, "vjp")
        ys, out_spec = outputs_of(out, "vjp")
        create_graph = boundary.create_graph(ys, xs)

    def vjp_fn(cotangents: Any) -> tuple[Any, ...]:
        cts, ct_spec, ct_paths = pytree.flatten(cotangents, "cotangents")
        if ct_spec != out_spec:
            message = pytree.mismatch_message
            raise ValueError(message("vjp_fn", "cotangents", ct_spec, "the outputs", out_spec))
        for y, ct, path in zip(ys, cts, ct_paths):
            check_like(y, ct, path, "vjp_fn")
        here = Boundary(boundary.record and Config.enable_backprop, boundary_here().depth)
        (gxs,) = gradients(ys, [cts], xs, create_graph or here.create_graph(ys, xs))
        return here.results(tuple(pytree.unflatten(spec, gxs)), "vjp")

    output, aux = boundary.results((pytree.unflatten(out_spec, ys), aux), "vjp")
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
            Keyword arguments of the call are passed to ``func`` as given and never
            differentiated (torch.func's rule), and so are positional arguments that
            are not in ``argnums``.

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

    def wrapper(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
        positions = argnum_positions(argnums, len(args), name)
        leaves, spec, paths = leaves_of(tuple(args[i] for i in positions), "args", name)
        with transform_scope() as boundary:
            xs = [lift(differentiable(x, path, name)) for x, path in zip(leaves, paths)]
            chosen = pytree.unflatten(spec, xs)
            call_args = list(args)
            for i, x in zip(positions, chosen):
                call_args[i] = x
            out, aux = split_aux(func(*call_args, **kwargs), has_aux, name)
            value = scalar_output(out, name)
            create_graph = boundary.create_graph([value], xs)
            (gxs,) = gradients([value], [[np.ones(value.shape, value.dtype)]], xs, create_graph)
        value, aux, per_arg = boundary.results((value, aux, pytree.unflatten(spec, gxs)), name)
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

    def wrapper(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
        value, gradient = inner(*args, **kwargs)
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

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        value, gradient = inner(*args, **kwargs)
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
            Keyword arguments of the call are passed to ``func`` undifferentiated.

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
    return jacobian(func, argnums, has_aux, "jacrev", columns_rev)


def jacfwd(func: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False) -> Callable:
    """Return a function computing the Jacobian of ``func`` by forward mode.

    One evaluation of ``func``, and one push of a tangent per *input* element through
    the ops that evaluation ran (their tangent rules; no backward): cheap when the
    function is tall (few inputs, many outputs). ``func`` runs once, so randomness and
    side effects happen once (a dropout's Jacobian is that of the mask it drew, a
    training BatchNorm steps its running statistics once). Arguments, shapes and errors
    as :func:`jacrev`.

    Example:
        >>> import numpy as np, minitorch.func as mf, minitorch.ops as F
        >>> powers = lambda x: F.stack([x, x * x, x * x * x])  # tall: 1 input, 3 outputs
        >>> mf.jacfwd(powers)(np.array(2.0))  # one forward pass: (1, 2x, 3x²) at x = 2
        variable([ 1.  4. 12.])
    """
    return jacobian(func, argnums, has_aux, "jacfwd", columns_fwd)


def hessian(func: Callable[..., Any], argnums: Argnums = 0) -> Callable:
    """Return a function computing the Hessian of a scalar ``func``: ``jacfwd(jacrev(f))``.

    Forward-over-reverse: the gradient by one backward pass, differentiated by forward
    mode once per input element (``func`` itself runs once). Keyword arguments of the
    call are passed to ``func`` undifferentiated; errors name ``hessian``.

    Shapes:
        an argument of shape ``i`` gives ``i + i``.

    Example:
        >>> import numpy as np, minitorch.func as mf
        >>> mf.hessian(lambda x: (x ** 3).sum())(np.array([1.0, 2.0]))
        variable([[ 6.  0.]
                  [ 0. 12.]])
    """
    inner = jacobian(func, argnums, False, "hessian", columns_rev)  # jacrev, named hessian
    return jacobian(inner, argnums, False, "hessian", columns_fwd)


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
