"""docs/workbench.md's table of the page's features: every test a row names exists, and
every row names one (a row *to be named* is a feature whose tests are not in yet)."""

from __future__ import annotations

import ast
import re

from doc_pages import REPO, page, section

TABLE = section(page("workbench.md"), "### Every feature of the page and the test that covers it")
ROWS = [line for line in TABLE.splitlines() if line.startswith("| ") and "| --- |" not in line][1:]
NAMED = re.compile(r"`(tests/test_\w+\.py)::(test_\w+)`")


def defined_in(path: str) -> set[str]:
    """The test functions defined at the top of a test module."""
    tree = ast.parse((REPO / path).read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


def test_every_test_the_table_names_exists():
    named = [match for row in ROWS for match in NAMED.findall(row)]
    assert len(named) > 40
    missing = [f"{path}::{name}" for path, name in named if name not in defined_in(path)]
    assert missing == []


def test_every_row_names_a_test():
    """Red while rows are *to be named*: the lead names their tests when merging."""
    assert len(ROWS) > 40
    assert [row.split(" | ")[0] for row in ROWS if not NAMED.search(row)] == []
