"""The run's rows joined to the qrels by (topic, docno), with one sort, as trec_eval does.

trec_eval sorts each topic's documents by docno and merges them with the
topic's judgments. Here the qrels and run rows of all topics are sorted
together by (topic code, docno bytes) with Arrow's stable sort (in two halves
of the topics on two threads when the input is large); neighbours in that
order give each run row its grade, its docno's rank within the topic, and any
repeated document. No table of every distinct docno is built: hashing a
million mostly distinct docnos costs more than sorting them per topic.

Docnos of 9 to 16 bytes (newswire's), which do not pack into 64 bits with the topic,
are matched as two 64-bit words each, without a sort (`_matched`: 13 ms instead of
23 for a Robust04 chunk of 139k rows). The ranking needs a docno's order only to
break ties at one score, so only the run rows tied at one float32 score get a rank
(the others 0); a repeated document, a collision of the words' mix, or a run whose
rows mostly tie (ordering them all costs more than the sort) is left to the sort.

Docnos longer than 16 bytes that all begin alike (MS MARCO v2's `msmarco_passage_`,
`msmarco_doc_`) are matched so by the (at most 16) bytes that follow their common
beginning, which order and compare as the whole docnos do (`_common_prefix`).

A DataFrame's docnos come already coded (its categories or a factorisation):
`coded_joins` joins those codes without a string.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from irscore.engine.system import arrays, string_arrays
from irscore.engine.system import arrow_compute as ac

NOT_JUDGED = np.iinfo(np.int64).min
_SLICE = 1 << 20  # sorted docnos compared this many at a time: they never exist whole
_THREADED = 1 << 18  # rows from which the sort runs in two halves on two threads
_PACK_ROWS = 1 << 18  # rows packed at a time: a few MiB of temporaries, whatever the input
_SAMPLED_BYTES = 1 << 16  # docno bytes looked at first, to refuse long docnos at once
# The share of a run's rows tied at a score from which `_matched` leaves them to the sort
# (which orders every docno at once): 250k rows all tied took 131 ms there, 105 in the sort.
_MOST_TIED = 0.25
_PASSES = 4  # odd-even passes that make an unstable sort stable, before a sort does
_PREFIX_SAMPLE = 1 << 10  # run docnos read to find the beginning they share
_PREFIX_BYTES = 4  # the shortest shared beginning worth cutting off
_MATCHED_ROWS = 1 << 22  # the most rows `_matched` joins (~60 bytes a row of temporaries)
# Odd multipliers of the mix that matches (topic, docno words); any collision is checked.
_MIX = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F), np.uint64(0x165667B19E3779F9))
# _KEPT[k]: a word's first k bytes (its high ones) kept, the rest (past the string) zeroed
_KEPT = np.array([(2**64 - 1) ^ (2 ** (64 - 8 * k) - 1) for k in range(9)], dtype=np.uint64)


@dataclass(frozen=True)
class Joined:
    """Per run row: its docno's rank among its topic's distinct docnos (run and qrels
    together, in byte order), and its grade (NOT_JUDGED when the qrels have none).
    From `_matched` (no repeated document), `doc` ranks only the rows tied at one
    float32 score in a topic, all such rows together in byte order; 0 elsewhere."""

    doc: np.ndarray
    grade: np.ndarray
    width: int  # one more than the largest `doc`
    has_duplicates: bool  # some docno occurs twice for one topic of the run


def join(
    q_topic: np.ndarray,
    q_docno: pa.Array,
    q_grade: np.ndarray,
    r_topic: np.ndarray,
    r_docno: pa.Array,
    r_score: np.ndarray | None = None,
) -> Joined:
    """Join run rows to qrels rows (topic codes shared, docnos as Arrow strings). With the
    run's scores, docnos of 9 to 16 bytes are matched without a sort (`_matched`)."""
    nq, n = len(q_topic), len(q_topic) + len(r_topic)
    if len(r_topic) == 0:
        return Joined(np.zeros(0, np.int64), np.zeros(0, np.int64), 1, False)
    if r_score is not None:
        skip = _common_prefix(q_docno, r_docno)
        matched = _matched(q_topic, q_docno, q_grade, r_topic, r_docno, r_score, skip)
        if matched is not None:
            return matched
    topic = np.concatenate((q_topic, r_topic)).astype(np.int32)
    order, topic_start, new = _sort(topic, _chunked(q_docno, r_docno))
    del topic
    topic_starts = np.flatnonzero(topic_start)
    del topic_start
    pair = np.cumsum(new) - 1  # the (topic, docno) pair of each sorted row
    doc = pair - np.repeat(pair[topic_starts], np.diff(np.r_[topic_starts, n]))
    # Within a pair the stable sort puts the qrels row (at most one) first.
    pair_starts = np.flatnonzero(new)
    first_row = order[pair_starts]
    judged = first_row < nq
    pair_grade = np.full(len(pair_starts), NOT_JUDGED, dtype=np.int64)
    pair_grade[judged] = q_grade[first_row[judged]]
    is_run = order >= nq
    repeated = bool((is_run[1:] & is_run[:-1] & ~new[1:]).any())
    at = np.flatnonzero(is_run)
    rows = order[at] - nq
    run_doc = np.empty(n - nq, dtype=np.int64)
    run_doc[rows] = doc[at]
    run_grade = np.empty(n - nq, dtype=np.int64)
    run_grade[rows] = pair_grade[pair[at]]
    return Joined(run_doc, run_grade, int(doc.max()) + 1, repeated)


