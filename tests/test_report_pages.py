"""The report's HTML pages: the Markdown irscore writes as HTML, wide tables cut in two,
the other formats as download links; and the report's layout (what it shows, in order)."""

from __future__ import annotations

import base64
import re

import pytest
import yaml
from test_workflow import REPO

from irscore.report import layout, pages
from irscore.report.pages import Split

DOCUMENT = """\
# Title with `P_10`

A paragraph that goes
on over *two* lines, with **bold** and a < sign.

- **first**: one
- second, `r*R + 0.9` kept as code
  and its second line

| run | MAP | note |
| --- | ---: | --- |
| lab_bm25 | 0.2406 | *n.s.* |
"""


def test_markdown_becomes_headings_paragraphs_lists_and_tables():
    body = pages.markdown_body(DOCUMENT)
    assert body.startswith("<h1>Title with <code>P_10</code></h1>\n")
    assert (
        "<p>A paragraph that goes on over <em>two</em> lines, with <strong>bold</strong> "
        "and a &lt; sign.</p>\n" in body
    )
    assert (
        "<ul>\n<li><strong>first</strong>: one</li>\n"
        "<li>second, <code>r*R + 0.9</code> kept as code and its second line</li>\n</ul>\n"
    ) in body
    # the rule's `---:` right-aligns MAP; names may break after an underscore
    assert (
        '<tr><th class="text">run</th><th class="num">MAP</th><th class="text">note</th></tr>'
        in body
    )
    assert (
        '<tr><td class="text">lab_<wbr>bm25</td><td class="num">0.2406</td>'
        '<td class="text"><em>n.s.</em></td></tr>' in body
    )


def test_a_table_without_its_rule_line_is_refused():
    with pytest.raises(ValueError, match=r"not a Markdown table .*'\| 1 \| 2 \|'"):
        pages.markdown_body("| a | b |\n| 1 | 2 |\n")


def test_a_wide_table_is_cut_before_the_named_column_keeping_the_first():
    header = ["run", "what", "a", "b", "count x", "count y"]
    rows = [["r1", "w", "1", "2", "3", "4"]]
    split = Split("count ", moved=("what",))
    # run + the columns before `count x`, less `what`; run + `what` + the rest
    assert split.parts(header) == [[0, 2, 3], [0, 1, 4, 5]]
    assert Split("nothing").parts(header) is None
    html = pages.table_html(header, rows, [False, False, True, True, True, True], "C", [split])
    first, second = html.split("</table>\n")[:2]
    assert "<caption>C</caption>" in first and "<caption>(continued)</caption>" in second
    assert re.findall(r"<th[^>]*>([^<]*)</th>", first) == ["run", "a", "b"]
    assert re.findall(r"<th[^>]*>([^<]*)</th>", second) == ["run", "what", "count x", "count y"]


def test_a_page_holds_its_other_formats_as_downloads():
    text = pages.markdown_page(DOCUMENT, [("t.md", DOCUMENT), ("t.csv", "run,MAP\nä,1\n")])
    assert "<title>Title with P_10</title>" in text
    links = re.findall(
        r'<a download="([^"]+)" href="data:([^;]+);charset=utf-8;base64,([^"]+)"', text
    )
    assert [(name, mime) for name, mime, _ in links] == [
        ("t.md", "text/markdown"),
        ("t.csv", "text/csv"),
    ]
    assert base64.b64decode(links[1][2]).decode("utf-8") == "run,MAP\nä,1\n"


def test_the_report_shows_pages_and_figures_only_each_category_in_order():
    """Every artefact with a caption (a report entry) is an HTML page or a figure; the other
    formats are not entries. Labels sort into reading order: the report sorts by them."""
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    artefacts = [
        *layout.workflow_tables(config["conventions"], published=True).values(),
        *layout.run_figures(config["conventions"]).values(),
        *layout.topic_figures(config["plots"]["pairs"]).values(),
        *layout.systems(config["systems"]["baseline"]).values(),
        *layout.interleaving(config["interleaving"]["pairs"]).values(),
    ]
    shown = [a for a in artefacts if a.caption]
    assert {a.path.rsplit(".", 1)[1] for a in shown} == {"html", "png", "svg"}
    for markdown in ("summary", "audit/conventions", "compare/flips", "tables/systems"):
        assert f"{markdown}.html" in {a.path for a in shown}
    curves = sorted(tuple(a.labels.values()) for a in shown if a.category == layout.CURVES)
    assert list(dict.fromkeys(c[0] for c in curves)) == [
        "1. trec_eval9 (reference)",
        "2. trec_eval10",
        "3. textbook",
        "4. one topic",
    ]
    assert curves[0][1:] == ("HTML table",) and curves[-1][0] == "4. one topic"
