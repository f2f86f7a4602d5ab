"""The Playground tab in chromium (Playwright): ranks judged by clicks, sliders moved,
and every number shown compared with what the command line prints for the same grades
(`irscore explain --grades G --missed M -k K`, `irscore evaluate` for the 11 points);
"be the assessor" likewise, its accuracy worked out by hand here.

One server and one browser for the module; each test sets every control it reads, so
the tests hold in any order.
"""

from __future__ import annotations

import json
from pathlib import Path

import browser
import pytest
from cli_calls import printed as cli
from playwright.sync_api import Page
from workbench_page import DESKTOP, PHONE, Workbench, workbench

pytestmark = [
    pytest.mark.skipif(browser.find() is None, reason="no Chromium on the PATH"),
    pytest.mark.slow,
]
SHOWN = "#pg-measures tbody tr"
# The page's rows and the names irscore explain gives the same measures at cut-off k.
EXPLAIN = {
    "num_rel": "num_rel",
    "P": "P_{k}",
    "recall": "recall_{k}",
    "map": "map",
    "map_cut": "map_cut_{k}",
    "recip_rank": "recip_rank",
    "Rprec": "Rprec",
    "ndcg_cut": "ndcg_cut_{k}",
    "ndcg_exp_cut": "ndcg_exp_cut_{k}",
}
# (graded, grades in rank order, k, relevant ones never retrieved, their grade)
RANKINGS = {
    "binary, two missed": (False, [1, 0, 1, 1, 0, 0, 1, 0, 0, 0], 5, 2, 1),
    "no relevant document": (False, [0] * 10, 5, 0, 1),
    "all relevant": (False, [1] * 12, 12, 0, 1),
    "graded, missed grade 2": (True, [3, 2, 0, 1, 2, 0, 0, 3], 4, 3, 2),
    "k beyond the list": (False, [0, 1, 0, 0, 1, 0], 15, 1, 1),
    "R beyond the list, k = 1": (True, [2, 0, 3], 1, 5, 3),
    "R = 3 (0.7 * 3 + 0.9 < 3)": (False, [1, 1, 0, 0, 1], 3, 0, 1),
}


@pytest.fixture(scope="module")
def wb():
    with workbench(size=DESKTOP) as bench:
        bench.open("", "playground")
        bench.page.wait_for_selector(SHOWN)
        yield bench


def explain(grades: list[int], missed: list[int], k: int) -> dict[str, float]:
    """irscore explain's final values for these grades."""
    argv = ["explain", "--grades", ",".join(map(str, grades)), "-k", k, "--format", "json"]
    if missed:
        argv += ["--missed", ",".join(map(str, missed))]
    return {f["measure"]: f["value"] for f in json.loads(cli(*argv))["final"]}


def eleven_points(tmp: Path, grades: list[int], missed: list[int]) -> list[float]:
    """irscore evaluate's iprec_at_recall on a qrels and a run holding these grades."""
    qrels = [f"1 0 d{i} {g}" for i, g in enumerate(grades, 1)]
    qrels += [f"1 0 m{j} {g}" for j, g in enumerate(missed, 1)]
    run = [f"1 Q0 d{i} {i} {len(grades) - i + 1} r" for i in range(1, len(grades) + 1)]
    (tmp / "qrels").write_text("\n".join(qrels) + "\n")
    (tmp / "run").write_text("\n".join(run) + "\n")
    rows = json.loads(
        cli("evaluate", tmp / "qrels", tmp / "run", "-m", "iprec_at_recall", "--format", "json")
    )
    return [r["value"] for r in rows]


def slide(page: Page, selector: str, value: int) -> None:
    """Move a range (or number) input to `value` as a hand does: its input event."""
    page.locator(selector).evaluate(
        "(e, v) => { e.value = v; e.dispatchEvent(new Event('input', { bubbles: true })); }",
        str(value),
    )


def by_keys(page: Page, selector: str, value: int) -> None:
    """Move a range input with the keyboard: Home, then the right arrow."""
    page.focus(selector)
    page.keyboard.press("Home")
    for _ in range(value - int(page.locator(selector).get_attribute("min"))):
        page.keyboard.press("ArrowRight")


