"""Every tab, preset and control of the workbench page clicked through in Chromium
(Playwright): each preset shows the figures docs/workbench.md's table gives it, each
control changes the command the page runs and leaves no console error and no chart
mark outside its frame, no element id repeats, every tab reads at 1280x800 and
390x844 (a screenshot of each under SHOTS), and malformed links say what is wrong.

One server and one Chromium for the module (tests/workbench_page.py)."""

from __future__ import annotations

import re

import browser
import pytest
from doc_pages import page as doc_page
from doc_pages import section
from workbench_page import DESKTOP, PHONE, SHOWN, TABS, Workbench, workbench

from irscore.web.presets import PRESETS

pytestmark = [
    pytest.mark.skipif(browser.find() is None, reason="no Chromium on the PATH"),
    pytest.mark.slow,
]
# Where each tab shows its figures (not the CLI's text below them).
FIGURES = {"metrics": "#means", "ranking": "#finals, #ranks", "interleave": "#verdict"}
# The two runs of the interleave preset, with few resamples and impressions (quick jobs).
QUICK = "example=interleave&B=200&imps=500"


@pytest.fixture(scope="module")
def page():
    with workbench() as opened:
        yield opened


def shown(page: Workbench, query: str, tab: str) -> None:
    """Load ?query#tab and wait until the tab shows its result and the page is idle."""
    page.open(query, tab)
    page.wait(f"document.querySelector('{SHOWN[tab]}')", 120)
    page.settle()


def figures_table() -> dict[str, tuple[str, str]]:
    """docs/workbench.md's presets table: {example: (tab, what it shows)}."""
    text = section(doc_page("workbench.md"), "## The workbench in the browser: `irscore serve`")
    rows = re.findall(r"^\| `([\w-]+)` \| ([^|]+) \| ([^|]+) \|$", text, re.M)
    return {name: (tab.strip(), shows.strip()) for name, tab, shows in rows}


def checks(page: Workbench) -> list[str]:
    """What is wrong with the page as it is now: console errors since the last look,
    and chart marks outside their frames."""
    found = [*page.errors, *(f"outside its frame: {m}" for m in page.outside_frames())]
    page.errors.clear()
    return found


def test_the_docs_table_lists_every_preset_on_its_tab():
    table = figures_table()
    assert sorted(table) == sorted(PRESETS)
    assert {name: tab for name, (tab, _) in table.items()} == {
        name: TABS[preset["tab"]] for name, preset in PRESETS.items()
    }


def test_every_preset_loaded_from_its_menu_shows_its_worked_figures(page):
    """Each preset chosen in Data's menu and loaded with its button: the tab it opens
    shows every figure of its row in docs/workbench.md's table (figures with four
    decimals and counts), and the hand-worked values of presets.py."""
    problems, missing = {}, {}
    page.open("", "data")
    page.settle()
    for name, (_, shows) in figures_table().items():
        page.page.click("nav a[data-tab='data']")
        page.page.select_option("#preset", name)
        page.page.click("#load-preset")
        tab = PRESETS[name]["tab"]
        page.wait(f"location.hash === '#{tab}' && document.querySelector('{SHOWN[tab]}')", 120)
        page.settle()
        text = page.page.evaluate(
            f"[...document.querySelectorAll('{FIGURES[tab]}')].map(e => e.innerText).join(' ')"
        )
        wanted = re.findall(r"\b\d+\.\d{4}\b|\b\d{3,}\b", shows)
        # err-cascade: stop probabilities (2^g - 1) / 2^3 of grades 3, 0, 2, 1, 0
        wanted += {"err-cascade": ["0.8750", "0.3750", "0.1250"]}.get(name, [])
        missing[name] = [figure for figure in wanted if figure not in text]
        problems[name] = checks(page)
        page.shot(f"sweep-preset-{name}")
    assert missing == {name: [] for name in PRESETS}
    assert problems == {name: [] for name in PRESETS}


def test_the_tie_groups_show_on_one_ranking(page):
    """The ties preset: One ranking lists the tied ranks and the order trec_eval's
    convention gave them."""
    shown(page, "example=ties", "ranking")
    assert "ranks 1-3 tie at score 0.5; docno_desc order: x3, x2, x1" in page.text("#tab-ranking")


