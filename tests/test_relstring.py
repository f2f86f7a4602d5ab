"""trec_eval's relstring: the grades of the first N retrieved documents as one string.

The hand-worked cases write out each character as m_relstring.c and form_res_rels.c
(trec_eval 9.0.8; 10.0's are the same but for -c) derive it: the grade when it is
0-9, `>` above 9, `.` for a qrels line with a negative grade (form_res_rels.c turns
every negative grade into RELVALUE_UNJUDGED, so trec_eval's `<` never shows) and
`-` for a document without a qrels line. The property test compares irscore with a
plain reimplementation of those two files on generated runs with ties, unjudged
documents, negative grades and grades above 9; the golden files (tests/golden)
compare the printed lines with trec_eval's own.
"""

from __future__ import annotations

import io
import textwrap
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irscore.cli import main
from irscore.engine.evaluate import evaluate_one, evaluate_records
from irscore.engine.measures import MeasureSpec
from irscore.engine.output.trec_eval_text import lines
from irscore.engine.ranking.conventions import Convention
from irscore.engine.ranking.prepare import prepare

# topic 1 ranks a..k by score (10, 9, ..., 1, 0.5); topic 2 retrieves one document;
# topic 3 is judged but not retrieved; topic 4 is retrieved but not judged
QRELS = """\
    1 0 a 3
    1 0 c 0
    1 0 d -2
    1 0 e 12
    1 0 f -5
    1 0 g -1
    1 0 h 1
    2 0 x 1
    3 0 y 2
"""
RUN = """\
    1 Q0 a 1 10 run
    1 Q0 b 2 9 run
    1 Q0 c 3 8 run
    1 Q0 d 4 7 run
    1 Q0 e 5 6 run
    1 Q0 f 6 5 run
    1 Q0 g 7 4 run
    1 Q0 h 8 3 run
    1 Q0 i 9 2 run
    1 Q0 j 10 1 run
    1 Q0 k 11 0.5 run
    2 Q0 x 1 1 run
    4 Q0 x 1 1 run
"""
# topic 1, rank by rank: a 3 -> '3'; b no qrels line -> '-'; c 0 -> '0'; d -2 -> '.';
# e 12 > 9 -> '>'; f -5 -> '.' (not '<'); g -1 -> '.'; h 1 -> '1'; i, j no line -> '--';
# k is rank 11, beyond the default N = 10
TOPIC_1 = "3-0.>..1--"


@pytest.fixture
def evaluate(tmp_path):
    """evaluate(*flags, qrels=QRELS, run=RUN) -> (stdout, stderr) of `irscore evaluate`."""

    def run(*flags, qrels=QRELS, run=RUN):
        (tmp_path / "qrels").write_text(textwrap.dedent(qrels))
        (tmp_path / "run").write_text(textwrap.dedent(run))
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            status = main(["evaluate", *flags, str(tmp_path / "qrels"), str(tmp_path / "run")])
        assert status == 0, err.getvalue()
        # topics on one side only are this file's point: their warnings (checked in
        # test_input_faults.py) are left out of what the tests compare
        lines = err.getvalue().splitlines(keepends=True)
        return out.getvalue(), "".join(x for x in lines if not x.startswith("irscore: warning:"))

    return run


def line(topic: str, text: str, name: str = "relstring") -> str:
    """trec_eval's `%-22s\\t%s\\t'%s'\\n`."""
    return f"{name:<22s}\t{topic}\t'{text}'\n"


def test_each_grade_becomes_its_character(evaluate):
    out, err = evaluate("-q", "-m", "relstring")
    # topic 2: x (grade 1) -> '1', one document only; topics 3 and 4: no line (9.0.8)
    assert out == line("1", TOPIC_1) + line("2", "1")
    assert err == ""


def test_the_brief_s_ranking_has_no_less_than_sign(evaluate):
    # grades 3, unjudged, 0, -2, 12, -5: '3', '-', '0', '.', '>', '.' (-5 is "in the pool,
    # unjudged" like -2: form_res_rels.c maps every negative grade to RELVALUE_UNJUDGED)
    qrels = "1 0 a 3\n1 0 c 0\n1 0 d -2\n1 0 e 12\n1 0 f -5\n"
    run = "".join(f"1 Q0 {d} {i} {10 - i} r\n" for i, d in enumerate("abcdef", 1))
    out, _ = evaluate("-q", "-m", "relstring", qrels=qrels, run=run)
    assert out == line("1", "3-0.>.")  # 6 documents: shorter than N = 10, not padded


