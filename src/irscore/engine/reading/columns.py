"""The fields of a block of lines as Arrow columns, checked: Arrow's multi-threaded
parser where a block is plain (the careful line-by-line reader, `careful_reader`, where
it is not: it is the authority on what is valid and raises the exact error), the
blocks' columns combined, judgments checked for repeats, and the canonical columns of
qrels and runs that `irscore.engine.reading.trec` hands out.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pa_csv

from irscore.engine.reading import streams
from irscore.engine.reading.careful_reader import GRADE
from irscore.engine.reading.errors import TrecFormatError
from irscore.engine.reading.formats import Layout, field_name
from irscore.engine.reading.skipped_lines import SkippedLines, empty_lines
from irscore.engine.system import arrow_compute as ac
from irscore.engine.system import string_arrays
from irscore.engine.system.allocator import give_back_freed_memory
from irscore.engine.system.arrays import as_arrow, numpy_view, numpy_view_offsets, one_array

LABEL = pa.dictionary(pa.int32(), pa.string())


_COMPARED = 1 << 20  # docnos compared as words this many at a time (16 bytes a row)


def plain_docnos(table: pa.Table) -> pa.Table:
    """A block's docnos as plain strings: `prepare.prepare` sorts them per topic, and
    hashing a million mostly distinct docnos into a dictionary would cost more."""
    column = table["docno"]
    if not pa.types.is_dictionary(column.type):
        return table
    plain = pa.chunked_array([ac.take(c.dictionary, c.indices) for c in column.chunks], pa.string())
    return table.set_column(table.column_names.index("docno"), "docno", plain)


def narrowed(table: pa.Table) -> pa.Table:
    """A block's run columns in fewer bytes while the blocks wait to be combined: ranks
    as int32 when they all fit, dictionary codes in the narrowest integer type that
    numbers every chunk's dictionary (one type for the column: Arrow's chunks of one
    column must share it, and a block's chunks have dictionaries of different sizes)."""
    columns = {}
    for name in table.column_names:
        chunks = table[name].chunks
        if chunks and pa.types.is_dictionary(chunks[0].type):
            code = _code_type(max(len(c.dictionary) for c in chunks))
            chunks = [
                pa.DictionaryArray.from_arrays(
                    as_arrow(numpy_view(c.indices).astype(code)), c.dictionary
                )
                for c in chunks
            ]
        elif chunks and name == "rank" and pa.types.is_floating(chunks[0].type):
            narrowed = [_narrow_whole(numpy_view(c)) for c in chunks]
            if all(v.dtype == np.int32 for v in narrowed):
                chunks = [as_arrow(v) for v in narrowed]
        columns[name] = pa.chunked_array(chunks) if chunks else table[name]
    return pa.table(columns)


def combine(tables: list[pa.Table], give_back: bool = True) -> pa.Table:
    """One table of single chunks from the blocks' tables, emptying `tables`.

    Dictionary columns are recoded into one dictionary (a hash pass over the
    blocks' distinct labels, not their rows) with the narrowest integer codes
    (a run's tag: one byte a line), strings and numbers concatenated,
    column by column, each block's column freed once copied: the peak is the
    blocks plus one column, not two copies of everything. A reader that holds a block
    at a time passes `give_back=False`: its next block reuses the freed pages.
    """
    names, blocks = tables[0].column_names, len(tables)
    pending = {name: [chunk for t in tables for chunk in t[name].chunks] for name in names}
    tables.clear()
    columns = {}
    for name in names:
        if give_back and columns and blocks > 1:  # the last column's blocks are freed
            give_back_freed_memory()
        chunks = pending.pop(name)
        if pa.types.is_string(chunks[0].type) or pa.types.is_large_string(chunks[0].type):
            columns[name] = _concat_strings(chunks)
            continue
        if not pa.types.is_dictionary(chunks[0].type):
            dtype = np.result_type(*(numpy_view(c).dtype for c in chunks))
            values = np.empty(sum(len(c) for c in chunks), dtype=dtype)
            row = 0
            while chunks:
                chunk = numpy_view(chunks.pop(0))
                values[row : row + len(chunk)] = chunk
                row += len(chunk)
            columns[name] = as_arrow(values)
            continue
        recode, labels = _union([c.dictionary for c in chunks])
        codes = np.empty(sum(len(c) for c in chunks), dtype=_code_type(len(labels)))
        row = offset = 0
        while chunks:
            chunk = chunks.pop(0)
            local = recode[offset : offset + len(chunk.dictionary)]
            codes[row : row + len(chunk)] = local[numpy_view(chunk.indices)]
            row, offset = row + len(chunk), offset + len(chunk.dictionary)
        columns[name] = pa.DictionaryArray.from_arrays(as_arrow(codes), labels)
    if give_back and blocks > 1:
        give_back_freed_memory()
    return pa.table(columns)


