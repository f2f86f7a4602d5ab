"""Two clean runs of the whole workflow on Cranfield give byte-identical results/.

Copies the workflow and the irscore sources into a temporary directory (the
jobs import that copy through PYTHONPATH, so edits made meanwhile cannot leak
into one run and not the other), runs it from an empty results/ under
`/usr/bin/time -v`, saves the tree, deletes results/, runs it again and
compares every file. Prints the wall time and peak memory of each run and the
files that differ (none, or the script exits with status 1). The report
(results/report.html) is not part of `make results` and embeds its creation
time, so it is not compared.

Run: .venv/bin/python benchmarks/reproducibility.py [--cranfield DIR] [--cores N]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).parent / "snakemake"


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` and its bytes."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def clean_run(workdir: Path, cranfield: str, cores: int) -> str:
    """One run from an empty results/: wall clock, CPU time (user + system, every job) and
    peak RSS as /usr/bin/time -v reports them."""
    shutil.rmtree(workdir / "results", ignore_errors=True)
    command = ["/usr/bin/time", "-v", str(SNAKEMAKE), "--cores", str(cores), "--quiet", "all"]
    env = {**os.environ, "CRANFIELD_DIR": cranfield, "PYTHONPATH": str(workdir / "src")}
    done = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(done.stdout + done.stderr)
    report = dict(re.findall(r"^\s*(.+?): (\S+)$", done.stderr, re.M))
    cpu = float(report["User time (seconds)"]) + float(report["System time (seconds)"])
    wall = report["Elapsed (wall clock) time (h:mm:ss or m:ss)"]
    peak = int(report["Maximum resident set size (kbytes)"]) / 1024
    return f"wall {wall}, CPU {cpu:.0f} s, peak RSS of the largest process {peak:.0f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = os.environ.get("CRANFIELD_DIR") or str(REPO.parent / "shared" / "data" / "cranfield")
    parser.add_argument("--cranfield", default=default, help="the local copy of the raw files")
    parser.add_argument("--cores", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="irscore-repro-") as scratch:
        workdir = Path(scratch)
        for name in ("Snakefile", "config.yaml"):
            shutil.copy(REPO / name, workdir / name)
        for name in ("workflow", "scripts"):
            shutil.copytree(
                REPO / name, workdir / name, ignore=shutil.ignore_patterns("__pycache__")
            )
        trees = []
        for attempt in (1, 2):
            times = clean_run(workdir, str(Path(args.cranfield).resolve()), args.cores)
            trees.append(tree(workdir / "results"))
            print(f"clean run {attempt}: {times}", flush=True)
        one, two = trees
        differ = sorted(set(one) ^ set(two)) + sorted(
            n for n in set(one) & set(two) if one[n] != two[n]
        )
        size = sum(map(len, one.values()))
        print(
            f"{len(one)} files, {size / 1e6:.1f} MB under results/; different: {differ or 'none'}"
        )
        sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
