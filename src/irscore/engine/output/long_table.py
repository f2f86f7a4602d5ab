"""The long table: one row per (run, convention, topic, measure) with its value, the
topic `all` holding the mean; built from per-topic values, stacked, written as TSV and
read back exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.csv as pa_csv

from irscore.engine import measures
from irscore.engine.ranking.conventions import Convention
from irscore.engine.reading import trec
from irscore.engine.reading.errors import InputError
from irscore.engine.system import arrow_compute as ac

if TYPE_CHECKING:  # pandas loads where a table is made: `irscore evaluate` needs none
    import pandas as pd


LONG_COLUMNS = ["run", "convention", "topic", "measure", "value"]


def concat_long(tables: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Stack long tables, keeping the label columns categorical (one union of labels each)."""
    import pandas as pd
    from pandas.api.types import union_categoricals

    # A convention without a form for any requested measure has no rows: its empty
    # columns' labels have no type to unite with the others'.
    tables = [t for t in tables if len(t)] or tables[:1]
    if not tables:
        return pd.DataFrame(columns=LONG_COLUMNS)
    columns = {
        name: union_categoricals([pd.Categorical(t[name]) for t in tables], sort_categories=False)
        for name in LONG_COLUMNS[:-1]
    }
    columns["value"] = np.concatenate([t["value"].to_numpy() for t in tables])
    return pd.DataFrame(columns)


def long_table(
    run_name: str,
    c: Convention,
    values: dict[str, np.ndarray],
    topics: np.ndarray,
    means: dict[str, float],
) -> pd.DataFrame:
    """Lay per-topic values and means out as rows of the long table."""
    import pandas as pd

    per_topic = [m for m in values if measures.registry.has_topic_rows(m)]
    n_topics, n_measures = len(topics), len(per_topic)
    matrix = (
        np.column_stack([values[m] for m in per_topic]) if n_measures else np.zeros((n_topics, 0))
    )
    names = list(values)
    if "all" in set(topics):
        raise InputError(f"run {run_name}: a topic named 'all' clashes with the summary rows")
    topic_labels = np.concatenate((topics.astype(object), ["all"]))
    measure_labels = list(dict.fromkeys([*per_topic, *names]))
    topic_codes = np.concatenate(
        (np.repeat(np.arange(n_topics), n_measures), np.full(len(names), n_topics))
    )
    measure_index = {m: i for i, m in enumerate(measure_labels)}
    measure_codes = np.concatenate(
        (
            np.tile([measure_index[m] for m in per_topic], n_topics).astype(np.int64),
            np.array([measure_index[m] for m in names], dtype=np.int64),
        )
    )
    rows = len(topic_codes)
    return pd.DataFrame(
        {
            "run": pd.Categorical.from_codes(np.zeros(rows, np.int64), [run_name]),
            "convention": pd.Categorical.from_codes(np.zeros(rows, np.int64), [c.name]),
            "topic": pd.Categorical.from_codes(topic_codes, topic_labels),
            "measure": pd.Categorical.from_codes(measure_codes, measure_labels),
            "value": np.concatenate((matrix.reshape(-1), [means[m] for m in names])),
        }
    )


def run_tag(run: pd.DataFrame) -> str:
    import pandas as pd

    tags = pd.unique(run["tag"]) if len(run) else np.array(["run"])
    return str(tags[0])


def write_long_table(path: str, table: pd.DataFrame) -> None:
    """Write the long table as TSV, whole or not at all; values as the shortest text
    that reads back to the same double (Arrow's: `1`, `0.25`, `1e-05`, `nan`)."""
    columns = {
        name: ac.cast(pa.Array.from_pandas(table[name]), pa.string()) for name in LONG_COLUMNS[:-1]
    }
    columns["value"] = pa.array(table["value"].to_numpy(dtype=np.float64))
    options = pa_csv.WriteOptions(include_header=False, delimiter="\t", quoting_style="none")
    with trec.atomic_output(path) as tmp, open(tmp, "wb") as out:
        out.write(("\t".join(LONG_COLUMNS) + "\n").encode())
        pa_csv.write_csv(pa.table(columns), out, write_options=options)


def read_long_table(path: str, means_only: bool = False) -> pd.DataFrame:
    """Read a long table written by `write_long_table`; topics and names stay strings.
    `means_only` keeps the `all` rows, dropped before pandas sees the others.

    Arrow's multi-threaded reader: the workflow's report jobs read every run's table.
    """
    types = {name: pa.string() for name in LONG_COLUMNS[:-1]} | {"value": pa.float64()}
    table = pa_csv.read_csv(
        path,
        parse_options=pa_csv.ParseOptions(delimiter="\t", quote_char=False),
        convert_options=pa_csv.ConvertOptions(
            column_types=types,
            include_columns=LONG_COLUMNS,
            null_values=["nan"],
            strings_can_be_null=False,
        ),
    )
    if means_only:
        table = table.filter(ac.equal(table["topic"], "all"))
    return table.to_pandas()


def as_text(results: list, convention: Convention, per_topic: bool, form: str) -> str:
    """The long tables of `results` ((run name, values, topics, means) each) as one TSV
    (`form` "tsv") or JSON text, `irscore evaluate --format`'s; the `all` rows only
    without `per_topic`."""
    import json

    import pandas as pd

    tables = [long_table(name, convention, *result) for name, *result in results]
    combined = pd.concat(tables, ignore_index=True)
    if not per_topic:
        combined = combined[combined["topic"] == "all"]
    if form == "tsv":
        return combined.to_csv(
            sep="\t", index=False, float_format=trec.float_text, lineterminator="\n"
        )
    return json.dumps(combined.to_dict(orient="records"), indent=1) + "\n"
