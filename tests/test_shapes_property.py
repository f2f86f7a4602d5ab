"""Property tests over the shapes people evaluate, read from files through small blocks.

The generators vary what broke the reader before: the number of topics (1 to
20,000), documents per topic (1 to 20,000), how many distinct docnos there are
(all distinct to a pool of a few), line order (grouped by topic or shuffled),
qid and docno styles, and the reader's block and Arrow piece sizes (forced
small, so that a file of a few thousand lines spans many blocks and pieces,
each with its own dictionaries). Every value of the CLI's path (records read
from the files, `evaluate_records`) must equal pytrec_eval's on the same rows.
"""

from __future__ import annotations

import numpy as np
import pytrec_eval
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from irscore.engine.evaluate import evaluate_records
from irscore.engine.measures import parse_requests
from irscore.engine.ranking.conventions import Convention
from irscore.engine.reading import streams, trec

MEASURES = ["map", "ndcg", "P.5,10", "recall.10,100", "recip_rank", "bpref", "num_rel_ret"]
PYTREC = {"map", "ndcg", "P.5,10", "recall.10,100", "recip_rank", "bpref", "num_rel_ret"}


@st.composite
def shapes(draw):
    """(qrels lines, run lines) of one generated shape, and the block and piece sizes."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    shape = draw(st.sampled_from(["many topics", "deep", "middle"]))
    if shape == "many topics":
        topics, depth = draw(st.integers(1, 20_000)), draw(st.integers(1, 2))
    elif shape == "deep":
        topics, depth = draw(st.integers(1, 3)), draw(st.integers(1, 20_000 // 3))
    else:
        topics, depth = draw(st.integers(1, 200)), draw(st.integers(1, 100))
    pool = draw(st.sampled_from([3, 50, 10**6, 10**9]))  # docnos to draw from, per topic
    qid = draw(st.sampled_from(["{}", "q{}", "0{}", "topic-{}-x"]))
    docno = draw(st.sampled_from(["{}", "D{:08d}", "FBIS3-{}", "msmarco_doc_{}"]))
    names = [qid.format(t) for t in rng.choice(10 * topics + 10, topics, replace=False)]
    qrels, run = [], []
    for name in names:
        count = min(depth, pool)
        docs = [docno.format(d) for d in rng.choice(pool, count, replace=False)]
        scores = rng.integers(0, 8, count) / 4  # exact in float32: ties, no float32 doubt
        for rank, (doc, score) in enumerate(zip(docs, scores, strict=True), 1):
            run.append(f"{name} Q0 {doc} {rank} {score} tag")
        judged = [d for d in docs if rng.random() < 0.5] + [docno.format(pool + 1)]
        qrels += [f"{name} 0 {doc} {rng.integers(0, 3)}" for doc in judged]
    if draw(st.booleans()):
        order = rng.permutation(len(run))
        run = [run[i] for i in order]
    block = draw(st.sampled_from([200, 4096, 1 << 16, streams.BLOCK]))
    piece = draw(st.sampled_from([128, 4096, 16384, streams.PIECE]))
    return qrels, run, block, piece


def _pytrec(qrels: list[str], run: list[str]) -> dict:
    judged: dict[str, dict[str, int]] = {}
    for line in qrels:
        topic, _, doc, grade = line.split()
        judged.setdefault(topic, {})[doc] = int(grade)
    ranked: dict[str, dict[str, float]] = {}
    for line in run:
        topic, _, doc, _, score, _ = line.split()
        ranked.setdefault(topic, {})[doc] = float(score)
    return pytrec_eval.RelevanceEvaluator(judged, PYTREC).evaluate(ranked)


def _msmarco_like() -> tuple[list[str], list[str], int, int]:
    """2,000 numeric qids x 2 documents through 16 KiB pieces: pieces of ~400 topics
    (16-bit codes) beside a last one of fewer than 128 (8-bit), which once crashed."""
    run = [
        f"{1000 + t} Q0 {7 * t + i} {i + 1} {1 - i / 2} r" for t in range(2000) for i in range(2)
    ]
    qrels = [f"{1000 + t} 0 {7 * t + t % 2} 1" for t in range(2000)]
    return qrels, run, 1 << 16, 16384


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(shapes())
@example(_msmarco_like())
def test_every_shape_read_through_small_blocks_equals_pytrec_eval(tmp_path_factory, shape):
    qrels, run, block, piece = shape
    folder = tmp_path_factory.mktemp("shape")
    (folder / "qrels").write_text("\n".join(qrels) + "\n")
    (folder / "run").write_text("\n".join(run) + "\n")
    saved = streams.BLOCK, streams.PIECE
    streams.BLOCK, streams.PIECE = block, piece
    try:
        records = trec.read_qrels_records(folder / "qrels"), trec.read_run_records(folder / "run")
    finally:
        streams.BLOCK, streams.PIECE = saved
    spec, _ = parse_requests(MEASURES)
    values, topics, _, _ = evaluate_records(*records, Convention(), spec, rows=4096)
    expected = _pytrec(qrels, run)
    assert sorted(topics.tolist()) == sorted(expected)
    for name, column in values.items():
        theirs = np.array([expected[t][name] for t in topics.tolist()])
        assert np.allclose(column, theirs, rtol=0, atol=1e-12), name
