"""Many systems, one table: the comparison papers print.

One row per system, one column per measure: the mean over topics with a
significance mark. Against a baseline, ▲ (▼) marks a system significantly
better (worse) than the baseline; with all pairs, each system gets a letter
and a cell lists the letters of the systems it is significantly better than
(as ranx does). The p-values come from `audit.paired_comparisons` (any test of
`stats.TESTS`; the table uses one) adjusted together, every system and measure
of the table, by one of `corrections.CORRECTIONS`, or from Tukey's HSD (`tukey`:
over all the systems, each measure on its own, adjusted by the HSD itself); a
footnote says which test and correction, over how many p-values, and alpha. The
best mean of each column is in bold. Markdown, LaTeX (booktabs) and CSV.
"""

from __future__ import annotations

import itertools
import string
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from irscore.analysis import tukey
from irscore.analysis.audit import correction_scope, paired_comparisons
from irscore.engine.ranking.conventions import REFERENCE, Convention
from irscore.engine.reading import trec

UP, DOWN = "▲", "▼"


@dataclass(frozen=True)
class SystemsTable:
    """Means per system and measure, the marks, and the tests behind them."""

    means: pd.DataFrame  # systems x measures
    marks: pd.DataFrame  # systems x measures, "" when nothing is significant
    tests: pd.DataFrame  # one row per comparison (audit.COMPARISON_COLUMNS)
    baseline: str | None  # None: all pairs
    footnote: str
    checks: list[str] = field(default_factory=list)  # the input checks, as compare prints them

    def markdown(self, digits: int = 4) -> str:
        """The table as `irscore compare` prints it (GitHub Markdown and the footnote)."""
        return markdown(self, digits)

    def latex(self, caption: str = "", digits: int = 4) -> str:
        """The table as `irscore compare --format latex` prints it."""
        return latex(self, caption, digits)

    def csv(self) -> str:
        """The table as `irscore compare --format csv` prints it."""
        return csv(self)

    def __str__(self) -> str:
        return self.markdown()


def build(
    table: pd.DataFrame,
    systems: Sequence[str],
    measures: Sequence[str],
    baseline: str | None,
    test: str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    B: int | None = None,
    seed: int = 0,
    convention: Convention = REFERENCE,
) -> SystemsTable:
    """The table for `systems` (their long tables in `table`, under `convention`).

    With a baseline, each other system is tested against it; with None, every pair.
    `test` is one of `stats.TESTS`, or `tukey` (Tukey's HSD over all the systems).
    """
    if baseline is not None and baseline not in systems:
        raise ValueError(f"baseline {baseline!r} is not one of the systems: {list(systems)}")
    if baseline is None:
        pairs = list(itertools.combinations(systems, 2))
    else:
        pairs = [(baseline, s) for s in systems if s != baseline]
    if test == tukey.TEST:
        tests = tukey.comparisons(table, systems, pairs, measures, convention, alpha)
        scope = tukey.scope(len(systems), len(measures))
    else:
        tests = paired_comparisons(
            table, pairs, measures, [convention], (test,), B, seed, alpha, correction
        )
        scope = correction_scope(correction, tests)
    means = pd.DataFrame(
        {m: [_mean(table, s, m, convention) for s in systems] for m in measures},
        index=pd.Index(list(systems), name="system"),
    )
    marks = pd.DataFrame("", index=means.index, columns=list(measures))
    letters = dict(zip(systems, string.ascii_lowercase, strict=False))
    for row in tests.itertuples(index=False):
        if not row.significant:
            continue
        better, worse = (row.run_b, row.run_a) if row.diff > 0 else (row.run_a, row.run_b)
        if baseline is not None:
            marks.loc[row.run_b, row.measure] = UP if row.diff > 0 else DOWN
        else:
            marks.loc[better, row.measure] += letters.get(worse, "?")
    for measure in measures:  # letters in system order
        if baseline is None:
            marks[measure] = ["".join(sorted(m)) for m in marks[measure]]
    return SystemsTable(
        means,
        marks,
        tests,
        baseline,
        _footnote(baseline, scope, alpha),
    )


def _mean(table: pd.DataFrame, system: str, measure: str, convention: Convention) -> float:
    rows = table[
        (table["run"] == system)
        & (table["convention"] == convention.name)
        & (table["measure"] == measure)
        & (table["topic"] == "all")
    ]
    return float(rows["value"].iloc[0]) if len(rows) else np.nan


def _footnote(baseline: str | None, scope: str, alpha: float) -> str:
    how = f"p adjusted: {scope}; alpha = {alpha:g}"
    if baseline is not None:
        return (
            f"{UP} / {DOWN}: significantly better / worse than the baseline {baseline} "
            f"({how}); best value per column in bold."
        )
    return (
        "Letters: the systems (in row order a, b, c, ...) this one is significantly "
        f"better than ({how}); best value per column in bold."
    )


def _best(column: pd.Series) -> set[str]:
    """The systems with the column's highest mean (all of them when tied)."""
    if column.isna().all():
        return set()
    return set(column.index[column == column.max()])


def _label(system: str, index: int, all_pairs: bool) -> str:
    return f"({string.ascii_lowercase[index]}) {system}" if all_pairs else system


def _rows(
    t: SystemsTable, digits: int, bold: str, mark_text: Callable[[str], str]
) -> list[tuple[str, list[str]]]:
    """Each system's name and cells: the mean, `bold` around the column's best, its mark;
    the one layout the Markdown and LaTeX tables share."""
    best = {m: _best(t.means[m]) for m in t.means.columns}
    rows = []
    for i, system in enumerate(t.means.index):
        cells = []
        for m in t.means.columns:
            value = t.means.at[system, m]
            text = "n/a" if np.isnan(value) else f"{value:.{digits}f}"
            if system in best[m]:
                text = bold.format(text)
            mark = t.marks.at[system, m]
            cells.append(text + (mark_text(mark) if mark else ""))
        name = _label(system, i, t.baseline is None)
        rows.append((name + (" (baseline)" if system == t.baseline else ""), cells))
    return rows


