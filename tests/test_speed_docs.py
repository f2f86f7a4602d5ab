"""The speed figures of docs/speed.md and the README's summary of them are the committed
matrix's: benchmarks/speed_docs.py wrote them from benchmarks/shapes.json, and nobody
edited them since (or re-ran the benchmark without rewriting them)."""

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def speed_docs(monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))
    import speed_docs

    return speed_docs


def test_readme_and_speed_page_quote_the_committed_matrix(speed_docs):
    figures = json.loads((REPO / "benchmarks" / "shapes.json").read_text())
    block = speed_docs.rendered(figures)
    text = speed_docs.PAGE.read_text()
    assert speed_docs.written(text, block) == text, "docs/speed.md: run benchmarks/speed_docs.py"
    readme = speed_docs.README.read_text()
    summary = speed_docs.summary(figures)
    assert speed_docs.written(readme, summary, "speed") == readme, "README: run speed_docs.py"
    assert "<!-- shapes:start -->" not in readme  # the wide table is docs/speed.md's alone
    # every shape of the matrix is a row, each with its trec_eval byte check
    names = [result["label"] for result in figures["shapes"]]
    assert len(names) >= 10 and all(f"| {name} |" in block for name in names)
    assert "DIFFERENT" not in block and "crash" not in block


def test_a_quick_run_is_refused_and_only_the_block_changes(speed_docs):
    with pytest.raises(SystemExit, match="quick"):
        speed_docs.rendered({"measured": {"quick": True}, "shapes": [], "api": []})
    page = "head\n<!-- shapes:start -->\nold\n<!-- shapes:end -->\ntail\n"
    assert speed_docs.written(page, "new\n") == (
        "head\n<!-- shapes:start -->\nnew\n<!-- shapes:end -->\ntail\n"
    )
    with pytest.raises(SystemExit, match="block"):
        speed_docs.written("no markers\n", "new\n")
    with pytest.raises(SystemExit, match="quick"):
        speed_docs.summary({"measured": {"quick": True}, "shapes": [], "api": []})


def test_the_readme_summary_counts_the_matrix(speed_docs):
    """Two shapes by hand: one identical and faster (0.5x), one different and slower (2x,
    its speed target missed, no memory target); an API speed-up of 3.0x."""
    shape = {"lines": 1000, "identity": {"a": "identical"}, "ratio": 0.5, "speed_met": True}
    shape |= {"memory_target": "<= te", "memory_met": True}
    other = {"lines": 2_000_000, "identity": {"a": "DIFFERENT"}, "ratio": 2.0}
    other |= {"speed_met": False}
    how = {"when": "2026-12-01", "commit": "abc1234", "cores": 2, "quick": False}
    text = speed_docs.summary({"measured": how, "shapes": [shape, other], "api": []})
    assert "on 2 input shapes of 1,000 to 2,000,000 lines:" in text
    assert "irscore printed trec_eval's bytes on 1 of 2; it took 0.50x to 2.00x" in text
    assert "(less on 1 of 2), meeting 1 of 2 speed targets and 1 of 1 memory targets." in text
    api = [{"speedup_frames": 3.0}, {"speedup_frames": 2.46}]
    text = speed_docs.summary({"measured": how, "shapes": [shape], "api": api})
    assert "was 2.5x to 3.0x as fast as pytrec_eval" in text


def test_speed_page_quotes_the_committed_dicts_figures(monkeypatch):
    """The dicts block of docs/speed.md is `benchmarks/dicts.py --docs`'s from
    benchmarks/dicts.json, whose warm-up compared values."""
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))
    import dicts

    figures = json.loads((REPO / "benchmarks" / "dicts.json").read_text())
    assert figures["compared"] > 0 and set(figures["times"]) == set(dicts.TOOLS)
    page = (REPO / "docs" / "speed.md").read_text()
    block = dicts.rendered(figures)
    assert f"<!-- dicts:start -->\n{block}<!-- dicts:end -->" in page, "run dicts.py --docs"
