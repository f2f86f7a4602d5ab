"""trec_eval's text output (`%-22s\\t%s\\t%6.4f`; relstring's `%-22s\\t%s\\t'%s'`), so
irscore's output can be diffed with it.

Per-topic lines are built as bytes, a block of topics at a time, without a
Python string per line: each field of a line (label, topic, value) is a
fixed-width slot of a byte matrix with a mask of the bytes it uses, and the
block's text is the matrix's used bytes in row order (100,000 topics of every
measure are 9 million lines).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Collection, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

import numpy as np

from irscore.engine.measures.registry import has_topic_rows, is_integer, is_text, printed_per_topic

if TYPE_CHECKING:
    from irscore.engine.ranking.conventions import Convention

BLOCK_BYTES = 1 << 20  # the byte matrix of one block of topics: 1 MiB (a few copies live)
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


def topics_printed(
    convention: Convention, topics: Iterable[str], without_run: Collection[str]
) -> set[str] | None:
    """The topics whose per-topic lines are printed, None for all of them: trec_eval 9's -c
    (`missing_topics` "mean_only") prints none for the judged topics the run lacks
    (`without_run`), whose values count only in the `all` means."""
    if convention.missing_topics != "mean_only" or not without_run:
        return None
    return set(topics) - set(without_run)


def lines(
    values: Mapping[str, np.ndarray],
    topics: np.ndarray,
    means: Mapping[str, float],
    runid: str | None,
    per_topic: bool,
    summary: bool = True,
    printed_topics: Collection[str] | None = None,
    zscores: bool = False,
) -> Iterator[bytes | memoryview]:
    """The text of one run under one convention, in trec_eval's order, in blocks of
    bytes, from what `evaluate.evaluate_one` returns (per-topic arrays, topic names,
    means).

    Per-topic lines are printed for `printed_topics` only (None: every topic's;
    `topics_printed` gives those of trec_eval 9's -c). `runid` prints
    trec_eval's runid line. A text measure has per-topic lines only.
    `zscores` (-Z): every value but the texts and runid is a z-score, named with
    a `Z` in front and printed `%6.4f`, counts too (meas_print_*.c).
    """
    if per_topic:
        shown = [m for m in values if has_topic_rows(m) and printed_per_topic(m)]
        names = topics.tolist()
        rows = np.arange(len(names))
        if printed_topics is not None:
            wanted = set(printed_topics)
            rows = np.array([i for i, t in enumerate(names) if t in wanted], dtype=np.int64)
        if shown and len(rows):
            yield from (text for text, _ in _topic_blocks(shown, values, names, rows, zscores))
    if summary:
        text = []
        if runid is not None:
            text.append(f"{'runid':<22s}\tall\t{runid}\n")
        for measure in means:
            value = means[measure]
            shown_value = _z_value(value) if zscores else format_value(measure, value)
            text.append(f"{'Z' if zscores else ''}{measure:<22s}\tall\t{shown_value}\n")
        if text:
            yield "".join(text).encode()


def topic_lines_of_parts(
    values: Mapping[str, np.ndarray], topics: np.ndarray, parts: list[np.ndarray]
) -> list[bytes]:
    """`lines`' per-topic text (no summary) of each part's rows of `topics` (indices),
    formatted in one pass for every part (several runs scored together:
    `lines`' costs a call, once for them all): each part's bytes."""
    shown = [m for m in values if has_topic_rows(m) and printed_per_topic(m)]
    rows = np.concatenate([np.zeros(0, np.int64), *parts])
    if not shown or not len(rows):
        return [b"" for _ in parts]
    blocks = list(_topic_blocks(shown, values, topics.tolist(), rows, lengths=True))
    text = b"".join(block for block, _ in blocks)
    row_end = np.cumsum([0, *(n for _, lengths in blocks for n in lengths.tolist())])
    ends = row_end[np.cumsum([len(part) for part in parts])].tolist()
    return [text[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True)]


def _z_value(value: float) -> str:
    """`%6.4f` of a z-score: a NaN as glibc prints its sign (`nan` from a file's `nan`
    mean, `-nan` from a 0/0 value), which `convert_zscores` keeps in the sign bit."""
    if math.isnan(value):
        return f"{'-nan' if math.copysign(1.0, value) < 0 else 'nan':>6s}"
    return f"{value:6.4f}"


def _topic_blocks(
    shown: list[str],
    values: Mapping[str, np.ndarray],
    names: list[str],
    rows: np.ndarray,
    zscores: bool = False,
    lengths: bool = False,
) -> Iterator[tuple[memoryview, np.ndarray | None]]:
    """The per-topic lines of `rows` (topic indices), measure by measure within a topic,
    in blocks, each with its rows' byte counts when `lengths` asks. Measures of one kind
    (fixed-point, integer, z-score) are formatted together."""
    labels = _slots([f"{'Z' if zscores and not is_text(m) else ''}{m:<22s}\t" for m in shown])
    kinds: dict[str, list[int]] = {"fixed": [], "integer": [], "text": [], "z": []}
    for j, m in enumerate(shown):
        kind = "integer" if is_integer(m) else "fixed"
        kinds["text" if is_text(m) else "z" if zscores else kind].append(j)
    width = labels.shape[1] + max(len(t.encode()) for t in names) + 1 + 8
    step = max(1, BLOCK_BYTES // (len(shown) * width))
    for start in range(0, len(rows), step):
        block = rows[start : start + step]
        fields = []
        for kind, columns in kinds.items():
            if kind == "text":
                for j in columns:
                    text = _slots([f"'{v}'" for v in values[shown[j]][block].tolist()])
                    fields.append(([j], text[:, None, :]))
            elif columns:
                matrix = np.stack([values[shown[j]][block] for j in columns], axis=1)
                fields.append((columns, _FORMATS[kind](matrix)))
        topic = _slots([names[i] + "\t" for i in block.tolist()])
        yield _joined(labels, topic, fields, lengths)


def _joined(
    labels: np.ndarray,
    topic: np.ndarray,
    fields: list[tuple[list[int], np.ndarray]],
    lengths: bool = False,
) -> tuple[memoryview, np.ndarray | None]:
    """Lines `label[m] topic[i] value[m][i]\\n` for every topic i, measures m within it,
    and (`lengths`) the bytes of each topic's lines.
    Each part is a slot of one byte matrix, NUL where a shorter text leaves it unused
    (no text holds a NUL: the readers refuse them), and the lines are the matrix's
    other bytes in row order. `fields` are (measure columns, the values' bytes
    (topic, column, byte))."""
    n, m = len(topic), len(labels)
    widths = [labels.shape[1], topic.shape[1], max(text.shape[2] for _, text in fields), 1]
    template = np.zeros((m, sum(widths)), np.uint8)
    template[:, : widths[0]], template[:, -1] = labels, ord("\n")
    out = np.broadcast_to(template, (n, *template.shape)).copy()
    a = widths[0] + widths[1]
    out[:, :, widths[0] : a] = topic[:, None, :]
    for columns, text in fields:  # a run of consecutive columns at a time: no fancy index
        for first, last in _runs(columns):
            out[:, columns[first] : columns[last] + 1, a : a + text.shape[2]] = text[
                :, first : last + 1
            ]
    used = out != 0
    return out[used].data, np.count_nonzero(used.reshape(n, -1), axis=1) if lengths else None


def _runs(columns: list[int]) -> list[tuple[int, int]]:
    """(first, last) positions in `columns` of each run of consecutive numbers."""
    breaks = [i for i in range(1, len(columns)) if columns[i] != columns[i - 1] + 1]
    starts = [0, *breaks]
    return [(a, b - 1) for a, b in zip(starts, [*breaks, len(columns)], strict=True)]


def _slots(strings: list[str]) -> np.ndarray:
    """The UTF-8 bytes of each string, left-aligned in the rows of a matrix, NUL after."""
    encoded = [s.encode() for s in strings]
    width = max(1, *map(len, encoded)) if encoded else 1
    return np.array(encoded, dtype=f"S{width}").view(np.uint8).reshape(len(encoded), width)


def _integer_slots(values: np.ndarray) -> np.ndarray:
    """`%ld` of whole numbers (any shape; a last axis of bytes is added): digits
    right-aligned in as many places as the largest has, NUL before; anything else
    (negative, huge) through Python's formatting."""
    whole = np.asarray(values, np.float64)
    if not ((whole >= 0) & (whole < 1e18)).all():
        return _slots([str(int(v)) for v in whole.ravel().tolist()]).reshape(*whole.shape, -1)
    number = whole.astype(np.int64)[..., None]
    places = len(str(int(number.max()))) if number.size else 1
    powers = 10 ** np.arange(places - 1, -1, -1, dtype=np.int64)
    digits = DIGITS[(number // powers) % 10]
    return np.where((number >= powers) | (powers == 1), digits, 0).astype(np.uint8)


def _fixed4_slots(values: np.ndarray) -> np.ndarray:
    """`%6.4f` of each value (any shape; a last axis of 8 bytes is added, NUL-padded):
    "d.dddd" looked up by the value rounded to 1/10^4, for 0 <= value < 9.99995 away
    from a rounding tie (value * 10^4 is then within 1e-11 of exact, so rounding it
    to the nearest integer is printf's correctly rounded decimal); the other values
    (ties such as 1/32, negative, large, NaN) through Python's correctly rounded
    formatting, which prints what glibc prints."""
    values = np.asarray(values, np.float64)
    with np.errstate(invalid="ignore"):
        scaled = values * 10000.0
        fast = (values >= 0) & ~np.signbit(values) & (scaled < 99999.5)
        fast &= np.abs(scaled - np.floor(scaled) - 0.5) > 1e-6
    q = np.floor(np.where(fast, scaled, 0.0) + 0.5).astype(np.int32)
    text = _fixed4_table()[q].view(np.uint8).reshape(*values.shape, 8)
    slow = np.flatnonzero(~fast)
    if len(slow):
        other = _slots([_fixed4(v) for v in values.ravel()[slow].tolist()])
        if other.shape[1] > 8:
            text = np.concatenate(
                (text, np.zeros((*values.shape, other.shape[1] - 8), np.uint8)), -1
            )
        flat = text.reshape(-1, text.shape[-1])
        flat[slow] = 0
        flat[slow, : other.shape[1]] = other
    return text


@functools.cache
def _fixed4_table() -> np.ndarray:
    """`%6.4f` of n / 10^4 for n below 10^5, each as 8 bytes (6 and two NULs) in one
    integer, so that formatting a value is one lookup."""
    n = np.arange(100_000)
    text = np.zeros((len(n), 8), np.uint8)
    text[:, 0] = DIGITS[n // 10000]
    text[:, 1] = ord(".")
    for place, power in enumerate((1000, 100, 10, 1), 2):
        text[:, place] = DIGITS[(n // power) % 10]
    return text.view(np.uint64).ravel()


def _z_slots(values: np.ndarray) -> np.ndarray:
    """`_z_value` of each z-score (any shape; a last axis of bytes is added)."""
    return _slots([_z_value(v) for v in values.ravel().tolist()]).reshape(*values.shape, -1)


_FORMATS = {"fixed": _fixed4_slots, "integer": _integer_slots, "z": _z_slots}
