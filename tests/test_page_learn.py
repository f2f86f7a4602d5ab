"""The workbench's teaching views in Chromium (issue 47): the Definitions tab (each measure's
formula, the rules, which tool uses which nDCG gain, the checks, the references), a (?) with
its help beside each control, the averaged 11-point interpolated precision-recall curve of
A and B, and one query's sawtooth.

The curves' values are checked against what the command line prints for the same inputs
and flags (`irscore evaluate -m iprec_at_recall`, `irscore explain`), and against figures
worked out by hand; the gain table against the peers themselves. One server and one
browser for the module.
"""

from __future__ import annotations

import json
import math
import re
import tempfile
from pathlib import Path

import browser
import pytest
from cli_calls import printed as cli
from workbench_page import DESKTOP, PHONE, Workbench, workbench

pytestmark = [
    pytest.mark.skipif(browser.find() is None, reason="no Chromium on the PATH"),
    pytest.mark.slow,
]
LEVELS = ("0.00", "0.10", "0.20", "0.30", "0.40", "0.50", "0.60", "0.70", "0.80", "0.90", "1.00")
# each chart mark's centre in the SVG's units, and the plot area that maps it to [0, 1]
MARKS_JS = """([box, selector]) => {
  const area = document.querySelector(`#${box} .plot-area`);
  const frame = ['x', 'y', 'width', 'height'].map((a) => Number(area.getAttribute(a)));
  return [...document.querySelectorAll(`#${box} ${selector}`)].map((e) => {
    const b = e.getBBox();
    return { ...e.dataset, cx: b.x + b.width / 2, cy: b.y + b.height / 2, frame };
  });
}"""


@pytest.fixture(scope="module")
def wb():
    """One served page in Chromium for the module, every URL it asks for recorded."""
    with workbench(size=DESKTOP) as page:
        page.asked = []
        page.page.on("request", lambda r: page.asked.append(r.url))
        yield page
        local = page.base.rstrip("/")
        assert page.asked and all(u.startswith((local, "data:")) for u in page.asked), [
            u for u in page.asked if not u.startswith((local, "data:"))
        ][:5]
        assert page.errors == []


def page_files(wb: Workbench) -> dict[str, Path]:
    """The texts of the Data tab's boxes as files, for the command line."""
    folder = Path(tempfile.mkdtemp(prefix="irscore-learn-"))
    paths = {}
    for key in ("qrels", "a", "b"):
        paths[key] = folder / key
        paths[key].write_text(wb.page.input_value(f"#{key}"), encoding="utf-8")
    return paths


def iprec(text: str) -> dict[tuple[str, str], float]:
    """(topic, level) -> value of `irscore evaluate -m iprec_at_recall` text (-q or not)."""
    found = {}
    for line in text.splitlines():
        name, topic, value = (part.strip() for part in line.split("\t"))
        found[topic, name.removeprefix("iprec_at_recall_")] = float(value)
    return found


def load(wb: Workbench, query: str, tab: str) -> None:
    """A fresh load of the page at ?query#tab, until it has started (a selector: the page's
    CSP forbids the eval that a polled string predicate needs)."""
    wb.page.goto("about:blank")
    wb.page.goto(f"{wb.base}?{query}#{tab}")
    wb.page.wait_for_selector("body[data-ready='1']", state="attached", timeout=120_000)


def open_curves(wb: Workbench, query: str) -> None:
    """The P-R curve tab at ?query, once both charts are drawn."""
    load(wb, query, "curves")
    wb.page.wait_for_selector("#pr-average .pr-point", timeout=60_000)
    wb.page.wait_for_selector("#pr-sawtooth[data-shown]", timeout=60_000)


def marks(wb: Workbench, box: str, selector: str) -> list[dict]:
    """The chart's marks with their data and centres mapped back to (recall, precision)."""
    found = wb.page.evaluate(MARKS_JS, [box, selector])
    for mark in found:
        x, y, width, height = mark["frame"]
        mark["x"] = (mark["cx"] - x) / width
        mark["y"] = 1 - (mark["cy"] - y) / height
        mark["px"] = 1 / height  # one pixel, in precision
    return found


