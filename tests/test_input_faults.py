"""The fault corpus: odd and broken inputs, options and outputs, and what irscore must do.

Each case of `CASES` is a qrels and a run (small files written here), a command
line and the expected outcome: the exit status, a pattern for each stderr line,
and, on an error, nothing on stdout and no traceback. The same files go through
`irscore.evaluate` as paths (the same message as an `InputError`, the same
warnings), and `API_CASES` gives DataFrames and dicts. The whole corpus also
runs in one real process with PYTHONUNBUFFERED=1 and one without it, writing to
real file descriptors, and the output faults (a closed stdout, a reader that
leaves early, a full disk, Ctrl-C) run as real processes, buffered, with
PYTHONUNBUFFERED=1 and with `python -u`. (tests/test_faults.py holds the
workflow's faults: kills, truncated results, concurrent runs.)
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import json
import lzma
import os
import re
import signal
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pytest

import irscore
from irscore.cli import main

QRELS = b"1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 d 1\n"
RUN = b"1 Q0 a 1 0.9 t\n1 Q0 b 2 0.5 t\n2 Q0 d 1 0.7 t\n2 Q0 x 2 0.6 t\n"
# map: topic 1 AP = 1; topic 2 AP = (1/1) / 2 = 0.5; mean 0.75
MAP = r"map\s+\tall\t0\.7500"
LIMIT = 200  # IRSCORE_MAX_LINE for the long-line cases: a long line is cheap to write
SEE = r"see irscore evaluate --help"


@dataclass
class Case:
    """One fault: the files (name -> bytes; `q` and `r` default to good ones), the command
    line after `irscore` ({q}, {r} and {dir} are filled in), the exit status, a pattern
    per stderr line, and for exit 0 a pattern stdout must match."""

    name: str
    files: dict[str, bytes] = field(default_factory=dict)
    argv: tuple[str, ...] = ("evaluate", "-m", "map", "{q}", "{r}")
    status: int = 2
    stderr: tuple[str, ...] = ()
    stdout: str = ""
    env: dict[str, str] = field(default_factory=dict)
    api: bool = True  # the same files through irscore.evaluate as paths

    def paths(self, folder: Path) -> dict[str, str]:
        """Write the case's files under `folder`; the names the command line uses."""
        files = {"q": QRELS, "r": RUN, **self.files}
        for name, data in files.items():
            (folder / name).write_bytes(data)
        return {"q": str(folder / "q"), "r": str(folder / "r"), "dir": str(folder)}

    def command(self, folder: Path) -> list[str]:
        names = self.paths(folder)
        return [arg.format(**names) for arg in self.argv]


def error(name: str, files: dict[str, bytes], message: str, **kwargs) -> Case:
    return Case(name, files, stderr=(r"irscore: error: " + message,), **kwargs)


def option(name: str, argv: tuple[str, ...], message: str) -> Case:
    return Case(name, {}, argv, stderr=(r"irscore: error: " + message, SEE), api=False)


def fine(name: str, files: dict[str, bytes], *stderr: str, stdout: str = MAP, **kw) -> Case:
    return Case(name, files, status=0, stderr=stderr, stdout=stdout, **kw)


