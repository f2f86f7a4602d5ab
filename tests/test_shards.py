"""Runs sharded by query: the merged run is the unsharded run, byte for byte, for every
configured model; the index is built once; a shard that does not fit is refused."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from test_workflow import (
    REPO,
    SNAKEMAKE,
    copy_workflow,
    default_retrievers_only,
    snakemake,
    write_corpus,
)

from irscore.pipeline.retrieve import retrieve_to_files
from irscore.pipeline.shards import (
    ShardError,
    build_index_file,
    merge_shards_to_files,
    retrieve_shard_to_files,
    shard_topics,
)

CONFIG = yaml.safe_load((REPO / "config.yaml").read_text())
KINDS = [("runs", "run"), ("eval", "tsv")]


def test_shards_are_contiguous_blocks_in_string_order():
    topics = ["3", "10", "1", "4", "2"]
    # string order: 1, 10, 2, 3, 4; bounds round(0, 2.5, 5) = 0, 2, 5 (2.5 rounds to even)
    assert [shard_topics(topics, 2, i) for i in range(2)] == [["1", "10"], ["2", "3", "4"]]
    # more shards than topics: some shards are empty, none is lost
    parts = [shard_topics(topics, 7, i) for i in range(7)]
    assert [t for part in parts for t in part] == sorted(topics) and [] in parts
    with pytest.raises(ShardError, match=r"shard 2 is not one of 0\.\.1"):
        shard_topics(topics, 2, 2)


def _sharded(folder: Path, data: Path, name: str, shards: int) -> tuple[Path, Path]:
    """Retrieve `name` in `shards` shards from one index; the merged run and manifest."""
    spec = {**CONFIG["retrievers"][name], "shards": shards}
    analyzer = CONFIG["analyzers"][spec.get("analyzer", "default")]
    index = folder / "index.pickle"
    build_index_file(docs=data / "docs.jsonl", analyzer=analyzer, index=index)
    runs, summaries = [], []
    for shard in range(shards):
        runs.append(folder / f"{shard}.run")
        summaries.append(folder / f"{shard}.json")
        retrieve_shard_to_files(
            index=index,
            queries=data / "queries.tsv",
            run=runs[-1],
            summary=summaries[-1],
            name=name,
            spec=spec,
            analyzer=analyzer,
            shard=shard,
        )
    merged, manifest = folder / f"{name}.run", folder / f"{name}.manifest.json"
    merge_shards_to_files(
        shard_runs=runs,
        summaries=summaries,
        queries=data / "queries.tsv",
        run=merged,
        manifest=manifest,
        name=name,
        spec=spec,
        analyzer=analyzer,
    )
    return merged, manifest


@pytest.mark.parametrize("name", list(CONFIG["retrievers"]))
def test_sharded_run_is_the_unsharded_run_byte_for_byte(cranfield, tmp_path, name):
    spec = CONFIG["retrievers"][name]
    whole = tmp_path / "whole"
    retrieve_to_files(
        docs=cranfield / "docs.jsonl",
        queries=cranfield / "queries.tsv",
        run=whole / f"{name}.run",
        manifest=whole / f"{name}.manifest.json",
        name=name,
        spec=spec,
        analyzer=CONFIG["analyzers"][spec.get("analyzer", "default")],
    )
    merged, manifest = _sharded(tmp_path / "sharded", cranfield, name, 3)
    assert merged.read_bytes() == (whole / f"{name}.run").read_bytes()
    sharded_facts = json.loads(manifest.read_text())
    assert sharded_facts.pop("shards") == 3
    assert sharded_facts == json.loads((whole / f"{name}.manifest.json").read_text())


def test_a_shard_that_does_not_fit_is_refused(cranfield, tmp_path):
    _sharded(tmp_path, cranfield, "bim", 2)
    spec = {**CONFIG["retrievers"]["bim"], "shards": 2}
    analyzer = CONFIG["analyzers"]["default"]
    arguments = {
        "shard_runs": [tmp_path / "0.run", tmp_path / "1.run"],
        "summaries": [tmp_path / "0.json", tmp_path / "1.json"],
        "queries": cranfield / "queries.tsv",
        "run": tmp_path / "again.run",
        "manifest": tmp_path / "again.json",
        "name": "bim",
        "spec": spec,
        "analyzer": analyzer,
    }
    lines = (tmp_path / "1.run").read_text().splitlines(keepends=True)
    (tmp_path / "1.run").write_text("".join(lines[:-1]))  # a shard cut short
    with pytest.raises(ShardError, match=r"1.run: \d+ lines, its summary says \d+"):
        merge_shards_to_files(**arguments)
    with pytest.raises(ShardError, match=r"expected shards 0\.\.2 in order"):
        merge_shards_to_files(**{**arguments, "spec": {**spec, "shards": 3}})
    assert not (tmp_path / "again.run").exists()
    with pytest.raises(ShardError, match="built with another analyzer"):
        retrieve_shard_to_files(
            index=tmp_path / "index.pickle",
            queries=cranfield / "queries.tsv",
            run=tmp_path / "x.run",
            summary=tmp_path / "x.json",
            name="bim",
            spec=spec,
            analyzer=CONFIG["analyzers"]["lab"],
            shard=0,
        )


def _shard_config(workdir: Path, shards: dict[str, int]) -> None:
    path = workdir / "config.yaml"
    config = yaml.safe_load(path.read_text())
    for name, count in shards.items():
        config["retrievers"][name]["shards"] = count
    path.write_text(yaml.safe_dump(config, sort_keys=False))


@pytest.mark.workflow
def test_workflow_shards_share_one_index_and_merge_to_the_same_bytes(tmp_path):
    pins = write_corpus(tmp_path / "raw")
    runs = ["bim", "tfidf", "bm25", "ql"]
    # the long tables too: each reads its run after checking it against the run's record
    targets = [f"results/{kind}/{name}.{ext}" for name in runs for kind, ext in KINDS]
    plain, sharded = tmp_path / "plain", tmp_path / "sharded"
    for workdir in (plain, sharded):
        copy_workflow(workdir)
        default_retrievers_only(workdir)
    # 3 queries in 2 shards, and in 5 (two shards empty); bim, bm25 and ql share an index
    _shard_config(sharded, {"bim": 2, "bm25": 5, "ql": 2})
    snakemake(plain, tmp_path / "raw", pins, *targets)
    log = snakemake(sharded, tmp_path / "raw", pins, *targets)
    for name in runs:
        for kind, ext in KINDS:
            path = Path("results", kind, f"{name}.{ext}")
            assert (sharded / path).read_bytes() == (plain / path).read_bytes(), path
    assert sorted(p.name for p in (sharded / "results" / "index").iterdir()) == ["default.pickle"]
    assert log.count("(Rule: index)") == 1
    assert log.count("(Rule: retrieve_shard)") == 2 + 5 + 2
    assert not (plain / "results" / "index").exists()


def test_slurm_profile_dry_run_shows_the_shard_jobs(tmp_path):
    workdir = tmp_path / "workflow"
    copy_workflow(workdir)
    shutil.copytree(REPO / "workflow" / "profiles", workdir / "profiles", dirs_exist_ok=True)
    _shard_config(workdir, {"bm25": 4})
    done = subprocess.run(
        [str(SNAKEMAKE), "-n", "--profile", "workflow/profiles/slurm", "results/runs/bm25.run"],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "Using profile workflow/profiles/slurm" in out
    assert out.count("rule retrieve_shard:") == 4
    assert out.count("rule index:") == 1 and out.count("rule merge_shards:") == 1
    for shard in range(4):
        assert f"results/shards/bm25/{shard}.run" in out
