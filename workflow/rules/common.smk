# Config validation, helper functions, wildcard constraints and the final targets.
import importlib.util
import re
from pathlib import Path

from snakemake.utils import validate

from irscore.pipeline.analyzers import Analyzer
from irscore.engine.ranking.conventions import conventions_from_config
from irscore.pipeline.data import (
    ir_datasets_query_field,
    local_copy,
    verify_local_collection,
    verify_sources,
)
from irscore.pipeline.ideal import TAG as IDEAL
from irscore.engine.measures import MeasureError, spec_from_config
from irscore.engine.measures.groups import config_groups, plan
from irscore.pipeline.retrieve import DEFAULT_ANALYZER, RetrieverSpec

validate(config, schema="../schemas/config.schema.yaml")
# Fail before any job runs: each analyzer and each model check their own keys.
for _name, _analyzer in config["analyzers"].items():
    try:
        Analyzer.from_config(_analyzer)
    except ValueError as _err:
        raise ValueError(f"analyzers.{_name}: {_err}") from None
for _name, _spec in config["retrievers"].items():
    _analyzer = RetrieverSpec.from_config(_name, _spec).analyzer
    if _analyzer not in config["analyzers"]:
        raise ValueError(
            f"retrievers.{_name}: unknown analyzer {_analyzer!r} "
            f"(analyzers: {', '.join(config['analyzers'])})"
        )
conventions_from_config(config["conventions"])
spec_from_config(config["measures"])
config_groups(config["measures"])
# the names compare and systems test: read as every other measure name is (groups.plan)
for _section in ("compare", "systems"):
    try:
        plan(config[_section]["measures"])
    except MeasureError as _err:
        raise ValueError(f"{_section}: measures: {_err}") from None
if config["conventions"].get("reference", "missing") not in ({}, None):
    raise ValueError(
        "config: conventions must include `reference: {}` (trec_eval's convention)"
    )
_clashes = sorted(set(config["retrievers"]) & set(config.get("runs") or {}))
if _clashes:
    raise ValueError(
        f"config: {', '.join(_clashes)} named under both retrievers and runs"
    )

# The installed irscore package: its sources are inputs of the rules using them.
IRSCORE_DIR = Path(importlib.util.find_spec("irscore").origin).parent


def _one_of(names):
    """A wildcard pattern matching exactly these names (and nothing, for none)."""
    return "|".join(re.escape(name) for name in names) or "(?!)"


def run_names():
    """Every evaluated run in config order: the retrievers, then `runs:`."""
    return list(config["retrievers"]) + list(config.get("runs") or {})


def external_runs():
    """`runs:` entries naming an existing run file: name -> path."""
    return {name: path for name, path in (config.get("runs") or {}).items() if path}


def shard_count(name):
    """How many query shards the retriever `name` is retrieved in (1: one job)."""
    return config["retrievers"][name].get("shards", 1)


SHARDED = [name for name in config["retrievers"] if shard_count(name) > 1]
RETRIEVER_NAMES = _one_of(name for name in config["retrievers"] if name not in SHARDED)
SHARDED_NAMES = _one_of(SHARDED)
INDEXED_ANALYZERS = _one_of(
    dict.fromkeys(
        config["retrievers"][name].get("analyzer", DEFAULT_ANALYZER) for name in SHARDED
    )
)
EXTERNAL_NAMES = _one_of(external_runs())


wildcard_constraints:
    run=_one_of(run_names()),


def plotted_runs():
    """The runs whose long tables the topic figures job reads, in config order."""
    named = {
        config["plots"]["example"]["run"],
        *(run for pair in config["plots"]["pairs"] for run in pair),
    }
    return [run for run in run_names() if run in named]


def plotted_first(wildcards):
    """Scheduling priority of a run's jobs: the runs plotted topic by topic go first, so
    the topic figures job runs beside the other runs' jobs instead of at the end."""
    return 1 if wildcards.run in plotted_runs() else 0


def package_sources(*modules):
    """Paths of irscore source files (relative to the package; a sub-package stands for its
    modules), so code changes re-run jobs."""
    paths = []
    for module in ("__init__.py", *modules):
        path = IRSCORE_DIR / module
        found = sorted(path.glob("*.py")) if path.is_dir() else [path]
        paths += [str(p) for p in found]
    return paths


def collection_folder():
    """The local collection folder of config `dataset: {folder, sha256}`, or None."""
    return (
        config["dataset"].get("folder") if isinstance(config["dataset"], dict) else None
    )


def ir_datasets_id():
    """The ID of config `dataset: {ir_datasets: ID}`, or None."""
    dataset = config["dataset"]
    return dataset.get("ir_datasets") if isinstance(dataset, dict) else None


def dataset_pins():
    """What the data step is keyed on: the pinned sha256 of the collection's source files,
    or the ir_datasets ID and query field (ir_datasets checks its downloads itself)."""
    if collection_folder():
        return {"local": canonical(config["dataset"]["sha256"])}
    if ir_datasets_id():
        return {"ir_datasets": ir_datasets_id(), "query_field": QUERY_FIELD}
    return canonical(config["cranfield_sha256"])


def cranfield_dir():
    """The local copy of the raw files: $CRANFIELD_DIR if non-empty, else config, else None
    (download). A relative path is relative to the working directory."""
    return local_copy(config.get("cranfield_dir"))


