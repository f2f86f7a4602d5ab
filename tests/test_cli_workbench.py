"""The workbench commands on the command line, compare's slips, and no traceback anywhere."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pandas as pd
import pytest
from cli_calls import called as run_cli

QRELS = "1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 d 1\n2 0 e 0\n3 0 f 1\n"
RUN_A = "1 Q0 b 1 0.9 A\n1 Q0 a 2 0.5 A\n1 Q0 c 3 0.4 A\n2 Q0 e 1 0.9 A\n2 Q0 d 2 0.2 A\n"
RUN_A += "3 Q0 x 1 0.9 A\n3 Q0 f 2 0.1 A\n"
RUN_B = "1 Q0 a 1 0.9 B\n1 Q0 c 2 0.5 B\n1 Q0 b 3 0.4 B\n2 Q0 d 1 0.9 B\n2 Q0 e 2 0.2 B\n"
RUN_B += "3 Q0 f 1 0.9 B\n3 Q0 x 2 0.1 B\n"


@pytest.fixture
def files(tmp_path):
    paths = {"qrels": tmp_path / "qrels", "a": tmp_path / "a.run", "b": tmp_path / "b.run"}
    paths["qrels"].write_text(QRELS)
    paths["a"].write_text(RUN_A)
    paths["b"].write_text(RUN_B)
    paths["c"] = tmp_path / "c.run"  # run A's rankings under another file and the same tag
    paths["c"].write_text(RUN_A)
    return paths


def test_explain_acceptance_line():
    status, out, err = run_cli("explain", "--grades", "3,2,3,0,1,2", "--missed", "3,2", "-k", "6")
    assert status == 0 and err == ""
    assert "= 6.8611" in out and "= 8.7403" in out and "nDCG@6 = " in out and "= 0.7850" in out
    assert max(len(line) for line in out.splitlines()) <= 100


def test_explain_from_a_run_equals_evaluate(files):
    status, out, _ = run_cli(
        "explain", files["qrels"], files["a"], "--topic", "1", "--format", "json"
    )
    assert status == 0
    got = {f["measure"]: f["value"] for f in json.loads(out)["final"]}
    status, out, _ = run_cli(
        "evaluate",
        "-q",
        "--format",
        "tsv",
        "-m",
        "map",
        "-m",
        "P.10",
        "-m",
        "ndcg_cut.10",
        files["qrels"],
        files["a"],
    )
    table = pd.read_csv(io.StringIO(out), sep="\t", dtype={"topic": str})
    truth = table[table["topic"] == "1"].set_index("measure")["value"]
    # topic 1: b (0), a (2), c (1): AP = (1/2 + 2/3)/2 = 0.5833
    assert got["map"] == truth["map"] == pytest.approx((1 / 2 + 2 / 3) / 2)
    assert got["P_10"] == truth["P_10"] and got["ndcg_cut_10"] == truth["ndcg_cut_10"]


def test_explain_plot_and_tsv(files, tmp_path):
    plot = tmp_path / "explain.png"
    status, out, _ = run_cli("explain", "--grades", "3,?,1", "--format", "tsv", "--plot", plot)
    assert status == 0 and plot.stat().st_size > 10_000
    ranks, finals = out.split("\n\n")
    assert ranks.splitlines()[0].startswith("rank\tdocno\tscore\tgrade\trelevant")
    assert ranks.splitlines()[2].split("\t")[3] == "?"
    assert finals.splitlines()[0] == "measure\tlabel\tvalue\tformula"
    # every number as the shortest text that reads back exactly (no numpy reprs):
    # P@1 = 1/1, R = 2 (grades 3 and 1), recall@3 = 2/2, AP = (1/1 + 2/3)/2 = 5/6
    first = ranks.splitlines()[1].split("\t")
    assert first[:7] == ["1", "d1", "3.0", "3", "yes", "1.0", "0.5"]
    values = {row.split("\t")[0]: row.split("\t")[2] for row in finals.splitlines()[1:]}
    assert values["num_rel"] == "2.0" and values["map"] == repr((1 / 1 + 2 / 3) / 2)


def test_interleave_is_deterministic(files, tmp_path):
    argv = [
        "interleave",
        files["qrels"],
        files["a"],
        files["b"],
        "--impressions",
        "300",
        "--click-model",
        "navigational",
        "--seed",
        "5",
    ]
    outputs = []
    for name in ("one", "two"):
        log, plot = tmp_path / f"{name}.tsv", tmp_path / f"{name}.png"
        status, out, err = run_cli(*argv, "--log", log, "--plot", plot)
        assert status == 0 and err == ""
        outputs.append((out, log.read_bytes(), plot.read_bytes()))
    assert outputs[0] == outputs[1]
    assert "wins A: " in outputs[0][0] and "A = A; B = B; 300 impressions" in outputs[0][0]
    assert outputs[0][1].count(b"\n") == 301


def test_pool_is_deterministic(tmp_path):
    texts = []
    for name in ("one", "two"):
        status, out, _ = run_cli("pool", "--out", tmp_path / name, "--seed", "4", "--queries", "5")
        assert status == 0
        texts.append((out, (tmp_path / name / "bm25.run").read_bytes()))
    assert texts[0] == texts[1]
    assert texts[0][0].startswith("5 queries;")


def test_pool_from_runs(files, tmp_path):
    out_file = tmp_path / "pool.txt"
    status, out, _ = run_cli(
        "pool", "--from-runs", files["a"], files["b"], "--depth", "1", out_file
    )
    # top 1: topic 1 b (A), a (B); topic 2 e, d; topic 3 x, f
    assert status == 0 and out_file.read_text() == "1 a\n1 b\n2 d\n2 e\n3 f\n3 x\n"
    status, out, _ = run_cli(
        "pool",
        "--from-runs",
        files["a"],
        files["b"],
        "--depth",
        "1",
        "--qrels",
        files["qrels"],
        out_file,
    )
    assert status == 0 and "1 without a judgment" in out  # x
    assert out_file.read_text() == "1 0 a 2\n1 0 b 0\n2 0 d 1\n2 0 e 0\n3 0 f 1\n"


def test_compare_many_systems_is_deterministic(files):
    argv = [
        "compare",
        files["qrels"],
        files["a"],
        files["b"],
        files["c"],
        "--test",
        "randomization",
        "--B",
        "500",
        "--seed",
        "3",
        "-m",
        "map",
    ]
    for fmt in ("md", "latex", "csv", "text", "tsv", "json"):
        first = run_cli(*argv, "--format", fmt)
        assert first[0] == 0, first[2]
        assert first == run_cli(*argv, "--format", fmt)
    # a.run and c.run share the tag A: told apart by path in every format
    _, out, _ = run_cli(*argv, "--format", "csv")
    assert f"{files['a']}," in out and f"{files['c']}," in out
    _, out, _ = run_cli(*argv, "--format", "tsv")
    assert str(files["c"]) in out


def test_compare_the_same_file_twice(files):
    status, out, err = run_cli("compare", files["qrels"], files["a"], files["a"])
    assert status == 0, err
    assert out.count("A = A (") == 1 and "B = B (" in out
    # every difference is 0: p = 1 and no test is significant
    status, out, _ = run_cli("compare", files["qrels"], files["a"], files["a"], "--format", "tsv")
    table = pd.read_csv(io.StringIO(out), sep="\t")
    assert (table["diff"] == 0).all() and not table["significant"].any()


def test_compare_text_fits_100_columns(files):
    status, out, _ = run_cli("compare", files["qrels"], files["a"], files["b"], "--B", "200")
    assert status == 0
    assert max(len(line) for line in out.splitlines()) <= 100
    status, out, _ = run_cli(
        "compare", files["qrels"], files["a"], files["b"], "--B", "200", "--wide"
    )
    assert max(len(line) for line in out.splitlines()) > 100


@pytest.mark.parametrize(
    ("flags", "name"),
    [
        ((), "reference"),
        (("-J",), "judged_only"),
        (("--tie-break", "docno_asc"), "tie_docno_asc"),
        (("-J", "-l", "2"), "-l 2, -J"),
    ],
)
def test_the_convention_column_names_the_flags(files, flags, name):
    status, out, _ = run_cli(
        "compare", *flags, "--format", "json", "--B", "100", files["qrels"], files["a"], files["b"]
    )
    assert status == 0 and {row["convention"] for row in json.loads(out)} == {name}
    status, out, _ = run_cli("evaluate", *flags, "--format", "tsv", files["qrels"], files["a"])
    assert set(pd.read_csv(io.StringIO(out), sep="\t")["convention"]) == {name}


BAD = [
    ("evaluate",),
    ("evaluate", "{qrels}", "{missing}"),
    ("evaluate", "{missing}", "{a}"),
    ("evaluate", "-m", "nope", "{qrels}", "{a}"),
    ("evaluate", "-M", "0", "{qrels}", "{a}"),
    ("evaluate", "--tie-break", "sideways", "{qrels}", "{a}"),
    ("evaluate", "{qrels}", "{bad}"),
    ("compare", "{qrels}", "{a}"),
    ("compare", "{qrels}", "{a}", "{missing}"),
    ("compare", "--alpha", "2", "{qrels}", "{a}", "{b}"),
    ("compare", "--B", "0", "{qrels}", "{a}", "{b}"),
    ("compare", "--baseline", "zzz", "{qrels}", "{a}", "{b}"),
    ("compare", "--baseline", "A", "--all-pairs", "{qrels}", "{a}", "{b}"),
    ("compare", "--plot", "x.pdf", "{qrels}", "{a}", "{b}"),
    ("compare", "--plot", "x.png", "{qrels}", "{a}", "{b}", "{c}"),
    ("compare", "--correction", "sidak", "{qrels}", "{a}", "{b}"),
    ("compare", "{qrels}", "{bad}", "{b}"),
    ("audit", "{qrels}", "{missing}"),
    ("audit", "--alpha", "0", "{qrels}", "{a}"),
    ("explain",),
    ("explain", "--grades", "3,x"),
    ("explain", "--grades", ""),
    ("explain", "--grades", "1,2", "--scores", "1"),
    ("explain", "--grades", "1,2", "--scores", "a,b"),
    ("explain", "--grades", "1,2", "-k", "0"),
    ("explain", "--grades", "1,2", "--plot", "x.pdf"),
    ("explain", "--grades", "1", "{qrels}"),
    ("explain", "{qrels}", "{a}"),
    ("explain", "{qrels}", "{a}", "--topic", "99"),
    ("explain", "{qrels}", "{missing}", "--topic", "1"),
    ("interleave", "{qrels}", "{a}"),
    ("interleave", "{qrels}", "{a}", "{missing}"),
    ("interleave", "{qrels}", "{a}", "{b}", "--impressions", "0"),
    ("interleave", "{qrels}", "{a}", "{b}", "--click-model", "lazy"),
    ("interleave", "{qrels}", "{a}", "{b}", "--plot", "x.pdf"),
    ("interleave", "{qrels}", "{a}", "{other_topics}"),
    ("pool",),
    ("pool", "--out", "{tmp}/p", "--depth", "30"),
    ("pool", "--out", "{tmp}/p", "--queries", "0"),
    ("pool", "--from-runs", "{a}", "--depth", "0", "{tmp}/p.txt"),
    ("pool", "--from-runs", "{a}"),
    ("pool", "--from-runs", "{missing}", "--depth", "2", "{tmp}/p.txt"),
    ("nonsense",),
]


@pytest.mark.parametrize("argv", BAD, ids=[" ".join(a) for a in BAD])
def test_bad_arguments_are_one_line_and_exit_2(files, tmp_path, argv):
    (tmp_path / "bad.run").write_text("1 Q0 a 1 high t\n")  # a score that is no number
    (tmp_path / "other.run").write_text("9 Q0 a 1 0.5 O\n")
    names = {k: str(v) for k, v in files.items()}
    names |= {
        "missing": str(tmp_path / "missing.run"),
        "bad": str(tmp_path / "bad.run"),
        "other_topics": str(tmp_path / "other.run"),
        "tmp": str(tmp_path),
    }
    done = subprocess.run(
        [sys.executable, "-m", "irscore", *(a.format(**names) for a in argv)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    lines = done.stderr.splitlines()
    assert lines[0].startswith("irscore: error: ")
    # our own errors: exactly one line; an option error adds where to look (argparse's
    # whole usage would bury the line)
    assert lines[1:] in ([], [f"see irscore {argv[0]} --help"], ["see irscore --help"])


def test_parsers_spell_the_library_names():
    from irscore.analysis import corrections
    from irscore.cli import compare
    from irscore.cli import interleave as interleave_cli
    from irscore.workbench import interleave

    assert tuple(corrections.CORRECTIONS) == compare.CORRECTIONS
    assert interleave_cli.METHODS == interleave.METHODS
    assert tuple(interleave.CLICK_MODELS) == interleave_cli.CLICK_MODELS


def test_compare_plot_of_one_pair(files, tmp_path):
    plot = tmp_path / "pair.png"
    status, _, err = run_cli(
        "compare", "--plot", plot, "--B", "300", files["qrels"], files["a"], files["b"]
    )
    assert status == 0, err
    assert plot.read_bytes()[:4] == b"\x89PNG"
