"""The two namespaces every op's ``vjp`` is written against: NumPy, and minitorch ops.

An op writes its gradient formula once, as ``vjp(self, xp, xs, y, gy)``. Ordinary
``backward()`` evaluates it with :data:`ARRAY_OPS` on the input and output ndarrays
(fast: no Variables, no graph); ``backward(create_graph=True)`` evaluates the same lines
with :data:`GRAPH_OPS` on the input and output Variables, so the gradient has a graph of
its own and can be differentiated again. Arithmetic (``+ - * / ** @``, unary ``-``)
works on both kinds directly; everything else goes through ``xp``. This is
HIPS/autograd's ``anp`` and DeZero's ``xp`` idea, bound in one place like the
Variable-method table. (``F`` means :mod:`minitorch.ops` everywhere else.)

Example:
    >>> import numpy as np
    >>> from minitorch import Variable
    >>> x = Variable(np.array([0.0, 1.0]))
    >>> ARRAY_OPS.exp(x.data), GRAPH_OPS.exp(x)
    (array([1.        , 2.71828183]), variable([1.         2.71828183]))
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from minitorch.core import Function
from minitorch.ops import activation, indexing, math, reduce, reshape


# ndarray methods rather than np.reshape/np.sum/np.transpose: those dispatch in Python
# first (``_wrapfunc``), which costs more than the work on the small arrays of a graph.
def _astype_array(x: np.ndarray, dtype: np.dtype[Any]) -> np.ndarray:
    return x.astype(dtype, copy=False)


def _reshape_array(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    return x.reshape(shape)


def _mean_array(x: np.ndarray, axis: Any = None, keepdims: bool = False) -> np.ndarray:
    return x.mean(axis=axis, keepdims=keepdims)


def _sum_array(x: np.ndarray, axis: Any = None, keepdims: bool = False) -> np.ndarray:
    return x.sum(axis=axis, keepdims=keepdims)


def _transpose_array(x: np.ndarray, axes: tuple[int, ...] | None = None) -> np.ndarray:
    return x.transpose(axes)


def _forward(func: Function, *xs: np.ndarray) -> Any:
    return func.forward(*xs)


def _call(func: Function, *xs: Any) -> Any:
    return func(*xs)


#: ``vjp``'s ``xp`` on the fast path: NumPy functions on ndarrays.
ARRAY_OPS = SimpleNamespace(
    # ``apply(G(...), *args)``: a gradient that is itself an op (a scatter's adjoint is
    # a gather): its forward on arrays here, the recorded Function in GRAPH_OPS.
    apply=_forward,
    astype=_astype_array,
    broadcast_to=np.broadcast_to,
    cos=np.cos,
    exp=np.exp,
    log=np.log,
    mean=_mean_array,
    reshape=_reshape_array,
    sigmoid=activation.sigmoid_array,
    sin=np.sin,
    sum=_sum_array,
    sqrt=np.sqrt,
    sum_to=reshape.sum_to_array,
    tanh=np.tanh,
    transpose=_transpose_array,
    where=np.where,
)

#: ``vjp``'s ``xp`` under ``create_graph``: the differentiable minitorch ops on Variables.
GRAPH_OPS = SimpleNamespace(
    apply=_call,
    astype=reshape.astype,
    broadcast_to=reshape.broadcast_to,
    cos=math.cos,
    exp=math.exp,
    log=math.log,
    mean=reduce.mean,
    reshape=reshape.reshape,
    sigmoid=activation.sigmoid,
    sin=math.sin,
    sum=reduce.sum,
    sqrt=math.sqrt,
    sum_to=reshape.sum_to,
    tanh=math.tanh,
    transpose=reshape.transpose,
    where=indexing.where,
)


def install() -> None:
    """Bind the namespaces onto ``Function`` (``Function.array_ops``, ``graph_ops``)."""
    Function.array_ops = ARRAY_OPS
    Function.graph_ops = GRAPH_OPS
