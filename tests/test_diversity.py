"""The diversity measures (ndeval's alpha-nDCG, ERR-IA, NRBP, P-IA, subtopic recall) and
subtopic qrels (`topic subtopic docno grade`), recognised by content.

Hand-worked values first (the arithmetic written out), then the readers, then a
property check against pyndeval (ndeval.c wrapped for Python) on generated
collections with ties, unjudged documents, negative grades and missing topics.
"""

from __future__ import annotations

import math
import random
import warnings

import pandas as pd
import pytest

import irscore
from irscore.engine.reading import trec
from irscore.engine.reading.errors import InputError

# Topic 1 has three subtopics: a (A relevant, E judged not), b (B and D relevant; A
# judged not), c (C). The run ranks A, D, E, B (scores descending).
QRELS = "1 a A 1\n1 b B 1\n1 b D 1\n1 c C 1\n1 a E 0\n1 b A 0\n"
RUN = "1 Q0 A 1 9.3 r\n1 Q0 D 2 8.4 r\n1 Q0 E 3 8.1 r\n1 Q0 B 4 7.6 r\n"
ALL = ["alpha_ndcg", "err_ia", "nrbp", "p_ia", "strec"]


def values(tmp_path, qrels: str, run: str, measures, **kw) -> dict[str, float]:
    """{measure: value} of topic `all` for inline TREC texts, through the file readers."""
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    table = irscore.evaluate(tmp_path / "q", tmp_path / "r", measures, per_topic=False, **kw)
    return dict(zip(table["measure"], table["value"], strict=True))


def test_hand_worked_topic(tmp_path):
    v = values(tmp_path, QRELS, RUN, ALL)
    # novelty gains (alpha 0.5): A covers a: 1; D covers b: 1; E nothing: 0; B covers b a
    # second time: 0.5. N = 3 subtopics.
    dcg5 = 1 / math.log2(2) + 1 / math.log2(3) + 0 + 0.5 / math.log2(5)
    # greedy ideal: rank 1 ties A, B, C, D at 1 -> the greatest docno, D (b now 0.5);
    # rank 2 ties A and C at 1 -> C; then A (1), B (0.5), E (0)
    ideal5 = 1 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4) + 0.5 / math.log2(5)
    assert v["alpha_ndcg_5"] == pytest.approx(dcg5 / ideal5, abs=1e-12)  # 0.786896
    assert v["alpha_ndcg_20"] == pytest.approx(dcg5 / ideal5, abs=1e-12)  # nothing below 5
    # ERR-IA@5: (1/1 + 1/2 + 0/3 + 0.5/4) over 3 * (1 + 0.5/2 + 0.25/3 + 0.125/4 + 0.0625/5)
    err5 = (1 + 1 / 2 + 0.5 / 4) / (3 * (1 + 0.5 / 2 + 0.25 / 3 + 0.125 / 4 + 0.0625 / 5))
    assert v["err_ia_5"] == pytest.approx(err5, abs=1e-12)  # 0.393343
    # NRBP: (1 - (1 - 0.5) * 0.5) / 3 * (1 + 1 * 0.5 + 0 * 0.25 + 0.5 * 0.125) = 0.390625
    assert v["nrbp"] == pytest.approx(0.75 / 3 * 1.5625, abs=1e-15)
    # P-IA@k: 3 (document, subtopic) coverings over k * 3, k dividing though 4 were ranked
    assert v["p_ia_5"] == pytest.approx(3 / 15) and v["p_ia_20"] == pytest.approx(3 / 60)
    # subtopic recall: a and b of 3
    assert v["strec_5"] == pytest.approx(2 / 3) and v["strec_10"] == pytest.approx(2 / 3)


def test_ndeval_greedy_ideal_can_be_beaten(tmp_path):
    """ndeval's ideal is greedy, ties to the greatest docno: a run can score above 1."""
    qrels = "1 a m 1\n1 b m 1\n1 c n 1\n1 d n 1\n1 a o 1\n1 c o 1\n"
    run = "1 Q0 m 1 3 r\n1 Q0 n 2 2 r\n1 Q0 o 3 1 r\n"
    v = values(tmp_path, qrels, run, ["alpha_ndcg.3"])
    # run: m covers a, b: 2; n covers c, d: 2; o covers a and c again: 0.5 + 0.5 = 1
    dcg = 2 + 2 / math.log2(3) + 1 / math.log2(4)
    # greedy: m, n, o tie at 2 -> o (a, c now 0.5); m = 0.5 + 1 and n = 0.5 + 1 tie -> n
    # (c now 0.25, d 0.5); then m = 0.5 + 1 (a once, b never covered): 2, 1.5, 1.5
    ideal = 2 + 1.5 / math.log2(3) + 1.5 / math.log2(4)
    assert v["alpha_ndcg_3"] == pytest.approx(dcg / ideal, abs=1e-12)
    assert v["alpha_ndcg_3"] > 1  # 1.0177: the order m, n, o beats the greedy ideal


