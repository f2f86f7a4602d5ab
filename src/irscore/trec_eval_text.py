"""trec_eval's text output (`%-22s\\t%s\\t%6.4f`; relstring's `%-22s\\t%s\\t'%s'`), so
irscore's output can be diffed with it.

Per-topic lines are built as bytes, a block of topics at a time, without a
Python string per line: each field of a line (label, topic, value) is a
fixed-width slot of a byte matrix with a mask of the bytes it uses, and the
block's text is the matrix's used bytes in row order (100,000 topics of every
measure are 9 million lines).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterator, Mapping

import numpy as np

from irscore.measures.registry import has_topic_rows, is_integer, is_text, printed_per_topic

BLOCK_BYTES = 1 << 23  # the byte matrix of one block of topics: a few MiB, however many
DIGITS = np.frombuffer(b"0123456789", np.uint8)


def format_value(measure: str, value: float) -> str:
    """Counts as integers (`%ld`), everything else as `%6.4f`, as trec_eval prints them."""
    if is_integer(measure):
        return str(int(value))
    return _fixed4(value)


def _fixed4(value: float) -> str:
    """`%6.4f` of one value. NaN (trec_eval's 0/0 for an empty ranking under -J) prints
    as glibc prints the NaN that 0.0/0.0 gives on x86-64: `-nan`."""
    return f"{'-nan':>6s}" if math.isnan(value) else f"{value:6.4f}"


def lines(
    values: Mapping[str, np.ndarray],
    topics: np.ndarray,
    means: Mapping[str, float],
    runid: str | None,
    per_topic: bool,
    summary: bool = True,
    printed_topics: Collection[str] | None = None,
) -> Iterator[bytes]:
    """The text of one run under one convention, in trec_eval's order, in blocks of
    bytes, from what `evaluate.evaluate_one` returns (per-topic arrays, topic names,
    means).

    Per-topic lines are printed for `printed_topics` only (trec_eval 9 prints
    no line for a topic the run lacks, even under -c). `runid` prints
    trec_eval's runid line. A text measure has per-topic lines only.
    """
    if per_topic:
        shown = [m for m in values if has_topic_rows(m) and printed_per_topic(m)]
        names = topics.tolist()
        rows = np.arange(len(names))
        if printed_topics is not None:
            wanted = set(printed_topics)
            rows = np.array([i for i, t in enumerate(names) if t in wanted], dtype=np.int64)
        if shown and len(rows):
            yield from _topic_blocks(shown, values, names, rows)
    if summary:
        text = []
        if runid is not None:
            text.append(f"{'runid':<22s}\tall\t{runid}\n")
        for measure in means:
            text.append(f"{measure:<22s}\tall\t{format_value(measure, means[measure])}\n")
        if text:
            yield "".join(text).encode()


def _topic_blocks(
    shown: list[str], values: Mapping[str, np.ndarray], names: list[str], rows: np.ndarray
) -> Iterator[bytes]:
    """The per-topic lines of `rows` (topic indices), measure by measure within a topic."""
    labels = _slots([f"{m:<22s}\t" for m in shown])
    width = labels[0].shape[1] + max(len(t.encode()) for t in names) + 1 + 24
    step = max(1, BLOCK_BYTES // (len(shown) * width))
    for start in range(0, len(rows), step):
        block = rows[start : start + step]
        topic = _slots([names[i] + "\t" for i in block.tolist()])
        fields = [_value_slots(m, values[m][block]) for m in shown]
        yield _joined(labels, topic, fields)


def _joined(
    labels: tuple[np.ndarray, np.ndarray],
    topic: tuple[np.ndarray, np.ndarray],
    fields: list[tuple[np.ndarray, np.ndarray]],
) -> bytes:
    """Lines `label[m] topic[i] value[m][i]\\n` for every topic i, measures m within it:
    each part a slot (bytes, mask of the bytes used) of one matrix, kept in row order."""
    n, m = len(topic[0]), len(fields)
    widths = [labels[0].shape[1], topic[0].shape[1], max(f[0].shape[1] for f in fields), 1]
    out = np.zeros((n, m, sum(widths)), np.uint8)
    used = np.zeros(out.shape, bool)
    a, b = 0, widths[0]
    out[:, :, a:b], used[:, :, a:b] = labels[0], labels[1]
    a, b = b, b + widths[1]
    out[:, :, a:b], used[:, :, a:b] = topic[0][:, None, :], topic[1][:, None, :]
    for j, (text, mask) in enumerate(fields):
        out[:, j, b : b + text.shape[1]], used[:, j, b : b + text.shape[1]] = text, mask
    out[:, :, -1], used[:, :, -1] = ord("\n"), True
    return out[used].tobytes()


def _slots(strings: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The UTF-8 bytes of each string, left-aligned in the rows of a matrix, and the mask
    of the bytes each uses (ids hold no NUL byte: the readers refuse them)."""
    encoded = [s.encode() for s in strings]
    width = max(1, *map(len, encoded)) if encoded else 1
    text = np.array(encoded, dtype=f"S{width}").view(np.uint8).reshape(len(encoded), width)
    lengths = np.fromiter(map(len, encoded), np.int64, len(encoded))
    return text, np.arange(width) < lengths[:, None]


def _value_slots(measure: str, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One measure's values as trec_eval prints them, as a slot (bytes, used mask)."""
    if is_text(measure):
        return _slots([f"'{v}'" for v in values.tolist()])
    if is_integer(measure):
        return _integer_slots(values)
    return _fixed4_slots(values)


def _integer_slots(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`%ld` of whole numbers: digits right-aligned in 19 places, leading places unused;
    anything else (negative, huge) through Python's formatting."""
    whole = np.asarray(values, np.float64)
    fast = (whole >= 0) & (whole < 1e18)
    if not fast.all():
        return _slots([str(int(v)) for v in whole.tolist()])
    number = whole.astype(np.int64)
    powers = 10 ** np.arange(18, -1, -1, dtype=np.int64)
    text = DIGITS[(number[:, None] // powers) % 10]
    used = (number[:, None] >= powers) | (powers == 1)
    return text, used


def _fixed4_slots(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`%6.4f` of each value: "d.dddd" from integer arithmetic for 0 <= value < 9.99995
    away from a rounding tie (the product value * 10^4 is then within 1e-11 of exact,
    so rounding it to the nearest integer is printf's correctly rounded decimal);
    the other values (ties such as 1/32, negative, large, NaN) through Python's
    correctly rounded formatting, which prints what glibc prints."""
    values = np.asarray(values, np.float64)
    with np.errstate(invalid="ignore"):
        scaled = values * 10000.0
        fast = (values >= 0) & ~np.signbit(values) & (scaled < 99999.5)
        fast &= np.abs(scaled - np.floor(scaled) - 0.5) > 1e-6
    q = np.floor(np.where(fast, scaled, 0.0) + 0.5).astype(np.int64)
    slow = np.flatnonzero(~fast)
    other = _slots([_fixed4(v) for v in values[slow].tolist()])
    text = np.zeros((len(q), max(6, other[0].shape[1])), np.uint8)
    used = np.zeros(text.shape, bool)
    text[:, 0] = DIGITS[q // 10000]
    text[:, 1] = ord(".")
    for place, power in enumerate((1000, 100, 10, 1), 2):
        text[:, place] = DIGITS[(q // power) % 10]
    used[:, :6] = True
    if len(slow):
        text[slow], used[slow] = 0, False
        text[slow, : other[0].shape[1]], used[slow, : other[0].shape[1]] = other
    return text, used
