"""The workflow on the tiny test corpus, locally and through a one-node SLURM: wall time.

Writes the corpus of tests/test_workflow.py and the tiny workflow's config (tfidf, and
bm25 in two shards), then times from clean, one after the other:
  local   `snakemake --cores 2`
  slurm   `snakemake --profile workflow/profiles/slurm --default-resources
           slurm_partition=main slurm_account=local` (the docs' recipe) on a one-node
           cluster started by workflow/slurm/one_node.py
  slurm1  the same with `--slurm-init-seconds-before-status-checks 1` (as the test)
and checks that every file under results/ but the logs is the local run's, byte for byte.
As root (the cluster's daemons):

    sudo .venv/bin/python benchmarks/slurm.py
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import tempfile
from pathlib import Path

import shards
import yaml

REPO = Path(__file__).resolve().parents[1]
SLURM = ["--profile", "workflow/profiles/slurm"]
SLURM += ["--default-resources", "slurm_partition=main", "slurm_account=local"]
RUNS = {
    "local": ["--cores", "2"],
    "slurm": SLURM,
    "slurm1": [*SLURM, "--slurm-init-seconds-before-status-checks", "1"],
}


def tiny_workflow(folder: Path) -> Path:
    """The tiny corpus in folder/raw and a workflow on it in folder/workflow."""
    sys.path.insert(0, str(REPO / "tests"))
    from test_report_workflow import two_retrievers
    from test_workflow import copy_workflow, write_corpus

    pins = write_corpus(folder / "raw")
    workdir = folder / "workflow"
    copy_workflow(workdir)
    two_retrievers(workdir)
    config = yaml.safe_load((workdir / "config.yaml").read_text())
    config["cranfield_sha256"] = pins
    config["retrievers"]["bm25"]["shards"] = 2
    (workdir / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    return workdir


def timed(workdir: Path, raw: Path, args: list[str]) -> float:
    """Wall-clock seconds of `snakemake ARGS` from clean (it must succeed)."""
    shutil.rmtree(workdir / "results", ignore_errors=True)
    shutil.rmtree(workdir / ".snakemake", ignore_errors=True)
    env = {k: v for k, v in os.environ.items() if k != "SLURM_CONF"}
    return shards.timed(workdir, args, {**env, "CRANFIELD_DIR": str(raw)})


def results(workdir: Path) -> dict[str, bytes]:
    """Every file under results/ but the logs (which name folders and times)."""
    found = (workdir / "results").rglob("*")
    return {
        str(p.relative_to(workdir)): p.read_bytes()
        for p in found
        if p.is_file() and "logs" not in p.parts
    }


def main() -> None:
    spec = importlib.util.spec_from_file_location("one_node", REPO / "workflow/slurm/one_node.py")
    one_node = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(one_node)
    with tempfile.TemporaryDirectory() as folder:
        workdir = tiny_workflow(Path(folder))
        raw = Path(folder) / "raw"
        seconds = {"local": timed(workdir, raw, RUNS["local"])}
        local = results(workdir)
        with one_node.one_node_cluster(Path(folder) / "slurm"):
            for name in ("slurm", "slurm1"):
                seconds[name] = timed(workdir, raw, RUNS[name])
                if results(workdir) != local:
                    raise SystemExit(f"{name}: results/ differs from the local run's")
    print(" ".join(f"{name} {value:.0f} s" for name, value in seconds.items()))


if __name__ == "__main__":
    main()