def test_topics_without_relevant_subtopics_and_missing_topics(tmp_path):
    qrels = QRELS + "2 a X 0\n3 a Y 1\n"  # topic 2: nothing relevant (N = 0); topic 3: no run
    run = RUN + "2 Q0 X 1 1 r\n"
    with pytest.warns(UserWarning, match="no results for 1 judged topic"):
        v = values(tmp_path, qrels, run, ["strec.5"])
    assert v["strec_5"] == pytest.approx((2 / 3 + 0) / 2)  # topics 1 and 2
    with pytest.warns(UserWarning, match="no results for 1 judged topic"):
        v = values(tmp_path, qrels, run, ["strec.5"], convention={"topics": "all_qrels"})
    assert v["strec_5"] == pytest.approx((2 / 3 + 0 + 0) / 3)  # -c: topic 3 scores 0


def test_plain_qrels_is_one_subtopic_per_topic(tmp_path):
    qrels = "1 0 A 1\n1 0 B 1\n1 0 C 0\n"
    run = "1 Q0 C 1 3 r\n1 Q0 A 2 2 r\n1 Q0 B 3 1 r\n"
    v = values(tmp_path, qrels, run, ["alpha_ndcg.3", "strec.1,2", "nrbp.alpha=0.5,beta=0.8"])
    # gains 0, 1, 0.5; the ideal A or B then the other: 1, 0.5
    dcg = 1 / math.log2(3) + 0.5 / math.log2(4)
    assert v["alpha_ndcg_3"] == pytest.approx(dcg / (1 + 0.5 / math.log2(3)), abs=1e-12)
    assert v["strec_1"] == 0 and v["strec_2"] == 1
    # NRBP (beta 0.8): (1 - 0.5 * 0.8) / 1 * (0 + 1 * 0.8 + 0.5 * 0.64) = 0.6 * 1.12
    assert v["nrbp_alpha=0.5,beta=0.8"] == pytest.approx(0.6 * 1.12, abs=1e-12)


def test_ranking_follows_the_convention(tmp_path):
    """Ties are broken as the convention says; -M cuts; -J drops the unjudged first."""
    qrels = "1 a A 1\n1 b B 1\n"
    run = "1 Q0 A 1 1 r\n1 Q0 B 2 1 r\n1 Q0 U 3 2 r\n"  # U (unjudged) first, then A = B
    # reference: docno descending, B then A; strec@2 = 1/2 (U, B)
    assert values(tmp_path, qrels, run, ["strec.2"])["strec_2"] == 0.5
    v = values(tmp_path, qrels, run, ["strec.2"], convention={"unjudged": "removed"})
    assert v["strec_2"] == 1.0  # -J: B, A
    v = values(tmp_path, qrels, run, ["p_ia.1"], convention={"depth": 1})
    assert v["p_ia_1"] == 0.0  # -M 1: U only


