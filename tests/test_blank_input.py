"""Blank lines of any count and place (leading, trailing, between records, a whole file,
plain or gzip) are skipped as trec_eval skips them: the output is the output of the
same file without them, an error names the line it names there, and a file of blank
lines alone is refused as evaluate refuses it. Skipped lines are kept as runs of line
numbers (`skipped_lines`), so blank input costs what its bytes cost: the tests bound
the address space the command may add while it reads them (RLIMIT_AS)."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from irscore.engine.reading import trec
from irscore.engine.reading.skipped_lines import (
    SkippedLines,
    blank_prefix,
    blank_suffix,
    empty_lines,
)

QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 d 1\n"
RUN = "1 Q0 a 1 2.5 t\n1 Q0 b 2 1.5 t\n2 Q0 d 1 3.0 t\n2 Q0 c 2 1.0 t\n"
MB = 1 << 20


def _irscore(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "irscore", *argv], capture_output=True, text=True, check=False
    )


def refusal(path: Path, lines: int) -> str:
    """What evaluate says of a run of `lines` blank lines."""
    said = f"its {lines} lines are blank, comments or a header"
    return f"irscore: error: {path}: no results: {said}\n"


def _with_blanks(text: str, blank: str, where: str) -> str:
    """`text` with `blank` put before it, after it, or after its second line."""
    lines = text.splitlines(keepends=True)
    if where == "leading":
        return blank + text
    if where == "trailing":
        return text + blank
    return "".join(lines[:2]) + blank + "".join(lines[2:])


def _write(path: Path, text: str, packed: bool) -> Path:
    data = text.encode()
    if packed:
        path = path.with_suffix(".gz")
        data = gzip.compress(data, compresslevel=1)
    path.write_bytes(data)
    return path


# ---------------------------------------------------------------------------------------
# the runs of lines


def test_line_of_counts_the_runs_before_a_record():
    # lines: 1 blank, 2 record 0, 3-5 blank, 6 record 1, 7 record 2, 8 blank, 9 record 3
    skipped = SkippedLines.of_lines([1, 3, 4, 5, 8])
    assert skipped.first.tolist() == [1, 3, 8] and skipped.count.tolist() == [1, 3, 1]
    assert len(skipped) == 5
    assert [skipped.line_of(row) for row in range(4)] == [2, 6, 7, 9]
    assert skipped.lines().tolist() == [1, 3, 4, 5, 8]
    assert SkippedLines.none().line_of(3) == 4  # no skipped line: row 3 is line 4


def test_joined_parts_keep_line_order():
    parts = [SkippedLines.of_lines([10, 11]), SkippedLines.of_lines([2]), SkippedLines.none()]
    joined = SkippedLines.joined(parts)
    assert joined.lines().tolist() == [2, 10, 11]
    assert joined == SkippedLines.of_lines([2, 10, 11])


def test_blank_prefix_and_suffix_cut_at_line_ends():
    block = b"\n \t\n\r\n  1 0 a 1\n\n  \n"
    cut, lines = blank_prefix(block, 0)
    assert (block[cut:].startswith(b"  1 0 a 1"), lines) == (True, 3)  # the line's spaces stay
    assert block[blank_suffix(block, cut) :] == b"\n  \n"  # its two blank lines
    assert blank_prefix(b"\n\n  ", 0) == (4, 3)  # blank to its end (4 bytes): 3 lines
    assert blank_suffix(b"1 0 a 1", 0) == 7  # nothing blank after the record


def test_empty_lines_across_pieces(monkeypatch):
    """Empty lines (`\\n`, `\\r\\n`) found a piece at a time, the gaps across a piece's
    edge included (pieces of 4 bytes here)."""
    monkeypatch.setattr("irscore.engine.reading.streams.PIECE", 4)
    data = b"a b\n\n\r\nc d\n\n\n\ne\n"
    # lines: 0 'a b', 1 '', 2 '\r', 3 'c d', 4-6 '', 7 'e'
    assert empty_lines(data).lines().tolist() == [1, 2, 4, 5, 6]


# ---------------------------------------------------------------------------------------
# what the command prints


@pytest.mark.parametrize("where", ["leading", "trailing", "middle"])
@pytest.mark.parametrize("size", [1_000, 1_100_000])  # 1.1 MB: past one Arrow piece (1 MiB)
@pytest.mark.parametrize("packed", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("role", ["qrels", "run"])
@pytest.mark.parametrize("spaces", [False, True], ids=["empty", "spaces"])
def test_blank_lines_change_nothing(tmp_path, where, size, packed, role, spaces):
    """The output of a file with blank lines is the output without them, byte for byte
    (1.1 MB of `\\n` ending a run was a ValueError from an empty Arrow chunk); blank
    lines are empty, or hold spaces, tabs and a carriage return too."""
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    expected = _irscore("evaluate", "-q", str(qrels), str(run))
    assert expected.returncode == 0, expected.stderr
    text = QRELS if role == "qrels" else RUN
    blank = "\n" * (size // 2) + " \t\r\n" * (size // 8) if spaces else "\n" * size
    odd = _write(tmp_path / "odd", _with_blanks(text, blank, where), packed)
    argv = [str(odd), str(run)] if role == "qrels" else [str(qrels), str(odd)]
    got = _irscore("evaluate", "-q", *argv)
    assert (got.returncode, got.stdout, got.stderr) == (0, expected.stdout, "")


@pytest.mark.parametrize("packed", [False, True], ids=["plain", "gzip"])
def test_a_bad_line_after_many_blank_lines_is_named_by_its_number(tmp_path, packed):
    """Line numbers count the blank lines: 700,000 of them, a record, 1.1 MB of blank
    lines, then a bad line, 1,800,002nd in the file."""
    text = "\n" * 700_000 + RUN.splitlines(keepends=True)[0] + "\n" * 1_100_000 + "1 Q0 x\n"
    run = _write(tmp_path / "r", text, packed)
    (tmp_path / "q").write_text(QRELS)
    got = _irscore("evaluate", str(tmp_path / "q"), str(run))
    assert got.returncode == 2
    assert got.stderr == f"irscore: error: {run}:1800002: expected 6 columns, found 3: '1 Q0 x'\n"


def test_records_between_blank_runs_know_their_lines(tmp_path):
    text = "\n" * 3 + "1 Q0 a 1 1 t\n" + "\n" * 1_200_000 + "1 Q0 b 2 0.5 t\n \n\t\n"
    path = tmp_path / "r"
    path.write_text(text)
    records = trec.read_run_records(path)
    assert [records.line_of(row) for row in range(2)] == [4, 1_200_005]
    assert len(records.skipped) == 3 + 1_200_000 + 2


@pytest.mark.parametrize("size", [1_000, 100_000, 5_000_000])
@pytest.mark.parametrize("packed", [False, True], ids=["plain", "gzip"])
def test_a_file_of_blank_lines_is_refused_as_evaluate_refuses_it(tmp_path, size, packed):
    run = _write(tmp_path / "r", "\n" * size, packed)
    (tmp_path / "q").write_text(QRELS)
    got = _irscore("evaluate", str(tmp_path / "q"), str(run))
    assert (got.returncode, got.stdout, got.stderr) == (2, "", refusal(run, size))


# ---------------------------------------------------------------------------------------
# what it costs

# Reads a small run first (numpy, Arrow and its threads in place), then allows the
# process BUDGET more bytes of address space than it has, and evaluates the blank input.
BOUNDED = """
import resource, sys
from irscore.cli import main
qrels, run, blank, budget = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
assert main(["evaluate", "-m", "map", qrels, run]) == 0
size = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmSize:"))
resource.setrlimit(resource.RLIMIT_AS, (size * 1024 + budget, resource.RLIM_INFINITY))
try:
    code = main(["evaluate", "-m", "map", qrels, blank])