def garbage(opener, data: bytes) -> bytes:
    """A compressed stream cut in half: its magic bytes, then an early end."""
    buffer = io.BytesIO()
    with opener(buffer, "wb") as out:
        out.write(data * 50)
    whole = buffer.getvalue()
    return whole[: len(whole) // 2]


WHERE = r"\S*/"  # the folder of the case's files
CASES = [
    # --- empty qrels or runs, of every kind
    error("qrels empty", {"q": b""}, WHERE + r"q: the qrels file is empty"),
    error("run empty", {"r": b""}, WHERE + r"r: the run file is empty"),
    error(
        "qrels comments only",
        {"q": b"# judged by nobody\n\n"},
        WHERE + r"q: no judgments: its 2 lines are blank, comments or a header",
    ),
    error(
        "run comments only",
        {"r": b"# a run\n"},
        WHERE + r"r: no results: its line is blank, comments or a header",
    ),
    error(
        "qrels blank lines",
        {"q": b"\n \n\t\n"},
        WHERE + r"q: no judgments: its 3 lines are blank, comments or a header",
    ),
    error(
        "qrels CSV header only",
        {"q": b"qid,docno,rel\n"},
        WHERE + r"q: no judgments: its line is blank, comments or a header",
    ),
    error(
        "run from stdin empty",
        {},
        r"<stdin>: the run file is empty",
        argv=("evaluate", "{q}", "-"),
    ),
    # --- malformed qrels lines
    error(
        "qrels 3 fields",
        {"q": b"1 0 a\n"},
        WHERE + r"q:1: expected 4 columns, found 3: '1 0 a'",
    ),
    error(
        "qrels grade word",
        {"q": b"1 0 a high\n"},
        WHERE + r"q:1: grade 'high' is not an integer of at most 15 digits: '1 0 a high'",
    ),
    error("qrels grade float", {"q": b"1 0 a 1\n1 0 b 1.5\n"}, WHERE + r"q:2: grade '1\.5' is"),
    error(
        "qrels judged twice",
        {"q": b"1 0 a 1\n1 0 a 0\n"},
        WHERE + r"q:2: document a is judged twice for topic 1 \(first on line 1\)",
    ),
    error(
        "qrels TREC header",
        {"q": b"query_id iteration doc_id relevance\n1 0 a 1\n"},
        WHERE + r"q:1: grade 'relevance' is not an integer of at most 15 digits \(a header "
        r"line\? TREC files have none: remove it or start it with #, or name the format "
        r"with --qrels-format csv\|tsv\): 'query_id iteration doc_id relevance'",
    ),
    error(
        "qrels NUL in docno",
        {"q": b"1 0 a\x00b 1\n"},
        WHERE + r"q:1: docno 'a\\x00b' holds the control character U\+0000",
    ),
    error(
        "qrels escape in topic",
        {"q": b"1 0 a 1\n\x1b[1m2 0 c 1\n"},
        WHERE + r"q:2: topic '\\x1b\[1m2' holds the control character U\+001B",
    ),
    error(
        "qrels U+001C in docno",
        {"q": b"1 0 a\x1cb 1\n"},
        WHERE + r"q:1: docno 'a\\x1cb' holds the control character U\+001C",
    ),
    error(
        "qrels not UTF-8",
        {"q": b"1 0 a 1\n1 0 \xe9t\xe9 1\n"},
        WHERE + r"q:2: not valid UTF-8: byte 0xe9 at byte offset 12 \(column 5\)",
    ),
    error(
        "qrels UTF-16",
        {"q": "1 0 a 1\n".encode("utf-16")},
        WHERE + r"q:1: not valid UTF-8: byte 0xff",
    ),
    error(
        "qrels gzip cut short",
        {"q": garbage(gzip.open, QRELS)},
        WHERE + r"q: not a valid gzip stream",
    ),
    error("qrels bzip2 cut short", {"q": garbage(bz2.open, QRELS)}, WHERE + r"q: not a valid bz"),
    error("qrels xz cut short", {"q": garbage(lzma.open, QRELS)}, WHERE + r"q: not a valid xz"),
    error(
        "qrels missing",
        {},
        WHERE + r"nothing: cannot read: No such file or directory",
        argv=("evaluate", "{dir}/nothing", "{r}"),
    ),
    error(
        "qrels is a folder",
        {},
        WHERE[:-1] + r": cannot read: Is a directory",
        argv=("evaluate", "{dir}", "{r}"),
    ),
    error(
        "qrels long line",
        {"q": QRELS + b"3 0 " + b"z" * 500 + b" 1\n"},
        WHERE + r"q:5: line longer than 200 bytes; IRSCORE_MAX_LINE raises the limit",
        env={"IRSCORE_MAX_LINE": str(LIMIT)},
    ),
    error(
        "qrels one line without a newline",
        {"q": b"1 0 " + b"a" * 5000},
        WHERE + r"q:1: line longer than 200 bytes; IRSCORE_MAX_LINE raises the limit",
        env={"IRSCORE_MAX_LINE": str(LIMIT)},
    ),
    error(
        "qrels long line at the default limit",
        {"q": b"1 0 " + b"a" * (1 << 20) + b" 1\n"},
        WHERE + r"q:1: line longer than 1 MiB \(1048576 bytes\); IRSCORE_MAX_LINE raises",
    ),
    error(
        "IRSCORE_MAX_LINE not a number",
        {},
        r"IRSCORE_MAX_LINE must be a positive number of bytes \(or with K, M or G\), got 'lots'",
        env={"IRSCORE_MAX_LINE": "lots"},
    ),
    fine("IRSCORE_MAX_LINE in KiB", {}, env={"IRSCORE_MAX_LINE": "1K"}),
    # --- malformed run lines
    error(
        "run 5 fields",
        {"r": b"1 Q0 a 1 0.9\n"},
        WHERE + r"r:1: expected 6 columns, found 5: '1 Q0 a 1 0\.9'",
    ),
    fine(  # trec_eval ignores the rank column; so does irscore unless a convention reads it
        "run rank word, ranks unread",
        {"r": RUN.replace(b"x 2", b"x two")},
    ),
    error(
        "run rank word, ranks read",
        {"r": RUN + b"1 Q0 c one 0.1 t\n"},
        WHERE + r"r:5: rank 'one' is not a whole number \(tie-break rank reads the ranks\)",
        argv=("evaluate", "--tie-break", "rank", "{q}", "{r}"),
        api=False,
    ),
    error("run score nan", {"r": b"1 Q0 a 1 nan t\n"}, WHERE + r"r:1: score 'nan' is not a finite"),
    error("run score inf", {"r": b"1 Q0 a 1 inf t\n"}, WHERE + r"r:1: score 'inf' is not a finite"),
    error("run score word", {"r": b"1 Q0 a 1 high t\n"}, WHERE + r"r:1: score 'high' is not a"),
    error(
        "run TREC header",
        {"r": b"qid Q0 docno rank score tag\n" + RUN},
        WHERE + r"r:1: score 'score' is not a finite decimal number \(a header line\? TREC "
        r"files have none: remove it or start it with #, or name the format with "
        r"--run-format csv\|tsv\)",
    ),
    error(
        "run header of 4 names",
        {"r": b"qid docno rank score\n" + RUN},
        WHERE + r"r:2: expected 4 columns, found 6",  # a header of a whitespace list, read so
    ),
    error(
        "run document twice",
        {"r": RUN + b"1 Q0 a 3 0.1 t\n"},
        WHERE + r"r:5: document a appears more than once for topic 1 \(first on line 1\); "
        r"--duplicates first keeps the first one",
    ),
    error(
        "run NUL in docno",
        {"r": b"1 Q0 a\x00 1 0.9 t\n"},
        WHERE + r"r:1: docno 'a\\x00' holds the control character U\+0000",
    ),
    error(
        "run control character in tag",
        {"r": RUN + b"2 Q0 e 3 0.1 t\x07\n"},
        WHERE + r"r:5: tag 't\\x07' holds the control character U\+0007",
    ),
    error(
        "run not UTF-8",
        {"r": b"1 Q0 \xff 1 0.9 t\n"},
        WHERE + r"r:1: not valid UTF-8: byte 0xff at byte offset 5 \(column 6\)",
    ),
    error("run gzip cut short", {"r": garbage(gzip.open, RUN)}, WHERE + r"r: not a valid gzip"),
    error(
        "run long line",
        {"r": RUN + b"1 Q0 " + b"y" * 1000 + b" 3 0.1 t\n"},
        WHERE + r"r:5: line longer than 200 bytes",
        env={"IRSCORE_MAX_LINE": str(LIMIT)},
    ),
    error(
        "run endless /dev/zero",
        {},
        r"/dev/zero:1: line longer than 1 MiB \(1048576 bytes\); IRSCORE_MAX_LINE raises",
        argv=("evaluate", "{q}", "/dev/zero"),
    ),
    error(  # a JSON run is read whole (run_files), its values checked as a line's
        "run one-line JSON dict, a score not a number",
        {"r": json.dumps({str(t): {f"d{i}": "x" for i in range(40)} for t in range(3)}).encode()},
        WHERE + r"r: topic '0', docno 'd0': score 'x' is not a number",
        env={"IRSCORE_MAX_LINE": str(LIMIT)},
    ),
    error(
        "a wide line and value quoted short",
        {"q": b"1 0 a " + b"w" * 150 + b"\n"},
        WHERE + r"q:1: grade 'w{80}\.\.\.' is not an integer of at most 15 digits: "
        r"'1 0 a w{74}\.\.\.'$",
    ),
    error(
        "run missing",
        {},
        WHERE + r"none\.run: cannot read: No such file or directory",
        argv=("evaluate", "{q}", "{dir}/none.run"),
    ),
    error(
        "file name with a newline",
        {"bad\nname": b""},
        r"'\S*/bad\\nname': the run file is empty",
        argv=("evaluate", "{q}", "{dir}/bad\nname"),
    ),
    error(
        "file name with an escape",
        {"x\x1b[31m": b"1 Q0 a 1 one t\n"},
        r"'\S*/x\\x1b\[31m':1: score 'one' is not a finite decimal number",
        argv=("evaluate", "{q}", "{dir}/x\x1b[31m"),
    ),
    # --- inputs that parse but do not meet
    error(
        "topics 0301 and 301",
        {"q": b"301 0 a 1\n", "r": b"0301 Q0 a 1 0.9 t\n"},
        WHERE + r"r: no topic has both results and judgments in " + WHERE + r"q \(run topics: "
        r"'0301'; qrels topics: '301'\)",
    ),
    error(
        "topics 301.0 from a float column",
        {"q": b"301 0 a 1\n", "r": b"301.0,a,0.9\n"},
        WHERE + r"r: no topic has both results and judgments in \S+ \(run topics: '301\.0'",
    ),
    error(
        "no shared topic under -c",
        {"r": b"9 Q0 a 1 0.9 t\n"},
        WHERE + r"r: no topic has both results and judgments",
        argv=("evaluate", "-c", "{q}", "{r}"),
    ),
    fine(
        "a topic without judgments",
        {"r": RUN + b"3 Q0 a 1 0.9 t\n"},
        r"irscore: warning: \S+/r: 1 topic without judgments in \S+/q, not scored: '3'",
    ),
    fine(
        "a judged topic without results",
        {"q": QRELS + b"5 0 a 1\n"},
        r"irscore: warning: \S+/r: no results for 1 judged topic \(-c scores them 0\): '5'",
        stdout=r"map\s+\tall\t0\.7500",
    ),
    fine(
        "docnos with a prefix",
        {"r": RUN.replace(b" a ", b" doc-a ").replace(b" b ", b" doc-b ").replace(b" d ", b" D ")},
        r"irscore: warning: \S+/r: none of its 4 results in the 2 topics it shares with \S+/q "
        r"is a judged document; check that the docnos are written alike \(quotes, prefixes, "
        r"case\) and that the docno column is the document's",
        stdout=r"map\s+\tall\t0\.0000",
    ),
    fine(
        "judged documents for almost no topic",
        {
            "q": b"".join(b"%d 0 d%d 1\n" % (t, t) for t in range(40)),
            "r": b"0 Q0 d0 1 1 t\n" + b"".join(b"%d Q0 x%d 1 1 t\n" % (t, t) for t in range(1, 40)),
        },
        r"irscore: warning: \S+/r: 1 of its 40 results in the 40 topics it shares with \S+/q "
        r"is a judged document; check",
        stdout=r"map\s+\tall\t0\.0250",  # AP 1 for topic 0, 0 for 39 topics: 1/40
    ),
    fine(
        "CSV run with quoted docnos",
        {"r": b'"1","a",0.9\n"1","b",0.5\n"2","d",0.7\n"2","x",0.6\n'},
    ),
    fine(
        "CSV run with a quoted header",
        {"r": b'"qid","docno","score"\n"1","a",0.9\n"1","b",0.5\n"2","d",0.7\n"2","x",0.6\n'},
    ),
    fine(
        "TSV run with quoted docnos",
        {"r": b'"1"\t"a"\t0.9\n"1"\t"b"\t0.5\n"2"\t"d"\t0.7\n"2"\t"x"\t0.6\n'},
    ),
    fine(
        "CSV qrels with a quoted comma",
        {"q": b'qid,docno,rel\n1,"a,1",1\n1,a,1\n1,b,0\n2,c,1\n2,d,1\n'},
        stdout=r"map\s+\tall\t0\.5000",  # topic 1: a of 2 relevant at 1: AP 1/2; topic 2: 1/2
    ),
    fine(
        "qrels with a byte order mark",
        {"q": b"\xef\xbb\xbf" + QRELS},
        r"irscore: note: \S+/q: skipped the UTF-8 byte order mark at its start \(trec_eval "
        r"reads it as part of the first topic\)",
    ),
    fine("qrels with CRLF line ends", {"q": QRELS.replace(b"\n", b"\r\n")}),
    fine("run without a final newline", {"r": RUN.rstrip(b"\n")}),
    fine("run gzip-compressed", {"r": gzip.compress(RUN)}),
    fine("qrels with negative grades", {"q": QRELS + b"1 0 z -1\n"}),
    fine(
        "non-ASCII docnos",
        {"q": QRELS + "2 0 é 0\n".encode(), "r": RUN.replace(b" x ", " é ".encode())},
    ),
    # --- options: argparse's are one line and where to look; irscore's are one line
    option(
        "-l below 0",
        ("evaluate", "-l", "-1", "{q}", "{r}"),
        r"argument -l: a relevance "
        r"level of 0 or more, not -1$",
    ),
    option("-l a word", ("evaluate", "-l", "x", "{q}", "{r}"), r"argument -l: a whole number"),
    option(
        "--ties not a choice",
        ("evaluate", "--ties", "random", "{q}", "{r}"),
        r"argument --ties: invalid choice: 'random' \(choose from",
    ),
    option("unknown option", ("evaluate", "--frobnicate", "{q}", "{r}"), r"unrecognized argu"),
    Case(
        "no run",
        {},
        ("evaluate", "{q}"),
        stderr=(r"irscore: error: the qrels file and at least one run are required$",),
        api=False,
    ),
    option("--run-format unknown", ("evaluate", "--run-format", "xml", "{q}", "{r}"), r"arg"),
    option("--format csv", ("evaluate", "--format", "csv", "{q}", "{r}"), r"argument --format"),
    option("--compat unknown", ("evaluate", "--compat", "te8", "{q}", "{r}"), r"argument --com"),
    option("-M a word", ("evaluate", "-M", "ten", "{q}", "{r}"), r"argument -M: invalid int"),
    Case(
        "no command",
        {},
        (),
        stderr=(
            r"irscore: error: the following arguments are "
            r"required: command",
            r"see irscore --help$",
        ),
        api=False,
    ),
    Case(
        "unknown measure",
        {},
        ("evaluate", "-m", "mapp", "{q}", "{r}"),
        stderr=(r"irscore: error: unknown measure 'mapp'; close names: map, gm_map$",),
        api=False,
    ),
    Case(
        "measure with parameters quoted whole",
        {},
        ("evaluate", "-m", "RBQ(p=0.8)", "{q}", "{r}"),
        stderr=(r"irscore: error: unknown measure 'RBQ\(p=0\.8\)'",),
        api=False,
    ),
    Case(
        "unknown measure with cut-offs",
        {},
        ("evaluate", "-m", "ndcg_cutt.10", "{q}", "{r}"),
        stderr=(r"irscore: error: unknown measure 'ndcg_cutt\.10'; close names: ndcg_cut",),
        api=False,
    ),
    Case(
        "bad cut-offs",
        {},
        ("evaluate", "-m", "P.x", "{q}", "{r}"),
        stderr=(r"irscore: error: cut-offs of P must be positive numbers: 'x'$",),
        api=False,
    ),
    Case(
        "-M 0",
        {},
        ("evaluate", "-M", "0", "{q}", "{r}"),
        stderr=(r"irscore: error: -M takes a positive number of documents, got 0$",),
        api=False,
    ),
    Case(
        "--gmax beyond a double",
        {},
        ("evaluate", "-m", "err", "--gmax", "1000000000", "{q}", "{r}"),
        stderr=(
            r"irscore: error: convention 'gmax=1000000000': gmax must be a positive "
            r"integer of at most 1023",
        ),
        api=False,
    ),
    Case(
        "a topic named all in a table",
        {"q": b"all 0 a 1\n", "r": b"all Q0 a 1 1 t\n"},
        ("evaluate", "--format", "tsv", "{q}", "{r}"),
        stderr=(r"irscore: error: run t: a topic named 'all' clashes with the summary rows$",),
        api=False,
    ),
    Case(
        "a measure the convention has no form for",
        {},
        ("evaluate", "-m", "bpref", "-m", "map", "--ties", "expected", "{q}", "{r}"),
        status=0,
        stderr=(r"irscore: note: bpref has no expected-value form; not computed$",),
        stdout=MAP,
        api=False,
    ),
]


def check(case: Case, status: int, out: str, err: str) -> None:
    """The outcome a case expects: status, one pattern per stderr line, stdout."""
    assert "Traceback" not in err, err
    assert status == case.status, err
    lines = err.splitlines()
    assert len(lines) == len(case.stderr), err
    for line, pattern in zip(lines, case.stderr, strict=True):
        assert re.match(pattern, line), (pattern, line)
    if case.status:
        assert out == ""
    else:
        assert re.search(case.stdout, out), out


def in_process(case: Case, folder: Path, monkeypatch) -> tuple[int, str, str]:
    """`irscore ...` through `irscore.cli.main`, stdout and stderr captured."""
    argv = case.command(folder)
    for name, value in case.env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(b""))))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as done:  # argparse
            status = done.code
    return status, out.getvalue(), err.getvalue()


