"""The careful line-by-line reader: every line split and every field checked, raising
at the first bad one with the exact error (the line, what is wrong). It is the
authority on what is valid: Arrow's parser (`columns.fast_columns`) takes a block only
where it would accept every line, and hands the rest here.
"""

from __future__ import annotations

import math
import re

import pyarrow as pa

from irscore.engine.reading import errors, formats
from irscore.engine.reading.errors import TrecFormatError
from irscore.engine.reading.formats import Layout, field_name
from irscore.engine.reading.skipped_lines import SkippedLines
from irscore.engine.system import arrow_compute as ac

GRADE = re.compile(r"[+-]?[0-9]{1,15}")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_CONTROL = re.compile(r"[\x00-\x1f]")  # no id holds one: trec_eval's C strings end at NUL

# a first line of a qrels's 4 columns with a run's 6, or the other way round
SWAPPED = {
    (4, 6): " (looks like a run; did you swap QRELS and RUN?)",
    (6, 4): " (looks like a qrels; did you swap QRELS and RUN?)",
}


def slow_columns(
    text: str, first_line: int, layout: Layout, name: str, unread_rank: list | None = None
) -> tuple[pa.Table, SkippedLines]:
    """Split and check every line; raise at the first bad one. A rank that is not a whole
    number is read as 0 and its line kept in `unread_rank` (when given, and the lines
    have scores): nothing else reads the rank but tie-break `rank`, which refuses it
    (`Records.check_ranks`)."""
    width = len(layout.columns)
    columns: list[list] = [[] for _ in range(width)]
    checks = [_CHECKS.get(c) for c in layout.columns]
    if "score" not in layout.columns:  # the ranks are the order: each must be read
        unread_rank = None
    skipped = []
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for index, raw in enumerate(lines):
        line = raw.rstrip("\r")
        fields = formats.split(line, layout.delimiter)
        if not "".join(fields).strip(" \t\r\f\v") or fields[0].lstrip(" \t\f\v").startswith("#"):
            skipped.append(first_line + index)
            continue
        if len(fields) > width and layout.extra_fields:
            fields = fields[:width]
        if len(fields) != width:
            problem = f"expected {width} columns, found {len(fields)}"
            if not columns[0]:  # the first record: perhaps the other file
                problem += SWAPPED.get((width, len(fields)), "")
            raise TrecFormatError(name, first_line + index, problem, line)
        for i, (column, check, value) in enumerate(zip(columns, checks, fields, strict=True)):
            problem = check(value) if check else (None if value else "a field is empty")
            if problem and check is _check_rank and unread_rank is not None:
                if not unread_rank:
                    unread_rank.append((first_line + index, line))
                value, problem = "0", None
            if not problem and layout.columns[i] and (control := _CONTROL.search(value)):
                problem = (
                    f"{layout.columns[i]} {errors.shown(value)!r} holds the control character "
                    f"U+{ord(control.group()):04X}"
                )
            if problem:
                raise TrecFormatError(name, first_line + index, problem, line)
            column.append(value)
    table = pa.table(
        {
            field_name(layout, i): (
                pa.array([float(v) for v in values], pa.float64())
                if layout.columns[i] in ("rank", "score")
                else ac.dictionary_encode(pa.array(values, pa.string()))
            )
            for i, values in enumerate(columns)
        }
    )
    return table, SkippedLines.of_lines(skipped)


def _check_grade(value: str) -> str | None:
    if not GRADE.fullmatch(value):
        return f"grade {errors.shown(value)!r} is not an integer of at most 15 digits"
    return None


def _is_whole(value: float) -> bool:
    return math.isfinite(value) and value.is_integer() and abs(value) < 2.0**53


def _check_rank(value: str) -> str | None:
    if not _DECIMAL.fullmatch(value) or not _is_whole(float(value)):
        return f"rank {errors.shown(value)!r} is not a whole number"
    return None


def _check_score(value: str) -> str | None:
    if not _DECIMAL.fullmatch(value):
        return f"score {errors.shown(value)!r} is not a finite decimal number"
    if not math.isfinite(float(value)):
        return f"score {errors.shown(value)!r} is not a finite number"
    return None


_CHECKS = {"grade": _check_grade, "rank": _check_rank, "score": _check_score}


def utf8_error(
    name: str, line_no: int, raw: bytes, err: UnicodeDecodeError, offset: int
) -> TrecFormatError:
    """Bytes that are not UTF-8: the line, the bad byte and its offset in the file,
    and the start of the line with the bad bytes escaped (never a dump)."""
    bad = raw[err.start : err.start + 1].hex()
    problem = (
        f"not valid UTF-8: byte 0x{bad} at byte offset {offset + err.start} "
        f"(column {err.start + 1})"
    )
    shown = raw[:80].decode("utf-8", "backslashreplace") + ("..." if len(raw) > 80 else "")
    return TrecFormatError(name, line_no, problem, shown)
