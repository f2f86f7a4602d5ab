"""What the process benchmarks share: timing a whole process, interleaved repeats,
pytrec_eval as a user's script, and comparing two tools' printed output."""

from __future__ import annotations

import compileall
import os
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

TREC_EVAL_DEFAULT = "/opt/trec_eval/trec_eval-9.0.8"
IRSCORE = [sys.executable, "-m", "irscore", "evaluate"]

# pytrec_eval as people use it, in one process: `qrels measures run...`; each line
# split in Python into nested dicts, then RelevanceEvaluator on every run in turn.
PYTREC = """
import sys, pytrec_eval
qrels = {}
with open(sys.argv[1]) as f:
    for line in f:
        t, _, d, g = line.split()
        qrels.setdefault(t, {})[d] = int(g)
evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(sys.argv[2].split(",")))
for path in sys.argv[3:]:
    run = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            t, _, d, _, s, _ = line.split()
            run.setdefault(t, {})[d] = float(s)
    print(len(evaluator.evaluate(run)))
"""


class ToolFailed(Exception):
    """A measured process exited with an error (its message holds the last stderr lines;
    `tool` names it once interleaved knows which)."""

    tool: str = ""


def compile_irscore() -> None:
    """Compile irscore to bytecode, as pip does at install: under PYTHONDONTWRITEBYTECODE
    every measured process would otherwise compile its modules at start."""
    import irscore

    compileall.compile_dir(Path(irscore.__file__).parent, quiet=1)


def settle_libraries(*binaries: str) -> tuple[int, list[str]]:
    """Drop from the page cache the shared libraries every measured process maps (the
    interpreter's and the venv's, and these `binaries`); returns how many were dropped
    and the paths this process maps, which the kernel keeps cached. Pages that pip has
    just written stay cached as large folios, and a process that maps one gets all of it
    in its resident set: after a fresh install numpy and pyarrow's import peaks at
    ~20 MiB more than once the pages have been read from disk. Re-read, they are the
    same on every machine. Each file is fsynced first: DONTNEED keeps pages not yet
    written back. Needs no privilege (one that cannot be opened is left, not counted)."""
    roots = {Path(sys.prefix), Path(sys.base_prefix)}
    files = [p for root in roots for p in root.rglob("*.so*") if p.is_file()]
    mapped = _mapped_files()
    settled, kept = 0, []
    for path in files + [Path(b) for b in binaries if b]:
        if str(path.resolve()) in mapped:
            kept.append(str(path))
            continue
        try:
            descriptor = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.fsync(descriptor)
            os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
            settled += 1
        finally:
            os.close(descriptor)
    return settled, kept


def _mapped_files() -> set[str]:
    """The files this process maps (/proc/self/maps; empty where there is none)."""
    try:
        lines = Path("/proc/self/maps").read_text().splitlines()
    except OSError:
        return set()
    fields = (line.split(maxsplit=5) for line in lines)
    return {f[5] for f in fields if len(f) == 6}


def pytrec_command(qrels: Path, runs: list[Path], measures: list[str]) -> list[str]:
    """The pytrec_eval process (parse + evaluate) for these files."""
    return [sys.executable, "-c", PYTREC, str(qrels), ",".join(measures), *map(str, runs)]


