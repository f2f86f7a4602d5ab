"""`make results`: the workflow run so that it always recovers, and says little.

Under a lock that a second `make results` in the same folder cannot take (the kernel
drops it when its holders die, even by kill -9), before Snakemake starts: a Snakemake
lock left by a killed run is cleared, but never while a Snakemake still runs there;
temporary files of killed jobs are removed; a result that differs from its record
(results/records/, results/data/manifest.json) loses its record, so that the step that
wrote it runs again; the files of a run that config.yaml no longer lists are removed.
Snakemake then runs with --rerun-incomplete (a job a kill cut short is redone); its
whole output goes to results/logs/workflow.log, and the terminal shows one line per
finished job, then where the summary is, or what failed and why.

`make report` runs it with --report: Snakemake's report of the results, said in one
line per step, its output in results/logs/report.log.

Usage: python -m irscore.pipeline.workflow_runner [-d DIR] [--report] [SNAKEMAKE ARGUMENTS ...]
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import yaml

from irscore.pipeline.integrity import DATA_MANIFEST, IntegrityError, damaged

LOCK = Path(".snakemake") / "make-results.lock"
LOG = Path("results") / "logs" / "workflow.log"
SUMMARY = Path("results") / "summary.md"
REPORT = Path("results") / "report.html"
REPORT_LOG = Path("results") / "logs" / "report.log"
# irscore's additions to the report's look (see the file).
STYLESHEET = "workflow/report/style.css"
RECORDS = Path("results") / "records"
DATA = Path("results") / "data"
RUNS = Path("results") / "runs"
CONFIG = "config.yaml"
IDEAL = "ideal"  # irscore.pipeline.ideal.TAG: the workflow's own run, never in the config
# atomic_output's temporary names (irscore.engine.reading.trec): .NAME.RANDOM.tmp beside the target.
TEMPORARY = ".*.tmp"
AGAIN = "run `make results` again"

_RULE = re.compile(r"^(?:local)?rule (\w+):$")
# The plan's row for the target rule `all`, which runs nothing: the counter leaves it out.
_ALL_PLANNED = re.compile(r"^all\s+(\d+)$")
_FIELD = re.compile(r"^\s+(jobid|wildcards|log): (.*)$")
_FINISHED = re.compile(r"^Finished jobid: (\d+) ")
_STEPS = re.compile(r"^(\d+) of (\d+) steps")
_JOB_ERROR = re.compile(r"^Error in rule (\w+):$")
_ERROR = re.compile(r"(Error|Exception)\b")
_IN_FILE = re.compile(r"^\w+ in file .*, line \d+:$")


class Busy(RuntimeError):
    """Another run of the workflow holds this folder."""


def main(argv: list[str] | None = None) -> int:
    """Run the workflow in -d DIR (default: here) with the other arguments for Snakemake;
    with --report first, write the Snakemake report of the results instead."""
    args = list(sys.argv[1:] if argv is None else argv)
    workdir = Path(".")
    if args[:1] == ["-d"] and len(args) > 1:
        workdir, args = Path(args[1]), args[2:]
    report = args[:1] == ["--report"]
    os.chdir(workdir)
    LOCK.parent.mkdir(exist_ok=True)
    with open(LOCK, "a+", encoding="utf-8") as lock:
        try:
            hold(lock)
            if report:
                return run_report(args[1:], lock)
            for line in recover():
                say(line)
        except Busy as busy:
            print(f"make {'report' if report else 'results'}: {busy}", file=sys.stderr)
            return 2
        return run_snakemake(args, lock)


def run_report(args: list[str], lock) -> int:
    """`make report`: Snakemake's report of the results, its output to REPORT_LOG; one
    line per step shown (the results added with their captions, the rules' code), then
    where the report is, or what failed."""
    snakemake = Path(sys.executable).parent / "snakemake"
    command = [str(snakemake), "--report", str(REPORT), "--report-stylesheet", STYLESHEET, *args]
    REPORT_LOG.parent.mkdir(parents=True, exist_ok=True)
    added = rules = 0
    output: list[str] = []
    with open(REPORT_LOG, "w", encoding="utf-8") as log:
        process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            pass_fds=(lock.fileno(),),
        )
        for line in process.stdout:
            log.write(line)
            output.append(line.rstrip("\n"))
            if line.startswith("Adding "):
                added += 1
            elif line.startswith("Loading script code for rule "):
                if not rules:
                    say(f"[1/2] {added} results, each with its caption")
                rules += 1
            elif line.startswith("Report created."):
                say(f"[2/2] the workflow: its rule graph, the code of {rules} rules, run times")
        code = process.wait()
    if code == 0:
        size = REPORT.stat().st_size / 2**20
        say(f"Done: {REPORT} ({size:.1f} MiB; the full log: {REPORT_LOG})")
    else:
        for line in _first_error(output) or [f"Snakemake stopped with exit status {code}"]:
            say(line, sys.stderr)
        say(f"The full log: {REPORT_LOG}", sys.stderr)
    return code


def hold(lock) -> None:
    """Take the folder's lock, or raise Busy naming the run that holds it."""
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.seek(0)
        holder = lock.read().strip() or "?"
        raise Busy(
            f"another `make results` (pid {holder}) is running in {Path.cwd()}; "
            f"wait for it to end, then {AGAIN}"
        ) from None
    lock.seek(0)
    lock.truncate()
    lock.write(f"{os.getpid()}\n")
    lock.flush()
    others = snakemake_processes(Path.cwd())
    if others:
        raise Busy(
            f"Snakemake (pid {', '.join(map(str, others))}) is running in {Path.cwd()}; "
            f"wait for it to end, then {AGAIN}"
        )


def snakemake_processes(folder: Path) -> list[int]:
    """Pids of Snakemake processes (not their jobs) whose working directory is `folder`."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")[:3]
            names = [Path(arg.decode(errors="replace")).name for arg in argv]
            snakemake = "snakemake" in names[:2] or names[1:3] == ["-m", "snakemake"]
            if snakemake and Path(os.readlink(proc / "cwd")) == folder.resolve():
                found.append(int(proc.name))
        except OSError:  # the process ended, or is not ours to read
            continue
    return sorted(pid for pid in found if pid != os.getpid())


def recover() -> Iterator[str]:
    """Undo what an interrupted run left (the caller holds the lock and no Snakemake
    runs here), saying what was done in one line each."""
    locks = [path for path in Path(".snakemake", "locks").glob("*") if path.is_file()]
    for path in locks:
        path.unlink()
    if locks:
        yield "cleared the lock that an interrupted run left"
    temporary = [path for path in Path("results").rglob(TEMPORARY) if path.is_file()]
    for path in temporary:
        path.unlink()
    if temporary:
        yield f"removed {len(temporary)} temporary file(s) of interrupted jobs"
    for name in unconfigured_runs():
        files = run_files(name)
        for path in files:
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()
        yield f"removed the {len(files)} files of {name}, a run config.yaml no longer lists"
    records = [*sorted(RECORDS.rglob("*.json")), *sorted(DATA.glob(DATA_MANIFEST))]
    for record in records:
        try:
            found = damaged([record])
        except IntegrityError as err:
            found = [(str(record), str(err), str(record))]
        if found:
            path, problem, _ = found[0]
            record.unlink(missing_ok=True)
            yield f"{path}: {problem} in {record}: its step runs again"


def unconfigured_runs() -> list[str]:
    """The runs under results/runs/ that config.yaml no longer lists (a retriever or run
    taken out): their files would otherwise stay behind."""
    try:
        config = yaml.safe_load(Path(CONFIG).read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError):  # Snakemake will say what is wrong with it
        return []
    listed = {IDEAL, *(config.get("retrievers") or {}), *(config.get("runs") or {})}
    return sorted(path.stem for path in RUNS.glob("*.run") if path.stem not in listed)


def run_files(name: str) -> list[Path]:
    """What the workflow writes for one run: the run and its manifest, its scores and
    cross-check, its records, its logs, its shards."""
    results = Path("results")
    candidates = [
        RUNS / f"{name}.run",
        RUNS / f"{name}.manifest.json",
        results / "eval" / f"{name}.tsv",
        results / "crosscheck" / f"{name}.tsv",
        results / "shards" / name,
        RECORDS / "shards" / name,
        *RECORDS.glob(f"*/{name}.json"),
        *(results / "logs").glob(f"*/{name}.log"),
    ]
    return [path for path in candidates if path.exists()]


def run_snakemake(args: list[str], lock) -> int:
    """Snakemake with the whole output to LOG and one line per finished job shown."""
    snakemake = Path(sys.executable).parent / "snakemake"
    command = [str(snakemake), "--rerun-incomplete", *args]  # all of it goes to the log
    LOG.parent.mkdir(parents=True, exist_ok=True)
    interrupted = False

    def note_interrupt(signum, frame):  # Ctrl-C reaches Snakemake too: let it stop its jobs
        nonlocal interrupted
        interrupted = True

    previous = signal.signal(signal.SIGINT, note_interrupt)
    jobs: dict[str, dict[str, str]] = {}
    failed: list[dict[str, str]] = []
    output: list[str] = []
    current: dict[str, str] | None = None
    finished = None
    shown, not_shown = 0, 0
    with open(LOG, "w", encoding="utf-8") as log:
        process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            pass_fds=(lock.fileno(),),  # the lock lives as long as Snakemake does
        )
        for line in process.stdout:
            log.write(line)
            line = line.rstrip("\n")
            output.append(line)
            if match := _ALL_PLANNED.match(line):
                not_shown = int(match[1])
            elif match := _RULE.match(line):
                current = {"rule": match[1]}
            elif match := _JOB_ERROR.match(line):
                current = {"rule": match[1]}
                failed.append(current)
            elif (match := _FIELD.match(line)) and current is not None:
                current[match[1]] = match[2]
                if match[1] == "jobid" and current not in failed:
                    jobs[match[2]] = current
            elif match := _FINISHED.match(line):
                finished = jobs.get(match[1])
            elif (match := _STEPS.match(line)) and finished is not None:
                name = " ".join([finished["rule"], *_wildcard_values(finished)])
                if finished["rule"] != "all":
                    shown += 1
                    total = str(int(match[2]) - not_shown)
                    say(f"[{shown:>{len(total)}}/{total}] {name}")
                finished = None
        code = process.wait()
    signal.signal(signal.SIGINT, previous)
    for line in outcome(code, interrupted, failed, output):
        say(line, sys.stderr if code else sys.stdout)
    return 130 if interrupted and code else code


def say(line: str, stream=None) -> None:
    """Print a line at once; a closed terminal or pipe (`make results | head`) must not
    stop the run, whose log is complete anyway."""
    stream = stream or sys.stdout
    try:
        print(line, file=stream, flush=True)
    except BrokenPipeError:  # from now on, into the void
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())


def outcome(
    code: int, interrupted: bool, failed: list[dict[str, str]], output: list[str]
) -> Iterator[str]:
    """What the user reads at the end: where the summary is, or what failed and why."""
    if code == 0:
        if any(line.startswith("Nothing to be done") for line in output):
            yield "Nothing to be done: every result is up to date."
        yield f"Done: {SUMMARY} (the full log: {LOG})"
        return
    if interrupted:
        yield f"Interrupted: {AGAIN} to finish (what was cut short is redone)."
        return
    for job in failed:
        name = " ".join([job["rule"], *_wildcard_values(job)])
        log = job.get("log", "").split(" ")[0]
        yield f"failed: {name}: {_last_error(log)}" + (f" (log: {log})" if log else "")
    if not failed:
        yield from _first_error(output) or [f"Snakemake stopped with exit status {code}"]
    yield f"The full log: {LOG}"


def _first_error(output: list[str]) -> list[str]:
    """The message of the first error Snakemake printed, without its traceback: for
    `XError in file F, line N:` the lines after it, else the error line and those after."""
    for at, line in enumerate(output):
        if _ERROR.search(line) and not line.startswith((" ", "Exiting because")):
            start = at + 1 if _IN_FILE.match(line) else at
            shown = []
            for text in output[start : start + 6]:
                if not text.strip() or text.startswith("  File "):
                    break
                shown.append(text.strip())
            return shown
    return []


def _wildcard_values(job: dict[str, str]) -> list[str]:
    """The values of a job's wildcards (`run=bm25` -> bm25)."""
    pairs = job.get("wildcards", "")
    return [pair.partition("=")[2] for pair in pairs.split(", ") if "=" in pair]


def _last_error(log: str) -> str:
    """The error a job's log ends with (irscore's one-line message, else the last line)."""
    try:
        lines = [line.strip() for line in Path(log).read_text(encoding="utf-8").splitlines()]
    except (OSError, ValueError):
        return "see the full log"
    for line in reversed(lines):
        if line.startswith("ERROR "):
            return line.split(": ", 1)[-1]
    return next((line for line in reversed(lines) if line), "see the full log")


if __name__ == "__main__":
    sys.exit(main())
