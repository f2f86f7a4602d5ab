"""Issue 47's broken list, fixed on the page: one element per id (One ranking's tie groups),
Compare's measure names and its errors, short share links, the charts in their frames with
ticks, legends off the data and a click that shows a query, the default cut-offs, and the
correction Compare applies. One server and one Chromium for the module (tests/workbench_page.py);
every number is compared with what the CLI prints for the same input."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from urllib.parse import urlencode

import browser
import pytest
from cli_calls import printed as cli
from workbench_page import Workbench, workbench

from irscore.cli import build_parser
from irscore.engine.ranking.conventions import CHOICES
from irscore.web.presets import PRESETS

pytestmark = [
    pytest.mark.skipif(browser.find() is None, reason="no Chromium on the PATH"),
    pytest.mark.slow,
]
LINK_MAX = 8192


@pytest.fixture(scope="module")
def wb():
    with workbench() as w:
        w.page.set_default_timeout(120_000)  # two cores shared: a first figure takes a while
        yield w


def goto(w: Workbench, query: str, tab: str, shown: str | None = None) -> None:
    """Open ?query#tab, wait until the page has started (and `shown` is on it)."""
    w.page.goto(f"{w.base}?{query}#{tab}")
    w.page.wait_for_selector("body[data-ready='1']", state="attached")
    if shown:
        w.page.wait_for_selector(shown, state="attached", timeout=300_000)


def files(tmp: Path, data: dict) -> list[Path]:
    """The preset's qrels and runs as files for the CLI, in that order."""
    paths = []
    for key, name in (("qrels", "qrels"), ("a", "run_a"), ("b", "run_b")):
        if data.get(key):
            paths.append(tmp / name)
            paths[-1].write_text(data[key])
    return paths


def until(w: Workbench, expression: str, seconds: float = 120) -> None:
    """Wait until the expression is true in the page (polled from here: the page's
    Content-Security-Policy refuses the eval that Playwright's wait_for_function polls with)."""
    deadline = time.monotonic() + seconds
    while not w.page.evaluate(expression):
        assert time.monotonic() < deadline, f"still false after {seconds} s: {expression}"
        w.page.wait_for_timeout(100)


def type_into(w: Workbench, element: str, value: str) -> None:
    """Set a field as typing does (an input event after the value), on any tab."""
    w.page.eval_on_selector(
        f"#{element}",
        "(e, v) => { e.value = v; e.dispatchEvent(new Event('input')); }",
        value,
    )


def texts(w: Workbench, selector: str) -> list[str]:
    return w.page.eval_on_selector_all(selector, "els => els.map(e => e.textContent)")


def test_one_ranking_shows_the_tie_groups_and_the_data_tab_keeps_its_select(wb, tmp_path):
    goto(wb, "example=ties", "ranking", "#tie-groups table")
    assert wb.repeated_ids() == []
    qrels, run = files(tmp_path, PRESETS["ties"]["data"])
    said = json.loads(cli("explain", qrels, run, "--topic", "1", "-k", "4", "--format", "json"))
    shown = wb.page.inner_text("#tie-groups")
    assert said["ties"] == ["ranks 1-3 tie at score 0.5; docno_desc order: x3, x2, x1"]
    assert said["ties"][0] in shown
    rows = wb.page.eval_on_selector_all(
        "#tie-groups tbody tr", "rs => rs.map(r => [...r.cells].map(c => c.innerText))"
    )
    ranges = said["tie_range"]
    expected = [
        [m, *(f"{ranges[order][m]:.4f}" for order in ("pessimistic", "expected", "optimistic"))]
        for m in ranges["pessimistic"]
    ]
    assert rows == expected
    assert rows[0] == ["map", "0.4167", "0.5556", "0.7500"]  # AP from (1/3 + 2/4)/2 to (1 + 2/2)/2
    options = wb.page.eval_on_selector_all("#ties option", "os => os.map(o => o.value)")
    assert options == list(CHOICES["ties"])  # the Data tab's select keeps its options


