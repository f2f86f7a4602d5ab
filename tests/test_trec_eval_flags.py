"""trec_eval's own flags on `irscore evaluate`: -v, -Z, -N, -T, -D (trec_eval.c), with the
values worked out by hand."""

from __future__ import annotations

import pytest

from irscore.cli import main

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 1\n2 0 d 1\n"
RUN = "1 Q0 a 1 0.9 r\n1 Q0 b 2 0.8 r\n2 Q0 x 1 0.5 r\n2 Q0 d 2 0.4 r\n"
# topic 1: relevant at rank 1 of 2 (R = 2): P_5 = 1/5, map = (1/1) / 2 = 0.5
# topic 2: relevant at rank 2 of 2 (R = 1): P_5 = 1/5, map = (1/2) / 1 = 0.5


@pytest.fixture
def files(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    return tmp_path


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["evaluate", *args])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize(
    ("compat", "line"),
    [([], "trec_eval version 9.0.7"), (["--compat", "trec_eval10"], "trec_eval version 10.0-rc3")],
)
def test_v_prints_trec_eval_s_version_line_and_stops(capsys, compat, line):
    # what the binaries built from the v9.0.8 and v10.0 tags print (their Makefiles' text)
    assert run(capsys, *compat, "-v") == (0, "", line + "\n")


def test_without_v_the_files_are_required(capsys):
    status, out, err = run(capsys, "-m", "map")
    assert status == 2 and out == "" and "qrels file" in err


def test_z_scores_against_a_file(files, capsys):
    # P_5: mean 0.1, stddev 0.05 for topic 1: (0.2 - 0.1) / 0.05 = 2; topic 2 has P_5 with
    # stddev 0 and mean 0.2 = its value: 0; map of topic 2 is not in the file: -1000000,
    # as convert_zscores.c says (the 9.0.8 and 10.0 binaries crash on such a file)
    (files / "z").write_text("1 P_5 0.1 0.05\n1 map 0.5 0.25\n2 P_5 0.2 0\n")
    status, out, err = run(
        capsys,
        "-q",
        "-m",
        "P.5",
        "-m",
        "map",
        "-Z",
        str(files / "z"),
        str(files / "q"),
        str(files / "r"),
    )
    assert status == 0, err
    assert out.splitlines() == [
        "Zmap                   \t1\t0.0000",  # (0.5 - 0.5) / 0.25
        "ZP_5                   \t1\t2.0000",
        "Zmap                   \t2\t-1000000.0000",
        "ZP_5                   \t2\t0.0000",
        "Zmap                   \tall\t-500000.0000",  # (0 - 1000000) / 2
        "ZP_5                   \tall\t1.0000",  # (2 + 0) / 2
    ]


def test_z_file_errors_name_the_line(files, capsys):
    (files / "z").write_text("1 P_5 0.1 0.05\n1 P_5 x 1\n")
    status, _, err = run(capsys, "-Z", str(files / "z"), str(files / "q"), str(files / "r"))
    assert status == 2 and ":2:" in err and "numbers" in err


def test_n_gives_utility_its_collection_size(files, capsys):
    # topic 1: 1 relevant retrieved, 1 non-relevant retrieved, 1 relevant missed; with
    # -N 10 the rest is 10 + 1 - 2 - 2 = 7: 1*1 - 1*1 + 0*1 + 0.5*7 = 3.5
    status, out, _ = run(
        capsys, "-q", "-N", "10", "-m", "utility.1,-1,0,0.5", str(files / "q"), str(files / "r")
    )
    assert status == 0
    assert out.splitlines()[0] == "utility_1,-1,0,0.5    \t1\t3.5000"


def test_t_names_the_one_results_format(files, capsys):
    ok = run(capsys, "-T", "trec_results", "-m", "map", str(files / "q"), str(files / "r"))
    assert ok[0] == 0 and ok[1] == "map                   \tall\t0.5000\n"
    status, out, err = run(capsys, "-T", "other", str(files / "q"), str(files / "r"))
    assert (status, out) == (2, "") and "trec_results" in err


def test_d_is_accepted_with_a_note(files, capsys):
    status, out, err = run(capsys, "-D", "1", "-m", "map", str(files / "q"), str(files / "r"))
    assert status == 0 and out == "map                   \tall\t0.5000\n"
    assert "debug traces are not reproduced" in err
    status, out, err = run(capsys, "-D", "1.2", str(files / "q"), str(files / "r"))
    assert (status, out) == (2, "") and "one-topic" in err
