"""``einsum``: Einstein summation, as ``np.einsum``, whose gradients are einsums too.

``y = einsum("ij,jk->ik", a, b)`` sums the products of entries over the indices missing
from the output. It is linear in each operand, so the gradient of operand ``k`` is the
same sum with ``gy`` in the output's place and ``x_k``'s subscripts as the output::

    y = einsum("ij,jk->ik", a, b)      ga = einsum("ik,jk->ij", gy, b)

Three cases need one more operand each, all constants:

* an index only ``x_k`` has (``"ij->i"`` sums over ``j``): the gradient is the same for
  every ``j``, an einsum with a vector of ones ``"i,j->ij"``;
* an index repeated in ``x_k`` (``"ii->"``, the trace; ``"ii->i"``, the diagonal): the
  gradient lives on the diagonal, an einsum with the identity ``"...,iI->iI"``;
* a dimension of size 1 that NumPy broadcast: the gradient is summed over it.

References:
    M. B. Giles, "Collected matrix derivative results for forward and reverse mode
    algorithmic differentiation" (2008), "Multiplication" (each factor's adjoint is
    the product of the output adjoint with the other factors); NumPy's ``einsum``
    documentation (subscripts, implicit output, ellipsis).
"""

from __future__ import annotations

import string
from collections import Counter

import numpy as np

from minitorch.core import Function, Operand, Variable
from minitorch.core.function import Ops, Value
from minitorch.ops.reshape import add_tangents

Shape = tuple[int, ...]


def _error(subscripts: str, shapes: list[Shape], why: str) -> ValueError:
    shown = ", ".join(str(s) for s in shapes)
    return ValueError(f"einsum: {subscripts!r} with operand shapes {shown}: {why}")


def parse(subscripts: str, shapes: list[Shape]) -> tuple[list[str], str, dict[str, int]]:
    """The subscripts with ``...`` spelled out as letters, the output's, and each size.

    The output is the explicit one after ``->``; without ``->`` (implicit mode) it is
    the broadcast ``...`` dimensions, then the letters used exactly once, in
    alphabetical order (upper case first), as NumPy does.

    Raises:
        ValueError: for a wrong number of operands, subscripts that do not fit a
            shape, or an output letter no input has (names subscripts and shapes).
    """
    text = subscripts.replace(" ", "")
    inputs_text, arrow, output_text = text.partition("->")
    terms = inputs_text.split(",")
    if len(terms) != len(shapes):
        raise _error(subscripts, shapes, f"{len(terms)} subscripts for {len(shapes)} operands")
    used = set(text) - set(".,->")
    if not all(c in string.ascii_letters for c in used):
        raise _error(subscripts, shapes, "subscripts are letters, ',', '->' and '...'")
    fresh = [c for c in string.ascii_letters if c not in used]
    n_ellipsis = max(
        (len(s) - len(t.replace("...", "")) for t, s in zip(terms, shapes)), default=0
    )
    dots = "".join(fresh[:n_ellipsis])
    spelled = [_spell(t, s, dots, subscripts, shapes) for t, s in zip(terms, shapes)]
    if arrow:
        output = output_text.replace("...", dots)
    else:
        counts = Counter("".join(t.replace("...", "") for t in terms))
        output = dots + "".join(sorted(c for c, n in counts.items() if n == 1))
    sizes = _sizes(spelled, shapes, subscripts)
    if any(c not in sizes for c in output) or len(set(output)) != len(output):
        raise _error(subscripts, shapes, f"output {output_text!r}: letters once each, from inputs")
    return spelled, output, sizes


def _spell(term: str, shape: Shape, dots: str, subscripts: str, shapes: list[Shape]) -> str:
    """One operand's subscripts with its ``...`` replaced by the last fitting letters."""
    if "..." in term:
        n = len(shape) - len(term.replace("...", ""))
        if n < 0:
            raise _error(subscripts, shapes, f"{term!r} has more letters than dimensions")
        term = term.replace("...", dots[len(dots) - n :] if n else "")
    if len(term) != len(shape) or "." in term:
        raise _error(subscripts, shapes, f"{term!r} does not fit an operand of shape {shape}")
    return term


def _sizes(terms: list[str], shapes: list[Shape], subscripts: str) -> dict[str, int]:
    """Each letter's size: the largest of its dimensions (size 1 broadcasts, as NumPy)."""
    sizes: dict[str, int] = {}
    for term, shape in zip(terms, shapes):
        for c, d in zip(term, shape):
            if sizes.get(c, d) not in (1, d) and d != 1:
                raise _error(subscripts, shapes, f"index {c!r} has sizes {sizes[c]} and {d}")
            sizes[c] = max(sizes.get(c, d), d)
    return sizes