def _union(dictionaries: list[pa.Array]) -> tuple[np.ndarray, pa.Array]:
    """The blocks' dictionaries, one after the other, coded into their union in the order
    first seen: (each label's code, the union). One block's is its own union."""
    if len(dictionaries) == 1:
        return np.arange(len(dictionaries[0])), dictionaries[0]
    labels = _concat_strings(list(dictionaries))  # Arrow's concat_arrays crashed out of memory
    coded = string_arrays.first_seen_distinct(labels)
    if coded is not None:
        return coded
    union = ac.dictionary_encode(labels)
    return numpy_view(union.indices), union.dictionary


def _code_type(labels: int) -> type:
    """The narrowest signed integer type that numbers `labels` labels."""
    for dtype in (np.int8, np.int16, np.int32):
        if labels <= np.iinfo(dtype).max + 1:
            return dtype
    return np.int64


def _concat_strings(chunks: list[pa.Array]) -> pa.Array:
    """One string array from the blocks' (64-bit offsets past 2 GiB of text), emptying
    `chunks`: copied into arrays of the column's size a chunk at a time, each chunk
    freed once copied, so the peak is the column plus one chunk, not two columns.
    The readers' strings hold no nulls (an empty field is an error)."""
    rows = sum(len(c) for c in chunks)
    size = sum(string_arrays.text_bytes(c) for c in chunks)
    large = size >= 2**31 - 1
    offsets = np.zeros(rows + 1, dtype=np.int64 if large else np.int32)
    text = np.empty(size, dtype=np.uint8)
    row = at = 0
    while chunks:
        chunk = chunks.pop(0)
        own = numpy_view_offsets(chunk).astype(np.int64)
        length = int(own[-1] - own[0])
        if length:
            data = np.frombuffer(chunk.buffers()[2], np.uint8)
            text[at : at + length] = data[own[0] : own[-1]]
        offsets[row + 1 : row + len(chunk) + 1] = own[1:] - own[0] + at
        row, at = row + len(chunk), at + length
    kind = pa.large_string() if large else pa.string()
    return pa.Array.from_buffers(kind, rows, [None, pa.py_buffer(offsets), pa.py_buffer(text)])


