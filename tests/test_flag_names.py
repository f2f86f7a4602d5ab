"""One spelling per setting: the grade mapping is --grade-mapping on every command, the
pool's levels --levels, compare's measures `measures=`; the old spellings are taken for
one release with a note (docs/evaluating.md's table lists them, and this checks it)."""

from __future__ import annotations

import re
import warnings

import pytest
from cli_calls import called as cli
from doc_pages import page, section

import irscore

QRELS = "1 0 a 4\n1 0 b 1\n"
RUN = "1 Q0 a 1 0.9 B\n1 Q0 b 2 0.8 B\n"
RUN_B = "1 Q0 b 1 0.9 C\n1 Q0 a 2 0.8 C\n"
NOTE = "irscore: note: {} is now {}; the old spelling is taken until the next release\n"


@pytest.fixture
def files(tmp_path):
    for name, text in (("qrels", QRELS), ("a.run", RUN), ("b.run", RUN_B)):
        (tmp_path / name).write_text(text)
    return [str(tmp_path / n) for n in ("qrels", "a.run", "b.run")]


@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_grade_mapping_is_one_flag_and_grades_its_old_spelling(files, command):
    qrels, a, b = files
    runs = [a] if command == "evaluate" else [a, b]
    extra = ["--format", "tsv", "--test", "t"] if command == "compare" else []
    _, raw, _ = cli(command, "-m", "ndcg", *extra, qrels, *runs)
    status, new, err = cli(
        command, "-m", "ndcg", "--grade-mapping", "cranfield_cleverdon", *extra, qrels, *runs
    )
    assert status == 0 and err == "" and new != raw  # Cleverdon's grades: gain 5 - g
    status, old, err = cli(
        command, "-m", "ndcg", "--grades", "cranfield_cleverdon", *extra, qrels, *runs
    )
    assert status == 0 and old == new
    assert err == NOTE.format("--grades", "--grade-mapping")


def test_explain_and_interleave_spell_the_mapping_alike(files):
    qrels, a, b = files
    for argv in (
        ["explain", qrels, a, "--topic", "1"],
        ["interleave", qrels, a, b, "--impressions", "10"],
    ):
        status, _, err = cli(*argv, "--grade-mapping", "cranfield_cleverdon")
        assert status == 0, err


def test_pool_levels_and_its_old_spelling(tmp_path):
    status, _, err = cli("pool", "--out", tmp_path / "new", "--levels", "4", "--queries", "2")
    assert status == 0 and err == ""
    status, _, err = cli("pool", "--out", tmp_path / "old", "--grades", "4", "--queries", "2")
    assert status == 0 and err == NOTE.format("--grades", "--levels")
    new, old = ((tmp_path / d / "qrels.txt").read_text() for d in ("new", "old"))
    assert new == old and max(int(line.split()[3]) for line in new.splitlines()) == 3


def test_compare_takes_measures_and_measure_with_a_deprecation_warning(files):
    qrels, a, b = files
    new = irscore.compare(qrels, a, b, measures="recip_rank", tests="t")
    with pytest.warns(DeprecationWarning, match=r"compare\(measures=\.\.\.\)"):
        old = irscore.compare(qrels, a, b, measure="recip_rank", tests="t")
    assert old.equals(new) and list(new["measure"]) == ["recip_rank"]
    with pytest.raises(TypeError, match="not both"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        irscore.compare(qrels, a, b, measures="map", measure="map")


def test_the_docs_list_the_old_spellings_this_file_checks():
    text = section(page("evaluating.md"), "## One name for each setting")
    rows = re.findall(r"^\| (`[^|]*`) \| (`[^|]*`) \|$", text, re.M)
    assert [(old.count("--grades"), new) for old, new in rows] == [
        (2, "`--grade-mapping`"),
        (1, "`--levels N`"),
        (0, "`irscore.compare(measures=...)`"),
    ]
