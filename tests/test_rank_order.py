"""The reference order's one sort (`rank._packed_order`): the same permutation whichever
of numpy's sorts `arrays.sort_kind` picks for the rows' state (grouped by topic or not)."""

from __future__ import annotations

import numpy as np

from irscore.engine import arrays, rank


def test_packed_order_by_hand():
    # topic 0 holds rows 0 and 1 (scores 1.0 and 2.0: row 1 first), topic 1 row 2; rows
    # 3 and 4 tie at 3.0 in topic 1 and go by tie ascending (row 4's 0, then row 3's 1).
    topic = np.array([0, 0, 1, 1, 1])
    score = np.array([1.0, 2.0, 5.0, 3.0, 3.0])
    tie = np.array([0, 1, 0, 1, 0])
    assert rank._packed_order(topic, score, tie).tolist() == [1, 0, 2, 4, 3]


def test_sort_kind_follows_the_rows_grouping_and_never_changes_the_order():
    rng = np.random.default_rng(3)
    topics, per_topic = 40, 500
    topic = np.repeat(np.arange(topics), per_topic)
    score = -np.sort(-rng.normal(size=(topics, per_topic)), axis=1).ravel()  # ranked run
    score[rng.choice(len(score), 200, replace=False)] += 0.5  # a few lines out of place
    tie = rng.permutation(len(score))  # distinct docno codes: one permutation is right
    shuffled = rng.permutation(len(score))
    for rows in (np.arange(len(score)), shuffled):
        t, s, d = topic[rows], score[rows], tie[rows]
        expected = np.lexsort((d, -s.astype(np.float32).astype(np.float64), t))
        assert rank._packed_order(t, s, d).tolist() == expected.tolist()
    # rows in topic blocks of 500 (40 changes in 20,000): stable; shuffled: quicksort
    assert arrays.sort_kind(topic) == "stable"
    assert arrays.sort_kind(topic[shuffled]) == "quicksort"
    # blocks of 16 rows are the shortest counted as grouped: 1,249 changes in 20,000 rows
    # (1,249 * 16 = 19,984 < 20,000); blocks of 15: 999 changes in 15,000 (15,984 > 15,000)
    assert arrays.sort_kind(np.repeat(np.arange(1250), 16)) == "stable"
    assert arrays.sort_kind(np.repeat(np.arange(1000), 15)) == "quicksort"
