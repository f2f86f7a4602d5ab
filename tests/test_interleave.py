"""Interleaving: merges worked by hand, properties by construction, the simulated verdicts."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from irscore.workbench import interleave

A_RANK = ["a1", "s1", "a2", "s2", "a3"]
B_RANK = ["s1", "b1", "s2", "b2", "b3"]


def test_team_draft_by_hand():
    # round 1, coin A first: A takes a1, B takes s1; round 2, B first: B takes b1,
    # A skips s1 (placed) and takes a2; round 3, A first: A takes s2, B skips s2, b2
    docs, teams = interleave.team_draft(A_RANK, B_RANK, 6, [True, False, True])
    assert docs == ["a1", "s1", "b1", "a2", "s2", "b2"]
    assert teams == ["A", "B", "B", "A", "A", "B"]


def test_team_draft_stops_at_the_length_and_fills_from_the_longer_run():
    docs, teams = interleave.team_draft(["x"], ["y", "z", "w"], 3, [True, True, True])
    # round 1: A x, B y; round 2: A has nothing left, B z (the list is now full)
    assert docs == ["x", "y", "z"] and teams == ["A", "B", "B"]


def test_balanced_by_hand():
    # The run with fewer of its own documents used (ka, kb) adds its next; A on equal.
    # ka=0 kb=0: A a1 | ka=1 kb=0: B s1 | ka=1 kb=1: A s1, placed, skipped |
    # ka=2 kb=1: B b1 | ka=2 kb=2: A a2
    assert interleave.balanced(A_RANK, B_RANK, 4, a_first=True) == ["a1", "s1", "b1", "a2"]
    # B on equal: B s1 | A a1 | B b1 | A s1 skipped | B s2 | A a2
    assert interleave.balanced(A_RANK, B_RANK, 5, a_first=False) == ["s1", "a1", "b1", "s2", "a2"]


def test_balanced_credit_by_hand():
    docs = ["a1", "s1", "b1", "a2"]
    # clicks on s1 and b1: the lowest click b1 is at rank 2 of B, absent from A (6):
    # k = 2; in A's top 2 (a1, s1): s1 -> 1; in B's top 2 (s1, b1): 2 -> B wins
    assert interleave.balanced_winner(A_RANK, B_RANK, docs, [0, 1, 1, 0]) == "B"
    # a click on s1 alone: k = min(2, 1) = 1; A's top 1 (a1): 0, B's top 1 (s1): 1 -> B
    assert interleave.balanced_winner(A_RANK, B_RANK, docs, [0, 1, 0, 0]) == "B"
    # a1 and s1: lowest s1, k = 1: A's top 1 has a1 (1), B's has s1 (1): a tie
    assert interleave.balanced_winner(A_RANK, B_RANK, docs, [1, 1, 0, 0]) == "tie"


def _random_rankings(rng, n_docs=12):
    pool = [f"d{i}" for i in range(n_docs)]
    a = list(rng.permutation(pool)[: rng.integers(1, n_docs)])
    b = list(rng.permutation(pool)[: rng.integers(1, n_docs)])
    return a, b


@pytest.mark.parametrize("seed", range(30))
def test_team_draft_properties(seed):
    rng = np.random.default_rng(seed)
    a, b = _random_rankings(rng)
    coins = (rng.random(10) < 0.5).tolist()
    docs, teams = interleave.team_draft(a, b, 10, coins)
    assert len(set(docs)) == len(docs)
    for run, team in ((a, "A"), (b, "B")):
        mine = [d for d, t in zip(docs, teams, strict=True) if t == team]
        assert mine == sorted(mine, key=run.index)  # relative order kept
        assert set(mine) <= set(run)
    # while both runs have documents left, the teams differ by at most one per prefix
    for n in range(1, len(docs) + 1):
        placed = set(docs[:n])
        if set(a) - placed and set(b) - placed:
            count_a = teams[:n].count("A")
            assert abs(count_a - (n - count_a)) <= 1


@pytest.mark.parametrize("seed", range(30))
def test_balanced_prefixes_are_the_two_tops(seed):
    rng = np.random.default_rng(seed)
    a, b = _random_rankings(rng)
    docs = interleave.balanced(a, b, 10, bool(seed % 2))
    assert len(set(docs)) == len(docs)
    # every prefix is the union of A's top ka and B's top kb with |ka - kb| <= 1
    # (while both runs last)
    for n in range(1, len(docs) + 1):
        prefix = set(docs[:n])
        found = [
            (ka, kb)
            for ka in range(len(a) + 1)
            for kb in range(len(b) + 1)
            if set(a[:ka]) | set(b[:kb]) == prefix
            and (abs(ka - kb) <= 1 or ka == len(a) or kb == len(b))
        ]
        assert found, (n, docs, a, b)


def _collection(topics=20, depth=10):
    """Run A ranks relevant documents at 2, 4, ...; run B at 1, 3, ...: B better everywhere."""
    q, a, b = [], [], []
    for t in range(1, topics + 1):
        rel = [f"r{t}_{i}" for i in range(depth // 2)]
        non = [f"n{t}_{i}" for i in range(depth // 2)]
        q += [(str(t), d, 1) for d in rel] + [(str(t), d, 0) for d in non]
        better = list(itertools.chain(*zip(rel, non, strict=True)))
        worse = list(itertools.chain(*zip(non, rel, strict=True)))
        for rows, ranked, tag in ((b, better, "B"), (a, worse, "A")):
            rows += [(str(t), d, i + 1, float(depth - i), tag) for i, d in enumerate(ranked)]
    qrels = pd.DataFrame(q, columns=["topic", "docno", "grade"])
    columns = ["topic", "docno", "rank", "score", "tag"]
    return qrels, pd.DataFrame(a, columns=columns), pd.DataFrame(b, columns=columns)


@pytest.mark.parametrize("method", interleave.METHODS)
def test_a_run_better_on_every_topic_wins_under_perfect_clicks(method):
    qrels, a, b = _collection()
    o = interleave.simulate(qrels, a, b, "perfect", 2000, seed=3, method=method)
    assert o.wins_b > 3 * o.wins_a
    assert o.p_value < 1e-6
    assert o.wins_a + o.wins_b + o.ties == 2000


@pytest.mark.parametrize("model", ["perfect", "random"])
def test_identical_runs_give_no_winner_beyond_chance(model):
    qrels, a, _ = _collection()
    o = interleave.simulate(qrels, a, a.assign(tag="B"), model, 2000, seed=5)
    assert o.p_value > 0.01
    assert abs(o.share_b - 0.5) < 0.05


def test_sign_test_by_hand():
    # 9 of 10 decided for B: P(X >= 9) = (10 + 1)/1024, two-sided doubles it
    assert interleave.sign_test(np.array([9]), np.array([10]))[0] == pytest.approx(22 / 1024)
    # 5 of 10: both tails exceed 1/2, capped at 1; no decided impression: 1
    assert interleave.sign_test(np.array([5, 0]), np.array([10, 0])).tolist() == [1.0, 1.0]


def test_cascade_clicks_perfect_and_navigational():
    rng = np.random.default_rng(0)
    # perfect: grade 2+ always clicked, grade 0 never, never stops
    assert interleave.cascade_clicks([3, 0, 2, 0], "perfect", rng) == [True, False, True, False]
    # navigational stops after a grade-2 click with probability 0.9: over many users the
    # second grade-2 document is clicked about 0.95 * (1 - 0.95 * 0.9) = 0.138 of the time
    clicks = np.array(
        [interleave.cascade_clicks([2, 2], "navigational", rng) for _ in range(20000)]
    )
    assert clicks[:, 0].mean() == pytest.approx(0.95, abs=0.01)
    assert clicks[:, 1].mean() == pytest.approx(0.95 * (1 - 0.95 * 0.9), abs=0.01)


def test_same_seed_same_bytes_and_another_seed_differs():
    qrels, a, b = _collection()
    first = interleave.simulate(qrels, a, b, "informational", 500, seed=11)
    again = interleave.simulate(qrels, a, b, "informational", 500, seed=11)
    other = interleave.simulate(qrels, a, b, "informational", 500, seed=12)
    assert interleave.log_lines(first) == interleave.log_lines(again)
    assert interleave.summary(first, "A", "B") == interleave.summary(again, "A", "B")
    assert interleave.log_lines(first) != interleave.log_lines(other)


def test_settled_after():
    o = interleave.outcome([interleave.Impression("1", (), (), (), (), "B") for _ in range(12)])
    # all for B: p = 2 / 2^n drops below 0.05 at n = 6 (2/64 = 0.031; 2/32 = 0.0625)
    assert o.settled_after(0.05) == 6
    assert (
        interleave.outcome(
            [interleave.Impression("1", (), (), (), (), w) for w in "AB" * 5]
        ).settled_after(0.05)
        is None
    )


def test_no_shared_topic_is_an_error():
    qrels, a, b = _collection(topics=2)
    with pytest.raises(interleave.InterleaveError, match="no topic in common"):
        interleave.simulate(qrels, a[a["topic"] == "1"], b[b["topic"] == "2"])


def test_rankings_cut_at_twice_the_length_change_nothing():
    # a merged list of 3 reaches at most 3 of one run's own plus 3 the other placed: 6
    qrels, a, b = _collection(depth=10)
    judged = interleave.grade_lookup(qrels)
    cut = interleave.simulate(qrels, a, b, "informational", 300, length=3, seed=2)
    whole = interleave.simulate_rankings(
        judged, interleave.rankings(a), interleave.rankings(b), "informational", 300, 3, 2
    )
    assert interleave.log_lines(cut) == interleave.log_lines(whole)
    assert interleave.rankings(a, 2)["1"] == interleave.rankings(a)["1"][:2]
