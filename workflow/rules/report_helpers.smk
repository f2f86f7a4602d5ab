# Settings and helper functions of the report rules (report.smk): the artefacts of each
# report job, keyed as irscore.report_tables and irscore.report_figures expect them, each
# wrapped for the report with its caption.
from irscore.ideal import TAG as IDEAL
from irscore.report_config import check_plots
from irscore.tables import FORMATS as TABLE_FORMATS
from irscore.tables import interpolation_conventions

check_plots(config["plots"], run_names())
if IDEAL in run_names():
    raise ValueError(f"config: the run name {IDEAL!r} is reserved for the ideal run")

# {interpolation rule: the convention that isolates it}, e.g. textbook: interp_textbook
INTERPOLATIONS = interpolation_conventions(config["conventions"])
CONCLUSIONS = "7. Conventions and conclusions"


def table_outputs(key, name, category, caption, **labels):
    """A table's four files, keyed KEY_FORMAT, each wrapped under one caption."""
    return {
        f"{key}_{ext}": report(
            f"results/tables/{name}.{ext}",
            caption=f"../report/{caption}.rst",
            category=category,
            labels={**labels, "format": ext},
        )
        for ext in TABLE_FORMATS
    }


def figure_outputs(key, path, category, caption, **labels):
    """A figure as PNG and SVG, keyed KEY_png and KEY_svg, each wrapped under one caption."""
    return {
        f"{key}_{ext}": report(
            f"{path}.{ext}",
            caption=f"../report/{caption}.rst",
            category=category,
            labels={**labels, "format": ext},
        )
        for ext in ("png", "svg")
    }


def tables_outputs():
    """What the tables job writes: every table, and results/summary.md."""
    outputs = {
        **table_outputs(
            "reference", "reference", "1. Headline", "reference", table="reference"
        ),
        **table_outputs(
            "tiebreak", "tiebreak", "2. Ties", "tiebreak", table="tiebreak"
        ),
    }
    for interpolation in INTERPOLATIONS:
        outputs |= table_outputs(
            f"curves_{interpolation}",
            f"curves_{interpolation}",
            "3. Curves",
            "curves_table",
            curves="11-point",
            interpolation=interpolation,
        )
    outputs |= {
        "audit_md": report(
            "results/audit/conventions.md",
            caption="../report/audit.rst",
            category=CONCLUSIONS,
            labels={"table": "convention audit"},
        ),
        "audit_csv": "results/audit/conventions.csv",
        "compare_tests": "results/compare/tests.tsv",
        "compare_flips": "results/compare/flips.tsv",
        "compare_md": report(
            "results/compare/flips.md",
            caption="../report/flips.rst",
            category=CONCLUSIONS,
            labels={"table": "conclusions that flip"},
        ),
    }
    if PUBLISHED:
        outputs |= {
            "published_comparison_md": report(
                "results/published/comparison.md",
                caption="../report/published.rst",
                category="8. Published figures",
                labels={"table": "published vs regenerated"},
            ),
            "published_comparison_csv": "results/published/comparison.csv",
            "published_ir_measures_md": "results/published/ir_measures.md",
            "published_ir_measures_csv": "results/published/ir_measures.csv",
        }
    outputs["summary"] = report(
        "results/summary.md",
        caption="../report/summary.rst",
        category="6. Summary",
        labels={"file": "summary.md"},
    )
    return outputs


def figures_outputs():
    """What the figures job draws: the 11-point curves of each rule, the convention plot."""
    outputs = {}
    for interpolation in INTERPOLATIONS:
        outputs |= figure_outputs(
            f"curves_{interpolation}",
            f"results/plots/curves_{interpolation}",
            "3. Curves",
            "curves_plot",
            curves="11-point",
            interpolation=interpolation,
        )
    return outputs | figure_outputs(
        "conventions",
        "results/plots/conventions",
        "5. Conventions",
        "conventions",
        figure="convention audit",
    )


def topic_figures_outputs():
    """What the topic figures job draws: the example topic, a scatter per pair of runs."""
    outputs = figure_outputs(
        "topic_example",
        "results/plots/topic_example",
        "3. Curves",
        "topic_example",
        figure="one topic",
    )
    for x, y in config["plots"]["pairs"]:
        outputs |= figure_outputs(
            f"pair_{x}_vs_{y}",
            f"results/plots/pair_{x}_vs_{y}",
            "4. Per-topic",
            "pair",
            figure="per-topic AP",
            pair=f"{x} vs {y}",
        )
    return outputs


def report_targets():
    """The ideal run's evaluation and every artefact of the three report jobs."""
    artefacts = {**tables_outputs(), **figures_outputs(), **topic_figures_outputs()}
    return [
        f"results/eval/{IDEAL}.tsv",
        f"results/crosscheck/{IDEAL}.tsv",
        *(str(path) for path in artefacts.values()),
    ]
