"""The README shows the headline table of results/summary.md, never a stale copy."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _table(text: str) -> list[str]:
    """The Markdown table that starts with the headline header row."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| run | P@10 |"))
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return lines[start:end]


def test_readme_headline_table_is_the_summarys():
    readme = (REPO / "README.md").read_text()
    block = re.search(r"<!-- headline:start -->\n(.*?)<!-- headline:end -->", readme, re.S)
    assert block, "README lost its headline markers"
    summary = (REPO / "results" / "summary.md").read_text()
    assert _table(block.group(1)) == _table(summary)


def test_readme_counts_the_mutations_of_the_mutation_check(monkeypatch):
    spec = importlib.util.spec_from_file_location("mutations", REPO / "benchmarks" / "mutations.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "mutations", module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    readme = " ".join((REPO / "README.md").read_text().split())
    assert f"benchmarks/mutations.py` applies {len(module.MUTATIONS)} deliberate bugs" in readme
