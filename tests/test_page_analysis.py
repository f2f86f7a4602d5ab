"""The Per query tab in Chromium: the scatter of A against B per query and the two top-10
lists of the query chosen, checked against the command line on the page's own inputs.

The marks' values are `irscore evaluate -q`'s; the default query is the one with the
largest |B − A| (the first of equal ones in evaluate -q's order), worked out here from
the CLI's output; the lists are `irscore explain --topic T -k 10`'s ranks and, from the
files themselves, trec_eval's order (score descending, ties by docno descending) with
the qrels' grades. One server and one browser for the module.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from collections import Counter
from pathlib import Path

import browser
import numpy as np
import pytest
from cli_calls import printed as cli
from workbench_page import PHONE, Workbench, workbench

pytestmark = [
    pytest.mark.skipif(browser.find() is None, reason="no Chromium on the PATH"),
    pytest.mark.slow,
]

# A case small enough to work out by hand, in the link itself. Topic 1 ties two scores
# in each run (trec_eval puts the larger docno first) and ranks unjudged documents (d4,
# d9); topics 2 and 3 differ by the same 0.5, one each way.
SMALL = {
    "qrels": "1 0 d1 2\n1 0 d2 0\n1 0 d3 1\n1 0 d5 1\n2 0 e1 1\n2 0 e2 0\n3 0 f1 1\n",
    "a": "1 Q0 d1 1 0.9 A\n1 Q0 d2 2 0.5 A\n1 Q0 d3 3 0.5 A\n1 Q0 d4 4 0.3 A\n"
    "2 Q0 e1 1 0.9 A\n2 Q0 e2 2 0.1 A\n3 Q0 f2 1 0.9 A\n3 Q0 f1 2 0.1 A\n",
    "b": "1 Q0 d4 1 0.8 B\n1 Q0 d3 2 0.7 B\n1 Q0 d5 3 0.7 B\n1 Q0 d9 4 0.1 B\n"
    "2 Q0 e2 1 0.9 B\n2 Q0 e1 2 0.1 B\n3 Q0 f1 1 0.9 B\n",
    "na": "first",
    "nb": "second",
}

MARKS_JS = """[...document.querySelectorAll('#vs-chart .vs-dot')].map(e => [e.dataset.topic,
  e.dataset.a, e.dataset.b, ['b-better', 'a-better', 'same'].find(c => e.classList.contains(c))])"""
LISTS_JS = """key => [...document.querySelectorAll(`#vs-list-${key} tbody tr`)].map(r => ({
  rank: r.cells[0].innerText, docno: r.cells[1].innerText, score: r.cells[2].innerText,
  grade: r.cells[3].innerText.trim(), relevant: r.classList.contains('rel'),
  shared: r.classList.contains('shared') && r.cells[4].innerText === '◆'}))"""


@pytest.fixture(scope="module")
def wb():
    with workbench() as bench:
        bench.page.set_default_timeout(90_000)  # a loaded machine (the pool, the first jobs)
        yield bench


def show(wb: Workbench, query: str) -> str:
    """Load the page at ?query#queries; the query whose lists it shows once drawn."""
    wb.page.goto(f"{wb.base}?{query}#queries")
    wb.page.wait_for_selector("body[data-ready='1']", state="attached")
    return lists_of(wb)


def lists_of(wb: Workbench, topic: str | None = None) -> str:
    """Wait until the lists of `topic` (any query: None) are drawn; their query."""
    which = f"[data-topic={json.dumps(topic)}]" if topic else "[data-topic]"
    wb.page.wait_for_selector(f"#vs-lists{which}", state="attached")
    return wb.page.get_attribute("#vs-lists", "data-topic")


def inputs(wb: Workbench, tmp: Path) -> dict[str, Path]:
    """The page's three boxes as files for the CLI (the inputs it evaluated)."""
    paths = {}
    for key, name in (("qrels", "qrels"), ("a", "run_a"), ("b", "run_b")):
        paths[key] = tmp / name
        paths[key].write_text(wb.page.input_value(f"#{key}"), encoding="utf-8")
    return paths


def per_query(files: dict[str, Path], key: str, measure: str) -> dict[str, float]:
    """`irscore evaluate -q -m measure` of one run: topic -> value, in its order; its
    trec_eval text (four decimals) says the same."""
    rows = json.loads(cli("evaluate", "-q", f"-m={measure}", "--format=json",
                          files["qrels"], files[key]))  # fmt: skip
    values = {r["topic"]: r["value"] for r in rows if r["topic"] != "all"}
    text = cli("evaluate", "-q", f"-m={measure}", files["qrels"], files[key])
    printed = {f[1]: f[2] for f in map(str.split, text.splitlines()) if f[1] != "all"}
    assert printed == {t: f"{v:.4f}" for t, v in values.items()}
    return values


