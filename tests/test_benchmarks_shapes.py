"""benchmarks/shapes.py cannot rot: its inputs have the shapes its docs claim, and a
--quick run on two shapes checks, times and reports them (a few seconds)."""

from __future__ import annotations

import importlib
import itertools
import json
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
TREC_EVAL = Path("/opt/trec_eval/trec_eval-9.0.8")


@pytest.fixture
def bench(monkeypatch):
    """The benchmark modules, imported as the scripts import each other."""
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))
    return importlib.import_module("shape_inputs"), importlib.import_module("shapes")


def lines(path: Path) -> list[list[str]]:
    """A TREC file's lines, split on whitespace."""
    return [line.split() for line in path.read_text().splitlines()]


def judgments(path: Path) -> dict[str, dict[str, int]]:
    """{topic: {docno: grade}}, failing on a repeated (topic, docno)."""
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for topic, iteration, docno, grade in lines(path):
        assert iteration == "0" and docno not in out[topic]
        out[topic][docno] = int(grade)
    return out


def ranked(path: Path) -> dict[str, list[tuple[str, float]]]:
    """{topic: [(docno, score) in file order]}, failing on a repeated (topic, docno)."""
    out: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for topic, q0, docno, _rank, score, _tag in lines(path):
        assert q0 == "Q0"
        out[topic].append((docno, float(score)))
    for topic, docs in out.items():
        assert len({d for d, _ in docs}) == len(docs), f"repeated docno in topic {topic}"
    return out


def test_marco_has_numeric_ids_and_about_one_relevant_per_query(bench, tmp_path):
    top100, top1000 = bench[0].marco(tmp_path, 300)
    qrels, run = judgments(top100.qrels), ranked(top1000.runs[0])
    assert len(run) == 300 and top1000.lines == 300_000 and top100.lines == 30_000
    assert all(len(docs) == 1000 for docs in run.values())
    docnos = {int(d) for docs in run.values() for d, _ in docs}  # numeric, or int() fails
    assert max(docnos) < 8_841_823 and max(docnos) > 8_000_000
    assert {g for q in qrels.values() for g in q.values()} == {1}
    assert 1.0 < sum(map(len, qrels.values())) / len(qrels) < 1.12  # MS MARCO dev: 1.06
    assert ranked(top100.runs[0]) == {t: docs[:100] for t, docs in run.items()}
    retrieved = sum(d in dict(run[t]) for t, q in qrels.items() for d in q)
    assert 0.78 < retrieved / sum(map(len, qrels.values())) < 0.94  # 86% found in the top 1,000


def test_trec_dl_runs_share_graded_qrels_of_about_215_per_topic(bench, tmp_path):
    inputs = bench[0].trec_dl(tmp_path, runs=3)
    qrels = judgments(inputs.qrels)
    assert len(qrels) == 43 and 190 < sum(map(len, qrels.values())) / 43 < 240
    grades = Counter(g for q in qrels.values() for g in q.values())
    assert sorted(grades) == [0, 1, 2, 3] and grades[0] > grades[2] > grades[3]
    assert len(inputs.runs) == 3 and inputs.lines == 3 * 43_000
    runs = [ranked(path) for path in inputs.runs]
    assert all(set(run) == set(qrels) for run in runs) and runs[0] != runs[1]


def test_marco_v2_is_marco_with_v2_docnos_one_for_one(bench, tmp_path):
    """73 is file 73 % 70 = 3 at offset 73 // 70 x 1009 = 1009."""
    assert list(bench[0].v2_docnos(np.array([0, 73]))) == [
        "msmarco_passage_00_0",
        "msmarco_passage_03_1009",
    ]
    numeric, v2 = bench[0].marco(tmp_path, 50)[1], bench[0].marco(tmp_path, 50, v2=True)[1]
    for old, new in ((numeric.qrels, v2.qrels), (numeric.runs[0], v2.runs[0])):
        rows, long_rows = lines(old), lines(new)
        mapped = bench[0].v2_docnos(np.array([int(r[2]) for r in rows]))
        assert [r[2] for r in long_rows] == list(mapped)
        assert [r[:2] + r[3:] for r in rows] == [r[:2] + r[3:] for r in long_rows]
    docnos = [d for docs in ranked(v2.runs[0]).values() for d, _ in docs]
    assert len({len(d) for d in docnos}) > 3  # of different lengths, as v2's are


def test_trec_dl_runs_of_200(bench, tmp_path):
    inputs = bench[0].trec_dl(tmp_path, runs=2, depth=200)
    assert inputs.lines == 2 * 43 * 200 and inputs.runs[0].name == "dl200.run0001"
    assert all(len(docs) == 200 for docs in ranked(inputs.runs[1]).values())


