"""What each convention changes: per run and measure, the mean, its shift from the
reference, how many topics move, the largest move, and whether the runs swap places;
and for pairs of runs, whether a paired test's conclusion survives the convention."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from irscore.analysis import corrections, rank_correlation, stats
from irscore.analysis.results import Results
from irscore.engine.output.long_table import concat_long
from irscore.engine.ranking.conventions import Convention, name_under
from irscore.engine.reading import trec

COLUMNS = [
    "measure",
    "convention",
    "description",
    "run",
    "mean",
    "reference",
    "difference",
    "topics_changed",
    "largest_topic_change",
    "run_order",
    "order_changes",
    "tau",
    "tau_ap",
]
# Per-topic values closer than this count as unchanged (float noise, not a change).
SAME = 1e-12


def _run_order(means: Mapping[str, float]) -> str:
    """Runs from best to worst ("a > b = c"); NaN means sort last. Means equal to 12
    decimals are equal: the same values summed over topics in another order can differ
    in the last bit."""
    key = {
        run: (bool(np.isnan(m)), -round(float(np.nan_to_num(m)), 12)) for run, m in means.items()
    }
    ranked = sorted(means, key=lambda run: (*key[run], run))
    text = ranked[0] if ranked else ""
    for before, after in itertools.pairwise(ranked):
        text += (" = " if key[before] == key[after] and not key[before][0] else " > ") + after
    return text


def convention_audit(
    table: pd.DataFrame, measures: Sequence[str], conventions: Sequence[Convention]
) -> pd.DataFrame:
    """One row per (measure, convention, run) comparing with the `reference` convention."""
    values = _by_key(table, measures, conventions)
    runs = [str(run) for run in pd.unique(table["run"])]
    rows = []
    for measure in measures:
        reference_means = {run: _mean(values, "reference", measure, run) for run in runs}
        reference_order = _run_order(reference_means)
        for convention in conventions:
            name = name_under(measure, convention)
            means = {run: _mean(values, convention.name, name, run) for run in runs}
            undefined = all(np.isnan(v) for v in means.values())
            order = "n/a" if undefined else _run_order(means)
            tau = rank_correlation.kendall_tau(reference_means, means)
            tau_ap = rank_correlation.tau_ap(reference_means, means)
            for run in runs:
                changed, largest = _topic_changes(values, convention.name, name, measure, run)
                rows.append(
                    (
                        measure,
                        convention.name,
                        convention.description,
                        run,
                        means[run],
                        reference_means[run],
                        means[run] - reference_means[run],
                        changed,
                        largest,
                        order,
                        not undefined and order != reference_order,
                        tau,
                        tau_ap,
                    )
                )
    return pd.DataFrame(rows, columns=COLUMNS)


@dataclass(frozen=True)
class _Topics:
    """One run's values of one measure under one convention: per topic (sorted), and `all`."""

    topics: np.ndarray
    values: np.ndarray
    mean: float


Values = dict[tuple[str, str, str], _Topics]


def _names(measures: Sequence[str], conventions: Sequence[Convention]) -> set[str]:
    """The long table's names of `measures` under any of `conventions`."""
    return {name_under(m, c) for m in measures for c in conventions} | set(measures)


def _rows_of(
    long_tables: Sequence[pd.DataFrame], measures: Sequence[str], conventions: Sequence[Convention]
) -> pd.DataFrame:
    """The rows of `measures` (by any convention's name) of the runs' long tables, as one."""
    names = _names(measures, conventions)
    return concat_long([table[table["measure"].isin(names)] for table in long_tables])


def _by_key(
    table: pd.DataFrame, measures: Sequence[str], conventions: Sequence[Convention]
) -> Values:
    """The values of `measures` (under each convention's name for them), per (convention,
    measure, run): one pass over the long table, then plain arrays."""
    part = table[table["measure"].isin(_names(measures, conventions))]
    topic = part["topic"].astype(str).to_numpy(dtype=object)
    value = part["value"].to_numpy(dtype=np.float64)
    groups = part.groupby(["convention", "measure", "run"], sort=False, observed=True).indices
    out = {}
    for (convention, measure, run), rows in groups.items():
        topics, values = topic[rows], value[rows]
        is_all = topics == "all"
        mean = float(values[is_all][0]) if is_all.any() else np.nan
        order = np.argsort(topics[~is_all], kind="stable")
        out[str(convention), str(measure), str(run)] = _Topics(
            topics[~is_all][order], values[~is_all][order], mean
        )
    return out


_ABSENT = _Topics(np.array([], dtype=object), np.array([]), np.nan)


