"""Qrels and runs given in any form the Python API takes, as the frames the readers produce.

A path goes through the file readers (`irscore.engine.reading.trec`); a pandas DataFrame may
use ir_datasets / ir_measures column names (`query_id`, `doc_id`,
`relevance`, `score`) or TREC names (`topic`, `docno`, `grade`, `rank`,
`tag`); a pytrec_eval-style dict is `{qid: {docno: grade_or_score}}`; qrels
may also be `irds:ID`, read through ir_datasets. Every value is checked as
strictly as a file line would be: a bad one is an `InputError` naming its row
(a dict's: its topic and docno).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa

from irscore.engine.reading import trec
from irscore.engine.reading.errors import InputError, shown
from irscore.engine.system import arrays
from irscore.engine.system import arrow_compute as ac

if TYPE_CHECKING:
    QrelsInput = str | os.PathLike | pd.DataFrame | Mapping[str, Mapping[str, int]]
    RunInput = str | os.PathLike | pd.DataFrame | Mapping[str, Mapping[str, float]]

IRDS_PREFIX = "irds:"
# The characters Python's str.isspace() is true of, in RE2's syntax (Arrow's regexes).
_SPACE = r"[\t-\r\x{1c}-\x{20}\x{85}\p{Z}]"
_CONTROL = r"[\x{00}-\x{1f}]"  # as the file readers refuse them
# Column names accepted for each field of the readers' frames, the canonical one first.
ALIASES = {
    "topic": ("topic", "query_id", "qid"),
    "docno": ("docno", "doc_id", "docid"),
    "grade": ("grade", "relevance", "rel"),
    "score": ("score",),
    "rank": ("rank",),
    "tag": ("tag", "run_id", "run"),
    "subtopic": ("subtopic", "subtopic_id"),
}


Place = Callable[[int], str]  # how a message names a row: `row 3`, or a dict's topic and docno


def _row(row: int) -> str:
    return f"row {row}"


def qrels_frame(qrels: QrelsInput, what: str = "qrels") -> pd.DataFrame:
    """Columns topic, docno (str), grade (int64), as `trec.read_qrels` returns them, and
    subtopic for judgments per subtopic (a `subtopic` or `subtopic_id` column, or
    pyndeval's dict `{qid: {subtopic: {docno: grade}}}`)."""
    if isinstance(qrels, str) and qrels.startswith(IRDS_PREFIX):
        return irds_qrels(qrels[len(IRDS_PREFIX) :])
    if isinstance(qrels, str | os.PathLike):
        return trec.read_qrels(qrels)
    if isinstance(qrels, Mapping) and _nested_thrice(qrels):
        qrels = _subtopic_rows(qrels, what)
    columns, place = _columns(qrels, ("topic", "docno", "grade"), ("subtopic",), what)
    frame = pd.DataFrame(  # every column this function's own: not copied again
        {
            "topic": columns["topic"],
            "docno": columns["docno"],
            "grade": _integers(columns["grade"], f"{what} relevance", place),
        },
        copy=False,
    )
    key = ["topic", "docno"]
    if "subtopic" in columns:
        frame["subtopic"] = columns["subtopic"]
        key.append("subtopic")
    duplicated = frame.duplicated(key)
    if duplicated.any():
        row = int(np.flatnonzero(duplicated.to_numpy())[0])
        within = f" subtopic {frame.at[row, 'subtopic']}" if "subtopic" in columns else ""
        raise InputError(
            f"{what} row {row}: document {frame.at[row, 'docno']} is judged twice "
            f"for topic {frame.at[row, 'topic']}{within}"
        )
    frame.attrs["source"] = what
    return frame


def run_frame(run: RunInput, what: str = "run") -> pd.DataFrame:
    """Columns topic, docno, rank, score, tag in input order, as `trec.read_run` returns them
    (ids and tags as categoricals, which the evaluation recodes without touching each row).

    Without a rank column a row's rank is its position within its topic in the
    input order, the order a dict iterates in; without a tag column the tag is `what`.
    """
    if isinstance(run, str | os.PathLike):
        return trec.read_run(run)
    columns, place = _columns(run, ("topic", "docno", "score"), ("rank", "tag"), what)
    given = pd.Series(columns["score"])
    if given.dtype.kind in "fiu":
        score = given.to_numpy(dtype=np.float64, copy=True)
    else:
        score = pd.to_numeric(given, errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(score)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(f"{what} {place(row)}: score {_shown(given.iloc[row])} is not finite")
    topic = columns["topic"]
    if "rank" in columns:
        rank = _integers(columns["rank"], f"{what} rank", place)
    else:
        rank = _positions(topic.codes)
    tag = columns.get("tag")
    if tag is None:  # codes all 0: nothing for from_codes to check
        tag = pd.Categorical.from_codes(np.zeros(len(score), np.int8), [what], validate=False)
    # Not copied: rank and score are this function's own arrays (a score given as float64
    # is copied here), which pandas would otherwise stack into new blocks (~15 ms a 1M rows).
    frame = pd.DataFrame(
        {"topic": topic, "docno": columns["docno"], "rank": rank, "score": score, "tag": tag},
        copy=False,
    )
    frame.attrs["source"] = what
    return frame


def irds_qrels(dataset_id: str) -> pd.DataFrame:
    """The qrels of an ir_datasets dataset (it downloads them unless they are cached)."""
    from irscore.engine.system.extras import require

    require("workflow", f"irds:{dataset_id}", ["ir_datasets"])
    import ir_datasets

    try:
        dataset = ir_datasets.load(dataset_id)
    except KeyError:
        raise InputError(f"irds:{dataset_id}: unknown ir_datasets ID") from None
    if not dataset.has_qrels():
        raise InputError(f"irds:{dataset_id}: the dataset has no qrels")
    try:
        rows = [(q.query_id, q.doc_id, q.relevance) for q in dataset.qrels_iter()]
    except Exception as err:  # offline, no cache, a failed download: ir_datasets' own errors
        first = err.args[0] if err.args and isinstance(err.args[0], str) else str(err)
        reason = shown(first.splitlines()[0] if first else type(err).__name__)
        raise InputError(
            f"irds:{dataset_id}: ir_datasets could not give the qrels ({reason}); "
            "check the network, or IR_DATASETS_HOME for a downloaded copy"
        ) from None
    frame = pd.DataFrame(rows, columns=["topic", "docno", "grade"])
    return qrels_frame(frame, f"irds:{dataset_id}")


def _columns(
    table: Any, required: tuple[str, ...], optional: tuple[str, ...], what: str
) -> tuple[dict[str, Any], Place]:
    """The readers' columns of a DataFrame (under any accepted name) or of a nested dict,
    ids as categoricals of str, and how a message names a row."""
    place: Place = _row
    if isinstance(table, pd.DataFrame):
        columns = {}
        for field in (*required, *optional):
            found = [name for name in ALIASES[field] if name in table.columns]
            if len(found) > 1:
                raise InputError(f"{what}: columns {' and '.join(found)} both name the {field}")
            if found:
                columns[field] = table[found[0]]
            elif field in required:
                names = " or ".join(ALIASES[field])
                raise InputError(f"{what}: no {field} column ({names}); columns: {list(table)}")
    elif isinstance(table, Mapping):
        columns = _from_dict(table, required[2], what)
        topics, docnos = columns["topic"], columns["docno"]

        def place(row: int) -> str:
            return f"of topic {_shown(topics[row])}, docno {_shown(docnos[row])}"

    else:
        raise InputError(f"{what}: expected a path, a DataFrame or a dict, got {type(table)}")
    ids = [field for field in ("topic", "docno", "tag", "subtopic") if field in columns]
    plain = "rank" in optional  # a run's docnos may stay plain strings (`_plain_strings`)

    def checked(field: str) -> pd.Categorical | pd.Series:
        if plain and field == "docno" and _mostly_distinct(columns[field]):
            return _plain_strings(columns[field], f"{what} {field}", place)
        return _strings(columns[field], f"{what} {field}", place)

    columns.update(zip(ids, _each_checked(checked, ids), strict=True))
    return columns, place


def _each_checked(checked: Callable[[str], Any], fields: list[str]) -> list[Any]:
    """`checked(field)` for each field, in order: the docnos (the most rows to encode) in
    this thread, the others on helper threads meanwhile, as Arrow encodes Arrow-backed
    columns without the GIL (a helper of a pool can take both jobs, one after the
    other). A bad column raises the first error in the fields' order."""
    from irscore.engine.system import threads

    here = "docno" if "docno" in fields else fields[0]
    with threads.pool(max(len(fields) - 1, 1)) as pool:
        pending = {field: pool.submit(checked, field) for field in fields if field != here}
        try:
            mine, error = checked(here), None
        except InputError as err:
            mine, error = None, err
        done = []
        for field in fields:
            if field != here:
                done.append(pending[field].result())
            elif error is not None:
                raise error
            else:
                done.append(mine)
    return done


def _nested_thrice(qrels: Mapping) -> bool:
    """True for pyndeval's `{qid: {subtopic: {docno: grade}}}` (its first topic's first
    value a dict)."""
    first = next(iter(qrels.values()), None)
    return isinstance(first, Mapping) and isinstance(next(iter(first.values()), None), Mapping)


def _subtopic_rows(nested: Mapping, what: str) -> pd.DataFrame:
    """`{qid: {subtopic: {docno: grade}}}` as rows topic, subtopic, docno, grade."""
    rows = []
    for topic, subtopics in nested.items():
        if not isinstance(subtopics, Mapping):
            raise InputError(f"{what}: topic {topic!r} maps to {type(subtopics)}, not a dict")
        for subtopic, docs in subtopics.items():
            if not isinstance(docs, Mapping):
                raise InputError(
                    f"{what}: subtopic {subtopic!r} of topic {topic!r} maps to {type(docs)}, "
                    "not a dict {docno: grade}"
                )
            rows += [(topic, subtopic, docno, grade) for docno, grade in docs.items()]
    return pd.DataFrame(rows, columns=["topic", "subtopic", "docno", "grade"], dtype=object)


def _from_dict(nested: Mapping[str, Mapping[str, Any]], value: str, what: str) -> dict[str, Any]:
    """A pytrec_eval-style dict as columns (topic, docno, value), topic by topic in dict order:
    `_flat_columns`' when they serve, else Python objects that `_columns` checks one by one."""
    for topic, docs in nested.items():
        if not isinstance(docs, Mapping):
            raise InputError(f"{what}: topic {topic!r} maps to {type(docs)}, not a dict")
    flat = _flat_columns(nested, value)
    if flat is not None:
        return flat
    topics, docnos, values = [], [], []
    for topic, docs in nested.items():
        topics += [topic] * len(docs)
        docnos += docs.keys()
        values += docs.values()
    return {
        "topic": pd.Series(topics, dtype=object),
        "docno": pd.Series(docnos, dtype=object),
        value: pd.Series(values, dtype=None if values else object),
    }


def _flat_columns(nested: Mapping[str, Mapping[str, Any]], value: str) -> dict[str, Any] | None:
    """The usual dict (str topics and docnos, int grades or numeric scores, none missing) taken
    apart in bulk: the docnos and values chained into one list each and handed to Arrow
    whole, the topics a categorical of the dict's keys (no row hashed); the docnos stay
    plain Arrow strings, which the evaluation sorts without hashing a million of them.
    None for anything else (ids that are numbers, bools, missing values), which the
    general path reads and names the faulty row of."""
    from itertools import chain

    topics = [topic for topic, docs in nested.items() if docs]
    if not topics or not all(isinstance(topic, str) for topic in topics):
        return None
    sizes = np.fromiter((len(nested[topic]) for topic in topics), np.int64, len(topics))
    # scores straight to float64; grades by Arrow's own reading (to int64 it would cut
    # 1.5 to 1 without a word), whole floats among them checked by `_integers`
    kind = pa.float64() if value == "score" else None
    try:
        docnos = pa.array(list(chain.from_iterable(nested[t].keys() for t in topics)), pa.string())
        values = pa.array(list(chain.from_iterable(nested[t].values() for t in topics)), kind)
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        return None
    numbers = pa.types.is_integer(values.type) or pa.types.is_floating(values.type)
    if values.null_count or not numbers:
        return None
    codes = np.repeat(np.arange(len(topics), dtype=np.int32), sizes)
    return {
        "topic": pd.Series(_categorical(codes, pd.Index(topics, dtype=object)), copy=False),
        "docno": pd.Series(pd.arrays.ArrowExtensionArray(docnos), copy=False),
        value: pd.Series(values.to_numpy(zero_copy_only=False), copy=False),
    }


def _strings(column: pd.Series, what: str, place: Place = _row) -> pd.Categorical:
    """`_coded`, with values that are neither text nor numbers (lists, dicts) an
    InputError rather than pandas' or Arrow's TypeError."""
    try:
        return _coded(column, what, place)
    except (TypeError, pa.ArrowException) as err:
        reason = shown(str(err).splitlines()[0] if str(err) else type(err).__name__)
        raise InputError(f"{what}: ids must be strings or numbers ({reason})") from None


def _coded(column: pd.Series, what: str, place: Place) -> pd.Categorical:
    """Ids as a categorical of non-empty str without whitespace (they must survive a
    TREC file): one factorisation (Arrow's, for pandas' Arrow-backed strings), checked
    on the distinct values only, which is also all the evaluation needs (it recodes the
    categories, not the rows)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes, labels = column.cat.codes.to_numpy(), column.cat.categories
    elif _arrow_strings(column.dtype):
        codes, dictionary = dictionary_codes(arrays.one_array(pa.array(column)))
        labels = pd.Index(dictionary.to_pandas())
    else:
        codes, labels = pd.factorize(column.to_numpy(), use_na_sentinel=True)
    if (codes < 0).any():
        raise InputError(f"{what} {place(int(np.flatnonzero(codes < 0)[0]))}: missing value")
    if pd.api.types.infer_dtype(labels, skipna=False) != "string":
        text = np.array([str(label) for label in labels], dtype=object)
        recode, labels = pd.factorize(text)  # 1 and "1" are one id in a TREC file
        codes = recode[codes]
    texts = pa.array(labels, pa.large_string())
    bad, problem = _bad_ids(texts)
    if problem:
        bad_codes = np.flatnonzero(bad.to_numpy(zero_copy_only=False))
        row = int(np.flatnonzero(np.isin(codes, bad_codes))[0])
        label = shown(texts[int(codes[row])].as_py())
        raise InputError(f"{what} {place(row)}: {label!r} {problem}")
    return _categorical(codes, pd.Index(labels))


def _categorical(codes: np.ndarray, labels: pd.Index) -> pd.Categorical:
    """A categorical of valid `codes` into `labels` that are distinct by construction (a
    dictionary encoding, a factorisation, a categorical's own): pandas' public
    constructors would hash every label again to check (25 ms for 100k docnos, more than
    encoding them). pandas is pinned (pyproject.toml), and the tests build frames here."""
    dtype = pd.CategoricalDtype._from_fastpath(labels, ordered=False)
    return pd.Categorical.from_codes(codes, dtype=dtype, validate=False)


def _mostly_distinct(column: pd.Series) -> bool:
    """True for Arrow-backed strings of which a sample of rows is mostly distinct: a run's
    docnos rarely repeat across topics, and then the evaluation's sort of (topic, docno)
    beats hashing a million docnos into categories (twice) and sorting them all."""
    if not _arrow_strings(column.dtype) or len(column) < _SAMPLE:
        return False
    values = arrays.one_array(pa.array(column))
    sample = ac.take(
        values, arrays.as_arrow(np.linspace(0, len(values) - 1, _SAMPLE).astype(np.int64))
    )
    return len(ac.unique(sample)) > _SAMPLE // 2


def _plain_strings(column: pd.Series, what: str, place: Place = _row) -> pd.Series:
    """Arrow-backed ids as they are, row by row, checked as `_strings` checks categories."""
    values = arrays.one_array(pa.array(column))
    if values.null_count:
        row = int(np.flatnonzero(values.is_null().to_numpy(zero_copy_only=False))[0])
        raise InputError(f"{what} {place(row)}: missing value")
    bad, problem = _bad_ids(values)
    if problem:
        row = int(np.flatnonzero(bad.to_numpy(zero_copy_only=False))[0])
        raise InputError(f"{what} {place(row)}: {shown(values[row].as_py())!r} {problem}")
    return pd.Series(pd.arrays.ArrowExtensionArray(values))


def _bad_ids(strings: pa.Array) -> tuple[pa.Array | None, str]:
    """Which ids a TREC file could not hold, and why: a control character (a NUL, an
    escape), or empty or whitespace; (None, "") when all are fine."""
    if not maybe_blank(strings):
        return None, ""
    for pattern, problem in ((_CONTROL, "holds a control character"), (_SPACE, "")):
        bad = ac.matches(strings, pattern)
        if not problem:
            bad, problem = ac.or_(bad, ac.equal(strings, "")), "is empty or contains whitespace"
        if ac.any_true(bad):
            return bad, problem
    return None, ""


def dictionary_codes(strings: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Arrow's dictionary encoding of `strings` (codes in first-seen order, -1 for a
    missing value) as numpy codes and the dictionary. A long column in stretches of one
    value (a run's topics, row after row) is encoded a stretch at a time: neighbours
    compared once, then only each stretch's first string hashed (5 ms instead of 12 for
    1M topic ids); the codes and dictionary are the same."""
    n = len(strings)
    first = strings.slice(0, _FIRST_ROWS)  # docnos, in no stretches, are told from these
    if n >= max(STRETCHES, 1) and strings.null_count == 0 and _few_stretches(first):
        starts = _stretch_starts(strings)
        if len(starts) * 8 <= n:  # as `_few_stretches`, on every row
            heads = ac.dictionary_encode(ac.take(strings, arrays.as_arrow(starts)))
            codes = np.repeat(heads.indices.to_numpy(), np.diff(np.r_[starts, n]))
            return codes, heads.dictionary
    encoded = ac.dictionary_encode(strings)
    codes = ac.fill_null(encoded.indices, -1) if encoded.null_count else encoded.indices
    return codes.to_numpy(), encoded.dictionary


def _stretch_starts(strings: pa.Array) -> np.ndarray:
    """The rows (at least one) where a stretch of equal strings starts, row 0 first."""
    n = len(strings)
    changed = ac.cast(ac.not_equal(strings.slice(1), strings.slice(0, n - 1)), pa.int8())
    return np.flatnonzero(np.r_[True, arrays.numpy_view(changed).view(bool)])


def _few_stretches(strings: pa.Array) -> bool:
    """True when `strings` (at least one) come in stretches averaging 8 rows or more."""
    return len(_stretch_starts(strings)) * 8 <= len(strings)


def maybe_blank(strings: pa.Array) -> bool:
    """False when no string can be empty or hold whitespace: every byte of the text is
    printable ASCII (whitespace is a byte up to 0x20 in ASCII, bytes from 0x80 beyond)
    and every string has a byte. One pass over the bytes instead of a regex per string."""
    offsets, data = strings.buffers()[1], strings.buffers()[2]
    kind = np.int64 if pa.types.is_large_string(strings.type) else np.int32
    ends = np.frombuffer(offsets, kind, len(strings) + 1, strings.offset * np.dtype(kind).itemsize)
    if len(strings) == 0:
        return False
    text = np.frombuffer(data, np.uint8)[ends[0] : ends[-1]] if data is not None else b""
    return bool((np.diff(ends) == 0).any() or len(text) == 0 or ((text - 0x21) >= 0x5F).any())


# The shortest column `dictionary_codes` first splits into stretches of one value: the
# comparison of neighbours costs a fifth of hashing every row, and a column of more
# stretches than an eighth of its rows (docnos, shuffled topics) is then hashed whole.
STRETCHES = 1 << 16
_FIRST_ROWS = 1 << 12

# Rows sampled (spread over the column) to tell mostly distinct docnos from a small pool:
# a pool of P docnos shows as at most half distinct in ~1.6 P draws, so pools of up to
# ~40k (TREC-style runs over one shared candidate set) are seen for what they are.
_SAMPLE = 1 << 16


def _arrow_strings(dtype: Any) -> bool:
    """True for pandas' Arrow-backed string dtypes (pandas 3's default `str` among them;
    pandas 2.2 calls that one's storage "pyarrow_numpy")."""
    if isinstance(dtype, pd.StringDtype):
        return dtype.storage in ("pyarrow", "pyarrow_numpy")
    return isinstance(dtype, pd.ArrowDtype) and (
        pa.types.is_string(dtype.pyarrow_dtype) or pa.types.is_large_string(dtype.pyarrow_dtype)
    )


def _integers(column: pd.Series, what: str, place: Place = _row) -> np.ndarray:
    """Whole numbers as int64; anything else is an error naming the row."""
    values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64)
    bad = ~(np.isfinite(values) & (np.floor(values) == values) & (np.abs(values) < 2.0**53))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(f"{what} {place(row)}: {_shown(column.iloc[row])} is not a whole number")
    return values.astype(np.int64)


def _shown(value: Any) -> str:
    """A value as an error message quotes it: text quoted, numbers plain, both cut short."""
    return repr(shown(value)) if isinstance(value, str) else shown(str(value))


def _positions(topic: np.ndarray) -> np.ndarray:
    """Each row's 1-based position among its topic's rows, in row order (one pass when
    every topic's rows are contiguous, as in a run file; a stable sort otherwise)."""
    if len(topic) == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, topic[1:] != topic[:-1]])
    if len(starts) == len(arrays.distinct(topic[starts])):  # steps of 1, back to 1 at a start
        step = np.ones(len(topic), dtype=np.int64)
        step[starts[1:]] = 1 - np.diff(starts)
        return np.cumsum(step, out=step)  # 4.6 ms for 1M rows, 6.7 by arange and repeat
    order = np.argsort(topic, kind="stable")
    ordered = topic[order]
    first = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    position = np.empty(len(topic), dtype=np.int64)
    position[order] = np.arange(len(topic)) - np.repeat(first, np.diff(np.r_[first, len(topic)]))
    return position + 1