def markdown(t: SystemsTable, digits: int = 4) -> str:
    """The table as GitHub Markdown, with the footnote below it."""
    columns = list(t.means.columns)
    lines = [
        "| system | " + " | ".join(columns) + " |",
        "| --- |" + " ---: |" * len(columns),
    ]
    bold, mark_text = "**{}**", " {}" if t.baseline is not None else "<sup>{}</sup>"
    for name, cells in _rows(t, digits, bold, lambda mark: mark_text.format(mark)):
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n\n" + textwrap.fill(t.footnote, 100) + "\n"


def latex(t: SystemsTable, caption: str = "", digits: int = 4) -> str:
    """The table as LaTeX with booktabs (\\usepackage{booktabs, amssymb})."""
    columns = list(t.means.columns)
    mark_tex = {UP: "$^{\\blacktriangle}$", DOWN: "$^{\\blacktriangledown}$"}
    header = " & ".join(["System", *(_tex(m) for m in columns)])
    body = [
        " & ".join([_tex(name), *cells]) + " \\\\"
        for name, cells in _rows(
            t,
            digits,
            "\\textbf{{{}}}",
            lambda mark: mark_tex.get(mark, f"$^{{\\mathrm{{{mark}}}}}$"),
        )
    ]
    footnote = (
        _tex(t.footnote).replace(UP, "$\\blacktriangle$").replace(DOWN, "$\\blacktriangledown$")
    )
    return (
        "\\begin{table}\n\\centering\n"
        f"\\caption{{{_tex(caption) or 'Mean over topics.'} {footnote}}}\n"
        f"\\begin{{tabular}}{{l{'r' * len(columns)}}}\n\\toprule\n{header} \\\\\n\\midrule\n"
        + "\n".join(body)
        + "\n\\bottomrule\n\\end{tabular}\n\\end{table}\n"
    )


def _tex(text: str) -> str:
    for char in ("\\", "&", "%", "$", "#", "_", "{", "}"):
        text = text.replace(char, "\\" + char)
    return text


def csv(t: SystemsTable) -> str:
    """One row per system: each measure's mean (every digit) and its mark."""
    frame = pd.DataFrame(index=t.means.index)
    for m in t.means.columns:
        frame[m] = t.means[m]
        frame[f"{m} mark"] = t.marks[m]
    frame["baseline"] = [s == t.baseline for s in frame.index]
    return frame.to_csv(float_format=trec.float_text, lineterminator="\n")


RENDER = {"md": markdown, "latex": latex, "csv": csv}


def of_runs(
    qrels, runs, groups, convention, tests, B, seed, alpha, correction, baseline, all_pairs
) -> SystemsTable:
    """`irscore.compare` of many runs (the API's qrels and runs, measure groups and
    convention): the systems table `irscore compare` prints, its runs named and checked."""
    from irscore.analysis import stats
    from irscore.analysis.comparison import scored_values
    from irscore.engine.arguments import is_named_runs, qrels_input, warn_not_computed

    named = is_named_runs(runs)
    if not named and (isinstance(runs, Mapping | str) or not isinstance(runs, Sequence)):
        raise ValueError("compare(qrels, runs): runs is a mapping name -> run or a list of runs")
    given = [(str(n), r) for n, r in runs.items()] if named else list(enumerate(runs))
    if len(given) < 2:
        raise ValueError("compare needs at least two runs")
    if baseline is not None and all_pairs:
        raise ValueError("baseline and all_pairs exclude each other")
    if named:
        _check_baseline(baseline, [name for name, _ in given])
    test = "t" if tests == "all" else tests
    if not isinstance(test, str) or test not in (*stats.TESTS, tukey.TEST):
        raise ValueError(
            f"the systems table takes one test (t, wilcoxon, randomization, "
            f"bootstrap or tukey), got {tests!r}"
        )
    qrels_table = qrels_input(qrels)
    names, values = _scored_one_at_a_time(qrels_table, given, named, groups, convention)
    if not named:
        _check_baseline(baseline, names)
    scored = scored_values(list(zip(names, values, strict=True)), groups, convention)
    warn_not_computed(scored.not_computed)
    table = build(
        scored.table,
        names,
        scored.measures,
        None if all_pairs else baseline or names[0],
        test=test,
        correction=correction,
        alpha=alpha,
        B=B,
        seed=seed,
        convention=convention.replace(name="reference"),
    )
    table.tests["convention"] = convention.name
    return replace(table, checks=list(scored.checks))


def _check_baseline(baseline: str | None, names: list[str]) -> None:
    """Refuse a baseline that names none of the runs."""
    if baseline is not None and baseline not in names:
        raise ValueError(f"baseline {baseline!r}: not one of the runs ({', '.join(names)})")


def _scored_one_at_a_time(qrels, given: list, named: bool, groups, convention) -> tuple:
    """(the runs' names, each run's `comparison.run_values`), each run read, scored and
    dropped before the next is read. A list's runs are named by their tags when the tags
    tell them apart (as the command line names them), else run1, run2, ..."""
    from irscore.analysis.comparison import run_values
    from irscore.engine.arguments import run_input, tags_of

    names, tags, values = [], [], []
    for key, run in given:
        name = key if named else f"run{key + 1}"
        frame = run_input(run, name, False)
        tags.append((tags_of(frame) or [name])[0])
        values.append(run_values(qrels, frame, groups, convention))
        names.append(name)
        del frame
    if not named and len(set(tags)) == len(tags):
        names = tags
    return names, values