def timed(command: list[str]) -> tuple[float, float]:
    """(wall seconds, peak resident MiB) of one process and every process it forks,
    its output thrown away.

    The peak is the largest sum of the resident memory of the process and its
    descendants (a forked worker counts), sampled every few milliseconds from
    /proc, or the child's rusage as /usr/bin/time reports it where that is more
    (a peak shorter than a sample): a child forked straight from this Python
    process would count this process's memory as its own high-water mark. A
    forked child (the same program as its parent, not exec'd) adds only its own
    pages: those it still shares with its parent are in its parent's already.
    """
    start = time.perf_counter()
    child = subprocess.Popen(
        ["/usr/bin/time", "-f", "%M", *command], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    group = _GroupPeak(child.pid)
    group.start()
    try:
        _, stderr = child.communicate()
    finally:
        group.stop()
    wall = time.perf_counter() - start
    *error, peak = stderr.decode(errors="replace").rstrip("\n").split("\n")
    if child.returncode != 0:
        tail = " | ".join(line for line in error[-3:] if not line.startswith("Command exited"))
        raise ToolFailed(f"exit {child.returncode}: {tail}")
    return wall, max(int(peak) / 1024, group.peak / 2**20)


class _GroupPeak(threading.Thread):
    """The largest summed resident memory (bytes) of the descendants of `root` (not
    `root` itself: /usr/bin/time), sampled until `stop`; a fork counts its private
    pages (its copy-on-write pages shared with its parent are counted once)."""

    PAGE = os.sysconf("SC_PAGE_SIZE")

    def __init__(self, root: int):
        super().__init__(daemon=True)
        self.root, self.peak, self.done = root, 0, threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.02):
            self.peak = max(self.peak, sum(self._resident(*d) for d in self._descendants()))

    def stop(self) -> None:
        self.done.set()
        self.join()

    def _descendants(self) -> list[tuple[int, bool]]:
        """Every process below `root` (from /proc's children lists), and whether it is
        a fork of its parent: the same program, never exec'd."""
        found, pending = [], [self.root]
        while pending:
            pid = pending.pop()
            try:
                children = [
                    int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
                ]
            except OSError:
                continue
            parent = _program(pid) if pid != self.root else None
            found += [
                (child, parent is not None and _program(child) == parent) for child in children
            ]
            pending += children
        return found

    def _resident(self, pid: int, fork: bool) -> int:
        """A process's resident bytes now, only its private ones for a fork (0 once it has
        ended)."""
        try:
            if fork:
                rollup = Path(f"/proc/{pid}/smaps_rollup").read_text().split("\n")
                return 1024 * sum(
                    int(line.split()[1]) for line in rollup if line.startswith("Private_")
                )
            return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * self.PAGE
        except (OSError, IndexError, ValueError):
            return 0


def _program(pid: int) -> str | None:
    """The executable a process runs (None once it has ended)."""
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return None


@dataclass
class Samples:
    """Every repeat's wall seconds and peak MiB of one tool on one input."""

    walls: list[float] = field(default_factory=list)
    peaks: list[float] = field(default_factory=list)

    @property
    def wall(self) -> float:
        """The median wall time."""
        return statistics.median(self.walls)

    @property
    def peak(self) -> float:
        """The largest peak over the repeats."""
        return max(self.peaks)


def interleaved(tools: dict[str, list[str]], repeat: int) -> dict[str, Samples]:
    """Each tool `repeat` times, in rounds whose starting tool rotates, so that every
    tool meets the same machine load; raises ToolFailed (naming the tool) on the
    first failure."""
    samples = {tool: Samples() for tool in tools}
    names = list(tools)
    for i in range(repeat):
        for tool in names[i % len(names) :] + names[: i % len(names)]:
            try:
                wall, peak = timed(tools[tool])
            except ToolFailed as failed:
                failed.tool = tool
                raise
            samples[tool].walls.append(wall)
            samples[tool].peaks.append(peak)
    return samples


def difference(ours: bytes, theirs: bytes) -> str | None:
    """None when the two outputs are the same bytes, else which measures' lines differ
    (lines compared as sets: a missing measure shifts no others)."""
    if ours == theirs:
        return None
    mine, other = (set(out.decode(errors="replace").splitlines()) for out in (ours, theirs))
    only_theirs = Counter(line.split()[0] for line in other - mine if line.strip())
    only_ours = Counter(line.split()[0] for line in mine - other if line.strip())
    if not only_theirs and not only_ours:
        return "the same lines in another order"
    return (
        f"lines only trec_eval prints, by measure: {dict(only_theirs)}; "
        f"lines only irscore prints: {dict(only_ours)}"
    )
