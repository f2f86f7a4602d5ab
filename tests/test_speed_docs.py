"""The speed figures of README.md and docs/speed.md are the committed matrix's:
benchmarks/speed_docs.py wrote them from benchmarks/shapes.json, and nobody edited
them since (or re-ran the benchmark without rewriting them)."""

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
    for page in speed_docs.PAGES:
        text = page.read_text()
        assert speed_docs.written(text, block) == text, f"{page.name}: run benchmarks/speed_docs.py"
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
