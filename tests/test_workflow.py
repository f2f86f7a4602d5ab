"""The Snakemake workflow end to end on a tiny Cranfield-format corpus."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from irscore.engine.output.long_table import read_long_table
from irscore.engine.reading.trec import read_qrels, read_run


def config_conventions() -> list[str]:
    return list(yaml.safe_load((REPO / "config.yaml").read_text())["conventions"])


REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).parent / "snakemake"

DOCS = """\
.I 1
.T
flow over a wing
.A
smith
.B
j. ae. 1958
.W
flow over a wing .
  lift of the wing in flow .
.I 2
.T
shock waves
.A
jones
.B
j. ae. 1959
.W
shock waves .
  shock waves at high mach numbers .
.I 3
.T
heat transfer
.A
brown
.B
j. ae. 1960
.W
heat transfer .
  heat transfer in laminar boundary layers .
"""
# .I numbers are not topic ids: ir_datasets renumbers queries 1, 2, 3 in file order.
QUERIES = """\
.I 001
.W
lift of a wing in flow .
.I 002
.W
shock waves and
heat transfer .
.I 004
.W
the .
"""
QRELS = "1 1 2\n1 2 -1\n2 2 3 \n2 3 1\n3 1 4\n"
RUNS = ("bim", "tfidf", "bm25")


def write_corpus(folder: Path) -> dict[str, str]:
    folder.mkdir()
    for name, text in (("cran.all.1400", DOCS), ("cran.qry", QUERIES), ("cranqrel", QRELS)):
        (folder / name).write_text(text)
    return {
        name: hashlib.sha256((folder / name).read_bytes()).hexdigest()
        for name in ("cran.all.1400", "cran.qry", "cranqrel")
    }


def copy_workflow(folder: Path) -> None:
    folder.mkdir()
    for name in ("Snakefile", "config.yaml"):
        shutil.copy(REPO / name, folder / name)
    for name in ("workflow", "scripts"):
        shutil.copytree(REPO / name, folder / name, ignore=shutil.ignore_patterns("__pycache__"))


def default_retrievers_only(workdir: Path) -> None:
    """Keep the four default retrievers; drop the published experiments' runs (speed)."""
    path = workdir / "config.yaml"
    config = yaml.safe_load(path.read_text())
    config["retrievers"] = {name: config["retrievers"][name] for name in (*RUNS, "ql")}
    config["published"] = None
    path.write_text(yaml.safe_dump(config, sort_keys=False))


