"""Several runs in trec_eval's layout told apart by a runid line each; measures in the order
asked; swapped qrels and run files named as such."""

from __future__ import annotations

import pytest
from cli_calls import called as cli

QRELS = "1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 d 1\n2 0 e 0\n"
# AP: topic 1 (a, c relevant): b a c -> (1/2 + 2/3) / 2 = 7/12; topic 2: e d -> 1/2
RUN_X = "1 Q0 b 1 0.9 x\n1 Q0 a 2 0.5 x\n1 Q0 c 3 0.4 x\n2 Q0 e 1 0.9 x\n2 Q0 d 2 0.2 x\n"
# topic 1: a c b -> 1; topic 2: d e -> 1
RUN_Y = "1 Q0 a 1 0.9 y\n1 Q0 c 2 0.5 y\n1 Q0 b 3 0.4 y\n2 Q0 d 1 0.9 y\n2 Q0 e 2 0.2 y\n"
MAP_X, MAP_Y = (7 / 12 + 1 / 2) / 2, 1.0


@pytest.fixture
def files(tmp_path):
    for name, text in (("qrels", QRELS), ("x.run", RUN_X), ("y.run", RUN_Y), ("z.run", RUN_X)):
        (tmp_path / name).write_text(text)
    return tmp_path


def line(measure: str, topic: str, value: str) -> str:
    return f"{measure:<22s}\t{topic}\t{value}"


@pytest.mark.parametrize("engine", [False, True], ids=["plain", "engine"])
def test_each_run_s_block_starts_with_its_runid(files, monkeypatch, engine):
    if engine:  # not the plain path for small files: the engine, on two workers
        monkeypatch.setenv("IRSCORE_MAX_LINE", "100000")
    q, x, y, z = (str(files / n) for n in ("qrels", "x.run", "y.run", "z.run"))
    _, out, _ = cli("evaluate", "-m", "map", q, x, y)
    assert out.splitlines() == [
        line("runid", "all", "x"),
        line("map", "all", f"{MAP_X:6.4f}"),
        line("runid", "all", "y"),
        line("map", "all", f"{MAP_Y:6.4f}"),
    ]
    # x and z share their tag: the files name them
    _, out, _ = cli("evaluate", "-m", "map", "-q", q, x, z)
    assert [entry for entry in out.splitlines() if entry.startswith("runid")] == [
        line("runid", "all", x),
        line("runid", "all", z),
    ]
    # trec_eval's own runid line leads each block already: printed once
    _, out, _ = cli("evaluate", q, x, y)
    assert [entry for entry in out.splitlines() if entry.startswith("runid")] == [
        line("runid", "all", "x"),
        line("runid", "all", "y"),
    ]
    # one run: trec_eval's bytes, no heading
    _, out, _ = cli("evaluate", "-m", "map", q, x)
    assert out == line("map", "all", f"{MAP_X:6.4f}") + "\n"


def test_the_long_table_names_runs_of_one_tag_by_their_files(files):
    q, x, y, z = (str(files / n) for n in ("qrels", "x.run", "y.run", "z.run"))
    _, out, _ = cli("evaluate", "-m", "map", "--format", "tsv", q, x, z)
    assert [row.split("\t")[0] for row in out.splitlines()[1:]] == [x, z]
    _, out, _ = cli("evaluate", "-m", "map", "--format", "tsv", q, x, y)
    assert [row.split("\t")[0] for row in out.splitlines()[1:]] == ["x", "y"]


def test_measures_come_back_in_the_order_asked(files):
    q, x = str(files / "qrels"), str(files / "x.run")
    _, out, _ = cli("evaluate", "-m", "nDCG@10", "-m", "P(rel=2)@5", "-m", "AP", q, x)
    assert [entry.split()[0] for entry in out.splitlines()] == ["nDCG@10", "P(rel=2)@5", "AP"]
    # trec_eval's names given together: trec_eval's order (m_map.c before m_P.c), as
    # `trec_eval -m P.5 -m map` prints them
    _, out, _ = cli("evaluate", "-m", "P.5", "-m", "map", q, x)
    assert [entry.split()[0] for entry in out.splitlines()] == ["map", "P_5"]


def test_swapped_qrels_and_run_get_a_hint(files):
    q, x = str(files / "qrels"), str(files / "x.run")
    status, _, err = cli("evaluate", x, q)
    assert status == 2
    assert err == (
        f"irscore: error: {x}:1: expected 4 columns, found 6 (looks like a run; did you "
        "swap QRELS and RUN?): '1 Q0 b 1 0.9 x'\n"
    )
