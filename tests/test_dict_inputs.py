"""pytrec_eval-style dicts give the values of the same judgments and results read from files.

`irscore.evaluate` prepares the usual dict (str ids, int or float values) straight
from the dicts (`ranking.from_dicts`), and takes anything else apart as frames, in
bulk (`inputs._flat_columns`) or one value at a time; every way must score exactly
as the TREC files written from the same dicts do: ties broken by docno, unjudged
documents, negative grades, a judged topic without results and results for an
unjudged topic, empty topics, ids given as numbers.
"""

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irscore
from irscore.engine.ranking import from_dicts
from irscore.engine.reading import inputs

MEASURES = ["all_trec"]
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def write_files(folder: Path, qrels: dict, run: dict) -> tuple[str, str]:
    """The dicts as a qrels and a run file (ranks in dict order, as a dict run's are)."""
    qrels_path, run_path = folder / "qrels", folder / "run"
    qrels_path.write_text(
        "".join(f"{t} 0 {d} {g}\n" for t, docs in qrels.items() for d, g in docs.items())
    )
    run_path.write_text(
        "".join(
            f"{t} Q0 {d} {i + 1} {s!r} run\n"
            for t, docs in run.items()
            for i, (d, s) in enumerate(docs.items())
        )
    )
    return str(qrels_path), str(run_path)


def values(table: pd.DataFrame) -> dict:
    """(topic, measure) -> value of a long table."""
    pairs = zip(table["topic"], table["measure"], strict=True)
    return dict(zip(pairs, table["value"], strict=True))


def small() -> tuple[dict, dict]:
    """Ties in score (broken by docno descending: d3 before d2 before d10), an unjudged
    d9, a negative grade, topic t3 judged without results and t4 retrieved unjudged,
    and a topic with an empty dict on each side (no topic at all, as in a file)."""
    qrels = {
        "t1": {"d1": 1, "d2": 2, "d3": -1, "d10": 1},
        "t2": {"x": 0, "y": 3},
        "t3": {"z": 1},
        "t5": {},
    }
    run = {
        "t1": {"d10": 0.5, "d2": 0.5, "d3": 0.5, "d9": 0.7, "d1": 0.1},
        "t2": {"y": 2, "x": 2, "w": 1},  # integer scores, tied
        "t4": {"a": 1.0},
        "t6": {},
    }
    return qrels, run


def large() -> tuple[dict, dict]:
    """70 topics x 1,000 distinct docnos (past `inputs._SAMPLE`, so the run's docnos stay
    plain strings), scores rounded to make ties, a tenth judged with grades -1 to 3."""
    rng = np.random.default_rng(5)
    run, qrels = {}, {}
    for t in range(70):
        docnos = [f"doc-{t}-{d}" for d in rng.permutation(1000)]
        scores = np.round(rng.gamma(2.0, 2.0, 1000), 1)
        run[f"q{t}"] = dict(zip(docnos, scores.tolist(), strict=True))
        judged = rng.random(1000) < 0.1
        grades = rng.choice([-1, 0, 1, 2, 3], 1000)
        qrels[f"q{t}"] = {d: int(g) for d, g, j in zip(docnos, grades, judged, strict=True) if j}
    qrels["q_missing"] = {"nowhere": 1}
    return qrels, run


@pytest.mark.parametrize("make", [small, large])
def test_dicts_score_as_their_files(tmp_path, make):
    qrels, run = make()
    judged = from_dicts.judgments(qrels)  # the dicts' own path is the one tested
    assert judged is not None and from_dicts.prepared(judged, run, "run") is not None
    scored = irscore.evaluate(qrels, run, measures=MEASURES)
    from_files = irscore.evaluate(*write_files(tmp_path, qrels, run), measures=MEASURES)
    assert values(scored) == values(from_files)


@pytest.mark.parametrize("halved", [False, True])
@pytest.mark.parametrize("make", [small, large])
def test_dicts_score_as_their_frames_under_every_convention(monkeypatch, make, halved):
    """Straight from the dicts and through the frames (`_flat_columns`, the general path),
    the same value to the bit for every measure under every convention of the grid
    (ties broken by docno either way, by number, by rank or file order, by grade), and
    the same warnings; prepared whole or (`halved`) in two halves of the topics."""
    qrels, run = make()
    if halved:
        monkeypatch.setattr(from_dicts, "_HALVED_ROWS", 1)
        assert len(from_dicts.prepared(from_dicts.judgments(qrels), run, "run")) == 2
    grid = list(irscore.engine.ranking.conventions.DEFAULT_GRID)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        scored = irscore.evaluate(qrels, run, measures=MEASURES, convention=grid)
    monkeypatch.setattr(from_dicts, "judgments", lambda qrels: None)
    with warnings.catch_warnings(record=True) as framed_said:
        warnings.simplefilter("always")
        framed = irscore.evaluate(qrels, run, measures=MEASURES, convention=grid)
    assert [str(w.message) for w in said] == [str(w.message) for w in framed_said]
    assert len(scored) == len(framed)
    assert scored.equals(framed)


