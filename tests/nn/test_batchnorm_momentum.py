"""BatchNorm with ``momentum=None`` (a cumulative moving average, as in PyTorch).

Regression (fresh-user trial, h35 item 2): ``nn.BatchNorm1d(3, momentum=None)`` was
accepted, then its first training call failed with a bare ``TypeError`` in
``_update_running``; ``F.batch_norm(..., momentum=None)`` likewise.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

import minitorch
import minitorch.ops as F
from minitorch import nn


@pytest.mark.parametrize("layer, shape", [("BatchNorm1d", (6, 3)), ("BatchNorm2d", (4, 3, 2, 2))])
def test_momentum_none_matches_torch_cumulative_average_over_batches(rng, tol, layer, shape):
    torch = pytest.importorskip("torch")
    bn = getattr(nn, layer)(3, momentum=None, dtype=np.float64)
    bn_t = getattr(torch.nn, layer)(3, momentum=None, dtype=torch.float64)
    batches = [rng.normal(loc=k, scale=k + 1, size=shape) for k in range(5)]
    for x in batches:
        y = bn(x)
        y_t = bn_t(torch.tensor(x))
        np.testing.assert_allclose(y.data, y_t.detach().numpy(), **tol.torch)
    np.testing.assert_allclose(bn.running_mean, bn_t.running_mean.numpy(), **tol.torch)
    np.testing.assert_allclose(bn.running_var, bn_t.running_var.numpy(), **tol.torch)
    assert int(bn.num_batches_tracked) == int(bn_t.num_batches_tracked) == 5


def test_momentum_none_is_the_plain_mean_of_the_batch_statistics(rng, tol):
    bn = nn.BatchNorm1d(2, momentum=None, dtype=np.float64)
    batches = [rng.normal(size=(4, 2)) + k for k in range(3)]
    for x in batches:
        bn(x)
    # by definition: the mean over batches of each batch's mean and unbiased variance
    np.testing.assert_allclose(bn.running_mean, np.mean([x.mean(0) for x in batches], 0))
    np.testing.assert_allclose(
        bn.running_var, np.mean([x.var(0, ddof=1) for x in batches], 0), **tol.float64
    )


def test_momentum_none_counts_only_training_batches_and_saves_the_count(tmp_path):
    bn = nn.BatchNorm1d(2, momentum=None)
    bn(np.ones((3, 2), np.float32) * np.array([1, 2], np.float32) + np.arange(3)[:, None])
    bn.eval()(np.zeros((3, 2), np.float32))
    with minitorch.test_mode():
        bn.train()(np.zeros((3, 2), np.float32))
    assert int(bn.num_batches_tracked) == 1
    bn.save_weights(tmp_path / "bn.npz")
    fresh = nn.BatchNorm1d(2, momentum=None)
    fresh.load_weights(tmp_path / "bn.npz")
    assert int(fresh.num_batches_tracked) == 1 and fresh.num_batches_tracked.ndim == 0
    np.testing.assert_array_equal(fresh.running_mean, bn.running_mean)


def test_the_counter_is_always_a_buffer_so_weights_load_across_momentum_none(tmp_path):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    batches = [rng.normal(size=(5, 2)) + k for k in range(3)]
    bn = nn.BatchNorm1d(2, dtype=np.float64)  # momentum=0.1
    bn_t = torch.nn.BatchNorm1d(2, dtype=torch.float64)
    assert set(bn.state_dict()) == set(bn_t.state_dict())  # num_batches_tracked included
    for x in batches:
        bn(x)
        bn_t(torch.tensor(x))
    assert int(bn.num_batches_tracked) == int(bn_t.num_batches_tracked) == 3
    bn.save_weights(tmp_path / "bn.npz")
    cumulative = nn.BatchNorm1d(2, momentum=None, dtype=np.float64)
    cumulative.load_weights(tmp_path / "bn.npz")  # was: unexpected num_batches_tracked
    cumulative_t = torch.nn.BatchNorm1d(2, momentum=None, dtype=torch.float64)
    cumulative_t.load_state_dict(bn_t.state_dict())
    x = rng.normal(size=(5, 2))
    cumulative(x)
    cumulative_t(torch.tensor(x))  # the 4th batch: momentum 1/4 in both
    np.testing.assert_allclose(cumulative.running_mean, cumulative_t.running_mean.numpy())
    np.testing.assert_allclose(cumulative.running_var, cumulative_t.running_var.numpy())
    cumulative.save_weights(tmp_path / "cumulative.npz")
    nn.BatchNorm1d(2, dtype=np.float64).load_weights(tmp_path / "cumulative.npz")  # and back


def test_functional_batch_norm_refuses_momentum_none_with_a_hint():
    x = np.arange(6.0).reshape(3, 2)
    with pytest.raises(TypeError, match=r"momentum=None .*nn\.BatchNorm1d\(momentum=None\)"):
        F.batch_norm(x, np.zeros(2), np.ones(2), training=True, momentum=None)


@pytest.mark.parametrize(
    "momentum, error", [(1.5, ValueError), (-0.1, ValueError), ("0.1", TypeError)]
)
def test_functional_batch_norm_refuses_a_bad_momentum(momentum, error):
    x = np.arange(6.0).reshape(3, 2)
    with pytest.raises(error, match="batch_norm: momentum"):
        F.batch_norm(x, np.zeros(2), np.ones(2), training=True, momentum=momentum)


def test_momentum_one_and_zero_are_the_bounds(tol):
    x = np.array([[1.0, 10.0], [3.0, 30.0]])
    mean = np.zeros(2)
    F.batch_norm(x, mean, np.ones(2), training=True, momentum=1.0)
    np.testing.assert_allclose(mean, [2.0, 20.0], **tol.float64)
    F.batch_norm(x * 5, mean, np.ones(2), training=True, momentum=0)
    np.testing.assert_allclose(mean, [2.0, 20.0], **tol.float64)


def test_a_weight_file_without_the_counter_still_loads_as_old_pytorch_checkpoints(tmp_path):
    torch = pytest.importorskip("torch")
    bn = nn.Sequential(nn.BatchNorm1d(2, dtype=np.float64))
    bn(np.arange(6.0).reshape(3, 2))
    old = {k: v for k, v in bn.state_dict().items() if not k.endswith("num_batches_tracked")}
    np.savez(tmp_path / "old.npz", **old)  # as saved before the counter was always there
    fresh = nn.Sequential(nn.BatchNorm1d(2, dtype=np.float64))
    fresh.load_weights(tmp_path / "old.npz")
    np.testing.assert_array_equal(fresh[0].running_mean, bn[0].running_mean)
    assert int(fresh[0].num_batches_tracked) == 0  # kept, as torch's load_state_dict does
    tbn = torch.nn.BatchNorm1d(2)
    state = OrderedDict((k, v) for k, v in tbn.state_dict().items() if k != "num_batches_tracked")
    state._metadata = {"": {"version": 1}}  # type: ignore[attr-defined]  # an old checkpoint
    tbn.load_state_dict(state)  # accepted: torch keeps the counter
    assert int(tbn.num_batches_tracked) == 0
    with pytest.raises(ValueError, match="missing arrays: 0.running_mean"):
        fresh.load_state_dict({k: v for k, v in old.items() if k != "0.running_mean"})
