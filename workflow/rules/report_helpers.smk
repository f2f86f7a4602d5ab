# Settings and helper functions of the report rules (report.smk): the artefacts of each
# report job, named by irscore.report.layout (the names `irscore audit` uses too), each
# wrapped for the report with its caption.
from irscore.pipeline.ideal import TAG as IDEAL
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
    summary = artefacts["summary_md"]
    artefacts["summary_md"] = summary._replace(path=f"{STAGING}/{summary.path}")
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
    artefacts |= {f"systems_{k}": v for k, v in systems_outputs().items()}
    artefacts |= {f"interleaving_{k}": v for k, v in interleaving_outputs().items()}
    return [
        f"results/eval/{IDEAL}.tsv",
        f"results/crosscheck/{IDEAL}.tsv",
        *(str(path) for path in artefacts.values()),
    ]


def systems_outputs():
    """The many-systems table and its tests."""
    return in_report(layout.systems(config["systems"]["baseline"]))


def interleaving_outputs():
    """The interleaving verdicts and a settling figure per pair."""
    return in_report(layout.interleaving(config["interleaving"]["pairs"]))


def interleaved_runs(pattern):
    """`pattern` filled with each run some interleaving pair names, in config order."""
    named = {run for pair in config["interleaving"]["pairs"] for run in pair}
    return [pattern.format(run=run) for run in run_names() if run in named]


def interleaving_settings():
    """The `interleaving:` settings, with the figures' resolution."""
    return {**config["interleaving"], "dpi": config["plots"]["dpi"]}


def workbench_sections():
    """The Markdown files the summary appends: the systems table, the verdicts."""
    systems = layout.systems(config["systems"]["baseline"])
    verdicts = layout.interleaving(config["interleaving"]["pairs"])
    return [f"results/{systems['md'].path}", f"results/{verdicts['md'].path}"]


if config["systems"]["baseline"] not in run_names():
    raise ValueError(
        f"config: systems.baseline {config['systems']['baseline']!r} is not a run"
    )
for _pair in config["interleaving"]["pairs"]:
    _unknown = [run for run in _pair if run not in run_names()]
    if _unknown or _pair[0] == _pair[1]:
        raise ValueError(f"config: interleaving pair {_pair}: name two different runs")
