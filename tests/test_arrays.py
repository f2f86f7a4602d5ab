"""irscore.engine.system.arrays: the numpy helpers the engine shares."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

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
