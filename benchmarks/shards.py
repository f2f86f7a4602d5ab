"""When does sharding a run by query pay? bm25 on Cranfield in 1, 2 and 4 shards.

Copies the workflow to a temporary folder, exports Cranfield once (from
$CRANFIELD_DIR), then for each shard count removes the run, its shards and
the index and times `snakemake --cores CORES results/runs/bm25.run` (the
index, the shard jobs and the merge; one retrieve job when unsharded), and
checks that every sharded run is the unsharded run byte for byte.

    CRANFIELD_DIR=... .venv/bin/python benchmarks/shards.py [--cores 2 --shards 1 2 4]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).parent / "snakemake"
RUN = "bm25"


def timed(workdir: Path, args: list[str], env: dict[str, str] | None = None) -> float:
    """Wall-clock seconds of `snakemake ARGS` in `workdir` (it must succeed); also
    benchmarks/slurm.py's."""
    start = time.perf_counter()
    done = subprocess.run(
        [str(SNAKEMAKE), *args], cwd=workdir, env=env, capture_output=True, text=True
    )
    seconds = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(done.stdout + done.stderr)
    return seconds


def snakemake(workdir: Path, cores: int, *targets: str) -> float:
    """Wall-clock seconds of one quiet snakemake call making `targets` on `cores`."""
    return timed(workdir, [*targets, "--cores", str(cores), "--quiet", "all"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--shards", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    if not os.environ.get("CRANFIELD_DIR"):
        raise SystemExit("set CRANFIELD_DIR to the local Cranfield copy")
    with tempfile.TemporaryDirectory() as folder:
        workdir = Path(folder)
        for name in ("Snakefile", "config.yaml"):
            shutil.copy(REPO / name, workdir / name)
        for name in ("workflow", "scripts"):
            shutil.copytree(REPO / name, workdir / name)
        snakemake(workdir, args.cores, "results/data/queries.tsv", "results/data/docs.jsonl")
        config = yaml.safe_load((workdir / "config.yaml").read_text())
        reference = None
        print(f"bm25 on Cranfield, --cores {args.cores}; best of {args.repeat} clean runs")
        print(f"{'shards':>6s} {'jobs':>5s} {'wall (s)':>9s} {'vs 1 job':>9s}  same bytes")
        for shards in args.shards:
            config["retrievers"][RUN]["shards"] = shards
            (workdir / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
            times = []
            for _ in range(args.repeat):
                for stale in ("results/index", "results/shards"):
                    shutil.rmtree(workdir / stale, ignore_errors=True)
                for suffix in (".run", ".manifest.json"):
                    (workdir / "results" / "runs" / f"{RUN}{suffix}").unlink(missing_ok=True)
                times.append(snakemake(workdir, args.cores, f"results/runs/{RUN}.run"))
            data = (workdir / "results" / "runs" / f"{RUN}.run").read_bytes()
            reference = reference if reference is not None else (data, min(times))
            jobs = 1 if shards == 1 else shards + 2
            same = "yes" if data == reference[0] else "NO"
            ratio = min(times) / reference[1]
            print(f"{shards:6d} {jobs:5d} {min(times):9.2f} {ratio:8.2f}x  {same}")


if __name__ == "__main__":
    main()
