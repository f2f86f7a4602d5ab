# Settings and helper functions of the report rules (report.smk).
from irscore.curves import interpolation_conventions
from irscore.ideal import TAG as IDEAL
from irscore.plots import check_config
from irscore.tables import FORMATS as TABLE_FORMATS

check_config(config["plots"], run_names())
if IDEAL in run_names():
    raise ValueError(f"config: the run name {IDEAL!r} is reserved for the ideal run")

# {interpolation rule: the convention that isolates it}, e.g. textbook: interp_textbook
INTERPOLATIONS = interpolation_conventions(config["conventions"])


def table_outputs(name, category, caption, **labels):
    """A table's four files, each wrapped for the report under one caption."""
    return {
        ext: report(
            f"results/tables/{name}.{ext}",
            caption=f"../report/{caption}.rst",
            category=category,
            labels={**labels, "format": ext},
        )
        for ext in TABLE_FORMATS
    }


def figure_outputs(path, category, caption, **labels):
    """A figure as PNG and SVG, each wrapped for the report under one caption."""
    return {
        ext: report(
            f"{path}.{ext}",
            caption=f"../report/{caption}.rst",
            category=category,
            labels={**labels, "format": ext},
        )
        for ext in ("png", "svg")
    }


def curve_outputs():
    """The 11-point table and figure of each interpolation rule, keyed RULE_FORMAT."""
    outputs = {}
    for interpolation in INTERPOLATIONS:
        labels = {"curves": "11-point", "interpolation": interpolation}
        table = table_outputs(
            f"curves_{interpolation}", "3. Curves", "curves_table", **labels
        )
        figure = figure_outputs(
            f"results/plots/curves_{interpolation}",
            "3. Curves",
            "curves_plot",
            **labels,
        )
        outputs.update(
            {
                f"{interpolation}_{ext}": path
                for ext, path in {**table, **figure}.items()
            }
        )
    return outputs


def report_targets():
    """Every table and figure of the report, and the ideal run's evaluation."""
    pairs = config["plots"]["pairs"]
    return (
        [f"results/eval/{IDEAL}.tsv", f"results/crosscheck/{IDEAL}.tsv"]
        + expand("results/tables/reference.{ext}", ext=TABLE_FORMATS)
        + expand("results/tables/tiebreak.{ext}", ext=TABLE_FORMATS)
        + expand(
            "results/tables/curves_{interpolation}.{ext}",
            interpolation=INTERPOLATIONS,
            ext=TABLE_FORMATS,
        )
        + expand(
            "results/plots/curves_{interpolation}.{ext}",
            interpolation=INTERPOLATIONS,
            ext=["png", "svg"],
        )
        + expand("results/plots/topic_example.{ext}", ext=["png", "svg"])
        + [
            f"results/plots/pair_{x}_vs_{y}.{ext}"
            for x, y in pairs
            for ext in ("png", "svg")
        ]
        + expand("results/plots/conventions.{ext}", ext=["png", "svg"])
        + ["results/summary.md"]
    )
