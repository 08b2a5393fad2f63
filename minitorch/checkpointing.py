"""Activation checkpointing: trade compute for memory by recomputing a block in backward.

``checkpoint(fn, *args)`` returns what ``fn(*args)`` returns, but keeps none of the
block's intermediate values for backward: only its inputs. When the gradient arrives,
the block is run again (with the random generator rewound, so dropout draws the same
masks) and differentiated on the spot. Memory for a stack of ``L`` checkpointed blocks
falls from ``L`` blocks' activations to one block's plus the ``L`` boundaries, for the
price of one extra forward pass — Chen et al.'s sublinear-memory training.

How it is built here, with nothing but a Function and :func:`minitorch.autograd.grad`:

1. ``fn`` runs once with the graph on, to find the leaves it reaches that need gradients
   (a module's Parameters, usually held by a closure rather than passed in); the
   output's data is kept, the graph is dropped at once.
2. A :class:`Checkpoint` Function takes the arguments *and those leaves* as its inputs,
   so the engine — and ``autograd.grad`` — sees every gradient it produces.
3. Its backward rewinds the generator, runs ``fn`` again on the arguments' values (on
   fresh leaves for first order; on the arguments themselves under ``create_graph``),
   and returns ``autograd.grad`` of that recomputation with respect to the arguments
   and the leaves, seeded with the incoming gradient. Under
   ``create_graph=True`` that recomputation is itself recorded, so second derivatives
   work.

The gradients are bit-identical to those without checkpointing: the recomputation
performs the same operations on the same values in the same order. That is also checked:
the recomputed output must match the forward's (a fingerprint of it is kept), so an array
the block closes over and that was changed in place before backward, or a random draw
from another generator than minitorch's, raises instead of giving a wrong gradient — when
the change shows in the output (an edit that the block's output does not reflect, such as
a weight multiplied by an input that is zero, cannot be seen, and its gradient is wrong).
The rerun runs in the forward's ``test_mode()`` setting (``Config.train``).

References:
    T. Chen, B. Xu, C. Zhang and C. Guestrin, "Training deep nets with sublinear memory
    cost", arXiv:1604.06174, 2016. ``torch.utils.checkpoint.checkpoint`` (same meaning).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from minitorch import random as _random
from minitorch.autograd import grad
from minitorch.core import Config, Function, Variable, forward, graph, inplace, using_config


def checkpoint(
    fn: Callable[..., Variable], *args: Any, preserve_rng_state: bool = True, **kwargs: Any
) -> Variable:
    """Run ``fn(*args, **kwargs)`` without keeping its activations for backward.

    Shapes:
        whatever ``fn`` takes and returns (one output Variable).

    Args:
        fn: the block, e.g. a Module or a function of its inputs; it must return one
            Variable and compute the same thing when run again (given the same random
            generator state).
        *args: its positional inputs (Variables, arrays or numbers).
        preserve_rng_state: rewind minitorch's generator before the recomputation, so
            dropout draws the same masks (as torch's option of the same name).
        **kwargs: keyword arguments for ``fn`` (not differentiated).

    Returns:
        ``fn(*args, **kwargs)``'s value; its gradients flow to ``args`` and to every
        leaf ``fn`` uses (Parameters).

    Raises:
        TypeError: if ``fn`` does not return a Variable.
        RuntimeError: in backward (or a jvp), if running ``fn`` again gives another value
            than the forward did (with ``preserve_rng_state``, the default): something it
            reads was changed in place since, or it draws from another generator. An
            edit that leaves the output unchanged cannot be seen (its gradient is wrong).

    Example:
        >>> import minitorch.ops as F
        >>> x = Variable(np.array([0.5, -1.0]))
        >>> y = checkpoint(lambda a: F.tanh(F.tanh(a)), x).sum()
        >>> y.backward()
        >>> bool(np.allclose(x.grad.data, (1 - np.tanh(np.tanh(x.data)) ** 2)
        ...                  * (1 - np.tanh(x.data) ** 2)))
        True

    References:
        Chen et al., "Training deep nets with sublinear memory cost", 2016.
    """
    if not Config.enable_backprop:  # nothing is kept under no_grad anyway
        return _called(fn, args, kwargs)
    state = _random.default_generator().bit_generator.state if preserve_rng_state else None
    out = _called(fn, args, kwargs)
    arguments = [a for a in args if isinstance(a, Variable)]
    leaves = _leaves_needing_grad(out, exclude=arguments)
    recorded = Checkpoint(fn, args, kwargs, state, out.data, train=Config.train)
    return recorded(*arguments, *leaves)


class Checkpoint(Function):
    """y = fn(*args); backward recomputes fn and differentiates the recomputation."""

    saves = ("inputs",)  # the block's inputs, to run it again; never its output

    def __init__(
        self,
        fn: Callable[..., Variable],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        rng_state: Any,
        value: np.ndarray,
        train: bool = True,
    ) -> None:
        self.fn, self.rng_state = fn, rng_state
        self.train = train  # Config.train at the forward call (test_mode()): so is the rerun
        # Where each positional argument goes: an index into the Variable inputs, or the
        # constant itself. Arrays are copied, as every op copies its ndarray operands: the
        # recomputation runs at the forward point even if the caller refills a buffer.
        self.kwargs = {name: _forward_point(value) for name, value in kwargs.items()}
        self.template = [_forward_point(a) if not isinstance(a, Variable) else None for a in args]
        self.value: np.ndarray | None = value
        # Without the generator rewound, a block with dropout may rightly differ (torch's
        # meaning of preserve_rng_state=False): then there is nothing to compare against.
        self.expected = _fingerprint(value) if rng_state is not None else None

    def forward(self, *arrays: np.ndarray) -> np.ndarray:
        value, self.value = self.value, None  # computed once by checkpoint(); not kept here
        assert value is not None, "a Checkpoint Function records one call"
        return value

    def jvp(self, xs: tuple[Variable, ...], y: Variable, *txs: Variable | None) -> Variable | None:
        """Forward mode: run the block again on a new tangent level seeded with ``txs``.

        The block's leaves are inputs of this Function, and the block reads the very same
        objects, so seeding them seeds the block; the generator is rewound as in backward.
        """
        with forward.tangent_level() as level:
            for x, tx in zip(xs, txs):
                if tx is not None:
                    level.set(x, tx)
            out = self._rerun(list(xs[: self._n_args()]))
            return level.get(out)

    def backward(self, gy: Variable) -> tuple[Variable | None, ...]:
        return self._recompute(gy, create_graph=True)

    def backward_array(self, gy: np.ndarray) -> tuple[np.ndarray | None, ...]:
        grads = self._recompute(gy, create_graph=False)
        return tuple(None if g is None else g.data for g in grads)

    def _n_args(self) -> int:
        return sum(t is None for t in self.template)

    def _rerun(self, variables: list[Variable]) -> Variable:
        """``fn`` again on ``variables`` (in the Variable arguments' places), graph on,
        the generator rewound to the forward call's state and then put back."""
        values = iter(variables)
        args = [next(values) if t is None else t for t in self.template]
        generator = _random.default_generator()
        after = generator.bit_generator.state
        if self.rng_state is not None:
            generator.bit_generator.state = self.rng_state
        try:
            with using_config("enable_backprop", True), using_config("train", self.train):
                out = self.fn(*args, **self.kwargs)
        finally:
            generator.bit_generator.state = after  # training goes on as if not rerun
        if self.expected is not None and _fingerprint(out.data) != self.expected:
            raise RuntimeError(_changed_message(self.fn, out))
        return out

    def _recompute(self, gy: Any, create_graph: bool) -> tuple[Variable | None, ...]:
        n_args = self._n_args()
        inputs = self.inputs[:n_args]
        leaves = self.inputs[n_args:]
        # Under create_graph the recomputation must hang off the real inputs, so that the
        # gradients it returns are functions of them (second derivatives); first-order
        # needs no such link, and fresh leaves keep the caller's graph untouched.
        if create_graph:
            fresh = list(inputs)
        else:
            fresh = [Variable(x.data, requires_grad=x.requires_grad) for x in inputs]
        out = self._rerun(fresh)
        everything = [*fresh, *leaves]
        wrt = [x for x in everything if x.requires_grad]
        found = iter(
            grad(out, wrt, grad_outputs=gy, create_graph=create_graph, allow_unused=True)
            if wrt
            else ()
        )
        return tuple(next(found) if x.requires_grad else None for x in everything)


def _fingerprint(data: np.ndarray) -> bytes:
    """What identifies the block's output: the in-place check's fingerprint for float32
    and float64 (about one pass over the memory), else the bytes themselves."""
    try:
        return inplace.fingerprint(data)
    except KeyError:
        return np.ascontiguousarray(data).tobytes()


def _changed_message(fn: Callable[..., Variable], out: Variable) -> str:
    name = getattr(fn, "__qualname__", None) or type(fn).__name__
    return (
        f"checkpoint: running the block {name} again (for backward or a jvp) gave another "
        f"value (shape {out.shape}) than its forward did, so its derivative would be "
        "wrong. Something the block reads changed after the forward: an array or Variable "
        "it closes over edited in place (`c[...] = ...`, `c.data[...] = ...`), or a "
        "module switched between train() and eval(). Change such things only after "
        "backward, or pass arrays to checkpoint as arguments (they are copied). A block "
        "that draws random numbers must use minitorch.random (its state is rewound for "
        "the rerun), not np.random."
    )


def _forward_point(value: Any) -> Any:
    """A constant argument as the recomputation gets it: an ndarray copied, else as is."""
    return value.copy() if isinstance(value, np.ndarray) else value


def _called(fn: Callable[..., Variable], args: tuple[Any, ...], kwargs: dict[str, Any]):
    out = fn(*args, **kwargs)
    if not isinstance(out, Variable):
        raise TypeError(
            f"checkpoint: fn must return one Variable, got {type(out).__name__} "
            "(checkpoint each output's block separately)"
        )
    return out


def _leaves_needing_grad(out: Variable, exclude: list[Variable]) -> list[Variable]:
    """The leaves of ``out``'s graph that need a gradient, first use first, once each.

    The walk stops at the arguments (``exclude``): what made an argument is the outer
    graph's, and its leaves get their gradient through the argument (an argument ``x *
    1.0`` must not add ``x`` as an input of its own, or ``x`` would get it twice).
    """
    excluded = {id(x) for x in exclude}
    made = {id(x.creator) for x in exclude if x.creator is not None}  # an argument's edge

    def is_argument(x: Variable) -> bool:
        return id(x) in excluded or (x.creator is not None and id(x.creator) in made)

    if is_argument(out):
        return []
    found: dict[int, Variable] = {}
    for func in graph.functions(out, stop=is_argument):
        for x in func.inputs:
            if x.creator is None and x.requires_grad and id(x) not in excluded:
                found.setdefault(id(x), x)
    return list(found.values())