def compare_rows(w: Workbench) -> list[list[str]]:
    return w.page.eval_on_selector_all(
        "#tests tbody tr", "rs => rs.map(r => [...r.cells].map(c => c.innerText))"
    )


def test_compare_takes_the_command_line_s_names_and_an_error_clears_it(wb, tmp_path):
    paths = files(tmp_path, PRESETS["interleave"]["data"])
    for name in ("nDCG@10", "ndcg_cut_10"):
        goto(wb, urlencode({"example": "interleave", "metric": name, "B": "200"}), "compare")
        wb.page.wait_for_selector("#compare-text:not(:empty)", state="attached", timeout=300_000)
        assert wb.page.inner_text("#err-compare") == ""
        printed = json.loads(cli("compare", "-m", name, "--B", "200", "--format", "json", *paths))
        shown = compare_rows(wb)
        assert [r[0] for r in shown] == [t["test"] for t in printed]
        assert [r[4] for r in shown] == [f"{t['diff']:+.4f}" for t in printed]
    type_into(wb, "metric", "ndcg_cut_1x5")
    wb.page.wait_for_selector("#err-compare.shown")
    assert wb.page.inner_text("#err-compare").startswith("metric: unknown measure 'ndcg_cut_1x5'")
    assert compare_rows(wb) == []  # nothing of nDCG@10 stays on screen
    assert wb.page.eval_on_selector_all("#diffs *, #scatter *", "es => es.length") == 0
    assert wb.page.get_attribute("#compare-chart", "src") is None
    for box in ("#compare-correction", "#compare-text", "#compare-command"):
        assert wb.page.text_content(box) == ""


def test_compare_says_the_correction_it_applies_with_the_cli_s_default(wb, tmp_path):
    default = build_parser().parse_args(["compare", "q", "a", "b"]).correction
    goto(wb, "example=interleave&B=200", "compare", "#compare-correction:not(:empty)")
    chosen = wb.page.eval_on_selector("#correction", "s => [s.value, s.selectedOptions[0].text]")
    assert chosen == [default, f"{default} (irscore compare's default)"]
    printed = cli(
        "compare", "-m", "map", "--B", "200", *files(tmp_path, PRESETS["interleave"]["data"])
    )
    line = re.search(r"^p adjusted: .*$", printed, re.M)[0]
    assert wb.page.inner_text("#compare-correction") == f"sig.: after the correction, {line}"


def test_the_scatter_has_ticks_markers_per_side_and_a_click_shows_the_query(wb, tmp_path):
    goto(wb, "example=interleave&B=200", "compare", "#scatter svg .dot")
    assert wb.outside_frames() == []
    labels = texts(wb, "#scatter text.axis")
    for tick in ("0.00", "0.25", "0.50", "0.75", "1.00"):  # map's 0..1 in steps of 1/4
        assert labels.count(tick) == 2, (tick, labels)  # on the x axis and on the y axis
    assert len(texts(wb, "#scatter line.tick")) == 10
    qrels, run_a, run_b = files(tmp_path, PRESETS["interleave"]["data"])
    values = {}
    for key, run in (("a", run_a), ("b", run_b)):
        rows = json.loads(cli("evaluate", "-m", "map", "-q", "--format", "json", qrels, run))
        values[key] = {r["topic"]: r["value"] for r in rows if r["topic"] != "all"}
    better_b = sorted(t for t in values["a"] if values["b"][t] > values["a"][t])
    better_a = sorted(t for t in values["a"] if values["b"][t] < values["a"][t])
    assert (better_b, better_a) == (["1", "2", "3", "4"], ["5", "6"])  # the preset's design
    marks = wb.page.eval_on_selector_all(
        "#scatter .dot[data-topic]",
        "ds => ds.map(d => [d.tagName, d.dataset.topics, d.classList[1]])",
    )
    shapes = {"up": "circle", "down": "rect"}  # B better: circle; A better: square
    shown = {
        s: sorted(
            t for tag, ts, side in marks if side == s and tag == shapes[s] for t in ts.split()
        )
        for s in shapes
    }
    assert shown == {"up": better_b, "down": better_a}
    wb.page.click("#scatter .dot[data-topics='5 6']")  # one point: the same values
    wb.page.wait_for_selector("#tab-ranking:not([hidden]) #finals li")
    assert wb.page.evaluate("location.hash") == "#ranking"
    assert wb.page.input_value("#topic") == "5" and wb.page.is_checked("#mode-data")
    wb.page.wait_for_selector("#explain-command:has-text('--topic=5')", state="attached")


