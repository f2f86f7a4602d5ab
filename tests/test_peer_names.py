"""ir_measures and ranx names: how they parse, what they print, and the measures they
brought (RR@k, Judged@k, binary RBP, nDCG@k under a gain map, F1@k, hits@k), each
worked out by hand. The values against the peers' own code: test_peer_values.py."""

from __future__ import annotations

import pytest

import irscore
from irscore.cli import main
from irscore.engine.measures import MeasureError
from irscore.engine.measures.groups import plan
from irscore.engine.measures.peer_names import parse_peer_name

# One topic, worked out by hand below: grades a 2, b 1, c 0, d -1 (unjudged for trec_eval,
# but it has a qrels line); the run ranks z (no judgment) a c d b.
QRELS = {"1": {"a": 2, "b": 1, "c": 0, "d": -1}, "2": {"x": 1}}
RUN = {"1": {"z": 5.0, "a": 4.0, "c": 3.0, "d": 2.0, "b": 1.0}}


def _means(measures, qrels=QRELS, run=RUN, **kwargs) -> dict[str, float]:
    table = irscore.evaluate(qrels, run, measures=measures, per_topic=False, **kwargs)
    return dict(zip(table["measure"].astype(str), table["value"], strict=True))


def _topic1(measures) -> dict[str, float]:
    """The values of topic 1 (topic 2 has no results)."""
    table = irscore.evaluate(QRELS, RUN, measures=measures)
    rows = table[table["topic"] == "1"]
    return dict(zip(rows["measure"].astype(str), rows["value"], strict=True))


def test_reciprocal_rank_at_k():
    # the first relevant document, a, is at rank 2: RR@1 = 0, RR@2 = RR@5 = 1/2
    values = _topic1(["recip_rank_cut.1,2,5"])
    assert values == {"recip_rank_cut_1": 0.0, "recip_rank_cut_2": 0.5, "recip_rank_cut_5": 0.5}


def test_hits_and_f1_at_k():
    # relevant (grade >= 1): a at rank 2, b at rank 5; R = 2
    values = _topic1(["hits.1,2,5", "F1.3"])
    assert values["hits_1"] == 0 and values["hits_2"] == 1 and values["hits_5"] == 2
    # F1@3: 1 hit, P = 1/3, R = 1/2, F1 = 2 * (1/6) / (1/3 + 1/2) = (1/3) / (5/6) = 0.4
    assert values["F1_3"] == pytest.approx(0.4, abs=1e-15)


def test_hits_are_averaged_not_summed():
    # topic 1 has hits@5 = 2, topic 2 (no results, -c as ranx's make_comparable) 0: mean 1
    assert _means(["hits@5"]) == {"hits@5": 1.0}


def test_judged_rate_counts_every_qrels_line_and_divides_by_what_was_retrieved():
    # top 2: z (no qrels line), a -> 1/2; top 10 of 5 retrieved: a c d b have qrels lines
    # (d's grade -1 too) -> 4/5, over the 5 retrieved, not over 10
    values = _topic1(["judged_rate.2,10", "judged.10"])
    assert values["judged_rate_2"] == 0.5 and values["judged_rate_10"] == 0.8
    # trec_eval-style judged_10: a c b are judged (d's -1 is not), over 10
    assert values["judged_10"] == pytest.approx(0.3)


def test_binary_rbp():
    # relevant at ranks 2 and 5: (1 - p)(p^1 + p^4); p = 0.5: 0.5 * (0.5 + 0.0625) = 0.28125
    assert _topic1(["rbp_bin.p=0.5"]) == {"rbp_bin_p=0.5": 0.28125}
    # -l 2: only a (rank 2) is relevant: 0.5 * 0.5 = 0.25
    table = irscore.evaluate(QRELS, RUN, measures="rbp_bin.p=0.5", convention={"rel_level": 2})
    assert table["value"].iloc[0] == 0.25


