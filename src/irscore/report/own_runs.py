"""`irscore audit` on anyone's qrels and runs: the workflow's tables and plots, same code.

Every run is scored under the default convention grid; then the convention
audit, the tie-break table, the 11-point curves, the paired tests with the
conclusions that flip, and the convention heatmap are written under one
folder, with a short text summary and the input checks for the terminal.
"""

from __future__ import annotations

import itertools
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from irscore.analysis import ties
from irscore.analysis.audit import conclusion_flips
from irscore.analysis.results import Results
from irscore.engine.evaluate import evaluate
from irscore.engine.measures import spec_from_config
from irscore.engine.measures.groups import changed, narrowed, plan, rename_table
from irscore.engine.measures.peer_names import parse_peer_name
from irscore.engine.output.long_table import concat_long, write_long_table
from irscore.engine.output.naming import few
from irscore.engine.ranking.conventions import DEFAULT_GRID, Convention, conventions_from_config
from irscore.engine.ranking.input_checks import read_checked
from irscore.engine.ranking.prepare import Prepared, prepare
from irscore.engine.ranking.rank import rank
from irscore.report import layout
from irscore.report.pipeline import write_run_figures, write_run_tables
from irscore.report.settings import DPI, HEADLINE, MEASURES


def audit_files(
    qrels_path: str,
    run_paths: Sequence[str],
    out: str | None,
    conventions: Mapping[str, Mapping | None] = DEFAULT_GRID,
    B: int = 10_000,
    seed: int = 0,
    alpha: float = 0.05,
    tests: Sequence[str] = ("t",),
    measures: Sequence[str] = (),
) -> str:
    """Write every artefact under `out` and return the text summary (checks first). Without
    `out`, under a new temporary folder (made once the inputs are read, and removed again
    if writing fails), which the summary's last line names: never the current folder.
    `measures`: names audited beside the headline measures (`audit_runs`)."""
    qrels = read_checked(qrels_path, "qrels")
    runs = [read_checked(path, "run") for path in run_paths]
    named = dict(zip(_names(run_paths, runs), runs, strict=True))
    if out is not None:
        return audit_runs(qrels, named, out, conventions, B, seed, alpha, tests, measures).summary
    folder = tempfile.mkdtemp(prefix="irscore-audit-")
    try:
        return audit_runs(
            qrels, named, folder, conventions, B, seed, alpha, tests, measures
        ).summary
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


@dataclass(frozen=True)
class AuditResult:
    """What `audit_runs` found: the terminal summary, the convention audit (one row per
    measure, convention and run), the tie-break table, the paired tests' conclusions
    that flip, and the folder holding every table and plot."""

    summary: str
    conventions: pd.DataFrame
    ties: pd.DataFrame
    flips: pd.DataFrame
    folder: Path


def audit_runs(
    qrels: pd.DataFrame,
    runs: Mapping[str, pd.DataFrame],
    out: str | Path,
    conventions: Mapping[str, Mapping | None] = DEFAULT_GRID,
    B: int = 10_000,
    seed: int = 0,
    alpha: float = 0.05,
    tests: Sequence[str] = ("t",),
    measures: Sequence[str] = (),
) -> AuditResult:
    """Score named runs under the convention grid and write every artefact under `out`.
    `measures` are audited beside the headline measures, each named as given: trec_eval's
    names under each convention, ir_measures' and ranx's under each with the decisions
    their peer fixes (so a convention that changes only those leaves them as they are)."""
    folder = Path(out)
    names = list(runs)
    grid = conventions_from_config(conventions)
    spec = spec_from_config(MEASURES)
    groups = plan(list(measures)) if measures else []
    headline = dict(HEADLINE)
    for name in measures:
        peer = parse_peer_name(name) if name not in HEADLINE.values() else None
        if name not in HEADLINE.values():  # a peer's: labelled so (`nDCG@10` is a label)
            headline[f"{name} ({peer.peer})" if peer else name] = name
    long_tables, checks, prepared = [], [], []
    for name, run in runs.items():
        p = prepare(qrels, run)  # once: scored, checked and counted for the tie table
        table = evaluate(qrels, run, grid, spec, name, prepared=p)
        parts = [table]
        for g in groups:
            grid_g = [changed(c, g.changes) for c in grid]
            scored = evaluate(qrels, run, grid_g, g.spec, name, prepared=p)
            scored = rename_table(narrowed(scored, g.narrowed), g.renames)
            known = set(table["measure"].astype(str))
            parts.append(scored[~scored["measure"].astype(str).isin(known)])
        table = concat_long(parts) if groups else table
        write_long_table(str(folder / "eval" / f"{name}.tsv"), table)
        long_tables.append(table)
        checks += input_checks(p, name)
        prepared.append(p)
    results = Results(long_tables, conventions)
    compared = len(names) > 1
    compare = {
        "pairs": list(itertools.combinations(names, 2)),
        "measures": list(dict.fromkeys(headline.values())),
        "tests": list(tests),
        "B": B,
        "seed": seed,
        "alpha": alpha,
        "correction": "holm",
    }
    outputs = layout.under(str(folder), layout.run_tables(conventions, compared))
    tie_frame, audited, comparisons = write_run_tables(
        prepared, results, headline, compare if compared else None, outputs
    )
    figures = layout.under(str(folder), layout.run_figures(conventions))
    write_run_figures(results, headline, figures, DPI)
    flips = conclusion_flips(comparisons) if compared else pd.DataFrame()
    summary = render_summary(checks, audited, tie_frame, flips, folder)
    return AuditResult(summary, audited, tie_frame, flips, folder)


