"""Every flag of `irscore evaluate`, `compare` and `audit`, on tiny inline files.

Each case's expected value is worked out by hand below (the arithmetic is in
the comments and the expressions) and differs from the value without the flag,
which is worked out too: a command line that ignores the flag fails its test.
"""

from __future__ import annotations

import io
import itertools
import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
from cli_calls import called as run_cli


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def trec_values(out: str) -> dict[tuple[str, str], str]:
    """trec_eval's text output as {(measure, topic): printed value}."""
    rows = (line.split("\t") for line in out.splitlines())
    return {(measure.strip(), topic): value for measure, topic, value in rows}


def line(measure: str, topic: str, value: float) -> str:
    """One line of trec_eval's layout, `%-22s\t%s\t%.4f`."""
    return f"{measure:<22}\t{topic}\t{value:.4f}\n"


@dataclass(frozen=True)
class Case:
    """One flag: the files, the flag, the measure, and the value with and without it."""

    flags: tuple[str, ...]
    qrels: str
    run: str
    measure: str
    request: str
    with_flag: float
    without: float


# Topic 1: relevant a (1), c (2), e (1, never retrieved); b judged non-relevant; u unjudged.
# Ranking u, a, b, c. R = 3 relevant documents.
JUDGED_QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n1 0 e 1\n"
JUDGED_RUN = "1 Q0 u 1 0.9 B\n1 Q0 a 2 0.8 B\n1 Q0 b 3 0.7 B\n1 Q0 c 4 0.6 B\n"
# reference: relevant at ranks 2 and 4, AP = (1/2 + 2/4) / 3 = 1/3
JUDGED_AP = (1 / 2 + 2 / 4) / 3

# Five documents tied at score 1.0; "10" and "20" are relevant (R = 2). AP with the
# relevant documents at ranks p1 < p2 is (1/p1 + 2/p2) / 2.
TIE_QRELS = "1 0 10 1\n1 0 20 1\n1 0 3 0\n1 0 9 0\n1 0 100 0\n"
# file order 100, 20, 10, 3, 9; the rank column orders them 20, 3, 9, 10, 100
TIE_RUN = "1 Q0 100 5 1.0 B\n1 Q0 20 1 1.0 B\n1 Q0 10 4 1.0 B\n1 Q0 3 2 1.0 B\n1 Q0 9 3 1.0 B\n"


def tie_ap(p1: int, p2: int) -> float:
    return (1 / p1 + 2 / p2) / 2


# docno descending as byte strings: "9" > "3" > "20" > "100" > "10": relevant at 3 and 5
TIE_REFERENCE = tie_ap(3, 5)
# expected: the mean of AP over the C(5, 2) = 10 equally likely position pairs
TIE_EXPECTED = sum(tie_ap(*pair) for pair in itertools.combinations(range(1, 6), 2)) / 10

# Graded: x grade 1 at rank 1, y grade 2 at rank 2; ideal order y, x.
GRADED_QRELS = "1 0 x 1\n1 0 y 2\n"
GRADED_RUN = "1 Q0 x 1 0.9 B\n1 Q0 y 2 0.8 B\n"
LOG3 = math.log2(3)