def test_robust04_has_newswire_docnos_and_deep_qrels(bench, tmp_path):
    topics = bench[0].ROBUST04_TOPICS
    assert len(topics) == 249 and 672 not in topics and {301, 450, 601, 700} <= set(topics)
    inputs = bench[0].robust04(tmp_path, topics=30)
    qrels, run = judgments(inputs.qrels), ranked(inputs.runs[0])
    assert list(run) == [str(t) for t in topics[:30]] and inputs.lines == 30_000
    assert 1100 < sum(map(len, qrels.values())) / 30 < 1400
    style = re.compile(r"FBIS[34]-\d+|FR94\d{4}-\d-\d{5}|FT9\d\d-\d+|LA\d{6}-\d{4}")
    docnos = [d for docs in run.values() for d, _ in docs] + [d for q in qrels.values() for d in q]
    assert all(style.fullmatch(d) for d in docnos)
    assert {d[:2] for d in docnos} == {"FB", "FR", "FT", "LA"}


def test_beir_shape_has_its_awkward_cases(bench, tmp_path):
    inputs = bench[0].beir(tmp_path, judged_topics=300)
    qrels, run = judgments(inputs.qrels), ranked(inputs.runs[0])
    assert len(qrels) == 300 and all(t.startswith("PLAIN-") for t in qrels)
    assert all(len(d) == 8 for docs in run.values() for d, _ in docs)
    assert len(set(qrels) - set(run)) == 10  # judged topics without results
    assert len(set(run) - set(qrels)) == 5  # results without judgments
    no_relevant = sum(max(q.values()) == 0 and t in run for t, q in qrels.items())
    assert no_relevant >= 15  # 15 on purpose, and some by chance
    topics = [line[0] for line in lines(inputs.runs[0])]
    changes = sum(a != b for a, b in itertools.pairwise(topics))
    assert changes > len(topics) / 2  # not grouped by topic
    float32_only = 0
    for docs in run.values():
        scores = np.array([s for _, s in docs])
        same32 = scores[:, None].astype(np.float32) == scores[None, :].astype(np.float32)
        float32_only += int((same32 & (scores[:, None] != scores[None, :])).sum()) // 2
    assert float32_only > 1000


def test_one_document_and_one_topic(bench, tmp_path):
    many = ranked(bench[0].one_document(tmp_path, 5000).runs[0])
    assert len(many) == 5000 and all(len(docs) == 1 for docs in many.values())
    one = bench[0].one_topic(tmp_path, 50_000)
    run = ranked(one.runs[0])
    assert list(run) == ["1"] and len(run["1"]) == 50_000 == one.lines
    assert len(judgments(one.qrels)["1"]) == 3000


def test_row_marks_crashes_and_missed_targets(bench):
    result = {
        "label": "x",
        "lines": 1000,
        "identity": {"-q -m all_trec": "identical", "-c -m official": "irscore crashed (exit 1)"},
        "failures": {"irscore": "exit 1: boom"},
        "tools": {"trec_eval": {"wall": 0.5, "peak": 10.0}},
        "speed_target": 0.5,
        "speed_met": False,
        "memory_target": None,
    }
    assert bench[1].row(result) == (
        "| x | 1,000 | identical | **irscore crashed (exit 1)** | **crash** | 0.50 | - | - "
        "| <= 0.5x: **not met** | - : 10 : - | - |"
    )


@pytest.mark.allowed_skip(reason="trec_eval 9.0.8 is built outside the repository")
def test_quick_matrix_checks_times_and_writes_json(bench, tmp_path, capsys):
    if not TREC_EVAL.exists():
        pytest.skip(f"no {TREC_EVAL}")
    out = tmp_path / "shapes.json"
    argv = ["--quick", "--only", "dl,beir,dl100runs", "--repeat", "1", "--no-api"]
    results = bench[1].main([*argv, "--out", str(out), "--folder", str(tmp_path / "in")])
    assert [r["shape"] for r in results] == ["dl", "beir", "dl100runs"]
    figures = json.loads(out.read_text())
    assert figures["shapes"] == results
    floor = figures["floor"]  # the start-up floor, timed in TREC DL's rounds
    assert floor["shape"] == "dl" and list(floor["steps"]) == list(bench[1].FLOOR)
    steps = floor["steps"]  # each step costs more than the one before
    assert 0 < steps["Python"]["peak"] < steps["+ numpy and pyarrow"]["peak"]
    assert "timed in the rounds of `dl`" in bench[1].floor_line(floor)
    for result in results:
        assert set(result["identity"].values()) == {"identical"}, result["identity"]
        assert set(result["tools"]) == {"irscore", "trec_eval", "pytrec_eval"}
        assert not result["failures"] and result["ratio"] > 0
    assert results[2]["runs"] == 5
    table = capsys.readouterr().out
    assert table.count("| identical | identical |") == 3