class Einsum(Function):
    """y = einsum(subscripts, *xs);  gx_k = einsum(gy and the other operands -> x_k)."""

    def __init__(self, subscripts: str) -> None:
        self.subscripts = subscripts

    def forward(self, *xs: np.ndarray) -> np.ndarray:
        shapes = [x.shape for x in xs]
        self.terms, self.output_term, self.sizes = parse(self.subscripts, shapes)
        self.shapes = shapes
        try:
            return np.asarray(np.einsum(self.subscripts, *xs))
        except ValueError as exc:
            raise _error(self.subscripts, shapes, str(exc)) from None

    def vjp(self, xp: Ops, xs: tuple[Value, ...], y: Value, gy: Value) -> tuple[Value | None, ...]:
        return tuple(
            self._gradient(xp, xs, gy, k) if need else None
            for k, need in enumerate(self.needs_input_grad)
        )

    def _gradient(self, xp: Ops, xs: tuple[Value, ...], gy: Value, k: int) -> Value:
        """Operand ``k``'s gradient: one einsum, then the sum over broadcast size-1 axes."""
        others = [(t, x) for j, (t, x) in enumerate(zip(self.terms, xs)) if j != k]
        target, constants = _target(self.terms[k], self.output_term, others, self.sizes, gy)
        terms = [self.output_term] + [t for t, _ in others] + [t for t, _ in constants]
        spec = ",".join(terms) + "->" + target
        g = xp.apply(Einsum(spec), gy, *[x for _, x in others], *[c for _, c in constants])
        full = tuple(self.sizes[c] for c in self.terms[k])  # g may keep a size-1 axis
        g = xp.broadcast_to(g, full) if g.shape != full else g
        stretched = tuple(i for i, d in enumerate(self.shapes[k]) if d == 1 and full[i] != 1)
        return xp.sum(g, stretched, keepdims=True) if stretched else g

    def jvp(self, xs: list[Variable], y: Variable, *txs: Variable | None) -> Variable | None:
        terms = [
            Einsum(self.subscripts)(*[tx if j == k else x for j, x in enumerate(xs)])
            for k, tx in enumerate(txs)
            if tx is not None
        ]
        return add_tangents(y.shape, *terms)


def _target(
    term: str,
    output: str,
    others: list[tuple[str, Value]],
    sizes: dict[str, int],
    gy: Value,
) -> tuple[str, list[tuple[str, np.ndarray]]]:
    """The gradient's output subscripts and the constant operands it needs.

    A repeated letter ``i`` of ``term`` gets a fresh letter ``I`` at its later places
    and an identity ``"iI"``; a letter no other operand (nor the output) has gets a
    vector of ones, so every letter of the target appears among the inputs.
    """
    dtype = gy.dtype
    present = set(output).union(*[set(t) for t, _ in others])
    used = set(term) | present
    fresh = iter(c for c in string.ascii_letters if c not in used)
    target, constants, seen = "", [], set()
    for c in term:
        if c in seen:  # a diagonal: I = i, by the identity
            r = next(fresh)
            constants.append((c + r, np.eye(sizes[c], dtype=dtype)))
            target += r
            continue
        seen.add(c)
        target += c
        if c not in present:  # summed in forward: the gradient is the same along c
            constants.append((c, np.ones(sizes[c], dtype=dtype)))
            present.add(c)
    return target, constants


def einsum(subscripts: str, *operands: Operand) -> Variable:
    """Einstein summation over the operands, exactly as ``np.einsum``.

    ``subscripts`` names each operand's axes by letters; letters shared between operands
    are multiplied along, letters missing from the output are summed over. Supported as
    in NumPy: an explicit output (``"ij,jk->ik"``) or the implicit one (``"ij,jk"``: the
    letters used once, alphabetically), repeated letters (``"ii->"`` the trace,
    ``"ii->i"`` the diagonal, ``"iij->j"``), ``...`` for broadcast leading dimensions
    (``"...ij,...jk->...ik"``), and size-1 dimensions broadcasting. The gradient of each
    operand is another einsum (see the module docstring); float32 stays float32 and
    integer operands give NumPy's dtype.

    Shapes:
        as the subscripts say: ``"ij,jk->ik"`` takes ``(n, m)`` and ``(m, p)`` to
        ``(n, p)``; each gradient has its operand's shape.

    Args:
        subscripts: the index letters, ``,`` between operands, optional ``->`` output.
        operands: the arrays (Variables, ndarrays or numbers).

    Raises:
        ValueError: if the subscripts do not fit the operands (the message names the
            subscripts and every shape).
        TypeError: for complex operands (out of scope).

    Example:
        >>> a = Variable(np.arange(4.0).reshape(2, 2))
        >>> einsum("ii->", a)  # the trace
        variable(3.0)
        >>> einsum("ij,j->i", a, np.ones(2))
        variable([1. 5.])

    References:
        NumPy documentation of ``numpy.einsum``; M. B. Giles (2008), "Multiplication".
    """
    if not isinstance(subscripts, str):
        raise TypeError(
            f"einsum: the first argument is the subscripts string (e.g. 'ij,jk->ik'), "
            f"got {type(subscripts).__name__}; NumPy's interleaved form is not supported"
        )
    return Einsum(subscripts)(*operands)  # type: ignore[no-any-return]