def click_to(page: Page, button: str, grade: int) -> None:
    """Press a document's button until it shows `grade` (four presses go round)."""
    for _ in range(4):
        if page.locator(f"{button} .pg-grade").inner_text() == str(grade):
            return
        page.click(button)
    raise AssertionError(f"{button} never showed grade {grade}")


def set_ranking(
    page: Page, graded: bool, grades: list[int], k: int, missed: int, grade: int
) -> None:
    page.set_checked("#pg-graded", graded)
    slide(page, "#pg-n", len(grades))
    for rank, g in enumerate(grades, 1):
        click_to(page, f'#pg-ranks button[data-rank="{rank}"]', g)
    by_keys(page, "#pg-k", k)
    slide(page, "#pg-missed", missed)
    if graded:
        page.select_option("#pg-missed-grade", str(grade))
    assert page.locator("#pg-k").input_value() == str(k)


def shown(page: Page, table: str) -> dict[str, list[tuple[float, str]]]:
    """Each row of a table: its measure and its cells' (full value, text shown)."""
    rows = page.eval_on_selector_all(
        f"{table} tbody tr",
        """rows => rows.map(r => [r.dataset.measure, [...r.querySelectorAll('td[data-value]')]
             .map(c => [c.dataset.value, c.textContent])])""",
    )
    return {m: [(float(v) if v else None, t) for v, t in cells] for m, cells in rows}


@pytest.mark.parametrize("name", list(RANKINGS))
def test_ranking_is_the_command_lines(wb: Workbench, name: str, tmp_path: Path) -> None:
    """P@k, R@k, AP, AP@k, RR, R-prec, nDCG@k (linear, exponential): the page's value
    equals irscore explain's (to 1e-12), and shows its four decimals. The 11 interpolated
    precisions, in the table and as the chart's marks, are irscore evaluate's
    iprec_at_recall (trec_eval 9's count) on the same grades."""
    graded, grades, k, missed, grade = RANKINGS[name]
    set_ranking(wb.page, graded, grades, k, missed, grade)
    expected = explain(grades, [grade] * missed, k)
    on_page = shown(wb.page, "#pg-measures")
    assert list(on_page) == list(EXPLAIN)
    for row, measure in EXPLAIN.items():
        [(value, text)] = on_page[row]
        want = expected[measure.format(k=k)]
        assert value == pytest.approx(want, abs=1e-12), (name, measure)
        assert text == (str(int(want)) if row == "num_rel" else f"{want:.4f}"), (name, measure)
    eleven = eleven_points(tmp_path, grades, [grade] * missed)
    values = wb.page.eval_on_selector_all(
        "#pg-11 td[data-value]", "cells => cells.map(c => Number(c.dataset.value))"
    )
    assert values == pytest.approx(eleven, abs=1e-12)
    # every mark (not the legend's) sits at its value, against the frame's 0 and 1
    ys = wb.page.eval_on_selector_all(
        "#pg-curve svg > rect.pg-eleven", "m => m.map(r => Number(r.getAttribute('y')) + 3.5)"
    )
    frame = wb.page.locator("#pg-curve rect.pg-frame")
    top, height = float(frame.get_attribute("y")), float(frame.get_attribute("height"))
    assert [1 - (y - top) / height for y in ys] == pytest.approx(eleven, abs=1e-9)
    assert wb.errors == []


def test_r_three_shows_trec_evals_count(wb: Workbench) -> None:
    """Worked by hand: relevant at ranks 1, 2, 5 and R = 3, precision there 1/1, 2/2, 3/5.
    At r = 0.7 trec_eval counts (long)(0.7 * 3 + 0.9) = (long)2.9999999999999996 = 2
    relevant documents, so its value is the best precision from the 2nd relevant on:
    max(2/2, 3/5) = 1 (the envelope drawn, recall >= 0.7, has 3/5 there); at r = 0.8,
    (long)3.3 = 3: 3/5 = 0.6; at r = 0.3, (long)1.8 = 1: 1."""
    set_ranking(wb.page, False, [1, 1, 0, 0, 1], 3, 0, 1)
    rows = wb.page.eval_on_selector_all(
        "#pg-11 tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))"
    )
    assert (rows[3], rows[7], rows[8]) == (
        ["0.3", "1", "1.0000"],
        ["0.7", "2", "1.0000"],
        ["0.8", "3", "0.6000"],
    )


