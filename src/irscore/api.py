"""The Python API: `irscore.evaluate`, `irscore.compare`, `irscore.audit`.

The same code as the command line and the workflow, called on qrels and runs
given as paths, DataFrames, pytrec_eval-style dicts or (qrels) `irds:ID`.
Every input problem raises `irscore.InputError` with the message the command
line prints, and what it warns about on stderr is a Python warning here
(`irscore.engine.input_checks`).
This module imports nothing heavy at import time, so `import irscore` stays
cheap; numpy, pandas and the evaluation load on the first call.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import tempfile
import warnings
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from irscore.engine.conventions import DEFAULT_GRID, Convention, ConventionError

if TYPE_CHECKING:
    import pandas as pd

    from irscore.engine.inputs import QrelsInput, RunInput
    from irscore.engine.measures import MeasureSpec
    from irscore.engine.trec import Records
    from irscore.report.own_runs import AuditResult

    ConventionInput = str | Convention | Mapping[str, Any]


def evaluate(
    qrels: QrelsInput,
    runs: RunInput | Mapping[str, RunInput],
    measures: str | Sequence[str] | None = None,
    convention: ConventionInput | Sequence[ConventionInput] = "reference",
    per_topic: bool = True,
) -> pd.DataFrame:
    """Score runs like trec_eval, under one convention or a grid of them: the long table.

    `qrels` is a path, a DataFrame, a dict `{qid: {docno: grade}}` or `irds:ID`;
    `runs` is one run (path, DataFrame, dict `{qid: {docno: score}}`) or a
    mapping name -> run. `measures` are trec_eval names (`"map"`, `"P_10"`,
    `"ndcg_cut.5,10"`, `"official"`; default: trec_eval's default set).
    `convention` is a name from the spec (`"tie_expected"`, `"judged_only"`,
    ...), a `Convention`, a mapping of changed fields, or a list of these,
    scored on one parse of each run. Returns the columns run, convention,
    topic, measure, value; topic `all` holds the mean (only those rows when
    `per_topic` is false).

    >>> import irscore
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}}
    >>> table = irscore.evaluate(qrels, run, measures=["map", "P_2"], per_topic=False)
    >>> dict(zip(table["measure"], table["value"].round(4)))  # AP = (1/1 + 2/3) / 2
    {'map': 0.8333, 'P_2': 0.5}
    """
    from irscore.engine.allocator import freed_memory_kept
    from irscore.engine.evaluate import evaluate as evaluate_grid
    from irscore.engine.input_checks import overlap
    from irscore.engine.long_table import concat_long

    spec, narrowed = measure_spec(measures)
    grid = conventions(convention)
    with freed_memory_kept(), ThreadPoolExecutor(1) as pool:  # qrels read beside the runs
        pending = pool.submit(_qrels, qrels, True)
        try:
            named = _runs(runs, records=True)
        finally:
            qrels_table = pending.result()  # a bad qrels is the error, as when read first
        tables = [evaluate_grid(qrels_table, r, grid, spec, name) for name, r in named.items()]
    qrels_name = _source(qrels_table, "qrels")
    for (name, run), scored in zip(named.items(), tables, strict=True):
        for warning in overlap(_source(run, name), qrels_name, scored.attrs["notes"]):
            warnings.warn(warning, stacklevel=2)
    missing: dict[str, set[str]] = {}
    for scored in tables:
        for name, families in scored.attrs["not_computed"].items():
            missing.setdefault(name, set()).update(families)
    for name, families in missing.items():
        _warn_not_computed(sorted(families), f" {name}")
    table = concat_long(tables)
    if not per_topic:
        table = table[table["topic"] == "all"].reset_index(drop=True)
    return _narrow(table, narrowed)


def compare(
    qrels: QrelsInput,
    run_a: RunInput,
    run_b: RunInput,
    measure: str | Sequence[str] | None = None,
    tests: str | Sequence[str] = "all",
    convention: ConventionInput = "reference",
    B: int | None = None,
    seed: int = 0,
    alpha: float = 0.05,
    correction: str = "holm",
) -> pd.DataFrame:
    """Paired tests of run B against run A, topic by topic: the table `irscore compare` prints.

    One row per measure and test (default measures: map, P_10, ndcg_cut_10,
    recip_rank) with the means, the difference (`diff`, B - A), the p-value,
    adjusted by `correction` (holm, bonferroni, bh, none) over the p-values of
    one test, one per measure (each test is corrected on its own), and the
    effect size; `tests` is `"all"` or names among t, wilcoxon, randomization,
    bootstrap; `B` resamples (default 100000 / 10000). The input checks (topics
    one run lacks, topics without judgments) are in `table.attrs["checks"]`,
    which p-values the correction spanned in `table.attrs["correction"]`.

    >>> import irscore
    >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
    >>> run_a = {"q1": {"a": 0.1, "x": 0.9}, "q2": {"b": 0.1, "x": 0.9}, "q3": {"c": 0.9}}
    >>> run_b = {q: {d: 1.0 - s for d, s in docs.items()} for q, docs in run_a.items()}
    >>> table = irscore.compare(qrels, run_a, run_b, measure="recip_rank", tests="t")
    >>> row = table.iloc[0]  # A: RR 1/2, 1/2, 1; B: 1, 1, 1
    >>> row["measure"], [round(float(row[k]), 4) for k in ("mean_a", "mean_b", "diff")]
    ('recip_rank', [0.6667, 1.0, 0.3333])
    >>> table.attrs["correction"]
    "Holm over the paired t-test's 1 p-value, one per measure"
    """
    from irscore.analysis import comparison
    from irscore.analysis.audit import correction_scope

    spec, narrowed = measure_spec(measure if measure is not None else comparison.DEFAULT_MEASURES)
    grid = conventions(convention)
    if len(grid) != 1:
        raise ConventionError("compare takes one convention")
    chosen = _tests(tests)
    runs = _runs_named_by_tag(_runs({"A": run_a, "B": run_b}))
    result, scored = comparison.compare_runs(
        _qrels(qrels),
        list(runs.items()),
        spec,
        grid[0],
        chosen,
        B,
        seed,
        alpha,
        correction,
        wanted=lambda m: (
            not any(
                m.startswith(family + "_") and m not in names for family, names in narrowed.items()
            )
        ),
    )
    _warn_not_computed(scored.not_computed)
    result = _narrow(result, narrowed)
    result.attrs["checks"] = scored.checks
    result.attrs["correction"] = correction_scope(correction, result)
    return result


def audit(
    qrels: QrelsInput,
    runs: Mapping[str, RunInput] | Sequence[RunInput],
    out: str | Path | None = None,
    convention: Mapping[str, Mapping[str, Any] | None] | None = None,
    B: int = 10_000,
    seed: int = 0,
    alpha: float = 0.05,
    tests: str | Sequence[str] = "t",
) -> AuditResult:
    """What every convention does to your runs: `irscore audit` from Python.

    Scores the runs under the convention grid (default: the spec's grid, as the
    command line uses; or a mapping name -> changed fields) and writes the
    convention audit, tie-break table, 11-point curves, paired tests (`tests`:
    a name, a list or `all`; B and seed for the resampling ones) and
    plots under `out` (default: a temporary folder, removed afterwards: the
    summary's last line then says so). Returns the summary the command prints
    (`.summary`), the convention audit table (`.conventions`), the tie-break
    table (`.ties`) and the flipped conclusions (`.flips`).

    >>> import irscore
    >>> qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}}
    >>> runs = {"x": {"q1": {"a": 1.0, "z": 1.0, "b": 0.5}, "q2": {"c": 1.0}},
    ...         "y": {"q1": {"z": 1.0, "a": 0.5, "b": 0.2}, "q2": {"y": 2.0, "c": 1.0}}}
    >>> result = irscore.audit(qrels, runs, B=100)
    >>> result.summary.splitlines()[0], result.summary.splitlines()[-1]
    ('checks:', 'files not kept: out=FOLDER writes them there')
    >>> table = result.conventions
    >>> rows = table[(table["measure"] == "map") & (table["convention"] == "tie_optimistic")]
    >>> # x ties a (relevant) with z: trec_eval puts z first, AP(q1) = (1/2 + 2/3) / 2;
    >>> # optimistic puts a first, AP(q1) = (1/1 + 2/3) / 2; AP(q2) = 1 either way
    >>> dict(zip(rows["run"], zip(rows["reference"].round(4), rows["mean"].round(4))))
    {'x': (0.7917, 0.9167), 'y': (0.5417, 0.5417)}
    """
    from irscore.report.own_runs import audit_runs

    chosen = _tests(tests)
    grid = dict(DEFAULT_GRID if convention is None else convention)
    if not isinstance(runs, Mapping):
        runs = _runs_named_by_tag(_runs({f"run{i + 1}": run for i, run in enumerate(runs)}))
    named = _runs(runs)
    qrels_table = _qrels(qrels)
    if out is not None:
        return audit_runs(qrels_table, named, out, grid, B, seed, alpha, chosen)
    with tempfile.TemporaryDirectory(prefix="irscore-audit-") as folder:
        result = audit_runs(qrels_table, named, folder, grid, B, seed, alpha, chosen)
    kept = f"written under {folder}/\n"
    summary = result.summary.removesuffix(kept) + "files not kept: out=FOLDER writes them there\n"
    return dataclasses.replace(result, summary=summary)


def _tests(tests: str | Sequence[str]) -> list[str]:
    """A test's name, a list of them or `all` as the list of paired tests to run."""
    from irscore.analysis import stats

    chosen = list(stats.TESTS) if tests == "all" else [tests] if isinstance(tests, str) else tests
    unknown = [test for test in chosen if test not in stats.TESTS]
    if unknown:
        raise ValueError(f"unknown test(s) {', '.join(unknown)}; known: {', '.join(stats.TESTS)}")
    return list(chosen)