def _names(paths: Sequence[str], runs: Sequence[pd.DataFrame]) -> list[str]:
    """Each run's tag, or its file name when tags repeat (names must tell runs apart)."""
    tags = [
        str(run["tag"].iloc[0]) if len(run) else Path(p).stem
        for p, run in zip(paths, runs, strict=True)
    ]
    if len(set(tags)) == len(tags):
        return tags
    stems = [Path(p).name for p in paths]
    if len(set(stems)) == len(stems):
        return stems
    return [f"run{i + 1}" for i in range(len(paths))]


def input_checks(p: Prepared, name: str) -> list[str]:
    """Problems the numbers depend on (`p`: run `name` and the qrels, prepared), stated
    instead of absorbed."""
    ranking, _, _, notes = rank(p, Convention(duplicates="first"))
    lines = []
    if notes.run_topics_without_qrels:
        lines.append(
            f"{name}: {len(notes.run_topics_without_qrels)} topics have no judgments "
            f"and are skipped: {few(notes.run_topics_without_qrels)}"
        )
    if notes.qrels_topics_without_run:
        lines.append(
            f"{name}: {len(notes.qrels_topics_without_run)} judged topics are missing "
            f"from the run (they count only under -c): {few(notes.qrels_topics_without_run)}"
        )
    if notes.duplicates_dropped:
        lines.append(
            f"{name}: {notes.duplicates_dropped} duplicate documents "
            "(trec_eval refuses the file; irscore kept the first of each)"
        )
    top = ranking.rank <= 10
    unjudged = np.unique(ranking.topic_of_row[top & ~ranking.judged])
    if len(unjudged):
        lines.append(
            f"{name}: {len(unjudged)} of {len(ranking.topics)} topics have unjudged "
            "documents in the top 10 (counted as non-relevant)"
        )
    return lines


def render_summary(
    checks: Sequence[str],
    audited: pd.DataFrame,
    tie_frame: pd.DataFrame,
    flips: pd.DataFrame,
    folder: Path,
) -> str:
    """The terminal summary: checks, then what moves the numbers, then what flips."""
    lines = ["checks:", *(f"  {c}" for c in checks or ["none"]), "findings:"]
    ap = audited[audited["measure"] == "map"]
    tie_names = [n for n in ap["convention"].unique() if n.startswith("tie_")]
    ties_only = ap[ap["convention"].isin(tie_names)]
    if len(ties_only):
        worst = ties_only.loc[ties_only["difference"].abs().idxmax()]
        lines.append(
            f"  MAP changes by up to {abs(worst['difference']):.4g} with the tie-break "
            f"({worst['run']}, {worst['convention']})"
        )
    for run, row in tie_frame.iterrows():
        lines.append(
            f"  {run}: {int(row[ties.TIED_IN_TOP])} topics have ties in the top {ties.TOP}"
        )
    others = ap[~ap["convention"].isin(["reference", *tie_names])]
    if len(others):
        biggest = others.loc[others["difference"].abs().idxmax()]
        lines.append(
            f"  the largest MAP shift of any convention: {biggest['difference']:+.4f} "
            f"({biggest['run']}, {biggest['convention']}: {biggest['description']})"
        )
    swapped = audited[audited["order_changes"]].drop_duplicates(["measure", "convention"])
    for row in swapped.itertuples(index=False):
        lines.append(
            f"  the order of the runs by {row.measure} flips under {row.convention} "
            f"({row.description}): {row.run_order}"
        )
    unique_flips = (
        flips.drop_duplicates(["measure", "run_a", "run_b", "convention"]) if len(flips) else flips
    )
    for row in unique_flips.itertuples(index=False):
        lines.append(
            f"  {row.measure}, {row.run_a} vs {row.run_b}: '{row.conclusion_reference}' "
            f"becomes '{row.conclusion}' under {row.convention}"
        )
    if len(lines) == len(checks or ["none"]) + 2:
        lines.append("  no convention changes any headline mean")
    lines.append(f"written under {folder}/")
    return "\n".join(lines) + "\n"