def test_each_tab_by_its_link_shows_alone_with_no_repeated_id(page):
    """Each tab's link in the top bar: that tab alone is shown, its link marked and
    named in the address; with its results drawn, no id repeats in the document."""
    shown(page, QUICK, "data")
    seen, wanted = {}, {}
    for tab, label in TABS.items():
        page.page.click(f"nav a[data-tab='{tab}']")
        page.wait(f"document.querySelector('{SHOWN[tab]}')", 120)
        page.settle()
        panels = page.page.evaluate(
            "[...document.querySelectorAll('main > section')].filter(s => !s.hidden)"
            ".map(s => s.dataset.panel)"
        )
        address = page.page.url.rsplit("#", 1)[1]
        seen[tab] = (panels, page.text("nav a.active"), address, page.repeated_ids())
        wanted[tab] = ([tab], label, tab, [])
    assert seen == wanted
    assert checks(page) == []


def select_options(page: Workbench, panel: str) -> dict[str, list[str]]:
    """Each visible <select> of a tab's panel: its option values."""
    return page.page.evaluate(
        "panel => Object.fromEntries([...document.querySelectorAll(`#tab-${panel} select`)]"
        ".filter(s => s.offsetParent !== null && s.id)"
        ".map(s => [s.id, [...s.options].map(o => o.value)]))",
        panel,
    )


def fields(page: Workbench, panel: str, kind: str) -> list[str]:
    """The ids of a tab's visible <input type=kind> (number, checkbox)."""
    return page.page.evaluate(
        "([panel, kind]) => [...document.querySelectorAll(`#tab-${panel} input[type=${kind}]`)]"
        ".filter(i => i.offsetParent !== null || i.type === 'checkbox').map(i => i.id)",
        [panel, kind],
    )


# The flag a number field's value above stands for in the command shown.
FLAGS = {"rl": "-l=2", "gmax": "--gmax=3", "M": "-M=5"}
# A value each number field takes, other than its default.
NUMBERS = {"rl": "2", "gmax": "3", "M": "5", "pool-seed": "2", "ek": "3", "B": "300",
           "seed": "4", "imps": "300", "ilen": "4", "iseed": "2"}  # fmt: skip


def test_every_control_of_data_changes_the_command_and_breaks_nothing(page):
    """Data: every option of every menu, each switch and number field. Each change runs
    irscore evaluate again with the flag it stands for in the command shown (or the
    CLI's message under the settings), and logs no error."""
    shown(page, QUICK, "data")
    problems, unchanged = {}, []
    menus = {k: v for k, v in select_options(page, "data").items() if k != "preset"}
    assert len(menus) == 9  # eight convention decisions and compat
    for menu, options in menus.items():
        default = page.value(menu)
        for option in [*(o for o in options if o != default), default]:
            page.page.select_option(f"#{menu}", option)
            page.settle()
            said = page.text("#command") + page.text("#err-settings")
            if option and option != default and f"={option}" not in said:
                unchanged.append(f"{menu}={option}: {said[:200]}")
            problems[f"{menu}={option}"] = checks(page)
    for box in fields(page, "data", "checkbox"):
        for on in (True, False):
            page.page.set_checked(f"#{box}", on)
            page.settle()
            if on and f" -{box}" not in page.text("#command"):
                unchanged.append(f"{box}: {page.text('#command')[:200]}")
            problems[f"{box}={on}"] = checks(page)
    for number in fields(page, "data", "number"):
        default = page.value(number)
        page.page.fill(f"#{number}", NUMBERS[number])
        page.settle()
        flag = FLAGS.get(number, "")  # pool-seed: for the Generate button only
        if flag not in page.text("#command"):
            unchanged.append(f"{number}: {page.text('#command')[:200]}")
        problems[f"{number}={NUMBERS[number]}"] = checks(page)
        page.page.fill(f"#{number}", default)
        page.settle()
    page.page.fill("#k", "3,7")
    page.settle()
    assert "-m=P.3,7" in page.text("#command")
    page.page.fill("#pool-seed", "2")
    page.page.click("#pool-button")
    page.wait("document.getElementById('na').value === 'bm25'", 120)
    page.settle()
    assert page.value("qrels").startswith("401 0 ") and page.text("#status").startswith("evaluated")
    problems["Generate pooled collection"] = checks(page)
    assert unchanged == []
    assert {k: v for k, v in problems.items() if v} == {}


