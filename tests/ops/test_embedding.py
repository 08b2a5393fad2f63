"""Tests for minitorch/ops/embedding.py: embedding lookup and its scatter-add gradient."""

from __future__ import annotations

import numpy as np
import pytest
from op_harness import via_backward

import minitorch.ops as F
from minitorch import Variable, gradcheck, gradgradcheck, no_grad
from minitorch.ops.embedding import Embedding, EmbeddingGrad

FD_TOL = {"atol": 1e-5, "rtol": 1e-4}


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(3)


def embedding_loop(indices, W):
    y = np.empty(indices.shape + W.shape[1:])
    for index in np.ndindex(*indices.shape):
        y[index] = W[indices[index]]
    return y


def embedding_grad_loop(indices, gy, num_embeddings):
    gW = np.zeros((num_embeddings, gy.shape[-1]))
    for index in np.ndindex(*indices.shape):
        gW[indices[index]] += gy[index]
    return gW


INDICES = [
    ("vector", np.array([3, 0, 2])),
    ("repeated", np.array([1, 1, 4, 1])),
    ("matrix", np.array([[0, 4], [4, 2], [1, 0]])),
    ("scalar", np.array(2)),
    ("empty", np.zeros((0,), dtype=np.int64)),
]
IDS = [name for name, _ in INDICES]


@pytest.mark.parametrize("name,indices", INDICES, ids=IDS)
def test_forward_and_gradient_match_loops(rng, name, indices):
    W = Variable(rng.standard_normal((5, 3)))
    y = F.embedding(indices, W)
    np.testing.assert_array_equal(y.data, embedding_loop(indices, W.data))
    gy = rng.standard_normal(y.shape)
    (y * gy).sum().backward()
    assert W.grad is not None and W.grad.shape == W.shape
    np.testing.assert_allclose(W.grad.data, embedding_grad_loop(indices, gy, 5), atol=1e-12)


def test_repeated_indices_accumulate():
    W = Variable(np.zeros((3, 2)))
    F.embedding(np.array([2, 2, 2, 0]), W).sum().backward()
    assert W.grad is not None
    np.testing.assert_array_equal(W.grad.data, [[1.0, 1.0], [0.0, 0.0], [3.0, 3.0]])


@pytest.mark.parametrize("name,indices", INDICES[:3], ids=IDS[:3])
def test_gradcheck_and_second_order(rng, name, indices):
    W = rng.standard_normal((5, 3))
    assert gradcheck(lambda W: F.embedding(indices, W), W, **FD_TOL)
    assert gradgradcheck(lambda W: F.embedding(indices, W) ** 2, W, **FD_TOL)


def test_backward_array_equals_backward(rng, monkeypatch):
    indices, W = np.array([[0, 4, 4], [1, 0, 3]]), rng.standard_normal((5, 3))
    gy = rng.standard_normal((2, 3, 3))

    def grad() -> np.ndarray:
        v = Variable(W.copy())
        (F.embedding(indices, v) * gy).sum().backward()
        assert v.grad is not None
        return v.grad.data

    fast = grad()
    for cls in (Embedding, EmbeddingGrad):
        monkeypatch.setattr(cls, "backward_array", via_backward)
    np.testing.assert_allclose(fast, grad(), rtol=1e-12)


def test_indices_may_be_a_variable_or_list_and_get_no_gradient(rng):
    W = Variable(rng.standard_normal((4, 2)).astype(np.float32))
    indices = Variable(np.array([1, 3]))
    y = F.embedding(indices, W)
    y.sum().backward()
    assert y.dtype == np.float32 and indices.grad is None
    np.testing.assert_array_equal(F.embedding([3, 1], W).data, W.data[[3, 1]])
    with no_grad():
        assert F.embedding([0], W).creator is None


@pytest.mark.parametrize(
    "indices,W_shape,error,match",
    [
        (np.array([0.0, 1.0]), (3, 2), TypeError, "embedding: indices must be integers"),
        (np.array([0, 3]), (3, 2), ValueError, r"\[0, 3\).*0 to 3"),
        (np.array([-1]), (3, 2), ValueError, r"embedding: indices must lie in \[0, 3\)"),
        (np.array([0]), (3, 2, 1), ValueError, r"embedding: W must be 2-D.*\(3, 2, 1\)"),
    ],
)
def test_bad_input_raises(indices, W_shape, error, match):
    with pytest.raises(error, match=match):
        F.embedding(indices, np.zeros(W_shape))


def test_matches_torch(rng):
    torch = pytest.importorskip("torch")
    indices, W = np.array([[0, 4, 4], [1, 0, 3]]), rng.standard_normal((5, 3))
    v, t = Variable(W.copy()), torch.tensor(W, requires_grad=True)
    y, y_t = F.embedding(indices, v), torch.nn.functional.embedding(torch.tensor(indices), t)
    gy = rng.standard_normal(y.shape)
    (y * gy).sum().backward()
    y_t.backward(torch.tensor(gy))
    np.testing.assert_array_equal(y.data, y_t.detach().numpy())
    assert v.grad is not None and t.grad is not None
    np.testing.assert_allclose(v.grad.data, t.grad.numpy(), rtol=1e-12)