@pytest.mark.parametrize(
    ("request_", "name", "text"),
    [
        ("relstring.5", "relstring_5", TOPIC_1[:5]),  # "3-0.>"
        ("relstring.20", "relstring_20", TOPIC_1 + "-"),  # all 11 documents: k adds '-'
        ("relstring.5.7", "relstring_5.7", TOPIC_1[:5]),  # (long) 5.7 = 5, named as given
        ("relstring.1e1", "relstring_1e1", TOPIC_1),  # atof("1e1") = 10
        ("relstring.0", "relstring_0", ""),
        ("relstring.-3", "relstring_-3", ""),  # len < 0 -> 0
        ("relstring.1e30", "relstring_1e30", ""),  # (long) 1e30 is LONG_MIN on x86-64
    ],
)
def test_the_length_parameter(evaluate, request_, name, text):
    out, _ = evaluate("-q", "-m", request_)
    assert out.splitlines(keepends=True)[0] == line("1", text, name)


def test_the_first_parameters_count_as_in_trec_eval(evaluate):
    # trec_eval's init_meas takes the first `-m relstring.N` (and the first `-m P.N`)
    out, _ = evaluate("-q", "-m", "relstring.3", "-m", "relstring.5", "-m", "P.5", "-m", "P.10")
    assert out.splitlines()[:2] == [
        "P_5                   \t1\t0.4000",
        line("1", "3-0", "relstring_3")[:-1],
    ]


def test_judged_only_drops_the_unjudged_and_closes_up(evaluate):
    # -J keeps grades >= 0 in rank order: a 3, c 0, e 12, h 1 -> '3', '0', '>', '1'
    out, _ = evaluate("-q", "-J", "-m", "relstring")
    assert out == line("1", "30>1") + line("2", "1")


def test_depth_cuts_before_the_string(evaluate):
    out, _ = evaluate("-q", "-M", "3", "-m", "relstring")  # a, b, c
    assert out == line("1", "3-0") + line("2", "1")


def test_the_relevance_level_changes_nothing(evaluate):
    out, _ = evaluate("-q", "-l", "5", "-m", "relstring")  # grades, not relevance
    assert out == line("1", TOPIC_1) + line("2", "1")


def test_complete_topics_without_results(evaluate):
    # 9.0.8 prints no per-topic line for topic 3 (judged, not retrieved) under -c
    out, _ = evaluate("-q", "-c", "-m", "relstring")
    assert out == line("1", TOPIC_1) + line("2", "1")
    # 10.0 scores it on one stand-in document without a qrels line ('-'), then clears
    # the value named exactly `relstring` (trec_eval.c: clear_relstr) but not relstring_5
    out, _ = evaluate("--compat", "trec_eval10", "-q", "-c", "-m", "relstring")
    assert out == line("1", TOPIC_1) + line("2", "1") + line("3", "")
    out, _ = evaluate("--compat", "trec_eval10", "-q", "-c", "-m", "relstring.5")
    assert out.splitlines(keepends=True)[2] == line("3", "-", "relstring_5")
    out, _ = evaluate("--compat", "trec_eval10", "-q", "-c", "-J", "-m", "relstring.5")
    assert out.splitlines(keepends=True)[2] == line("3", "", "relstring_5")  # -J drops it


def test_no_summary_line_and_its_place_in_all_trec(evaluate):
    out, _ = evaluate("-q", "-m", "all_trec")
    names = [row.split("\t")[0].rstrip() for row in out.splitlines() if "\t1\t" in row]
    assert names[names.index("relstring") - 1] == "P_1000"  # after P, before recall
    assert names[names.index("relstring") + 1] == "recall_5"
    assert "relstring" not in [row.split()[0] for row in out.splitlines() if "\tall\t" in row]


def test_without_q_nothing_is_printed_and_a_named_request_gets_a_note(evaluate):
    out, err = evaluate("-m", "relstring", "-m", "map")
    assert "relstring" not in out
    assert err == "irscore: note: relstring is printed per topic only (-q)\n"
    out, err = evaluate("-m", "all_trec")  # trec_eval's own silence: no note
    assert "relstring" not in out and err == ""


@pytest.mark.parametrize("fmt", ["tsv", "json"])
def test_tables_leave_it_out_and_say_so(evaluate, fmt):
    out, err = evaluate("--format", fmt, "-q", "-m", "relstring", "-m", "map")
    assert "relstring" not in out and "map" in out
    assert "note: relstring is text" in err and "not computed" in err


def test_expected_ties_have_no_form_for_it(evaluate):
    out, err = evaluate("--tie-break", "expected", "-q", "-m", "relstring", "-m", "map")
    assert "relstring" not in out
    assert "note: relstring has no expected-value form; not computed" in err


