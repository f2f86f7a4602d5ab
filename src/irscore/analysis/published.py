"""Published figures beside the regenerated ones, and the lab's own evaluation call beside ours.

`workflow/published.yaml` lists figures that texts printed for Cranfield: the
run and convention that regenerate each, the value as printed and whether it
was rounded or truncated. `compare` puts each beside the workflow's value and
says whether the two are equal at the printed precision. A difference is a
finding to report, not an error: nothing here fails on one.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, Decimal
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from irscore.pipeline.crosscheck import TOLERANCE

# How a text printed a figure; `unstated` is compared rounded (what printf and format do).
PRINTED_AS = ("rounded", "truncated", "unstated", "exact")
EQUAL, DIFFERS, MISSING = "equal", "differs", "missing"
COMPARISON_COLUMNS = [
    "experiment",
    "source",
    "run",
    "figure",
    "measure",
    "convention",
    "versus",
    "published",
    "printed_as",
    "regenerated",
    "regenerated_printed",
    "difference",
    "verdict",
    "note",
]
IR_MEASURES_COLUMNS = [
    "experiment",
    "run",
    "ir_measures",
    "measure",
    "ir_measures_value",
    "irscore_value",
    "difference",
    "agrees",
]
_FIGURE_KEYS = {"experiment", "run", "label", "measure", "convention", "printed", "printed_as"}
_OPTIONAL_KEYS = {"versus", "note"}


@dataclass(frozen=True)
class Figure:
    """One published number: `measure` of `run` under `convention` (the mean over topics),
    or, with `versus`, the number of topics whose value differs between the two conventions.
    `note` names an entry of the notes: what is known about a difference."""

    experiment: str
    run: str
    label: str
    measure: str
    convention: str
    printed: str
    printed_as: str
    versus: str | None = None
    note: str = ""

    @property
    def key(self) -> str:
        """A stable name: run, measure, convention (and `versus`)."""
        versus = f" != {self.versus}" if self.versus else ""
        return f"{self.run} {self.measure}@{self.convention}{versus}"

    @property
    def decimals(self) -> int:
        """Digits printed after the decimal point."""
        return len(self.printed.partition(".")[2])


@dataclass(frozen=True)
class Published:
    """The figures, each experiment's source named in words, the notes, and per experiment
    the measures of its own evaluation tool (ir_measures name -> irscore measure)."""

    sources: dict[str, str]
    notes: dict[str, str]
    ir_measures: dict[str, dict[str, str]]
    figures: tuple[Figure, ...]

    def runs(self) -> list[str]:
        """The runs the figures need, in order of first mention."""
        return list(dict.fromkeys(f.run for f in self.figures))

    def ir_measures_runs(self) -> dict[str, str]:
        """Run -> experiment, for the runs of experiments evaluated with ir_measures."""
        return {f.run: f.experiment for f in self.figures if f.experiment in self.ir_measures}


def load_published(path: str | os.PathLike) -> Published:
    """Read and check the published figures; a problem is an error naming the figure and key."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    _keys(path, data, required={"experiments", "figures"}, optional={"notes"})
    experiments = data["experiments"]
    for name, entry in experiments.items():
        _keys(f"{path}: experiments.{name}", entry, {"source"}, {"ir_measures"})
    notes = {str(k): " ".join(str(v).split()) for k, v in (data.get("notes") or {}).items()}
    figures = []
    for number, entry in enumerate(data["figures"], start=1):
        where = f"{path}: figure {number}"
        _keys(where, entry, _FIGURE_KEYS, _OPTIONAL_KEYS)
        if entry["experiment"] not in experiments:
            raise ValueError(f"{where}: unknown experiment {entry['experiment']!r}")
        if entry["printed_as"] not in PRINTED_AS:
            raise ValueError(
                f"{where}: printed_as must be one of {', '.join(PRINTED_AS)}, "
                f"got {entry['printed_as']!r}"
            )
        if not isinstance(entry["printed"], str) or not _is_number(entry["printed"]):
            raise ValueError(f"{where}: printed must be the number as printed, in quotes")
        if "note" in entry and entry["note"] not in notes:
            raise ValueError(f"{where}: unknown note {entry['note']!r}")
        figures.append(Figure(**{key: str(value) for key, value in entry.items()}))
    keys = [f.key for f in figures]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    if repeated:
        raise ValueError(f"{path}: figure {repeated[0]!r} listed twice")
    return Published(
        sources={name: str(entry["source"]) for name, entry in experiments.items()},
        notes=notes,
        ir_measures={
            name: {str(k): str(v) for k, v in entry["ir_measures"].items()}
            for name, entry in experiments.items()
            if entry.get("ir_measures")
        },
        figures=tuple(figures),
    )