def check_average(wb: Workbench, flags: tuple[str, ...] = ()) -> dict[str, list[float]]:
    """Every point of the averaged curve equals irscore evaluate's mean iprec_at_recall for
    the page's own inputs and flags, in its data and where it is drawn; the values by run."""
    paths = page_files(wb)
    runs = ("a", "b") if paths["b"].read_text() else ("a",)
    points = marks(wb, "pr-average", ".pr-point")
    assert len(points) == 11 * len(runs)
    curves = {}
    for run in runs:
        argv = ("evaluate", "-m", "iprec_at_recall", *flags, paths["qrels"], paths[run])
        printed = iprec(cli(*argv))
        drawn = [p for p in points if p["run"] == run]
        assert [p["recall"] for p in drawn] == list(LEVELS)
        for p in drawn:
            expected = printed["all", p["recall"]]
            assert f"{float(p['precision']):.4f}" == f"{expected:.4f}", (run, p["recall"])
            assert abs(p["x"] - float(p["recall"])) < 1e-6
            assert abs(p["y"] - expected) < p["px"] + 5e-5, (run, p["recall"], p["y"], expected)
        column = 1 + runs.index(run)
        table = wb.page.eval_on_selector_all(
            "#pr-table tbody tr", f"rows => rows.map(r => r.cells[{column}].textContent)"
        )
        assert table == [f"{printed['all', level]:.4f}" for level in LEVELS]
        curves[run] = [float(p["precision"]) for p in drawn]
    return curves


def interpolated_steps(ranks: list[dict]) -> list[list[float]]:
    """At each recall a relevant rank reaches, the highest P@i at that rank or below it
    (Manning et al. 2008, 8.4), from explain's own per-rank values."""
    steps, best = [], 0.0
    for i in range(len(ranks) - 1, -1, -1):
        best = max(best, ranks[i]["P@i"])
        before = ranks[i - 1]["recall@i"] if i else 0.0
        if ranks[i]["recall@i"] > before:
            steps.insert(0, [ranks[i]["recall@i"], best])
    return steps


def check_sawtooth(wb: Workbench, run: str, topic: str) -> list[dict]:
    """The sawtooth of (run, topic) is irscore explain's P@i and recall@i at every rank, the
    step their running maximum, the open markers evaluate's per-topic iprec_at_recall."""
    paths = page_files(wb)
    explained = json.loads(
        cli("explain", paths["qrels"], paths[run], f"--topic={topic}", "-k=100000", "--format=json")
    )
    ranks = explained["ranks"]
    drawn = marks(wb, "pr-sawtooth", ".saw-point")
    assert [int(p["rank"]) for p in drawn] == [r["rank"] for r in ranks]
    for p, r in zip(drawn, ranks, strict=True):
        assert float(p["precision"]) == pytest.approx(r["P@i"], abs=1e-12)
        assert float(p["recall"]) == pytest.approx(r["recall@i"], abs=1e-12)
        assert abs(p["x"] - r["recall@i"]) < 1e-6 and abs(p["y"] - r["P@i"]) < 1e-6
    steps = json.loads(wb.page.get_attribute("#pr-sawtooth .pr-step", "data-steps"))
    expected = interpolated_steps(ranks)
    assert len(steps) == len(expected)
    for step, right in zip(steps, expected, strict=True):
        assert step == pytest.approx(right, abs=1e-12)
    per_topic = iprec(cli("evaluate", "-q", "-m", "iprec_at_recall", paths["qrels"], paths[run]))
    eleven = marks(wb, "pr-sawtooth", ".eleven-point")
    assert [p["recall"] for p in eleven] == list(LEVELS)
    for p in eleven:
        assert f"{float(p['precision']):.4f}" == f"{per_topic[topic, p['recall']]:.4f}"
    return ranks


def test_the_averaged_curve_is_irscore_evaluates_by_hand_and_by_the_cli(wb):
    open_curves(wb, "example=croft-ap")
    curves = check_average(wb)
    # croft-ap: R = 4. A has its relevant at ranks 1, 3, 4, 9: P = 1, 2/3, 3/4, 4/9 there.
    # trec_eval 9: c = (long)(r * 4 + 0.9): r = 0..0.2 -> c <= 1: max P at rank >= 1 = 1;
    # r = 0.3..0.7 -> c = 2, 2, 2, 3, 3: max P at ranks >= 3 = max(2/3, 3/4, ...) = 0.75;
    # r = 0.8..1.0 -> c = 4: max P at ranks >= 9 = max(4/9, 4/10) = 0.4444.
    assert curves["a"] == pytest.approx([1, 1, 1, *[0.75] * 5, 4 / 9, 4 / 9, 4 / 9])
    # B at ranks 4, 6, 8, 10: P = 1/4, 2/6, 3/8, 4/10, rising: every level is 4/10 = 0.4.
    assert curves["b"] == pytest.approx([0.4] * 11)