def test_the_api_and_the_config_say_they_leave_it_out():
    import irscore
    from irscore.engine.measures import MeasureError, spec_from_config

    qrels, run = {"q1": {"a": 1}}, {"q1": {"a": 1.0, "b": 0.5}}
    with pytest.warns(UserWarning, match="relstring is text"):
        table = irscore.evaluate(qrels, run, measures=["relstring", "map"])
    assert set(table["measure"]) == {"map"}
    with pytest.raises(MeasureError, match="relstring is text"):
        spec_from_config({"families": ["relstring"]})


# ---------------------------------------------------------------- property test


def reference_relstring(qrels, run, n=10, depth=None, judged_only=False):
    """{topic: string}: m_relstring.c over form_res_rels.c, one topic at a time."""
    grades = {(t, d): g for t, d, g in qrels.itertuples(index=False)}
    out = {}
    for topic, docs in run.groupby("topic", sort=False):
        if topic not in set(qrels["topic"]):
            continue
        # comp_sim_docno: float score descending, then docno descending (strcmp): two
        # stable sorts, the tie-break first
        pairs = zip(docs["docno"], docs["score"].astype(np.float32), strict=True)
        by_docno = sorted(pairs, key=lambda pair: pair[0].encode(), reverse=True)
        ranked = sorted(by_docno, key=lambda pair: -pair[1])[:depth]
        rels = []
        for docno, _ in ranked:
            grade = grades.get((topic, docno))
            rels.append(-1 if grade is None else -2 if grade < 0 else grade)  # NONPOOL, UNJUDGED
        if judged_only:
            rels = [rel for rel in rels if rel >= 0]
        chars = {-1: "-", -2: "."}
        out[topic] = "".join(
            ">" if rel > 9 else str(rel) if rel >= 0 else chars[rel] for rel in rels[: max(n, 0)]
        )
    return out


@st.composite
def collections(draw):
    """qrels and run with exact and float32-only ties, unjudged documents, every kind of
    negative grade and grades above 9; docnos of different lengths."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    pool = [f"d{i}" for i in draw(st.lists(st.integers(0, 300), min_size=2, max_size=30))]
    pool = list(dict.fromkeys(pool))
    qrels_rows, run_rows = [], []
    for topic in ("1", "2", "10", "3"):
        for doc in rng.choice(pool, size=rng.integers(1, len(pool) + 1), replace=False):
            grade = int(rng.choice([-5, -2, -1, 0, 0, 1, 2, 3, 9, 10, 12]))
            qrels_rows.append((topic, str(doc), grade))
        retrieved = rng.choice(pool, size=rng.integers(1, len(pool) + 1), replace=False)
        scores = rng.choice([0.5, 1.0, 2.0, 3.0], size=len(retrieved))
        scores = np.where(rng.random(len(retrieved)) < 0.3, scores + 1e-9, scores)
        for rank, (doc, score) in enumerate(zip(retrieved, scores, strict=True), 1):
            run_rows.append((topic, str(doc), rank, float(score), "gen"))
    qrels = pd.DataFrame(qrels_rows, columns=["topic", "docno", "grade"])
    run = pd.DataFrame(run_rows, columns=["topic", "docno", "rank", "score", "tag"])
    return qrels, run


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    collections(),
    st.sampled_from([None, "3", "10", "25", "0"]),
    st.sampled_from([None, 1, 4]),
    st.booleans(),
)
def test_relstring_equals_a_plain_reimplementation(collection, text, depth, judged_only):
    qrels, run = collection
    convention = Convention(depth=depth, unjudged="removed" if judged_only else "nonrelevant")
    spec = (
        MeasureSpec(families={"relstring"})
        if text is None
        else MeasureSpec(families={"relstring"}, relstring=text)
    )
    values, topics, _, _ = evaluate_one(prepare(qrels, run), convention, spec, text=True)
    name = "relstring" if text is None else f"relstring_{text}"
    n = 10 if text is None else int(text)
    expected = reference_relstring(qrels, run, n, depth, judged_only)
    assert dict(zip(topics.tolist(), values[name].tolist(), strict=True)) == expected
    printed = b"".join(lines(values, topics, {}, None, per_topic=True)).decode().splitlines()
    assert printed == [f"{name:<22s}\t{t}\t'{expected[t]}'" for t in topics.tolist()]
    # the CLI's path: topics in chunks of about 5 run rows, the strings joined after
    values, topics, means, _ = evaluate_records(qrels, run, convention, spec, rows=5, text=True)
    assert dict(zip(topics.tolist(), values[name].tolist(), strict=True)) == expected
    assert means == {}  # no `all` value