def conventions(convention: ConventionInput | Sequence[ConventionInput]) -> list[Convention]:
    """Conventions from names (the spec's grid), `Convention`s or mappings of changed fields.

    A mapping's `name` key names it (default: its description, such as `-J`);
    names must differ, since they label the long table's rows.

    >>> [c.name for c in conventions(["reference", {"unjudged": "removed"}])]
    ['reference', '-J']
    """
    items = [convention] if isinstance(convention, str | Convention | Mapping) else convention
    grid = [_one_convention(item) for item in items]
    names = [c.name for c in grid]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ConventionError(f"conventions named twice: {', '.join(repeated)}")
    if not grid:
        raise ConventionError("no convention given")
    return grid


def _one_convention(item: ConventionInput) -> Convention:
    """One convention from a name, a Convention or a mapping of changed fields."""
    if isinstance(item, Convention):
        return item
    if isinstance(item, str):
        if item not in DEFAULT_GRID:
            close = difflib.get_close_matches(item, DEFAULT_GRID, n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise ConventionError(
                f"unknown convention {item!r}{hint} (known: {', '.join(DEFAULT_GRID)})"
            )
        return Convention.from_changes(item, DEFAULT_GRID[item])
    if isinstance(item, Mapping):
        changes = dict(item)
        name = changes.pop("name", None)
        probe = Convention.from_changes("convention", changes)
        return Convention.from_changes(name or probe.description, changes)
    raise ConventionError(f"a convention is a name, a Convention or a mapping, got {type(item)}")


def measure_spec(measures: str | Sequence[str] | None) -> tuple[MeasureSpec, dict[str, set[str]]]:
    """The MeasureSpec of trec_eval measure names (`irscore.engine.measures.requests.parse_names`),
    and the families narrowed to some of their measures (`iprec_at_recall_0.50`).

    >>> spec, _ = measure_spec(["P_5", "P_10", "ndcg_cut.10"])
    >>> spec.P, spec.ndcg_cut, sorted(spec.families)
    ((5, 10), (10,), ['P', 'ndcg_cut'])
    """
    from irscore.engine.measures.registry import TEXT_FAMILIES
    from irscore.engine.measures.requests import parse_names

    names = [measures] if isinstance(measures, str) else list(measures or ["official"])
    spec, missing, narrowed = parse_names(names)
    if missing:
        warnings.warn(f"not computed yet: {', '.join(missing)}", stacklevel=3)
    text = sorted(spec.families & TEXT_FAMILIES)
    if text:
        warnings.warn(
            f"{', '.join(text)} is text, which a long table cannot hold; not computed "
            "(irscore evaluate -q prints it)",
            stacklevel=3,
        )
        spec = spec.with_families(spec.families - set(text))
    return spec, narrowed


def _warn_not_computed(families: Sequence[str], convention: str = " this convention") -> None:
    """Say which requested families the convention has no form for (absent, not zero)."""
    if families:
        warnings.warn(f"no form under{convention}: {', '.join(families)}", stacklevel=3)


def _narrow(table: pd.DataFrame, narrowed: Mapping[str, set[str]]) -> pd.DataFrame:
    """Drop the measures of narrowed families that were not asked for by name."""
    if not narrowed:
        return table
    from irscore.engine.measures import MeasureError

    measure = table["measure"].astype(str)
    keep = measure == measure  # every row, until a narrowed family drops some
    for family, wanted in narrowed.items():
        in_family = measure.str.startswith(family + "_")
        absent = sorted(wanted - set(measure[in_family]))
        if absent:
            close = difflib.get_close_matches(absent[0], sorted(set(measure)), n=5, cutoff=0.6)
            hint = f"; close names: {', '.join(close)}" if close else ""
            raise MeasureError(f"unknown measure {absent[0]!r}{hint}")
        keep &= ~in_family | measure.isin(wanted)
    return table[keep.to_numpy()].reset_index(drop=True)


def _qrels(qrels: QrelsInput, records: bool = False) -> pd.DataFrame | Records:
    """The qrels as the readers give them; a file as `trec.Records` when `records` (the
    evaluation takes them as they are, without a pandas frame)."""
    from irscore.engine import trec
    from irscore.engine.inputs import IRDS_PREFIX, qrels_frame

    if records and isinstance(qrels, str | os.PathLike) and not str(qrels).startswith(IRDS_PREFIX):
        return _checked(trec.read_qrels_records(qrels), "qrels")
    return _checked(qrels_frame(qrels), "qrels")


def _runs(
    runs: RunInput | Mapping[str, RunInput], records: bool = False
) -> dict[str, pd.DataFrame | Records]:
    """name -> run frame (a file's as `trec.Records` when `records`); one run is named by
    its tag (a file's, or `run`)."""
    if _named_runs(runs):
        return {str(name): _run(run, str(name), records) for name, run in runs.items()}
    run = _run(runs, "run", records)
    tags = _tags(run)
    return {tags[0] if tags else "run": run}


def _run(run: RunInput, name: str, records: bool) -> pd.DataFrame | Records:
    from irscore.engine import trec
    from irscore.engine.inputs import run_frame

    if records and isinstance(run, str | os.PathLike):
        return _checked(trec.read_run_records(run), "run")
    return _checked(run_frame(run, name), "run")


def _checked(table: pd.DataFrame | Records, role: str) -> pd.DataFrame | Records:
    """The input, refused when it holds no record (as the command line refuses it), with a
    warning when a file's byte order mark was skipped."""
    from irscore.engine import trec
    from irscore.engine.input_checks import bom_note, require_records

    if isinstance(table, trec.Records):
        rows, skipped, bom = table.table.num_rows, table.skipped, table.bom
    else:  # a frame; read from a file, it has the lines without a record
        rows, skipped, bom = len(table), table.attrs.get("skipped"), table.attrs.get("bom")
    require_records(_source(table), role, rows, None if skipped is None else len(skipped))
    if bom:
        warnings.warn(bom_note(_source(table)), stacklevel=4)
    return table


def _source(table: pd.DataFrame | Records, default: str = "run") -> str:
    """How messages name an input: a file's name, else what the frame was made from."""
    from irscore.engine import trec

    if isinstance(table, trec.Records):
        return table.source
    return str(table.attrs.get("source", default))


def _tags(run: pd.DataFrame | Records) -> list[str]:
    """The tag of a run's first line, if it has one."""
    import pandas as pd

    if isinstance(run, pd.DataFrame):
        return [str(run["tag"].iloc[0])] if len(run) else []
    return [str(run.table["tag"][0].as_py())] if run.table.num_rows else []


def _named_runs(runs: Any) -> bool:
    """True for a mapping name -> run: every value a run or empty (an empty run, refused
    by name later), at least one a run; a dict run's values are {docno: score}."""
    if not isinstance(runs, Mapping):
        return False
    values = list(runs.values())
    empty = [isinstance(v, Mapping) and not v for v in values]
    return any(_is_run(v) for v in values) and all(
        e or _is_run(v) for e, v in zip(empty, values, strict=True)
    )


def _is_run(value: Any) -> bool:
    """True for a run (a path, a DataFrame, a non-empty dict of dicts), False for the
    `{docno: score}` of one topic of a dict run."""
    import pandas as pd

    if isinstance(value, str | os.PathLike | pd.DataFrame):
        return True
    return (
        isinstance(value, Mapping)
        and bool(value)
        and all(isinstance(v, Mapping) for v in value.values())
    )


def _runs_named_by_tag(runs: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Runs renamed by their tags when the tags tell them apart (as the CLI names them)."""
    tags = [(_tags(run) or [name])[0] for name, run in runs.items()]
    if len(set(tags)) == len(tags):
        return dict(zip(tags, runs.values(), strict=True))
    return dict(runs)