CASES = {
    # -J: u leaves the ranking; a, b, c: relevant at 1 and 3, AP = (1/1 + 2/3) / 3 = 5/9
    "-J": Case(("-J",), JUDGED_QRELS, JUDGED_RUN, "map", "map", (1 + 2 / 3) / 3, JUDGED_AP),
    # -J with a negative grade, trec_eval's "not in pool" marker: n (-1) leaves the ranking
    # n, z, a, z (judged 0) stays: a moves from rank 3 (AP 1/3) to rank 2 (AP 1/2)
    "-J negative grade": Case(
        ("-J",),
        "1 0 a 1\n1 0 n -1\n1 0 z 0\n",
        "1 Q0 n 1 0.9 B\n1 Q0 z 2 0.85 B\n1 Q0 a 3 0.8 B\n",
        "map",
        "map",
        1 / 2,
        1 / 3,
    ),
    # -M 2: only u, a count: AP = (1/2) / 3 = 1/6
    "-M": Case(("-M", "2"), JUDGED_QRELS, JUDGED_RUN, "map", "map", (1 / 2) / 3, JUDGED_AP),
    # -l 2: only c (grade 2) is relevant, R = 1, at rank 4: AP = 1/4
    "-l": Case(("-l", "2"), JUDGED_QRELS, JUDGED_RUN, "map", "map", 1 / 4, JUDGED_AP),
    # -c: topic 2 is judged but not retrieved; it scores 0 and is averaged: (1/3 + 0) / 2
    "-c": Case(
        ("-c",),
        JUDGED_QRELS + "2 0 x 1\n",
        JUDGED_RUN,
        "map",
        "map",
        (JUDGED_AP + 0) / 2,
        JUDGED_AP,
    ),
    # docno ascending: 10, 100, 20, 3, 9: relevant at 1 and 3
    "docno_asc": Case(
        ("--tie-break", "docno_asc"), TIE_QRELS, TIE_RUN, "map", "map", tie_ap(1, 3), TIE_REFERENCE
    ),
    # numeric ascending: 3, 9, 10, 20, 100: relevant at 3 and 4
    "docno_numeric": Case(
        ("--tie-break", "docno_numeric"),
        TIE_QRELS,
        TIE_RUN,
        "map",
        "map",
        tie_ap(3, 4),
        TIE_REFERENCE,
    ),
    # rank column: 20, 3, 9, 10, 100: relevant at 1 and 4
    "rank": Case(
        ("--tie-break", "rank"), TIE_QRELS, TIE_RUN, "map", "map", tie_ap(1, 4), TIE_REFERENCE
    ),
    # file order: 100, 20, 10, 3, 9: relevant at 2 and 3
    "file_order": Case(
        ("--tie-break", "file_order"), TIE_QRELS, TIE_RUN, "map", "map", tie_ap(2, 3), TIE_REFERENCE
    ),
    # optimistic: the relevant first, at 1 and 2: AP = 1
    "optimistic": Case(
        ("--tie-break", "optimistic"), TIE_QRELS, TIE_RUN, "map", "map", tie_ap(1, 2), TIE_REFERENCE
    ),
    # pessimistic: the relevant last, at 4 and 5
    "pessimistic": Case(
        ("--tie-break", "pessimistic"),
        TIE_QRELS,
        TIE_RUN,
        "map",
        "map",
        tie_ap(4, 5),
        TIE_REFERENCE,
    ),
    "expected": Case(
        ("--tie-break", "expected"), TIE_QRELS, TIE_RUN, "map", "map", TIE_EXPECTED, TIE_REFERENCE
    ),
    # --ties expected: the same mean over every order of the tied documents
    "--ties": Case(
        ("--ties", "expected"), TIE_QRELS, TIE_RUN, "map", "map", TIE_EXPECTED, TIE_REFERENCE
    ),
    # 1.000000001 and 1 are the same float32 (2^-23 apart at 1.0 is far more than 1e-9):
    # a tie, broken by docno descending, puts b first and the relevant a second, AP 1/2;
    # in float64 a scores higher and comes first, AP 1.
    "--score-precision": Case(
        ("--score-precision", "float64"),
        "1 0 a 1\n",
        "1 Q0 a 1 1.000000001 B\n1 Q0 b 2 1 B\n",
        "map",
        "map",
        1.0,
        1 / 2,
    ),
    # nDCG: DCG = g(x)/log2(2) + g(y)/log2(3), IDCG = g(y)/log2(2) + g(x)/log2(3);
    # linear g = grade; exponential g = 2^grade - 1 (x: 1, y: 3), printed as ndcg_exp
    "--gain": Case(
        ("--gain", "exponential"),
        GRADED_QRELS,
        GRADED_RUN,
        "ndcg_exp",
        "ndcg",
        (1 + 3 / LOG3) / (3 + 1 / LOG3),
        (1 + 2 / LOG3) / (2 + 1 / LOG3),
    ),
    # R = 2, relevant at ranks 1 and 4; P@1 = 1, P@4 = 2/4. Recall 0.6:
    # trec_eval 9: c = (long)(0.6 * 2 + 0.9) = (long)2.1 = 2: max precision from rank 4 = 0.5;
    # trec_eval 10: c = lround(1.2) = 1: max precision from rank 1 = 1.
    "trec_eval10": Case(
        ("--interpolation", "trec_eval10"),
        "1 0 r1 1\n1 0 r4 1\n",
        "1 Q0 r1 1 4 B\n1 Q0 n2 2 3 B\n1 Q0 n3 3 2 B\n1 Q0 r4 4 1 B\n",
        "iprec_at_recall_0.60",
        "iprec_at_recall",
        1.0,
        2 / 4,
    ),
    # R = 3, relevant at ranks 1, 2 and 5; P@2 = 2/2, P@5 = 3/5. Recall 0.7:
    # trec_eval 9: 0.7 * 3 + 0.9 is just below 3, c = 2: max precision from rank 2 = 1;
    # textbook: recall >= 0.7 needs all 3 (2/3 < 0.7): max precision from rank 5 = 3/5.
    "textbook": Case(
        ("--interpolation", "textbook"),
        "1 0 r1 1\n1 0 r2 1\n1 0 r5 1\n",
        "1 Q0 r1 1 5 B\n1 Q0 r2 2 4 B\n1 Q0 n3 3 3 B\n1 Q0 n4 4 2 B\n1 Q0 r5 5 1 B\n",
        "iprec_at_recall_0.70",
        "iprec_at_recall",
        3 / 5,
        1.0,
    ),
    # --compat trec_eval10 includes trec_eval 10's interpolation (the case above) ...
    "compat_interpolation": Case(
        ("--compat", "trec_eval10"),
        "1 0 r1 1\n1 0 r4 1\n",
        "1 Q0 r1 1 4 B\n1 Q0 n2 2 3 B\n1 Q0 n3 3 2 B\n1 Q0 r4 4 1 B\n",
        "iprec_at_recall_0.60",
        "iprec_at_recall",
        1.0,
        2 / 4,
    ),
    # ... and its double-precision scores (the --score-precision case)
    "compat_precision": Case(
        ("--compat", "trec_eval10"),
        "1 0 a 1\n",
        "1 Q0 a 1 1.000000001 B\n1 Q0 b 2 1 B\n",
        "map",
        "map",
        1.0,
        1 / 2,
    ),
    # Cleverdon's grades: gain 5 - g, so raw 4 (a, rank 1) gains 1 and raw 1 (b) gains 4.
    # raw: the run is ideal, nDCG = 1; mapped: (1 + 4/log2 3) / (4 + 1/log2 3).
    "--grade-mapping": Case(
        ("--grade-mapping", "cranfield_cleverdon"),
        "1 0 a 4\n1 0 b 1\n",
        "1 Q0 a 1 0.9 B\n1 Q0 b 2 0.8 B\n",
        "ndcg",
        "ndcg",
        (1 + 4 / LOG3) / (4 + 1 / LOG3),
        1.0,
    ),
    # Topic 2 has no relevant document (AP 0): averaged, (1 + 0) / 2; skipped, 1 / 1.
    "--no-relevant-topics": Case(
        ("--no-relevant-topics", "skip"),
        "1 0 a 1\n2 0 y 0\n",
        "1 Q0 a 1 0.9 B\n2 Q0 y 1 0.9 B\n",
        "map",
        "map",
        1.0,
        (1 + 0) / 2,
    ),
    # ERR@2 = R_x + (1 - R_x) R_y / 2 with R = (2^g - 1) / 2^gmax:
    # gmax 4: R_x = 1/16, R_y = 3/16; gmax 3: R_x = 1/8, R_y = 3/8.
    "--gmax": Case(
        ("--gmax", "3"),
        GRADED_QRELS,
        GRADED_RUN,
        "err_2",
        "err.2",
        1 / 8 + (1 - 1 / 8) * (3 / 8) / 2,
        1 / 16 + (1 - 1 / 16) * (3 / 16) / 2,
    ),
}


