"""Runs as JSON (pytrec_eval's and ranx's `{qid: {docno: score}}`, ranxhub's wrapper) and
Parquet (ranx's columns), recognised by content, read and written; `irscore.iter_evaluate`
yielding per-topic values chunk by chunk."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import irscore
from irscore.engine.reading import trec
from irscore.engine.reading.errors import InputError

QRELS = {"q1": {"a": 1, "b": 1}, "q2": {"c": 2}}
RUN = {"q1": {"x": 0.9, "a": 0.8, "b": 0.1}, "q2": {"c": 0.5, "y": 0.4}}
# q1: a at rank 2, b at 3: AP = (1/2 + 2/3) / 2 = 7/12; q2: c at rank 1: AP = 1
MAP = (7 / 12 + 1) / 2


def _map(qrels, run) -> float:
    table = irscore.evaluate(qrels, run, "map", per_topic=False)
    return float(table["value"].iloc[0])


def test_json_run_by_content_any_name(tmp_path):
    path = tmp_path / "run.txt"  # the name says nothing: the leading { does
    path.write_text(json.dumps(RUN))
    records = trec.read_run_records(path)
    assert records.describe().endswith("JSON {qid: {docno: score}}, 5 records")
    assert _map(QRELS, path) == pytest.approx(MAP)
    frame = records.frame()
    assert list(frame["rank"]) == [1, 2, 3, 1, 2] and set(frame["tag"]) == {"run"}


def test_ranxhub_json_names_the_run(tmp_path):
    path = tmp_path / "hub.json"
    path.write_text(json.dumps({"run": RUN, "metadata": {"run": {"name": "bm25"}}}))
    assert set(trec.read_run(path)["tag"]) == {"bm25"}
    assert _map(QRELS, path) == pytest.approx(MAP)


def test_parquet_in_ranx_columns(tmp_path):
    path = tmp_path / "run.data"
    rows = [(q, d, s) for q, docs in RUN.items() for d, s in docs.items()]
    columns = zip(("q_id", "doc_id", "score"), zip(*rows, strict=True), strict=True)
    table = pa.table({k: list(v) for k, v in columns})
    pq.write_table(table, path)
    assert "Parquet" in trec.read_run_records(path).describe()
    assert _map(QRELS, path) == pytest.approx(MAP)


@pytest.mark.parametrize("suffix", [".json", ".parquet", ".run"])
def test_write_run_round_trips(tmp_path, suffix):
    path = tmp_path / f"out{suffix}"
    irscore.write_run(path, RUN)
    back = trec.read_run(path)
    assert list(back["docno"]) == ["x", "a", "b", "c", "y"]
    assert list(back["score"]) == [0.9, 0.8, 0.1, 0.5, 0.4]
    assert _map(QRELS, path) == pytest.approx(MAP)
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left


def test_a_pipe_is_read_once(tmp_path):
    """stdin can be read only once: the sniffing peeks, the reader reads."""
    lines = [f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items()]
    (tmp_path / "q").write_text("".join(lines))
    done = subprocess.run(
        [str(Path(sys.executable).parent / "irscore"), "evaluate", "-m", "map", "q", "-"],
        input=json.dumps(RUN),
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"map                   \tall\t{MAP:.4f}\n"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            '{"q1": {"a": 1,}',
            r"run.json: not JSON: Expecting property name .*\(line 1, column 16\)",
        ),
        ('{"q1": [["a", 1]]}', r"run.json: topic 'q1' maps to a list, not an object"),
        ('{"q1": {"a": "high"}}', r"run.json: topic 'q1', docno 'a': score 'high' is not a number"),
        ('{"q1": {"a": NaN}}', r"run.json of topic 'q1', docno 'a': score nan is not finite"),
        ('{"q1": {"a b": 1}}', r"run.json docno .*'a b' is empty or contains whitespace"),
        ("{}", r"run.json: the JSON run has no document"),
        ('{"q1": {"a": true}}', r"run.json: topic 'q1', docno 'a': score True is not a number"),
    ],
)
def test_bad_json_names_the_file_and_the_problem(tmp_path, content, message):
    path = tmp_path / "run.json"
    path.write_text(content)
    with pytest.raises(InputError, match=message):
        trec.read_run(path)


def test_bad_parquet_names_the_file_and_the_problem(tmp_path):
    path = tmp_path / "run.parquet"
    pq.write_table(pa.table({"q_id": ["q1"], "doc_id": ["a"], "score": [float("inf")]}), path)
    with pytest.raises(InputError, match=r"run.parquet row 0: score inf is not finite"):
        trec.read_run(path)
    pq.write_table(pa.table({"q_id": ["q1"], "score": [1.0]}), path)
    with pytest.raises(InputError, match=r"run.parquet: no docno column"):
        trec.read_run(path)
    path.write_bytes(b"PAR1 and then nothing a Parquet reader knows")
    with pytest.raises(InputError, match=r"run.parquet: not a readable Parquet file"):
        trec.read_run(path)


def test_json_runs_equal_pytrec_eval(tmp_path):
    """On generated runs with ties and unjudged documents, per topic, to 1e-9."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    measures = {"map", "P_5", "ndcg_cut_10", "recip_rank"}
    for seed in range(10):
        rng = random.Random(seed)
        docs = [f"d{i}" for i in range(15)]
        qrels = {f"q{t}": {d: rng.choice([0, 1, 2]) for d in rng.sample(docs, 8)} for t in range(4)}
        run = {
            f"q{t}": {d: rng.choice([0.5, 1.0, 2.0]) for d in rng.sample(docs, 10)}
            for t in range(5)
        }
        path = tmp_path / f"run{seed}.json"
        path.write_text(json.dumps(run))
        theirs = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
        with pytest.warns(UserWarning, match="without judgments"):
            mine = irscore.evaluate(qrels, path, sorted(measures))
        mine = mine[mine["topic"] != "all"]
        for topic, name, value in zip(mine["topic"], mine["measure"], mine["value"], strict=True):
            assert value == pytest.approx(theirs[topic][name], abs=1e-9), (seed, topic, name)
        # the same values, streamed in chunks of about 7 results
        results = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
        streamed = list(irscore.iter_evaluate(qrels, iter(results), sorted(measures), rows=7))
        assert len(streamed) == len(mine)
        for topic, name, value in streamed:
            assert value == pytest.approx(theirs[topic][name], abs=1e-9), (seed, topic, name)


