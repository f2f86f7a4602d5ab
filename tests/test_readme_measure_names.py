"""The measure-name tables of the README and of docs/measure-names.md: every name they
list is accepted, its peer and irscore measure are what irscore reads it as, and the
convention the README states is the one it implies."""

from __future__ import annotations

import re

import pytest
from doc_pages import page

from irscore.engine.measures.groups import plan
from irscore.engine.measures.peer_names import parse_peer_name

README_TABLE = page("README.md").split("<!-- names:start -->")[1].split("<!-- names:end -->")[0]
NAMES_PAGE = page("measure-names.md")
# the README's words for each convention decision
WORDS = {
    ("topics", "all_qrels"): ("-c",),
    ("score_precision", "float64"): ("float64 scores",),
    ("tie_break", "docno_asc"): ("ties by docno ascending",),
    ("tie_break", "file_order"): ("ties in file order",),
}


def _rows(table: str) -> list[list[str]]:
    """The cells of a markdown table's body rows."""
    lines = [line for line in table.splitlines() if line.startswith("|")]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[1:]]
    return [row for row in rows if not all(set(cell) <= set("-: ") for cell in row)]


def _names(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def _every_names_row() -> list[list[str]]:
    table = NAMES_PAGE.split("<!-- names:start -->")[1].split("<!-- names:end -->")[0]
    return _rows(table)


def test_both_tables_are_generated_and_current():
    # scripts/measure_names.py writes them: the page's from name_families.py, the README's
    # from the page
    from irscore.engine.output.catalogue import names_table, readme_table

    page_table = NAMES_PAGE.split("<!-- names:start -->\n")[1].split("<!-- names:end -->")[0]
    assert page_table == names_table()
    assert README_TABLE.removeprefix("\n") == readme_table(NAMES_PAGE)


def test_readme_table_names_are_accepted_as_stated():
    rows = _rows(README_TABLE)
    assert len(rows) >= 10
    for name_cell, peer, measure, convention in rows:
        (name,) = _names(name_cell)
        parsed = parse_peer_name(name)
        assert parsed is not None and parsed.peer == peer, name
        assert _names(measure) == [parsed.printed], name
        changes = dict(parsed.changes)
        if changes.get("rel_level"):
            assert f"-l {changes.pop('rel_level')}" in convention, name
        if convention == "as `RR@10`":
            assert parsed.changes == parse_peer_name("RR@10").changes
            continue
        stated = [words for change, words in WORDS.items() if change in changes.items()]
        assert all(any(w in convention for w in words) for words in stated), name
        assert len(stated) == len(changes), f"{name}: {changes} not all stated"


def test_every_name_of_the_names_page_is_accepted_with_its_peer():
    rows = _every_names_row()
    assert len(rows) >= 45
    for name_cell, peer, measure, _convention, _difference in rows:
        names = _names(name_cell)
        assert names, name_cell
        for name in names:
            groups = plan([name])
            assert len(groups) == 1 and groups[0].renames, name
            parsed = parse_peer_name(name)
            assert peer.startswith(parsed.peer), name
            assert any(m.startswith(parsed.family) for m in _names(measure)), name


@pytest.mark.parametrize("name", ["map", "ndcg", "recall", "bpref", "Rprec"])
def test_names_the_page_says_are_trec_eval_s_are(name):
    assert f"`{name}`" in NAMES_PAGE
    (group,) = plan([name])
    assert group.renames is None and group.changes == ()