def _mean(values: Values, convention: str, measure: str, run: str) -> float:
    return values.get((convention, measure, run), _ABSENT).mean


def _paired(a: _Topics, b: _Topics) -> tuple[np.ndarray, np.ndarray]:
    """The values of the topics both have, in topic order."""
    _, in_a, in_b = np.intersect1d(a.topics, b.topics, assume_unique=True, return_indices=True)
    return a.values[in_a], b.values[in_b]


def _topic_changes(
    values: Values, convention: str, measure: str, reference_measure: str, run: str
) -> tuple[int, float]:
    """Topics whose value differs from the reference (or that only one side has), and the
    largest change among the topics both have; -1 and NaN when the measure is absent."""
    mine = values.get((convention, measure, run))
    theirs = values.get(("reference", reference_measure, run), _ABSENT)
    if mine is None or len(mine.topics) == 0:
        return -1, np.nan
    a, b = _paired(mine, theirs)
    delta = np.abs(a - b)
    moved = (delta > SAME) | (np.isnan(a) != np.isnan(b))
    only_one_side = len(mine.topics) + len(theirs.topics) - 2 * len(a)
    largest = float(np.nanmax(delta)) if (~np.isnan(delta)).any() else 0.0
    return int(moved.sum()) + only_one_side, largest


def markdown(audit: pd.DataFrame, labels: Mapping[str, str]) -> str:
    """One section per measure: conventions as rows, each run's mean and shift as columns."""
    runs = list(dict.fromkeys(audit["run"]))
    sections = [
        "# What each convention changes\n\n"
        "Means over topics under each convention, with the shift from the reference "
        "(trec_eval 9.0.x) in brackets; *topics changed* counts, per run, the topics whose "
        "value moves (or that the convention adds or drops); *largest* is the largest "
        "per-topic move over all runs; *order* ranks the runs by the mean, best first: given "
        "for the reference and, in bold, where a convention changes it (*same*: the "
        "reference's order); *tau / tau_AP* say how far the order is from the reference's "
        "(Kendall's tau-b, and tau_AP, which weighs swaps near the top more; 1 = the same "
        "order). n/a: the convention does not define the measure.\n"
    ]
    # The rows of each (measure, convention), in the audit's order: plain tuples, since
    # looking up 1,760 cells in DataFrames took a second.
    groups: dict[tuple[str, str], list] = {}
    for row in audit.itertuples(index=False):
        groups.setdefault((row.measure, row.convention), []).append(row)
    for label, measure in labels.items():
        header = ["convention", "what changes", *runs, "topics changed", "largest", "order"]
        header.append("tau / tau_AP")
        lines = [header, ["---", "---", *["---:"] * len(runs), "---", "---:", "---", "---:"]]
        for (of, convention), rows in groups.items():
            if of != measure:
                continue
            by_run = {row.run: row for row in rows}
            reference = convention == "reference"
            cells = [convention, rows[0].description]
            cells += [
                "n/a"
                if by_run[run].topics_changed < 0
                else _shifted(by_run[run].mean, by_run[run].difference, reference)
                for run in runs
            ]
            counts = ["n/a" if row.topics_changed < 0 else str(row.topics_changed) for row in rows]
            cells.append("–" if reference else " / ".join(counts))
            changes = [row.largest_topic_change for row in rows]
            largest = max((c for c in changes if not np.isnan(c)), default=np.nan)
            cells.append("–" if reference or np.isnan(largest) else f"{largest:.4f}")
            cells.append(_order_cell(rows[0], reference))
            cells.append(_taus(rows[0].tau, rows[0].tau_ap, reference))
            lines.append(cells)
        table = "".join("| " + " | ".join(map(str, c)) + " |\n" for c in lines)
        sections.append(f"## {label} (`{measure}`)\n\n{table}")
    return "\n".join(sections)


def _order_cell(row: Any, reference: bool) -> str:
    """The runs' order for the reference; in bold where it changes; else `same` (or n/a):
    with ten runs, repeating an unchanged order on every row hides the rows that differ."""
    if reference or row.run_order == "n/a":
        return row.run_order
    return f"**{row.run_order}**" if row.order_changes else "same"


def _taus(tau: float, tau_ap: float, reference: bool) -> str:
    """`0.87 / 0.79`, `–` for the reference row, n/a where undefined."""
    if reference:
        return "–"
    return " / ".join("n/a" if np.isnan(v) else f"{v:.2f}" for v in (tau, tau_ap))