def test_beside_a_diversity_measure_the_others_read_the_highest_grade(tmp_path, capsys):
    with pytest.warns(UserWarning, match="q: second column read as subtopics"):
        v = values(tmp_path, QRELS, RUN, ["map", "num_rel", "strec.2"])
    # A, B, C, D relevant (A is relevant to a, not to b); AP = (1/1 + 2/2 + 3/4) / 4
    assert v["num_rel"] == 4 and v["map"] == pytest.approx(2.75 / 4)
    from irscore.cli import main

    q, r = str(tmp_path / "q"), str(tmp_path / "r")
    assert main(["evaluate", "-m", "map", "-m", "strec.2", q, r]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("map                   \tall\t0.6875\n")
    assert "irscore: note: " in err and "read each document's highest grade" in err
    assert main(["evaluate", "-m", "strec", q, r]) == 0
    assert "note" not in capsys.readouterr().err  # the diversity measures alone: nothing


def test_without_a_diversity_measure_the_second_column_is_trec_eval_s(tmp_path, capsys):
    """trec_eval ignores the second column and refuses a document judged twice for a
    topic: so does irscore when no diversity measure reads the subtopics."""
    judged_twice = r"q:6: document A is judged twice for topic 1 \(a subtopic qrels"
    with pytest.raises(trec.TrecFormatError, match=judged_twice):
        values(tmp_path, QRELS, RUN, ["map"])
    from irscore.cli import main

    assert main(["evaluate", "-m", "map", str(tmp_path / "q"), str(tmp_path / "r")]) != 0
    assert "document A is judged twice for topic 1" in capsys.readouterr().err
    # TREC-COVID numbers its rounds in the second column: without a repeat, it is ignored.
    # Run A (relevant), D, E, B (not judged): AP = (1/1) / 1 = 1, no note.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = values(tmp_path, "1 0.5 A 1\n1 2 B 0\n", RUN, ["map", "num_rel"])
    assert v == {"map": 1.0, "num_rel": 1.0}


def test_subtopic_qrels_recognised_by_content(tmp_path):
    path = tmp_path / "q"
    path.write_text(QRELS)
    records = trec.read_qrels_records(path)
    assert "second column read as subtopics" in records.describe()
    frame = records.frame()
    assert list(frame.columns) == ["topic", "docno", "grade", "subtopic"]
    path.write_text("1 a A 1\n1 b B 0\n")  # no document judged twice: still subtopics
    assert list(trec.read_qrels(path)["subtopic"]) == ["a", "b"]
    path.write_text("1 0 A 1\n1 0 B 0\n")  # one value: TREC's iteration column
    assert "subtopic" not in trec.read_qrels(path).columns


def test_judged_twice_in_one_subtopic_is_an_error(tmp_path):
    path = tmp_path / "q"
    path.write_text("1 a A 1\n1 b A 0\n# note\n1 a A 0\n")
    with pytest.raises(trec.TrecFormatError) as err:
        trec.read_qrels(path)
    assert "q:4: document A is judged twice for topic 1 subtopic a (first on line 1)" in str(
        err.value
    )
    path.write_text("1 0 A 1\n1 0 A 0\n")  # a plain qrels says what it said before
    with pytest.raises(trec.TrecFormatError, match=r"q:2: document A is judged twice for topic 1 "):
        trec.read_qrels(path)


def test_api_subtopic_inputs():
    nested = {"1": {"a": {"A": 1, "E": 0}, "b": {"B": 1, "D": 1, "A": 0}, "c": {"C": 1}}}
    run = {"1": {"A": 9.3, "D": 8.4, "E": 8.1, "B": 7.6}}
    table = irscore.evaluate(nested, run, ["err_ia.5"], per_topic=False)
    assert table["value"].iloc[0] == pytest.approx(0.39334341906202724, abs=1e-12)
    frame = pd.DataFrame(
        [("1", "a", "A", 1), ("1", "a", "A", 0)],
        columns=["query_id", "subtopic_id", "doc_id", "relevance"],
    )
    twice = "row 1: document A is judged twice for topic 1 subtopic a"
    with pytest.raises(InputError, match=twice):
        irscore.evaluate(frame, run, ["err_ia.5"])
    with pytest.raises(InputError, match="subtopic 'b' of topic '1' maps to <class 'int'>"):
        irscore.evaluate({"1": {"a": {"A": 1}, "b": 3}}, run, ["err_ia.5"])


def test_no_expected_form(tmp_path):
    with pytest.warns(UserWarning, match="no form under tie_expected: alpha_ndcg, strec"):
        values(tmp_path, QRELS, RUN, ["alpha_ndcg.5", "strec.5"], convention="tie_expected")


# pyndeval's names of irscore's measures, at the cut-offs it accepts (at most 20; at 1,
# ndeval leaves ERR-IA unnormalised, irscore does not: docs/conventions.md)
PEER = {
    **{f"alpha_ndcg_{k}": f"alpha-nDCG@{k}" for k in (1, 2, 3, 5, 10, 20)},
    **{f"err_ia_{k}": f"ERR-IA@{k}" for k in (2, 3, 5, 10, 20)},
    **{f"p_ia_{k}": f"P-IA@{k}" for k in (1, 2, 3, 5, 10, 20)},
    **{f"strec_{k}": f"strec@{k}" for k in (1, 2, 3, 5, 10, 20)},
    "nrbp": "NRBP",
    **{f"nerr_ia_{k}": f"nERR-IA@{k}" for k in (2, 3, 5, 10, 20)},
    "nnrbp": "nNRBP",
    "ap_ia": "MAP-IA",
}
REQUESTS = ["alpha_ndcg.1,2,3,5,10,20", "err_ia.2,3,5,10,20", "p_ia.1,2,3,5,10,20"]
REQUESTS += ["strec.1,2,3,5,10,20", "nrbp", "nerr_ia.2,3,5,10,20"]
REQUESTS += ["nnrbp", "ap_ia"]


def _generated(seed: int):
    """Subtopic qrels and a run: ties, unjudged and negative-graded documents, a run topic
    without judgments, a judged topic without results, topics with nothing relevant."""
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(rng.randint(3, 25))]
    qrels, run = [], []
    for t in range(1, rng.randint(2, 6)):
        subtopics = [str(s) for s in range(rng.randint(1, 5))]
        if rng.random() < 0.9:
            for doc in rng.sample(docs, rng.randint(1, len(docs))):
                for s in rng.sample(subtopics, rng.randint(1, len(subtopics))):
                    qrels.append((str(t), s, doc, rng.choice([-1, 0, 0, 1, 1, 2])))
        if rng.random() < 0.9:
            for doc in rng.sample(docs, rng.randint(1, len(docs))):
                run.append((str(t), doc, rng.choice([0.5, 1.0, 1.5, 2.0, 0.25])))
    qrels = qrels or [("1", "0", docs[0], 1)]
    run = run or [("1", docs[0], 1.0)]
    return qrels, run


