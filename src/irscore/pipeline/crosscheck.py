"""The same measures from pytrec_eval (trec_eval 9.0.x inside), compared per topic.

pytrec_eval is the independent witness that irscore's reference convention is
trec_eval's: every measure both compute must agree to within `TOLERANCE`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd
import pytrec_eval

from irscore.engine.evaluate import evaluate
from irscore.engine.measures import MIN_GEO_MEAN, MeasureSpec, spec_from_config
from irscore.engine.measures.groups import changed, config_groups, narrowed, rename_table
from irscore.engine.measures.registry import FAMILIES, PARAMETRISED, PYTREC_EVAL_FAMILIES, family_of
from irscore.engine.output.long_table import concat_long, write_long_table
from irscore.engine.ranking.conventions import Convention, conventions_from_config
from irscore.engine.reading import trec

TOLERANCE = 1e-9
COLUMNS = ["topic", "measure", "irscore", "pytrec_eval", "difference", "agrees"]
# Every family pytrec_eval computes is cross-checked; those whose parameters are numbers
# (utility, set_F, 11pt_avg) or level=gain maps (ndcg, G, ...) only with trec_eval's
# defaults (pytrec_eval names the first plainly whatever the parameters, mis-parses
# utility's and aborts on a gain map).
COMPARABLE = PYTREC_EVAL_FAMILIES
_LISTED = {name for name, p in PARAMETRISED.items() if p.kind in ("cutoffs", "multiples", "levels")}
_CUT_FAMILIES = tuple(name for name in FAMILIES if name in COMPARABLE & _LISTED)
_PLAIN = tuple(sorted(COMPARABLE - set(_CUT_FAMILIES)))
_GEOMETRIC = tuple(name for name in COMPARABLE if FAMILIES[name].aggregate == "geometric")


def _comparable(spec: MeasureSpec) -> frozenset[str]:
    """The families of `spec` both tools compute under the same names."""
    numbers = {name for name, p in PARAMETRISED.items() if p.kind in ("numbers", "gains")}
    with_params = {name for name in numbers if spec.param(name) is not None}
    return spec.families & (COMPARABLE - with_params)


class CrossCheckError(AssertionError):
    """irscore and pytrec_eval disagree on at least one (topic, measure)."""


def as_dicts(qrels: pd.DataFrame, run: pd.DataFrame) -> tuple[dict, dict]:
    """qrels and run as pytrec_eval's nested dicts {topic: {docno: grade or score}}."""
    return _nested(qrels, "grade", np.int64), _nested(run, "score", np.float64)


def _nested(table: pd.DataFrame, column: str, kind: type) -> dict[str, dict[str, Any]]:
    """{topic: {docno: value}} (a repeated docno keeps its last value), built topic by
    topic in C: a Python loop over the cells took a third of a second per run."""
    docnos = np.array(table["docno"].astype(str).tolist(), dtype=object)
    values = np.asarray(table[column].to_numpy(), dtype=kind)
    return {
        str(topic): dict(zip(docnos[rows].tolist(), values[rows].tolist(), strict=True))
        for topic, rows in table.groupby("topic", sort=False).indices.items()
    }


def pytrec_measures(spec: MeasureSpec) -> set[str]:
    """pytrec_eval's measure requests for the families of `spec` that it has."""
    requests = {name for name in _PLAIN if name in spec.families}
    for family in _CUT_FAMILIES:
        cutoffs = spec.param(family)
        if family in spec.families and cutoffs:
            requests.add(f"{family}.{','.join(repr(k) for k in cutoffs)}")
    return requests


def pytrec_table(
    qrels: pd.DataFrame, run: pd.DataFrame, spec: MeasureSpec, convention: Convention
) -> pd.DataFrame:
    """pytrec_eval's per-topic values (topic, measure, value) under -l and -J of `convention`."""
    qrels_dict, run_dict = as_dicts(qrels, run)
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels_dict,
        pytrec_measures(spec),
        relevance_level=convention.rel_level,
        judged_docs_only_flag=convention.judged_only,
    )
    results = evaluator.evaluate(run_dict)
    rows = [
        (topic, measure, value)
        for topic, values in results.items()
        for measure, value in values.items()
    ]
    return pd.DataFrame(rows, columns=["topic", "measure", "value"])


# pytrec_eval's per-topic geometric means are log(max(base, 0.00001)) of these measures
GEOMETRIC_BASE = {"gm_map": "map", "gm_bpref": "bpref"}


