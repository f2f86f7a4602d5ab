"""Pooled collections: the synthetic one by construction, a pool of runs by hand."""

from __future__ import annotations

import weakref

import pandas as pd
import pytest

from irscore.engine.reading import trec
from irscore.workbench import pool


def test_pool_of_runs_by_hand():
    columns = ["topic", "docno", "rank", "score", "tag"]
    a = pd.DataFrame(
        [
            ("1", "x", 1, 3.0, "a"),
            ("1", "y", 2, 2.0, "a"),
            ("1", "z", 3, 1.0, "a"),
            ("2", "p", 1, 1.0, "a"),
            ("2", "q", 2, 1.0, "a"),
        ],
        columns=columns,
    )
    b = pd.DataFrame(
        [("1", "z", 1, 9.0, "b"), ("1", "w", 2, 8.0, "b"), ("1", "x", 3, 7.0, "b")],
        columns=columns,
    )
    # depth 2: topic 1 takes x, y from a and z, w from b; topic 2's tie at score 1 is
    # broken by docno descending (trec_eval), so a's top 2 is q, p
    got = pool.pool_of_runs([a, b], 2)
    assert list(zip(got["topic"], got["docno"], strict=True)) == [
        ("1", "w"),
        ("1", "x"),
        ("1", "y"),
        ("1", "z"),
        ("2", "p"),
        ("2", "q"),
    ]
    got = pool.pool_of_runs([a, b], 1)
    assert list(got["docno"]) == ["x", "z", "q"]
    qrels = pd.DataFrame({"topic": ["1", "1", "2"], "docno": ["x", "v", "q"], "grade": [2, 1, 0]})
    judged, unjudged = pool.judge(got, qrels)
    assert list(judged["docno"]) == ["x", "q"] and unjudged == 1  # z has no judgment
    with pytest.raises(pool.PoolError):
        pool.pool_of_runs([a], 0)


def test_synthetic_collection_by_construction():
    c = pool.synthetic(queries=5, per_run=8, depth=4, documents=200, missed=1, seed=3)
    assert sorted(c.qrels["topic"].unique()) == ["401", "402", "403", "404", "405"]
    assert set(c.runs) == {"bm25", "bm25+rerank"}
    truth = c.truth.set_index(["topic", "docno"])["grade"]
    for run in c.runs.values():
        assert run.groupby("topic").size().eq(8).all()
        # scores descend within each topic
        assert run.groupby("topic")["score"].apply(lambda s: s.is_monotonic_decreasing).all()
    for topic in c.qrels["topic"].unique():
        judged = set(c.qrels.loc[c.qrels["topic"] == topic, "docno"])
        pooled = set()
        retrieved = set()
        for run in c.runs.values():
            mine = run[run["topic"] == topic]
            pooled |= set(mine["docno"].iloc[:4])
            retrieved |= set(mine["docno"])
        extra = judged - pooled
        # the pool to depth 4, plus at most one relevant document neither run retrieved
        assert pooled <= judged and len(extra) <= 1
        assert all(truth[topic, d] > 0 and d not in retrieved for d in extra)
    # the pooled qrels carry the truth's grades
    assert all(truth[t, d] == g for t, d, g in c.qrels.itertuples(index=False))
    # grades 0 .. grades - 1
    assert set(c.truth["grade"]) <= {0, 1, 2}


def test_pooled_vs_truth_numbers():
    c = pool.synthetic(queries=5, per_run=8, depth=4, documents=200, seed=3)
    table = pool.pooled_vs_truth(c).set_index(["system", "qrels"])
    for system in c.runs:
        truth = table.loc[(system, "truth (every document judged)")]
        pooled = table.loc[(system, "pooled")]
        # 8 documents retrieved, every one judged in the truth: judged@10 = 8/10
        assert truth["judged@10"] == 0.8
        # in the pool: the top 4 for sure (4/10), at most all 8 (8/10)
        assert 0.4 <= pooled["judged@10"] <= 0.8 and pooled["judged@20"] < 0.8
        # unjudged documents count as non-relevant: the pool can only lose relevant ones
        # at ranks 5-8, while R shrinks to the relevant ones the pool found
        assert pooled["P@10"] <= truth["P@10"]


def test_same_seed_same_bytes(tmp_path):
    for name in ("one", "two"):
        pool.write(pool.synthetic(queries=4, seed=9), tmp_path / name)
    for file in ("qrels.txt", "truth.txt", "bm25.run", "bm25+rerank.run", "pool.md"):
        assert (tmp_path / "one" / file).read_bytes() == (tmp_path / "two" / file).read_bytes()
    other = tmp_path / "other"
    pool.write(pool.synthetic(queries=4, seed=10), other)
    assert (other / "bm25.run").read_bytes() != (tmp_path / "one" / "bm25.run").read_bytes()
    trec.read_qrels(tmp_path / "one" / "qrels.txt")
    trec.read_run(tmp_path / "one" / "bm25+rerank.run")


def test_bad_options():
    with pytest.raises(pool.PoolError, match="pool depth 30"):
        pool.synthetic(per_run=20, depth=30)


def test_a_pool_of_runs_holds_one_run_at_a_time():
    """Each run is let go once its top k are taken, before the next is read (a track's
    runs pooled together were held whole: 100 TREC DL runs peaked at 870 MiB)."""
    taken = []

    def runs():
        for k in range(3):
            assert all(run() is None for run in taken), "an earlier run is still held"
            run = pd.DataFrame(
                {"topic": ["1", "1"], "docno": [f"d{k}", "x"], "rank": [1, 2], "score": [2.0, 1.0]}
            )
            taken.append(weakref.ref(run))
            yield run
            del run

    got = pool.pool_of_runs(runs(), 1)
    assert list(got["docno"]) == ["d0", "d1", "d2"]
