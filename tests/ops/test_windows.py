"""im2col and col2im (ops/windows.py): against loops, as adjoints, gradients, PyTorch.

The geometry table and the loop references are shared with ``test_conv.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_conv import CASES, FD_TOL, FWD_TOL, IDS, im2col_loop

import minitorch.ops as F
from minitorch import Variable, gradcheck


@pytest.mark.parametrize("name,x_shape,W_shape,stride,padding", CASES, ids=IDS)
def test_im2col_forward_matches_loop(rng, name, x_shape, W_shape, stride, padding):
    x = rng.standard_normal(x_shape)
    col = F.im2col(Variable(x), W_shape[2:], stride, padding)
    np.testing.assert_array_equal(col.data, im2col_loop(x, W_shape[2:], stride, padding))


@pytest.mark.parametrize("name,x_shape,W_shape,stride,padding", CASES, ids=IDS)
def test_col2im_is_the_adjoint_of_im2col(rng, name, x_shape, W_shape, stride, padding):
    x = rng.standard_normal(x_shape)
    kernel = W_shape[2:]
    col_shape = im2col_loop(x, kernel, stride, padding).shape
    c = rng.standard_normal(col_shape)
    folded = F.col2im(Variable(c), x_shape[2:], kernel, stride, padding).data
    lhs = np.sum(im2col_loop(x, kernel, stride, padding) * c)
    np.testing.assert_allclose(lhs, np.sum(x * folded), **FWD_TOL)


@pytest.mark.parametrize("name,x_shape,W_shape,stride,padding", CASES, ids=IDS)
def test_im2col_and_col2im_gradcheck(rng, name, x_shape, W_shape, stride, padding):
    x = rng.standard_normal(x_shape)
    kernel = W_shape[2:]
    assert gradcheck(lambda v: F.im2col(v, kernel, stride, padding), x, **FD_TOL)
    col = rng.standard_normal(im2col_loop(x, kernel, stride, padding).shape)
    assert gradcheck(lambda c: F.col2im(c, x_shape[2:], kernel, stride, padding), col, **FD_TOL)


def test_im2col_col2im_match_torch_unfold_fold(rng):
    torch = pytest.importorskip("torch")
    x = rng.standard_normal((2, 3, 7, 6))
    col = F.im2col(Variable(x), (3, 2), stride=2, padding=1)
    expected = torch.nn.functional.unfold(torch.tensor(x), (3, 2), padding=1, stride=2)
    np.testing.assert_array_equal(col.data, expected.numpy())
    c = rng.standard_normal(col.shape)
    folded = F.col2im(Variable(c), (7, 6), (3, 2), stride=2, padding=1)
    expected = torch.nn.functional.fold(torch.tensor(c), (7, 6), (3, 2), padding=1, stride=2)
    np.testing.assert_allclose(folded.data, expected.numpy(), **FWD_TOL)


# Regression (commit f9ce3c8): a -1 reshape cannot infer an axis of an empty (N = 0) batch.
def test_im2col_accepts_an_empty_batch():
    x = Variable(np.zeros((0, 1, 4, 4)))
    y = F.im2col(x, 2)
    assert y.shape == (0, 4, 9)
    y.backward()
    assert x.grad.shape == x.shape
