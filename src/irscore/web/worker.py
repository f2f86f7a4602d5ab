"""What the page asks for, done by the irscore commands themselves, in a worker process.

The server writes the texts the page sent into the job's private folder under
the names `qrels`, `run_a` and `run_b` (`write_inputs`); the job runs `irscore
evaluate`, `explain`, `compare`, `interleave` or `pool` on them with the flags of
the settings (`irscore.web.settings`), exactly as a user would type them, and
returns what the command printed and wrote (JSON, text, an SVG figure). So every
number on the page is the one the command line prints for the same input and
flags, and every input error is the CLI's message, naming `qrels`, `run_a` or
`run_b` and the line. A job reads no path but the ones of its folder; the server
removes the folder when the job ends, however it ends (`irscore.web.jobs`).
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import shutil
import signal
import threading
import time
from collections.abc import Mapping
from contextlib import redirect_stderr, redirect_stdout
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from irscore.web import settings as s

INPUTS = {"qrels": "qrels", "a": "run_a", "b": "run_b"}
ERROR = re.compile(r"irscore: error: (?P<message>.*)")
AT_LINE = re.compile(r"^(?P<file>qrels|run_a|run_b):(?P<line>[0-9]+): ")
NAMED = re.compile(r"^(?P<file>qrels|run_a|run_b)\b")
LOG_SHOWN = 50  # impressions returned of the interleaving log
PROGRESS: dict[str, Any] = {"path": None, "step": 0}  # this worker's job: its progress file
PROGRESS_FILE = "progress"  # in the job's folder: the command it runs now


class JobError(Exception):
    """A command refused the input: its message, the input it names and the line."""

    def __init__(self, message: str, field: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.message, self.field, self.line = message, field, line

    def as_dict(self) -> dict[str, Any]:
        return {"message": self.message, "field": self.field, "line": self.line}


def serve(connection: Connection, root: str) -> None:
    """A worker process: the jobs sent on `connection`, one after another, each
    answered on it, until the server closes it. The worker leads a process group of
    its own (the server ends it with the processes a command forks, and Ctrl-C in
    the terminal is the server's alone) and ends with the server: a server killed
    outright leaves no worker, and its folder of jobs (`root`) is removed."""
    os.setpgrp()
    server = os.getppid()

    def watch() -> None:
        while os.getppid() == server:
            time.sleep(1)
        shutil.rmtree(root, ignore_errors=True)
        os.killpg(os.getpgrp(), signal.SIGKILL)

    threading.Thread(target=watch, daemon=True).start()
    warm()
    while True:
        try:
            kind, request, folder = connection.recv()
        except EOFError:
            return
        connection.send(True)  # taken: a death from now on is this job's
        try:
            answer = run(kind, request, Path(folder))
        except MemoryError:
            answer = failed("the job needs more memory than is free on this machine")
        except Exception as err:  # a bug: said, not hidden
            answer = failed(f"the job failed: {err!r}")
        connection.send(answer)


def failed(message: str) -> dict[str, Any]:
    """The answer of a job that failed outside the input and the settings."""
    return {"error": {"message": message, "field": None, "line": None}}


def warm() -> None:
    """Load the commands and the evaluation code (numpy, pandas, Arrow)."""
    import importlib

    from irscore.cli import build_parser

    importlib.import_module("irscore.engine.evaluate")  # the module (irscore.evaluate is the API's)
    build_parser()


def irscore(argv: list[str]) -> tuple[str, list[str]]:
    """Run one irscore command in this process: its standard output and its stderr
    lines; a JobError with the CLI's message when it fails. The command is written to
    the job's progress file first (what the page shows while it runs)."""
    from irscore.cli import main

    if PROGRESS["path"]:
        PROGRESS["step"] += 1
        shown = " ".join(a for a in argv if not a.startswith(("-l=", "--gmax=", "-m=")))
        Path(PROGRESS["path"]).write_text(f"{PROGRESS['step']}\tirscore {shown}", "utf-8")

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as stop:  # a usage error: argparse has said it on stderr
            status = stop.code or 0
    lines = [line for line in err.getvalue().splitlines() if line and not line.startswith("see ")]
    if status != 0:
        message = next((m["message"] for m in map(ERROR.match, lines) if m), "; ".join(lines))
        raise _located(message)
    return out.getvalue(), lines


def _located(message: str) -> JobError:
    """The error, with the input box it names (qrels, a, b) and the line, when it does."""
    at = AT_LINE.match(message)
    named = at or NAMED.match(message)
    field = None
    if named:
        field = {v: k for k, v in INPUTS.items()}[named["file"]]
    return JobError(message, field, int(at["line"]) if at else None)


def write_inputs(request: Mapping[str, Any], folder: Path) -> dict[str, Any]:
    """Write the request's texts into `folder` as `qrels`, `run_a` and `run_b` (a blank
    one is not written: the job says it is missing); the request without them."""
    for key, name in INPUTS.items():
        text = request.get(key) or ""
        if text and not text.isspace():
            (folder / name).write_text(text, encoding="utf-8", newline="")
    return {key: value for key, value in request.items() if key not in INPUTS}


def run(kind: str, request: Mapping[str, Any], folder: Path) -> dict[str, Any]:
    """One job of the page on the inputs in `folder` (`write_inputs`): {"ok": result}
    or {"error": {message, field, line}}; each command it runs is written to the
    folder's progress file as it starts."""
    job = JOBS[kind]
    PROGRESS.update(path=folder / PROGRESS_FILE, step=0)
    here = os.getcwd()
    os.chdir(folder)  # the commands name their inputs as the page does: qrels, run_a
    try:
        return {"ok": finite(job(request, folder))}
    except JobError as err:
        return {"error": err.as_dict()}
    except s.SettingError as err:
        return {"error": {"message": str(err), "field": "settings", "line": None}}
    finally:
        os.chdir(here)


def finite(value: Any) -> Any:
    """The result with NaN and infinities as None: JSON has no such numbers (the
    commands' JSON writes NaN where a value is undefined, as for a test's CI)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def _inputs(needed: tuple[str, ...]) -> list[str]:
    """The file names of the inputs the job needs, in order; a JobError for one missing."""
    for key in needed:
        if not Path(INPUTS[key]).exists():
            what = "the qrels" if key == "qrels" else f"run {key.upper()}"
            raise JobError(f"{what}: paste or open a file first", key)
    return [INPUTS[key] for key in needed]


def _runs() -> tuple[str, ...]:
    return ("a", "b") if Path(INPUTS["b"]).exists() else ("a",)


def _svg(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.exists() else None


def evaluate(request: Mapping[str, Any], folder: Path) -> dict[str, Any]:
    """Metrics: every measure per topic and its mean for each run, and trec_eval's text
    (`irscore evaluate` with and without --format tsv -q)."""
    raw = request.get("settings") or {}
    flags = s.convention_flags(raw) + s.evaluate_measures(raw)
    qrels, *runs = _inputs(("qrels", *_runs()))
    result: dict[str, Any] = {"runs": {}, "notes": []}
    for key, run in zip(_runs(), runs, strict=True):
        table, notes = irscore(["evaluate", *flags, "-q", "--format=tsv", qrels, run])
        text, _ = irscore(["evaluate", *flags, qrels, run])
        result["runs"][key] = {**_by_measure(table), "trec": text}
        result["notes"] += [n for n in notes if n not in result["notes"] and not _shown_anyway(n)]
    result["command"] = " ".join(["irscore evaluate", *flags, qrels, "RUN"])
    return result


def trec_per_topic(request: Mapping[str, Any], folder: Path) -> dict[str, Any]:
    """trec_eval's per-topic text of one run (`irscore evaluate -q`), asked for when shown."""
    raw = request.get("settings") or {}
    key = s.choice(request, "run", ("a", "b"), "a")
    flags = s.convention_flags(raw) + s.evaluate_measures(raw)
    qrels, run = _inputs(("qrels", key))
    text, _ = irscore(["evaluate", *flags, "-q", qrels, run])
    return {"run": key, "trec_q": text}


def _by_measure(tsv: str) -> dict[str, Any]:
    """The long table (run, convention, topic, measure, value) as the page reads it: the
    run's name, its topics, each measure's values per topic (None where a topic has
    none) and each mean (topic `all`)."""
    rows = [line.split("\t") for line in tsv.splitlines()[1:]]
    topics = list(dict.fromkeys(r[2] for r in rows if r[2] != "all"))
    where = {topic: i for i, topic in enumerate(topics)}
    values: dict[str, list[Any]] = {}
    means: dict[str, Any] = {}
    for _, _, topic, measure, value in rows:
        number = _number(value)
        if topic == "all":
            means[measure] = number
        else:
            values.setdefault(measure, [None] * len(topics))[where[topic]] = number
    name = rows[0][0] if rows else ""
    return {"name": name, "topics": topics, "values": values, "means": means}


def _number(value: str) -> float | str:
    """A value of the table: a number, or the text of a text measure (runid, relstring)."""
    try:
        return float(value)
    except ValueError:
        return value


def _shown_anyway(note: str) -> bool:
    """The note that the JSON table has no relstring: the per-query text shows it."""
    return note.startswith("irscore: note: relstring is text")


def ranking(request: Mapping[str, Any], folder: Path) -> dict[str, Any]:
    """One ranking: what `irscore explain` prints (Markdown and JSON) and its figure."""
    raw = request.get("settings") or {}
    flags = s.convention_flags(raw)
    if request.get("mode") == "data":
        key = s.choice(request, "run", ("a", "b"), "a")
        qrels, run = _inputs(("qrels", key))
        topic = s.pattern(request, "topic", s.TOPIC, "a topic of the qrels")
        k = s.whole(request, "ek", 10, 1, 100_000)
        where = [qrels, run, f"--topic={topic}"]
    else:
        grades = s.pattern(request, "grades", s.GRADES, "grades such as 3,2,?,0")
        missed = s.pattern(request, "extra", s.MISSED, "grades such as 3,2")
        k = s.whole(request, "ek", len(grades.split(",")), 1, 100_000)
        where = [f"--grades={grades}"] + ([f"--missed={missed}"] if missed else [])
    argv = ["explain", *where, f"-k={k}", *flags]
    if s.flag(request, "brief"):  # the per-query table's strip of grades: the JSON alone
        data, _ = irscore([*argv, "--format=json"])
        return {"explain": json.loads(data), "command": " ".join(["irscore", *argv])}
    data, _ = irscore([*argv, "--format=json", "--plot=explain.svg"])
    text, _ = irscore(argv)
    return {
        "explain": json.loads(data),
        "text": text,
        "svg": _svg(folder / "explain.svg"),
        "command": " ".join(["irscore", *argv]),
    }


def compare(request: Mapping[str, Any], folder: Path) -> dict[str, Any]:
    """Compare: the four paired tests of one measure (B against A), significant after
    `irscore compare`'s correction (its default, holm, unless chosen) and which one,
    their figure, and the per-topic values the two charts draw."""
    raw = request.get("settings") or {}
    flags = s.convention_flags(raw)
    qrels, run_a, run_b = _inputs(("qrels", "a", "b"))
    metric = s.measure(request, "metric", "map")
    resamples = s.whole(request, "B", 0, 1, 1_000_000) if request.get("B") else None
    tests = [
        f"-m={metric}",
        *([f"--B={resamples}"] if resamples else []),  # none: compare's own default
        f"--seed={s.whole(request, 'seed', 0, 0, 2**32 - 1)}",
        f"--alpha={s.number(request, 'alpha', 0.05, 0, 1)}",
        f"--correction={s.choice(request, 'correction', s.CORRECTIONS, s.correction_default())}",
    ]
    argv = ["compare", *tests, *flags, qrels, run_a, run_b]
    data, _ = irscore([*argv, "--format=json", "--plot=compare.svg"])
    text, _ = irscore(argv)
    values = {}
    for key, run in (("a", run_a), ("b", run_b)):
        table, _ = irscore(["evaluate", f"-m={metric}", *flags, "-q", "--format=json", qrels, run])
        values[key] = [r for r in json.loads(table) if r["topic"] != "all"]
    scope = CORRECTION.search(text)
    return {
        "tests": json.loads(data),
        "correction": " ".join(scope[1].split()) if scope else None,
        "text": text,
        "svg": _svg(folder / "compare.svg"),
        "values": values,
        "command": " ".join(["irscore", *argv]),
    }


# the line of `irscore compare`'s text saying which correction the marks are after
CORRECTION = re.compile(r"^p adjusted: (.*(?:\n    .*)*)", re.M)
SUMMARY = {
    "wins_a": re.compile(r"^wins A: ([0-9]+)$", re.M),
    "wins_b": re.compile(r"^wins B: ([0-9]+)$", re.M),
    "ties": re.compile(r"^ties: ([0-9]+)$", re.M),
    "share_b": re.compile(r"B wins: ([0-9.]+|n/a) "),
    "p": re.compile(r"sign test p = ([0-9.e+-]+|nan)\)"),
    "verdict": re.compile(r"^verdict \(alpha [^)]*\): (.*)$", re.M),
}


def interleaving(request: Mapping[str, Any], folder: Path) -> dict[str, Any]:
    """Interleaving: `irscore interleave`'s verdict, how it settles, the first impressions."""
    qrels, run_a, run_b = _inputs(("qrels", "a", "b"))
    raw = request.get("settings") or {}
    argv = [
        "interleave",
        f"--method={s.choice(request, 'method', s.METHODS, 'team_draft')}",
        f"--click-model={s.choice(request, 'clicks', s.CLICK_MODELS, 'perfect')}",
        f"--impressions={s.whole(request, 'imps', 10_000, 1, 1_000_000)}",
        f"--length={s.whole(request, 'ilen', 10, 1, 1000)}",
        f"--seed={s.whole(request, 'iseed', 0, 0, 2**32 - 1)}",
        f"--alpha={s.number(request, 'alpha', 0.05, 0, 1)}",
        f"--grade-mapping={s.choice(raw, 'grades', ('raw', 'cranfield_cleverdon'), 'raw')}",
        qrels,
        run_a,
        run_b,
    ]
    text, _ = irscore([*argv, "--log=impressions.tsv", "--plot=interleave.svg"])
    figures = {}
    for name, found in SUMMARY.items():
        match = found.search(text)
        figures[name] = match[1] if match else None
    with open(folder / "impressions.tsv", encoding="utf-8") as log:
        head = [
            line.rstrip("\n").split("\t")
            for _, line in zip(range(LOG_SHOWN + 1), log, strict=False)
        ]
    return {
        "text": text,
        "figures": figures,
        "impressions": head[1:],
        "svg": _svg(folder / "interleave.svg"),
        "command": " ".join(["irscore", *argv]),
    }


def pool(request: Mapping[str, Any], folder: Path) -> dict[str, Any]:
    """Generate pooled collection: `irscore pool --out DIR`'s qrels, its two runs and pool.md."""
    seed = s.whole(request, "seed", 1, 0, 2**32 - 1)
    queries = s.whole(request, "queries", 25, 1, 500)
    argv = ["pool", "--out=pool", f"--seed={seed}", f"--queries={queries}"]
    text, _ = irscore(argv)
    out = folder / "pool"
    return {
        "qrels": (out / "qrels.txt").read_text(encoding="utf-8"),
        "a": (out / "bm25.run").read_text(encoding="utf-8"),
        "b": (out / "bm25+rerank.run").read_text(encoding="utf-8"),
        "na": "bm25",
        "nb": "bm25+rerank",
        "text": text,
        "command": " ".join(["irscore", *argv]),
    }


JOBS = {
    "evaluate": evaluate,
    "trec": trec_per_topic,
    "ranking": ranking,
    "compare": compare,
    "interleave": interleaving,
    "pool": pool,
}
LONG = ("compare", "interleave")  # jobs that can take long: their own worker
