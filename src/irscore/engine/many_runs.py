"""Several small runs scored as one: each run's topics coded apart (run k's topic t is
code k * T + t, T the topics of the qrels and every run together), the qrels repeated
once per run, so the join, the ranking and the measures run once over every run's
rows instead of once per run (a TREC DL run's 43 topics make numpy's per-call costs
most of its time). The values are then split back per run: each run's topics, values
and notes are those of the run scored alone, since no value reads another topic's
rows, and each run's `all` values are added over its own topics in order.

Only conventions whose steps read nothing beyond a topic (and whose notes are
counted here per run) are folded: `foldable`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from irscore.engine.evaluate import topic_values
from irscore.engine.measures import MeasureSpec
from irscore.engine.measures.aggregation import finished
from irscore.engine.measures.registry import MIN_GEO_MEAN, SUBTOPIC_FAMILIES, family_of, is_text
from irscore.engine.ranking import prepare as prep
from irscore.engine.ranking.conventions import REFERENCE, Convention
from irscore.engine.ranking.rank import NOT_JUDGED, Notes
from irscore.engine.reading import trec

# The convention's fields a folded scoring may change (-c, -J, -l, -M): each acts on
# one topic's rows and judgments. The others keep the reference's.
_FOLDABLE = ("name", "description", "topics", "unjudged", "rel_level", "depth")


def foldable(c: Convention, spec: MeasureSpec) -> bool:
    """True when runs scored together under `c` give each run's values alone."""
    same = c.replace(**{field: getattr(REFERENCE, field) for field in _FOLDABLE})
    return same == REFERENCE and not spec.families & SUBTOPIC_FAMILIES


@dataclass
class RunValues:
    """One run's per-topic values (in topic order), its `all` values and its notes."""

    values: dict[str, np.ndarray]
    topics: np.ndarray
    filled: np.ndarray  # -c's topics without results
    means: dict[str, float]
    notes: Notes


def folded(
    qrels: trec.Records, runs: list[trec.Records], c: Convention, spec: MeasureSpec
) -> list[RunValues]:
    """Each run's values under `c` (`foldable`), text measures included, scored together."""
    p, width = prep.prepare_folded(qrels, runs)
    part = topic_values(p, c, spec, text=True)
    assert part.codes is not None
    bounds = np.searchsorted(part.codes, np.arange(len(runs) + 1) * width)
    notes = _notes(p, width, len(runs), part.notes.not_computed)
    num_rel_all = float((p.qrels_grade[: qrels.table.num_rows] > 0).sum()) if c.complete else None
    means = _means(part.values, part.filled, bounds, c, num_rel_all)
    out = []
    for k, (start, end) in enumerate(zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True)):
        values = {name: array[start:end] for name, array in part.values.items()}
        filled = part.filled[start:end]
        out.append(RunValues(values, part.topics[start:end], filled, means[k], notes[k]))
    return out


def _means(
    values: dict[str, np.ndarray],
    filled: np.ndarray,
    bounds: np.ndarray,
    c: Convention,
    num_rel_all: float | None,
) -> list[dict[str, float]]:
    """Each run's `all` values, the bits `RunningMeans` gives for its topics alone: a
    measure's values laid out a row per run (zeros after a run's own), summed left to
    right along the rows in one accumulate, each run's sum read at its last value. The
    measures that add every kept topic are summed in one such table (numpy's per-call
    costs once a batch, not once a measure); a mean over the topics with a value, each
    on its own."""
    runs = len(bounds) - 1
    run_of = np.repeat(np.arange(runs), np.diff(bounds))
    kept = ~filled if c.missing_topics == "mean_only" else np.ones(len(filled), dtype=bool)
    missing = np.bincount(run_of[~kept], minlength=runs)
    run = run_of[kept]
    names = [name for name in values if not is_text(name)]
    every = [name for name in names if family_of(name).aggregate != "mean_defined"]
    sums: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    if every:
        table = np.stack([values[name][kept] for name in every])
        geometric = [i for i, name in enumerate(every) if family_of(name).aggregate == "geometric"]
        table[geometric] = np.log(np.maximum(table[geometric], MIN_GEO_MEAN))
        count, totals = _row_sums(table, run, runs)
        sums.update((name, (count, total)) for name, total in zip(every, totals, strict=True))
    for name in names:
        if name not in sums:  # the topics with a value only
            value = values[name][kept]
            defined = ~np.isnan(value)
            count, totals = _row_sums(value[None, defined], run[defined], runs)
            sums[name] = count, totals[0]
    return [
        {
            name: finished(
                name,
                (int(count[k]), float(total[k]) if count[k] else None),
                int(missing[k]),
                num_rel_all,
            )
            for name, (count, total) in ((name, sums[name]) for name in names)
        }
        for k in range(runs)
    ]


def _row_sums(values: np.ndarray, run: np.ndarray, runs: int) -> tuple[np.ndarray, np.ndarray]:
    """Each run's count of values and, for each row of `values` (measures x topics), their
    left-to-right float64 sum per run (`run` ascending): (count, sums measures x runs)."""
    count = np.bincount(run, minlength=runs)
    starts = np.cumsum(count) - count
    table = np.zeros((len(values), runs, int(count.max(initial=0)) or 1))
    table[:, run, np.arange(len(run)) - starts[run]] = values
    total = np.cumsum(table, axis=2)[:, np.arange(runs), np.maximum(count - 1, 0)]
    return count, total


def _notes(p: prep.Prepared, width: int, runs: int, not_computed: list[str]) -> list[Notes]:
    """Each run's notes, as `rank` counts them for the run alone (nothing is dropped
    under a `foldable` convention: a repeated document is an error)."""
    has_qrels = p.has_qrels.reshape(runs, width)
    has_run = p.has_run.reshape(runs, width)
    labels = p.topics[:width]
    rows = np.flatnonzero(p.has_qrels[p.run_topic])
    topic = p.run_topic[rows]
    in_pool = p.run_grade[rows] != NOT_JUDGED
    retrieved = np.bincount(topic // width, minlength=runs)
    judged = np.bincount(topic[in_pool] // width, minlength=runs)
    with_judged = np.zeros(runs * width, dtype=bool)
    with_judged[topic[in_pool]] = True
    topics_with_judged = with_judged.reshape(runs, width).sum(axis=1)
    shared = (has_qrels & has_run).sum(axis=1)
    return [
        Notes(
            run_topics_without_qrels=[str(t) for t in labels[has_run[k] & ~has_qrels[k]]],
            qrels_topics_without_run=[str(t) for t in labels[has_qrels[k] & ~has_run[k]]],
            not_computed=list(not_computed),
            shared_topics=int(shared[k]),
            retrieved=int(retrieved[k]),
            retrieved_judged=int(judged[k]),
            topics_with_judged=int(topics_with_judged[k]),
        )
        for k in range(runs)
    ]