@pytest.fixture
def files(tmp_path):
    def make(case: Case) -> tuple[Path, Path]:
        return write(tmp_path, "qrels", case.qrels), write(tmp_path, "run", case.run)

    return make


@pytest.mark.parametrize("name", CASES)
def test_evaluate_flag_changes_the_value_as_worked_out(files, name):
    case = CASES[name]
    qrels, run = files(case)
    assert f"{case.with_flag:.4f}" != f"{case.without:.4f}"  # the flag must show
    status, out, err = run_cli("evaluate", "-m", case.request, *case.flags, qrels, run)
    assert status == 0, err
    assert trec_values(out)[(case.measure, "all")] == f"{case.with_flag:.4f}"
    status, out, _ = run_cli("evaluate", "-m", case.request, qrels, run)
    plain = case.measure.replace("ndcg_exp", "ndcg")
    assert trec_values(out)[(plain, "all")] == f"{case.without:.4f}"


def test_tie_break_docno_desc_is_the_default(files):
    case = CASES["docno_asc"]
    qrels, run = files(case)
    status, out, _ = run_cli("evaluate", "-m", "map", "--tie-break", "docno_desc", qrels, run)
    assert status == 0 and out == line("map", "all", TIE_REFERENCE)  # (1/3 + 2/5) / 2


