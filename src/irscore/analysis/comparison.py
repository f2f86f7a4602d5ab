"""Paired tests between runs under one convention: what `irscore compare` prints and
`irscore.compare` returns, with the input checks a comparison must state."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from irscore.analysis.audit import paired_comparisons
from irscore.engine.evaluate import evaluate_one
from irscore.engine.measures import family_of
from irscore.engine.measures.groups import Group, changed, narrowed, rename_table
from irscore.engine.output.long_table import concat_long, long_table
from irscore.engine.output.naming import few
from irscore.engine.ranking.conventions import Convention
from irscore.engine.ranking.prepare import prepare
from irscore.engine.ranking.rank import Notes

DEFAULT_MEASURES = ["map", "P.10", "ndcg_cut.10", "recip_rank"]


@dataclass(frozen=True)
class Scored:
    """Runs scored for paired tests: their long tables (the convention labelled
    `reference`, the name the tests look up), the input checks, the measures to
    test, and the requested families the convention has no form for."""

    table: pd.DataFrame
    checks: list[str]
    measures: list[str]
    not_computed: list[str]


def run_values(
    qrels: pd.DataFrame, run: pd.DataFrame, groups: Sequence[Group], convention: Convention
) -> list[tuple]:
    """One run's (values, topics, means, notes) under each group's convention, the run
    prepared once: what a comparison keeps of a run, so that runs are read one at a
    time and dropped once scored."""
    p = prepare(qrels, run)
    return [evaluate_one(p, changed(convention, g.changes), g.spec) for g in groups]


def _scored(named: Sequence[tuple[str, tuple]], convention: Convention) -> Scored:
    """Named runs' values under `convention` as long tables (labelled `reference`), their
    checks; counts and geometric means (no per-topic values) are not among the measures
    to test."""
    tables, checks, not_computed = [], [], []
    labelled = convention.replace(name="reference")
    for name, (values, topics, means, notes) in named:
        tables.append(long_table(name, labelled, values, topics, means))
        checks += notes_lines(name, notes)
        not_computed += notes.not_computed
    table = concat_long(tables)
    measures = [
        m
        for m in dict.fromkeys(table["measure"])
        if not family_of(m).integer and family_of(m).topic_rows
    ]
    return Scored(table, checks, measures, list(dict.fromkeys(not_computed)))


def paired(
    table: pd.DataFrame,
    pair: tuple[str, str],
    measures: Sequence[str],
    convention: Convention,
    tests: Sequence[str],
    B: int | None,
    seed: int,
    alpha: float,
    correction: str = "holm",
) -> pd.DataFrame:
    """The tests of pair[1] against pair[0] per measure, each test's p-values adjusted
    over the measures (`audit.correction_scope` says so in words)."""
    result = paired_comparisons(
        table,
        [pair],
        measures,
        [convention.replace(name="reference")],
        tests,
        B,
        seed,
        alpha,
        correction,
    )
    result["convention"] = convention.name
    return result


def score_groups(
    qrels: pd.DataFrame,
    runs: Sequence[tuple[str, pd.DataFrame]],
    groups: Sequence[Group],
    convention: Convention,
) -> Scored:
    """The named runs scored for each group of measures under its convention, as one
    Scored (`scored_values`)."""
    named = [(name, run_values(qrels, run, groups, convention)) for name, run in runs]
    return scored_values(named, groups, convention)


def scored_values(
    named: Sequence[tuple[str, list[tuple]]], groups: Sequence[Group], convention: Convention
) -> Scored:
    """Each named run's `run_values` as one Scored: a group's tables after another's
    (the trec_eval names narrowed to those asked for, peer names as given)."""
    tables, measures, checks, not_computed = [], [], None, []
    for k, g in enumerate(groups):
        scored = _scored(
            [(name, values[k]) for name, values in named], changed(convention, g.changes)
        )
        table = narrowed(scored.table, g.narrowed)
        kept = set(table["measure"].astype(str))
        tested = [m for m in scored.measures if m in kept]
        if g.renames is not None:
            tested = [n for m, names in g.renames.items() if m in tested for n in names]
        tables.append(rename_table(table, g.renames))
        measures += [m for m in tested if m not in measures]
        checks = scored.checks if checks is None else checks  # the same under every group
        not_computed += [n for n in scored.not_computed if n not in not_computed]
    return Scored(concat_long(tables), checks or [], measures, not_computed)


def compare_runs(
    qrels: pd.DataFrame,
    runs: Sequence[tuple[str, pd.DataFrame]],
    groups: Sequence[Group],
    convention: Convention,
    tests: Sequence[str],
    B: int | None,
    seed: int,
    alpha: float,
    correction: str = "holm",
) -> tuple[pd.DataFrame, Scored]:
    """The paired tests of the second named run against the first, and the scored runs;
    only the measures asked for are tested, so the correction spans those shown."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    scored = score_groups(qrels, runs, groups, convention)
    table, pair = scored.table, (runs[0][0], runs[1][0])
    result = paired(table, pair, scored.measures, convention, tests, B, seed, alpha, correction)
    return result, scored


def notes_lines(name: str, notes: Notes) -> list[str]:
    """Input problems a comparison must not absorb silently."""
    lines = []
    if notes.run_topics_without_qrels:
        lines.append(
            f"{name}: topics without judgments, skipped: {few(notes.run_topics_without_qrels)}"
        )
    if notes.qrels_topics_without_run:
        lines.append(f"{name}: judged topics the run lacks: {few(notes.qrels_topics_without_run)}")
    if notes.duplicates_dropped:
        lines.append(f"{name}: {notes.duplicates_dropped} duplicate documents dropped")
    return lines
