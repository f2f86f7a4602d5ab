"""The workbench page in a real headless Chromium: every tab, its presets, errors, settings,
share links, long work, screenshots, and not one request outside 127.0.0.1.

One server and one Chromium for the module. The numbers on screen are checked against
what the CLI prints for the same input and flags (not against the page's own JSON).
"""

from __future__ import annotations

import io
import json
import re
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import browser
import pytest
import web_server
from web_server import serving

from irscore.cli import main
from irscore.web.presets import PRESETS

pytestmark = [
    pytest.mark.skipif(browser.find() is None, reason="no Chromium on the PATH"),
    pytest.mark.slow,
]
SHOTS = Path(tempfile.gettempdir()) / "irscore-serve-shots"
PHONE = (390, 844)
DESKTOP = (1280, 800)
TABS = ("data", "metrics", "ranking", "compare", "interleave")
READY = "document.body.dataset.ready === '1'"
# What each tab shows once its job is done.
SHOWN = {
    "data": "#command:not(:empty)",
    "metrics": "#means tbody tr",
    "ranking": "#finals li",
    "compare": "#tests tbody tr",
    "interleave": "#verdict dd",
}


@pytest.fixture(scope="module")
def page():
    """(the server's address, the browser) with every request the page makes recorded."""
    with serving() as (url, _), browser.Browser(browser.find(), Path(tempfile.mkdtemp())) as b:
        b.recorded = {"Network.requestWillBeSent"}
        b.send("Network.enable")
        b.window(*DESKTOP)
        b.base = url
        b.servers = [url]
        yield b
        # at the end of the module: every request the page made, the links it opened too
        asked = {e["params"]["request"]["url"] for e in b.events}
        local = (*b.servers, "data:")
        assert asked and all(u.startswith(local) for u in asked), sorted(asked)[:5]