def test_compat_trec_eval10_prints_missing_topics_and_its_measures(tmp_path):
    # -c -q: trec_eval 10 prints a line for topic 2 (judged, not retrieved), 9 does not.
    qrels = write(tmp_path, "qrels", JUDGED_QRELS + "2 0 x 1\n")
    run = write(tmp_path, "run", JUDGED_RUN)
    topics = line("map", "1", JUDGED_AP)
    summary = line("map", "all", JUDGED_AP / 2)
    assert run_cli("evaluate", "-c", "-q", "-m", "map", qrels, run)[1] == topics + summary
    compat = run_cli("evaluate", "--compat", "trec_eval10", "-c", "-q", "-m", "map", qrels, run)
    assert compat[1] == topics + line("map", "2", 0) + summary
    # all_trec of trec_eval 10 adds rbp and unj: on topic 1 (u, a, b, c), gains normalised by
    # the largest grade 2: a 1/2 at rank 2, c 2/2 at rank 4; rbp = (1 - 0.9) sum 0.9^(k-1) g_k.
    # unj_5: one unjudged document (u) in the top 5, 1/5.
    run = write(tmp_path, "run", JUDGED_RUN)
    plain = trec_values(run_cli("evaluate", "-m", "all_trec", qrels, run)[1])
    newer = trec_values(
        run_cli("evaluate", "--compat", "trec_eval10", "-m", "all_trec", qrels, run)[1]
    )
    assert ("rbp", "all") not in plain
    assert newer[("rbp", "all")] == f"{0.1 * (0.9 * 1 / 2 + 0.9**3 * 2 / 2):.4f}"
    assert newer[("unj_5", "all")] == f"{1 / 5:.4f}"


def test_duplicates_first_keeps_the_first_line(tmp_path):
    # b appears at 0.9 and again at 0.7; a (relevant, R = 1) at 0.8.
    # first kept: b (0.9), a: AP = 1/2; keeping the last would give a, b: AP = 1.
    qrels = write(tmp_path, "qrels", "1 0 a 1\n")
    run = write(tmp_path, "run", "1 Q0 b 1 0.9 B\n1 Q0 a 2 0.8 B\n1 Q0 b 3 0.7 B\n")
    status, out, err = run_cli("evaluate", "-m", "map", qrels, run)
    assert status == 2 and out == "" and "document b" in err
    status, out, _ = run_cli("evaluate", "-m", "map", "--duplicates", "first", qrels, run)
    assert status == 0 and out == line("map", "all", 1 / 2)


def test_minus_q_adds_topic_lines_and_minus_n_drops_the_summary(tmp_path):
    # topic 1: a relevant at rank 2, AP 1/2; topic 2: c relevant at rank 1, AP 1.
    qrels = write(tmp_path, "qrels", "1 0 a 1\n2 0 c 1\n")
    run = write(tmp_path, "run", "1 Q0 b 1 0.9 B\n1 Q0 a 2 0.8 B\n2 Q0 c 1 0.9 B\n")
    summary = line("map", "all", (1 / 2 + 1) / 2)
    topics = line("map", "1", 1 / 2) + line("map", "2", 1.0)
    assert run_cli("evaluate", "-m", "map", qrels, run)[1] == summary
    assert run_cli("evaluate", "-q", "-m", "map", qrels, run)[1] == topics + summary
    assert run_cli("evaluate", "-q", "-n", "-m", "map", qrels, run)[1] == topics
    assert run_cli("evaluate", "-n", "-m", "map", qrels, run)[1] == ""


def test_measure_request_forms(tmp_path):
    # One topic, R = 1: ranking b, a (a relevant at rank 2).
    qrels = write(tmp_path, "qrels", "1 0 a 1\n1 0 b 0\n")
    run = write(tmp_path, "run", "1 Q0 b 1 0.9 B\n1 Q0 a 2 0.8 B\n")
    # cut-offs: P@1 = 0/1, P@2 = 1/2, P@3 = 1/3 (P@k divides by k)
    _, out, _ = run_cli("evaluate", "-m", "P.1,2,3", qrels, run)
    assert out == line("P_1", "all", 0) + line("P_2", "all", 1 / 2) + line("P_3", "all", 1 / 3)
    # repeated -m: both families, in trec_eval's order (map before recip_rank)
    _, out, _ = run_cli("evaluate", "-m", "recip_rank", "-m", "map", qrels, run)
    assert out == line("map", "all", 1 / 2) + line("recip_rank", "all", 1 / 2)
    # nDCG at cut 1 and 2: DCG@2 = 1/log2(3), IDCG = 1: ndcg_cut_1 = 0, ndcg_cut_2 = 1/log2 3
    _, out, _ = run_cli("evaluate", "-m", "ndcg_cut.1,2", qrels, run)
    assert out == line("ndcg_cut_1", "all", 0) + line("ndcg_cut_2", "all", 1 / LOG3)
    # no -m is trec_eval's official set; all_trec adds e.g. success and gm_bpref
    official = trec_values(run_cli("evaluate", qrels, run)[1])
    every = trec_values(run_cli("evaluate", "-m", "all_trec", qrels, run)[1])
    assert official == trec_values(run_cli("evaluate", "-m", "official", qrels, run)[1])
    assert official[("map", "all")] == "0.5000" and ("success_1", "all") not in official
    assert set(official) < set(every)
    assert every[("success_1", "all")] == "0.0000" and every[("success_5", "all")] == "1.0000"