def widest(a: dict[str, float], b: dict[str, float]) -> str:
    """The query with the largest |B − A|: the first of equal ones, in A's -q order."""
    common = [t for t in a if t in b]
    return max(common, key=lambda t: (abs(b[t] - a[t]), -common.index(t)))


def marks(wb: Workbench) -> dict[str, tuple[float, float, str]]:
    drawn = wb.page.evaluate(MARKS_JS)
    assert len({t for t, *_ in drawn}) == len(drawn)  # one mark per query
    return {t: (float(a), float(b), kind) for t, a, b, kind in drawn}


def trec_order(run: Path, qrels: Path, topic: str) -> list[tuple[str, str]]:
    """trec_eval's first 10 of a topic from the files: (docno, grade or ?), the score as
    a 32-bit float descending, ties by docno descending."""
    grades = {(f[0], f[2]): f[3] for f in map(str.split, qrels.read_text().splitlines())}
    rows = [f for f in map(str.split, run.read_text().splitlines()) if f[0] == topic]
    rows.sort(key=lambda f: (np.float32(f[4]), f[2]), reverse=True)
    return [(f[2], grades.get((topic, f[2]), "?")) for f in rows[:10]]


def check_lists(wb: Workbench, files: dict[str, Path], topic: str) -> dict[str, list[dict]]:
    """The two lists on the page against `irscore explain` and the files; both lists."""
    shown = {key: wb.page.evaluate(LISTS_JS, key) for key in ("a", "b")}
    for key in ("a", "b"):
        explained = json.loads(cli("explain", files["qrels"], files[key], f"--topic={topic}",
                                   "-k=10", "--format=json"))["ranks"]  # fmt: skip
        assert [(r["docno"], r["grade"]) for r in explained] == trec_order(
            files[key], files["qrels"], topic
        )
        expected = [
            {"rank": str(r["rank"]), "docno": r["docno"], "score": str(r["score"]),
             "grade": r["grade"], "relevant": r["relevant"] == "yes"}
            for r in explained
        ]  # fmt: skip
        assert [{k: v for k, v in r.items() if k != "shared"} for r in shown[key]] == expected
    ids = {key: {r["docno"] for r in shown[key]} for key in shown}
    for key in ("a", "b"):
        assert {r["docno"] for r in shown[key] if r["shared"]} == ids["a"] & ids["b"]
    return shown


def clean(wb: Workbench) -> None:
    """No console error, no id twice in the page, no mark outside its chart."""
    assert wb.errors == []
    assert wb.repeated_ids() == []
    assert wb.outside_frames() == []


def test_small_case_by_hand(wb, tmp_path):
    topic = show(wb, urllib.parse.urlencode(SMALL))
    # AP by hand (relevant: grade >= 1). Topic 1, 3 relevant (d1, d3, d5): A ranks d1,
    # d3, d2, d4 (d3 before d2 at 0.5), relevant at 1, 2: (1/1 + 2/2) / 3 = 0.6667; B
    # ranks d4, d5, d3, d9 (d5 before d3 at 0.7), relevant at 2, 3: (1/2 + 2/3) / 3 =
    # 0.3889. Topic 2: A has e1 first, 1; B second, 1/2. Topic 3: A has f1 second, 1/2;
    # B first, 1. |B − A| = 0.2778, 0.5, 0.5: topics 2 and 3 tie, 2 comes first.
    assert topic == "2"
    shown = marks(wb)
    assert {t: (round(a, 4), round(b, 4), k) for t, (a, b, k) in shown.items()} == {
        "1": (0.6667, 0.3889, "a-better"),
        "2": (1.0, 0.5, "a-better"),
        "3": (0.5, 1.0, "b-better"),
    }
    assert "the first of them" in wb.page.inner_text("#vs-note")  # the tie is said
    wb.page.click('#vs-chart .vs-dot[data-topic="1"]')
    lists_of(wb, "1")
    lists = check_lists(wb, inputs(wb, tmp_path), "1")
    assert [(r["docno"], r["grade"], r["relevant"], r["shared"]) for r in lists["a"]] == [
        ("d1", "2", True, False),
        ("d3", "1", True, True),
        ("d2", "0", False, False),
        ("d4", "?", False, True),
    ]
    assert [(r["docno"], r["grade"], r["relevant"], r["shared"]) for r in lists["b"]] == [
        ("d4", "?", False, True),
        ("d5", "1", True, False),
        ("d3", "1", True, True),
        ("d9", "?", False, False),
    ]
    clean(wb)
    wb.shot("queries-by-hand")