def test_ndcg_at_k_under_a_gain_map():
    # gains 0:0, 1:1, 2:3; ranks: z 0, a 3, c 0, d 0, b 1. DCG@3 = 3 / log2(3);
    # ideal: a 3, b 1: IDCG@3 = 3 / log2(2) + 1 / log2(3)
    import math

    dcg, ideal = 3 / math.log2(3), 3 + 1 / math.log2(3)
    values = _topic1(["ndcg_cut_gains.0=0,1=1,2=3@3,5"])
    assert values["ndcg_cut_gains_0=0,1=1,2=3@3"] == pytest.approx(dcg / ideal, abs=1e-12)
    # @5 adds b's 1 / log2(6) to the DCG; the ideal has only two documents
    at5 = (dcg + 1 / math.log2(6)) / ideal
    assert values["ndcg_cut_gains_0=0,1=1,2=3@5"] == pytest.approx(at5, abs=1e-12)


def test_peer_names_print_as_given_and_imply_their_convention():
    # topic 2 is judged but has no results: ir_measures and ranx average it as 0 (-c),
    # trec_eval's map leaves it out. AP(topic 1) = (1/2 + 2/5) / 2 = 0.45
    means = _means(["map", "AP", "map@100", "nDCG@10", "ndcg@10", "P(rel=2)@5"])
    # in the order asked (each under the convention its peer implies)
    assert list(means) == ["map", "AP", "map@100", "nDCG@10", "ndcg@10", "P(rel=2)@5"]
    assert means["map"] == pytest.approx(0.45)
    assert means["AP"] == pytest.approx(0.45 / 2) and means["map@100"] == means["AP"]
    assert means["nDCG@10"] == means["ndcg@10"]
    assert means["P(rel=2)@5"] == pytest.approx(1 / 5 / 2)  # a is the one grade >= 2


def test_rr_at_k_breaks_ties_as_msmarco_does():
    # a (relevant) and b tie: msmarco's RR@k sorts ascending by docno (a first, RR 1);
    # trec_eval's recip_rank descending (b first, RR 1/2)
    qrels, run = {"1": {"a": 1}}, {"1": {"a": 1.0, "b": 1.0}}
    assert _means(["RR@10", "recip_rank"], qrels, run) == {"recip_rank": 0.5, "RR@10": 1.0}


def test_trec_eval_names_keep_their_meaning():
    # bpref, map, Rprec, ndcg, recall: trec_eval's (one group, no convention change)
    groups = plan(["bpref", "map", "Rprec", "ndcg", "recall_10", "P_10", "ndcg_cut_10"])
    assert len(groups) == 1 and groups[0].changes == () and groups[0].renames is None


def test_parsed_names():
    rr = parse_peer_name("RR(rel=2)@10")
    assert (rr.family, rr.params, rr.printed, rr.peer) == (
        "recip_rank_cut",
        "10",
        "recip_rank_cut_10",
        "ir_measures",
    )
    assert dict(rr.changes)["rel_level"] == 2 and dict(rr.changes)["tie_break"] == "docno_asc"
    gains = parse_peer_name("nDCG(gains={0:0,1:1,2:3})@10")
    assert gains.printed == "ndcg_cut_gains_0=0,1=1,2=3@10"
    assert parse_peer_name("RBP(p=0.8)").printed == "rbp_p=0.8"
    assert parse_peer_name("RBP(rel=1)").printed == "rbp_bin_p=0.8"
    assert parse_peer_name("map@10-l2").changes == (
        ("rel_level", 2),
        ("score_precision", "float64"),
        ("topics", "all_qrels"),
    )
    assert parse_peer_name("f1").family == "set_F"
    assert parse_peer_name("no_such_name") is None


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("AP(foo=1)", "does not reproduce foo"),
        ("P", None),  # trec_eval's P family: accepted
        ("ERR", "needs a cut-off"),
        ("RBP(p=2)", "between 0 and 1"),
        ("ndcg@10-l2", "only for binary"),
        ("mrrr", "ranx syntax: mrr, "),
        ("AP", None),
    ],
)
def test_bad_names_are_errors_that_say_why(name, message):
    if message is None:
        plan([name])
        return
    with pytest.raises(MeasureError, match=message):
        plan([name])