def test_format_tsv_and_json_carry_the_same_values(tmp_path):
    # a relevant at rank 2 of 2: AP = 1/2, P@1 = 0
    qrels = write(tmp_path, "qrels", "1 0 a 1\n")
    run = write(tmp_path, "run", "1 Q0 b 1 0.9 B\n1 Q0 a 2 0.8 B\n")
    _, tsv, _ = run_cli("evaluate", "--format", "tsv", "-m", "map", "-m", "P.1", qrels, run)
    table = pd.read_csv(io.StringIO(tsv), sep="\t")
    assert dict(zip(table["measure"], table["value"], strict=True)) == {"map": 0.5, "P_1": 0.0}
    _, text, _ = run_cli("evaluate", "--format", "json", "-q", "-m", "map", qrels, run)
    rows = pd.read_json(io.StringIO(text), dtype={"topic": str})
    assert sorted(zip(rows["topic"], rows["value"], strict=True)) == [("1", 0.5), ("all", 0.5)]


# --- compare: the same convention flags, then its own ------------------------------------------

# Run A retrieves only one document no case judges relevant: AP 0, nDCG 0, ERR 0 in every
# case, so mean_b and diff are the hand-worked value of run B under the flag.
NULL_RUN = "1 Q0 zz 1 0.5 A\n"


@pytest.mark.parametrize("name", [n for n in CASES if n != "--no-relevant-topics"])
def test_compare_passes_each_convention_flag(files, tmp_path, name):
    case = CASES[name]
    qrels, run = files(case)
    null = write(tmp_path, "null", NULL_RUN)
    argv = ["compare", "-m", case.request, "--test", "t", "--format", "tsv", qrels, null, run]
    status, out, err = run_cli(*argv, *case.flags)
    assert status == 0, err
    table = pd.read_csv(io.StringIO(out), sep="\t").set_index("measure")
    assert table.loc[case.measure, "mean_a"] == 0.0
    assert table.loc[case.measure, "mean_b"] == pytest.approx(case.with_flag, abs=1e-12)
    status, out, _ = run_cli(*argv)
    table = pd.read_csv(io.StringIO(out), sep="\t").set_index("measure")
    plain = case.measure.replace("ndcg_exp", "ndcg")
    assert table.loc[plain, "mean_b"] == pytest.approx(case.without, abs=1e-12)


def test_compare_no_relevant_topics_skip(files, tmp_path):
    # B: topic 1 AP 1, topic 2 (no relevant document) AP 0; A: AP 0 on both.
    # zero: n = 2, diff = (1 + 0) / 2; skip: n = 1, diff = 1.
    case = CASES["--no-relevant-topics"]
    qrels, run = files(case)
    null = write(tmp_path, "null", NULL_RUN + "2 Q0 zz 1 0.5 A\n")
    argv = ["compare", "-m", "map", "--test", "t", "--format", "tsv", qrels, null, run]
    plain = pd.read_csv(io.StringIO(run_cli(*argv)[1]), sep="\t").iloc[0]
    skip = run_cli(*argv, "--no-relevant-topics", "skip")[1]
    skipped = pd.read_csv(io.StringIO(skip), sep="\t").iloc[0]
    assert (plain["n"], plain["diff"]) == (2, (1 + 0) / 2)
    assert (skipped["n"], skipped["diff"]) == (1, 1.0)


# Three topics; A finds nothing relevant (AP 0), B finds the one relevant document of
# topic t at rank t: AP 1, 1/2, 1/3. Differences d = (1, 1/2, 1/3), n = 3.
STATS_QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 d 0\n3 0 e 1\n3 0 f 0\n"
STATS_A = "1 Q0 b 1 0.9 A\n2 Q0 d 1 0.9 A\n3 Q0 f 1 0.9 A\n"
STATS_B = (
    "1 Q0 a 1 0.9 B\n2 Q0 d 1 0.9 B\n2 Q0 c 2 0.8 B\n3 Q0 f 1 0.9 B\n3 Q0 x 2 0.8 B\n"
    "3 Q0 e 3 0.7 B\n"
)
D = (1, 1 / 2, 1 / 3)
MEAN = sum(D) / 3  # 11/18
SE = math.sqrt(sum((d - MEAN) ** 2 for d in D) / 2 / 3)  # sd (n - 1 = 2) over sqrt(3)


def t2_quantile(q: float) -> float:
    """Student's t quantile with 2 degrees of freedom, in closed form: (2q - 1) / sqrt(2q(1-q))."""
    return (2 * q - 1) / math.sqrt(2 * q * (1 - q))


