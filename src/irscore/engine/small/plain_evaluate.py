"""`irscore evaluate` on small, plain TREC files without numpy or Arrow.

Importing numpy and pyarrow takes longer than trec_eval needs for a whole TREC DL
run (~0.15 s against ~0.06 s on the 2-core machines we measure on), so
below `SMALL_INPUTS` bytes the command line reads and scores the files here, in
plain Python, with trec_eval's own loops (`irscore.engine.small.plain_measures`).

This path serves only what it can serve exactly: the reference convention
(with -q, -c, -n, -l, -M, -N), `-m official` or `-m all_trec`, and files of
printable ASCII whose every line has a TREC line's fields and valid numbers, no
comment, no duplicate. Anything else (a bad line, a compressed file, another
convention or measure) returns None, and the engine reads the files again: it
is the authority on every error and note, and the tests compare the two paths'
output byte for byte.
"""

from __future__ import annotations

import gc
import math
import os
import stat
from array import array
from collections import Counter, deque
from collections.abc import Callable, Iterable
from itertools import groupby, repeat
from operator import add, itemgetter, ne
from types import SimpleNamespace

from irscore.engine.output.naming import run_heads
from irscore.engine.ranking.conventions import FIELDS, Convention
from irscore.engine.ranking.input_checks import overlap
from irscore.engine.reading.errors import InputError, display_name
from irscore.engine.reading.streams import MAX_LINE
from irscore.engine.small import plain_measures as pm
from irscore.engine.system import forked

SMALL_INPUTS = 4 << 20  # bytes of qrels and runs together served here, at most, unless
PLAIN_BYTES = "IRSCORE_PLAIN_BYTES"  # says another number (0: the engine scores everything)
# The most work served here, in about microseconds of this path's (`_work`): past it, the
# engine's start-up (~0.25 s more, numpy and Arrow) costs less than this path's loops.
PLAIN_WORK = 250_000
MAX_GRADE = 1000  # trec_eval counts judgments in an array of every grade up to the highest
_TEXT = bytes(range(0x20, 0x7F)).replace(b"#", b"") + b"\t\n"  # printable ASCII, no comment
_GRADE_BYTES = b"0123456789+-"
_SCORE_BYTES = b"0123456789+-.eE"  # with float() accepting it: `careful_reader._DECIMAL`
# Some of a run's topics scored (`_scored`): lines, each topic's summed values, counts,
# and the run's topics
Scored = tuple[list[str], list[tuple[float, ...]], tuple[int, int, int, int], list[bytes]]
# the convention's decisions this path takes as the reference's: all but -c, -l and -M
_REFERENCE_FIELDS = tuple(
    f for f in FIELDS if f not in ("name", "description", "topics", "rel_level", "depth")
)


class Qrels:
    """A qrels as trec_eval reads it: per topic, each docno's grade (a negative grade
    as `UNJUDGED`) and the number of judgments of each grade >= 0."""

    def __init__(self, judged: dict[bytes, dict[bytes, int]], lines: int, relevant_lines: int):
        self.judged, self.lines = judged, lines
        self.relevant_lines = relevant_lines  # grade > 0, every topic: -c's num_rel
        self.levels = {}
        for topic, grades in judged.items():
            tally = Counter(grades.values())  # counted in C
            counts = [0] * (max(tally) + 1)
            for grade, n in tally.items():
                if grade >= 0:
                    counts[grade] = n
            self.levels[topic] = counts
            if min(tally) < 0:
                for docno, grade in grades.items():
                    if grade < 0:
                        grades[docno] = pm.UNJUDGED


class Request:
    """What is asked of every run: the `plain_measures.FAMILIES` entries to compute and
    the names they print, the convention, -q, not -n, and -N's number of documents."""

    __slots__ = ("c", "chosen", "collection", "labels", "per_topic", "summary")

    def __init__(
        self,
        families: tuple[str, ...],
        c: Convention,
        per_topic: bool,
        summary: bool,
        collection: int,
    ):
        self.chosen = [(f, names, values) for f, names, values in pm.FAMILIES if f in families]
        self.labels = [(f, label) for f, names, _ in self.chosen for label in names]
        self.c, self.per_topic = c, per_topic
        self.summary, self.collection = summary, collection


