"""Regression tests for nn bugs found in review (each failed before its fix)."""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest

from minitorch.nn import Linear, Module, Parameter


class _BufferThenParameter(Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("x", np.zeros(2))
        self.x = Parameter(np.ones(2))


def test_a_parameter_assigned_over_a_buffer_replaces_it_in_the_state_dict():
    model = _BufferThenParameter()
    assert list(model.named_buffers()) == []
    # The stale buffer (zeros) used to overwrite the Parameter (ones) in the saved state.
    np.testing.assert_array_equal(model.state_dict()["x"], [1.0, 1.0])


def test_a_module_assigned_over_a_buffer_replaces_it():
    class Holder(Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("inner", np.zeros(2))
            self.inner = Linear(2, 1, rng=0)

    assert sorted(Holder().state_dict()) == ["inner.W", "inner.b"]


def test_register_buffer_replaces_a_parameter_of_the_same_name():
    class Holder(Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = Parameter(np.ones(2))
            self.register_buffer("w", np.zeros(2))

    model = Holder()
    assert list(model.parameters()) == []
    np.testing.assert_array_equal(model.state_dict()["w"], [0.0, 0.0])


def test_parameter_over_buffer_round_trips_through_a_file(tmp_path):
    path = tmp_path / "w.npz"
    _BufferThenParameter().save_weights(path)
    model = _BufferThenParameter()
    model.x.data = np.full(2, 7.0)
    model.load_weights(path)
    np.testing.assert_array_equal(model.x.data, [1.0, 1.0])


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_saved_weight_file_gets_the_umask_permissions_like_np_savez(tmp_path):
    Linear(2, 1, rng=0).save_weights(tmp_path / "w.npz")
    np.savez(tmp_path / "ref.npz", a=np.ones(1))
    mode = stat.S_IMODE(os.stat(tmp_path / "w.npz").st_mode)
    assert mode == stat.S_IMODE(os.stat(tmp_path / "ref.npz").st_mode)  # was 0o600
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