def change_each(page: Workbench, tab: str, values: dict[str, list[str]]) -> dict[str, list[str]]:
    """Set each field of `values` to each of its values in turn (as a person types or
    chooses them); what went wrong after each."""
    problems = {}
    for field, tried in values.items():
        for value in tried:
            if page.page.evaluate(f"document.getElementById('{field}').tagName") == "SELECT":
                page.page.select_option(f"#{field}", value)
            else:
                page.page.fill(f"#{field}", value)
            page.settle()
            if not page.page.evaluate(
                f"document.querySelector('{SHOWN[tab]}') || document.querySelector("
                f"'#tab-{tab} .error.shown')"
            ):
                problems.setdefault(f"{field}={value}", []).append("shows neither result nor error")
            if found := checks(page):
                problems.setdefault(f"{field}={value}", []).extend(found)
    return problems


def test_every_control_of_metrics_breaks_nothing(page):
    """Metrics: the filter, every measure of the per-query menu, each heading's sort,
    a query's ranking, trec_eval's output of each run, per query, and Copy."""
    shown(page, QUICK, "metrics")
    problems = {}
    page.page.fill("#filter", "P_")
    filtered = [r.split("\t")[0] for r in page.text("#means tbody").splitlines()]
    assert "P_5" in filtered and "map" not in filtered
    assert all("p_" in measure.lower() for measure in filtered)  # recip_rank too
    page.page.fill("#filter", "")
    measures = select_options(page, "metrics")["pq-measure"]
    assert {"map", "P_5", "ndcg_cut_10"} <= set(measures)
    for measure in measures:
        page.page.select_option("#pq-measure", measure)
        if found := checks(page):
            problems[measure] = found
    for heading in ("topic", "a", "b", "d", "d"):
        page.page.click(f"#pq th[data-sort='{heading}']")
    topics = page.page.evaluate(
        "[...document.querySelectorAll('#pq tr.topic')].map(r => r.dataset.topic)"
    )
    assert len(topics) == 6
    page.page.click("#pq tbody tr.topic")
    page.wait("document.querySelectorAll('.grades-line .strip').length === 2", 60)
    page.page.click(".grades-line a")
    page.wait("location.hash === '#ranking' && document.querySelector('#finals li')", 60)
    page.settle()
    assert page.value("topic") in topics and page.page.is_checked("#mode-data")
    page.page.click("nav a[data-tab='metrics']")
    for run in ("b", "a"):
        page.page.select_option("#trec-run", run)
        page.page.set_checked("#trec-q", True)
        page.wait("document.getElementById('trec').textContent.includes('\\t1\\t')", 60)
        page.page.set_checked("#trec-q", False)
    origin = page.base.rstrip("/")
    page.page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)
    page.page.click("#copy-trec")
    page.settle()
    assert page.page.evaluate("navigator.clipboard.readText()") == page.page.evaluate(
        "document.getElementById('trec').textContent"
    )
    problems["the rest"] = checks(page)
    assert {k: v for k, v in problems.items() if v} == {}


def test_every_control_of_one_ranking_breaks_nothing(page):
    """One ranking: grades and missed grades, each query and run of the data, k."""
    shown(page, QUICK, "ranking")
    problems = change_each(page, "ranking", {"grades": ["1,?,2,0", "x"], "extra": ["2"],
                                             "ek": ["2"]})  # fmt: skip
    assert "x" not in page.text("#ranking-grades")
    page.page.check("#mode-data")
    page.settle()
    topics = select_options(page, "ranking")["topic"]
    assert topics == [str(t) for t in range(1, 7)]
    problems |= change_each(page, "ranking", {"topic": topics[1:], "er": ["b"]})
    page.page.check("#mode-grades")
    page.settle()
    problems["grades again"] = checks(page)
    assert {k: v for k, v in problems.items() if v} == {}