except MemoryError:
    print("MemoryError", file=sys.stderr)
    code = 3
sys.stderr.flush()
sys.exit(code)
"""
BUDGET = 200 * MB  # 16 MiB blocks, a few at once; 5 MB of blank lines took 1 GB before


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux's /proc")
@pytest.mark.parametrize("size", [1_000, 1 * MB, 5 * MB, 64 * MB])
@pytest.mark.parametrize("packed", [False, True], ids=["plain", "gzip"])
def test_blank_input_costs_a_bounded_amount_of_memory(tmp_path, size, packed, monkeypatch):
    """Plain or gzip (64 MB of `\\n` packs into 64 kB), blank input of growing size is
    refused within the same budget of address space as a small one."""
    monkeypatch.setenv("IRSCORE_PLAIN_BYTES", "0")
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    blank = _write(tmp_path / "blank", "\n" * size, packed)
    got = subprocess.run(
        [sys.executable, "-c", BOUNDED, str(qrels), str(run), str(blank), str(BUDGET)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (got.returncode, got.stderr) == (2, refusal(blank, size))


def test_skipped_lines_hold_two_numbers_for_any_count_of_blank_lines(tmp_path):
    path = tmp_path / "r"
    path.write_bytes(b"\n" * 3_000_000 + RUN.encode() + b"\n" * 3_000_000)
    skipped = trec.read_run_records(path).skipped
    assert skipped.first.nbytes + skipped.count.nbytes <= 4 * 16  # two runs of two int64
    assert np.array_equal(skipped.count, [3_000_000, 3_000_000])
