# Settings and helper functions of the report rules (report.smk): the artefacts of each
# report job, named by irscore.report.layout (the names `irscore audit` uses too), each
# wrapped for the report with its caption.
from irscore.ideal import TAG as IDEAL
from irscore.report import layout
from irscore.report.settings import check_plots
from irscore.report.styles import run_styles

# Where the tables job writes the summary, before it replaces the committed one.
STAGING = "staging"

check_plots(config["plots"], run_names())
if IDEAL in run_names():
    raise ValueError(f"config: the run name {IDEAL!r} is reserved for the ideal run")


def in_report(artefacts):
    """{key: results/PATH}, each artefact with a caption wrapped for the report."""
    outputs = {}
    for key, artefact in artefacts.items():
        path = f"results/{artefact.path}"
        if artefact.caption:
            path = report(
                path,
                caption=f"../report/{artefact.caption}.rst",
                category=artefact.category,
                labels=dict(artefact.labels),
            )
        outputs[key] = path
    return outputs


def plotted_styles():
    """The (colour, marker) of each run plotted topic by topic, from every configured run:
    a params value, so a run added at the end of the config re-draws none of them."""
    styles = run_styles(run_names())
    return {run: list(styles[run]) for run in plotted_runs()}


def tables_outputs():
    """What the tables job writes: every table, and the summary under results/staging/
    (the committed results/summary.md is replaced by the rule publish_summary)."""
    artefacts = layout.workflow_tables(config["conventions"], bool(PUBLISHED))
    summary = artefacts["summary"]
    artefacts["summary"] = summary._replace(path=f"{STAGING}/{summary.path}")
    return in_report(artefacts)


def figures_outputs():
    """What the figures job draws: the 11-point curves of each rule, the convention plot."""
    return in_report(layout.run_figures(config["conventions"]))


def topic_figures_outputs():
    """What the topic figures job draws: the example topic, a scatter per pair of runs."""
    return in_report(layout.topic_figures(config["plots"]["pairs"]))


def report_targets():
    """The ideal run's evaluation and every artefact of the three report jobs."""
    artefacts = {**tables_outputs(), **figures_outputs(), **topic_figures_outputs()}
    return [
        f"results/eval/{IDEAL}.tsv",
        f"results/crosscheck/{IDEAL}.tsv",
        *(str(path) for path in artefacts.values()),
    ]