def cli(*argv: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert main([str(a) for a in argv]) == 0, err.getvalue()
    return out.getvalue()


def files(tmp: Path, data: dict) -> dict[str, Path]:
    """The texts of the page's boxes as files for the CLI."""
    paths = {}
    for key in ("qrels", "a", "b"):
        if data.get(key):
            paths[key] = tmp / {"qrels": "qrels", "a": "run_a", "b": "run_b"}[key]
            paths[key].write_text(data[key])
    return paths


def open_view(b: browser.Browser, query: str, tab: str) -> None:
    """Load the page at ?query#tab and wait until the tab shows its result."""
    b.open(f"{b.base}?{query}#{tab}")
    b.wait_for(READY)
    b.wait_for(f"document.querySelector({json.dumps(SHOWN[tab])})", 60)


def text(b: browser.Browser, selector: str) -> str:
    return b.evaluate(f"document.querySelector({json.dumps(selector)}).innerText")


def mean_row(b: browser.Browser, measure: str) -> list[str]:
    return b.evaluate(
        "[...document.querySelectorAll('#means tbody tr')]"
        f".find(r => r.cells[0].innerText === {json.dumps(measure)})"
        "?.innerText.split('\\t').map(s => s.trim())"
    )


def type_into(b: browser.Browser, element: str, value: str) -> None:
    """Set a field as typing does (an input event after the value)."""
    b.evaluate(
        f"(e => {{ e.value = {json.dumps(value)}; e.dispatchEvent(new Event('input')); "
        f"e.dispatchEvent(new Event('change')); }})(document.getElementById({json.dumps(element)}))"
    )


def trec_values(output: str) -> dict[str, str]:
    return {line.split()[0]: line.split()[2] for line in output.splitlines()}


def test_metrics_presets_show_their_figures(page, tmp_path):
    open_view(page, "example=croft-ap", "metrics")
    assert mean_row(page, "map") == ["map", "0.7153", "0.3396", "-0.3757"]  # 0.71 / 0.33
    open_view(page, "example=croft-map", "metrics")
    assert mean_row(page, "map")[:2] == ["map", "0.5325"]  # MAP 0.53
    open_view(page, "example=pooled-trec", "metrics")
    # docs/workbench.md: bm25 on the pool, MAP 0.2504; bm25+rerank 0.5761
    assert mean_row(page, "map")[:3] == ["map", "0.2504", "0.5761"]
    # a query of the per-query table opens each run's ranking as its grades, ? unjudged
    page.evaluate("document.querySelector('#pq tbody tr.topic').click()")
    page.wait_for("document.querySelectorAll('.grades-line .strip').length === 2")
    strips = page.evaluate(
        "[...document.querySelectorAll('.grades-line .strip')]"
        ".map(s => [...s.children].map(g => g.innerText))"
    )
    data = {k: page.evaluate(f"document.getElementById('{k}').value") for k in ("qrels", "a")}
    paths = files(tmp_path, data)
    printed = cli("explain", paths["qrels"], paths["a"], "--topic", "401", "-k", "1000",
                  "--format", "json")  # fmt: skip
    assert strips[0] == [r["grade"] for r in json.loads(printed)["ranks"]]
    assert "?" in strips[0] and len(strips[0]) == 20  # 20 documents, some below the pool


def test_ranking_presets_show_their_figures(page, tmp_path):
    open_view(page, "example=wiki-dcg", "ranking")
    finals = text(page, "#finals")
    assert "DCG@6 = 6.8611" in finals and "IDCG@6 = 8.7403" in finals
    assert "nDCG@6 = 0.7850" in finals
    assert text(page, "#ranking-grades").split() == ["3", "2", "3", "0", "1", "2"]
    assert page.evaluate("document.getElementById('explain-chart').naturalWidth") > 300
    open_view(page, "example=err-cascade", "ranking")
    err = cli("explain", "--grades", "3,0,2,1,0", "-k", "5", "--gmax", "3")
    assert re.search(r"ERR@5 = [^\n]*= (0\.\d{4})", err)[1] in text(page, "#finals")
    open_view(page, "example=ties", "ranking")
    paths = files(tmp_path, PRESETS["ties"]["data"])
    shown = cli("explain", paths["qrels"], paths["a"], "--topic", "1", "-k", "4")
    shown_text = page.evaluate("document.getElementById('explain-text').textContent")
    assert shown_text == shown
    assert text(page, "#ties") == "ranks 1-3 tie at score 0.5; docno_desc order: x3, x2, x1"


def test_an_input_error_is_shown_beside_its_box_with_the_line(page):
    open_view(page, "example=croft-ap", "data")
    type_into(page, "qrels", PRESETS["croft-ap"]["data"]["qrels"] + "1 0 r9\n")
    page.wait_for("document.getElementById('err-qrels').innerText !== ''")
    assert text(page, "#err-qrels") == "qrels:11: expected 4 columns, found 3: '1 0 r9'"
    assert text(page, "#err-a") == ""


def test_a_file_opened_with_the_picker_fills_its_box(page, tmp_path):
    open_view(page, "example=croft-ap", "data")
    run = tmp_path / "my.run"
    run.write_text(PRESETS["croft-ap"]["data"]["b"])
    root = page.send("DOM.getDocument")["root"]["nodeId"]
    picker = page.send("DOM.querySelector", nodeId=root, selector="#file-a")["nodeId"]
    type_into(page, "na", "")
    page.send("DOM.setFileInputFiles", files=[str(run)], nodeId=picker)
    page.wait_for("document.getElementById('na').value === 'my.run'")
    assert page.evaluate("document.getElementById('a').value") == run.read_text()
    page.evaluate("location.hash = 'metrics'")
    page.wait_for("document.getElementById('means-a').innerText === 'my.run'")
    assert mean_row(page, "map")[1:3] == ["0.3396", "0.3396"]  # A is now ranking2's file
    # dropped onto the box: the same as opened
    page.evaluate(
        "(() => { const drop = new DataTransfer();"
        f" drop.items.add(new File([{json.dumps(PRESETS['croft-ap']['data']['a'])}], 'drop.run'));"
        " document.getElementById('a').dispatchEvent("
        "new DragEvent('drop', {dataTransfer: drop, bubbles: true, cancelable: true})); })()"
    )
    rows = "[...document.querySelectorAll('#means tbody tr')]"
    map_row = f"{rows}.find(r => r.cells[0].innerText === 'map')"
    page.wait_for(f"{map_row}?.cells[1].innerText === '0.7153'")


def test_requests_made_while_a_job_runs_do_not_pile_up(page):
    """Five evaluations asked for at once (as pauses in typing into a large input do):
    the first runs, the last waits and runs next, the three between never start."""
    open_view(page, "example=croft-ap", "metrics")
    posts = lambda: sum(  # noqa: E731
        e["params"]["request"]["url"].endswith("/api/jobs/evaluate")
        and e["params"]["request"]["method"] == "POST"
        for e in page.events
    )
    before = posts()
    page.evaluate("document.getElementById('k').value = '3'")  # no input event: no debounce
    page.evaluate("refreshMetrics(); refreshMetrics(); refreshMetrics(); refreshMetrics()")
    page.wait_for("document.getElementById('means').innerText.includes('P_3')")
    page.evaluate("new Promise(done => setTimeout(done, 1500))")
    assert posts() - before == 2  # the first, and the last of the four


def test_a_setting_changes_the_numbers_to_the_cli_s(page, tmp_path):
    open_view(page, "example=wiki-dcg", "metrics")
    before = mean_row(page, "map")
    page.evaluate("location.hash = 'data'")
    type_into(page, "rl", "2")
    type_into(page, "k", "3")
    page.wait_for("document.getElementById('command').innerText.includes('-l=2')")
    page.evaluate("location.hash = 'metrics'")
    page.wait_for("document.querySelector('#means tbody tr')")
    paths = files(tmp_path, PRESETS["wiki-dcg"]["data"])
    flags = ["-l", "2", "-m", "all_trec", "-m", "P.3", "-m", "recall.3", "-m", "ndcg_cut.3"]
    printed = cli("evaluate", *flags, "-m", "err.3", paths["qrels"], paths["a"])
    # -l 2: the grade-1 document is not relevant any more; R = 6 of the 8 judged
    assert mean_row(page, "map")[1] == trec_values(printed)["map"] != before[1]
    assert mean_row(page, "P_3")[1] == trec_values(printed)["P_3"]
    shown = page.evaluate("document.getElementById('trec').textContent")
    assert shown == printed  # the same bytes, ready to copy and diff
    page.evaluate("document.getElementById('trec-q').click()")
    page.wait_for("document.getElementById('trec').textContent.includes('\\t1\\t')")
    per_query = cli("evaluate", *flags, "-m", "err.3", "-q", paths["qrels"], paths["a"])
    assert page.evaluate("document.getElementById('trec').textContent") == per_query


def test_compare_shows_the_cli_s_tests(page, tmp_path):
    open_view(page, "example=interleave&metric=P.5&B=2000&seed=3", "compare")
    paths = files(tmp_path, PRESETS["interleave"]["data"])
    printed = cli(
        "compare", "-m", "P.5", "--B", "2000", "--seed", "3",
        "--format", "json", paths["qrels"], paths["a"], paths["b"],
    )  # fmt: skip
    rows = page.evaluate(
        "[...document.querySelectorAll('#tests tbody tr')]"
        ".map(r => [...r.cells].map(c => c.innerText))"
    )
    for shown, test in zip(rows, json.loads(printed), strict=True):
        assert shown[0] == test["test"]
        assert shown[2:7] == [
            f"{test['mean_a']:.4f}",
            f"{test['mean_b']:.4f}",
            f"{test['diff']:+.4f}",
            f"{test['p']:.4g}",
            f"{test['p_adjusted']:.4g}",
        ]
        assert shown[8] == ("yes" if test["significant"] else "no")
    # the marks are after compare's default correction, and the page says which
    said = "p adjusted: Holm over each test's 1 p-value, one per measure; alpha 0.05"
    assert text(page, "#compare-correction") == f"sig.: after the correction, {said}"
    assert page.evaluate("document.querySelectorAll('#diffs rect').length") == 6
    assert page.evaluate("document.getElementById('compare-chart').naturalWidth") > 500


def test_the_measure_box_takes_what_the_command_line_takes(page):
    open_view(page, "example=interleave&metric=nDCG@10&B=200", "compare")
    assert text(page, "#err-compare") == ""
    assert text(page, "#tests tbody tr td")  # the tests of nDCG@10 are shown
    type_into(page, "metric", "ndcg_cut_1x5")
    page.wait_for("document.getElementById('err-compare').innerText !== ''")
    assert text(page, "#err-compare").startswith(
        "metric: unknown measure 'ndcg_cut_1x5'; close names: ndcg_cut_15"
    )


def test_interleaving_shows_the_cli_s_verdict(page, tmp_path):
    open_view(page, "example=interleave", "interleave")
    paths = files(tmp_path, PRESETS["interleave"]["data"])
    printed = cli(
        "interleave", "--click-model", "navigational", "--impressions", "2000",
        "--length", "5", "--seed", "1", paths["qrels"], paths["a"], paths["b"],
    )  # fmt: skip
    assert "wins A: 675" in printed  # the preset's figures, as docs/workbench.md shows them
    shown = text(page, "#verdict")
    for figure in ("675", "994", "331", "0.5956", "after 177 impressions"):
        assert figure in shown and figure in printed
    assert page.evaluate("document.querySelectorAll('#impressions tbody tr').length") == 50


def test_a_share_link_reopens_the_same_view(page):
    open_view(page, "example=croft-ap", "data")
    long_run = "".join(f"1 Q0 n{i % 6 + 1}x{i} {i} {1000 - i} long\n" for i in range(1, 200))
    type_into(page, "b", long_run)
    type_into(page, "nb", "long one")
    type_into(page, "k", "3,7")
    type_into(page, "metric", "P.3")
    page.evaluate("location.hash = 'metrics'")
    page.evaluate("document.getElementById('share').click()")
    page.wait_for("document.getElementById('share-url').value.includes('#metrics')")
    link = page.evaluate("document.getElementById('share-url').value")
    assert "z=" in link and "&b=" not in link  # the long inputs packed into one parameter
    page.wait_for("document.querySelector('#means-b').innerText === 'long one'")
    before = page.evaluate("document.querySelector('#means').innerText")
    page.open("about:blank")
    page.open(link)
    page.wait_for(READY)
    page.wait_for("document.querySelector('#means-b').innerText === 'long one'", 30)
    assert page.evaluate("document.getElementById('b').value") == long_run
    assert page.evaluate("document.getElementById('k').value") == "3,7"
    assert page.evaluate("document.getElementById('metric').value") == "P.3"
    assert page.evaluate("document.getElementById('tab-metrics').hidden") is False
    assert page.evaluate("document.querySelector('#means').innerText") == before


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1280x800", "390x844"])
def test_every_tab_reads_at_desktop_and_phone_width(page, size):
    """Nothing cut off, overlapping the window's edge or scrolling sideways, but the
    CLI's figures on a phone, which keep a size their text reads at (in their box)."""
    SHOTS.mkdir(exist_ok=True)
    page.window(*size)
    problems = {}
    # pooled-trec: long run names and 25 queries
    presets = ("croft-ap", "pooled-trec", "wiki-dcg", "interleave&B=1000", "interleave")
    for tab, preset in zip(TABS, presets, strict=True):
        open_view(page, f"example={preset}", tab)
        page.wait_for("[...document.images].every(i => !i.src || i.complete)")
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        page.screenshot(SHOTS / f"{tab}-{size[0]}x{size[1]}.png")
        found = [p for p in page.evaluate(browser.PROBLEMS_JS) if not p.startswith("a figure ")]
        if found:
            problems[tab] = found
    page.window(*DESKTOP)
    assert problems == {}


def test_long_work_shows_progress_and_blocks_no_other_tab(page):
    """On a server of its own: the long job it starts would hold up the other tests."""
    with serving() as (url, _):
        page.servers.append(url)
        page.open(f"{url}?example=interleave#data")
        page.wait_for(READY)
        type_into(page, "imps", "100000")
        page.evaluate("location.hash = 'interleave'")
        page.wait_for("!document.getElementById('interleave-progress').hidden", 10)
        waiting = "document.getElementById('interleave-wait').innerText"
        page.wait_for(f"{waiting}.includes('command 1: ')")
        assert "irscore interleave --method=team_draft" in text(page, "#interleave-wait")
        page.evaluate("location.hash = 'ranking'")
        type_into(page, "grades", "1,0,1")
        grades = "document.getElementById('ranking-grades').innerText"
        page.wait_for(f"{grades}.split(/\\s+/).join('') === '101'")
        # answered while the interleaving still runs (its bar still shows)
        assert page.evaluate("!document.getElementById('interleave-progress').hidden")
        page.open("about:blank")


def test_a_malformed_share_link_says_so_and_the_page_starts(page):
    """A link whose packed inputs were cut short or changed: one message, the page
    starts without them (no error thrown in the page), and works as before."""
    thrown = "Runtime.exceptionThrown"
    page.recorded.add(thrown)
    try:
        # not deflate; not base64; the deflate of "hello not json"
        for packed in ("AAAA____", "not-base64!", "y0jNyclXyMsvUcgqzs8DAA"):
            page.open(f"{page.base}?z={packed}#metrics")
            page.wait_for(READY)
            said = text(page, "#notice")
            assert said.startswith("This link's inputs (z=…) cannot be read: was it cut short ")
            assert "The page starts without them." in said
            assert text(page, "#status").startswith("Paste, open or drop the qrels and a run")
        SHOTS.mkdir(exist_ok=True)
        page.screenshot(SHOTS / "malformed-link.png")
        assert [e for e in page.events if e["method"] == thrown] == []
    finally:
        page.recorded.discard(thrown)
        page.events[:] = [e for e in page.events if e["method"] != thrown]
    open_view(page, "example=croft-ap", "metrics")  # and a good link works as before
    assert text(page, "#notice") == ""


def test_a_waiting_job_shows_its_place_can_be_cancelled_and_a_full_queue_says_so(page):
    """Another tab's long job holds the worker of Compare and Interleaving: this tab's
    Compare says its place in the queue and can be cancelled; with the queue full, the
    server's 503 message shows; a running job's Cancel ends it. On a server of its own."""
    SHOTS.mkdir(exist_ok=True)
    data = PRESETS["interleave"]["data"]
    with serving() as (url, _):
        page.servers.append(url)
        other = web_server.request(url, "/api/jobs/interleave", {**data, "imps": "1000000"})
        page.open(f"{url}?example=interleave#compare")
        page.wait_for(READY)
        page.wait_for("document.getElementById('compare-wait').innerText.includes('1st')", 30)
        assert text(page, "#compare-wait").startswith("waiting: 1st in the queue for ")
        page.wait_for("!document.getElementById('compare-cancel').hidden")  # after 300 ms
        page.screenshot(SHOTS / "compare-queued.png")
        page.evaluate("document.getElementById('compare-cancel').click()")
        page.wait_for("document.getElementById('err-compare').innerText !== ''")
        assert text(page, "#err-compare") == (
            "cancelled: its worker process was ended (a new one takes the next job)"
        )
        assert page.evaluate("document.getElementById('compare-cancel').hidden") is True
        page.screenshot(SHOTS / "compare-cancelled.png")
        queued = [web_server.request(url, "/api/jobs/compare", data)[2]["id"] for _ in range(8)]
        type_into(page, "seed", "5")  # a new Compare: the queue is full
        page.wait_for("document.getElementById('err-compare').innerText.includes('busy')")
        assert text(page, "#err-compare") == (
            "the server is busy: 8 jobs wait already for the worker of Compare and "
            "Interleaving; try again in 10 s, or cancel one"
        )
        page.screenshot(SHOTS / "compare-busy.png")
        for key in [other[2]["id"], *queued]:
            web_server.request(url, f"/api/jobs/{key}", method="DELETE")
        type_into(page, "imps", "1000000")
        page.evaluate("location.hash = 'interleave'")
        page.wait_for("document.getElementById('interleave-wait').innerText.includes('command 1')")
        page.wait_for("!document.getElementById('interleave-cancel').hidden")
        page.screenshot(SHOTS / "interleave-running.png")
        page.evaluate("document.getElementById('interleave-cancel').click()")
        page.wait_for("document.getElementById('err-interleave').innerText.startsWith('cancelled')")
        page.open("about:blank")