def test_the_averaged_curve_follows_the_settings_on_25_topics(wb):
    """pooled-trec: 25 topics, A and B, under trec_eval 10's interpolation (lround)."""
    open_curves(wb, "example=pooled-trec&interpolation=trec_eval10")
    curves = check_average(wb, ("--interpolation=trec_eval10",))
    assert curves["a"] != curves["b"]
    assert all(x >= y for x, y in zip(curves["a"], curves["a"][1:], strict=False))


def test_the_sawtooth_is_explains_precision_and_recall_at_each_rank(wb):
    open_curves(wb, "example=croft-ap")
    ranks = check_sawtooth(wb, "a", "1")
    # A: relevant at 1, 3, 4, 9 of 10; R = 4. P@i, recall@i by hand:
    assert [r["P@i"] for r in ranks] == pytest.approx(
        [1, 1 / 2, 2 / 3, 3 / 4, 3 / 5, 3 / 6, 3 / 7, 3 / 8, 4 / 9, 4 / 10]
    )
    found = [r["recall@i"] for r in ranks]
    assert found == pytest.approx([n / 4 for n in (1, 1, 2, 3, 3, 3, 3, 3, 4, 4)])
    # the step: at recall 1/4 max(1, ...) = 1; at 2/4 and 3/4 max(2/3, 3/4, 3/5, ...) = 3/4;
    # at 1, max(4/9, 4/10) = 4/9
    steps = wb.page.get_attribute("#pr-sawtooth .pr-step", "data-steps")
    assert [[round(a, 4), round(b, 4)] for a, b in json.loads(steps)] == [
        [0.25, 1.0], [0.5, 0.75], [0.75, 0.75], [1.0, 0.4444]]  # fmt: skip


def test_the_sawtooth_of_a_chosen_query_and_run(wb):
    open_curves(wb, "example=pooled-trec")
    topics = wb.page.eval_on_selector_all("#pr-topic option", "os => os.map(o => o.value)")
    assert len(topics) == 25
    topic = topics[6]
    wb.page.select_option("#pr-topic", topic)
    wb.page.select_option("#pr-run", "b")
    wb.page.wait_for_selector(f'#pr-sawtooth[data-shown="b {topic}"]', timeout=60_000)
    ranks = check_sawtooth(wb, "b", topic)
    assert len(ranks) == 20  # irscore pool: each system returns 20 documents a query


def test_the_definitions_name_the_right_denominators(wb):
    load(wb, "", "learn")

    def denominators(measure: str) -> list[str]:
        return wb.page.eval_on_selector_all(
            f'#learn-measures tr[data-measure="{measure}"] mfrac',
            "fs => fs.map(f => f.children[1].textContent.replace(/\\s+/g, ''))",
        )

    assert denominators("P@k") == ["k"]
    assert denominators("R@k") == ["R"]
    assert denominators("AP") == ["R"]
    assert denominators("Rprec") == ["R"]
    assert denominators("RR") == ["rfirst"]
    assert denominators("nDCG@k") == ["IDCG@k", "log2(i+1)"]
    assert denominators("ERR@k") == ["r", "2gmax"]
    assert denominators("iprec") == ["11"]

    def text(selector: str) -> str:
        return " ".join(wb.page.inner_text(selector).split())

    ndcg = wb.page.text_content('#learn-measures tr[data-measure="nDCG@k"]')
    words = " ".join(ndcg.split())
    assert "linear gain: gain(i)=g(i)" in words and "exponential gain: gain(i)=2g(i)−1" in words
    assert "Järvelin" in ndcg and "Burges" in ndcg
    err = wb.page.text_content('#learn-measures tr[data-measure="ERR@k"] math').replace(" ", "")
    assert "∏i=1r−1(1−Ri)" in err  # the cascade: the chance of reaching rank r
    iprec_row = wb.page.text_content('#learn-measures tr[data-measure="iprec"]')
    assert "c=⌊r·R+0.9⌋" in "".join(iprec_row.split())  # trec_eval 9's count, rule 10
    rules = text("#learn-rules")
    for said in ("docno descending", "non-relevant", "-c", "-J", "-M N", "-l N", "32-bit"):
        assert said in rules, said
    references = text("#learn-references")
    for said in ("Järvelin", "Kekäläinen", "Chapelle", "Burges", "Manning", "chapter 8",
                 "trec_eval"):  # fmt: skip
        assert said in references, said
    checks = text("#learn-checks")
    assert "all 26 commands (11 and 15)" in checks and "tests/test_quicktest.py" in checks


