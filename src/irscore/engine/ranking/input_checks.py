"""The verdicts on inputs that parse but cannot be scored as given, shared by the command
line and the Python API, so both refuse and warn about the same inputs in the same words.

An input without a record (an empty file, one of comments only, an empty
DataFrame or dict) and a run that shares no topic with its qrels are errors
(`InputError`); topics one side lacks, and results that match almost none of
the judged documents (quoted docnos, a prefix, the wrong column: numbers that
look plausible but are zeros), are warnings. Nothing heavy is imported here.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from irscore.engine.reading.errors import InputError, shown

if TYPE_CHECKING:
    import pandas as pd

    from irscore.engine.ranking.rank import Notes

WHAT = {"qrels": "judgments", "run": "results"}
FEW_TOPICS = 10  # from this many shared topics, "almost none" is a share of them
ALMOST_NONE = 0.05  # judged documents retrieved for fewer than this share of the topics


def require_records(name: str, role: str, records: int, other_lines: int | None) -> None:
    """An input without a record is an error naming it as empty (`other_lines` None: not
    a file, such as an empty DataFrame or dict)."""
    if records:
        return
    if other_lines is None:
        raise InputError(f"{name}: no {WHAT[role]} (the {role} is empty)")
    if other_lines == 0:
        raise InputError(f"{name}: the {role} file is empty")
    lines = "its line is" if other_lines == 1 else f"its {other_lines} lines are"
    raise InputError(f"{name}: no {WHAT[role]}: {lines} blank, comments or a header")


def read_checked(path: str | os.PathLike, role: str) -> pd.DataFrame:
    """A qrels or run file as the frame readers give it, refused as `irscore evaluate`
    refuses it when it holds no record (`require_records`): the workbench commands and
    `irscore audit` read their inputs here."""
    from irscore.engine.reading import trec

    read = trec.read_qrels_records if role == "qrels" else trec.read_run_records
    records = read(path)
    require_records(records.source, role, records.table.num_rows, len(records.skipped))
    return records.frame()


def bom_note(name: str) -> str:
    """The note on a skipped UTF-8 byte order mark, where irscore and trec_eval differ."""
    return (
        f"{name}: skipped the UTF-8 byte order mark at its start "
        "(trec_eval reads it as part of the first topic)"
    )


def overlap(run: str, qrels: str, notes: Notes) -> list[str]:
    """The warnings on how a run meets its qrels; an error when they share no topic."""
    if notes.shared_topics == 0:
        raise InputError(
            f"{run}: no topic has both results and judgments in {qrels} "
            f"(run topics: {few(notes.run_topics_without_qrels)}; "
            f"qrels topics: {few(notes.qrels_topics_without_run)})"
        )
    warnings = []
    if notes.run_topics_without_qrels:
        warnings.append(
            f"{run}: {count(notes.run_topics_without_qrels, 'topic')} without judgments in "
            f"{qrels}, not scored: {few(notes.run_topics_without_qrels)}"
        )
    if notes.qrels_topics_without_run:
        warnings.append(
            f"{run}: no results for {count(notes.qrels_topics_without_run, 'judged topic')} "
            f"(-c scores them 0): {few(notes.qrels_topics_without_run)}"
        )
    if plausible_zeros(notes):
        judged = notes.retrieved_judged
        matched = "none" if judged == 0 else f"{judged}"
        warnings.append(
            f"{run}: {matched} of its {notes.retrieved} results in the "
            f"{count(range(notes.shared_topics), 'topic')} it shares with {qrels} "
            f"{'is a' if judged < 2 else 'are'} judged document{'' if judged < 2 else 's'}; "
            "check that the docnos are written alike (quotes, prefixes, case) and that the "
            "docno column is the document's"
        )
    return warnings


def plausible_zeros(notes: Notes) -> bool:
    """True when the results match no judged document, or (over many topics) judged
    documents are retrieved for almost no topic: the scores would be zeros that look
    like a weak run."""
    if notes.retrieved == 0:
        return False
    if notes.retrieved_judged == 0:
        return True
    return (
        notes.shared_topics >= FEW_TOPICS
        and notes.topics_with_judged < ALMOST_NONE * notes.shared_topics
    )


def count(items: Sequence, noun: str) -> str:
    """`3 topics`, `1 topic`."""
    return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"


def few(names: Sequence[str], first: int = 3) -> str:
    """The first few names, quoted (`'0301'` and `'301'` differ) and cut, `...` after."""
    if not names:
        return "none"
    head = ", ".join(repr(shown(str(n), 40)) for n in names[:first])
    return head + (f", ... ({len(names)} in all)" if len(names) > first else "")
