"""trec_eval's preference measures (-R prefs, qrels_prefs) and judgment groups (-R
qrels_jg), worked out by hand (form_prefs_counts.c, m_prefs_*.c, m_*_avgjg.c)."""

from __future__ import annotations

from irscore.cli import main

# Topic 1, one group, one subgroup: a (2) > b (1) > c, d, e (0). The run ranks b, c, a
# (and z, not judged): the judged retrieved are numbered b 0, c 1, a 2; d 3 and e 4 are
# not retrieved. Topic 2, one group of two subgroups: p (1) > q (0) and r (2) > p (1),
# so r > q too (transitively); the run ranks p 0, q 1, r 2.
PREFS = """\
1 g1 s1 a 2
1 g1 s1 b 1
1 g1 s1 c 0
1 g1 s1 d 0
1 g1 s1 e 0
2 g s1 p 1
2 g s1 q 0
2 g s2 r 2
2 g s2 p 1
"""
RUN = """\
1 Q0 b 1 3 r
1 Q0 c 2 2 r
1 Q0 a 3 1 r
1 Q0 z 4 0.5 r
2 Q0 p 1 3 r
2 Q0 q 2 2 r
2 Q0 r 3 1 r
"""


def evaluate(tmp_path, capsys, judgments: str, run: str, *flags: str) -> dict:
    (tmp_path / "j").write_text(judgments)
    (tmp_path / "r").write_text(run)
    status = main(["evaluate", "-q", *flags, str(tmp_path / "j"), str(tmp_path / "r")])
    out, err = capsys.readouterr()
    assert status == 0, err
    rows = [line.split("\t") for line in out.splitlines()]
    return {(topic, name.strip()): value for name, topic, value in rows}


def close(text: str, value: float) -> bool:
    return text == f"{value:6.4f}"


def test_preferences_in_one_subgroup(tmp_path, capsys):
    v = evaluate(tmp_path, capsys, PREFS, RUN, "-R", "prefs", "-m", "all_prefs")
    # a > b (2 above 0): not fulfilled; a > c: not; a > d, a > e: fulfilled, implied (d, e
    # not retrieved); b > c: fulfilled, both retrieved; b > d, b > e: implied, fulfilled
    assert v[("1", "prefs_num_prefs_poss")] == "7"
    assert v[("1", "prefs_num_prefs_ful")] == "5"
    assert v[("1", "prefs_num_prefs_ful_ret")] == "1"  # b > c
    assert close(v[("1", "prefs_simp")], 5 / 7)
    assert close(v[("1", "prefs_simp_ret")], 1 / 3)  # of b>c, a>b, a>c
    assert close(v[("1", "prefs_simp_imp")], 5 / 7)  # no pair has both unretrieved
    assert close(v[("1", "prefs_avgjg")], 5 / 7)  # one group
    assert close(v[("1", "prefs_avgjg_ret")], 1 / 3)
    assert close(v[("1", "prefs_avgjg_imp")], 5 / 7)
    # pairs: (b,c) 1, (b,a) 0, (c,a) 0, (b,d) 1, (b,e) 1, (a,d) 1, (a,e) 1: 5 of 7
    assert close(v[("1", "prefs_pair")], 5 / 7)
    assert close(v[("1", "prefs_pair_ret")], 1 / 3)
    assert close(v[("1", "prefs_pair_imp")], 5 / 7)  # no pair of two unretrieved
    # Rnonrel: N = 3 non-relevant > R = 2: only c and d (the first 2 by docid) count;
    # a > b lost, a > c lost, a > d won, b > c won, b > d won, and (trec_eval's last class
    # set against itself) c>c lost, c>d won, d>c, d>d, e>c, e>d lost: 4 won of 4 + 7
    assert close(v[("1", "prefs_avgjg_Rnonrel")], 4 / 11)
    # _ret: R = 2 retrieved relevant >= N = 1 (c): 1 + 2 * (2 - 1) won of 3 + 2 * (2 - 1)
    assert close(v[("1", "prefs_avgjg_Rnonrel_ret")], 3 / 5)


def test_preferences_of_several_subgroups_close_transitively(tmp_path, capsys):
    v = evaluate(tmp_path, capsys, PREFS, RUN, "-R", "prefs", "-m", "all_prefs")
    # p > q fulfilled; r > p and the implied r > q not (r is ranked last): 1 of 3
    assert v[("2", "prefs_num_prefs_poss")] == "3"
    assert close(v[("2", "prefs_simp")], 1 / 3)
    # R = 2 (p, r) >= N = 1 (q): (1 + 2 * 1) / (3 + 2 * 1)
    assert close(v[("2", "prefs_avgjg_Rnonrel")], 3 / 5)
    assert close(v[("all", "prefs_simp")], (5 / 7 + 1 / 3) / 2)
    assert v[("all", "prefs_num_prefs_poss")] == "10"  # counts add up over topics