def test_the_default_cut_offs_give_err_and_exponential_ndcg_columns(wb, tmp_path):
    data = PRESETS["croft-map"]["data"]
    goto(wb, urlencode({"qrels": data["qrels"], "a": data["a"]}), "metrics", "#means tbody tr")
    assert wb.page.input_value("#k") == "5,10"  # a value, not a grey placeholder
    qrels, run = files(tmp_path, data)
    flags = ["-m", "all_trec"] + [
        f for fam in ("P", "recall", "ndcg_cut", "err") for f in ("-m", f"{fam}.5,10")
    ]
    printed = {
        line.split()[0]: line.split()[2]
        for line in cli("evaluate", *flags, qrels, run).splitlines()
    }
    rows = dict(
        wb.page.eval_on_selector_all(
            "#means tbody tr", "rs => rs.map(r => [r.cells[0].innerText, r.cells[1].innerText])"
        )
    )
    for measure in ("err_5", "err_10", "ndcg_cut_5", "ndcg_cut_10", "P_5"):
        assert rows[measure] == printed[measure], measure
    # cleared: the link says so (k=), and reopened it stays cleared
    type_into(wb, "k", "")
    until(wb, "new URLSearchParams(location.search).get('k') === ''")


def big_input(w: Workbench) -> int:
    """Fill the boxes with 120,000 characters of judgments and runs no deflate packs into
    8 KB (random document numbers); their length."""
    return w.page.evaluate("""() => {
      let seed = 7;
      const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
      const docs = Array.from({length: 2400}, () => 'd' + next().toString(36));
      const qrels = docs.map(d => `1 0 ${d} ${next() % 2}\\n`).join('');
      const run = (tag) => docs.map((d, i) => `1 Q0 ${d} ${i + 1} ${3000 - i} ${tag}\\n`).join('');
      const texts = {qrels, a: run('x'), b: run('y').split('\\n').reverse().join('\\n')};
      for (const [k, v] of Object.entries(texts)) document.getElementById(k).value = v;
      document.getElementById('a').dispatchEvent(new Event('input'));
      return Object.values(texts).reduce((n, t) => n + t.length, 0);
    }""")


def test_a_share_link_of_big_data_carries_the_settings_and_says_so(wb):
    goto(wb, "", "data")
    size = big_input(wb)
    assert size > 100_000
    type_into(wb, "metric", "P.5")
    until(wb, "new URLSearchParams(location.search).has('nodata')")
    assert len(wb.page.url) <= LINK_MAX
    link = wb.shared_link()
    assert len(link) <= LINK_MAX and "z=" not in link and "qrels=" not in link
    assert f"nodata={size}" in link and "metric=P.5" in link
    wb.page.goto("about:blank")  # the same address again would not reload the page
    wb.page.goto(link)
    wb.page.wait_for_selector("body[data-ready='1']", state="attached")
    assert wb.page.inner_text("#notice") == (
        f"This link carries the settings only: its data (qrels and runs, {size:,} characters) "
        "was too large for a link of at most 8,192. Paste, open or drop the files again in Data."
    )
    assert wb.page.input_value("#metric") == "P.5" and wb.page.input_value("#qrels") == ""


