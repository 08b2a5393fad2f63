"""save_weights / load_weights: round trip, atomicity, and every failure mode."""

from __future__ import annotations

import io
import os
import pickle
import stat
import zipfile

import numpy as np
import pytest

from minitorch.nn import MLP, Linear, Module, Parameter, Sequential, WeightFileError


def make_model(seed: int = 0) -> MLP:
    return MLP([3, 4, 2], "relu", rng=seed)


def snapshot(model: Module) -> dict[str, np.ndarray]:
    return {name: p.data.copy() for name, p in model.named_parameters()}


def assert_unchanged(model: Module, before: dict[str, np.ndarray]) -> None:
    after = snapshot(model)
    assert after.keys() == before.keys()
    for name in before:
        np.testing.assert_array_equal(after[name], before[name])


def test_round_trip_restores_every_parameter(tmp_path):
    source, target = make_model(0), make_model(1)
    path = tmp_path / "model.npz"
    source.save_weights(path)
    with np.load(path, allow_pickle=False) as npz:  # a plain .npz keyed by dotted names
        assert sorted(npz.files) == sorted(n for n, _ in source.named_parameters())
    target.load_weights(path)
    for (name, p), (_, q) in zip(source.named_parameters(), target.named_parameters()):
        np.testing.assert_array_equal(p.data, q.data, err_msg=name)
        assert q.dtype == np.float32 and q.data is not p.data


def test_save_leaves_no_temporary_files_and_overwrites(tmp_path):
    path = tmp_path / "w.npz"
    path.write_bytes(b"old")
    make_model().save_weights(path)
    assert os.listdir(tmp_path) == ["w.npz"]
    make_model().load_weights(path)