def fast_columns(data: bytes, layout: Layout) -> tuple[pa.Table, SkippedLines, int] | None:
    """Arrow's parser on a block of lines whose fields are split by single delimiters;
    comment lines cut out first. Returns the raw table, the 0-based indices of lines
    without a record (as runs) and the number of lines, or None when anything needs the careful
    reader."""
    if b"\x0b" in data or b"\x0c" in data:
        return None
    if b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):
        return None
    delimiter = layout.delimiter
    if delimiter is None:
        delimiter = " "
        if b"\t" in data:
            if b" " in data:
                return None
            delimiter = "\t"
    elif b" " in data or b'"' in data:
        return None  # CSV/TSV fields are trimmed of spaces and unquoted by the careful reader
    original = data
    data, comments = _cut_comments(data)
    names = [field_name(layout, i) for i in range(len(layout.columns))]
    types = {name: LABEL for name in names}
    types.update({c: pa.float64() for c in ("rank", "score") if c in names})
    # Plain strings: docnos (no hash per row, `plain_docnos`) and the fields only checked
    # (a run's Q0); a qrels's second column (TREC's iteration, or subtopics) stays coded.
    coded = "_1" if "grade" in names else None
    types.update({n: pa.string() for n in names if n == "docno" or (n[0] == "_" and n != coded)})
    try:
        table = pa_csv.read_csv(
            pa.BufferReader(data),  # zero-copy: a file object would copy every byte
            read_options=pa_csv.ReadOptions(column_names=names, block_size=streams.PIECE),
            parse_options=pa_csv.ParseOptions(delimiter=delimiter, quote_char=False),
            convert_options=pa_csv.ConvertOptions(
                column_types=types,
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
                check_utf8=not is_ascii(data),
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    if not _plausible(table):
        return None
    lines = line_ends(original) + (not original.endswith(b"\n"))
    skipped = SkippedLines.of_lines(comments)
    if table.num_rows + len(comments) == lines:
        return table, skipped, lines
    # Some lines were empty: find them (in the block as it was, comments and all).
    return table, SkippedLines.joined([skipped, empty_lines(original)]), lines


def is_ascii(data: bytes) -> bool:
    """True when every byte is below 0x80: text that is UTF-8 already, which Arrow then
    need not check string by string (a sixth of the parse: a 23 MiB block of MS MARCO v2
    in 87 ms against 106; the check itself takes 1 ms). Any other byte leaves the
    check on, and with it the careful reader's error for bytes that are not UTF-8."""
    return int(np.frombuffer(data, np.uint8).max(initial=0)) < 0x80


def line_ends(data: bytes) -> int:
    """The number of `\\n` bytes, a vectorised comparison a piece at a time (no temporary
    the block's size), where `bytes.count` walks the block a byte at a time: 1.4 ms for
    a 1.5 MB run, ten times this."""
    text = np.frombuffer(data, np.uint8)
    return sum(
        int(np.count_nonzero(text[start : start + streams.PIECE] == 10))
        for start in range(0, len(text), streams.PIECE)
    )


def _cut_comments(data: bytes) -> tuple[bytes, list[int]]:
    """The block without its comment lines (first byte `#`), and their 0-based line
    indices. A scan for the rare `#` byte: nothing to do in most files."""
    found, starts = data.find(b"#"), []
    while found >= 0:
        if found == 0 or data[found - 1] == 10:  # a `#` that starts a line
            starts.append(found)
        found = data.find(b"#", found + 1)
    if not starts:
        return data, []
    indices, pieces, line, counted, kept = [], [], 0, 0, 0
    for start in starts:
        line += data.count(b"\n", counted, start)
        counted = start
        indices.append(line)
        end = data.find(b"\n", start)
        pieces.append(data[kept:start])
        kept = len(data) if end < 0 else end + 1
    pieces.append(data[kept:])
    return b"".join(pieces), indices


def _plausible(table: pa.Table) -> bool:
    """True when no field is empty and every number is finite (rank: whole) and every
    grade an integer of at most 15 digits: the careful reader would accept every line."""
    for name in table.column_names:
        for chunk in table[name].chunks:
            if pa.types.is_string(chunk.type):
                if len(chunk) and string_arrays.lengths(chunk).min() == 0:
                    return False
                if name[0] != "_" and _has_control(chunk):
                    return False
                continue
            if pa.types.is_dictionary(chunk.type):
                labels = chunk.dictionary
                if len(labels) and string_arrays.lengths(labels).min() == 0:  # an empty field
                    return False
                if name[0] != "_" and _has_control(labels):
                    return False
                if name == "grade" and not all(GRADE.fullmatch(g) for g in labels.to_pylist()):
                    return False
                continue
            if chunk.null_count or not np.isfinite(values := numpy_view(chunk)).all():
                return False
            if name == "rank" and not _whole(values):
                return False
    return True


def _has_control(strings: pa.Array) -> bool:
    """True when a string holds a control character (below U+0020): the smallest byte
    of all the strings' bytes (which hold no line ends), one vectorised pass."""
    data = strings.buffers()[2]
    return data is not None and data.size > 0 and int(np.frombuffer(data, np.uint8).min()) < 32


def _whole(values: np.ndarray) -> bool:
    """True when every value is a whole number that int64 holds exactly."""
    return bool(((np.floor(values) == values) & (np.abs(values) < 2.0**53)).all())


def _labels(column: pa.ChunkedArray) -> tuple[np.ndarray, list[str]]:
    """The int32 codes and the labels of a single-chunk dictionary column."""
    array = column.chunk(0)
    return numpy_view(array.indices), array.dictionary.to_pylist()


def check_unique_judgments(
    raw: pa.Table, layout: Layout, skipped: SkippedLines, name: str
) -> pa.Array | None:
    """A TREC qrels's second column, dictionary-encoded, when it takes more than one value:
    the subtopic of each judgment to the diversity measures, as ndeval reads a subtopic
    qrels (`topic subtopic docno grade`); None when it is one value (TREC's iteration).
    A docno judged twice for one topic (in one subtopic, when there are several) is an
    error naming the second judgment's line."""
    subtopic = None
    if layout.name == "trec" and raw.num_rows:
        second = one_array(raw[field_name(layout, 1)])  # coded by both readers
        subtopic = second if len(second.dictionary) > 1 else None
    if raw.num_rows < 2 or (subtopic is None and _in_order(raw)):
        return subtopic
    repeat = _first_repeat(_judgment_keys(raw, subtopic))
    if repeat is None:
        return subtopic
    row, first = repeat
    fields = [str(raw[field_name(layout, i)][row]) for i in range(len(layout.columns))]
    line = (layout.delimiter or " ").join(fields)
    topic_name, docno = fields[layout.columns.index("topic")], fields[layout.columns.index("docno")]
    within = f" subtopic {fields[1]}" if subtopic is not None else ""
    raise TrecFormatError(
        name,
        skipped.line_of(row),
        f"document {docno} is judged twice for topic {topic_name}{within} "
        f"(first on line {skipped.line_of(first)})",
        line,
    )


def _in_order(raw: pa.Table) -> bool:
    """True when each topic's judgments are consecutive lines, their docnos in strictly
    increasing byte order, as TREC's qrels files are sorted: then no document is judged
    twice, which one comparison of neighbours shows."""
    topic = raw["topic"].chunk(0)
    codes = numpy_view(topic.indices)
    changes = codes[1:] != codes[:-1]
    if int(np.count_nonzero(changes)) + 1 != len(topic.dictionary):  # a topic comes back
        return False
    docno = one_array(raw["docno"])
    increasing = string_arrays.increasing(docno)
    if increasing is None:
        increasing = _increasing_words(docno)
    if increasing is None:
        pairs = ac.less(docno.slice(0, len(docno) - 1), docno.slice(1))
        increasing = numpy_view(ac.cast(pairs, pa.int8())).view(bool)
    return bool((increasing | changes).all())


def _increasing_words(docno: pa.Array) -> np.ndarray | None:
    """`string_arrays.increasing` for many docnos of at most 16 bytes (TREC's, MS MARCO's),
    compared as two 64-bit words each (`joins.words`): no Arrow kernel, whose module a
    Robust04 evaluation would import for this alone (~9 ms). None for other docnos."""
    from irscore.engine.system import joins

    increasing = np.empty(max(len(docno) - 1, 0), dtype=bool)
    for start in range(0, len(docno) - 1, _COMPARED):  # a slice's words at a time
        found = joins.words(docno.slice(start, _COMPARED + 1))
        if found is None:
            return None
        high, low = found
        after = (high[1:] > high[:-1]) | ((high[1:] == high[:-1]) & (low[1:] > low[:-1]))
        increasing[start : start + len(after)] = after
    return increasing


def _judgment_keys(raw: pa.Table, subtopic: pa.DictionaryArray | None) -> np.ndarray:
    """One integer per judgment, equal for two rows exactly when they judge the same
    (topic, docno[, subtopic]): the topic code and the docno's bytes packed into 64
    bits where they fit (`joins.packed`), else codes from hashing the docnos."""
    from irscore.engine.system import joins

    topic = numpy_view(raw["topic"].chunk(0).indices)
    docno = one_array(raw["docno"])
    key = joins.packed(topic, docno) if subtopic is None else None
    if key is not None:
        return key
    coded = string_arrays.sorted_distinct(docno)
    if coded is None:
        encoded = ac.dictionary_encode(docno)
        coded = numpy_view(encoded.indices), encoded.dictionary
    codes, labels = coded
    key = topic.astype(np.int64) * max(len(labels), 1) + codes
    if subtopic is not None:
        key = key * len(subtopic.dictionary) + numpy_view(subtopic.indices)
    return key


def _first_repeat(key: np.ndarray) -> tuple[int, int] | None:
    """(the first row whose key an earlier row has, that earlier row), or None. An
    unstable sort of the keys alone says whether there is one."""
    ordered = np.sort(key)
    if not (ordered[1:] == ordered[:-1]).any():
        return None
    del ordered
    order = np.argsort(key, kind="stable")
    repeat = key[order][1:] == key[order][:-1]
    if not repeat.any():
        return None
    row = int(order[1:][repeat].min())
    return row, int(order[np.flatnonzero(key[order] == key[row])[0]])


def canonical(raw: pa.Table, layout: Layout, role: str, name: str) -> pa.Table:
    """The role's columns from the raw fields: grades as int64; a run's missing rank,
    score or tag made up (rank: file order within the topic; score: -rank; tag: file name)."""
    n = raw.num_rows
    if role == "qrels":
        codes, labels = _labels(raw["grade"]) if n else (np.zeros(0, np.int32), [])
        grade = np.array([int(g) for g in labels], dtype=np.int64)[codes] if n else codes
        return pa.table(
            {
                "topic": raw["topic"],
                "docno": raw["docno"],
                "grade": as_arrow(grade.astype(np.int64)),
            }
        )
    names = set(raw.column_names)
    if "rank" in names:  # whole numbers, checked, narrowed block by block (`narrowed`)
        rank = numpy_view(raw["rank"].chunk(0))
    else:
        rank = _position_in_topic(raw["topic"]) + 1
    score = numpy_view(raw["score"].chunk(0)) if "score" in names else -rank.astype(np.float64)
    if "tag" in names:
        tag = raw["tag"]
    else:
        label = _tag_of(name).encode()
        dictionary = pa.Array.from_buffers(
            pa.string(),
            1,
            [None, pa.py_buffer(np.array([0, len(label)], np.int32)), pa.py_buffer(label)],
        )
        tag = pa.DictionaryArray.from_arrays(as_arrow(np.zeros(n, np.int8)), dictionary)
    return pa.table(
        {
            "topic": raw["topic"],
            "docno": raw["docno"],
            "rank": as_arrow(rank),
            "score": as_arrow(np.asarray(score, np.float64)),
            "tag": tag,
        }
    )


def _narrow_whole(values: np.ndarray) -> np.ndarray:
    """Whole numbers as int32 when they all fit (half the memory of the float64 read),
    else as they are."""
    if values.dtype.kind == "f" and (
        len(values) == 0 or (values.min() >= -(2**31) and values.max() < 2**31)
    ):
        return values.astype(np.int32)
    return values


def _position_in_topic(topic: pa.ChunkedArray) -> np.ndarray:
    """Each row's 0-based position among its topic's rows, in file order."""
    if len(topic) == 0:
        return np.zeros(0, np.int64)
    codes = numpy_view(topic.chunk(0).indices).astype(np.int64)
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    starts = np.r_[0, np.flatnonzero(sorted_codes[1:] != sorted_codes[:-1]) + 1]
    position = np.arange(len(codes)) - np.repeat(starts, np.diff(np.r_[starts, len(codes)]))
    out = np.empty(len(codes), np.int64)
    out[order] = position
    return out


def _tag_of(name: str) -> str:
    """A run's tag when the file has none: its file name without the format's suffixes."""
    stem = Path(name).name
    for suffix in (".gz", ".bz2", ".xz", ".csv", ".tsv", ".txt", ".run", ".list"):
        stem = stem.removesuffix(suffix)
    return stem or "run"
