"""`Results`: one view of the long tables of some runs, for everything that reports them.

A long table has one row per (run, convention, topic, measure); the topic `all`
holds the mean. Every table, figure and summary asks the same few questions of
it (a run's means under a convention, its per-topic values of a measure, which
conventions isolate one decision), so they are answered here once, with the
conventions of the config parsed once, instead of by filters in each writer.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from irscore.engine.ranking.conventions import (
    Convention,
    conventions_from_config,
    single_change_conventions,
)

MEAN = "all"  # the topic label of a mean row
REFERENCE = "reference"


def run_name(table: pd.DataFrame) -> str:
    """The run a long table holds (its first row's `run`)."""
    return str(table["run"].iloc[0])


class Results:
    """The long tables of runs in a given order, with the configured conventions."""

    def __init__(
        self,
        tables: Sequence[pd.DataFrame],
        conventions: Mapping[str, Mapping[str, Any] | None] | None = None,
    ) -> None:
        self.config = conventions or {REFERENCE: {}}
        self._tables = {run_name(table): table for table in tables}
        if len(self._tables) != len(tables):
            runs = [run_name(table) for table in tables]
            twice = sorted({run for run in runs if runs.count(run) > 1})
            raise ValueError(f"run {twice[0]!r} is given twice")
        self._means: dict[str, pd.Series] = {}

    @classmethod
    def read(
        cls,
        paths: Sequence[str],
        conventions: Mapping[str, Mapping[str, Any] | None] | None = None,
        means_only: bool = False,
    ) -> Results:
        """The long tables written at `paths` (see long_table.read_long_table)."""
        from irscore.engine.output.long_table import read_long_table

        return cls([read_long_table(p, means_only=means_only) for p in paths], conventions)

    @property
    def runs(self) -> list[str]:
        """The runs, in the order given."""
        return list(self._tables)

    def __iter__(self) -> Iterator[pd.DataFrame]:
        return iter(self._tables.values())

    def __len__(self) -> int:
        return len(self._tables)

    def table(self, run: str) -> pd.DataFrame:
        """One run's long table."""
        return self._tables[run]

    def subset(self, runs: Sequence[str]) -> Results:
        """The same view over `runs` only, in that order."""
        return Results([self._tables[run] for run in runs], self.config)

    def plus(self, other: Results) -> Results:
        """This view's runs followed by `other`'s (e.g. the ideal run)."""
        return Results([*self, *other], self.config)

    @cached_property
    def conventions(self) -> list[Convention]:
        """The configured conventions, parsed, in config order."""
        return conventions_from_config(self.config)

    def single_change(self, field: str) -> dict[Any, str]:
        """{value of `field`: the convention that changes it alone} (layout's rule)."""
        return single_change_conventions(self.config, field)

    @property
    def interpolations(self) -> dict[str, str]:
        """{interpolation rule: convention name} for the rules some convention isolates."""
        return self.single_change("interpolation")

    def means_of(self, run: str) -> pd.Series:
        """One run's means, indexed by (convention, measure); computed once per run."""
        if run not in self._means:
            table = self._tables[run]
            rows = table[table["topic"] == MEAN]
            self._means[run] = rows.set_index(["convention", "measure"])["value"]
        return self._means[run]

    def mean(self, run: str, measure: str, convention: str = REFERENCE) -> float:
        """One mean; NaN when the run has no such row."""
        means = self.means_of(run)
        key = (convention, measure)
        return float(means[key]) if key in means.index else np.nan

    def means(self, measures: Sequence[str], convention: str = REFERENCE) -> pd.DataFrame:
        """One row per run, one column per measure: the means under `convention`.

        Fails naming the run and the measures when a run lacks one.
        """
        rows = []
        for run in self.runs:
            values = self.means_of(run)
            values = values[values.index.get_level_values(0) == convention].droplevel(0)
            missing = [m for m in measures if m not in values.index]
            if missing:
                raise KeyError(f"run {run}: no {', '.join(missing)} under convention {convention}")
            rows.append([values[m] for m in measures])
        frame = pd.DataFrame(rows, columns=list(measures), index=pd.Index(self.runs, name="run"))
        return frame

    def per_topic(self, run: str, measure: str, convention: str = REFERENCE) -> pd.Series:
        """One run's per-topic values of `measure` under `convention`, indexed by topic."""
        return per_topic(self._tables[run], measure, convention)

    def topic(self, run: str, topic: str, convention: str = REFERENCE) -> pd.Series:
        """One run's values of every measure for one topic under `convention`."""
        table = self._tables[run]
        rows = table[(table["convention"] == convention) & (table["topic"] == topic)]
        return rows.set_index("measure")["value"]


def per_topic(table: pd.DataFrame, measure: str, convention: str = REFERENCE) -> pd.Series:
    """A long table's per-topic values of `measure` under `convention`, indexed by topic."""
    rows = table[
        (table["convention"] == convention)
        & (table["measure"] == measure)
        & (table["topic"] != MEAN)
    ]
    run = run_name(table) if len(table) else None
    return rows.set_index("topic")["value"].rename(run)