def test_the_limits_are_the_tools(wb):
    """The limits the Definitions tab states are the server's and the conventions' own."""
    from irscore.engine.ranking.conventions import CHOICES
    from irscore.web.app import Config

    load(wb, "", "learn")
    limits = " ".join(wb.page.inner_text("#learn-limits").split())
    assert f"--max-upload ({Config().max_body // 1_000_000} MB by default)" in limits
    assert "cranfield_cleverdon" in limits and "cranfield_cleverdon" in CHOICES["grades"]
    assert "numba's unstable sort" in limits


def test_the_test_files_the_page_names_exist(wb):
    """Every test file the Definitions tab cites as a check is one of the suite's."""
    load(wb, "", "learn")
    named = set(re.findall(r"tests/\w+\.py", wb.page.inner_text("#learn-checks")))
    assert len(named) >= 6
    here = Path(__file__).parent
    assert all((here.parent / name).is_file() for name in named), named
    counts = [
        len((here / "golden" / f"quicktest-{v}" / "commands.tsv").read_text().splitlines())
        for v in ("9.0.8", "10.0")
    ]
    said = f"all {sum(counts)} commands ({counts[0]} and {counts[1]})"
    assert said in " ".join(wb.page.inner_text("#learn-checks").split())


# One graded topic, grades 2, 0, 1 in rank order (and nothing else judged):
# linear: DCG@3 = 2/log2(2) + 0 + 1/log2(4) = 2.5, IDCG@3 = 2 + 1/log2(3) = 2.6309;
# exponential: DCG@3 = (2^2 - 1) + 0 + (2^1 - 1)/2 = 3.5, IDCG@3 = 3 + 1/log2(3) = 3.6309.
LINEAR = 2.5 / (2 + 1 / math.log2(3))
EXPONENTIAL = 3.5 / (3 + 1 / math.log2(3))
GRADES = {"d1": 2, "d2": 0, "d3": 1}
SCORES = {"d1": 3.0, "d2": 2.0, "d3": 1.0}


def peer_ndcg(tool: str) -> float:
    """nDCG@3 of the one-topic example as `tool` (a row of the page's gain table) computes it."""
    if tool in ("trec_eval", "pytrec_eval"):  # pytrec_eval runs trec_eval's own C code
        import pytrec_eval

        evaluator = pytrec_eval.RelevanceEvaluator({"q": GRADES}, {"ndcg_cut.3"})
        return evaluator.evaluate({"q": SCORES})["q"]["ndcg_cut_3"]
    if tool.startswith("ir_measures"):
        import ir_measures

        name = "nDCG(dcg='exp-log2')@3" if tool.endswith("-exp") else "nDCG@3"
        qrels = [ir_measures.Qrel("1", d, g) for d, g in GRADES.items()]
        run = [ir_measures.ScoredDoc("1", d, s) for d, s in SCORES.items()]
        return ir_measures.calc_aggregate([ir_measures.parse_measure(name)], qrels, run)[
            ir_measures.parse_measure(name)
        ]
    if tool == "sklearn":
        from sklearn.metrics import ndcg_score

        return float(ndcg_score([list(GRADES.values())], [list(SCORES.values())], k=3))
    raise AssertionError(f"no peer for the row {tool!r}")


def ranx_source() -> str:
    """ranx's nDCG module as installed (found without importing ranx)."""
    import importlib.util

    spec = importlib.util.find_spec("ranx")
    assert spec and spec.origin
    return (Path(spec.origin).parent / "metrics" / "ndcg.py").read_text(encoding="utf-8")