def test_equals_pyndeval_on_generated_collections():
    pyndeval = pytest.importorskip("pyndeval")
    # pyndeval ranks by score (double) descending, then docno ascending
    convention = {"tie_break": "docno_asc", "score_precision": "float64"}
    compared = 0
    for seed in range(40):
        qrels, run = _generated(seed)
        peer = pyndeval.ndeval(qrels, run, measures=list(PEER.values()))
        q = pd.DataFrame(qrels, columns=["topic", "subtopic", "docno", "grade"])
        r = pd.DataFrame(run, columns=["topic", "docno", "score"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the overlap checks: topics without judgments
            table = irscore.evaluate(q, r, REQUESTS, convention=convention)
        mine = table[table["topic"] != "all"]
        columns = mine["topic"], mine["measure"], mine["value"]
        got = {(t, m): v for t, m, v in zip(*columns, strict=True)}
        assert {t for t, _ in got} == set(peer), seed
        for topic, measures in peer.items():
            for name, theirs in PEER.items():
                value = measures[theirs]
                if name == "nnrbp" and math.isnan(value):  # ndeval's 0/0: irscore's 0
                    value = 0.0
                assert got[topic, name] == pytest.approx(value, abs=1e-9), (seed, topic, name)
                compared += 1
    assert compared > 1000


def test_err_ia_at_1_is_normalised(tmp_path):
    """ndeval (and pyndeval) print ERR-IA@1 = 1.0 here, its rank 1 unnormalised."""
    v = values(tmp_path, QRELS, RUN, ["err_ia.1"])
    assert v["err_ia_1"] == pytest.approx(1 / 3)  # A's gain 1 over N = 3 subtopics covered


def test_the_workflow_config_names_no_diversity_measure():
    from irscore.engine.measures import MeasureError, spec_from_config

    with pytest.raises(MeasureError, match="alpha_ndcg are diversity measures"):
        spec_from_config({"families": ["map", "alpha_ndcg"]})


# ir_measures' names of the same measures (its pyndeval provider), in its default pipeline
IR_MEASURES = ["ERR_IA@20", "ERR_IA(rel=2)@5", "alpha_nDCG@20", "alpha_nDCG@5", "NRBP"]
IR_MEASURES += ["NRBP(alpha=0.25,beta=0.8)", "P_IA@10", "P_IA(rel=2)@3", "StRecall@10"]
IR_MEASURES += ["nERR_IA@5", "nERR_IA(rel=2)@10", "AP_IA", "AP_IA(rel=2)"]


def test_ir_measures_names_equal_ir_measures_on_generated_collections():
    ir_measures = pytest.importorskip("ir_measures")
    compared = 0
    for seed in range(25):
        qrels, run = _generated(seed)
        irm_qrels = [ir_measures.Qrel(t, d, g, s) for t, s, d, g in qrels]
        irm_run = [ir_measures.ScoredDoc(t, d, s) for t, d, s in run]
        measures = [ir_measures.parse_measure(name) for name in IR_MEASURES]
        # one measure a call: pyndeval's evaluator hands its sorted run (a generator) to
        # each invocation (rel, alpha, beta) in turn, and the second finds it used up
        theirs = {
            (m.query_id, str(m.measure)): m.value
            for measure in measures
            for m in ir_measures.iter_calc([measure], irm_qrels, irm_run)
        }
        q = pd.DataFrame(qrels, columns=["topic", "subtopic", "docno", "grade"])
        r = pd.DataFrame(run, columns=["topic", "docno", "score"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = irscore.evaluate(q, r, IR_MEASURES)
        mine = {
            (t, m): v
            for t, m, v in zip(table["topic"], table["measure"], table["value"], strict=True)
        }
        for (topic, name), value in theirs.items():
            assert mine.get((topic, name), 0.0) == pytest.approx(value, abs=1e-9), (
                seed,
                topic,
                name,
            )
            compared += 1
        for measure in measures:
            value = ir_measures.calc_aggregate([measure], irm_qrels, irm_run)[measure]
            assert mine["all", str(measure)] == pytest.approx(value, abs=1e-9), (seed, measure)
    assert compared > 500
