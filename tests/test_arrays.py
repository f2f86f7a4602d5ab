"""irscore.engine.system.arrays: the numpy helpers the engine shares."""

from __future__ import annotations

from unittest import mock

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from irscore.engine.system import arrays
from irscore.engine.system.arrays import counts, distinct


def test_distinct_by_hand():
    assert distinct(np.array([3, 1, 3, 2, 1])).tolist() == [1, 2, 3]
    assert distinct(np.array([7, 7, 7], np.uint8)).tolist() == [7]
    assert distinct(np.array([], np.int64)).tolist() == []
    assert distinct(np.array([5], np.int32)).dtype == np.int32  # the codes keep their width


@given(st.lists(st.integers(-5, 5), max_size=50))
def test_distinct_is_np_unique(values):
    array = np.array(values, np.int64)
    assert distinct(array).tolist() == np.unique(array).tolist()


def test_counts_by_hand():
    assert counts(np.array([0, 2, 2, 1, 2], np.uint8), 4).tolist() == [1, 1, 3, 0]


def _radix(key: np.ndarray, vectorised: bool = False) -> np.ndarray | None:
    """`small_stable_argsort` as on a CPU whose quicksort is vectorised or not."""
    with mock.patch.object(arrays, "vectorised_quicksort", lambda: vectorised):
        return arrays.small_stable_argsort(key)


def test_small_stable_argsort_by_hand():
    """Keys across the 16-bit digits' boundaries, with ties kept in row order: 5 (rows 1,
    3), 65,535 (row 4), 65,536 (row 2: low digit 0, the next 1), 70,000 (rows 0, 5); then
    2**32 + 1 (row 7: a third digit, 1) below 2**40 (row 8) and 2**48 - 1 (row 6)."""
    key = np.array([70_000, 5, 65_536, 5, 65_535, 70_000], np.uint64)
    assert _radix(key).tolist() == [1, 3, 4, 2, 0, 5]
    wide = np.r_[key, np.array([2**48 - 1, 2**32 + 1, 2**40], np.uint64)]
    assert _radix(wide).tolist() == [1, 3, 4, 2, 0, 5, 7, 8, 6]


def test_small_stable_argsort_leaves_other_keys_to_numpy():
    """None for keys of 49 bits, signed keys, more than `_RADIX_ROWS` keys, keys in
    order but for one descent in 16 rows, and where quicksort is vectorised."""
    shuffled = np.array([3, 1, 2, 0] * 8, np.uint64)
    assert _radix(shuffled) is not None
    assert _radix(shuffled | np.uint64(1 << 47)) is not None
    assert _radix(shuffled | np.uint64(1 << 48)) is None
    assert _radix(shuffled.astype(np.int64)) is None
    assert _radix(shuffled, vectorised=True) is None
    assert _radix(np.r_[np.arange(31, dtype=np.uint64), np.uint64(0)]) is None
    with mock.patch.object(arrays, "_RADIX_ROWS", len(shuffled) - 1):
        assert _radix(shuffled) is None


@given(st.lists(st.integers(0, 2**48 - 1) | st.integers(0, 2**20) | st.integers(0, 9), max_size=99))
def test_small_stable_argsort_is_numpys_stable_argsort(values):
    """Whatever the keys (many equal ones among them), the order of numpy's stable sort."""
    key = np.array(values, np.uint64)
    got = _radix(key)
    if got is not None:
        assert got.tolist() == np.argsort(key, kind="stable").tolist()