def test_suggestions_no_longer_mislead():
    # AP and mrr are accepted; a misspelling of a peer name suggests the peer names
    with pytest.raises(MeasureError, match="nDCG@10"):
        plan(["nDGC@10"])


def test_cli_prints_the_names_given(tmp_path, capsys):
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 a 2\n1 0 b 1\n2 0 x 1\n")
    run.write_text("1 Q0 z 1 5 t\n1 Q0 a 2 4 t\n1 Q0 b 3 3 t\n")
    assert main(["evaluate", "-m", "map", "-m", "AP", "-m", "RR@1", str(qrels), str(run)]) == 0
    out = capsys.readouterr().out
    # map over topic 1: (1/2 + 2/3) / 2 = 0.5833; AP over topics 1 and 2: 0.2917
    assert out.splitlines() == [
        "map                   \tall\t0.5833",
        "AP                    \tall\t0.2917",
        "RR@1                  \tall\t0.0000",
    ]


def test_compare_takes_peer_names():
    qrels = {"1": {"a": 1}, "2": {"b": 1}, "3": {"c": 1}}
    run_a = {"1": {"a": 0.1, "x": 0.9}, "2": {"b": 0.1, "x": 0.9}, "3": {"c": 0.9}}
    run_b = {q: {d: 1.0 - s for d, s in docs.items()} for q, docs in run_a.items()}
    table = irscore.compare(qrels, run_a, run_b, measures=["RR@1", "mrr"], tests="t")
    # A: RR@1 0, 0, 1 (mean 1/3); B: 1, 1, 1
    row = table[table["measure"] == "RR@1"].iloc[0]
    assert (round(row["mean_a"], 4), row["mean_b"]) == (0.3333, 1.0)
    assert list(table["measure"]) == ["RR@1", "mrr"]


def test_measures_lists_every_name_family(capsys):
    listing = irscore.measures()
    assert list(listing.columns) == ["name", "measure", "parameters", "provenance", "convention"]
    provenance = set(listing["provenance"])
    assert {"trec_eval 9/10", "trec_eval 10", "irscore", "ranx"} <= provenance
    assert "ir_measures (msmarco)" in provenance
    assert main(["measures"]) == 0
    out = capsys.readouterr().out
    assert "RR@k" in out and "hit_rate@k" in out and "ndcg_cut" in out


def test_config_names_are_scored_beside_the_families(tmp_path):
    from irscore.engine.output.long_table import read_long_table
    from irscore.pipeline.crosscheck import evaluate_and_crosscheck_files

    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 a 2\n1 0 b 1\n2 0 x 1\n")
    run.write_text("1 Q0 z 1 5 t\n1 Q0 a 2 4 t\n1 Q0 b 3 3 t\n")
    out, check = tmp_path / "eval.tsv", tmp_path / "check.tsv"
    # trec_eval's names are taken too (one resolver): map, scored by the families, once
    config = {"families": ["map"], "names": ["AP", "RR@1", "map", "P_2"]}
    conventions = {"reference": {}, "judged_only": {"unjudged": "removed"}}
    evaluate_and_crosscheck_files(
        str(qrels), str(run), str(out), str(check), "t", conventions, config
    )
    table = read_long_table(str(out), means_only=True)
    means = {
        (c, m): v
        for c, m, v in zip(table["convention"], table["measure"], table["value"], strict=True)
    }
    # map over topic 1: (1/2 + 2/3) / 2; AP over topics 1 and 2 (-c): half of that.
    # Under -J, z leaves the ranking: AP(1) = (1/1 + 2/2) / 2 = 1, RR@1 = 1, over 2 topics
    assert means["reference", "map"] == pytest.approx(7 / 12)
    assert means["reference", "AP"] == pytest.approx(7 / 24)
    assert means["reference", "RR@1"] == 0.0
    assert means["judged_only", "AP"] == 0.5 and means["judged_only", "RR@1"] == 0.5
    assert list(table["measure"]).count("map") == len(conventions)
    # P_2 of topic 1 (z, a): 1/2; topic 2 has no results (trec_eval leaves it out)
    assert means["reference", "P_2"] == 0.5
    from irscore.engine.measures.groups import config_groups

    with pytest.raises(MeasureError, match="relstring is text"):
        config_groups({"names": ["relstring"]})
    with pytest.raises(MeasureError, match="prefs_simp cannot be computed from -R qrels"):
        config_groups({"names": ["prefs_simp"]})


