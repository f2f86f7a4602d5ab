"""`RunningMeans` adds a run's topics chunk by chunk and gives the bits `aggregate` gives
over all of them at once: trec_eval adds the per-topic values one at a time, so a
chunk's sum is carried into the next, never added as a separate total."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from irscore.engine.evaluate import RunningMeans, means_of
from irscore.engine.measures import aggregate
from irscore.engine.ranking.conventions import Convention

# one measure per way of aggregating: mean, geometric mean, count, sum, relevant
NAMES = ("map", "gm_map", "num_q", "num_ret", "num_rel")


def _chunked(values: np.ndarray, filled: np.ndarray, cuts: list[int], c, rel) -> dict:
    """RunningMeans of `values` (one array for every name) cut at `cuts`."""
    means = RunningMeans(c)
    bounds = [0, *sorted(cuts), len(values)]
    for a, b in itertools.pairwise(bounds):
        part_rel = None if rel is None else float(b - a)  # each chunk's judgments: its size
        means.add({n: values[a:b] for n in NAMES}, filled[a:b], part_rel)
    return means.result()


def test_a_chunk_sum_is_carried_not_added_as_a_total():
    """map of 1, 1e16, -1e16 in two chunks [1] [1e16, -1e16]: one at a time (1 + 1e16)
    rounds to 1e16 (its spacing there is 2), minus 1e16 is 0, over 3 topics 0.0. Adding
    the chunks' totals would give (1 + 0) / 3 = 0.3333."""
    values = np.array([1.0, 1e16, -1e16])
    assert aggregate("map", values) == 0.0
    means = RunningMeans(Convention())
    means.add({"map": values[:1]}, np.zeros(1, bool), None)
    means.add({"map": values[1:]}, np.zeros(2, bool), None)
    assert means.result() == {"map": 0.0}


def test_filled_topics_count_in_the_divisor_only_under_trec_eval_9():
    """Topics 0.5, 1.0 and a filled (-c, no results) topic: trec_eval 9 divides the sum
    of the other two by 3 (1.5 / 3 = 0.5); trec_eval 10 adds the filled value (0.25
    here) in topic order, (0.5 + 1.0 + 0.25) / 3 = 0.5833."""
    values, filled = np.array([0.5, 1.0, 0.25]), np.array([False, False, True])
    for c, expected in ((Convention(), 0.5), (Convention(missing_topics="evaluated"), 1.75 / 3)):
        means = RunningMeans(c)
        means.add({"map": values[:1]}, filled[:1], None)
        means.add({"map": values[1:]}, filled[1:], None)
        assert means.result()["map"] == expected


@given(
    st.lists(st.floats(0, 1e6, allow_subnormal=True), min_size=1, max_size=40),
    st.lists(st.integers(0, 40), max_size=6),
    st.lists(st.booleans(), min_size=40, max_size=40),
    st.sampled_from(["mean_only", "evaluated"]),
    st.booleans(),
)
def test_chunks_give_the_bits_of_all_topics_at_once(values, cuts, filled, missing, with_rel):
    values = np.array(values)
    filled = np.array(filled[: len(values)])
    cuts = [cut for cut in cuts if cut <= len(values)]
    c = Convention(missing_topics=missing)
    rel = float(len(values)) if with_rel else None
    whole = means_of({n: values for n in NAMES}, filled, rel, c)
    assert _chunked(values, filled, cuts, c, rel) == whole
    kept = values[~filled] if missing == "mean_only" else values
    gaps = int(filled.sum()) if missing == "mean_only" else 0
    assert whole == {n: aggregate(n, kept, gaps, rel) for n in NAMES}