@pytest.fixture
def stats_files(tmp_path):
    return (
        write(tmp_path, "qrels", STATS_QRELS),
        write(tmp_path, "a.run", STATS_A),
        write(tmp_path, "b.run", STATS_B),
    )


def compare_table(stats_files, *flags: str) -> pd.DataFrame:
    status, out, err = run_cli("compare", "-m", "map", "--format", "tsv", *flags, *stats_files)
    assert status == 0, err
    return pd.read_csv(io.StringIO(out), sep="\t").set_index("test")


def test_compare_tests_worked_by_hand(stats_files):
    table = compare_table(stats_files)
    assert list(table.index) == ["t", "wilcoxon", "randomization", "bootstrap"]
    t = MEAN / SE
    assert table.loc["t", "statistic"] == pytest.approx(t, rel=1e-12)
    # t with 2 df: two-sided p = 1 - t / sqrt(2 + t^2)
    assert table.loc["t", "p"] == pytest.approx(1 - t / math.sqrt(2 + t * t), rel=1e-12)
    # 95% CI: mean -+ t_0.975,2 * se, t_0.975,2 = 0.95 / sqrt(2 * 0.975 * 0.025) = 4.3027
    half = t2_quantile(0.975) * SE
    assert table.loc["t", "ci_low"] == pytest.approx(MEAN - half, rel=1e-12)
    assert table.loc["t", "ci_high"] == pytest.approx(MEAN + half, rel=1e-12)
    # Wilcoxon: all three differences positive, ranks 1, 2, 3: R- = 0; exact
    # P(R+ = 6) = 1/8 under the 8 sign patterns, two-sided 2/8
    assert (table.loc["wilcoxon", "statistic"], table.loc["wilcoxon", "p"]) == (0.0, 2 / 8)
    # randomisation: only all-plus and all-minus reach |mean| >= 11/18: 2 of 8
    assert table.loc["randomization", "p"] == 2 / 8
    # bootstrap (shifted): the centred mean* = mean* - 11/18 reaches 11/18 in absolute value
    # only below 0, impossible (every d > 0), or above 22/18 > 1, impossible: c = 0, p = 1/(B+1)
    assert table.loc["bootstrap", "p"] == 1 / (10_000 + 1)


@pytest.mark.parametrize("test", ["t", "wilcoxon", "randomization", "bootstrap"])
def test_compare_test_flag_picks_one_test(stats_files, test):
    assert list(compare_table(stats_files, "--test", test).index) == [test]


def test_compare_B_sets_the_bootstrap_resamples(stats_files):
    # c = 0 as above, so p = 1 / (B + 1) = 1/100 with --B 99
    table = compare_table(stats_files, "--test", "bootstrap", "--B", "99")
    assert table.loc["bootstrap", "p"] == 1 / 100
    assert table.loc["bootstrap", "notes"] == "99 paired resamples, seed 0"


def test_compare_seed_changes_the_resamples(stats_files):
    # 20 resamples of 3 topics: the 2.5% quantile of the resampled means depends on the draw.
    # Each mean is (d_i + d_j + d_k) / 3, so whatever the seed it lies in [1/3, 1].
    seeds = {
        seed: compare_table(stats_files, "--test", "bootstrap", "--B", "20", "--seed", seed)
        for seed in ("0", "1", "2", "3")
    }
    notes = {s: table.loc["bootstrap", "notes"] for s, table in seeds.items()}
    assert notes == {s: f"20 paired resamples, seed {s}" for s in seeds}
    lows = {table.loc["bootstrap", "ci_low"] for table in seeds.values()}
    assert len(lows) > 1 and all(1 / 3 - 1e-12 <= low <= 1 + 1e-12 for low in lows)


def test_compare_alpha_sets_the_interval_and_the_verdict(stats_files):
    # p = 0.0927: not significant at 0.05, significant at 0.2;
    # 80% CI: mean -+ t_0.9,2 * se, t_0.9,2 = 0.8 / sqrt(2 * 0.9 * 0.1) = 1.8856
    table = compare_table(stats_files, "--test", "t")
    assert not table.loc["t", "significant"]
    table = compare_table(stats_files, "--test", "t", "--alpha", "0.2")
    half = t2_quantile(0.9) * SE
    assert table.loc["t", "ci_low"] == pytest.approx(MEAN - half, rel=1e-12)
    assert table.loc["t", "ci_high"] == pytest.approx(MEAN + half, rel=1e-12)
    assert table.loc["t", "significant"]


