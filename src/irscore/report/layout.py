"""Where each artefact of the report goes, and under which caption: one list for both users.

The workflow writes under `results/`, `irscore audit` under its `--out` folder;
both take the paths from here, relative to that folder, so a table or figure has
the same name wherever it is made. Each artefact also names its caption
(workflow/report/NAME.rst), its category in the Snakemake report and its labels.
The Snakefile imports this module while it builds the DAG: nothing heavy here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from irscore.engine.ranking.conventions import CHOICES, single_change_conventions

TABLE_FORMATS = ("md", "csv", "tex", "html")
FIGURE_FORMATS = ("png", "svg")
# The `format` label of a category that holds tables and figures: they sort in this order.
FIGURE_AS = {"png": "PNG figure", "svg": "SVG figure"}
TABLE_AS = "HTML table"
# The categories of the Snakemake report, in the order it lists them.
HEADLINE = "1. Headline"
TIES = "2. Ties"
CURVES = "3. Curves"
PER_TOPIC = "4. Per-topic"
CONVENTIONS = "5. Conventions"
SUMMARY = "6. Summary"
CONCLUSIONS = "7. Conclusions"
PUBLISHED = "8. Published figures"


class Artefact(NamedTuple):
    """One output file: its path under the output folder, and (for the report) the stem
    of its caption under workflow/report/, its category and its labels; no caption: the
    file is written but not shown in the report."""

    path: str
    caption: str | None = None
    category: str | None = None
    labels: Mapping[str, str] | None = None


Layout = dict[str, Artefact]


def interpolation_conventions(conventions: Mapping[str, Mapping[str, Any] | None]) -> dict:
    """{interpolation rule: convention name} for the rules some convention isolates."""
    return single_change_conventions(conventions, "interpolation")


def ordered(position: int, text: str) -> str:
    """A label value that sorts in `position` (1, 2, ...): the report lists a category's
    entries sorted by their labels' text."""
    return f"{position}. {text}"


def table(key: str, name: str, category: str, caption: str, **labels: str) -> Layout:
    """A table's four files tables/NAME.FORMAT, keyed KEY_FORMAT: the HTML page is the
    report's entry (the other three are its downloads)."""
    layout = {f"{key}_{ext}": Artefact(f"tables/{name}.{ext}") for ext in TABLE_FORMATS}
    layout[f"{key}_html"] = Artefact(f"tables/{name}.html", caption, category, labels)
    return layout


def figure(
    key: str, name: str, category: str, caption: str, mixed: bool = False, **labels: str
) -> Layout:
    """A figure as plots/NAME.png and .svg, keyed KEY_png and KEY_svg, under one caption;
    labelled `format` png / svg (a toggle in the report), or, `mixed` among tables in its
    category, FIGURE_AS."""
    return {
        f"{key}_{ext}": Artefact(
            f"plots/{name}.{ext}",
            caption,
            category,
            {**labels, "format": FIGURE_AS[ext] if mixed else ext},
        )
        for ext in FIGURE_FORMATS
    }


def document(key: str, path: str, category: str, caption: str, **labels: str) -> Layout:
    """A Markdown document (KEY_md at PATH.md) and its HTML page (KEY_html at PATH.html),
    the report's entry, which holds the Markdown as a download."""
    return {
        f"{key}_md": Artefact(f"{path}.md"),
        f"{key}_html": Artefact(f"{path}.html", caption, category, labels),
    }


def run_tables(conventions: Mapping[str, Mapping[str, Any] | None], compared: bool) -> Layout:
    """The tables of any set of runs: ties, the 11-point curves of each interpolation rule,
    the convention audit and (`compared`: pairs of runs are tested) the paired tests."""
    layout = table("tiebreak", "tiebreak", TIES, "tiebreak", table="tiebreak")
    for position, rule in enumerate(interpolation_conventions(conventions), 1):
        layout |= table(
            f"curves_{rule}",
            f"curves_{rule}",
            CURVES,
            "curves_table",
            curves=curves_label(position, rule),
            format=TABLE_AS,
        )
    layout |= document(
        "audit", "audit/conventions", CONCLUSIONS, "audit", table=ordered(1, "convention audit")
    )
    layout["audit_csv"] = Artefact("audit/conventions.csv")
    if compared:
        layout |= {
            "compare_tests": Artefact("compare/tests.tsv"),
            "compare_flips": Artefact("compare/flips.tsv"),
        }
        layout |= document(
            "compare",
            "compare/flips",
            CONCLUSIONS,
            "flips",
            table=ordered(2, "conclusions that flip"),
        )
    return layout