def test_settle_libraries_counts_each_file_it_drops_and_no_other(bench, tmp_path):
    measuring = importlib.import_module("measuring")
    libraries, kept = measuring.settle_libraries()
    assert libraries > 0  # pytrec_eval's and pyarrow's extensions at least
    # numpy is loaded here (this module imports it): its pages stay cached while mapped,
    # so its extension is reported as kept rather than counted as dropped
    multiarray = Path(np._core._multiarray_umath.__file__)
    assert str(multiarray) in kept
    binary = tmp_path / "trec_eval"
    binary.write_bytes(b"\0" * 4096)
    # one more for a binary it can open; an unreadable path is left alone, not counted
    assert measuring.settle_libraries(str(binary)) == (libraries + 1, kept)
    assert measuring.settle_libraries(str(tmp_path / "absent")) == (libraries, kept)
    assert measuring.settle_libraries("") == (libraries, kept)


def test_the_matrix_maps_no_numpy_before_it_settles_the_libraries():
    # shape_inputs loads numpy and pyarrow; shapes.py imports it only to build inputs,
    # after settle_libraries, or their libraries' pages could not be dropped
    code = "import sys; import shapes; print(sorted({'numpy', 'pyarrow'} & set(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO / "benchmarks",
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout == "[]\n"


FORKING = """
import os, sys, time
held = b"x" * (200 << 20)  # 200 MiB written by the parent
pid = os.fork()
if pid == 0:
    own = b"y" * ({child} << 20) if {child} else b""  # the child's own pages
    time.sleep(1.0)
    os._exit(0)
os.waitpid(pid, 0)
"""


@pytest.mark.skipif(not Path("/proc/self/smaps_rollup").exists(), reason="needs Linux's /proc")
@pytest.mark.parametrize("child", [0, 100])
def test_a_fork_adds_its_own_pages_not_those_it_shares(bench, child):
    """Parent 200 MiB, its fork sharing them and writing `child` MiB of its own: the
    group's peak is about 200 + child (it was 400 + child when each process's resident
    memory was added whole)."""
    measuring = importlib.import_module("measuring")
    _, peak = measuring.timed([sys.executable, "-c", FORKING.format(child=child)])
    base = 200 + child
    assert base < peak < base + 100, peak  # each process whole: 400 + child


def test_v2_ratio_by_hand(monkeypatch):
    """Issue 48 item 5's figure: irscore 11.5 s on marco1000v2 over 10 s on marco1000 is
    1.15 (met); irscore / trec_eval 11.5 / 20 = 0.575 over 10 / 25 = 0.4 is 1.4375, and
    trec_eval's own 20 / 25 = 0.8. Without both rows there is none."""
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))
    v2_ratio = importlib.import_module("v2_ratio")

    def row(shape, ours, theirs):
        tools = {"irscore": {"wall": ours}, "trec_eval": {"wall": theirs}}
        return {"shape": shape, "tools": tools, "ratio": ours / theirs}

    rows = [row("marco1000", 10.0, 25.0), row("marco1000v2", 11.5, 20.0)]
    figures = v2_ratio.figures(rows)
    assert figures["v2_ratio"] == pytest.approx(1.15)
    assert figures["met"]
    assert figures["v2_ratio_of_trec_eval_ratios"] == pytest.approx(1.4375)
    assert figures["trec_eval_v2_ratio"] == pytest.approx(0.8)
    assert "1.150x, target <= 1.15x: met" in v2_ratio.line(figures)
    assert v2_ratio.figures(rows[:1]) is None
    # in interleaved pairs (v2 over numeric, pair by pair): 1.10, 1.30 and 1.12, whose
    # median 1.12 is the verdict's, the rows' 1.15 kept beside it
    paired = v2_ratio.figures(rows, [1.10, 1.30, 1.12])
    assert paired["v2_ratio"] == pytest.approx(1.12) and paired["met"]
    assert paired["rows_ratio"] == pytest.approx(1.15)
    assert "median of 3 interleaved pairs): 1.120x, target <= 1.15x: met" in v2_ratio.line(paired)
    assert "pairs 1.100-1.300x; the rows' medians: 1.150x" in v2_ratio.line(paired)
    assert not v2_ratio.figures(rows, [1.2, 1.16, 1.3])["met"]


def test_v2_pairs_divide_each_rounds_v2_wall_by_its_numeric_wall(monkeypatch):
    """`v2_ratio.paired` times the two commands in `measuring.interleaved`'s rounds and
    divides round by round: walls 10, 12 (numeric) and 11, 15 (v2) give 1.1 and 1.25."""
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))
    v2_ratio = importlib.import_module("v2_ratio")
    measuring = importlib.import_module("measuring")
    seen = {}

    def interleaved(tools, repeat):
        seen.update(tools=tools, repeat=repeat)
        walls = {"marco1000": [10.0, 12.0], "marco1000v2": [11.0, 15.0]}
        return {name: measuring.Samples(walls=walls[name], peaks=[0, 0]) for name in tools}

    monkeypatch.setattr(measuring, "interleaved", interleaved)
    assert v2_ratio.paired(["numeric"], ["v2"], 2) == pytest.approx([1.1, 1.25])
    assert seen == {"tools": {"marco1000": ["numeric"], "marco1000v2": ["v2"]}, "repeat": 2}
