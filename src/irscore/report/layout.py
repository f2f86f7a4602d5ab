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

from irscore.conventions import CHOICES, conventions_from_config

TABLE_FORMATS = ("md", "csv", "tex", "html")
FIGURE_FORMATS = ("png", "svg")
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


def single_change_conventions(
    conventions: Mapping[str, Mapping[str, Any] | None], field: str
) -> dict[Any, str]:
    """{value of `field`: convention name} for the reference and each configured convention
    that changes `field` and nothing else (the first in config order per value), listed in
    the order of the field's choices (the reference value first)."""
    found: dict[Any, str] = {}
    for convention in conventions_from_config(conventions):
        changes, value = convention.changes(), getattr(convention, field)
        if field == "tie_break" and changes == {"ties": "expected"}:  # its alias
            changes, value = {field: "expected"}, "expected"
        if not changes or set(changes) == {field}:
            found.setdefault(value, convention.name)
    return {value: found[value] for value in CHOICES[field] if value in found}


def interpolation_conventions(conventions: Mapping[str, Mapping[str, Any] | None]) -> dict:
    """{interpolation rule: convention name} for the rules some convention isolates."""
    return single_change_conventions(conventions, "interpolation")


def table(key: str, name: str, category: str, caption: str, **labels: str) -> Layout:
    """A table's four files tables/NAME.FORMAT, keyed KEY_FORMAT, under one caption."""
    return {
        f"{key}_{ext}": Artefact(
            f"tables/{name}.{ext}", caption, category, {**labels, "format": ext}
        )
        for ext in TABLE_FORMATS
    }


def figure(key: str, name: str, category: str, caption: str, **labels: str) -> Layout:
    """A figure as plots/NAME.png and .svg, keyed KEY_png and KEY_svg, under one caption."""
    return {
        f"{key}_{ext}": Artefact(
            f"plots/{name}.{ext}", caption, category, {**labels, "format": ext}
        )
        for ext in FIGURE_FORMATS
    }


def run_tables(conventions: Mapping[str, Mapping[str, Any] | None], compared: bool) -> Layout:
    """The tables of any set of runs: ties, the 11-point curves of each interpolation rule,
    the convention audit and (`compared`: pairs of runs are tested) the paired tests."""
    layout = table("tiebreak", "tiebreak", TIES, "tiebreak", table="tiebreak")
    for rule in interpolation_conventions(conventions):
        layout |= table(
            f"curves_{rule}",
            f"curves_{rule}",
            CURVES,
            "curves_table",
            curves="11-point",
            interpolation=rule,
        )
    layout |= {
        "audit_md": Artefact(
            "audit/conventions.md", "audit", CONCLUSIONS, {"table": "convention audit"}
        ),
        "audit_csv": Artefact("audit/conventions.csv"),
    }
    if compared:
        layout |= {
            "compare_tests": Artefact("compare/tests.tsv"),
            "compare_flips": Artefact("compare/flips.tsv"),
            "compare_md": Artefact(
                "compare/flips.md", "flips", CONCLUSIONS, {"table": "conclusions that flip"}
            ),
        }
    return layout


def run_figures(conventions: Mapping[str, Mapping[str, Any] | None]) -> Layout:
    """The figures of any set of runs: the 11-point curves of each rule, the convention plot."""
    layout: Layout = {}
    for rule in interpolation_conventions(conventions):
        layout |= figure(
            f"curves_{rule}",
            f"curves_{rule}",
            CURVES,
            "curves_plot",
            curves="11-point",
            interpolation=rule,
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
        layout |= {
            "published_comparison_md": Artefact(
                "published/comparison.md",
                "published",
                PUBLISHED,
                {"table": "published vs regenerated"},
            ),
            "published_comparison_csv": Artefact("published/comparison.csv"),
            "published_ir_measures_md": Artefact("published/ir_measures.md"),
            "published_ir_measures_csv": Artefact("published/ir_measures.csv"),
        }
    layout["summary"] = Artefact("summary.md", "summary", SUMMARY, {"file": "summary.md"})
    return layout


def topic_figures(pairs: Sequence[Sequence[str]]) -> Layout:
    """What the topic figures job draws: the example topic, a scatter per pair of runs."""
    layout = figure("topic_example", "topic_example", CURVES, "topic_example", figure="one topic")
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
    """The many-systems table (config `systems:`) and its tests."""
    layout = {
        f"{ext}": Artefact(
            f"tables/systems.{ext}",
            "systems",
            WORKBENCH,
            {"table": "many systems", "baseline": baseline, "format": ext},
        )
        for ext in ("md", "csv", "tex")
    }
    return layout | {"tests": Artefact("compare/systems_tests.tsv")}


def interleaving(pairs: Sequence[Sequence[str]]) -> Layout:
    """The interleaving verdicts beside the offline ones, and a settling figure per pair."""
    layout = {
        "md": Artefact(
            "interleaving/verdicts.md",
            "interleaving",
            WORKBENCH,
            {"table": "interleaving verdicts"},
        ),
        "tsv": Artefact("interleaving/verdicts.tsv"),
    }
    for a, b in pairs:
        layout |= figure(
            f"{a}_vs_{b}",
            f"interleaving_{a}_vs_{b}",
            WORKBENCH,
            "interleaving_plot",
            figure="interleaving",
            pair=f"{a} vs {b}",
        )
    return layout