def _shifted(mean: float, diff: float, reference: bool) -> str:
    """`0.2396`, `0.2384 (-0.0012)`, or `(=)` for a shift that rounds to zero."""
    if np.isnan(mean) or reference:
        return f"{mean:.4f}"
    return f"{mean:.4f} (=)" if abs(diff) < 5e-5 else f"{mean:.4f} ({diff:+.4f})"


def write(results: Results, labels: Mapping[str, str], paths: Mapping[str, str]) -> pd.DataFrame:
    """The convention audit of the runs as Markdown and CSV."""
    chosen = results.conventions
    table = _rows_of(list(results), list(labels.values()), chosen)
    audit = convention_audit(table, list(labels.values()), chosen)
    trec.write_lines_atomically(paths["md"], [markdown(audit, labels)])
    trec.write_lines_atomically(
        paths["csv"], [audit.to_csv(index=False, float_format=trec.float_text, lineterminator="\n")]
    )
    return audit


COMPARISON_COLUMNS = [
    "convention",
    "measure",
    "run_a",
    "run_b",
    "test",
    "n",
    "mean_a",
    "mean_b",
    "diff",
    "effect_size",
    "statistic",
    "p",
    "p_adjusted",
    "ci_low",
    "ci_high",
    "significant",
    "conclusion",
    "notes",
]


def paired_comparisons(
    table: pd.DataFrame,
    pairs: Sequence[tuple[str, str]],
    measures: Sequence[str],
    conventions: Sequence[Convention],
    tests: Sequence[str] = ("t",),
    B: int | None = None,
    seed: int = 0,
    alpha: float = 0.05,
    correction: str = "holm",
) -> pd.DataFrame:
    """Paired tests of run B against run A for every pair, measure, convention and test.

    Topics are those both runs answer under the convention (a NaN value drops
    its topic, noted). p-values are adjusted by a correction of `corrections.CORRECTIONS`
    over the p-values of one test under one convention: every pair and measure of
    it, each test and each convention on its own (`correction_scope` says it in words).
    """
    values = _by_key(table, measures, conventions)
    # Many conventions leave a pair's per-topic values as they are, and the tests depend
    # on nothing else (one seed for all): each distinct pair of arrays is tested once.
    tested: dict[tuple[bytes, bytes], list[stats.TestResult]] = {}
    rows = []
    for convention in conventions:
        for measure in measures:
            name = name_under(measure, convention)
            for run_a, run_b in pairs:
                a, b = _paired(
                    values.get((convention.name, name, run_a), _ABSENT),
                    values.get((convention.name, name, run_b), _ABSENT),
                )
                usable = ~np.isnan(a) & ~np.isnan(b)
                note = (
                    f"{int((~usable).sum())} topics with NaN left out" if not usable.all() else ""
                )
                a, b = a[usable], b[usable]
                key = (a.tobytes(), b.tobytes())
                if key not in tested:
                    tested[key] = stats.compare(a, b, tests, B=B, seed=seed, alpha=alpha)
                for result in tested[key]:
                    rows.append((convention.name, measure, run_a, run_b, result, note))
    frame = pd.DataFrame(
        [
            {
                "convention": c,
                "measure": m,
                "run_a": a,
                "run_b": b,
                **{k: getattr(r, k) for k in COMPARISON_COLUMNS if hasattr(r, k)},
                "notes": "; ".join(x for x in (r.notes, note) if x),
            }
            for c, m, a, b, r, note in rows
        ]
    )
    if frame.empty:
        return pd.DataFrame(columns=COMPARISON_COLUMNS)
    frame["p_adjusted"] = frame.groupby(["convention", "test"], sort=False)["p"].transform(
        lambda p: corrections.adjust(p.to_numpy(), correction)
    )
    return concluded(frame, alpha)