def test_compare_m_and_text_format(stats_files):
    # P@1: B has the relevant document first only in topic 1: mean 1/3
    status, out, _ = run_cli("compare", "-m", "P.1", "--test", "t", *stats_files)
    assert status == 0 and out.startswith("checks:\n")
    row = next(r for r in out.splitlines() if r.split()[:2] == ["P_1", "t"])
    assert row.split()[2:5] == ["3", "0", f"{1 / 3:.4g}"]  # n, mean_a, mean_b
    # the default measures: map, P.10, ndcg_cut.10, recip_rank
    table = pd.read_csv(
        io.StringIO(run_cli("compare", "--test", "t", "--format", "tsv", *stats_files)[1]),
        sep="\t",
    )
    assert set(table["measure"]) == {"map", "P_10", "ndcg_cut_10", "recip_rank"}


# --- audit ---------------------------------------------------------------------------------


def test_audit_out_and_alpha(stats_files, tmp_path):
    out = tmp_path / "where"
    argv = ["audit", *stats_files, "--out", out, "--B", "50", "--seed", "3"]
    status, text, err = run_cli(*argv, "--alpha", "0.2")
    assert status == 0, err
    assert text.endswith(f"written under {out}/\n")
    tests = pd.read_csv(out / "compare" / "tests.tsv", sep="\t")
    row = tests[(tests["convention"] == "reference") & (tests["measure"] == "map")].iloc[0]
    # 80% t interval, as in the compare test above
    half = t2_quantile(0.9) * SE
    assert row["ci_low"] == pytest.approx(MEAN - half, rel=1e-12)
    assert row["ci_high"] == pytest.approx(MEAN + half, rel=1e-12)
    assert (out / "eval" / "A.tsv").is_file() and (out / "eval" / "B.tsv").is_file()


def audit_tests(stats_files, out, *flags) -> pd.DataFrame:
    """The audit's paired tests of the reference convention on map, one row per test."""
    status, _, err = run_cli("audit", *stats_files, "--out", out, *flags)
    assert status == 0, err
    tests = pd.read_csv(out / "compare" / "tests.tsv", sep="\t")
    return tests[(tests["convention"] == "reference") & (tests["measure"] == "map")].set_index(
        "test"
    )


def test_audit_test_B_and_seed_reach_the_paired_tests(stats_files, tmp_path):
    # Without --test the audit runs the t-test alone; --test bootstrap --B 99: every topic's
    # difference is positive, so the centred resampled mean never reaches 11/18: c = 0 and
    # p = 1/(B + 1) = 1/100 under any seed, as in compare's test above.
    assert list(audit_tests(stats_files, tmp_path / "t").index) == ["t"]
    boot = audit_tests(stats_files, tmp_path / "s0", "--test", "bootstrap", "--B", "99")
    other = audit_tests(
        stats_files, tmp_path / "s1", "--test", "bootstrap", "--B", "99", "--seed", "1"
    )
    assert list(boot.index) == ["bootstrap"] and boot.loc["bootstrap", "p"] == 1 / 100
    assert other.loc["bootstrap", "p"] == 1 / 100
    # 99 resamples of 3 topics: the interval's upper end depends on the seed's draw (the
    # default seed 0 draws the resample (1, 1, 1) often enough for its 97.5% quantile to be
    # 1; seed 1 does not, and its quantile is 0.925)
    assert boot.loc["bootstrap", "ci_high"] != other.loc["bootstrap", "ci_high"]


def t2_p(t: float) -> float:
    """Two-sided p of Student's t with 2 degrees of freedom: 1 - t / sqrt(2 + t^2)."""
    return 1 - t / math.sqrt(2 + t * t)


# map: d = (1, 1/2, 1/3), t = 3.0509, p = 0.0927. P@2: B's relevant document is within
# the top 2 in topics 1 and 2: d = (1/2, 1/2, 0), mean 1/3, sd sqrt(1/12), se 1/6, t = 2,
# p = 1 - 2/sqrt(6) = 0.1835. Sorted, p1 = 0.0927 < p2 = 0.1835 < 2 * p1.
P_MAP, P_P2 = t2_p(MEAN / SE), t2_p(2.0)
CORRECTIONS = {
    "none": (P_MAP, P_P2),
    "bonferroni": (2 * P_MAP, 2 * P_P2),
    # Holm: the smaller times 2, the larger times 1 but never below the smaller's
    "holm": (2 * P_MAP, max(2 * P_MAP, P_P2)),
    # Benjamini-Hochberg: the larger times 2/2, the smaller times 2/1 but never above it
    "bh": (min(2 * P_MAP, P_P2), P_P2),
}


