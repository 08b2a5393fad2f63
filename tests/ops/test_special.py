"""Op table for minitorch/ops/special.py: erf and erfc, written here (NumPy has none),
against the C library (``math.erf``) and ``torch.special``."""

from __future__ import annotations

import math

import numpy as np
import pytest
from op_harness import OpCase, OpTableTests

import minitorch.ops as F
from minitorch import Variable


def _torch_special(name):
    def call(x):
        import torch

        return getattr(torch.special, name)(x)

    return call


def _libm(name):
    return np.vectorize(getattr(math, name), otypes=[np.float64])


CASES = [
    OpCase(
        "erf(3,4)", F.erf, _libm("erf"), ((3, 4),), (-3.0, 3.0), torch_fn=_torch_special("erf")
    ),
    OpCase("erf()", F.erf, _libm("erf"), ((),), torch_fn=_torch_special("erf")),
    OpCase(
        "erfc(3,4)", F.erfc, _libm("erfc"), ((3, 4),), (-3.0, 5.0), torch_fn=_torch_special("erfc")
    ),
    OpCase("erfc()", F.erfc, _libm("erfc"), ((),), torch_fn=_torch_special("erfc")),
]


class TestSpecialTable(OpTableTests):
    cases = CASES


# Both branches (series below 1.5, continued fraction above), tiny and huge arguments.
GRID = np.concatenate(
    [np.linspace(-6.0, 6.0, 24001), np.linspace(-27.0, 27.0, 2001), np.logspace(-300, 0, 200)]
)


def test_erf_matches_the_c_library_to_1e_15_relative():
    expected = _libm("erf")(GRID)
    nonzero = expected != 0
    got = F.erf(GRID).data
    np.testing.assert_allclose(got[nonzero], expected[nonzero], rtol=1e-15, atol=0)
    assert np.all(got[~nonzero] == 0)


def test_erfc_matches_the_c_library_down_to_its_underflow():
    expected = _libm("erfc")(GRID)
    normal = expected > 1e-300  # below, subnormals hold few digits
    np.testing.assert_allclose(F.erfc(GRID).data[normal], expected[normal], rtol=1.5e-14, atol=0)
    assert np.all(F.erfc(np.array([28.0, 40.0, np.inf])).data == 0)


def test_erf_matches_torch_special_erf_across_the_range():
    torch = pytest.importorskip("torch")
    for name in ("erf", "erfc"):
        expected = getattr(torch.special, name)(torch.tensor(GRID)).numpy()
        keep = np.abs(expected) > 1e-300
        got = getattr(F, name)(GRID).data
        np.testing.assert_allclose(got[keep], expected[keep], rtol=1.5e-14, atol=0)


def test_erf_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan])
    np.testing.assert_array_equal(F.erf(x).data, [0.0, -0.0, 1.0, -1.0, np.nan])
    np.testing.assert_array_equal(F.erfc(x).data, [1.0, 1.0, 0.0, 2.0, np.nan])
    assert np.signbit(F.erf(x).data[1])


def test_erf_is_odd_and_erfc_its_complement():
    x = np.linspace(-4.0, 4.0, 81)
    np.testing.assert_array_equal(F.erf(-x).data, -F.erf(x).data)
    np.testing.assert_allclose(F.erf(x).data + F.erfc(x).data, 1.0, rtol=0, atol=2e-16)


def test_gaussian_cdf_gradient_is_the_density():
    x = Variable(np.linspace(-2.0, 2.0, 5))
    cdf = 0.5 * (1 + F.erf(x / math.sqrt(2)))
    cdf.sum().backward()
    density = np.exp(-(x.data**2) / 2) / math.sqrt(2 * math.pi)
    np.testing.assert_allclose(x.grad.data, density, rtol=1e-14)


def test_integer_input_is_computed_in_float64_and_float32_kept():
    assert F.erf(np.array([0, 1], dtype=np.int8)).dtype == np.float64
    assert F.erfc(np.array([0.5], dtype=np.float32)).dtype == np.float32


def test_complex_input_is_refused_naming_the_op():
    with pytest.raises(TypeError, match=r"erf: complex input"):
        F.erf(np.array([1j]))
