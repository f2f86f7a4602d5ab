"""`inputs._positions`: a DataFrame run's ranks when it has none, each row's place among
its topic's rows in row order (as trec_eval's file order)."""

from __future__ import annotations

import numpy as np
import pytest

from irscore.engine.reading import inputs


@pytest.mark.parametrize(
    ("topics", "positions"),
    [
        # stretches 5,5,5 | 2,2 | 7: counts 1, 2, 3, then back to 1 at each new topic
        ([5, 5, 5, 2, 2, 7], [1, 2, 3, 1, 2, 1]),
        ([3], [1]),
        ([], []),
        # topic 1 comes back after topic 2: its second row is its 2nd (the sorted way)
        ([1, 2, 1], [1, 1, 2]),
    ],
)
def test_positions_within_topics_by_hand(topics, positions):
    assert inputs._positions(np.array(topics, dtype=np.int64)).tolist() == positions