def regenerate(figure: Figure, table: pd.DataFrame | None) -> float:
    """The figure's value in a run's long table; NaN when the table lacks it."""
    if table is None:
        return math.nan
    rows = table[table["measure"] == figure.measure]
    if figure.versus is None:
        value = rows[(rows["convention"] == figure.convention) & (rows["topic"] == "all")]
        return float(value["value"].iloc[0]) if len(value) else math.nan
    per_topic = rows[rows["topic"] != "all"]
    first = per_topic[per_topic["convention"] == figure.convention].set_index("topic")["value"]
    second = per_topic[per_topic["convention"] == figure.versus].set_index("topic")["value"]
    if first.empty or second.empty:
        return math.nan
    both = pd.concat([first, second], axis=1, join="inner")
    return float((both.iloc[:, 0] != both.iloc[:, 1]).sum())


def printed_like(value: float, figure: Figure) -> str:
    """`value` printed the way the figure was: same decimals, rounded or truncated."""
    if math.isnan(value):
        return ""
    if figure.printed_as == "exact":
        return str(int(value)) if value.is_integer() else repr(value)
    mode = ROUND_DOWN if figure.printed_as == "truncated" else ROUND_HALF_EVEN
    return str(Decimal(value).quantize(Decimal(1).scaleb(-figure.decimals), rounding=mode))


def compare(published: Published, run_tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per figure (COMPARISON_COLUMNS): published, regenerated (NaN if the run is
    not evaluated), regenerated printed alike, difference (regenerated - published) and
    the verdict: equal at the printed precision, differs, or missing."""
    # Each run's table cut to the measures its figures name, once, not once per figure.
    measures: dict[str, set[str]] = {}
    for figure in published.figures:
        measures.setdefault(figure.run, set()).add(figure.measure)
    named = {
        run: table[table["measure"].isin(measures[run])]
        for run, table in run_tables.items()
        if run in measures
    }
    rows = []
    for figure in published.figures:
        value = regenerate(figure, named.get(figure.run))
        alike = printed_like(value, figure)
        if math.isnan(value):
            verdict = MISSING
        else:
            verdict = EQUAL if Decimal(alike) == Decimal(figure.printed) else DIFFERS
        rows.append(
            {
                "experiment": figure.experiment,
                "source": published.sources[figure.experiment],
                "run": figure.run,
                "figure": figure.label,
                "measure": figure.measure,
                "convention": figure.convention,
                "versus": figure.versus or "",
                "published": figure.printed,
                "printed_as": figure.printed_as,
                "regenerated": value,
                "regenerated_printed": alike,
                "difference": value - float(figure.printed),
                "verdict": verdict,
                "note": published.notes.get(figure.note, ""),
            }
        )
    return pd.DataFrame(rows, columns=COMPARISON_COLUMNS)


def ir_measures_check(
    published: Published,
    qrels: str | os.PathLike,
    runs: Mapping[str, str | os.PathLike],
    run_tables: Mapping[str, pd.DataFrame],
) -> pd.DataFrame:
    """Each experiment's own tool call, `ir_measures.calc_aggregate` on the run file, beside
    irscore's value of the same measure under the reference convention (IR_MEASURES_COLUMNS)."""
    import ir_measures  # here: only this check needs it

    rows = []
    for run, experiment in published.ir_measures_runs().items():
        if run not in runs:
            continue
        names = published.ir_measures[experiment]
        measures = {name: ir_measures.parse_measure(name) for name in names}
        values = ir_measures.calc_aggregate(
            list(measures.values()),
            ir_measures.read_trec_qrels(str(qrels)),
            ir_measures.read_trec_run(str(runs[run])),
        )
        ours = run_tables[run]
        ours = ours[(ours["convention"] == "reference") & (ours["topic"] == "all")]
        ours = ours.set_index("measure")["value"]
        for name, measure in measures.items():
            theirs, mine = float(values[measure]), float(ours[names[name]])
            rows.append(
                {
                    "experiment": experiment,
                    "run": run,
                    "ir_measures": name,
                    "measure": names[name],
                    "ir_measures_value": theirs,
                    "irscore_value": mine,
                    "difference": mine - theirs,
                    "agrees": abs(mine - theirs) <= TOLERANCE,
                }
            )
    return pd.DataFrame(rows, columns=IR_MEASURES_COLUMNS)


def _keys(where: Any, entry: Any, required: set[str], optional: set[str]) -> None:
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: expected a mapping, got {entry!r}")
    missing = sorted(required - set(entry))
    unknown = sorted(set(entry) - required - optional)
    if missing:
        raise ValueError(f"{where}: missing key {missing[0]!r}")
    if unknown:
        raise ValueError(f"{where}: unknown key {unknown[0]!r}")


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False