def test_qrels_read_as_preferences(tmp_path, capsys):
    # group 0, one subgroup: d1 (1) > d2, d3 (0); ranked d2, d1 (d3 not retrieved)
    qrels = "7 0 d1 1\n7 0 d2 0\n7 0 d3 0\n"
    run = "7 Q0 d2 1 2 r\n7 Q0 d1 2 1 r\n"
    v = evaluate(tmp_path, capsys, qrels, run, "-R", "qrels_prefs", "-m", "prefs")
    # d1 > d2 lost (both retrieved), d1 > d3 won (implied)
    assert close(v[("7", "prefs_simp")], 1 / 2)
    assert v[("7", "prefs_num_prefs_ful_ret")] == "0"


def test_preferences_tie_broken_by_docno_ascending(tmp_path, capsys):
    # equal scores: form_prefs_counts.c ranks a before b (the qrels measures: b first)
    v = evaluate(
        tmp_path,
        capsys,
        "1 g s a 1\n1 g s b 0\n",
        "1 Q0 b 1 1 r\n1 Q0 a 2 1 r\n",
        "-R",
        "prefs",
        "-m",
        "prefs_simp",
    )
    assert close(v[("1", "prefs_simp")], 1.0)


def test_bad_preferences_are_refused(tmp_path, capsys):
    (tmp_path / "r").write_text(RUN)
    for bad, why in [
        ("1 g s a 1\n1 g s a 0\n", "two levels"),
        ("1 g s1 a 1\n1 g s1 b 0\n1 g s2 b 1\n1 g s2 a 0\n", "level 0 and a level above"),
        ("1 g s1 a 2\n1 g s1 b 1\n1 g s2 b 2\n1 g s2 a 1\n", "contradict"),
        ("1 g s a -1\n", "not a number >= 0"),
    ]:
        (tmp_path / "j").write_text(bad)
        status = main(
            ["evaluate", "-R", "prefs", "-m", "all_prefs", str(tmp_path / "j"), str(tmp_path / "r")]
        )
        _, err = capsys.readouterr()
        assert status == 2 and why in err, (bad, err)


def test_measures_need_their_judgments(tmp_path, capsys):
    (tmp_path / "r").write_text(RUN)
    (tmp_path / "j").write_text(PREFS)
    assert main(["evaluate", "-m", "prefs_simp", str(tmp_path / "j"), str(tmp_path / "r")]) == 2
    assert "needs -R prefs" in capsys.readouterr().err
    status = main(
        ["evaluate", "-R", "prefs", "-m", "map", str(tmp_path / "j"), str(tmp_path / "r")]
    )
    assert status == 2 and "map cannot be computed from -R prefs" in capsys.readouterr().err


def test_prefs_note_the_convention_decisions_they_do_not_read(tmp_path, capsys):
    (tmp_path / "j").write_text(PREFS)
    (tmp_path / "r").write_text(RUN)
    args = ["-R", "prefs", "-m", "prefs_simp", "--tie-break", "docno_asc", "-l", "2"]
    assert main(["evaluate", *args, str(tmp_path / "j"), str(tmp_path / "r")]) == 0
    assert "do not read tie_break, rel_level" in capsys.readouterr().err


JG = "1 u1 d1 1\n1 u1 d2 0\n1 u2 d2 1\n"
JG_RUN = "1 Q0 d1 1 2 r\n1 Q0 d2 2 1 r\n"


def test_judgment_groups_average_over_groups(tmp_path, capsys):
    flags = ["-R", "qrels_jg", "-m", "map_avgjg", "-m", "P_avgjg.1", "-m", "Rprec_mult_avgjg.1.0"]
    v = evaluate(tmp_path, capsys, JG, JG_RUN, *flags)
    # u1: d1 relevant at rank 1, AP 1; u2: d2 at rank 2, AP 1/2
    assert close(v[("1", "map_avgjg")], (1 + 1 / 2) / 2)
    assert close(v[("1", "P_avgjg_1")], (1 + 0) / 2)
    # R = 1 in each group: the cut-off (long)(1.0 * 1 + 0.9) = 1
    assert close(v[("1", "Rprec_mult_avgjg_1.00")], (1 + 0) / 2)


def test_judgment_groups_follow_the_convention(tmp_path, capsys):
    # -J drops nothing here (both judged in u1; in u2 d1 is unjudged: u2 ranks d2 first)
    v = evaluate(tmp_path, capsys, JG, JG_RUN, "-R", "qrels_jg", "-J", "-m", "map_avgjg")
    assert close(v[("1", "map_avgjg")], (1 + 1) / 2)
    # the expected-value form: map_avgjg has one, Rprec_mult_avgjg has none (a note)
    (tmp_path / "j").write_text(JG)
    args = ["-R", "qrels_jg", "--ties", "expected", "-m", "qrels_jg"]
    assert main(["evaluate", *args, str(tmp_path / "j"), str(tmp_path / "r")]) == 0
    out, err = capsys.readouterr()
    assert "map_avgjg" in out and "Rprec_mult_avgjg has no expected-value form" in err