def _matched(
    q_topic: np.ndarray,
    q_docno: pa.Array,
    q_grade: np.ndarray,
    r_topic: np.ndarray,
    r_docno: pa.Array,
    r_score: np.ndarray,
    skip: int = 0,
) -> Joined | None:
    """`join` for docnos of 9 to 16 bytes (newswire's `FBIS3-10082`, `LA010189-0001`), too
    long to pack with the topic in 64 bits, without sorting a string; or, past a
    beginning of `skip` bytes that every docno shares (`_common_prefix`), by the 16
    bytes at most that follow it.

    Each docno is two 64-bit words of its bytes (`words`); (topic, words) are matched
    through a 64-bit mix of the three led by the topic's bits, every match checked word
    for word. A row's `doc` is then only what the ranking needs: for the run rows that
    tie at one float32 score in a topic, their docnos' rank in byte order (the words'
    order); 0 for the others.
    None for other docnos, for a run where `_MOST_TIED` of the rows or more tie (the
    sort orders them at once), a document twice for a topic (the sort names it) or two
    different pairs that mix alike (then the sort)."""
    topics = int(max(q_topic.max(initial=0), r_topic.max())) + 1
    if not skip and not _long_unpacked((q_docno, r_docno), topics):
        return None
    if len(q_docno) + len(r_docno) > _MATCHED_ROWS:
        return None
    found = [words(d, skip) for d in (q_docno, r_docno) if len(d)]  # no copy of either
    if any(part is None for part in found):
        return None
    tied = _tied_rows(r_topic, r_score)
    if len(tied) >= _MOST_TIED * len(r_topic):
        return None
    high, low = (np.concatenate(parts) for parts in zip(*found, strict=True))
    nq = len(q_topic)
    topic = np.concatenate((q_topic, r_topic)).astype(np.uint64)
    mix = high * _MIX[0] + low * _MIX[1] + topic * _MIX[2]  # uint64: wraps, as meant
    # led by the topic, a run's rows come in ascending stretches, as files group them:
    # 2M rows of MS MARCO v2 docnos sorted in 133-151 ms (quicksort; 90 ms by timsort),
    # the mix alone in 194-205 ms. Cut to 48 bits where radix passes sort it: 65,000 rows
    # of MS MARCO v2 docnos in 1.15 ms against timsort's 2.28 (the topic's bits, then
    # the mix's: two docnos of one topic rarely collide, and the sort resolves any).
    width = arrays.RADIX_BITS if arrays.radix_sortable(len(r_topic)) else 64
    bits = np.uint64(max(topics - 1, 1).bit_length())
    mix >>= bits + np.uint64(64 - width)
    mix |= topic << (np.uint64(width) - bits)
    q_order = np.argsort(mix[:nq])
    r_order = arrays.small_stable_argsort(mix[nq:]) if width < 64 else None
    if r_order is None:
        r_order = np.argsort(mix[nq:], kind=arrays.sort_kind(r_topic))
    q_mix, r_mix = mix[:nq][q_order], mix[nq:][r_order]
    q_alike = np.flatnonzero(q_mix[1:] == q_mix[:-1])
    r_alike = np.flatnonzero(r_mix[1:] == r_mix[:-1])
    if len(q_alike) or len(r_alike):  # the qrels' pairs are distinct: only mixes collide
        return None  # a run repeat, or a collision: the sort tells them apart
    at = np.minimum(np.searchsorted(q_mix, r_mix), max(nq - 1, 0))
    grade = np.full(len(r_topic), NOT_JUDGED, dtype=np.int64)
    if nq:
        hit = q_mix[at] == r_mix
        q_rows, r_rows = q_order[at[hit]], r_order[hit]
        both = q_rows, r_rows + nq  # a match: the same topic and the same two words
        if not all((v[both[0]] == v[both[1]]).all() for v in (topic, high, low)):
            return None
        grade[r_rows] = q_grade[q_rows]
    doc = np.zeros(len(r_topic), dtype=np.int64)
    if len(tied) == 0:
        return Joined(doc, grade, 1, False)
    high, low = high[nq:][tied], low[nq:][tied]
    by_bytes = np.lexsort((low, high))
    high, low = high[by_bytes], low[by_bytes]
    rank = np.cumsum(np.r_[True, (high[1:] != high[:-1]) | (low[1:] != low[:-1])]) - 1
    doc[tied[by_bytes]] = rank
    return Joined(doc, grade, int(rank[-1]) + 1, False)


