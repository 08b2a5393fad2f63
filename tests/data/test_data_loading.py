"""Dataset, DataLoader and transforms."""

from __future__ import annotations

import numpy as np
import pytest

from minitorch.data import (
    ArrayDataset,
    Compose,
    DataLoader,
    Dataset,
    Flatten,
    Normalize,
    ToFloat,
)


def make_dataset(n: int = 10, **kwargs: object) -> ArrayDataset:
    x = np.arange(n * 3, dtype=np.float64).reshape(n, 3)
    return ArrayDataset(x, np.arange(n), **kwargs)  # type: ignore[arg-type]


def test_dataset_getitem_applies_transforms():
    ds = make_dataset(transform=lambda x: x * 2, target_transform=lambda t: t + 100)
    x, t = ds[2]
    np.testing.assert_array_equal(x, [12.0, 14.0, 16.0])
    assert t == 102


def test_dataset_rejects_non_callable_transform():
    with pytest.raises(TypeError, match="transform must be callable"):
        make_dataset(transform=3)


def test_dataset_rejects_non_int_index():
    with pytest.raises(TypeError, match="index must be an int"):
        make_dataset()[1.5]  # type: ignore[index]


def test_array_dataset_rejects_mismatched_lengths():
    with pytest.raises(ValueError, match=r"\(4, 2\).*\(3,\)"):
        ArrayDataset(np.zeros((4, 2)), np.zeros(3))


def test_base_dataset_without_data_says_what_to_do():
    with pytest.raises(NotImplementedError, match="prepare"):
        len(Dataset())


def test_loader_without_shuffle_covers_dataset_in_order():
    batches = list(DataLoader(make_dataset(10), batch_size=4, shuffle=False))
    assert [len(t) for _, t in batches] == [4, 4, 2]
    np.testing.assert_array_equal(np.concatenate([t for _, t in batches]), np.arange(10))
    np.testing.assert_array_equal(batches[1][0][0], [12.0, 13.0, 14.0])


def test_loader_drop_last_and_len():
    loader = DataLoader(make_dataset(10), batch_size=4, drop_last=True, seed=0)
    assert len(loader) == 2
    assert [len(t) for _, t in loader] == [4, 4]
    assert len(DataLoader(make_dataset(10), batch_size=4)) == 3


def test_loader_shuffle_is_a_permutation_each_epoch_and_seeded():
    loader = DataLoader(make_dataset(12), batch_size=5, shuffle=True, seed=3)
    epoch1 = np.concatenate([t for _, t in loader])
    epoch2 = np.concatenate([t for _, t in loader])
    assert sorted(epoch1.tolist()) == list(range(12)) == sorted(epoch2.tolist())
    assert not np.array_equal(epoch1, epoch2)
    again = DataLoader(make_dataset(12), batch_size=5, shuffle=True, seed=3)
    np.testing.assert_array_equal(np.concatenate([t for _, t in again]), epoch1)


def test_loader_pairs_inputs_with_their_labels_when_shuffled():
    for x, t in DataLoader(make_dataset(9), batch_size=4, seed=1):
        np.testing.assert_array_equal(x[:, 0], t * 3)


def test_loader_stacks_transformed_samples():
    ds = make_dataset(6, transform=Compose([ToFloat(np.float32), Normalize(1.0, 2.0)]))
    x, t = next(iter(DataLoader(ds, batch_size=6, shuffle=False)))
    assert x.dtype == np.float32 and x.shape == (6, 3)
    np.testing.assert_allclose(x, (np.arange(18).reshape(6, 3) - 1.0) / 2.0)


def test_loader_accepts_any_indexable_dataset():
    class Squares:
        def __len__(self) -> int:
            return 5

        def __getitem__(self, i: int) -> tuple[np.ndarray, int]:
            return np.array([i, i * i]), i

    x, t = next(iter(DataLoader(Squares(), batch_size=5, shuffle=False)))
    np.testing.assert_array_equal(x[:, 1], [0, 1, 4, 9, 16])
    np.testing.assert_array_equal(t, np.arange(5))


@pytest.mark.parametrize("batch_size", [0, -1, 2.5, True])
def test_loader_rejects_bad_batch_size(batch_size):
    with pytest.raises(ValueError, match="batch_size"):
        DataLoader(make_dataset(), batch_size=batch_size)


def test_loader_rejects_non_dataset():
    with pytest.raises(TypeError, match="__len__"):
        DataLoader(42, batch_size=2)


def test_transforms():
    image = np.arange(12, dtype=np.uint8).reshape(1, 3, 4)
    y = Compose([Flatten(), ToFloat(), Normalize(0.0, 255.0)])(image)
    assert y.shape == (12,) and y.dtype == np.float32
    np.testing.assert_allclose(y, np.arange(12) / 255.0, rtol=1e-6)
    np.testing.assert_allclose(
        Normalize(np.array([1.0, 2.0]), np.array([2.0, 4.0]))(np.array([3.0, 6.0])), [1.0, 1.0]
    )


def test_transform_errors():
    with pytest.raises(ValueError, match="std must be non-zero"):
        Normalize(0.0, np.array([1.0, 0.0]))
    with pytest.raises(TypeError, match="floating"):
        ToFloat(np.int32)
    with pytest.raises(TypeError, match="transform 1"):
        Compose([Flatten(), "nope"])  # type: ignore[list-item]


def test_loader_without_seed_follows_manual_seed():
    import minitorch

    def order() -> list[int]:
        return np.concatenate([t for _, t in DataLoader(make_dataset(12), batch_size=5)]).tolist()

    minitorch.manual_seed(7)
    first = order()
    minitorch.manual_seed(7)
    assert order() == first


def test_dataset_repr():
    assert repr(make_dataset(4)) == "ArrayDataset(split=train, samples=4)"
    assert repr(Dataset()) == "Dataset(split=train, samples=?)"
