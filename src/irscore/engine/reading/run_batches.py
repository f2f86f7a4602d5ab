"""Several small TREC runs parsed as one: their bytes joined and handed to Arrow's parser
a group of about 1 MiB of files at a time, the rows then split back per file by each
file's line count. A TREC DL run of 43 x 200 lines costs ~4.3 ms read alone, of which
~2.4 ms is Arrow's parse: the rest (opening, detecting the layout, the checks and
column steps) is paid once a group or a batch (~3.0 ms a run in all).

Only files that the per-file reader (`trec.read_run_records`) would parse in one fast
pass, every line a record, qualify: anything else gives None, and each file is then
read alone, which reports a bad line (its file, line and fault) as it always has.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from irscore.engine.reading import formats, streams
from irscore.engine.reading.columns import canonical, combine, fast_columns, narrowed, plain_docnos
from irscore.engine.reading.run_files import plain_trec
from irscore.engine.reading.skipped_lines import SkippedLines
from irscore.engine.reading.trec import Records

GROUP_BYTES = streams.PIECE  # files parsed at once, at most (a larger one alone)
LAYOUT = formats.TREC_RUN  # the one layout files are read together in


def read_together(paths: list[str], sizes: list[int], fmt: str = "auto") -> list[Records] | None:
    """Each path's `Records`, as `trec.read_run_records` gives them, from a parse a group
    of files; None unless every file is plain TREC text (uncompressed, no byte order
    mark, header, comment, blank or over-long line, ending with a line end) in TREC's
    run layout (`LAYOUT`) and of the size in bytes `sizes` gives it (as the caller found
    it, when it made the batch: a file of another size is read alone)."""
    if fmt not in ("auto", "trec"):
        return None
    groups = _groups(paths, sizes)
    if len(groups) == len(paths):  # a parse a file: the per-file reader is as fast
        return None
    tables, lines = [], []
    for group, group_sizes in groups:
        parsed = _parsed(group, group_sizes, fmt)
        if parsed is None:
            return None
        tables.append(parsed[0])
        lines += parsed[1]
    # the groups' columns as chunks of one table (their types alike: none is narrowed yet),
    # combined as one parse's blocks are, without `combine`'s trims between columns
    table = narrowed(pa.concat_tables(tables))
    table = canonical(combine([table]), LAYOUT, "run", "")  # tags are read: no name needed
    starts = np.cumsum([0, *lines[:-1]]).tolist()
    return [
        Records(table.slice(start, count), streams.display_name(path), LAYOUT, SkippedLines.none())
        for path, start, count in zip(paths, starts, lines, strict=True)
    ]


def _groups(paths: list[str], sizes: list[int]) -> list[tuple[list[str], list[int]]]:
    """Consecutive paths (with their sizes) in groups of about `GROUP_BYTES` (a larger file
    alone): Arrow's parse of a group holds ~3x its bytes for a moment (13 TREC DL runs
    of 43 x 200 at once: 12 MiB more for the worker)."""
    groups: list[tuple[list[str], list[int]]] = []
    total = GROUP_BYTES
    for path, size in zip(paths, sizes, strict=True):
        if total + size > GROUP_BYTES:
            groups.append(([], []))
            total = 0
        groups[-1][0].append(path)
        groups[-1][1].append(size)
        total += size
    return groups


def _parsed(paths: list[str], sizes: list[int], fmt: str) -> tuple[pa.Table, list[int]] | None:
    """One parse of these files' bytes: the raw columns and each file's line count; None
    when `read_together` says so."""
    joined = _read_all(paths, sizes)  # one buffer: no second copy of the group's bytes
    if joined is None:
        return None
    ends = np.cumsum(sizes).tolist()
    starts = [0, *ends[:-1]]
    if not all(_plain_trec(joined, a, b, fmt) for a, b in zip(starts, ends, strict=True)):
        return None
    line_ends = np.flatnonzero(np.frombuffer(joined, np.uint8) == 10)
    if len(line_ends) and int(np.diff(line_ends, prepend=-1).max()) > streams.max_line() // 2:
        return None  # a line the per-file reader may refuse as too long
    lines = np.diff(np.searchsorted(line_ends, [0, *ends])).tolist()
    fast = fast_columns(joined, LAYOUT)
    if fast is None:
        return None
    table, skipped, _ = fast
    if len(skipped) or table.num_rows != len(line_ends):  # a comment or an empty line
        return None
    table = plain_docnos(table)
    return table.drop_columns([c for c in table.column_names if c[0] == "_"]), lines


def _read_all(paths: list[str], sizes: list[int]) -> bytearray | None:
    """Every file's bytes, one after the other in one buffer; None when one cannot be read
    (alone, it says why) or is not of its size in `sizes` (it changed since, or while
    read)."""
    try:
        joined = bytearray(sum(sizes))
        view, at = memoryview(joined), 0
        for path, size in zip(paths, sizes, strict=True):
            with open(path, "rb", buffering=0) as handle:
                if handle.readinto(view[at : at + size]) != size or handle.read(1):
                    return None
            at += size
    except OSError:
        return None
    view.release()
    return joined


def _plain_trec(joined: bytearray, start: int, end: int, fmt: str) -> bool:
    """True when the file at joined[start:end] is read in `LAYOUT` and `read_together` can
    parse it with others (not a list, CSV or TSV: a list's ranks and tags are made up
    per file)."""
    if end == start or joined[end - 1] != 10:
        return False
    return plain_trec(bytes(joined[start : joined.find(b"\n", start, end) + 1]), fmt)
