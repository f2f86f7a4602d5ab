"""Paired tests between runs under one convention: what `irscore compare` prints and
`irscore.compare` returns, with the input checks a comparison must state."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import pandas as pd

from irscore.analysis.audit import paired_comparisons
from irscore.engine.conventions import Convention
from irscore.engine.evaluate import evaluate_one
from irscore.engine.long_table import concat_long, long_table
from irscore.engine.measures import MeasureSpec, family_of
from irscore.engine.naming import few
from irscore.engine.prepare import prepare
from irscore.engine.rank import Notes

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


def score_runs(
    qrels: pd.DataFrame,
    runs: Sequence[tuple[str, pd.DataFrame]],
    spec: MeasureSpec,
    convention: Convention,
) -> Scored:
    """Each named run under `convention`; counts and geometric means (no per-topic
    values) are not among the measures to test."""
    tables, checks, not_computed = [], [], []
    labelled = replace(convention, name="reference")
    for name, run in runs:
        values, topics, means, notes = evaluate_one(prepare(qrels, run), convention, spec)
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
        [replace(convention, name="reference")],
        tests,
        B,
        seed,
        alpha,
        correction,
    )
    result["convention"] = convention.name
    return result


def compare_runs(
    qrels: pd.DataFrame,
    runs: Sequence[tuple[str, pd.DataFrame]],
    spec: MeasureSpec,
    convention: Convention,
    tests: Sequence[str],
    B: int | None,
    seed: int,
    alpha: float,
    correction: str = "holm",
    wanted: Callable[[str], bool] | None = None,
) -> tuple[pd.DataFrame, Scored]:
    """The paired tests of the second named run against the first, and the scored runs;
    `wanted` picks the measures to test (a family's measures not asked for by name are
    not tested, so the correction spans only those shown)."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    scored = score_runs(qrels, runs, spec, convention)
    measures = [m for m in scored.measures if wanted is None or wanted(m)]
    table, pair = scored.table, (runs[0][0], runs[1][0])
    return paired(table, pair, measures, convention, tests, B, seed, alpha, correction), scored


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
