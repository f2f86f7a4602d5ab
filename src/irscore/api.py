"""The Python API: `irscore.evaluate`, `irscore.compare`, `irscore.audit`.

The same code as the command line and the workflow, called on qrels and runs
given as paths, DataFrames, pytrec_eval-style dicts or (qrels) `irds:ID`.
Every input problem raises `irscore.InputError` with the message the command
line prints, and what it warns about on stderr is a Python warning here
(`irscore.engine.ranking.input_checks`).
This module imports nothing heavy at import time, so `import irscore` stays
cheap; numpy, pandas and the evaluation load on the first call.
"""

from __future__ import annotations

import dataclasses
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from irscore import api_streams
from irscore.engine import argument_types as check
from irscore.engine.arguments import (
    changed_grid,
    conventions,
    is_named_runs,
    measure_groups,
    qrels_input,
    renamed,
    runs_input,
    runs_named_by_tag,
    source_of,
    warn_not_computed,
)
from irscore.engine.ranking.conventions import DEFAULT_GRID, Convention, ConventionError

if TYPE_CHECKING:
    import pandas as pd

    from irscore.analysis.systems_table import SystemsTable
    from irscore.engine.ranking.prepare import Prepared
    from irscore.engine.reading.inputs import QrelsInput, RunInput
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
    `"ndcg_cut.5,10"`, `"official"`; default: trec_eval's default set) or
    ir_measures / ranx names (`"nDCG@10"`, `"mrr@10"`), each scored under the
    convention its peer follows and printed as given (`irscore.measures()`).
    `convention` is a name from the spec (`"tie_expected"`, `"judged_only"`,
    ...), a `Convention`, a mapping of changed fields, or a list of these,
    scored on one parse of each run. Returns the columns run, convention,
    topic, measure, value; topic `all` holds the mean (only those rows when
    `per_topic` is false). Runs are read one at a time; a run file above 64 MiB (or
    a pipe) a block of whole topics at a time, as the command line reads it.

    >>> import irscore
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}}
    >>> table = irscore.evaluate(qrels, run, measures=["map", "P_2"], per_topic=False)
    >>> dict(zip(table["measure"], table["value"].round(4)))  # AP = (1/1 + 2/3) / 2
    {'map': 0.8333, 'P_2': 0.5}
    """
    from irscore.engine.evaluate import evaluate as evaluate_grid
    from irscore.engine.output.long_table import concat_long
    from irscore.engine.ranking.input_checks import overlap
    from irscore.engine.ranking.subtopics import for_request
    from irscore.engine.system.allocator import freed_memory_kept

    check.names("measures", measures, "measure name")
    check.conventions("convention", convention)
    check.flag("per_topic", per_topic)
    groups = measure_groups(measures)
    grid = conventions(convention)
    families = set().union(*(g.spec.families for g in groups))
    plans = [(changed_grid(grid, g), g.spec) for g in groups]
    with freed_memory_kept():
        fast = _prepared_dicts(qrels, runs, families)
        if fast is not None:  # each dict run's values, as its frame's below
            qrels_name, said, sources = "qrels", None, list(fast)
            tables = [
                renamed(evaluate_grid(None, None, changed_grid(grid, g), g.spec, name, p), g)
                for name, p in fast.items()
                for g in groups
            ]
        else:
            qrels_table, listed = _inputs(qrels, runs)
            qrels_table, said = for_request(qrels_table, families)
            tables, sources = [], []
            while listed:  # one at a time: read (or a block at a time), scored, dropped
                name, source, scored = api_streams.evaluated(qrels_table, *listed.pop(0), plans)
                tables += [renamed(table, g) for table, g in zip(scored, groups, strict=True)]
                sources.append(source)
            qrels_name = source_of(qrels_table, "qrels")
    if said:
        warnings.warn(said, stacklevel=2)
    for source, scored in zip(sources, tables[:: len(groups)], strict=True):
        for warning in overlap(source, qrels_name, scored.attrs["notes"]):
            warnings.warn(warning, stacklevel=2)
    missing: dict[str, set[str]] = {}
    for scored in tables:
        for name, families in scored.attrs["not_computed"].items():
            missing.setdefault(name, set()).update(families)
    for name, families in missing.items():
        warn_not_computed(sorted(families), f" {name}")
    table = concat_long(tables)
    if not per_topic:
        table = table[table["topic"] == "all"].reset_index(drop=True)
    return table


def _prepared_dicts(
    qrels: QrelsInput, runs: RunInput | Mapping[str, RunInput], families: set[str]
) -> dict[str, list[Callable[[], Prepared]]] | None:
    """name -> each run prepared straight from the dicts (`ranking.from_dicts`), when the
    qrels and every run are the usual pytrec_eval-style dicts and no diversity measure
    (which reads subtopics) is asked for; else None, and the dicts are read as frames."""
    from irscore.engine.measures.registry import SUBTOPIC_FAMILIES
    from irscore.engine.ranking import from_dicts

    if families & SUBTOPIC_FAMILIES or not isinstance(qrels, Mapping):
        return None
    named = {str(k): run for k, run in runs.items()} if is_named_runs(runs) else {"run": runs}
    if not all(isinstance(run, Mapping) for run in named.values()):
        return None
    judged = from_dicts.judgments(qrels)
    fast = {}
    for name, run in named.items():
        fast[name] = None if judged is None else from_dicts.prepared(judged, run, name)
        if fast[name] is None:
            return None
    return fast


def _inputs(qrels: QrelsInput, runs: RunInput | Mapping[str, RunInput]) -> tuple[Any, list]:
    """The qrels and the runs as (name, run), as `evaluate` scores them: the first run
    read whole unless it is a large file (`api_streams.evaluated` reads it a block at a
    time), the others left to be read one at a time. A qrels file is read on a thread
    beside the first run; a dict taken apart here, as Python's work, which a thread
    would only take turns at (and, on a busy machine, wait for)."""
    listed = api_streams.listed(runs)
    name, first, _ = listed[0]
    large = isinstance(first, str | os.PathLike) and api_streams.large(first)
    if isinstance(qrels, Mapping) or large:
        qrels_table = qrels_input(qrels, True)
        if not large:
            listed[0] = api_streams.read(name, first)
        return qrels_table, listed
    from irscore.engine.system import threads

    with threads.pool(1) as pool:
        pending = pool.submit(qrels_input, qrels, True)
        try:
            listed[0] = api_streams.read(name, first)
        finally:
            qrels_table = pending.result()  # a bad qrels is the error, as when read first
    return qrels_table, listed


class TopicValue(NamedTuple):
    """One measure's value for one topic, as `iter_evaluate` yields them (ir_measures'
    iter_calc yields the same three fields as query_id, measure, value)."""

    topic: str
    measure: str
    value: float


def iter_evaluate(
    qrels: QrelsInput,
    run: RunInput | Iterable[tuple[str, str, float]],
    measures: str | Sequence[str] | None = None,
    convention: ConventionInput = "reference",
    rows: int = 1 << 18,
) -> Iterator[TopicValue]:
    """Per-topic values as they are computed, for runs too large to hold:
    `TopicValue(topic, measure, value)`, topic by topic (no mean: `evaluate` has it).

    `run` is what `evaluate` takes (read once, then scored about `rows` results at
    a time, so what is built per result lives for one such chunk; a run file above
    64 MiB is read a block of whole topics at a time through a private temporary
    folder, so what is held is a block, not the file), or an iterable of (qid,
    docno, score) tuples (ir_measures' ScoredDoc too) or of DataFrames (a reader's
    chunks: `pandas.read_csv(..., chunksize=n)`), consumed about `rows` results at
    a time, which must come topic by topic (a topic seen again after others is an
    error). Topics come in byte order of their ids within a
    chunk; under `all_qrels` the judged topics without results come last.

    >>> import irscore
    >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    >>> results = iter([("q1", "a", 0.5), ("q1", "x", 0.9), ("q2", "b", 1.0)])
    >>> list(irscore.iter_evaluate(qrels, results, ["recip_rank"]))
    [TopicValue(topic='q1', measure='recip_rank', value=0.5), \
TopicValue(topic='q2', measure='recip_rank', value=1.0)]
    """
    from irscore.engine.evaluate import topic_values
    from irscore.engine.measures.registry import has_topic_rows
    from irscore.engine.ranking.prepare import chunk_makers

    check.names("measures", measures, "measure name")
    check.conventions("convention", convention, several=False)
    check.whole("rows", rows, least=1)
    groups = measure_groups(measures)
    if len(groups) != 1:
        raise ValueError(
            "iter_evaluate takes measures of one convention: trec_eval's names, or one "
            "peer's (evaluate takes a mix)"
        )
    (group,) = groups
    spec, narrowed = group.spec, group.narrowed
    grid = changed_grid(conventions(convention), group)
    if len(grid) != 1:
        raise ConventionError("iter_evaluate takes one convention")
    c = grid[0]

    def kept(name: str) -> bool:
        family = next((f for f in narrowed if name.startswith(f + "_")), None)
        return has_topic_rows(name) and (family is None or name in narrowed[family])

    def given(name: str) -> list[str]:
        """The names the user gave for irscore's measure `name` (a peer's, or its own)."""
        return [name] if group.renames is None else group.renames.get(name, [])

    def scored(prepared) -> Iterator[TopicValue]:
        part = topic_values(prepared, c, spec)
        names = [(name, shown) for name in part.values if kept(name) for shown in given(name)]
        for i, topic in enumerate(part.topics.tolist()):
            for name, shown in names:
                yield TopicValue(str(topic), shown, float(part.values[name][i]))

    if api_streams.is_stream(run):
        yield from api_streams.streamed(
            qrels_input(qrels), api_streams.results(run), c, rows, scored
        )
        return
    qrels_table = qrels_input(qrels, True)
    if api_streams.streams(qrels_table, run):
        yield from api_streams.spilled_file(qrels_table, run, rows, scored)
        return
    named = runs_input(run, records=True)
    if len(named) != 1:
        raise ValueError("iter_evaluate takes one run (evaluate takes a mapping of runs)")
    (records,) = named.values()
    for make in chunk_makers(qrels_table, records, rows):
        yield from scored(make())


def write_run(path: str | os.PathLike, run: RunInput) -> None:
    """Write a run (any form `evaluate` takes) as its file name says: `.json` as
    `{qid: {docno: score}}` (pytrec_eval's, ranx's), `.parquet` with ranx's columns
    (q_id, doc_id, score, rank, tag), anything else as a TREC run; atomically."""
    from irscore.engine.reading import run_files, trec

    check.path("path", path)
    (frame,) = runs_input(run).values()
    if Path(path).suffix.lower() in (".json", ".parquet", ".parq"):
        run_files.write(path, frame)
    else:
        trec.write_run(path, frame)


def compare(
    qrels: QrelsInput,
    run_a: RunInput | Mapping[str, RunInput] | Sequence[RunInput],
    run_b: RunInput | None = None,
    measures: str | Sequence[str] | None = None,
    tests: str | Sequence[str] = "all",
    convention: ConventionInput = "reference",
    B: int | None = None,
    seed: int = 0,
    alpha: float = 0.05,
    correction: str = "holm",
    baseline: str | None = None,
    all_pairs: bool = False,
    measure: str | Sequence[str] | None = None,
) -> pd.DataFrame | SystemsTable:
    """Paired tests of run B against run A, topic by topic: the table `irscore compare` prints.

    One row per measure and test (default measures: map, P_10, ndcg_cut_10,
    recip_rank) with the means, the difference (`diff`, B - A), the p-value,
    adjusted by `correction` (holm, bonferroni, bh, none) over the p-values of
    one test, one per measure (each test is corrected on its own), and the
    effect size; `tests` is `"all"` or names among t, wilcoxon, randomization,
    bootstrap; `B` resamples (default 100000 / 10000). The input checks (topics
    one run lacks, topics without judgments) are in `table.attrs["checks"]`,
    which p-values the correction spanned in `table.attrs["correction"]`.
    `measure=` is the old spelling of `measures=`, taken with a DeprecationWarning
    until the next release.

    Given many runs instead (a mapping name -> run, or a list, named by their
    tags), the systems table `irscore compare` prints for them: a
    `systems_table.SystemsTable` (`.means`, `.marks`, `.tests`, `.footnote`,
    `.checks`; `.markdown()` is the text printed) of each run against
    `baseline` (a name; default the first run), or of every pair with
    `all_pairs`, under one test (`"all"`: the t-test; `"tukey"`: Tukey's HSD
    over all the runs, which adjusts its own p-values).

    >>> import irscore
    >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
    >>> run_a = {"q1": {"a": 0.1, "x": 0.9}, "q2": {"b": 0.1, "x": 0.9}, "q3": {"c": 0.9}}
    >>> run_b = {q: {d: 1.0 - s for d, s in docs.items()} for q, docs in run_a.items()}
    >>> table = irscore.compare(qrels, run_a, run_b, measures="recip_rank", tests="t")
    >>> row = table.iloc[0]  # A: RR 1/2, 1/2, 1; B: 1, 1, 1
    >>> row["measure"], [round(float(row[k]), 4) for k in ("mean_a", "mean_b", "diff")]
    ('recip_rank', [0.6667, 1.0, 0.3333])
    >>> table.attrs["correction"]
    "Holm over the paired t-test's 1 p-value, one per measure"
    """
    from irscore.engine.system.extras import require

    require("stats", "irscore.compare")  # the paired tests: scipy
    from irscore.analysis import comparison
    from irscore.analysis.audit import correction_scope

    if measure is not None:
        if measures is not None:
            raise TypeError("compare: give measures= (measure= is its old spelling), not both")
        warnings.warn(
            "compare(measure=...) is now compare(measures=...); the old spelling is taken "
            "until the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        measures = measure
    check.run("run_a", run_a, several=True)
    check.run("run_b", run_b, none=True)
    check.names("measures", measures, "measure name")
    check.names("tests", tests, "test name")
    check.conventions("convention", convention, several=False)
    check.whole("B", B, least=1, none=True)
    check.whole("seed", seed)
    check.share("alpha", alpha)
    check.text("correction", correction)
    check.text("baseline", baseline, none=True)
    check.flag("all_pairs", all_pairs)
    groups = measure_groups(measures if measures is not None else comparison.DEFAULT_MEASURES)
    grid = conventions(convention)
    if len(grid) != 1:
        raise ConventionError("compare takes one convention")
    if run_b is None:
        from irscore.analysis.systems_table import of_runs

        return of_runs(
            qrels,
            run_a,
            groups,
            grid[0],
            tests,
            B,
            seed,
            alpha,
            correction,
            baseline,
            all_pairs,
        )
    if baseline is not None or all_pairs:
        raise ValueError("baseline and all_pairs are for many runs: compare(qrels, runs, ...)")
    chosen = _tests(tests)
    runs = runs_named_by_tag(runs_input({"A": run_a, "B": run_b}))
    result, scored = comparison.compare_runs(
        qrels_input(qrels), list(runs.items()), groups, grid[0], chosen, B, seed, alpha, correction
    )
    warn_not_computed(scored.not_computed)
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
    measures: str | Sequence[str] = (),
) -> AuditResult:
    """What every convention does to your runs: `irscore audit` from Python (its figures
    need the report extra, `pip install 'irscore[report]'`: else MissingExtra).

    Scores the runs under the convention grid (default: the spec's grid, as the
    command line uses; or a mapping name -> changed fields) and writes the
    convention audit, tie-break table, 11-point curves, paired tests (`tests`:
    a name, a list or `all`; B and seed for the resampling ones) and
    plots under `out` (default: a temporary folder, removed afterwards: the
    summary's last line then says so); `measures` are audited beside the headline
    ones (trec_eval's printed names, or ir_measures' and ranx's under each
    convention with the decisions their peer fixes). Returns the summary the command prints
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
    from irscore.engine.system.extras import require

    require("stats", "irscore.audit")  # its tests and rank correlations: scipy
    require("report", "irscore.audit")  # its figures: matplotlib
    from irscore.report.own_runs import audit_runs

    check.runs("runs", runs)
    check.path("out", out, none=True)
    check.mapping("convention", convention, none=True)
    check.whole("B", B, least=1)
    check.whole("seed", seed)
    check.share("alpha", alpha)
    check.names("tests", tests, "test name")
    check.names("measures", measures, "measure name")
    chosen = _tests(tests)
    grid = dict(DEFAULT_GRID if convention is None else convention)
    if not isinstance(runs, Mapping):
        runs = runs_named_by_tag(runs_input({f"run{i + 1}": run for i, run in enumerate(runs)}))
    named = runs_input(runs)
    qrels_table = qrels_input(qrels)
    extra = [measures] if isinstance(measures, str) else list(measures)
    if out is not None:
        return audit_runs(qrels_table, named, out, grid, B, seed, alpha, chosen, extra)
    import tempfile

    with tempfile.TemporaryDirectory(prefix="irscore-audit-") as folder:
        result = audit_runs(qrels_table, named, folder, grid, B, seed, alpha, chosen, extra)
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


def measures() -> pd.DataFrame:
    """Every measure name irscore accepts, one row a name family: the columns name,
    measure, parameters, provenance (trec_eval 9/10, ir_measures, ranx, irscore) and
    convention (what a peer's name implies), as `irscore measures` prints them.

    >>> import irscore
    >>> listing = irscore.measures()
    >>> list(listing.columns)
    ['name', 'measure', 'parameters', 'provenance', 'convention']
    """
    import pandas as pd

    from irscore.engine.output import catalogue

    return pd.DataFrame(catalogue.rows(), columns=list(catalogue.COLUMNS))
