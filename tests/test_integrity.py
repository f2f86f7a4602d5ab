"""Records of written files, checked where they are read (irscore.pipeline.integrity)."""

from __future__ import annotations

import hashlib
import json

import pytest

from irscore.pipeline.integrity import (
    IntegrityError,
    damaged,
    file_record,
    publish,
    topic_coverage,
    verify_inputs,
    write_record,
)

RUN = "1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n10 Q0 d1 1 3.0 t\n2 Q0 d3 1 1.0 t\n"


def test_a_record_holds_lines_sha256_and_a_runs_topics(tmp_path):
    run = tmp_path / "a.run"
    run.write_text(RUN)
    record = file_record(run, topics=True)
    # 4 lines; topics in plain string order: "1" < "10" < "2"
    assert record == {
        "lines": 4,
        "sha256": hashlib.sha256(RUN.encode()).hexdigest(),
        "topics": ["1", "10", "2"],
    }
    assert "topics" not in file_record(run)


def test_an_input_that_changed_after_its_step_stops_the_reader(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.run").write_text(RUN)
    write_record("a.json", [], runs=["a.run"])
    assert verify_inputs(["a.run", "other.txt"], ["a.json"]) == 1  # only a.run is recorded
    # truncated at a line boundary: 3 lines where the record says 4
    (tmp_path / "a.run").write_text(RUN[: RUN.index("10 Q0")] + RUN[RUN.index("2 Q0") :])
    with pytest.raises(IntegrityError, match=r"^a\.run: 3 lines, recorded 4 in a\.json"):
        verify_inputs("a.run", "a.json")
    # same line count, one byte changed: the sha256 tells
    (tmp_path / "a.run").write_text(RUN.replace("2.0", "2.5"))
    with pytest.raises(IntegrityError, match=r"^a\.run: sha256 [0-9a-f]{64}, recorded"):
        verify_inputs(["a.run"], ["a.json"])
    assert damaged(["a.json"])[0][:1] == ("a.run",)
    (tmp_path / "a.run").unlink()
    with pytest.raises(IntegrityError, match="the file is missing"):
        verify_inputs(["a.run"], ["a.json"])
    assert damaged(["a.json"]) == []  # a missing file is regenerated, not damaged


def test_exports_are_checked_against_the_data_manifest(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = tmp_path / "results" / "data"
    data.mkdir(parents=True)
    (data / "qrels.txt").write_text("1 0 d1 1\n")
    digest = hashlib.sha256(b"1 0 d1 1\n").hexdigest()
    (data / "manifest.json").write_text(json.dumps({"exports_sha256": {"qrels.txt": digest}}))
    inputs, records = ["results/data/qrels.txt"], ["results/data/manifest.json"]
    assert verify_inputs(inputs, records) == 1
    (data / "qrels.txt").write_text("1 0 d1 2\n")
    with pytest.raises(IntegrityError, match=r"results/data/qrels\.txt: sha256 .* recorded "):
        verify_inputs(inputs, records)


def test_an_unreadable_record_is_an_error_naming_it(tmp_path):
    (tmp_path / "r.json").write_text("{")
    with pytest.raises(IntegrityError, match=r"r\.json: cannot read the record"):
        verify_inputs([], [tmp_path / "r.json"])


def test_publish_replaces_the_target_whole_and_records_it(tmp_path):
    staging, target, record = tmp_path / "s.md", tmp_path / "t.md", tmp_path / "t.json"
    staging.write_text("new\n")
    target.write_text("old\n")
    publish(staging, target, str(record))
    assert target.read_text() == "new\n"
    assert json.loads(record.read_text())["files"][str(target)]["lines"] == 1
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_topic_coverage_names_missing_and_unjudged_topics(tmp_path):
    qrels, run = tmp_path / "q.txt", tmp_path / "a.run"
    qrels.write_text("".join(f"{t} 0 d1 1\n" for t in range(1, 13)))
    run.write_text(RUN.replace("10 Q0", "99 Q0"))
    # run topics {1, 2, 99}; judged 1..12: 2 shared, 10 missing (3..12), 99 not judged
    assert topic_coverage(qrels, run) == (
        "covers 2 of the 12 judged topics; 10 missing: 3, 4, 5, 6, 7, 8, 9, 10, 11, 12; "
        "1 not judged: 99"
    )
    run.write_text("".join(f"{t} Q0 d1 1 1.0 t\n" for t in range(1, 13)))
    assert topic_coverage(qrels, run) is None
