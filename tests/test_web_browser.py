"""The workbench page in a real headless Chromium, driven by Playwright: each tab's
figures, input errors, the file picker and drop, settings, share links, long work, the
queue, and not one request outside 127.0.0.1.

One server and one Chromium for the module (tests/workbench_page.py). The numbers on
screen are checked against what the CLI prints for the same input and flags (not
against the page's own JSON). Every tab at both widths, every preset and every control:
tests/test_page_sweep.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import browser
import pytest
import web_server
from cli_calls import printed as cli
from web_server import serving
from workbench_page import READY, SHOWN, Workbench, workbench

from irscore.web.presets import PRESETS

pytestmark = [
    pytest.mark.skipif(browser.find() is None, reason="no Chromium on the PATH"),
    pytest.mark.slow,
]
# What Chromium logs for a response it was refused: the 503 the queue test asks for.
REFUSED = "Failed to load resource: the server responded with a status of 503"


@pytest.fixture(scope="module")
def module_page():
    """The module's page, with the servers it may ask (more are added by the tests that
    start their own); at the end, every request it made went to one of them."""
    with workbench() as page:
        page.servers = [page.base]
        yield page
        asked = {url for _, url in page.requests}
        local = (*page.servers, "data:", "about:blank")
        assert asked and all(url.startswith(local) for url in asked), sorted(asked)[:5]


@pytest.fixture
def page(module_page: Workbench):
    """The module's page for one test, which must log no console error."""
    module_page.errors.clear()
    module_page.servers_left = False
    yield module_page
    if module_page.servers_left:  # a test's own server stops: no page may still ask it
        module_page.page.goto("about:blank")
    assert [e for e in module_page.errors if REFUSED not in e] == []


def files(tmp: Path, data: dict) -> dict[str, Path]:
    """The texts of the page's boxes as files for the CLI."""
    paths = {}
    for key in ("qrels", "a", "b"):
        if data.get(key):
            paths[key] = tmp / {"qrels": "qrels", "a": "run_a", "b": "run_b"}[key]
            paths[key].write_text(data[key])
    return paths


def open_view(page: Workbench, query: str, tab: str) -> None:
    """Load the page at ?query#tab and wait until the tab shows its result."""
    page.open(query, tab)
    page.wait(f"document.querySelector({json.dumps(SHOWN[tab])})", 60)