def compare(
    qrels: pd.DataFrame,
    run: pd.DataFrame,
    spec: MeasureSpec | None = None,
    convention: Convention | None = None,
) -> pd.DataFrame:
    """Every (topic, measure) of both tools side by side, plus the `all` means.

    pytrec_eval reports gm_map per topic as log(max(AP, 0.00001)); irscore's
    per-topic AP is put on the same scale for the comparison (and likewise
    gm_bpref's per-topic bpref). A topic whose
    judgments are all negative crashes trec_eval 9 (and pytrec_eval with it),
    so such topics are left out of both sides and listed in `attrs["skipped"]`.
    """
    spec = spec or MeasureSpec()
    families = _comparable(spec)
    # per topic, the geometric means are compared through their arithmetic bases
    families |= {base for mean, base in GEOMETRIC_BASE.items() if mean in families}
    spec = spec.with_families(families)
    convention = convention or Convention()
    comparable = qrels.groupby("topic", sort=False)["grade"].transform("max") >= 0
    skipped = sorted(set(qrels.loc[~comparable, "topic"]))
    qrels = qrels[comparable]
    ours = evaluate(qrels, run, [convention], spec)
    theirs = pytrec_table(qrels, run, spec, convention)
    labels = ["topic", "measure"]
    rows = ours[ours["topic"] != "all"].astype(dict.fromkeys(labels, str))
    per_topic = rows.set_index(labels)["value"]
    theirs_index = theirs.set_index(labels)["value"]
    measure = theirs["measure"].to_numpy(dtype=str)
    geometric = np.isin(measure, list(GEOMETRIC_BASE))
    base = [GEOMETRIC_BASE.get(m, m) for m in measure]
    wanted = pd.MultiIndex.from_arrays([theirs["topic"].to_numpy(dtype=str), base])
    ours_values = np.array(per_topic.reindex(wanted), dtype=np.float64)
    ours_values[geometric] = np.log(np.maximum(ours_values[geometric], MIN_GEO_MEAN))
    table = pd.DataFrame(
        {
            "topic": theirs["topic"],
            "measure": theirs["measure"],
            "irscore": ours_values,
            "pytrec_eval": theirs["value"].to_numpy(dtype=np.float64),
        }
    )
    missing_there = per_topic.index.difference(theirs_index.index)
    extra = pd.DataFrame(
        {
            "topic": missing_there.get_level_values(0),
            "measure": missing_there.get_level_values(1),
            "irscore": per_topic.loc[missing_there].to_numpy(),
            "pytrec_eval": np.nan,
        }
    )
    table = pd.concat([table, _means(ours, theirs), extra], ignore_index=True)
    table["difference"] = (table["irscore"] - table["pytrec_eval"]).abs()
    both_nan = table["irscore"].isna() & table["pytrec_eval"].isna()
    table["agrees"] = (table["difference"] <= TOLERANCE) | both_nan
    table = table.sort_values(["topic", "measure"], kind="stable", ignore_index=True)[COLUMNS]
    table.attrs["skipped"] = skipped
    return table


def _means(ours: pd.DataFrame, theirs: pd.DataFrame) -> pd.DataFrame:
    """The `all` rows: irscore's aggregate against the same aggregate of pytrec_eval's values."""
    mine = ours[ours["topic"] == "all"].set_index("measure")["value"]
    rows = []
    for measure, values in theirs.groupby("measure", sort=True)["value"]:
        array = values.to_numpy(dtype=np.float64)
        if measure in _GEOMETRIC:
            theirs_all = float(np.exp(np.mean(array)))
        elif family_of(measure).aggregate == "count":
            theirs_all = float(len(array))
        elif family_of(measure).aggregate in ("sum", "relevant"):
            theirs_all = float(np.sum(array))
        else:
            theirs_all = float(np.sum(array) / len(array))
        rows.append(("all", measure, float(mine.get(measure, np.nan)), theirs_all))
    return pd.DataFrame(rows, columns=["topic", "measure", "irscore", "pytrec_eval"])


def disagreements(table: pd.DataFrame) -> pd.DataFrame:
    """The rows where the two tools differ by more than the tolerance (or one is missing)."""
    return table[~table["agrees"]]


def check(table: pd.DataFrame, source: str, limit: int = 10) -> None:
    """Raise CrossCheckError listing the first disagreements, if any."""
    bad = disagreements(table)
    if len(bad):
        shown = "\n".join(_describe(bad.head(limit).itertuples(index=False)))
        raise CrossCheckError(
            f"{source}: irscore and pytrec_eval disagree on {len(bad)} of {len(table)} "
            f"values (tolerance {TOLERANCE}); first ones:\n{shown}"
        )


def _describe(rows: Iterable) -> Iterable[str]:
    for row in rows:
        yield (
            f"  topic {row.topic} {row.measure}: "
            f"irscore {row.irscore!r}, pytrec_eval {row.pytrec_eval!r}"
        )


def write_crosscheck(
    qrels: pd.DataFrame, run: pd.DataFrame, output: str, spec: MeasureSpec, source: str
) -> None:
    """Compare irscore's reference values with pytrec_eval's for one run (read from
    `source`): raise CrossCheckError if any pair differs, else write every (topic,
    measure) with both values."""
    table = compare(qrels, run, spec)
    check(table, source)
    trec.write_lines_atomically(
        output,
        [table.to_csv(sep="\t", index=False, float_format=trec.float_text, lineterminator="\n")],
    )


def evaluate_and_crosscheck_files(
    qrels_path: str,
    run_path: str,
    eval_output: str,
    check_output: str,
    run_name: str,
    conventions: dict,
    measures_config: dict,
) -> None:
    """The workflow's one job per run: read the files once, write the long table under
    every convention (with the config's ir_measures and ranx `names`, each under its
    peer's convention within each), then cross-check the reference convention with
    pytrec_eval."""
    qrels, run = trec.read_qrels(qrels_path), trec.read_run(run_path)
    spec = spec_from_config(measures_config)
    grid = conventions_from_config(conventions)
    tables = [evaluate(qrels, run, grid, spec, run_name)]
    for g in config_groups(measures_config):
        scored = evaluate(qrels, run, [changed(c, g.changes) for c in grid], g.spec, run_name)
        if g.renames is None:  # trec_eval's names: those the families do not score already
            scored = narrowed(scored, g.narrowed)
            scored = scored[~scored["measure"].isin(set(tables[0]["measure"]))]
        tables.append(rename_table(scored.reset_index(drop=True), g.renames))
    table = concat_long(tables) if len(tables) > 1 else tables[0]
    write_long_table(eval_output, table)
    write_crosscheck(qrels, run, check_output, spec, run_path)
