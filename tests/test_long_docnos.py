"""MS MARCO v2's long docnos (`msmarco_passage_00_123456`) joined past the beginning they
share (`joins._common_prefix`): the same grades and the same ties, broken by docno in
byte order descending as trec_eval's strcmp, as the whole docnos give."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pyarrow as pa
import pytest

import irscore
from irscore.cli import main
from irscore.engine.system import joins

P = "msmarco_passage_"
# Topic 1: four docnos tied at 5.0, of different lengths; in byte order descending
# (the order trec_eval ranks a tie in): 01_1 > 00_9 > 00_100 > 00_10
# ('1' > '0' at byte 17; '9' > '1' at byte 19; 00_100 is 00_10 and one byte more).
# Twenty untied filler docnos below them (scores 4.0 down), so that the tie is a small
# share of the rows and the join matches words, not strings.
TIED = ["00_10", "00_100", "00_9", "01_1"]
FILLER = [f"02_{i}" for i in range(20)]


def write(folder, relevant: str) -> tuple[str, str]:
    """Topic 1's run (the tie, then the filler) and qrels judging `relevant` (grade 2)
    and one filler docno (grade 0); topic 2 retrieves its one relevant docno first."""
    run = [f"1 Q0 {P}{d} 1 5.0 v2\n" for d in TIED]
    run += [f"1 Q0 {P}{d} 1 {4.0 - i / 10} v2\n" for i, d in enumerate(FILLER)]
    run += [f"2 Q0 {P}{d} 1 {9 - i} v2\n" for i, d in enumerate(["05_7", *FILLER])]
    qrels = f"1 0 {P}{relevant} 2\n1 0 {P}02_3 0\n2 0 {P}05_7 1\n"
    (folder / "run").write_text("".join(run))
    (folder / "qrels").write_text(qrels)
    return str(folder / "qrels"), str(folder / "run")


@pytest.mark.parametrize(
    ("relevant", "rank"),
    [("01_1", 1), ("00_9", 2), ("00_100", 3), ("00_10", 4)],
)
def test_a_tie_of_long_docnos_is_ranked_by_bytes_descending(tmp_path, relevant, rank):
    """One relevant document at `rank`: reciprocal rank and AP 1/rank, P_5 1/5 (the tie
    fills ranks 1-4)."""
    qrels, run = write(tmp_path, relevant)
    table = irscore.evaluate(qrels, run, measures=["recip_rank", "map", "P_5"])
    value = dict(zip(zip(table["topic"], table["measure"], strict=True), table["value"],
                     strict=True))  # fmt: skip
    assert value[("1", "recip_rank")] == pytest.approx(1 / rank)
    assert value[("1", "map")] == pytest.approx(1 / rank)
    assert value[("1", "P_5")] == pytest.approx(1 / 5)
    assert value[("2", "recip_rank")] == 1.0


def test_the_shared_beginning_is_what_the_join_skips():
    """Every docno here begins `msmarco_passage_0` (17 bytes: 00_, 01_, 02_, 05_); a
    qrels docno that is too short to leave a byte after it shortens it; one that does
    not share the sampled beginning (`msmarco_doc_`) leaves the whole strings to the
    sort, as do docnos of 16 bytes or fewer."""
    run = pa.array([P + d for d in TIED + FILLER])
    assert joins._common_prefix(pa.array([P + "05_7"]), run) == 17
    assert joins._common_prefix(pa.array([P]), run) == 15
    assert joins._common_prefix(pa.array(["msmarco_doc_00_1"]), run) == 0
    assert joins._common_prefix(pa.array(["x"]), run) == 0
    assert joins._common_prefix(pa.array(["a"]), pa.array(["FBIS3-10082"])) == 0


def test_the_join_by_words_past_the_beginning_is_the_sort_of_whole_strings():
    """`_matched` past the shared beginning gives the grades and the ties' byte order of
    the sort of whole docnos (`join` without scores takes the sort)."""
    rng = np.random.default_rng(3)
    ids = rng.choice(10**7, 4000, replace=False)
    docnos = [f"{P}{i % 70:02d}_{i // 70 * 1009}" for i in ids]
    r_topic = np.repeat(np.arange(4), 1000)
    r_score = np.round(rng.uniform(0, 5, 4000), 3)  # ties: under a quarter of the rows
    q_rows = rng.choice(4000, 300, replace=False)
    q_topic, q_grade = r_topic[q_rows], rng.integers(-1, 4, 300)
    q_docno, r_docno = pa.array([docnos[i] for i in q_rows]), pa.array(docnos)
    skip = joins._common_prefix(q_docno, r_docno)
    assert skip == 16  # `msmarco_passage_`, then 00 to 69
    matched = joins._matched(q_topic, q_docno, q_grade, r_topic, r_docno, r_score, skip)
    assert matched is not None
    whole = joins.join(q_topic, q_docno, q_grade, r_topic, r_docno)  # by the sort
    assert (matched.grade == whole.grade).all()
    tied = joins._tied_rows(r_topic, r_score)
    assert len(tied) > 100
    for t in range(4):  # within each tie, the same order of docnos
        rows = tied[r_topic[tied] == t]
        assert (np.argsort(matched.doc[rows]) == np.argsort(whole.doc[rows])).all()


def test_the_command_prints_the_small_file_path_s_bytes(tmp_path, monkeypatch):
    """The engine (past the small-file path, which compares whole strings) prints the
    same bytes as that path."""
    qrels, run = write(tmp_path, "00_100")
    texts = []
    for plain in ("", "0"):
        monkeypatch.setenv("IRSCORE_PLAIN_BYTES", plain)
        out = io.StringIO()
        with redirect_stdout(out), redirect_stderr(io.StringIO()):
            assert main(["evaluate", "-q", "-m", "all_trec", qrels, run]) == 0
        texts.append(out.getvalue())
    assert texts[0] == texts[1]
    assert "recip_rank            \t1\t0.3333\n" in texts[0]
