"""`irscore.compare` over many runs (the systems table `irscore compare` prints) and
Tukey's HSD among its tests, checked by hand and against scipy's own output."""

from __future__ import annotations

import argparse

import pytest
from scipy import stats

import irscore
from irscore.cli import compare as compare_cli

# One relevant document per topic; each run puts it at the rank that gives it the
# reciprocal ranks below (documents x1.. are unjudged and scored above it).
QRELS = {q: {"r": 1} for q in ("q1", "q2", "q3")}
RANKS = {"A": (1, 2, 4), "B": (1, 1, 2), "C": (4, 4, 2)}


def _run(ranks):
    run = {}
    for topic, rank in zip(("q1", "q2", "q3"), ranks, strict=True):
        docs = {f"x{i}": 10.0 - i for i in range(rank - 1)}
        run[topic] = {**docs, "r": 1.0}
    return run


RUNS = {name: _run(ranks) for name, ranks in RANKS.items()}


def test_tukey_hsd_by_hand_and_against_scipy():
    table = irscore.compare(QRELS, RUNS, measures="recip_rank", tests="tukey", all_pairs=True)
    a, b, c = [1, 1 / 2, 1 / 4], [1, 1, 1 / 2], [1 / 4, 1 / 4, 1 / 2]
    # means 7/12, 10/12, 4/12; within-system sums of squares:
    # A: (5/12)^2 + (1/12)^2 + (4/12)^2 = 42/144, B: 2 (2/12)^2 + (4/12)^2 = 24/144,
    # C: 2 (1/12)^2 + (2/12)^2 = 6/144; MSE = (72/144) / (9 - 3) = 1/12;
    # standard error sqrt(MSE / 3) = 1/6; q = |difference| / (1/6)
    rows = {(r.run_a, r.run_b): r for r in table.tests.itertuples()}
    expected_q = {("A", "B"): 1.5, ("A", "C"): 1.5, ("B", "C"): 3.0}
    scipy_result = stats.tukey_hsd(a, b, c)
    index = {"A": 0, "B": 1, "C": 2}
    for pair, q in expected_q.items():
        row = rows[pair]
        assert row.diff == pytest.approx(
            {"AB": 3 / 12, "AC": -3 / 12, "BC": -6 / 12}["".join(pair)]
        )
        assert abs(row.diff) / (1 / 6) == pytest.approx(q)
        p = stats.studentized_range.sf(q, 3, 6)
        assert row.p == pytest.approx(p, rel=1e-6)  # the studentized range, k = 3, df = 6
        assert row.p == pytest.approx(scipy_result.pvalue[index[pair[0]], index[pair[1]]])
        assert row.p_adjusted == row.p  # the HSD's own adjustment, nothing more
        assert row.test == "tukey" and row.n == 3
    assert not table.tests["significant"].any()  # p(B, C) = 0.17
    assert "Tukey's HSD over the 3 systems" in table.footnote
    assert "Tukey's HSD over the 3 systems" in table.markdown()


def test_many_runs_give_the_table_the_command_line_prints(tmp_path):
    (tmp_path / "q").write_text("".join(f"{q} 0 r 1\n" for q in QRELS))
    paths = []
    for name, run in RUNS.items():
        lines = [
            f"{q} Q0 {d} {i} {s} {name}\n"
            for q, docs in run.items()
            for i, (d, s) in enumerate(docs.items(), 1)
        ]
        (tmp_path / name).write_text("".join(lines))
        paths.append(str(tmp_path / name))
    for test in ("t", "tukey"):
        table = irscore.compare(tmp_path / "q", paths, measures="recip_rank", tests=test)
        assert list(table.means.index) == ["A", "B", "C"] and table.baseline == "A"
        args = _cli_args(str(tmp_path / "q"), paths, test)
        printed = compare_cli.run(args)
        assert printed.endswith(table.markdown()), test
        assert table.checks == [] and "checks:\n  none\n" in printed


def test_baseline_and_bad_requests():
    table = irscore.compare(QRELS, RUNS, measures="recip_rank", baseline="B")
    assert table.baseline == "B" and set(table.tests["run_a"]) == {"B"}
    with pytest.raises(ValueError, match="baseline 'D': not one of the runs"):
        irscore.compare(QRELS, RUNS, measures="recip_rank", baseline="D")
    with pytest.raises(ValueError, match="one test"):
        irscore.compare(QRELS, RUNS, measures="recip_rank", tests=["t", "wilcoxon"])
    with pytest.raises(ValueError, match="exclude each other"):
        irscore.compare(QRELS, RUNS, measures="recip_rank", baseline="A", all_pairs=True)
    with pytest.raises(ValueError, match="baseline and all_pairs are for many runs"):
        irscore.compare(QRELS, RUNS["A"], RUNS["B"], baseline="A")


def test_tukey_needs_the_systems_table(tmp_path):
    (tmp_path / "q").write_text("q1 0 r 1\n")
    for name in "ab":
        (tmp_path / name).write_text(f"q1 Q0 r 1 1 {name}\n")
    args = _cli_args(str(tmp_path / "q"), [str(tmp_path / "a"), str(tmp_path / "b")], "tukey")
    with pytest.raises(Exception, match="--test tukey tests many systems at once"):
        compare_cli.run(args)


def _cli_args(qrels: str, runs: list[str], test: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    compare_cli.add_parser(parser.add_subparsers())
    return parser.parse_args(["compare", qrels, *runs, "-m", "recip_rank", "--test", test])
