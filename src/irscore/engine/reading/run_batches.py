"""Several small TREC runs parsed as one: their bytes joined and handed to Arrow's parser
once, the rows then split back per file by each file's line count. A TREC DL run of
43 x 200 lines costs ~4.3 ms read alone, of which ~2.4 ms is Arrow's parse: the rest
(opening, detecting the layout, the checks and column steps) is paid once a batch.

Only files that the per-file reader (`trec.read_run_records`) would parse in one fast
pass, every line a record, qualify: anything else gives None, and each file is then
read alone, which reports a bad line (its file, line and fault) as it always has.
"""

from __future__ import annotations

import numpy as np

from irscore.engine.reading import formats, streams
from irscore.engine.reading.columns import canonical, combine, fast_columns, narrowed, plain_docnos
from irscore.engine.reading.run_files import kind_of
from irscore.engine.reading.skipped_lines import SkippedLines
from irscore.engine.reading.trec import Records

_NOT_FIRST = b" \t\r\n\f\v#\xef"  # a first byte that starts no record line (or a BOM)


def read_together(paths: list[str], fmt: str = "auto") -> list[Records] | None:
    """Each path's `Records`, as `trec.read_run_records` gives them, from one parse; None
    unless every file is plain TREC text (uncompressed, no byte order mark, header,
    comment, blank line or over-long line, ending with a line end) of one layout."""
    if fmt not in ("auto", "trec"):
        return None
    layout, data = None, []
    for path in paths:
        try:
            with open(path, "rb") as handle:
                content = handle.read()
        except OSError:
            return None
        found = _layout(content, fmt)
        if found is None or (layout is not None and found != layout):
            return None
        layout = found
        data.append(content)
    if layout is None:
        return None
    joined = b"".join(data)
    ends = np.flatnonzero(np.frombuffer(joined, np.uint8) == 10)
    if len(ends) and int(np.diff(ends, prepend=-1).max()) > streams.max_line() // 2:
        return None  # a line the per-file reader may refuse as too long
    lines = np.diff(np.searchsorted(ends, np.cumsum([0, *map(len, data)])))
    del data
    fast = fast_columns(joined, layout)
    if fast is None:
        return None
    table, skipped, _ = fast
    if len(skipped) or table.num_rows != len(ends):  # a comment or an empty line
        return None
    table = plain_docnos(table)
    table = narrowed(table.drop_columns([c for c in table.column_names if c.startswith("_")]))
    table = canonical(combine([table]), layout, "run", "")  # tags are read: no name needed
    starts = np.cumsum([0, *lines[:-1]]).tolist()
    return [
        Records(
            table.slice(start, int(count)), streams.display_name(path), layout, SkippedLines.none()
        )
        for path, start, count in zip(paths, starts, lines, strict=True)
    ]


def _layout(content: bytes, fmt: str) -> formats.Layout | None:
    """The TREC layout of a file that `read_together` can parse with others, else None."""
    if not content.endswith(b"\n") or content[0] in _NOT_FIRST:
        return None
    if any(content.startswith(magic) for magic in streams.MAGIC) or kind_of(content[:64]):
        return None
    try:
        layout = formats.detect(content[: content.find(b"\n")].decode("utf-8"), "run", fmt)
    except (UnicodeDecodeError, formats.FormatError):
        return None
    return layout if layout.name == "trec" and not layout.header else None