def test_small_dicts_by_hand():
    """t1's ranking: d9 (0.7, unjudged), then the tie at 0.5 by docno descending: d3
    (grade -1), d2 (2), d10 (1), then d1 (1). Relevant: d2, d10, d1 (3 of them).
    AP = (1/3 + 2/4 + 3/5) / 3 = 1.4333.../3; P_5 = 3/5. t2: y and x tie at 2, y first
    (y > x): AP = 1/1 / 1 = 1. t3 (judged, no results) is left out of the mean without
    -c, and t4 (no judgments) too: the mean is over t1 and t2."""
    qrels, run = small()
    table = values(irscore.evaluate(qrels, run, measures=["map", "P_5"]))
    assert table[("t1", "map")] == pytest.approx((1 / 3 + 2 / 4 + 3 / 5) / 3)
    assert table[("t1", "P_5")] == pytest.approx(3 / 5)
    assert table[("t2", "map")] == pytest.approx(1.0)
    assert table[("all", "map")] == pytest.approx(((1 / 3 + 2 / 4 + 3 / 5) / 3 + 1) / 2)


def test_numbers_as_ids_score_as_their_text(tmp_path):
    """Ids given as ints (not taken apart in bulk) are their text, as in a file."""
    qrels = {1: {10: 1, 2: 0}, 2: {5: 2}}
    run = {1: {10: 0.3, 2: 0.3, 7: 0.9}, 2: {5: 1.5, 6: 1.5}}
    assert inputs._flat_columns(run, "score") is None
    assert from_dicts.judgments(qrels) is None
    scored = irscore.evaluate(qrels, run, measures=MEASURES)
    from_files = irscore.evaluate(*write_files(tmp_path, qrels, run), measures=MEASURES)
    assert values(scored) == values(from_files)


@pytest.mark.parametrize(
    ("run", "message"),
    [
        ({"t1": {"d1": float("nan")}}, "run of topic 't1', docno 'd1': score nan is not finite"),
        ({"t1": {"d 1": 1.0}}, "'d 1' is empty or contains whitespace"),
        ({"t1": {"d1": "high"}}, "score 'high' is not finite"),
    ],
)
def test_bad_dict_values_name_their_topic_and_docno(run, message):
    with pytest.raises(irscore.InputError, match=message.replace("(", r"\(")):
        irscore.evaluate({"t1": {"d1": 1}}, run, measures=["map"])


def test_a_grade_that_is_not_whole_names_its_topic_and_docno():
    with pytest.raises(irscore.InputError, match=r"topic 't1', docno 'd2': 1.5 is not a whole"):
        irscore.evaluate({"t1": {"d1": 1, "d2": 1.5}}, {"t1": {"d1": 1.0}}, measures=["map"])


def test_dicts_score_as_pytrec_eval():
    """pytrec_eval's values (to 1e-9) on the generator's dicts: exact and float32-only
    ties, grades -1 to 3, unjudged results, topics on one side only. pytrec_eval leaves
    out a topic whose every grade is negative, so the topics both score are compared."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from dicts import dicts

    qrels, run = dicts(40, 200, 7)
    qrels["only_judged"], run["only_retrieved"] = {"a": 1}, {"b": 1.0}
    assert from_dicts.prepared(from_dicts.judgments(qrels), run, "run") is not None
    names = {"map": "map", "P_10": "P_10", "ndcg_cut_10": "ndcg_cut_10", "recip_rank": "recip_rank"}
    ours = values(irscore.evaluate(qrels, run, measures=list(names)))
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P.10", "ndcg_cut.10", "recip_rank"})
    compared = 0
    for topic, measured in theirs.evaluate(run).items():
        for name, key in names.items():
            assert ours[(topic, name)] == pytest.approx(measured[key], abs=1e-9), (topic, name)
            compared += 1
    assert compared >= 4 * 35


def test_named_dict_runs_score_as_their_frames(monkeypatch):
    """A mapping name -> dict run: each run prepared from the dicts against the qrels read
    once, named as given, the same table as through the frames."""
    qrels, run = small()
    other = {topic: {d: -s for d, s in docs.items()} for topic, docs in run.items()}
    runs = {"a": run, 2: other}
    scored = irscore.evaluate(qrels, runs, measures=["map", "P_5"])
    assert set(scored["run"]) == {"a", "2"}
    monkeypatch.setattr(from_dicts, "judgments", lambda qrels: None)
    assert scored.equals(irscore.evaluate(qrels, runs, measures=["map", "P_5"]))
