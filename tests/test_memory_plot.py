"""docs/speed.md's memory section and docs/memory.svg are benchmarks/memory.json's:
benchmarks/memory_plot.py wrote them from it, and nobody edited them since."""

import json
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_speed_page_shows_the_committed_memory_figures(monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))
    import memory_plot

    figures = json.loads((REPO / "benchmarks" / "memory.json").read_text())
    block = f"{memory_plot.START}\n{memory_plot.section(figures)}\n{memory_plot.END}"
    assert block in memory_plot.PAGE.read_text(), "docs/speed.md: run memory_plot.py"
    assert memory_plot.FIGURE.read_text().startswith("<?xml")
    for tool in ("irscore", "trec_eval"):  # every row has both, with a peak
        assert all(tool in row["tools"] for row in figures["shapes"])
