"""The lines of an input that hold no record (blank lines, comments, a header), kept as
runs of consecutive line numbers: a file of a billion blank lines is one run of two
numbers, not a billion of them, so blank input costs what its bytes cost to scan.
"""

from __future__ import annotations

import re

import numpy as np

from irscore.engine.reading import streams

# Bytes that make a line blank when it holds nothing else (the careful reader's split).
_SPACE = b" \t\r\n\f\v"
BLANK = re.compile(rb"[ \t\r\n\f\v]*")
TAIL = 4096  # bytes at a block's end looked at first for blank lines


class SkippedLines:
    """Line numbers in runs: `first[i]` starts a run of `count[i]` lines, runs in order.
    `len()` is the number of lines."""

    __slots__ = ("count", "first")

    def __init__(self, first: np.ndarray, count: np.ndarray):
        self.first = np.asarray(first, dtype=np.int64)
        self.count = np.asarray(count, dtype=np.int64)

    @classmethod
    def none(cls) -> SkippedLines:
        """No line skipped (a JSON or Parquet run has no lines)."""
        return cls(np.zeros(0, np.int64), np.zeros(0, np.int64))

    @classmethod
    def of_lines(cls, lines: np.ndarray | list[int]) -> SkippedLines:
        """Runs of sorted line numbers, each line once."""
        lines = np.asarray(lines, dtype=np.int64)
        if not len(lines):
            return cls.none()
        starts = np.r_[0, np.flatnonzero(np.diff(lines) != 1) + 1]
        return cls(lines[starts], np.diff(np.r_[starts, len(lines)]))

    @classmethod
    def joined(cls, parts: list[SkippedLines]) -> SkippedLines:
        """Several parts' runs as one, in line order (the parts' runs do not overlap)."""
        first = np.concatenate([np.zeros(0, np.int64), *(p.first for p in parts)])
        count = np.concatenate([np.zeros(0, np.int64), *(p.count for p in parts)])
        order = np.argsort(first, kind="stable")
        return cls(first[order], count[order])

    @classmethod
    def between(cls, lines: np.ndarray) -> SkippedLines:
        """The lines skipped around records on `lines` (1-based, ascending): record i's
        `line_of` is then lines[i], for a block of a file's records."""
        lines = np.asarray(lines, dtype=np.int64)
        if not len(lines):
            return cls.none()
        gaps = np.diff(lines, prepend=0) - 1
        runs = np.flatnonzero(gaps)
        return cls(lines[runs] - gaps[runs], gaps[runs])

    def shifted(self, by: int) -> SkippedLines:
        """The same runs, `by` lines later."""
        return SkippedLines(self.first + by, self.count)

    def __len__(self) -> int:
        return int(self.count.sum())

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, SkippedLines)
            and np.array_equal(self.first, other.first)
            and np.array_equal(self.count, other.count)
        )

    __hash__ = None  # type: ignore[assignment]

    def lines(self) -> np.ndarray:
        """Every skipped line's number (for tests and small inputs: one int64 a line)."""
        return np.repeat(self.first - np.cumsum(np.r_[0, self.count[:-1]]), self.count) + (
            np.arange(len(self))
        )

    def line_of(self, row: int) -> int:
        """The 1-based line number of record `row` (0-based) of the lines these runs skip."""
        before = np.cumsum(self.count)
        records_before = self.first - 1 - (before - self.count)  # records ahead of each run
        runs = int(np.searchsorted(records_before, row, side="right"))
        return row + 1 + (int(before[runs - 1]) if runs else 0)


def blank_prefix(block: bytes, start: int) -> tuple[int, int]:
    """(where the first line at or after `start` that is not blank begins, how many blank
    lines come before it): one regular-expression scan, no object per line."""
    end = BLANK.match(block, start).end()
    # blank to the end: the last line counts even without its line end
    cut = end if end == len(block) else block.rfind(b"\n", start, end) + 1 or start
    return cut, block.count(b"\n", start, cut) + (cut == len(block) and not block.endswith(b"\n"))


def blank_suffix(block: bytes, start: int) -> int:
    """Where the blank lines at the end of `block[start:]` begin (`len(block)`: none): the
    end of its last line that is not blank. The last bytes are looked at first, so a
    block that ends with a record costs no copy of itself."""
    tail = max(start, len(block) - TAIL)
    kept = len(block[tail:].rstrip(_SPACE)) + tail
    if kept == tail:  # blank as far as the tail goes: look at the whole
        kept = len(block[start:].rstrip(_SPACE)) + start
    if kept == start:
        return start
    end = block.find(b"\n", kept)
    return len(block) if end < 0 else end + 1


def empty_lines(data: bytes) -> SkippedLines:
    """The 0-based indices of the lines of `data` that are empty (`\\n` or `\\r\\n` alone),
    as runs: Arrow's parser skips them. Counted a piece at a time, so the temporaries
    stay a few times a piece, whatever the block holds."""
    text = np.frombuffer(data, np.uint8)
    parts, line, previous = [], 0, -1  # lines before the piece; the last line end seen
    for start in range(0, len(text), streams.PIECE):
        ends = np.flatnonzero(text[start : start + streams.PIECE] == 10) + start
        if not len(ends):
            continue
        gap = np.diff(ends, prepend=previous)
        empty = (gap == 1) | ((gap == 2) & (text[ends - 1] == 13))
        parts.append(SkippedLines.of_lines(np.flatnonzero(empty) + line))
        line, previous = line + len(ends), int(ends[-1])
    return SkippedLines.joined(parts)