def test_audit_takes_peer_names_beside_the_headline_measures():
    qrels = {"1": {"a": 1}, "2": {"b": 1}}
    runs = {"x": {"1": {"a": 1.0}}, "y": {"1": {"z": 1.0, "a": 0.5}}}
    result = irscore.audit(qrels, runs, B=100, measures=["RR@1", "P_7"])
    table = result.conventions
    rr = table[(table["measure"] == "RR@1") & (table["run"] == "x")]
    # x: RR@1 = 1 on topic 1; topic 2 (no results) is averaged as ir_measures does: 1/2,
    # under every convention (-c changes nothing: RR@1 already averages every qrels topic)
    by = dict(zip(rr["convention"], rr["mean"], strict=True))
    assert by["all_qrels"] == 0.5 and rr["reference"].iloc[0] == 0.5
    # trec_eval's map leaves topic 2 out, and -c puts it back in
    ap = table[(table["measure"] == "map") & (table["run"] == "x")]
    assert ap["reference"].iloc[0] == 1.0
    assert dict(zip(ap["convention"], ap["mean"], strict=True))["all_qrels"] == 0.5
    assert set(table[table["measure"] == "P_7"]["run"]) == {"x", "y"}


def test_ranx_dcg_and_rbp():
    import math

    # grades: z none, a 2 (rank 2), c 0, d -1, b 1 (rank 5)
    values = _topic1(["dcg_cut.3,5", "dcg_exp", "dcg_exp_cut.3", "rbp_grade.p=0.5"])
    assert values["dcg_cut_3"] == pytest.approx(2 / math.log2(3), abs=1e-15)
    assert values["dcg_cut_5"] == pytest.approx(2 / math.log2(3) + 1 / math.log2(6), abs=1e-15)
    # gain 2^g - 1: a 3, b 1
    assert values["dcg_exp_cut_3"] == pytest.approx(3 / math.log2(3), abs=1e-15)
    assert values["dcg_exp"] == pytest.approx(3 / math.log2(3) + 1 / math.log2(6), abs=1e-15)
    # (1 - p) (2 p^1 + 1 p^4), p = 0.5: 0.5 * (1 + 0.0625) = 0.53125, the grade unscaled
    assert values["rbp_grade_p=0.5"] == 0.53125
    assert parse_peer_name("rbp@5").printed == "rbp_grade_p=0.5"
    assert parse_peer_name("dcg_burges@3").printed == "dcg_exp_cut_3"


