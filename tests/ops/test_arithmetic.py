"""Op table for minitorch/ops/arithmetic.py: add, sub, mul, div, neg."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from op_harness import OpCase, OpTableTests

import minitorch.ops as F
from minitorch import Variable
from minitorch.gradcheck import gradcheck

# shape pairs: equal, broadcast both ways, 0-d with n-d, n-d with 0-d
PAIRS = [((3, 4), (3, 4)), ((3, 1), (1, 4)), ((2, 3, 4), (4,)), ((), (2, 3)), ((2, 3), ())]


def _pair_cases(name, fn, ref, torch_fn, domain=(-2.0, 2.0), second_domain=None):
    cases = []
    for a, b in PAIRS:
        make = None
        if second_domain is not None:

            def make(rng, a=a, b=b):
                return [rng.uniform(*domain, a), rng.uniform(*second_domain, b)]

        cases.append(OpCase(f"{name}{a}{b}", fn, ref, (a, b), domain, make, torch_fn))
    return cases


CASES = [
    *_pair_cases("add", F.add, np.add, lambda x0, x1: x0 + x1),
    *_pair_cases("sub", F.sub, np.subtract, lambda x0, x1: x0 - x1),
    *_pair_cases("mul", F.mul, np.multiply, lambda x0, x1: x0 * x1),
    *_pair_cases("div", F.div, np.divide, lambda x0, x1: x0 / x1, (-2, 2), (0.5, 2.0)),
    OpCase("neg", F.neg, np.negative, ((3, 4),), torch_fn=lambda x: -x),
    OpCase("neg0d", F.neg, np.negative, ((),), torch_fn=lambda x: -x),
    OpCase("radd_scalar", lambda x: 2.0 + x, lambda x: 2.0 + x, ((3,),)),
    OpCase("rsub_scalar", lambda x: 2.0 - x, lambda x: 2.0 - x, ((3,),)),
    OpCase("rtruediv_scalar", lambda x: 2.0 / x, lambda x: 2.0 / x, ((3,),), (0.5, 2)),
]


class TestArithmeticTable(OpTableTests):
    cases = CASES


def test_broadcast_error_names_op_and_shapes():
    with pytest.raises(ValueError, match=r"add: shapes \(2, 3\) and \(4,\) do not broadcast"):
        F.add(Variable(np.zeros((2, 3))), Variable(np.zeros(4)))


# -- hypothesis: random broadcastable shape pairs ---------------------------------------
BINARY = {
    "add": (F.add, np.add),
    "sub": (F.sub, np.subtract),
    "mul": (F.mul, np.multiply),
    "div": (F.div, np.divide),
    "maximum": (F.maximum, np.maximum),
    "minimum": (F.minimum, np.minimum),
}


@settings(max_examples=25, deadline=None)
@given(
    name=st.sampled_from(sorted(BINARY)),
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
    seed=st.integers(0, 2**16),
)
def test_binary_ops_on_random_broadcast_shapes(name, shapes, seed):
    fn, ref = BINARY[name]
    rng = np.random.default_rng(seed)
    a = np.asarray(rng.uniform(-2, 2, shapes.input_shapes[0]))
    # keep the divisor away from 0
    sign = rng.choice([-1.0, 1.0], shapes.input_shapes[1])
    b = np.asarray(rng.uniform(0.5, 2.0, shapes.input_shapes[1]) * sign)
    y = fn(Variable(a.copy()), Variable(b.copy()))
    assert y.shape == shapes.result_shape
    np.testing.assert_allclose(y.data, ref(a, b), rtol=1e-12)
    if name not in ("maximum", "minimum") or np.all(np.abs(np.subtract(a, b)) > 1e-3):
        assert gradcheck(fn, a, b)
