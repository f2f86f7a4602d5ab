"""Each topic's ideal ranking (`rank._ideal`): its positive grades in descending order,
counted where grades are few, sorted where they spread wide; the same either way."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from irscore.engine.ranking import rank


def _by_hand(grades: list[int], index: list[int], topics: int) -> tuple[list[int], list[int]]:
    """Each topic's grades sorted descending, one topic after another; and their counts."""
    per_topic = [
        sorted((g for g, t in zip(grades, index, strict=True) if t == k), reverse=True)
        for k in range(topics)
    ]
    return [g for part in per_topic for g in part], [len(part) for part in per_topic]


def test_ideal_by_hand():
    # topic 0: grades 1, 3, 2 -> 3 2 1; topic 1: none; topic 2: 2, 2 -> 2 2 (counted: top 3)
    grades, index = np.array([1, 2, 3, 2, 2]), np.array([0, 2, 0, 2, 0])
    ideal, counts = rank._ideal(grades, index, np.arange(3))
    assert ideal.tolist() == [3, 2, 1, 2, 2]
    assert counts.tolist() == [3, 0, 2]


def test_ideal_of_grades_spread_wide_is_sorted_the_same():
    # top grade 10**6 over 2 topics and 3 judgments: the counts would be 2 million cells
    grades, index = np.array([5, 10**6, 7]), np.array([1, 1, 0])
    ideal, counts = rank._ideal(grades, index, np.arange(2))
    assert ideal.tolist() == [7, 10**6, 5]
    assert counts.tolist() == [1, 2]


@given(
    st.integers(1, 12),
    st.lists(st.tuples(st.integers(1, 2000), st.integers(0, 11)), max_size=300),
    st.sampled_from([np.int64, np.int32]),
)
def test_ideal_matches_a_sort_by_hand(topics, pairs, dtype):
    pairs = [(g, t % topics) for g, t in pairs]
    grades = np.array([g for g, _ in pairs], dtype=dtype)
    index = np.array([t for _, t in pairs], dtype=np.int64)
    ideal, counts = rank._ideal(grades, index, np.arange(topics))
    assert (ideal.tolist(), counts.tolist()) == _by_hand(grades.tolist(), index.tolist(), topics)
    assert ideal.dtype == grades.dtype