def test_failed_save_keeps_the_old_file_and_removes_the_temp(tmp_path, monkeypatch):
    path = tmp_path / "w.npz"
    make_model(0).save_weights(path)
    good = path.read_bytes()

    def crash(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(np.lib.format, "write_array", crash)
    with pytest.raises(OSError, match="disk full"):
        make_model(1).save_weights(path)
    assert os.listdir(tmp_path) == ["w.npz"] and path.read_bytes() == good


def test_save_lazy_model_before_first_call_is_an_error(tmp_path):
    with pytest.raises(RuntimeError, match="'0.W' has no value yet"):
        Sequential(Linear(None, 2)).save_weights(tmp_path / "w.npz")


def test_load_into_lazy_model_takes_file_shapes(tmp_path):
    Sequential(Linear(5, 2, rng=0)).save_weights(tmp_path / "w.npz")
    lazy = Sequential(Linear(None, 2))
    lazy.load_weights(tmp_path / "w.npz")
    assert lazy[0].W.shape == (2, 5)
    assert lazy(np.ones((1, 5), np.float32)).shape == (1, 2)


def test_mismatch_lists_every_problem_and_changes_nothing(tmp_path):
    path = tmp_path / "w.npz"
    arrays = {
        "layers.0.W": np.zeros((4, 3), np.float32),  # right
        "layers.0.b": np.zeros(5, np.float32),  # wrong shape
        "layers.2.W": np.zeros((2, 4), np.float32),  # right
        "extra.W": np.zeros(1),  # unexpected; layers.2.b missing
        "text": np.array(["a"]),  # not numeric (and unexpected)
    }
    np.savez(path, **arrays)
    model = make_model()
    before = snapshot(model)
    with pytest.raises(WeightFileError) as info:
        model.load_weights(path)
    message = str(info.value)
    assert str(path) in message
    assert "missing arrays: layers.2.b" in message
    assert "unexpected arrays: extra.W, text" in message
    assert "layers.0.b: shape (5,) in the file, (4,) in the model" in message
    assert_unchanged(model, before)


def test_non_numeric_array_for_a_parameter_is_rejected(tmp_path):
    model = Linear(2, 1, rng=0)
    np.savez(tmp_path / "w.npz", W=np.array([["a", "b"]]), b=np.zeros(1))
    before = snapshot(model)
    with pytest.raises(WeightFileError, match="W: expected a numeric array, got <U1"):
        model.load_weights(tmp_path / "w.npz")
    assert_unchanged(model, before)


def corrupt_files(tmp_path, good: bytes) -> dict[str, bytes]:
    pickled = pickle.dumps({"layers.0.W": np.zeros((4, 3))})
    buffer = io.BytesIO()
    np.savez(buffer, **{"layers.0.W": np.array([object()], dtype=object)})
    flipped = bytearray(good)
    middle = len(flipped) // 2
    flipped[middle : middle + 16] = bytes(16)
    return {
        "truncated": good[: len(good) // 2],
        "empty": b"",
        "garbage": b"this is not a zip file at all" * 10,
        "pickle": pickled,
        "object-array": buffer.getvalue(),
        "bit-rot": bytes(flipped),
    }


@pytest.mark.parametrize(
    "kind", ["truncated", "empty", "garbage", "pickle", "object-array", "bit-rot"]
)
def test_corrupt_files_raise_clear_error_and_leave_model_unchanged(tmp_path, kind):
    good_path = tmp_path / "good.npz"
    make_model(1).save_weights(good_path)
    path = tmp_path / f"{kind}.npz"
    path.write_bytes(corrupt_files(tmp_path, good_path.read_bytes())[kind])
    model = make_model(0)
    before = snapshot(model)
    with pytest.raises(WeightFileError, match=f"{kind}.npz") as info:
        model.load_weights(path)
    assert "load_weights" in str(info.value)
    assert_unchanged(model, before)


def test_pickle_payload_never_runs(tmp_path):
    marker = tmp_path / "ran"

    class Exploit:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    np.save(tmp_path / "evil.npy", np.array([Exploit()], dtype=object), allow_pickle=True)
    with zipfile.ZipFile(tmp_path / "evil.npz", "w") as archive:
        archive.write(tmp_path / "evil.npy", "layers.0.W.npy")
    (tmp_path / "raw.npz").write_bytes(pickle.dumps(Exploit()))
    for name in ("evil.npz", "raw.npz", "evil.npy"):
        with pytest.raises(WeightFileError):
            make_model().load_weights(tmp_path / name)
    assert not marker.exists()


def test_single_npy_array_is_not_a_weight_file(tmp_path):
    np.save(tmp_path / "one.npy", np.zeros(3))
    with pytest.raises(WeightFileError, match="single array"):
        make_model().load_weights(tmp_path / "one.npy")


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such weight file"):
        make_model().load_weights(tmp_path / "nope.npz")


def test_buffers_round_trip(tmp_path):
    class WithStats(Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = Linear(2, 2, rng=0)
            self.register_buffer("running_mean", np.array([1.0, 2.0]))

    source, target = WithStats(), WithStats()
    target.running_mean = np.zeros(2)
    source.save_weights(tmp_path / "w.npz")
    target.load_weights(tmp_path / "w.npz")
    np.testing.assert_array_equal(target.running_mean, [1.0, 2.0])
    np.testing.assert_array_equal(dict(target.named_buffers())["running_mean"], [1.0, 2.0])


def test_save_into_a_missing_folder_names_the_path_and_the_folder(tmp_path):
    target = tmp_path / "nodir" / "w.npz"
    with pytest.raises(FileNotFoundError) as info:
        make_model().save_weights(target)
    assert str(info.value) == (
        f"save_weights: cannot write {target}: the folder {target.parent} does not exist"
    )


def test_save_errors_name_the_users_path_never_the_temporary_file(tmp_path, monkeypatch):
    def refuse(name, *args):
        raise PermissionError(13, "Permission denied", name)

    monkeypatch.setattr("minitorch.nn.weights.os.open", refuse)
    target = tmp_path / "w.npz"
    with pytest.raises(PermissionError) as info:
        make_model().save_weights(target)
    assert str(info.value) == f"save_weights: cannot write {target}: Permission denied"
    assert ".tmp" not in str(info.value)


def test_save_over_a_directory_says_so(tmp_path):
    with pytest.raises(IsADirectoryError, match="it is a directory"):
        make_model().save_weights(tmp_path)
    assert os.listdir(tmp_path) == []  # the temporary file is removed


def test_load_a_directory_says_it_is_a_directory(tmp_path):
    with pytest.raises(IsADirectoryError, match=f"{tmp_path} is a directory"):
        make_model().load_weights(tmp_path)


def test_garbage_file_is_not_a_valid_npz_rather_than_pickled_data(tmp_path):
    path = tmp_path / "garbage.npz"
    path.write_bytes(b"this is not a zip file at all")
    with pytest.raises(WeightFileError, match="is not a valid .npz weight file") as info:
        make_model().load_weights(path)
    assert "pickle" not in str(info.value)


@pytest.mark.parametrize("kind", ["pickle", "object-array"])
def test_pickled_data_is_refused_for_safety(tmp_path, kind):
    path = tmp_path / f"{kind}.npz"
    path.write_bytes(corrupt_files(tmp_path, b"")[kind])
    with pytest.raises(WeightFileError, match="never loaded, for safety"):
        make_model().load_weights(path)


def test_a_0d_parameter_keeps_its_shape_through_save_and_load(tmp_path):
    # h35: np.ascontiguousarray made 0-d arrays (1,), so loading the file back failed.
    model, fresh = Module(), Module()
    model.scale = Parameter(np.array(2.5))
    fresh.scale = Parameter(np.array(0.0))
    model.save_weights(tmp_path / "w.npz")
    fresh.load_weights(tmp_path / "w.npz")
    assert fresh.scale.shape == () and float(fresh.scale.data) == 2.5


# ---- file permissions ---------------------------------------------------------------------


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_saved_weight_file_gets_the_umask_permissions_like_np_savez(tmp_path):
    Linear(2, 1, rng=0).save_weights(tmp_path / "w.npz")
    np.savez(tmp_path / "ref.npz", a=np.ones(1))
    mode = stat.S_IMODE(os.stat(tmp_path / "w.npz").st_mode)
    assert mode == stat.S_IMODE(os.stat(tmp_path / "ref.npz").st_mode)  # was 0o600
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