def test_marks_are_evaluate_per_query(wb, tmp_path):
    show(wb, "example=pooled-trec")
    files = inputs(wb, tmp_path)
    seen = set()
    for measure in ("map", "ndcg_cut_10", "P_10"):  # map first: the tab's default
        if measure != "map":
            wb.page.select_option("#vs-measure", measure)
        a, b = per_query(files, "a", measure), per_query(files, "b", measure)
        assert len(a) == len(b) == 25
        default = widest(a, b)
        assert lists_of(wb, default) == default
        kinds = {t: "b-better" if b[t] > a[t] else "a-better" if b[t] < a[t] else "same" for t in a}
        assert marks(wb) == {t: (a[t], b[t], kinds[t]) for t in a}
        assert wb.page.inner_text("#vs-topic option:first-child").endswith(f": {default}")
        places = Counter((a[t], b[t]) for t in a)  # marks on one place: said how many
        hidden = sum(n for n in places.values() if n > 1)
        said = re.search(r"(\d+) queries share their place", wb.page.inner_text("#vs-note"))
        assert (int(said[1]) if said else 0) == hidden
        seen.add(hidden > 0)
    assert seen == {True, False}  # a measure with marks on one place, one without
    clean(wb)


def test_clicking_a_mark_shows_its_two_lists(wb, tmp_path):
    first = show(wb, "example=pooled-trec")
    files = inputs(wb, tmp_path)
    a, b = per_query(files, "a", "map"), per_query(files, "b", "map")
    check_lists(wb, files, first)
    topic = max(a, key=lambda t: a[t] - b[t])  # where A is best: a mark on its own
    assert topic != first
    wb.page.click(f'#vs-chart .vs-dot[data-topic="{topic}"]')
    assert lists_of(wb, topic) == topic
    lists = check_lists(wb, files, topic)
    assert len(lists["a"]) == len(lists["b"]) == 10
    assert f"vs-topic={topic}" in urllib.parse.unquote(wb.page.url)  # the link keeps it
    clean(wb)
    wb.page.goto(wb.page.url)  # and opens on it
    assert lists_of(wb, topic) == topic
    assert wb.page.input_value("#vs-topic") == topic
    clean(wb)


def test_choosing_a_query_with_the_keyboard(wb, tmp_path):
    show(wb, "example=pooled-trec")
    files = inputs(wb, tmp_path)
    order = list(per_query(files, "a", "map"))
    wb.page.focus("#vs-topic")
    wb.page.keyboard.press("ArrowDown")  # from "where they differ most" to the first query
    assert lists_of(wb, order[0]) == order[0]
    wb.page.keyboard.press("ArrowDown")
    assert lists_of(wb, order[1]) == order[1]
    check_lists(wb, files, order[1])
    clean(wb)


def test_side_by_side_on_a_desktop_stacked_on_a_phone(wb):
    show(wb, "example=pooled-trec")
    boxes = [wb.page.locator(f"#vs-list-{key}").bounding_box() for key in ("a", "b")]
    assert boxes[0]["y"] == boxes[1]["y"] and boxes[0]["x"] + boxes[0]["width"] <= boxes[1]["x"]
    clean(wb)
    wb.shot("queries-desktop")
    wb.page.set_viewport_size(PHONE)
    try:
        show(wb, "example=pooled-trec")
        boxes = [wb.page.locator(f"#vs-list-{key}").bounding_box() for key in ("a", "b")]
        assert boxes[0]["y"] + boxes[0]["height"] <= boxes[1]["y"]
        assert all(box["x"] + box["width"] <= PHONE["width"] for box in boxes)
        chart = wb.page.locator("#vs-chart svg").bounding_box()
        assert chart["x"] >= 0 and chart["x"] + chart["width"] <= PHONE["width"]
        drawn = wb.page.evaluate("document.querySelector('#vs-chart svg').viewBox.baseVal.width")
        assert abs(chart["width"] - drawn) <= 1  # drawn at the phone's width: text not shrunk
        clean(wb)
        wb.shot("queries-phone")
    finally:
        wb.page.set_viewport_size({"width": 1280, "height": 800})


def test_one_run_says_b_is_needed(wb):
    wb.page.goto(f"{wb.base}?example=croft-map#queries")
    wb.page.wait_for_selector("#err-queries.shown")
    assert "run B" in wb.page.inner_text("#err-queries")
    assert wb.page.locator("#vs-chart .vs-dot").count() == 0
    clean(wb)