def _common_prefix(q_docno: pa.Array, r_docno: pa.Array) -> int:
    """For docnos longer than 16 bytes, the length of the ASCII beginning they all share
    (MS MARCO v2's `msmarco_passage_`), at most a byte short of the shortest; else 0.
    Strings that begin alike order and compare as what follows does, so `_matched` may
    join them by that. The beginning is read off a sample of the run's docnos and
    checked on every one."""
    offsets = arrays.numpy_view_offsets(r_docno).astype(np.int64)
    lengths = np.diff(offsets)
    if int(lengths.max()) <= 16 or r_docno.null_count or q_docno.null_count:
        return 0
    text = np.frombuffer(r_docno.buffers()[2], np.uint8)
    first = text[offsets[0] : offsets[0] + int(lengths[0])]
    ascii_bytes = np.flatnonzero((first == 0) | (first >= 0x80))
    shared = min(int(lengths.min()) - 1, ascii_bytes[0] if len(ascii_bytes) else len(first))
    starts = offsets[:-1][:: max(len(lengths) // _PREFIX_SAMPLE, 1)]
    for place in range(max(shared, 0)):
        if not (text[starts + place] == first[place]).all():
            shared = place
            break
    if len(q_docno):
        q_lengths = np.diff(arrays.numpy_view_offsets(q_docno))
        shared = min(shared, int(q_lengths.min()) - 1)
    if shared < _PREFIX_BYTES:
        return 0
    prefix = first[:shared].tobytes().decode("ascii")
    if not all(ac.all_start_with(d, prefix) for d in (q_docno, r_docno) if len(d)):
        return 0
    return shared


def _tied_rows(topic: np.ndarray, score: np.ndarray) -> np.ndarray:
    """The run rows tied with another at one float32 score in a topic (-0.0 as 0.0, as
    the ranking has them), in row order."""
    with np.errstate(over="ignore"):  # past float32's range: inf, as the ranking has it
        score32 = score.astype(np.float32) + np.float32(0.0)
    group = (topic.astype(np.uint64) << np.uint64(32)) | score32.view(np.uint32)
    tied = np.zeros(len(group), dtype=bool)
    if _ranked(topic, score32):  # equal pairs lie side by side
        equal = group[1:] == group[:-1]
        tied[1:] |= equal
        tied[:-1] |= equal
        return np.flatnonzero(tied)
    order = np.argsort(group, kind="stable")
    equal = group[order][1:] == group[order][:-1]
    tied[order[1:][equal]] = True
    tied[order[:-1][equal]] = True
    return np.flatnonzero(tied)


def _ranked(topic: np.ndarray, score32: np.ndarray) -> bool:
    """True when each topic's rows are together and their scores never rise (NaN fails),
    as a ranked run's file has them: a check in one pass, where a sort of the 2M rows'
    (topic, score) took 70 ms."""
    if len(topic) < 2:
        return True
    change = topic[1:] != topic[:-1]
    if not (change | (score32[1:] <= score32[:-1])).all():
        return False
    first = topic[np.r_[True, change]]  # each stretch's topic: none may come back
    return len(arrays.distinct(first)) == len(first)


def _long_unpacked(parts: tuple[pa.Array, ...], topics: int) -> bool:
    """True when the longest docno has 9 to 16 bytes, none holds a NUL, and (topic code
    below `topics`, docno) does not pack into 64 bits (`_digits`' rule), which `packed`
    orders faster. Reductions over the bytes only: no copy of the strings."""
    texts, width = [], 0
    for strings in parts:
        offsets = arrays.numpy_view_offsets(strings)
        width = max(width, int(np.diff(offsets).max(initial=0)))
        data = strings.buffers()[2]
        if data is not None and offsets[-1] > offsets[0]:
            texts.append(np.frombuffer(data, np.uint8)[offsets[0] : offsets[-1]])
    if not 8 < width <= 16:
        return False
    low, high = min(int(t.min()) for t in texts), max(int(t.max()) for t in texts)
    if low == 0 or topics * (high - low + 2) ** width <= 2**64:
        return False
    present = np.zeros(256, dtype=bool)
    for text in texts:  # a lower bound of the bytes used first: mostly enough, at once
        present[text[:_SAMPLED_BYTES]] = True
    if topics * (int(present.sum()) + 1) ** width > 2**64:
        return True
    for text in texts:  # a scatter of every byte: 9 ms for a Robust04 chunk's docnos
        present[text] = True
    return topics * (int(present.sum()) + 1) ** width > 2**64


def words(strings: pa.Array, skip: int = 0) -> tuple[np.ndarray, np.ndarray] | None:
    """Each string of at most 16 bytes (after its first `skip`, which every string has and
    which are left out) as two big-endian 64-bit words of its bytes, NUL-padded, which
    order as the strings do (strcmp's order: no string holds a NUL); None when some
    string is longer, or holds a NUL, or there are none."""
    offsets = arrays.numpy_view_offsets(strings).astype(np.int64)
    size = np.diff(offsets) - skip
    if len(size) == 0 or size.max() > 16:
        return None
    data = strings.buffers()[2]
    text = np.frombuffer(data, np.uint8)[offsets[0] : offsets[-1]]
    if not text.all():
        return None
    padded = np.zeros(len(text) + 16, dtype=np.uint8)
    padded[: len(text)] = text
    # every 8 bytes from each byte on, as one big-endian word (numpy reads unaligned)
    at_byte = np.ndarray((len(text) + 9,), dtype=">u8", buffer=padded, strides=(1,))
    starts = offsets[:-1] - offsets[0] + skip
    high = at_byte[starts].astype(np.uint64)
    low = at_byte[starts + 8].astype(np.uint64)
    high &= _KEPT[np.minimum(size, 8)]
    low &= _KEPT[np.clip(size - 8, 0, 8)]
    return high, low


def _chunked(first: pa.Array, second: pa.Array) -> pa.ChunkedArray:
    """Two string arrays as one chunked array (64-bit offsets when the text passes 2 GiB)."""
    text = string_arrays.text_bytes(first) + string_arrays.text_bytes(second)
    if first.type != second.type or text >= 2**31 - 1:
        first, second = ac.cast(first, pa.large_string()), ac.cast(second, pa.large_string())
    return pa.chunked_array([first, second], first.type)


def _sort(topic: np.ndarray, docno: pa.ChunkedArray) -> tuple[np.ndarray, ...]:
    """`_sorted` of all rows: topics split into two halves sorted at once on two threads
    (Arrow's sort and comparisons let go of the GIL) when there are many rows and this
    is not already a helper thread (whose work is one half of the caller's)."""
    from irscore.engine.system import threads

    if len(topic) < _THREADED or threads.on_helper():
        return _sorted(topic, docno.combine_chunks())
    counts = np.bincount(topic)
    middle = int(np.searchsorted(np.cumsum(counts), len(topic) // 2)) + 1
    low = topic < middle
    halves = [np.flatnonzero(low), np.flatnonzero(~low)]
    del low

    def half(rows: np.ndarray) -> tuple[np.ndarray, ...]:
        order, topic_start, new = _sorted(topic[rows], taken(docno, rows))
        return rows[order], topic_start, new

    with threads.pool(2) as pool:
        parts = list(pool.map(half, halves))
    return tuple(np.concatenate(arrays) for arrays in zip(*parts, strict=True))


def _sorted(topic: np.ndarray, docno: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A stable sort of (topic, docno) as int64 row indices, and for each sorted row
    whether it starts a topic and whether it starts a (topic, docno) pair: as one
    integer per row when (topic, docno) fits in 64 bits (`packed`), else by Arrow's
    sort of the strings."""
    key = packed(topic, docno)
    if key is None:
        return _sorted_strings(topic, docno)
    order, kind = arrays.small_stable_argsort(key), "stable"
    if order is None:
        kind = arrays.sort_kind(topic, key)
        order = np.argsort(key, kind=kind).astype(np.int64)
    ordered = key[order]
    if kind != "stable":  # quicksort: equal keys put in row order
        _rows_in_order_within_equal_keys(order, ordered)
    n = len(order)
    topic_start = np.ones(n, dtype=bool)
    new = np.ones(n, dtype=bool)
    if n > 1:
        by_topic = topic[order]
        np.not_equal(by_topic[1:], by_topic[:-1], out=topic_start[1:])
        np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    return order, topic_start, new


def packed(topic: np.ndarray, docno: pa.Array) -> np.ndarray | None:
    """(topic, docno) as one unsigned integer a row that orders as the pair does: the
    topic code in the high bits, then the docno's bytes as digits (NUL padding a digit
    below them all, so a shorter prefix comes first, as strcmp has it). None when that
    needs more than 64 bits, or a docno holds a NUL byte."""
    n = len(docno)
    if n == 0:
        return None
    offsets = arrays.numpy_view_offsets(docno)
    lengths = np.diff(offsets)
    data = docno.buffers()[2]
    text = np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8)
    text = text[offsets[0] : offsets[-1]]
    topics = int(topic.max()) + 1 if len(topic) else 1
    width = int(lengths.max())
    coded = _digits(text, topics, width)
    if coded is None:
        return None
    digits, base = coded
    digits = np.concatenate((digits, np.zeros(width, np.uint8)))  # no gather runs past
    shortest = int(lengths.min())
    key = topic.astype(np.uint64)
    starts = (offsets[:-1] - offsets[0]).astype(np.intp)
    for first in range(0, n, _PACK_ROWS):  # in slices: the temporaries stay small
        rows = slice(first, first + _PACK_ROWS)
        part, begin, length = key[rows], starts[rows], lengths[rows]
        for place in range(width):  # Horner's rule, one byte place a pass
            value = digits[begin + place]
            if place >= shortest:
                value[length <= place] = 0  # past the end: the NUL pad, below every byte
            part *= np.uint64(base)
            part += value
    return key


def _digits(text: np.ndarray, topics: int, width: int) -> tuple[np.ndarray, int] | None:
    """Each byte of the docnos as a digit from 1 and the base of those digits (0 is the
    NUL pad), so that `topics` x base**width keys fit in 64 bits; or None. Bytes are
    digits by their distance from the smallest (two reductions and a subtraction), or,
    when that base is too large, by their rank among the bytes present."""
    if len(text) == 0:
        return text, 1
    low, high = int(text.min()), int(text.max())
    if low == 0:
        return None  # a NUL byte: strcmp's strings end there
    base = high - low + 2
    if topics * base**width <= 2**64:
        return text - np.uint8(low - 1), base
    present = np.zeros(256, dtype=bool)
    present[text[:_SAMPLED_BYTES]] = True  # a lower bound of the bytes used, at once
    if topics * (int(present.sum()) + 1) ** width > 2**64:
        return None
    present[text] = True
    base = int(present.sum()) + 1
    if topics * base**width > 2**64:
        return None
    digit = np.zeros(256, dtype=np.uint8)
    digit[present] = np.arange(1, base, dtype=np.uint8)
    return digit[text], base


def _rows_in_order_within_equal_keys(order: np.ndarray, ordered: np.ndarray) -> None:
    """Make an unstable sort stable: within each run of equal keys, rows ascending.
    Runs are short (a judged document's qrels and run rows), so a few odd-even
    transposition passes over the places that need them do it; longer ones (a document
    in many runs scored together, `prepare_folded`) are sorted by (run of keys, row), at
    once when they are most of the places (the passes would fail over them: 8.9 ms of a
    batch of 13 TREC DL runs of 43 x 200, against 1.8 ms for the sort alone)."""
    equal = np.flatnonzero(ordered[1:] == ordered[:-1])
    longer = np.count_nonzero(equal[1:] == equal[:-1] + 1)  # places inside runs of 3 or more
    for _ in range(_PASSES if 4 * longer <= len(equal) else 0):
        if not len(equal):
            return
        swapped = False
        for parity in (0, 1):
            at = equal[equal % 2 == parity]
            at = at[order[at] > order[at + 1]]
            if len(at):
                order[at], order[at + 1] = order[at + 1], order[at].copy()
                swapped = True
        if not swapped:
            return
    if len(equal):
        group = np.cumsum(np.r_[0, ordered[1:] != ordered[:-1]])
        order[:] = order[np.argsort(group * len(order) + order, kind="stable")]


def _sorted_strings(
    topic: np.ndarray, docno: pa.Array
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`_sorted` by Arrow's stable sort of the strings. The sorted docnos are compared in
    slices, so they never exist whole."""
    table = pa.table({"t": arrays.as_arrow(topic), "d": docno})
    sort_keys = [("t", "ascending"), ("d", "ascending")]
    order = arrays.numpy_view(ac.sort_table_indices(table, sort_keys)).view(np.int64)
    del table
    n = len(order)
    topic_start = np.ones(n, dtype=bool)
    if n > 1:
        sorted_topic = topic[order]
        np.not_equal(sorted_topic[1:], sorted_topic[:-1], out=topic_start[1:])
    new = topic_start.copy()
    for start in range(0, n - 1, _SLICE):
        stop = min(start + _SLICE, n - 1)
        piece = ac.take(docno, arrays.as_arrow(order[start : stop + 1]))
        changed = ac.not_equal(piece.slice(1), piece.slice(0, len(piece) - 1))
        new[start + 1 : stop + 1] |= arrays.numpy_view(ac.cast(changed, pa.int8())).view(bool)
    return order, topic_start, new


def taken(strings: pa.Array | pa.ChunkedArray, rows: np.ndarray | slice) -> pa.Array:
    """The strings at `rows` (indices, or a slice: a view), as one array."""
    if isinstance(rows, slice):
        picked = strings.slice(rows.start, rows.stop - rows.start)
    else:
        picked = ac.take(strings, arrays.as_arrow(rows))
    return arrays.one_array(picked)