def mean_row(page: Workbench, measure: str) -> list[str]:
    return page.page.evaluate(
        "measure => [...document.querySelectorAll('#means tbody tr')]"
        ".find(r => r.cells[0].innerText === measure)"
        "?.innerText.split('\\t').map(s => s.trim())",
        measure,
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
    page.page.click("#pq tbody tr.topic")
    page.wait("document.querySelectorAll('.grades-line .strip').length === 2")
    strips = page.page.evaluate(
        "[...document.querySelectorAll('.grades-line .strip')]"
        ".map(s => [...s.children].map(g => g.innerText))"
    )
    paths = files(tmp_path, {k: page.value(k) for k in ("qrels", "a")})
    printed = cli("explain", paths["qrels"], paths["a"], "--topic", "401", "-k", "1000",
                  "--format", "json")  # fmt: skip
    assert strips[0] == [r["grade"] for r in json.loads(printed)["ranks"]]
    assert "?" in strips[0] and len(strips[0]) == 20  # 20 documents, some below the pool


def test_ranking_presets_show_their_figures(page, tmp_path):
    open_view(page, "example=wiki-dcg", "ranking")
    finals = page.text("#finals")
    assert "DCG@6 = 6.8611" in finals and "IDCG@6 = 8.7403" in finals
    assert "nDCG@6 = 0.7850" in finals
    assert page.text("#ranking-grades").split() == ["3", "2", "3", "0", "1", "2"]
    ranks = page.page.evaluate(
        "[...document.querySelectorAll('#ranks tr')].map(r => [...r.cells].map(c => c.innerText))"
    )
    explained = json.loads(cli("explain", "--grades", "3,2,3,0,1,2", "--missed", "3,2", "-k", "6",
                               "--format", "json"))["ranks"]  # fmt: skip
    column = {name: i for i, name in enumerate(ranks[0])}
    assert [row[column["grade"]] for row in ranks[1:]] == [r["grade"] for r in explained]
    assert [row[column["nDCG@i"]] for row in ranks[1:]] == [f"{r['nDCG@i']:.4f}" for r in explained]
    assert ranks[-1][column["nDCG@i"]] == "0.7850"
    assert page.page.evaluate("document.getElementById('explain-chart').naturalWidth") > 300
    open_view(page, "example=err-cascade", "ranking")
    err = cli("explain", "--grades", "3,0,2,1,0", "-k", "5", "--gmax", "3")
    assert re.search(r"ERR@5 = [^\n]*= (0\.\d{4})", err)[1] in page.text("#finals")
    open_view(page, "example=ties", "ranking")
    paths = files(tmp_path, PRESETS["ties"]["data"])
    shown = cli("explain", paths["qrels"], paths["a"], "--topic", "1", "-k", "4")
    assert page.page.evaluate("document.getElementById('explain-text').textContent") == shown
    # the tie groups shown on One ranking itself (not in the Data tab's "ties" menu)
    tie = "ranks 1-3 tie at score 0.5; docno_desc order: x3, x2, x1"
    assert tie in shown and tie in page.text("#tab-ranking")


def test_an_input_error_is_shown_beside_its_box_with_the_line(page):
    open_view(page, "example=croft-ap", "data")
    page.type_into("qrels", PRESETS["croft-ap"]["data"]["qrels"] + "1 0 r9\n")
    page.wait("document.getElementById('err-qrels').innerText !== ''")
    assert page.text("#err-qrels") == "qrels:11: expected 4 columns, found 3: '1 0 r9'"
    assert page.text("#err-a") == ""


def test_a_file_opened_with_the_picker_fills_its_box(page, tmp_path):
    open_view(page, "example=croft-ap", "data")
    run = tmp_path / "my.run"
    run.write_text(PRESETS["croft-ap"]["data"]["b"])
    page.type_into("na", "")
    page.page.set_input_files("#file-a", run)  # as the Open… button's file chooser does
    page.wait("document.getElementById('na').value === 'my.run'")
    assert page.value("a") == run.read_text()
    page.page.evaluate("location.hash = 'metrics'")
    page.wait("document.getElementById('means-a').innerText === 'my.run'")
    assert mean_row(page, "map")[1:3] == ["0.3396", "0.3396"]  # A is now ranking2's file
    # dropped onto the box: the same as opened
    page.page.evaluate(
        "text => { const drop = new DataTransfer();"
        " drop.items.add(new File([text], 'drop.run'));"
        " document.getElementById('a').dispatchEvent("
        "new DragEvent('drop', {dataTransfer: drop, bubbles: true, cancelable: true})); }",
        PRESETS["croft-ap"]["data"]["a"],
    )
    rows = "[...document.querySelectorAll('#means tbody tr')]"
    page.wait(f"{rows}.find(r => r.cells[0].innerText === 'map')?.cells[1].innerText === '0.7153'")


def test_requests_made_while_a_job_runs_do_not_pile_up(page):
    """Five evaluations asked for at once (as pauses in typing into a large input do):
    the first runs, the last waits and runs next, the three between never start."""
    open_view(page, "example=croft-ap", "metrics")
    page.settle()

    def posts() -> int:
        return sum(m == "POST" and u.endswith("/api/jobs/evaluate") for m, u in page.requests)

    before = posts()
    page.page.evaluate("document.getElementById('k').value = '3'")  # no input event: no pause
    page.page.evaluate("refreshMetrics(); refreshMetrics(); refreshMetrics(); refreshMetrics()")
    page.wait("document.getElementById('means').innerText.includes('P_3')")
    page.page.wait_for_timeout(1500)
    assert posts() - before == 2  # the first, and the last of the four


def test_a_setting_changes_the_numbers_to_the_cli_s(page, tmp_path):
    open_view(page, "example=wiki-dcg", "metrics")
    before = mean_row(page, "map")
    page.page.evaluate("location.hash = 'data'")
    page.type_into("rl", "2")
    page.type_into("k", "3")
    page.wait("document.getElementById('command').innerText.includes('-l=2')")
    page.page.evaluate("location.hash = 'metrics'")
    page.wait("document.querySelector('#means tbody tr')")
    paths = files(tmp_path, PRESETS["wiki-dcg"]["data"])
    flags = ["-l", "2", "-m", "all_trec", "-m", "P.3", "-m", "recall.3", "-m", "ndcg_cut.3"]
    printed = cli("evaluate", *flags, "-m", "err.3", paths["qrels"], paths["a"])
    # -l 2: the grade-1 document is not relevant any more; R = 6 of the 8 judged
    assert mean_row(page, "map")[1] == trec_values(printed)["map"] != before[1]
    assert mean_row(page, "P_3")[1] == trec_values(printed)["P_3"]
    assert page.page.evaluate("document.getElementById('trec').textContent") == printed
    page.page.check("#trec-q")
    page.wait("document.getElementById('trec').textContent.includes('\\t1\\t')")
    per_query = cli("evaluate", *flags, "-m", "err.3", "-q", paths["qrels"], paths["a"])
    assert page.page.evaluate("document.getElementById('trec').textContent") == per_query


def test_compare_shows_the_cli_s_tests(page, tmp_path):
    open_view(page, "example=interleave&metric=P.5&B=2000&seed=3", "compare")
    paths = files(tmp_path, PRESETS["interleave"]["data"])
    printed = cli(
        "compare", "-m", "P.5", "--B", "2000", "--seed", "3",
        "--format", "json", paths["qrels"], paths["a"], paths["b"],
    )  # fmt: skip
    rows = page.page.evaluate(
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
    assert page.text("#compare-correction") == f"sig.: after the correction, {said}"
    assert page.page.evaluate("document.querySelectorAll('#diffs rect').length") == 6
    named = "[...document.querySelectorAll('#scatter .dot[data-topic]')]"  # a mark per point
    topics = page.page.evaluate(f"{named}.flatMap(d => d.dataset.topics.split(' ')).sort()")
    assert topics == ["1", "2", "3", "4", "5", "6"]  # each query once, where values meet too
    assert page.page.evaluate("document.getElementById('compare-chart').naturalWidth") > 500


def test_the_measure_box_takes_what_the_command_line_takes(page):
    open_view(page, "example=interleave&metric=nDCG@10&B=200", "compare")
    assert page.text("#err-compare") == ""
    assert page.text("#tests tbody tr td")  # the tests of nDCG@10 are shown
    page.type_into("metric", "ndcg_cut_1x5")
    page.wait("document.getElementById('err-compare').innerText !== ''")
    assert page.text("#err-compare").startswith(
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
    shown = page.text("#verdict")
    for figure in ("675", "994", "331", "0.5956", "after 177 impressions"):
        assert figure in shown and figure in printed
    assert page.page.evaluate("document.querySelectorAll('#impressions tbody tr').length") == 50
    assert page.page.evaluate("document.getElementById('interleave-chart').naturalWidth") > 300


def test_a_share_link_reopens_the_same_view(page):
    open_view(page, "example=croft-ap", "data")
    long_run = "".join(f"1 Q0 n{i % 6 + 1}x{i} {i} {1000 - i} long\n" for i in range(1, 200))
    page.type_into("b", long_run)
    page.type_into("nb", "long one")
    page.type_into("k", "3,7")
    page.type_into("metric", "P.3")
    page.page.evaluate("location.hash = 'metrics'")
    link = page.shared_link()
    assert "#metrics" in link
    assert "z=" in link and "&b=" not in link  # the long inputs packed into one parameter
    page.wait("document.querySelector('#means-b').innerText === 'long one'")
    before = page.text("#means")
    page.page.goto("about:blank")
    page.page.goto(link)
    page.wait(READY)
    page.wait("document.querySelector('#means-b').innerText === 'long one'", 30)
    assert page.value("b") == long_run
    assert page.value("k") == "3,7"
    assert page.value("metric") == "P.3"
    assert page.page.evaluate("document.getElementById('tab-metrics').hidden") is False
    assert page.text("#means") == before


def test_long_work_shows_progress_and_blocks_no_other_tab(page):
    """On a server of its own: the long job it starts would hold up the other tests."""
    with serving() as (url, _):
        page.servers.append(url)
        page.page.goto(f"{url}?example=interleave#data")
        page.wait(READY)
        page.servers_left = True  # the page leaves this server (page fixture), even failed
        page.type_into("imps", "100000")
        page.page.evaluate("location.hash = 'interleave'")
        page.wait("!document.getElementById('interleave-progress').hidden", 10)
        page.wait("document.getElementById('interleave-wait').innerText.includes('command 1: ')")
        assert "irscore interleave --method=team_draft" in page.text("#interleave-wait")
        page.page.evaluate("location.hash = 'ranking'")
        page.type_into("grades", "1,0,1")
        grades = "document.getElementById('ranking-grades').innerText"
        page.wait(f"{grades}.split(/\\s+/).join('') === '101'", 40)
        # answered while the interleaving still runs (its bar still shows)
        assert page.page.evaluate("!document.getElementById('interleave-progress').hidden")
        page.page.goto("about:blank")


def test_a_malformed_share_link_says_so_and_the_page_starts(page):
    """A link whose packed inputs were cut short or changed: one message, the page
    starts without them (no error thrown in the page, none logged), and works as before."""
    # not deflate; not base64; the deflate of "hello not json"
    for packed in ("AAAA____", "not-base64!", "y0jNyclXyMsvUcgqzs8DAA"):
        page.open(f"z={packed}", "metrics")
        said = page.text("#notice")
        assert said.startswith("This link's inputs (z=…) cannot be read: was it cut short ")
        assert "The page starts without them." in said
        assert page.text("#status").startswith("Paste, open or drop the qrels and a run")
    page.shot("malformed-link")
    assert page.errors == []
    open_view(page, "example=croft-ap", "metrics")  # and a good link works as before
    assert page.text("#notice") == ""


def test_a_waiting_job_shows_its_place_can_be_cancelled_and_a_full_queue_says_so(page):
    """Another tab's long job holds the worker of Compare and Interleaving: this tab's
    Compare says its place in the queue and can be cancelled; with the queue full, the
    server's 503 message shows; a running job's Cancel ends it. On a server of its own."""
    data = PRESETS["interleave"]["data"]
    with serving() as (url, _):
        page.servers.append(url)
        other = web_server.request(url, "/api/jobs/interleave", {**data, "imps": "1000000"})
        page.servers_left = True
        page.page.goto(f"{url}?example=interleave#compare")
        page.wait(READY)
        page.wait("document.getElementById('compare-wait').innerText.includes('1st')", 30)
        assert page.text("#compare-wait").startswith("waiting: 1st in the queue for ")
        page.wait("!document.getElementById('compare-cancel').hidden")  # after 300 ms
        page.shot("compare-queued")
        page.page.click("#compare-cancel")
        page.wait("document.getElementById('err-compare').innerText !== ''")
        assert page.text("#err-compare") == (
            "cancelled: its worker process was ended (a new one takes the next job)"
        )
        assert page.page.evaluate("document.getElementById('compare-cancel').hidden") is True
        page.shot("compare-cancelled")
        queued = [web_server.request(url, "/api/jobs/compare", data)[2]["id"] for _ in range(8)]
        page.type_into("seed", "5")  # a new Compare: the queue is full
        page.wait("document.getElementById('err-compare').innerText.includes('busy')")
        assert page.text("#err-compare") == (
            "the server is busy: 8 jobs wait already for the worker of Compare and "
            "Interleaving; try again in 10 s, or cancel one"
        )
        page.shot("compare-busy")
        for key in [other[2]["id"], *queued]:
            web_server.request(url, f"/api/jobs/{key}", method="DELETE")
        page.type_into("imps", "1000000")
        page.page.evaluate("location.hash = 'interleave'")
        page.wait("document.getElementById('interleave-wait').innerText.includes('command 1')")
        page.wait("!document.getElementById('interleave-cancel').hidden")
        page.shot("interleave-running")
        page.page.click("#interleave-cancel")
        page.wait("document.getElementById('err-interleave').innerText.startsWith('cancelled')")
        page.page.goto("about:blank")


def test_the_page_asks_for_nothing_outside_127_0_0_1(page):
    """Every tab with its results, a query's ranking and a share link: each request
    the page makes goes to the server that served it (the module checks it again at
    its end, for every test's requests)."""
    start = len(page.requests)
    for tab in SHOWN:
        open_view(page, "example=interleave&B=200&imps=500", tab)
        page.settle()
    page.page.click("nav a[data-tab='metrics']")
    page.page.click("#pq tbody tr.topic")
    page.wait("document.querySelectorAll('.grades-line .strip').length === 2", 60)
    page.page.click("#share")
    asked = {url for _, url in page.requests[start:]}
    assert {url.split("?")[0] for url in asked} >= {
        f"{page.base}{path}" for path in ("", "static/app.js", "static/app.css")
    }
    assert all(url.startswith((page.base, "data:")) for url in asked), sorted(asked)[:5]