def trec_eval_text(
    qrels_path: str,
    run_paths: list[str],
    c: Convention,
    families: tuple[str, ...],
    per_topic: bool,
    summary: bool = True,
    collection: int = 0,
    kept: list | None = None,
) -> tuple[bytes, list[str]] | None:
    """trec_eval's text of these runs (-q: `per_topic`; -n: not `summary`; -N:
    `collection`) under `c` and the `families` of `plain_measures.FAMILIES`, with the
    warnings on how each run meets the qrels; None when the engine must score them.

    The collector is off meanwhile: only acyclic lists and tuples are made, whose
    ~0.4 million allocations would start collections (tens of ms) for nothing. The
    parsed inputs go to `kept` (when given) instead of being freed here: the command
    line keeps them for its exit, which skips the interpreter's teardown, and so never
    frees the ~200k small objects of a 30k-line run one by one (5-9 ms)."""
    if not _plain_convention(c) or not _small_files([qrels_path, *run_paths]):
        return None
    gc.disable()
    try:
        qrels = _read_qrels(qrels_path)
        if qrels is None:
            return None
        kept = [] if kept is None else kept
        kept.append(qrels)
        request = Request(families, c, per_topic, summary, collection)
        texts, tags, warnings, work = [], [], [], 2 * qrels.lines
        for path in run_paths:
            data = _text(path, (PLAIN_WORK - work) // 2)
            if data is None:
                return None
            work += _work(qrels, data, len(request.labels), per_topic)
            scored = None
            if work <= PLAIN_WORK:
                scored = _run_text(qrels, data, request, kept)
            if scored is None:
                return None
            text, notes = scored
            warnings += overlap(display_name(path), display_name(qrels_path), notes)
            texts.append(text.encode())
            tags.append(_last_tag(data))
        own_first = not per_topic and summary  # its summary starts with runid
        heads = run_heads(run_paths, tags, own_first)
        return b"".join(h + t for h, t in zip(heads, texts, strict=True)), warnings
    finally:
        gc.enable()


def _work(qrels: Qrels, data: bytes, values: int, per_topic: bool) -> int:
    """About the microseconds this path takes to read a run (the lines of `data`) and
    score it: ~2 a line, and per shared topic ~1 a value (2 when printed, -q). Measured
    whole-process against the engine: 4,000 one-document topics under -q -m all_trec
    took 0.70 s here and 0.38 s there, 0.21 s against 0.28 s under -m official alone
    (docs/evaluating.md). The shared topics are counted only when their bound (a topic
    a line, at most every qrels topic) could pass `PLAIN_WORK`."""
    lines = data.count(b"\n")
    per_value = values * (1 + per_topic)
    shared = min(lines, len(qrels.judged))
    if 2 * lines + shared * per_value > PLAIN_WORK:
        topics = {line.split(None, 1)[0] for line in data.splitlines() if line.strip()}
        shared = len(topics & qrels.judged.keys())
    return 2 * lines + shared * per_value


def families_of(requests: list[str] | None, per_topic: bool) -> tuple[str, ...] | None:
    """The families of `-m official` (also no -m) or `-m all_trec` (relstring only per
    topic, -q), which this path serves; None for any other request."""
    if requests not in (None, ["official"], ["all_trec"]):
        return None
    families = pm.ALL_TREC if requests == ["all_trec"] else pm.OFFICIAL
    return tuple(f for f in families if per_topic or f not in pm.TEXT)


def _plain_convention(c: Convention) -> bool:
    """True for the reference convention, -c, -l from 1 and -M aside."""
    reference = Convention()
    return c.rel_level >= 1 and all(
        getattr(c, f) == getattr(reference, f) for f in _REFERENCE_FIELDS
    )


def _small_files(paths: list[str]) -> bool:
    """True when every path is a regular file and together they hold few bytes."""
    total = 0
    for path in paths:
        try:
            info = os.stat(path)
        except (OSError, ValueError):
            return False
        if not stat.S_ISREG(info.st_mode):
            return False
        total += info.st_size
    return total <= plain_bytes()


def plain_bytes() -> int:
    """The largest inputs (qrels and runs together, in bytes) this path scores:
    IRSCORE_PLAIN_BYTES, else `SMALL_INPUTS`."""
    text = os.environ.get(PLAIN_BYTES, "").strip()
    if not text:
        return SMALL_INPUTS
    if not text.isdigit():
        raise InputError(f"{PLAIN_BYTES}={text!r}: give a number of bytes (0: never)")
    return int(text)


def _text(path: str, max_lines: int | None = None) -> bytes | None:
    """A file's bytes, ending with a newline, when every line is printable ASCII, no
    comment and not longer than the readers allow; None at once for more than
    `max_lines` lines (work the engine does faster)."""
    with open(path, "rb") as file:
        data = file.read()
    if max_lines is not None and data.count(b"\n") > max_lines:
        return None
    if not data or data.translate(None, _TEXT):
        return None
    if not data.endswith(b"\n"):
        data += b"\n"
    return None if _long_line(data) else data


def _split(data: bytes, width: int) -> list[bytes] | None:
    """Every line's fields in one list, each line's followed by an end-of-line marker,
    when every line of `_text`'s `data` has `width` fields (so field f of line k is at
    (width + 1) k + f) and none is blank."""
    fields = data.replace(b"\n", b" \0 ").split()  # NUL: no line holds one (`_TEXT`)
    lines = data.count(b"\n")
    if len(fields) != (width + 1) * lines or fields[width :: width + 1].count(b"\0") != lines:
        return None
    return fields


def _long_line(data: bytes) -> bool:
    """True when a line of `data` (which ends with a newline) has `MAX_LINE` bytes or
    more: no newline within `MAX_LINE` bytes of a line's start. Each step jumps to the
    last line that starts in the window, so a file takes a few searches in C."""
    start = 0
    while len(data) - start > MAX_LINE:
        end = data.rfind(b"\n", start, start + MAX_LINE)
        if end < 0:
            return True
        start = end + 1
    return False


def _read_qrels(path: str) -> Qrels | None:
    """`topic iteration docno grade` lines, one iteration value, each document judged
    once per topic, grades integers of at most 15 digits and `MAX_GRADE`."""
    data = _text(path)
    fields = None if data is None else _split(data, 4)
    if fields is None or len(set(fields[1::5])) != 1:  # else: subtopics
        return None
    tokens = fields[3::5]
    if b"".join(tokens).translate(None, _GRADE_BYTES) or max(map(len, tokens)) > 15:
        return None
    try:
        grades = list(map(int, tokens))
    except ValueError:
        return None
    if max(grades) > MAX_GRADE:
        return None
    judged = {}
    for topic, pairs in _grouped(fields[0::5], zip(fields[2::5], grades, strict=True)).items():
        judged[topic] = dict(pairs)
        if len(judged[topic]) != len(pairs):  # a document judged twice for the topic
            return None
    if any(max(docs.values()) < 0 for docs in judged.values()):
        return None  # trec_eval keeps the grade counts of the topic before (form_res_rels.c)
    return Qrels(judged, len(grades), sum(map((0).__lt__, grades)))


def _scores(tokens: list[bytes]) -> list[float] | None:
    """The scores of a run's lines, as float32 as trec_eval reads them; None unless each
    is a finite decimal number."""
    if b"".join(tokens).translate(None, _SCORE_BYTES):
        return None
    try:
        scores = array("f", map(float, tokens)).tolist()  # each double cast to float, in C
    except ValueError:
        return None
    if not math.isfinite(sum(scores)):  # a score past float32's range (inf): the engine's
        return None
    return scores


def _grouped(
    topics: list[bytes], items: Iterable[tuple], others: frozenset[bytes] = frozenset()
) -> dict[bytes, list[tuple]]:
    """Each topic's items, in file order, but for the topics of `others` (another
    process's): a stretch of lines at a time when the lines are grouped by topic, else
    each item appended to its topic's list (in C: `map`; others' to one list dropped)."""
    items = list(items)
    if sum(map(ne, topics[1:], topics[:-1])) * 16 < len(topics):
        grouped: dict[bytes, list[tuple]] = {}
        lines = 0
        for topic, run in groupby(topics):
            count = len(list(run))
            if topic not in others:
                grouped.setdefault(topic, []).extend(items[lines : lines + count])
            lines += count
        return grouped
    grouped = {topic: [] for topic in dict.fromkeys(topics)}  # first-seen order
    dropped: list[tuple] = []
    grouped.update(dict.fromkeys(others, dropped))
    deque(map(list.append, map(grouped.__getitem__, topics), items), maxlen=0)
    return {topic: found for topic, found in grouped.items() if found is not dropped}


def _run_text(
    qrels: Qrels, data: bytes, request: Request, kept: list
) -> tuple[str, SimpleNamespace] | None:
    """One run's text and the notes `input_checks.overlap` reads; None for a line that
    is not a TREC run line, a score that is not a finite number, a document retrieved
    twice for a topic (the engine names each) or a topic shared with no qrels.

    With many topics to score (not many lines: each process reads every line), the
    run's topics are scored in two halves, the second in a forked process (`forked`).
    Each process splits the whole text itself, so no large structure is made before
    the fork and shared: Python's reference counts would copy every page of one that
    both processes read."""
    scoring = len(qrels.judged) * len(request.labels) * (1 + request.per_topic)  # `_work`'s units
    parts = 2 if scoring >= forked.WORTH_IT and forked.possible() else 1

    def score(part: int) -> Scored | None:
        return _scored(qrels, data, request, part, parts, kept)

    scored = [score(0)] if parts == 1 else forked.on_two_cores(score, [0, 1])
    if scored is None or None in scored:
        return None
    summed = [label for _, label in request.labels if label not in pm.TEXT]
    totals, lines, counts = [0.0] * len(summed), [], [0, 0, 0, 0]
    for part_lines, part_sums, part_counts, _ in scored:
        for topic_sums in part_sums:  # added topic by topic in order, as one loop adds them
            totals = list(map(add, totals, topic_sums))
        lines += part_lines
        counts = list(map(add, counts, part_counts))
    shared, retrieved, retrieved_judged, topics_with_judged = counts
    if shared == 0:
        return None
    if request.summary:
        runid = _last_tag(data)
        lines.append(f"{'runid':<22s}\tall\t{runid}\n")
        sums = dict(zip(summed, totals, strict=True))
        lines += _summary(sums, shared, qrels, request.c.complete)
    run_topics, judged_topics = set(scored[0][3]), set(qrels.judged)
    notes = SimpleNamespace(
        run_topics_without_qrels=[t.decode() for t in sorted(run_topics - judged_topics)],
        qrels_topics_without_run=[t.decode() for t in sorted(judged_topics - run_topics)],
        shared_topics=shared,
        retrieved=retrieved,
        retrieved_judged=retrieved_judged,
        topics_with_judged=topics_with_judged,
    )
    return "".join(lines), notes


def _last_tag(data: bytes) -> str:
    """The run's tag as trec_eval's runid prints it: its last line's."""
    return data[data.rfind(b"\n", 0, -1) + 1 :].split()[-1].decode()


def _scored(
    qrels: Qrels, data: bytes, request: Request, part: int, parts: int, kept: list
) -> Scored | None:
    """Part `part` of `parts` of a run's topics shared with the qrels (in order),
    scored: their per-topic lines, the values each adds to the `all` sums, (shared,
    retrieved, retrieved_judged, topics_with_judged) counted over the part, and for the
    first part the run's topics; plain lists and tuples, which `marshal` carries
    between processes. None for a run that is not plain (`_run_text`): every part
    checks every line. What it parses goes to `kept`."""
    chosen, c, labels = request.chosen, request.c, request.labels
    fields = _split(data, 6)
    if fields is None:
        return None
    topics = fields[0::7]
    run_topics = list(dict.fromkeys(topics))
    shared = sorted(topic for topic in run_topics if topic in qrels.judged)
    mine = _part(shared, part, parts)
    scores = _scores(fields[4::7])  # every part checks every line
    if scores is None:
        return None
    others = frozenset(_part(shared, 1 - part, parts) if parts == 2 else ())
    by_topic = _grouped(topics, zip(scores, fields[2::7], strict=True), others)
    kept.append((fields, by_topic))
    summed = _picker([i for i, (_, label) in enumerate(labels) if label not in pm.TEXT])
    shown = [i for i, (f, _) in enumerate(labels) if f not in pm.SUMMARY_ONLY]
    pick_shown = _picker(shown)
    # a topic's lines as one %-format (the topic's name put in for the NULs after)
    template = "".join(f"{labels[i][1]:<22s}\t\0\t{_format(labels[i][1])}\n" for i in shown)
    lines: list[str] = []
    sums: list[tuple[float, ...]] = []
    retrieved = retrieved_judged = topics_with_judged = 0
    for topic in mine:
        ranked = by_topic[topic]
        ranked.sort(reverse=True)  # score, then docno, both descending (form_res_rels.c)
        docnos = list(map(itemgetter(1), ranked))
        if len(set(docnos)) != len(docnos):
            return None
        rels = list(map(qrels.judged[topic].get, docnos, repeat(pm.NONPOOL)))
        retrieved += len(rels)
        in_pool = len(rels) - rels.count(pm.NONPOOL)
        retrieved_judged += in_pool
        topics_with_judged += in_pool > 0
        t = pm.Topic(rels[: c.depth], qrels.levels[topic], c.rel_level, request.collection)
        values = [value for _, _, measure in chosen for value in measure(t)]
        sums.append(summed(values))
        if request.per_topic:
            lines.append((template % pick_shown(values)).replace("\0", topic.decode()))
    counts = (len(mine), retrieved, retrieved_judged, topics_with_judged)
    return lines, sums, counts, run_topics if part == 0 else []


def _part(topics: list[bytes], part: int, parts: int) -> list[bytes]:
    """Part `part` of `parts` (1 or 2) of `topics`: the first half, or the rest."""
    cut = len(topics) // 2 if parts == 2 else len(topics)
    return topics[:cut] if part == 0 else topics[cut:]


def _picker(indices: list[int]) -> Callable[[list], tuple]:
    """A function giving the items at `indices` of a list, as a tuple (in C)."""
    if len(indices) == 1:
        return lambda items: (items[indices[0]],)
    return itemgetter(*indices)


def _summary(sums: dict[str, float], evaluated: int, qrels: Qrels, complete: bool) -> list[str]:
    """The `all` lines: means over `averaged` topics (every qrels topic under -c, whose
    topics without results add 0, or log(MIN_GEO_MEAN) to a geometric mean), counts
    summed, -c's num_rel every qrels judgment with a grade above 0 (meas_avg.c)."""
    lines, averaged = [], len(qrels.judged) if complete else evaluated
    for label, total in sums.items():
        if label == "num_q":
            value = float(averaged)
        elif label == "num_rel" and complete:
            value = float(qrels.relevant_lines)
        elif label in pm.INTEGER:
            value = total
        elif label in pm.GEOMETRIC:
            if complete:
                total += (averaged - evaluated) * math.log(pm.MIN_GEO_MEAN)
            value = math.exp(total / averaged)
        else:
            value = total / averaged
        lines.append(f"{label:<22s}\tall\t{_shown(label, value)}\n")
    return lines


def _format(label: str) -> str:
    """The %-format of a value as trec_eval prints it: `%d` counts (whole numbers here),
    `'%s'` relstring, else `%6.4f`."""
    if label in pm.TEXT:
        return "'%s'"
    return "%d" if label in pm.INTEGER else "%6.4f"


def _shown(label: str, value: float | str) -> str:
    """A value as trec_eval prints it: `%ld` counts, `'%s'` relstring, else `%6.4f`."""
    if label in pm.TEXT:
        return f"'{value}'"
    if label in pm.INTEGER:
        return str(int(value))
    return f"{value:6.4f}"