@pytest.mark.parametrize("correction", CORRECTIONS)
def test_compare_correction(stats_files, correction):
    flags = ("-m", "map", "-m", "P.2", "--test", "t")
    if correction != "holm":  # holm is the default: without the flag, the same numbers
        flags += ("--correction", correction)
    status, out, err = run_cli("compare", "--format", "tsv", *flags, *stats_files)
    assert status == 0, err
    table = pd.read_csv(io.StringIO(out), sep="\t").set_index("measure")
    assert (table.loc["map", "p"], table.loc["P_2", "p"]) == pytest.approx((P_MAP, P_P2))
    adjusted = (table.loc["map", "p_adjusted"], table.loc["P_2", "p_adjusted"])
    assert adjusted == pytest.approx(CORRECTIONS[correction], rel=1e-12)


def many_runs(stats_files, tmp_path, *flags: str) -> pd.DataFrame:
    """compare on runs A, B and C (C: A's lines under another tag, so every AP is 0)."""
    qrels, a, b = stats_files
    c = write(tmp_path, "c.run", STATS_A.replace(" A\n", " C\n"))
    argv = ["compare", "-m", "map", "--test", "t", "--format", "tsv", *flags, qrels, a, b, c]
    status, out, err = run_cli(*argv)
    assert status == 0, err
    return pd.read_csv(io.StringIO(out), sep="\t")


def pairs(table: pd.DataFrame) -> list[tuple[str, str, float]]:
    rows = zip(table["run_a"], table["run_b"], table["diff"], strict=True)
    return [(a, b, round(d, 12)) for a, b, d in rows]


def test_compare_baseline_and_all_pairs(stats_files, tmp_path):
    # mean AP: A = 0, B = (1 + 1/2 + 1/3) / 3 = 11/18, C = 0; diff = mean(second) - mean(first)
    mean = round(MEAN, 12)
    assert pairs(many_runs(stats_files, tmp_path)) == [("A", "B", mean), ("A", "C", 0.0)]
    assert pairs(many_runs(stats_files, tmp_path, "--baseline", "B")) == [
        ("B", "A", -mean),
        ("B", "C", -mean),
    ]
    assert pairs(many_runs(stats_files, tmp_path, "--all-pairs")) == [
        ("A", "B", mean),
        ("A", "C", 0.0),
        ("B", "C", -mean),
    ]


# Three runs: the table of each run against A adds A vs C (every difference zero, p = 1) for
# both measures, so four p-values are adjusted together: 0.0927, 0.1835, 1, 1.
CORRECTIONS_OF_FOUR = {
    "none": (P_MAP, P_P2),
    "bonferroni": (4 * P_MAP, 4 * P_P2),
    # Holm: 4 p1, then max(4 p1, 3 p2); the two 1s stay 1
    "holm": (4 * P_MAP, max(4 * P_MAP, 3 * P_P2)),
    # BH: p2 * 4/2, then min(p1 * 4/1, that); the 1s: min(1 * 4/3, 1) = 1
    "bh": (min(4 * P_MAP, 4 / 2 * P_P2), 4 / 2 * P_P2),
}


@pytest.mark.parametrize("correction", CORRECTIONS_OF_FOUR)
def test_compare_correction_across_a_table_of_runs(stats_files, tmp_path, correction):
    flags = ("-m", "P.2") + (("--correction", correction) if correction != "holm" else ())
    table = many_runs(stats_files, tmp_path, *flags).set_index(["measure", "run_b"])
    assert table.loc[("map", "C"), "p"] == 1.0 and table.loc[("P_2", "C"), "p"] == 1.0
    adjusted = (table.loc[("map", "B"), "p_adjusted"], table.loc[("P_2", "B"), "p_adjusted"])
    assert adjusted == pytest.approx(CORRECTIONS_OF_FOUR[correction], rel=1e-12)
    assert table.loc[("map", "C"), "p_adjusted"] == 1.0


def test_explain_minus_j_lists_the_ranking_without_negative_grades(tmp_path):
    # n (grade -1, trec_eval's "not in pool") leaves the ranking under -J; z (judged 0)
    # stays: the table shows z at rank 1 and a at rank 2, P@2 = 1/2 (without -J: n, z, a).
    case = CASES["-J negative grade"]
    qrels, run = write(tmp_path, "qrels", case.qrels), write(tmp_path, "run", case.run)
    argv = ["explain", qrels, run, "--topic", "1", "--format", "tsv"]
    for flags, docnos in (((), ["n", "z", "a"]), (("-J",), ["z", "a"])):
        status, out, err = run_cli(*argv, *flags)
        assert status == 0, err
        table = pd.read_csv(io.StringIO(out.split("\n\n")[0]), sep="\t", dtype={"docno": str})
        assert list(table["docno"]) == docnos
        assert list(table["rank"]) == list(range(1, len(docnos) + 1))