def test_the_corpus_is_large_enough():
    assert len(CASES) + len(API_CASES) >= 60
    assert len({case.name for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_command_line(case, tmp_path, monkeypatch):
    check(case, *in_process(case, tmp_path, monkeypatch))


API_ARGS = [case for case in CASES if case.api and case.argv[:3] == ("evaluate", "-m", "map")]


@pytest.mark.parametrize("case", API_ARGS, ids=[case.name for case in API_ARGS])
def test_api_with_paths_says_what_the_command_line_says(case, tmp_path, monkeypatch):
    """irscore.engine.evaluate on the case's files: the CLI's error as an InputError, its
    warnings and notes as Python warnings, its value."""
    status, out, err = in_process(case, tmp_path, monkeypatch)
    *_, qrels, run = case.command(tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            table = irscore.evaluate(qrels, run, measures="map", per_topic=False)
        except irscore.InputError as raised:
            assert status == 2 and err == f"irscore: error: {raised}\n"
            return
    assert status == 0, err
    said = [re.sub(r"^irscore: (warning|note): ", "", line) for line in err.splitlines()]
    assert sorted(str(w.message) for w in caught) == sorted(said)
    assert f"\tall\t{table['value'].iloc[0]:.4f}\n" in out


def frame(rows: list[tuple], value: str) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["query_id", "doc_id", value])


Q = {"1": {"a": 1, "b": 0}, "2": {"c": 1}}
R = {"1": {"a": 0.9, "b": 0.5}, "2": {"c": 0.7}}
API_CASES = [
    ("empty dict run", Q, {}, r"run: no results \(the run is empty\)"),
    ("empty dict qrels", {}, R, r"qrels: no judgments \(the qrels is empty\)"),
    ("empty DataFrame qrels", frame([], "relevance"), R, r"qrels: no judgments"),
    ("empty DataFrame run", Q, frame([], "score"), r"run: no results"),
    ("empty run among named runs", Q, {"x": R, "y": {}}, r"y: no results"),
    ("dict topics 0301 and 301", {"301": {"a": 1}}, {"0301": {"a": 1.0}}, r"run: no topic has"),
    (
        "float topic column",
        {"301": {"a": 1}},
        frame([(301.0, "a", 1.0)], "score"),
        r"run: no topic has both results and judgments in qrels \(run topics: '301\.0'",
    ),
    (
        "int topics against str topics",
        {301: {"a": 1}},
        {"301": {"a": 1.0}},
        None,  # 301 and "301" are one id in a TREC file: scored
    ),
    (
        "dict docno with a space",
        Q,
        {"1": {"a b": 1.0}},
        r"run docno of topic '1', docno 'a b': 'a b' is empty or contains whitespace",
    ),
    (
        "dict docno with NUL",
        Q,
        {"1": {"a\x00": 1.0}},
        r"run docno of topic '1', docno 'a\\x00': 'a\\x00' holds a control character",
    ),
    (
        "DataFrame topic with an escape",
        Q,
        frame([("\x1b1", "a", 1.0)], "score"),
        r"run topic row 0: '\\x1b1' holds a control character",
    ),
    ("dict score text", Q, {"1": {"a": "high"}}, r"run of topic '1', docno 'a': score 'high'"),
    ("dict score None", Q, {"1": {"a": None}}, r"run of topic '1', docno 'a': score None is not"),
    ("dict grade text", {"1": {"a": "x"}}, R, r"qrels relevance of topic '1', docno 'a': 'x'"),
    ("DataFrame list ids", Q, frame([("1", ["a"], 1.0)], "score"), r"run docno: ids must be"),
    ("DataFrame dict ids", Q, frame([({"q": 1}, "a", 1.0)], "score"), r"run topic: ids must be"),
    ("dict of lists", Q, {"1": [("a", 1.0)]}, r"run: topic '1' maps to <class 'list'>, not a d"),
    ("a list", Q, [("1", "a", 1.0)], r"run: expected a path, a DataFrame or a dict"),
    ("DataFrame without scores", Q, pd.DataFrame({"qid": ["1"], "docno": ["a"]}), r"run: no sc"),
    (
        "DataFrame missing topic",
        Q,
        frame([(None, "a", 1.0)], "score"),
        r"run topic row 0: missing value",
    ),
    (
        "DataFrame judged twice",
        frame([("1", "a", 1), ("1", "a", 0)], "relevance"),
        R,
        r"qrels row 1: document a is judged twice for topic 1",
    ),
]


@pytest.mark.parametrize(
    ("name", "qrels", "run", "message"), API_CASES, ids=[c[0] for c in API_CASES]
)
def test_api_with_frames_and_dicts(name, qrels, run, message):
    if message is None:
        table = irscore.evaluate(qrels, run, measures="map", per_topic=False)
        assert table["value"].tolist() == [1.0]
        return
    with pytest.raises(irscore.InputError, match=message):
        irscore.evaluate(qrels, run, measures="map")


def test_api_warns_as_the_command_line_does_for_dicts():
    """A dict run whose docnos match none of the judged ones: a warning naming what to
    check; a topic without judgments: a warning naming it."""
    run = {"1": {"doc-a": 1.0}, "3": {"x": 1.0}}
    with pytest.warns(UserWarning) as caught:
        table = irscore.evaluate(Q, run, measures="map", per_topic=False)
    assert table["value"].tolist() == [0.0]
    assert sorted(str(w.message) for w in caught) == [
        "run: 1 topic without judgments in qrels, not scored: '3'",
        "run: no results for 1 judged topic (-c scores them 0): '2'",
        "run: none of its 1 results in the 1 topic it shares with qrels is a judged document; "
        "check that the docnos are written alike (quotes, prefixes, case) and that the docno "
        "column is the document's",
    ]


def test_a_negative_relevance_level_is_refused_as_on_the_command_line():
    with pytest.raises(
        irscore.engine.ranking.conventions.ConventionError, match="rel_level must be 0 or more"
    ):
        irscore.evaluate(Q, R, convention={"rel_level": -1})


def test_a_grid_whose_conventions_lack_every_measure_is_no_crash():
    """bpref has no expected-ties form: tie_expected's table is empty, and the grid keeps
    reference's rows (AP-like bpref of a perfect ranking: 1) with a warning for the other."""
    with pytest.warns(UserWarning, match="no form under tie_expected: bpref"):
        table = irscore.evaluate(
            Q, R, measures=["bpref"], convention=["reference", "tie_expected"], per_topic=False
        )
    assert table[["convention", "measure", "value"]].values.tolist() == [
        ["reference", "bpref", 1.0]
    ]


def test_ir_datasets_without_a_copy_or_network_is_an_input_error(tmp_path):
    """Offline without IR_DATASETS_HOME's copy: one InputError, not ir_datasets' traceback
    (in a subprocess: ir_datasets binds its home when first imported; the proxy that
    refuses every connection makes the download fail at once, network or not)."""
    env = os.environ | {"IR_DATASETS_HOME": str(tmp_path)}
    env |= {k: "http://127.0.0.1:9" for k in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy")}
    env |= {"https_proxy": "http://127.0.0.1:9"}
    code = (
        "import irscore\ntry:\n    irscore.evaluate('irds:cranfield', {'1': {'a': 1.0}})\n"
        "except irscore.InputError as error:\n    print(error)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert "Traceback" not in done.stderr
    assert done.stdout.startswith("irds:cranfield: ir_datasets could not give the qrels (")
    assert done.stdout.endswith("check the network, or IR_DATASETS_HOME for a downloaded copy\n")


def test_input_error_is_one_documented_type():
    from irscore.engine.ranking.rank import DuplicateDocumentError
    from irscore.engine.reading import inputs, trec

    assert issubclass(irscore.InputError, ValueError)
    for error in (trec.TrecFormatError, DuplicateDocumentError, inputs.InputError):
        assert issubclass(error, irscore.InputError)


# ---------------------------------------------------------------------------------------
# real processes: the corpus on real descriptors, and the faults of the output itself

DRIVER = r"""
import json, os, sys, traceback
from irscore.cli import main

cases, out_path, err_path = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
home, results = os.dup(1), []
for argv, env in cases:
    before = dict(os.environ)
    os.environ.update(env)
    with open(out_path, "wb") as out, open(err_path, "wb") as err, open(os.devnull) as nothing:
        os.dup2(nothing.fileno(), 0)
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        try:
            status = main(argv)
        except SystemExit as done:
            status = done.code
        except BaseException:
            traceback.print_exc()
            status = None
        sys.stdout.flush()
        sys.stderr.flush()
    os.environ.clear()
    os.environ.update(before)
    with open(out_path) as out, open(err_path) as err:
        results.append([status, out.read(), err.read()])
os.write(home, json.dumps(results).encode())
"""
MODES = {"buffered": ([], {}), "PYTHONUNBUFFERED=1": ([], {"PYTHONUNBUFFERED": "1"})}
MODES["python -u"] = (["-u"], {})


def environment(extra: dict[str, str]) -> dict[str, str]:
    """This environment without PYTHONUNBUFFERED, plus `extra`."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"} | extra


@pytest.mark.parametrize("mode", ["buffered", "PYTHONUNBUFFERED=1"])
def test_the_corpus_on_real_descriptors(tmp_path, mode):
    """Every case of the corpus in one process whose stdout and stderr are files, as a
    shell gives them: the outcomes are the in-process ones, with or without buffering."""
    commands = []
    for i, case in enumerate(CASES):
        folder = tmp_path / str(i)
        folder.mkdir()
        commands.append([case.command(folder), case.env])
    (tmp_path / "cases.json").write_text(json.dumps(commands))
    flags, env = MODES[mode]
    done = subprocess.run(
        [sys.executable, *flags, "-c", DRIVER, str(tmp_path / "cases.json"), *"oe"],
        capture_output=True,
        cwd=tmp_path,
        env=environment(env),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()
    for case, outcome in zip(CASES, json.loads(done.stdout), strict=True):
        check(case, *outcome)


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> list[str]:
    """A command whose output (`-q -m all_trec`: 180 kB) is far more than a pipe holds."""
    folder = tmp_path_factory.mktemp("big")
    qrels = "".join(f"{t} 0 d{d} {(t + d) % 3}\n" for t in range(60) for d in range(20))
    run = "".join(f"{t} Q0 d{d} {d + 1} {1 / (d + 1)} r\n" for t in range(60) for d in range(20))
    (folder / "q").write_text(qrels)
    (folder / "r").write_text(run)
    return ["evaluate", "-q", "-m", "all_trec", str(folder / "q"), str(folder / "r")]


@pytest.fixture(scope="module")
def big_output(big) -> bytes:
    """What `big` prints, computed in this process."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(big) == 0
    return out.getvalue().encode()


def irscore_process(mode: str, argv: list[str], **kwargs) -> subprocess.Popen:
    """`irscore ...` as its own process, buffered, with PYTHONUNBUFFERED=1 or `python -u`;
    Ctrl-C reaches it as a terminal's would (not ignored, as in a background job)."""
    flags, env = MODES[mode]
    return subprocess.Popen(
        [sys.executable, *flags, "-m", "irscore", *argv],
        stderr=subprocess.PIPE,
        env=environment(env),
        preexec_fn=kwargs.pop("preexec_fn", lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)),
        **kwargs,
    )


@pytest.mark.parametrize("mode", MODES)
def test_a_reader_that_leaves_early_is_an_error(big, mode):
    """`irscore ... | head -1`: the output cannot be written whole, so it is not exit 0
    (under PYTHONUNBUFFERED, Python's own write dropped most of it without a word)."""
    process = irscore_process(mode, big, stdout=subprocess.PIPE)
    first = process.stdout.readline()
    process.stdout.close()
    err = process.stderr.read().decode()
    assert process.wait(timeout=60) == 2
    assert first.startswith(b"num_ret")
    assert err == "irscore: error: cannot write the output: Broken pipe\n"


@pytest.mark.parametrize("mode", MODES)
def test_a_pipe_read_to_the_end_gets_every_byte(big, big_output, mode):
    process = irscore_process(mode, big, stdout=subprocess.PIPE)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0 and err == b""
    assert len(out) > 150_000 and out == big_output


@pytest.mark.parametrize("mode", MODES)
def test_a_closed_stdout_is_an_error(big, mode):
    """`irscore ... >&-`: Python starts without sys.stdout."""

    def closed() -> None:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.close(1)

    small = ["evaluate", *big[-2:]]
    for argv in [small] + ([["--version"], ["evaluate", "--help"]] if mode == "python -u" else []):
        process = irscore_process(mode, argv, preexec_fn=closed)
        err = process.stderr.read().decode()
        assert process.wait(timeout=60) == 2, err
        assert err == "irscore: error: cannot write the output: standard output is closed\n"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("mode", MODES)
def test_a_full_disk_is_an_error(big, mode):
    with open("/dev/full", "wb") as full:
        process = irscore_process(mode, ["evaluate", *big[-2:]], stdout=full)
        err = process.stderr.read().decode()
    assert process.wait(timeout=60) == 2
    assert err == "irscore: error: cannot write the output: No space left on device\n"


@pytest.mark.parametrize("mode", MODES)
def test_ctrl_c_is_one_line_and_status_130(big, mode, tmp_path):
    """Ctrl-C while irscore reads its qrels: a FIFO held open here, so the read waits;
    the signal is sent once the process sleeps in that read (not in its open)."""
    fifo = tmp_path / "qrels"
    os.mkfifo(fifo)
    process = irscore_process(mode, ["evaluate", str(fifo), big[-1]], stdout=subprocess.PIPE)
    with open(fifo, "w") as writer:  # opens once irscore has opened it
        writer.write("1 0 a 1\n")
        writer.flush()
        wait_in_read(process.pid)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    assert (process.returncode, out, err) == (130, b"", b"irscore: interrupted\n")


def wait_in_read(pid: int) -> None:
    """Return once the process waits in a read of a pipe (Linux says so in /proc)."""
    wchan = Path(f"/proc/{pid}/wchan")
    for _ in range(1000):
        if not wchan.exists() or "pipe_read" in wchan.read_text():
            return
        time.sleep(0.01)


def test_the_line_limit_is_the_one_the_troubleshooting_page_gives(monkeypatch):
    from irscore.engine.reading import streams

    page = (Path(__file__).parents[1] / "docs" / "troubleshooting.md").read_text()
    assert f"line longer than {streams.limit_text(streams.MAX_LINE)}" in page
    assert streams.limit_text(streams.MAX_LINE) == "1 MiB (1048576 bytes)"
    for text, limit in [("16M", 16 << 20), ("1k", 1024), ("200", 200), ("2GiB", 2 << 30)]:
        monkeypatch.setenv("IRSCORE_MAX_LINE", text)
        assert streams.max_line() == limit
    for text in ("0", "-5", "1.5M", "lots"):
        monkeypatch.setenv("IRSCORE_MAX_LINE", text)
        with pytest.raises(irscore.InputError, match="IRSCORE_MAX_LINE must be a positive"):
            streams.max_line()


@pytest.mark.parametrize("size", [1, 7, 64, 4096])
@pytest.mark.parametrize("source", ["memory", "file", "window"])
def test_blocks_find_every_line_over_the_limit_wherever_it_lies(size, source, tmp_path):
    """A line of limit + 1 bytes is found at any place in the stream with any read size,
    and named by its line; a line of exactly the limit is read (10-byte lines around).
    Alike from bytes in memory (a block's unfinished last line kept for the next), a
    regular file and a window of one (that line read again)."""
    from irscore.engine.reading import streams

    limit = 100
    for before in range(0, 40, 3):
        for length, too_long in ((limit, False), (limit + 1, True)):
            text = b"x" * 9 + b"\n"
            data = text * before + b"y" * length + b"\n" + text * 5
            with _opened(data, source, tmp_path) as stream:
                if too_long:  # named by its line number: the lines handed out, then the rest
                    seen = 0
                    with pytest.raises(streams.LineTooLong) as raised:
                        for block in streams.blocks(stream, size, limit):
                            seen += block.count(b"\n")
                    assert seen + raised.value.newlines + 1 == before + 1
                else:
                    got = list(streams.blocks(stream, size, limit))
                    assert b"".join(got) == data
                    assert all(block.endswith(b"\n") for block in got)


@contextlib.contextmanager
def _opened(data: bytes, source: str, tmp_path: Path):
    """`data` as a stream: bytes in memory, a regular file, or a window of a file that
    holds it between 3 bytes before and 3 after."""
    from irscore.engine.reading import streams

    if source == "memory":
        yield io.BytesIO(data)
        return
    path = tmp_path / "data"
    path.write_bytes(b"ab\n" + data + b"cd\n" if source == "window" else data)
    with open(path, "rb") as stream:
        yield streams.Window(stream, 3, 3 + len(data)) if source == "window" else stream