def run_record(run):
    """The record (lines, sha256, topics) of a run file that this workflow writes, which
    each reader checks; None for a run written by the user's own step."""
    if run in config["retrievers"] or run in external_runs() or run == IDEAL:
        return f"results/records/runs/{run}.json"
    return None


def run_records(runs):
    """The records of those of `runs` that have one."""
    return [record for record in map(run_record, runs) if record]


def eval_records(runs):
    """The records of the long tables and cross-checks of `runs`."""
    return expand("results/records/eval/{run}.json", run=runs)


def evaluate_records(wildcards):
    """What an evaluate job checks its inputs against: the data manifest (the qrels) and
    the record of its run, if the run has one."""
    return ["results/data/manifest.json", *run_records([wildcards.run])]


def retriever_sources(wildcards):
    """The modules a run depends on: the shared retrieval code and its own model's file."""
    model = config["retrievers"][wildcards.run]["model"]
    return package_sources(
        "pipeline/analyzers.py",
        "pipeline/data.py",
        "pipeline/exports.py",
        "pipeline/retrieve.py",
        "engine/reading/trec.py",
        "engine/reading/columns.py",
        "engine/reading/careful_reader.py",
        "engine/system/arrays.py",
        "pipeline/logs.py",
        "pipeline/retrievers/__init__.py",
        "pipeline/retrievers/base.py",
        "pipeline/retrievers/index.py",
        f"pipeline/retrievers/{model}.py",
    )


def shard_sources(wildcards):
    """The modules a shard job depends on: a run's, and the sharding code."""
    return retriever_sources(wildcards) + package_sources("pipeline/shards.py")


def index_sources(wildcards):
    """The modules that build an index file."""
    return package_sources(
        "pipeline/analyzers.py",
        "pipeline/data.py",
        "pipeline/exports.py",
        "pipeline/retrieve.py",
        "pipeline/shards.py",
        "engine/reading/trec.py",
        "engine/reading/columns.py",
        "engine/reading/careful_reader.py",
        "engine/system/arrays.py",
        "pipeline/logs.py",
        "pipeline/retrievers/index.py",
    )


def shard_index(wildcards):
    """The index file a sharded run's jobs share: one per analyzer."""
    name = config["retrievers"][wildcards.run].get("analyzer", DEFAULT_ANALYZER)
    return f"results/index/{name}.pickle"


def shard_index_records(wildcards):
    """What a shard job checks its inputs against: the data manifest (the queries) and
    the record of the index."""
    name = config["retrievers"][wildcards.run].get("analyzer", DEFAULT_ANALYZER)
    return ["results/data/manifest.json", f"results/records/index/{name}.json"]


def shard_records(wildcards):
    """What the merge checks its inputs against: the data manifest and each shard's record."""
    shards = range(shard_count(wildcards.run))
    return ["results/data/manifest.json"] + expand(
        f"results/records/shards/{wildcards.run}/{{shard}}.json", shard=shards
    )


def shard_files(kind):
    """A function of the run wildcard: each shard's run (kind `run`) or summary (`json`)."""

    def files(wildcards):
        shards = range(shard_count(wildcards.run))
        return expand(f"results/shards/{wildcards.run}/{{shard}}.{kind}", shard=shards)

    return files


def index_analyzer(wildcards):
    """The config of the analyzer an index file is built with, as a params value."""
    return canonical(config["analyzers"][wildcards.analyzer])


def canonical(value):
    """`value` with dict keys sorted at every level: params then compare by content, not order."""
    if isinstance(value, dict):
        return {key: canonical(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [canonical(item) for item in value]
    return value


def external_run_path(wildcards):
    """The file a `runs:` entry points to (relative paths: from the working directory)."""
    return external_runs()[wildcards.run]


def retriever_config(wildcards):
    """The run's `retrievers:` entry, as a params value so a change re-runs only that run."""
    return canonical(config["retrievers"][wildcards.run])


def retriever_analyzer(wildcards):
    """The config of the analyzer the run names (default `default`), as a params value."""
    name = config["retrievers"][wildcards.run].get("analyzer", DEFAULT_ANALYZER)
    return canonical(config["analyzers"][name])


def data_exports():
    """The files of rule export_data."""
    return [
        "results/data/qrels.txt",
        "results/data/queries.tsv",
        "results/data/docs.jsonl",
        "results/data/manifest.json",
    ]


def run_outputs():
    """Each configured run, its manifest and record."""
    return expand(
        ["results/runs/{run}.run", "results/runs/{run}.manifest.json"],
        run=list(config["retrievers"]),
    ) + run_records(run_names())


def final_targets():
    """Everything `rule all` builds."""
    return (
        data_exports()
        + run_outputs()
        + expand("results/eval/{run}.tsv", run=run_names())
        + expand("results/crosscheck/{run}.tsv", run=run_names())
        + eval_records(run_names())
        + report_targets()
        + ["results/records/summary.json"]
    )


# The raw files are small: a given local copy is re-hashed at every start, so a byte
# changed after the export (or a missing file) stops the workflow before any job runs.
# An ir_datasets ID is checked against ir_datasets' registry (no network needed).
QUERY_FIELD = (
    ir_datasets_query_field(ir_datasets_id(), config["dataset"].get("query_field"))
    if ir_datasets_id()
    else None
)
if collection_folder():
    verify_local_collection(collection_folder(), config["dataset"]["sha256"])
elif cranfield_dir() and not ir_datasets_id():
    verify_sources(cranfield_dir(), config["cranfield_sha256"])