def test_iter_evaluate_by_hand_and_in_chunks(tmp_path):
    results = [(q, d, s) for q, docs in RUN.items() for d, s in docs.items()]
    values = list(irscore.iter_evaluate(QRELS, iter(results), ["map", "P_1"], rows=1))
    assert values == [
        ("q1", "map", pytest.approx(7 / 12)),  # a at 2, b at 3
        ("q1", "P_1", 0.0),
        ("q2", "map", 1.0),
        ("q2", "P_1", 1.0),
    ]
    path = tmp_path / "run.parquet"
    irscore.write_run(path, RUN)
    assert list(irscore.iter_evaluate(QRELS, path, ["map", "P_1"], rows=1)) == values
    table = irscore.evaluate(QRELS, path, ["map", "P_1"])
    table = table[table["topic"] != "all"]
    assert [tuple(v) for v in values] == list(
        zip(table["topic"], table["measure"], table["value"], strict=True)
    )


def test_iter_evaluate_complete_and_bad_streams():
    qrels = {**QRELS, "q3": {"z": 1}}
    values = list(irscore.iter_evaluate(qrels, iter([("q2", "c", 1.0)]), "map", "all_qrels"))
    # the judged topics without results come last, at 0
    assert values == [("q2", "map", 1.0), ("q1", "map", 0.0), ("q3", "map", 0.0)]
    again = iter([("q1", "a", 1.0), ("q2", "c", 1.0), ("q1", "b", 0.5)])
    with pytest.raises(InputError, match="row 2: topic q1 comes again after other topics"):
        list(irscore.iter_evaluate(QRELS, again, "map"))
    with pytest.raises(InputError, match=r"row 0: expected \(qid, docno, score\)"):
        list(irscore.iter_evaluate(QRELS, iter([("q1", "a")]), "map"))
    with pytest.raises(ValueError, match="iter_evaluate takes one run"):
        list(irscore.iter_evaluate(QRELS, {"x": RUN, "y": RUN}, "map"))