def test_keyboard_judges_a_rank(wb: Workbench) -> None:
    """A rank is a button: Tab goes from one to the next, Enter and Space change its grade,
    and the focus stays on it (the list is drawn anew). By hand: grades 0, 2, 0 at k = 3
    give P@3 = 1 relevant / 3 = 0.3333 and RR = 1/2."""
    set_ranking(wb.page, True, [0, 0, 0], 3, 0, 1)
    wb.page.focus('#pg-ranks button[data-rank="1"]')
    wb.page.keyboard.press("Tab")
    wb.page.keyboard.press("Enter")
    wb.page.keyboard.press("Space")
    assert wb.page.evaluate("document.activeElement.dataset.rank") == "2"
    grades = wb.page.eval_on_selector_all("#pg-ranks .pg-grade", "g => g.map(e => e.textContent)")
    assert grades == ["0", "2", "0"]
    on_page = shown(wb.page, "#pg-measures")
    assert on_page["P"][0][1] == "0.3333" and on_page["recip_rank"][0][1] == "0.5000"


# (graded, the judgments of d1..d8, N, relevant ones neither system retrieved)
# A ranks d1 d2 d3 d4 d5, B ranks d6 d3 d7 d1 d8.
JUDGED = {
    "binary": (False, [1, 1, 0, 0, 0, 1, 0, 0], 1000, 0),
    "graded, two found by neither": (True, [0, 0, 3, 0, 1, 0, 2, 1], 50, 2),
}
SYSTEMS = {"a": ["d1", "d2", "d3", "d4", "d5"], "b": ["d6", "d3", "d7", "d1", "d8"]}
# Accuracy (TP + TN) / N by hand, TN = N - TP - FP - FN:
# binary: R = 3 (d1, d2, d6). A: TP 2 (d1, d2), FP 3, FN 1 (d6), TN 1000 - 6 = 994:
#   (2 + 994) / 1000 = 0.996. B: TP 2 (d6, d1), FP 3, FN 1 (d2), TN 994: 0.996.
#   Retrieving nothing: (1000 - 3) / 1000 = 0.997.
# graded: relevant d3 (3), d5 (1), d7 (2), d8 (1) and two more, R = 6. A: TP 2 (d3, d5),
#   FP 3, FN 4, TN 50 - 9 = 41: (2 + 41) / 50 = 0.86. B: TP 3 (d3, d7, d8), FP 2, FN 3,
#   TN 50 - 8 = 42: (3 + 42) / 50 = 0.9. Retrieving nothing: (50 - 6) / 50 = 0.88.
ACCURACY = {"binary": (0.996, 0.996, 0.997), "graded, two found by neither": (0.86, 0.9, 0.88)}


def set_judged(page: Page, graded: bool, judged: list[int], n: int, neither: int) -> None:
    """Judge each document by pressing it in B's list where B ranks it, else in A's."""
    page.set_checked("#pg-graded", graded)
    for doc, grade in zip([f"d{i}" for i in range(1, 9)], judged, strict=True):
        where = "#pg-b" if doc in SYSTEMS["b"] else "#pg-a"
        click_to(page, f'{where} button[data-doc="{doc}"]', grade)
    page.fill("#pg-N", str(n))
    page.fill("#pg-neither", str(neither))