def test_the_gain_table_says_what_each_peer_computes(wb):
    load(wb, "", "learn")
    rows = wb.page.eval_on_selector_all(
        "#learn-gains tbody tr",
        "rs => rs.map(r => [r.dataset.tool, r.querySelector('[data-gain]').dataset.gain])",
    )
    said = dict(rows)
    assert said == {
        "trec_eval": "linear", "pytrec_eval": "linear", "ir_measures": "linear",
        "ir_measures-exp": "exponential", "ranx": "linear", "ranx-burges": "exponential",
        "sklearn": "linear", "irscore": "both",
    }  # fmt: skip
    for tool, gain in said.items():
        if tool == "irscore":
            continue
        if tool.startswith("ranx"):  # read, not run: numba compiles ranx for minutes
            row = f'#learn-gains tr[data-tool="{tool}"]'
            quoted = wb.page.text_content(f"{row} td:last-child code:last-of-type")
            assert quoted in ranx_source(), tool
            assert ("2**" in quoted) == (gain == "exponential"), tool
            continue
        expected = {"linear": LINEAR, "exponential": EXPONENTIAL}[gain]
        # gdeval prints 5 decimals
        assert peer_ndcg(tool) == pytest.approx(expected, abs=1e-5), tool


def test_each_control_has_its_help(wb):
    load(wb, "example=croft-ap", "data")
    wb.page.wait_for_selector("button.help")
    controls = wb.page.eval_on_selector_all(
        "#tab-data :is(input, select, textarea)[id]:not([type=file]), "
        "#tab-compare :is(input, select)[id], #tab-interleave :is(input, select)[id], "
        "#tab-curves :is(input, select)[id]",
        "es => es.map(e => e.id)",
    )
    assert {"k", "rl", "gmax", "M", "c", "J", "tie_break", "interpolation", "metric",
            "correction", "method", "clicks", "imps"} <= set(controls)  # fmt: skip
    helps = dict(
        wb.page.eval_on_selector_all(
            "#learn-controls tr[data-control]",
            "rs => rs.map(r => [r.dataset.control,"
            " r.cells[2].textContent.replace(/\\s+/g, ' ').trim()])",
        )
    )
    for control in controls:
        button = f'button.help[data-for="{control}"]'
        assert wb.page.locator(button).count() == 1, f"no help beside #{control}"
        assert wb.page.get_attribute(button, "title") == helps[control]
        tip = wb.page.get_attribute(f"#{control}:not(div)", "aria-describedby")
        assert wb.page.text_content(f"#{tip}") == helps[control]
    # a help opens beside its control and closes again
    wb.page.click('button.help[data-for="interpolation"]')
    assert wb.page.is_visible("#help-interpolation")
    assert "trec_eval 9" in wb.page.inner_text("#help-interpolation")
    wb.shot("learn-data-help-desktop")
    wb.page.click('button.help[data-for="interpolation"]')
    assert not wb.page.is_visible("#help-interpolation")
    wb.page.click('button.help[data-for="c"]')  # a help in a checkbox's label: not a toggle
    assert wb.page.is_visible("#help-c") and not wb.page.is_checked("#c")


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_views_stay_in_their_frames(wb, size):
    wb.page.set_viewport_size(size)
    try:
        open_curves(wb, "example=croft-ap")
        assert wb.outside_frames() == []
        assert wb.repeated_ids() == []
        wb.shot(f"learn-curves-{size['width']}")
        load(wb, "", "learn")
        wb.page.wait_for_selector("#learn-measures math")
        assert wb.outside_frames() == []
        assert wb.repeated_ids() == []
        wide = wb.page.evaluate("document.documentElement.scrollWidth")
        assert wide <= size["width"], "the Definitions tab scrolls sideways"
        narrow = wb.page.eval_on_selector_all(
            ".learn-table td",
            "tds => tds.filter(td => td.getBoundingClientRect().width < 80).length",
        )
        assert narrow == 0, "a column of a Definitions table is squeezed to a few letters"
        wb.shot(f"learn-definitions-{size['width']}")
        load(wb, "example=croft-ap", "data")
        wb.page.wait_for_selector("button.help")
        wb.shot(f"learn-data-{size['width']}")
        assert wb.errors == []
    finally:
        wb.page.set_viewport_size(DESKTOP)
