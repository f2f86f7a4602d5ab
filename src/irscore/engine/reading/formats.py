"""The layouts a qrels or run file may have, and how to tell them from its first line.

TREC qrels (`topic iteration docno grade`) and runs (`topic Q0 docno rank
score tag`) are split on ASCII whitespace, as trec_eval splits them. The
workbench's formats are CSV or TSV `qid,docno,grade` and `qid,docno,score`,
with or without a header naming the columns (a run's header may name a rank
column instead of the score: lower ranks first), and a bare `qid docno` list
whose order is the ranking. CSV and TSV fields may be quoted as Python's csv
module (and pandas) write them: `"doc1"` is doc1.
"""

from __future__ import annotations

import re
from typing import NamedTuple

RUN_FORMATS = ("auto", "trec", "csv", "tsv", "list", "json", "parquet")
QRELS_FORMATS = ("auto", "trec", "csv", "tsv")

# Header names (lower case) of each canonical column.
HEADER_NAMES = {
    "topic": ("qid", "query", "query_id", "topic", "topic_id"),
    "docno": ("docno", "doc", "doc_id", "docid", "document", "pid", "passage"),
    "grade": ("grade", "rel", "relevance", "label", "judgment", "judgement"),
    "score": ("score",),
    "rank": ("rank",),
}
_NAME_OF = {alias: name for name, aliases in HEADER_NAMES.items() for alias in aliases}
_SPACE = re.compile(r"[ \t\r\f\v]+")
DELIMITERS = {"csv": ",", "tsv": "\t"}


class FormatError(ValueError):
    """A file whose layout cannot be told, or does not suit its role."""


class Layout(NamedTuple):
    """How to split a file's lines and what each field is.

    `columns` names the canonical column of each field in order ("" for a
    field that is ignored, such as the Q0 column); `delimiter` None splits on
    runs of ASCII whitespace. `extra_fields`: fields after the last are ignored
    (a TREC run's after the tag: trec_eval's get_trec_results.c skips them).
    """

    name: str
    columns: tuple[str, ...]
    delimiter: str | None = None
    header: bool = False
    extra_fields: bool = False

    def describe(self) -> str:
        """The layout in words, for --verbose."""
        if self.name == "trec":
            return "TREC format"
        if self.name in ("json", "parquet"):
            return "JSON {qid: {docno: score}}" if self.name == "json" else "Parquet"
        kind = {"csv": "CSV", "tsv": "TSV", "list": "a whitespace-separated list"}[self.name]
        named = ", ".join(c for c in self.columns if c)
        header = "a header" if self.header else "no header"
        return f"{kind} with {header} (columns: {named})"


TREC_RUN = Layout("trec", ("topic", "", "docno", "rank", "score", "tag"), extra_fields=True)
TREC_QRELS = Layout("trec", ("topic", "", "docno", "grade"))


def split(line: str, delimiter: str | None) -> list[str]:
    """A line's fields: on runs of ASCII whitespace, or on a delimiter with spaces trimmed
    (and quotes read as CSV reads them, when the line has any)."""
    if delimiter is None:
        fields = _SPACE.split(line.strip(" \t\r\f\v"))
        return [] if fields == [""] else fields
    if '"' in line:
        import csv  # here: a TREC file never needs it

        return [
            f.strip(" \r")
            for f in next(csv.reader([line], delimiter=delimiter, skipinitialspace=True), [""])
        ]
    return [field.strip(" \r") for field in line.split(delimiter)]


def header_name(field: str) -> str | None:
    """The canonical column a header field names (`qid` -> topic), or None."""
    return _NAME_OF.get(field.lower())


def detect(first_line: str | None, role: str, forced: str = "auto") -> Layout:
    """The layout of a qrels (`role` "qrels") or run file from its first data line.

    `forced` names the format (from --qrels-format / --run-format); only
    whether there is a header is then read from the line. No line (an empty
    file), or one that fits no layout, is TREC format: the strict reader then
    names what is wrong. A line that fits two layouts is a FormatError.
    """
    flag = f"--{role}-format"
    if first_line is None:
        return TREC_RUN if role == "run" else TREC_QRELS
    if forced != "auto":
        return _layout(forced, first_line, role)
    fields, trec = len(split(first_line, None)), _trec(role)
    if fields == len(trec.columns) or (trec.extra_fields and fields > len(trec.columns)):
        return trec  # TREC's shape wins: its docnos may hold commas
    candidates = []
    for name in ("csv", "tsv") if "\t" in first_line else ("csv", "list"):
        try:
            candidates.append(_layout(name, first_line, role))
        except FormatError:
            continue
    if not candidates:  # the strict TREC reader then says what is wrong with the line
        return _trec(role)
    if len(candidates) == 1:
        return candidates[0]
    choices = "|".join(RUN_FORMATS[1:] if role == "run" else QRELS_FORMATS[1:])
    names = " or ".join(c.describe() for c in candidates)
    raise FormatError(f"the {role} file could be {names}; name its format with {flag} {choices}")


def _trec(role: str) -> Layout:
    return TREC_RUN if role == "run" else TREC_QRELS


def _layout(name: str, line: str, role: str) -> Layout:
    """The layout `name` for this first line, or FormatError when the line does not fit it."""
    if name == "trec":
        fields = split(line, None)
        want = len(_trec(role).columns)
        if len(fields) != want and not (_trec(role).extra_fields and len(fields) > want):
            raise FormatError(f"a TREC {role} line has {want} fields, this one {len(fields)}")
        return _trec(role)
    delimiter = DELIMITERS.get(name)
    fields = split(line, delimiter)
    names = [_NAME_OF.get(f.lower()) for f in fields]
    if all(names):
        return Layout(name, _header_columns(names, fields, role), delimiter, header=True)
    if name == "list" or len(fields) == 2:
        if role == "qrels" or len(fields) != 2:
            raise FormatError(f"a bare list has 2 fields, not {len(fields)}")
        return Layout(name, ("topic", "docno"), delimiter)
    if len(fields) != 3:
        raise FormatError(f"{name.upper()} {role} lines have 3 fields, this one {len(fields)}")
    return Layout(name, ("topic", "docno", "grade" if role == "qrels" else "score"), delimiter)


def _header_columns(names: list, fields: list[str], role: str) -> tuple[str, ...]:
    """The canonical columns a header names; each at most once, the needed ones present."""
    if len(set(names)) != len(names):
        raise FormatError(f"the header names a column twice: {', '.join(fields)}")
    needed = {"topic", "docno"} | ({"grade"} if role == "qrels" else set())
    allowed = needed | ({"score", "rank"} if role == "run" else set())
    missing, extra = needed - set(names), set(names) - allowed
    if role == "run" and not {"score", "rank"} & set(names) and len(names) != 2:
        missing.add("score or rank")
    if missing or extra:
        problem = f"lacks {', '.join(sorted(missing))}" if missing else ""
        problem += ("; " if problem and extra else "") + (
            f"has {', '.join(sorted(extra))}, which a {role} file has not" if extra else ""
        )
        raise FormatError(f"the header ({', '.join(fields)}) {problem}")
    return tuple(names)


def field_name(layout: Layout, i: int) -> str:
    """The Arrow column name of field i: its canonical name, or `_i` when it is ignored."""
    return layout.columns[i] or f"_{i}"