def snakemake(workdir: Path, raw: Path, pins: dict[str, str], *args: str) -> str:
    pinned = ", ".join(f"{name}: {digest}" for name, digest in pins.items())
    env = {k: v for k, v in os.environ.items() if k != "CRANFIELD_DIR"}
    command = [str(SNAKEMAKE), "--cores", "2", "-d", str(workdir), "-s", str(workdir / "Snakefile")]
    config = ["--config", f"cranfield_dir={raw}", f"cranfield_sha256={{{pinned}}}"]
    done = subprocess.run(
        [*command, *args, *config],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def outputs(workdir: Path) -> dict[str, int]:
    """Every output file and its modification time in nanoseconds."""
    found = list((workdir / "results" / "data").glob("*.*"))
    for folder in ("runs", "eval", "crosscheck", "tables"):
        found += list((workdir / "results" / folder).glob("*"))
    found.append(workdir / "results" / "summary.md")
    return {str(p.relative_to(workdir)): p.stat().st_mtime_ns for p in found if p.is_file()}


MY_RULE = """

rule my_run:
    input:
        "results/runs/bm25.run",
    output:
        "results/runs/mine.run",
    log:
        "results/logs/my_run.log",
    shell:
        "awk '{{$5 = -$4; print}}' {input} > {output} 2> {log}"
"""


@pytest.mark.workflow
def test_workflow_end_to_end(tmp_path):
    """The default retrievers, a run from a rule of one's own (mine, made from bm25's) and
    one from a file (theirs), in one Snakemake run: each workflow run costs tens of
    seconds, so one serves both the retrievers' checks and the added runs' checks."""
    pins = write_corpus(tmp_path / "raw")
    workdir = tmp_path / "workflow"
    copy_workflow(workdir)
    default_retrievers_only(workdir)
    outside = tmp_path / "elsewhere.run"
    outside.write_text("1 Q0 3 1 2.5 theirs\n1 Q0 1 2 1.5 theirs\n2 Q0 2 1 0.5 theirs\n")
    with (workdir / "Snakefile").open("a") as snakefile:
        snakefile.write(MY_RULE)
    config = yaml.safe_load((workdir / "config.yaml").read_text())
    config["runs"] = {"mine": None, "theirs": str(outside)}
    (workdir / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    snakemake(workdir, tmp_path / "raw", pins)

    data = workdir / "results" / "data"
    qrels = read_qrels(data / "qrels.txt")
    assert list(zip(qrels["topic"], qrels["docno"], qrels["grade"], strict=True)) == [
        ("1", "1", 2),
        ("1", "2", -1),
        ("2", "2", 3),
        ("2", "3", 1),
        ("3", "1", 4),
    ]
    assert (data / "queries.tsv").read_text() == (
        "1\tlift of a wing in flow .\n2\tshock waves and heat transfer .\n3\tthe .\n"
    )
    assert [json.loads(line)["docno"] for line in (data / "docs.jsonl").open()] == ["1", "2", "3"]
    manifest = json.loads((data / "manifest.json").read_text())
    assert manifest["source_sha256"] == pins
    assert manifest["counts"]["relevant_judgments"] == 4
    for name in RUNS:
        run = read_run(workdir / "results" / "runs" / f"{name}.run")
        # query 3 is only a stopword: no line under scope "matching"
        assert set(run["topic"]) == {"1", "2"}
        assert run[run["topic"] == "1"]["docno"].iloc[0] == "1"
        assert set(run["tag"]) == {name}
        counts = json.loads((workdir / "results" / "runs" / f"{name}.manifest.json").read_text())
        assert counts["counts"]["topics_without_lines"] == ["3"]

    for name in RUNS:
        table = read_long_table(workdir / "results" / "eval" / f"{name}.tsv")
        assert set(table["convention"]) == set(config_conventions())
        reference = table[table["convention"] == "reference"]
        # topic 3 has judgments but no line in the run: skipped by the reference ...
        assert set(reference["topic"]) == {"1", "2", "all"}
        # ... and averaged as 0 under -c
        complete = table[(table["convention"] == "all_qrels") & (table["measure"] == "num_q")]
        assert complete[complete["topic"] == "all"]["value"].item() == 3.0
        check = pd.read_csv(workdir / "results" / "crosscheck" / f"{name}.tsv", sep="\t")
        assert len(check) > 0 and check["agrees"].all()
    summary = (workdir / "results" / "summary.md").read_text()
    assert "| bm25 |" in summary and "| topics | 3 |" in summary

    # the runs from a rule and from a file join every table
    results = workdir / "results"
    assert (results / "runs" / "theirs.run").read_bytes() == outside.read_bytes()
    for name in ("mine", "theirs"):
        table = read_long_table(results / "eval" / f"{name}.tsv")
        assert set(table["run"]) == {name}
        assert (results / "crosscheck" / f"{name}.tsv").is_file()
    headline = pd.read_csv(results / "tables" / "reference.csv", index_col=0)
    retrievers = list(config["retrievers"])
    assert list(headline.index)[: len(retrievers) + 2] == [*retrievers, "mine", "theirs"]
    # theirs ranks document 3 (not relevant) above 1 (relevant) for topic 1: AP 1/2
    theirs = read_long_table(results / "eval" / "theirs.tsv")
    ap = theirs[(theirs["convention"] == "reference") & (theirs["measure"] == "map")]
    assert ap.set_index("topic")["value"]["1"] == 0.5

    assert "Nothing to be done" in snakemake(workdir, tmp_path / "raw", pins, "-n")

    before = outputs(workdir)
    config["retrievers"]["bm25"]["params"]["k1"] = 0.9
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    snakemake(workdir, tmp_path / "raw", pins)
    after = outputs(workdir)
    changed = sorted(name for name in after if after[name] != before[name])
    # only bm25's own files, mine's (made from bm25's run), and the tables and summary
    # that list every run: nothing of the other retrievers or of theirs
    assert [n for n in changed if not n.startswith("results/tables/")] == [
        "results/crosscheck/bm25.tsv",
        "results/crosscheck/mine.tsv",
        "results/eval/bm25.tsv",
        "results/eval/mine.tsv",
        "results/runs/bm25.manifest.json",
        "results/runs/bm25.run",
        "results/runs/mine.run",
        "results/summary.md",
    ]
    bm25 = json.loads((workdir / "results" / "runs" / "bm25.manifest.json").read_text())
    assert bm25["params"]["k1"] == 0.9


def test_a_malformed_external_run_stops_the_workflow(tmp_path):
    pins = write_corpus(tmp_path / "raw")
    workdir = tmp_path / "workflow"
    copy_workflow(workdir)
    default_retrievers_only(workdir)
    outside = tmp_path / "broken.run"
    outside.write_text("1 Q0 3 1 2.5 x\n1 Q0 1 2 oops x\n")
    config = yaml.safe_load((workdir / "config.yaml").read_text())
    config["runs"] = {"broken": str(outside)}
    (workdir / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    with pytest.raises(AssertionError) as failure:
        snakemake(workdir, tmp_path / "raw", pins, "results/runs/broken.run")
    log = (workdir / "results" / "logs" / "external_run" / "broken.log").read_text()
    assert f"{outside}:2:" in log and "oops" in log
    assert not (workdir / "results" / "runs" / "broken.run").exists()
    assert "external_run" in str(failure.value)


COLLECTION = REPO / "tests" / "data" / "collection"
# The sha256 of the tiny collection's files, pinned here as a config pins them.
COLLECTION_PINS = {
    "docs.jsonl": "e8408103ff7a7091bba81c59074c8755b7dd92d44e27958a51a750e92239e97b",
    "queries.tsv": "6e41cdb659fab15616d3e365116ac507a2d66d28813ffe940fe27a559b730472",
    "qrels": "4ac179c8085b4c3cd5e961a4817ba1a486e3948a6d256faef49b3e8980c76449",
}


def collection_workflow(workdir: Path, dataset) -> None:
    """The workflow with `dataset:` set, the default retrievers and the published
    comparison still configured (it must not run on another collection)."""
    copy_workflow(workdir)
    path = workdir / "config.yaml"
    config = yaml.safe_load(path.read_text())
    config["dataset"] = dataset
    config["retrievers"] = {name: config["retrievers"][name] for name in (*RUNS, "ql")}
    path.write_text(yaml.safe_dump(config, sort_keys=False))


def run_snakemake(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "CRANFIELD_DIR"}
    command = [str(SNAKEMAKE), "--cores", "2", "-d", str(workdir), "-s", str(workdir / "Snakefile")]
    return subprocess.run(
        [*command, *args], cwd=workdir, env=env, capture_output=True, text=True, timeout=900
    )


@pytest.mark.workflow
def test_workflow_on_a_local_collection_folder(tmp_path):
    workdir = tmp_path / "workflow"
    collection_workflow(workdir, {"folder": str(COLLECTION), "sha256": COLLECTION_PINS})
    done = run_snakemake(workdir)
    assert done.returncode == 0, done.stdout + done.stderr

    data = workdir / "results" / "data"
    docs = [json.loads(line) for line in (data / "docs.jsonl").open()]
    assert [d["docno"] for d in docs] == [f"d{n:02d}" for n in range(1, 13)]
    # the folder's own fields, renamed doc_id -> docno; d12 has no title
    assert docs[11] == {
        "docno": "d12",
        "text": "A note with no title on the lift of slender bodies.",
        "title": "",
    }
    assert (data / "queries.tsv").read_text() == (COLLECTION / "queries.tsv").read_text()
    manifest = json.loads((data / "manifest.json").read_text())
    assert manifest["dataset"] == "local" and manifest["source_sha256"] == COLLECTION_PINS
    # 12 judgments; grade >= 1: 3 (topic 1) + 3 (topic 2) + 2 (topic 3) + 1 (topic 4) = 9
    assert manifest["counts"]["judgments"] == 12
    assert manifest["counts"]["relevant_judgments"] == 9
    assert str(COLLECTION) not in (data / "manifest.json").read_text()

    bm25 = read_run(workdir / "results" / "runs" / "bm25.run")
    # "baking bread with yeast" -> bake, bread, yeast: d06 holds all three stems, d08
    # (sourdough) two of them, d07 (pasta) none
    topic3 = list(bm25[bm25["topic"] == "3"]["docno"])
    assert topic3 == ["d06", "d08"]
    # query 4 ("the") is only a stopword: no line
    assert set(bm25["topic"]) == {"1", "2", "3"}
    table = read_long_table(workdir / "results" / "eval" / "bm25.tsv")
    reference = table[table["convention"] == "reference"].set_index(["topic", "measure"])
    # topic 3: relevant d06, d08 at ranks 1 and 2: AP = (1/1 + 2/2) / 2 = 1
    assert reference.loc[("3", "map"), "value"] == 1.0
    check = pd.read_csv(workdir / "results" / "crosscheck" / "bm25.tsv", sep="\t")
    assert len(check) > 0 and check["agrees"].all()
    # the published figures are Cranfield's: no comparison on another collection
    assert not (workdir / "results" / "published").exists()
    assert "published" not in (workdir / "results" / "summary.md").read_text().lower()
    assert "Nothing to be done" in run_snakemake(workdir, "-n").stdout


@pytest.mark.parametrize(
    ("files", "pins", "named"),
    [
        (("docs.jsonl", "queries.tsv"), {}, "collection folder has no qrels"),
        (("docs.jsonl", "queries.tsv", "qrels"), {"qrels": "0" * 64}, "qrels: sha256 is"),
    ],
    ids=["missing_file", "changed_file"],
)
def test_a_bad_collection_folder_fails_before_any_job(tmp_path, files, pins, named):
    folder = tmp_path / "collection"
    folder.mkdir()
    for name in files:
        shutil.copy(COLLECTION / name, folder / name)
    workdir = tmp_path / "workflow"
    collection_workflow(workdir, {"folder": str(folder), "sha256": {**COLLECTION_PINS, **pins}})
    done = run_snakemake(workdir)
    assert done.returncode != 0
    assert named in done.stderr + done.stdout
    assert not (workdir / "results" / "data").exists()


def test_an_unknown_ir_datasets_id_fails_before_any_job(tmp_path):
    workdir = tmp_path / "workflow"
    collection_workflow(workdir, {"ir_datasets": "cranfeld"})
    done = run_snakemake(workdir)
    assert done.returncode != 0
    assert "dataset.ir_datasets: 'cranfeld' is not a dataset" in done.stderr + done.stdout
    assert not (workdir / "results" / "data").exists()