def curves_label(position: int, rule: str) -> str:
    """The Curves entries of an interpolation rule: in the order of the rules' choices (the
    reference, trec_eval9, first)."""
    return ordered(position, rule + (" (reference)" if position == 1 else ""))


def run_figures(conventions: Mapping[str, Mapping[str, Any] | None]) -> Layout:
    """The figures of any set of runs: the 11-point curves of each rule, the convention plot."""
    layout: Layout = {}
    for position, rule in enumerate(interpolation_conventions(conventions), 1):
        layout |= figure(
            f"curves_{rule}",
            f"curves_{rule}",
            CURVES,
            "curves_plot",
            curves=curves_label(position, rule),
            mixed=True,
        )
    return layout | figure(
        "conventions", "conventions", CONVENTIONS, "conventions", figure="convention audit"
    )


def workflow_tables(conventions: Mapping[str, Mapping[str, Any] | None], published: bool) -> Layout:
    """What the workflow's tables job writes: the headline table (with the ideal run), the
    tables of all runs, the published comparison (`published`) and summary.md."""
    layout = table("reference", "reference", HEADLINE, "reference", table="reference")
    layout |= run_tables(conventions, compared=True)
    if published:
        layout |= document(
            "published_comparison",
            "published/comparison",
            PUBLISHED,
            "published",
            table="published vs regenerated",
        )
        layout |= {
            "published_comparison_csv": Artefact("published/comparison.csv"),
            "published_ir_measures_md": Artefact("published/ir_measures.md"),
            "published_ir_measures_csv": Artefact("published/ir_measures.csv"),
        }
    layout |= document("summary", "summary", SUMMARY, "summary", document="results/summary.md")
    return layout


def topic_figures(pairs: Sequence[Sequence[str]]) -> Layout:
    """What the topic figures job draws: the example topic, a scatter per pair of runs.
    The example comes after the curves of every interpolation rule (at most three)."""
    layout = figure(
        "topic_example",
        "topic_example",
        CURVES,
        "topic_example",
        curves=ordered(len(CHOICES["interpolation"]) + 1, "one topic"),
        mixed=True,
    )
    for x, y in pairs:
        layout |= figure(
            f"pair_{x}_vs_{y}",
            f"pair_{x}_vs_{y}",
            PER_TOPIC,
            "pair",
            figure="per-topic AP",
            pair=f"{x} vs {y}",
        )
    return layout


def under(folder: str, layout: Layout) -> dict[str, str]:
    """{key: path} with every path under `folder`: the `outputs` a writer takes."""
    return {key: f"{folder}/{artefact.path}" for key, artefact in layout.items()}


def paths_under(outputs: Mapping[str, str], prefix: str) -> dict[str, str]:
    """The entries of `outputs` whose key starts with `prefix`, keyed by the rest
    (reference_md -> md): the paths one writer takes."""
    return {
        key.removeprefix(prefix): path for key, path in outputs.items() if key.startswith(prefix)
    }


WORKBENCH = "9. Many systems and interleaving"


def systems(baseline: str) -> Layout:
    """The many-systems table (config `systems:`) and its tests; its HTML page (which holds
    the Markdown, CSV and LaTeX versions as downloads) is the report's entry."""
    layout = {ext: Artefact(f"tables/systems.{ext}") for ext in ("md", "csv", "tex")}
    layout["html"] = Artefact(
        "tables/systems.html",
        "systems",
        WORKBENCH,
        {"shows": ordered(1, f"many systems against {baseline}"), "format": TABLE_AS},
    )
    return layout | {"tests": Artefact("compare/systems_tests.tsv")}


def interleaving(pairs: Sequence[Sequence[str]]) -> Layout:
    """The interleaving verdicts beside the offline ones, and a settling figure per pair."""
    layout = {
        "md": Artefact("interleaving/verdicts.md"),
        "html": Artefact(
            "interleaving/verdicts.html",
            "interleaving",
            WORKBENCH,
            {"shows": ordered(2, "interleaving verdicts"), "format": TABLE_AS},
        ),
        "tsv": Artefact("interleaving/verdicts.tsv"),
    }
    for a, b in pairs:
        layout |= figure(
            f"{a}_vs_{b}",
            f"interleaving_{a}_vs_{b}",
            WORKBENCH,
            "interleaving_plot",
            shows=ordered(3, f"interleaving, {a} vs {b}"),
            mixed=True,
        )
    return layout