@pytest.mark.parametrize("name", list(JUDGED))
def test_assessor_measures(wb: Workbench, name: str) -> None:
    """Both systems' P, recall, AP and nDCG are irscore explain's on each system's grades
    (the relevant ones it missed as --missed); accuracy is the hand arithmetic above;
    a judgment made in one list shows in the other; the better system is marked."""
    graded, judged, n, neither = JUDGED[name]
    set_judged(wb.page, graded, judged, n, neither)
    grade = dict(zip([f"d{i}" for i in range(1, 9)], judged, strict=True))
    on_page = shown(wb.page, "#pg-vs")
    for i, key in enumerate("ab"):
        ranked = [grade[d] for d in SYSTEMS[key]]
        shown_grades = wb.page.eval_on_selector_all(
            f"#pg-{key} .pg-grade", "g => g.map(e => Number(e.textContent))"
        )
        assert shown_grades == ranked  # judged once, shown in both lists
        missed = [g for d, g in grade.items() if g >= 1 and d not in SYSTEMS[key]] + [1] * neither
        expected = explain(ranked, missed, 5)
        for row, measure in (
            ("P", "P_5"),
            ("recall", "recall_5"),
            ("map", "map"),
            ("ndcg", "ndcg"),
        ):
            value, text = on_page[row][i]
            assert value == pytest.approx(expected[measure], abs=1e-12), (name, key, measure)
            assert text == f"{expected[measure]:.4f}"
        value, text = on_page["accuracy"][i]
        assert value == pytest.approx(ACCURACY[name][i], abs=1e-12)
        assert text == f"{ACCURACY[name][i]:.4f}"
    nothing = float(wb.page.locator("#pg-nothing").get_attribute("data-value"))
    assert nothing == pytest.approx(ACCURACY[name][2], abs=1e-12)
    for row, cells in on_page.items():
        a, b = cells[0][0], cells[1][0]
        verdict = wb.page.locator(f'#pg-vs tr[data-measure="{row}"] td.better').inner_text()
        marked = wb.page.eval_on_selector_all(
            f'#pg-vs tr[data-measure="{row}"] td.pg-better', "c => c.map(e => e.className)"
        )
        if a == b:
            assert verdict == "tie" and marked == []
        else:
            better = "A" if a > b else "B"
            assert verdict == f"{better} ▲" and marked == [f"num value-{better.lower()} pg-better"]
    assert wb.errors == []


def test_assessor_refuses_a_collection_smaller_than_its_documents(wb: Workbench) -> None:
    """N below the 8 documents shown and the ones neither found: a message, no accuracy."""
    set_judged(wb.page, False, [1, 1, 0, 0, 0, 1, 0, 0], 9, 2)
    assert "N ≥ 10" in wb.page.locator("#err-assessor").inner_text()
    on_page = shown(wb.page, "#pg-vs")
    assert on_page["accuracy"] == [(None, ""), (None, "")]
    assert on_page["P"] == [(0.4, "0.4000"), (0.4, "0.4000")]
    wb.page.fill("#pg-N", "1000")
    assert wb.page.locator("#err-assessor").inner_text() == ""


def test_share_link_keeps_the_playground(wb: Workbench) -> None:
    """The settings go into the link (pg=...); opened again, the page shows the same
    numbers; a malformed pg= gives a message and the playground's own settings."""
    graded, grades, k, missed, grade = RANKINGS["graded, missed grade 2"]
    set_ranking(wb.page, graded, grades, k, missed, grade)
    set_judged(wb.page, *JUDGED["graded, two found by neither"])
    before = shown(wb.page, "#pg-measures"), shown(wb.page, "#pg-vs")
    link = wb.shared_link()
    assert "pg=32012003.4.3.2.1.00301021.50.2" in link
    wb.page.goto("about:blank")  # the same address again would only move to its #playground
    wb.page.goto(link)
    wb.page.wait_for_selector(SHOWN)
    assert (shown(wb.page, "#pg-measures"), shown(wb.page, "#pg-vs")) == before
    assert wb.page.locator("#pg-k").input_value() == "4"
    wb.open("pg=32012003.99.3.2.1.00301021.50.2", "playground")
    wb.page.wait_for_selector(SHOWN)
    assert "cannot be read" in wb.page.locator("#err-playground").inner_text()
    assert wb.page.locator("#pg-k").input_value() == "5"
    wb.open("", "playground")
    wb.page.wait_for_selector(SHOWN)
    assert wb.page.locator("#err-playground").inner_text() == ""
    assert wb.errors == []


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1280x800", "390x844"])
def test_playground_page_checks(wb: Workbench, size: dict[str, int]) -> None:
    """At both widths: no id repeats in the page, no mark leaves its chart, no console error,
    the charts fit the window (no page-wide horizontal scroll); a screenshot to look at."""
    wb.page.set_viewport_size(size)
    try:
        set_ranking(wb.page, True, [3, 0, 2, 1, 0, 0, 2, 0, 1, 0, 0, 3], 10, 4, 2)
        assert wb.repeated_ids() == []
        assert wb.outside_frames() == []
        for chart in ("#pg-curve svg", "#pg-bars svg"):
            box = wb.page.locator(chart).bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= size["width"], chart
        assert wb.page.evaluate("document.documentElement.scrollWidth") <= size["width"]
        wb.shot(f"playground-{size['width']}x{size['height']}")
        assert wb.errors == []
    finally:
        wb.page.set_viewport_size(DESKTOP)