def test_cwl_measures_worked_by_hand():
    import math

    # max_rel=2 scales the grades to gains: z 0, a 1.0 (rank 2), c 0, d 0 (grade -1: 0),
    # b 0.5 (rank 5); the ranking is 1000 ranks long, gain 0 past rank 5. W(i) is the
    # product R(i) of C(1..i-1) over their sum; the value is sum W(i) gain(i)
    names = ["NERR8(max_rel=2)@3", "NERR9(max_rel=2)@5", "NERR10(p=0.5,max_rel=2)"]
    names += ["BPM(max_rel=2)@10", "SDCG(max_rel=2)@2", "INSQ(max_rel=2)", "INST(max_rel=2)"]
    values = {n: v for n, v in _means(names).items()}
    # both topics count (-c): topic 2 has no results, so each mean is half of topic 1's
    topic1 = {name: 2 * value for name, value in values.items()}
    # NERR8@3: C = 1 - gain before rank 3: C(1) = 1, C(2) = 0: W = 1/2, 1/2 -> 1/2
    assert topic1["NERR8(max_rel=2)@3"] == pytest.approx(0.5, abs=1e-15)
    # NERR9@5: C(i) = i / (i + 1) (1 - gain): C(1) = 1/2, C(2) = 0: R = 1, 1/2 -> 1/3
    assert topic1["NERR9(max_rel=2)@5"] == pytest.approx(1 / 3, abs=1e-15)
    # NERR10(p=0.5): C(i) = 0.5 (1 - gain): the same R -> 1/3
    assert topic1["NERR10(p=0.5,max_rel=2)"] == pytest.approx(1 / 3, abs=1e-15)
    # BPM(T=1)@10: going on while the gain so far is below 1 (rank 1 only): W = 1/2, 1/2
    assert topic1["BPM(max_rel=2)@10"] == pytest.approx(0.5, abs=1e-15)
    # SDCG@2: C(1) = log2(2) / log2(3), C(2) = 0: R = 1, 1/log2(3) -> 1 / (log2(3) + 1)
    assert topic1["SDCG(max_rel=2)@2"] == pytest.approx(1 / (math.log2(3) + 1), abs=1e-15)
    # INSQ(T=1): C(i) = ((i + 1) / (i + 2))^2, so R(i) = (2 / (i + 1))^2:
    # (R(2) * 1 + R(5) * 0.5) / sum R = (4/9 + 2/36) / (4 * sum over m = 2..1001 of 1/m^2)
    insq = (4 / 9 + 2 / 36) / (4 * math.fsum(1 / m**2 for m in range(2, 1002)))
    assert topic1["INSQ(max_rel=2)"] == pytest.approx(insq, rel=1e-12)
    # INST(T=1): C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2 with T_i = 1 - gain so far:
    # C(1) = (2/3)^2, C(2) = (2/3)^2, C(3) = (3/4)^2, C(4) = (4/5)^2, then T_i = -1/2 and
    # C(i) = ((i - 1/2) / (i + 1/2))^2, so R(i) = 16/225 (4.5 / (i - 1/2))^2 from rank 5
    reach = [1, 4 / 9, 16 / 81, 1 / 9] + [16 / 225 * (4.5 / (i - 0.5)) ** 2 for i in range(5, 1001)]
    inst = (reach[1] * 1 + reach[4] * 0.5) / math.fsum(reach)
    assert topic1["INST(max_rel=2)"] == pytest.approx(inst, rel=1e-12)


def test_compat_worked_by_hand():
    # ideal ranking: a (grade 2), b (grade 1); run: z a c d b. a is in both prefixes from
    # depth 2 = max(rank 2, ideal 1), b from depth 5 = max(rank 5, ideal 2): overlaps at
    # depths 1..5 are 0 1 1 1 2. RBO (p = 0.5) = sum p^(d-1) overlap / d over sum p^(d-1)
    run = 0.5 * 1 / 2 + 0.25 * 1 / 3 + 0.125 * 1 / 4 + 0.0625 * 2 / 5
    weights = 1 + 0.5 + 0.25 + 0.125 + 0.0625
    # the ideal against itself: overlaps 1 2 2 2 2
    best = 1 + 0.5 * 2 / 2 + 0.25 * 2 / 3 + 0.125 * 2 / 4 + 0.0625 * 2 / 5
    assert _topic1(["compat.p=0.5"])["compat_p=0.5"] == pytest.approx(run / best, abs=1e-15)
    raw = _topic1(["compat.p=0.5,normalize=0"])["compat_p=0.5,normalize=0"]
    assert raw == pytest.approx(run / weights, abs=1e-15)


def test_accuracy_worked_by_hand():
    # relevant: a (rank 2, 1 non-relevant above: z), b (rank 5, 3 above: z c d); the
    # ranking's non-relevant: z c d (d's grade -1 and z's missing judgment count as such)
    # 1 - (1 + 3) / (3 non-relevant x 2 relevant) = 1/3. Topic 2 has no results: no value,
    # so the mean is topic 1's
    means = _means(["Accuracy", "Accuracy@2", "Accuracy(rel=2)"])
    assert means["Accuracy"] == pytest.approx(1 / 3, abs=1e-15)
    # top 2: z a; a has the one non-relevant above it: 1 - 1 / (1 x 1) = 0
    assert means["Accuracy@2"] == 0.0
    # rel=2: a only; b (grade 1) is non-relevant too: 1 - 1 / (4 x 1) = 0.75
    assert means["Accuracy(rel=2)"] == 0.75