def test_every_control_of_compare_breaks_nothing(page):
    """Compare: measure names the command line takes, B, seed, alpha, each correction."""
    shown(page, QUICK, "compare")
    corrections = select_options(page, "compare")["correction"]
    assert corrections == ["holm", "bonferroni", "bh", "none"]
    problems = change_each(page, "compare", {
        "metric": ["nDCG@10", "ndcg_cut_10"], "B": ["300"], "seed": ["4"],
        "alpha": ["0.1"], "correction": corrections[1:],
    })  # fmt: skip
    assert {k: v for k, v in problems.items() if v} == {}


def test_every_control_of_interleaving_breaks_nothing(page):
    """Interleaving: each method and click model, impressions, list length, seed."""
    shown(page, QUICK, "interleave")
    menus = select_options(page, "interleave")
    assert menus == {"method": ["team_draft", "balanced"],
                     "clicks": ["perfect", "navigational", "informational", "random"]}  # fmt: skip
    problems = change_each(page, "interleave", {
        "method": ["balanced"], "clicks": menus["clicks"][1:], "imps": ["300"], "ilen": ["4"],
        "iseed": ["2"],
    })  # fmt: skip
    assert {k: v for k, v in problems.items() if v} == {}


def test_the_share_button_gives_this_view_s_link(page):
    shown(page, f"{QUICK}&seed=4", "compare")
    page.page.fill("#alpha", "0.1")  # the address follows (after a 200 ms pause)
    page.wait("location.search.includes('alpha=0.1')")
    page.settle()
    link = page.shared_link()
    assert link.startswith(page.base) and "example=interleave" in link
    assert "seed=4" in link and "alpha=0.1" in link
    assert link.endswith("#compare")
    assert checks(page) == []


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1280x800", "390x844"])
def test_every_tab_reads_at_desktop_and_phone_width(page, size):
    """Each tab with its results: nothing cut off, outside the window or scrolling
    sideways (but the CLI's figures on a phone, which keep a size their text reads at,
    in their box), no chart mark outside its frame; a screenshot of each under SHOTS."""
    page.size(size)
    problems = {}
    # pooled-trec: long run names and 25 queries
    presets = {
        "data": "croft-ap",
        "metrics": "pooled-trec",
        "curves": "pooled-trec",
        "ranking": "wiki-dcg",
        "compare": "interleave&B=1000",
        "queries": "pooled-trec",
        "interleave": "interleave",
        "playground": "croft-ap",
        "learn": "croft-ap",
    }
    assert list(presets) == list(TABS)
    try:
        for tab, preset in presets.items():
            shown(page, f"example={preset}", tab)
            page.wait("[...document.images].every(i => !i.src || i.complete)")
            page.page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
            page.shot(f"sweep-{tab}-{size['width']}x{size['height']}")
            found = [
                p for p in page.page.evaluate(browser.PROBLEMS_JS) if not p.startswith("a figure ")
            ]
            if found := found + checks(page):
                problems[tab] = found
    finally:
        page.size(DESKTOP)
    assert problems == {}


def test_malformed_links_say_what_is_wrong(page):
    """A link with packed inputs cut short, a setting no flag takes: each says so on the
    page, which starts."""
    page.open("z=y0jNyclXyMsvUcgqzs8DAA", "metrics")
    assert page.text("#notice").startswith("This link's inputs (z=…) cannot be read")
    page.open("example=croft-ap&rl=-1", "metrics")  # (rl=x: a number field drops it)
    page.settle()
    assert page.text("#err-settings") == "rl: -1 is not between 0 and 1,000"
    page.shot("sweep-malformed-setting")
    assert checks(page) == []


def test_a_link_to_an_unknown_example_says_so(page):
    """?example=no-such: the page names the example it does not know, and logs no error
    (it is checked against the menu, so no 404 is asked for and logged)."""
    page.open("example=no-such", "data")
    page.settle()
    assert "no-such" in page.text("#notice") + page.text("#status")
    assert checks(page) == []