def concluded(frame: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """The comparison table of rows with adjusted p-values: each pair significant or not at
    `alpha`, and what that concludes (`b > a`, `a > b (n.s.)`, `a = b`, `n/a`)."""
    frame["significant"] = frame["p_adjusted"] < alpha
    frame["conclusion"] = [
        _conclusion(a, b, diff, significant)
        for a, b, diff, significant in zip(
            frame["run_a"], frame["run_b"], frame["diff"], frame["significant"], strict=True
        )
    ]
    return frame[COMPARISON_COLUMNS]


def correction_scope(correction: str, comparisons: pd.DataFrame) -> str:
    """Which p-values of `paired_comparisons`' table one correction spans, in words: those
    of one test under one convention, every pair and measure of it ("Holm over each test's
    4 p-values, one per measure")."""
    if correction == "none":
        return "none, each p-value as its test gives it"
    pairs = len(comparisons[["run_a", "run_b"]].drop_duplicates())
    measures = comparisons["measure"].nunique()
    tests = list(dict.fromkeys(comparisons["test"]))
    n = pairs * measures
    whose = "each test's" if len(tests) > 1 else f"the {stats.TEST_NAMES.get(tests[0], tests[0])}'s"
    if pairs > 1:
        count = f"{pairs} pairs of runs x {measures} measure{'s' * (measures != 1)}"
    else:
        count = "one per measure"
    scope = f"{corrections.CORRECTION_NAMES[correction]} over {whose} {n} p-value{'s' * (n != 1)}"
    scope += f", {count}"
    if comparisons["convention"].nunique() > 1:
        scope += ", under each convention on its own"
    return scope


def _conclusion(run_a: str, run_b: str, diff: float, significant: bool) -> str:
    """`b > a`, `a > b`, or the same with `(n.s.)`; `a = b` when the means are equal; `n/a`
    when the difference is undefined (the convention does not define the measure)."""
    if np.isnan(diff):
        return "n/a"
    if not diff:
        return f"{run_a} = {run_b}"
    better, worse = (run_b, run_a) if diff > 0 else (run_a, run_b)
    return f"{better} > {worse}" + ("" if significant else " (n.s.)")


def conclusion_flips(comparisons: pd.DataFrame) -> pd.DataFrame:
    """The rows whose conclusion (sign or significance) differs from the reference's; a
    measure the convention (or the reference) does not define (`n/a`) flips nothing."""
    keys = ["measure", "run_a", "run_b", "test"]
    reference = comparisons[comparisons["convention"] == "reference"]
    merged = comparisons[comparisons["convention"] != "reference"].merge(
        reference[[*keys, "conclusion", "p_adjusted"]], on=keys, suffixes=("", "_reference")
    )
    defined = (merged["conclusion"] != "n/a") & (merged["conclusion_reference"] != "n/a")
    flipped = merged[defined & (merged["conclusion"] != merged["conclusion_reference"])]
    return flipped[
        [
            "convention",
            *keys,
            "conclusion_reference",
            "p_adjusted_reference",
            "conclusion",
            "p_adjusted",
        ]
    ].reset_index(drop=True)


def flips_markdown(flips: pd.DataFrame, alpha: float, scope: str) -> str:
    """The conclusions that a convention changes, as one Markdown table; `scope` says which
    p-values the correction spanned (`correction_scope`)."""
    head = (
        "# Conclusions that depend on the convention\n\n"
        f"Paired tests of run B against run A per topic; p adjusted: {scope}; significant at "
        f"{alpha}. Each row is a case where the conclusion (which run is better, and whether "
        "significantly) differs from the reference convention's.\n\n"
    )
    if flips.empty:
        return head + "No conclusion changes under any configured convention.\n"
    lines = [
        "| convention | measure | A | B | test | reference | p (ref.) | under the convention | p |",
        "| --- | --- | --- | --- | --- | --- | ---: | --- | ---: |",
    ]
    for row in flips.itertuples(index=False):
        lines.append(
            f"| {row.convention} | {row.measure} | {row.run_a} | {row.run_b} | {row.test} | "
            f"{row.conclusion_reference} | {row.p_adjusted_reference:.3g} | {row.conclusion} | "
            f"{row.p_adjusted:.3g} |"
        )
    return head + "\n".join(lines) + "\n"


def write_comparisons(
    results: Results, settings: Mapping, paths: Mapping[str, str]
) -> pd.DataFrame:
    """The paired tests (`compare:` in config) and the conclusions that flip."""
    chosen = results.conventions
    table = _rows_of(list(results), settings["measures"], chosen)
    comparisons = paired_comparisons(
        table,
        [tuple(pair) for pair in settings["pairs"]],
        settings["measures"],
        chosen,
        tests=settings["tests"],
        B=settings["B"],
        seed=settings["seed"],
        alpha=settings["alpha"],
        correction=settings["correction"],
    )
    flips = conclusion_flips(comparisons)
    write_csv = {
        "index": False,
        "float_format": trec.float_text,
        "lineterminator": "\n",
        "sep": "\t",
    }
    trec.write_lines_atomically(paths["tests"], [comparisons.to_csv(**write_csv)])
    trec.write_lines_atomically(paths["flips"], [flips.to_csv(**write_csv)])
    text = flips_markdown(
        flips, settings["alpha"], correction_scope(settings["correction"], comparisons)
    )
    trec.write_lines_atomically(paths["md"], [text])
    return comparisons
