"""Two clean runs of the whole workflow on Cranfield give byte-identical results/.

Copies every file git tracks (as it is in the working tree: the workflow, the
scripts and src/irscore) into a temporary directory, and runs the jobs with
PYTHONPATH at that copy's src/, which it checks (and prints) comes before the
installed package, so edits made meanwhile cannot leak into one run and not the
other. Runs the workflow there from an empty results/ under
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


def copy_tree(workdir: Path) -> None:
    """Every file git tracks, as it is in the working tree, under `workdir`."""
    listed = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, check=True
    ).stdout
    for name in listed.decode().split("\0"):
        if name and (REPO / name).is_file():
            (workdir / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, workdir / name)


def environment(workdir: Path, cranfield: str) -> dict[str, str]:
    """The jobs' environment: the copy's sources first on the import path."""
    return {**os.environ, "CRANFIELD_DIR": cranfield, "PYTHONPATH": str(workdir / "src")}


def imported_from(workdir: Path, env: dict[str, str]) -> Path:
    """Where a fresh Python with the jobs' environment imports irscore from."""
    code = "import irscore; print(irscore.__file__)"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=workdir, env=env, capture_output=True, text=True
    )
    return Path(done.stdout.strip())


def clean_run(workdir: Path, cranfield: str, cores: int) -> str:
    """One run from an empty results/: wall clock, CPU time (user + system, every job) and
    peak RSS as /usr/bin/time -v reports them."""
    shutil.rmtree(workdir / "results", ignore_errors=True)
    command = ["/usr/bin/time", "-v", str(SNAKEMAKE), "--cores", str(cores), "--quiet", "all"]
    env = environment(workdir, cranfield)
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
        copy_tree(workdir)
        cranfield = str(Path(args.cranfield).resolve())
        source = imported_from(workdir, environment(workdir, cranfield))
        if not source.is_relative_to(workdir):
            sys.exit(f"the jobs would import irscore from {source}, not from the copy")
        print(f"copied the tracked files to {workdir}; jobs import {source.relative_to(workdir)}")
        trees = []
        for attempt in (1, 2):
            times = clean_run(workdir, cranfield, args.cores)
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