def test_the_status_of_metrics_is_not_shown_on_compare(wb):
    goto(wb, "example=croft-ap", "metrics", "#means tbody tr")
    wb.page.wait_for_selector("#status:has-text('evaluated in')")
    visibility = "getComputedStyle(document.getElementById('status')).visibility"
    assert wb.page.evaluate(visibility) == "visible"
    wb.page.evaluate("location.hash = 'compare'")
    until(wb, f"{visibility} === 'hidden'")


def test_a_negative_grade_shows_as_the_click_model_reads_it(wb):
    data = PRESETS["interleave"]["data"]
    qrels = data["qrels"].replace("1 0 t1-01 2\n", "1 0 t1-01 -1\n")
    assert qrels != data["qrels"]
    query = urlencode({"qrels": qrels, "a": data["a"], "b": data["b"], "imps": "40", "ilen": "3"})
    goto(wb, query, "interleave", "#impressions tbody tr")
    chips = texts(wb, "#impressions .shown")
    assert not any(re.search(r"[AB]:", c) for c in chips)
    negative = wb.page.eval_on_selector_all(
        "#impressions .gneg", "gs => gs.map(g => [g.textContent, g.parentElement.title])"
    )
    assert negative and all(
        t == "−1→0" and "counts as 0 for the click model" in why for t, why in negative
    )


def test_the_cli_figures_keep_legends_off_the_data_and_ranks_whole(tmp_path):
    """The figures of --plot (the page shows them as the server draws them): Compare's
    legends under their panels at 9 pt, explain's ranks whole numbers and its two nDCG
    lines told apart, interleave's figure as wide as Compare's."""
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from irscore.engine.ranking.conventions import Convention
    from irscore.report import compare_plots, plots, workbench_plots
    from irscore.workbench.explain import explain, from_grades

    a = np.array([0.2, 0.5, 0.4, 0.9, 0.3, 0.6])
    with plots.style():
        fig = compare_plots.figure(a, a[::-1], ("first", "second"), "map", B=500)
        renderer = FigureCanvasAgg(fig).get_renderer()
        fig.draw(renderer)
        for axes in fig.axes:
            legend, frame = axes.get_legend(), axes.get_window_extent(renderer)
            box = legend.get_window_extent(renderer)
            assert box.y1 < frame.y0, "the legend is below the plotting area"
            assert min(t.get_fontsize() for t in legend.get_texts()) >= 9
        e = explain(*from_grades([1, 1, 0, 0, 1]), "1", Convention(), 5)
        fig = workbench_plots.explain_figure(e)
        axes = fig.axes[0]
        assert [t for t in axes.get_xticks() if 0.5 <= t <= 5.5] == [1, 2, 3, 4, 5]
        lines = {line.get_label(): line for line in axes.get_lines()}
        assert list(lines["nDCG"].get_ydata()) == list(lines["nDCG exp"].get_ydata())  # grades 0/1
        assert lines["nDCG"].get_linestyle() != lines["nDCG exp"].get_linestyle()
        assert lines["nDCG"].get_marker() != lines["nDCG exp"].get_marker()
        markers = [lines[c.replace("@i", "")].get_marker() for c in workbench_plots.CURVES]
        assert len(set(markers)) == len(markers)
    assert workbench_plots.interleave_figure({}, "a", "b").get_size_inches()[0] == 9.6


def test_the_interleaving_figure_takes_the_width_of_the_page(wb):
    """(Every chart inside its frame at both widths: test_page_sweep's
    test_every_tab_reads_at_desktop_and_phone_width.)"""
    goto(wb, "example=interleave", "interleave", "#interleave-chart[src]")
    until(wb, "[...document.images].every(i => !i.src || i.complete)")
    widths = wb.page.evaluate(
        "[document.getElementById('interleave-chart').getBoundingClientRect().width,"
        " document.querySelector('main').clientWidth]"
    )
    assert widths[0] >= 0.9 * (widths[1] - 32), widths
    assert wb.errors == []
