"""Small runs scored several at a time (`irscore.engine.many_runs`), for `irscore evaluate`
with many runs: a worker reads a batch of runs, scores them as one table and writes
each run's trec_eval text to the spool, as `evaluate`'s per-run scoring would. Any
error in a batch leaves it to the per-run scoring, which reports it as it always has
(`workers`); so does a convention or input that folding does not serve."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from irscore.cli import chunked

if TYPE_CHECKING:
    from irscore.cli.workers import Spool

# Runs of at most this many bytes together are scored as one (a batch's rows then number
# about 80k: numpy's per-call costs are paid once for them). A worker holds a batch's
# scoring at once: 1,000 TREC DL runs of 43 x 200 peaked at 166 MiB summed in batches of
# 4 MiB (13 runs), 152 in batches of 3 and 130 in batches of 2; a worker's CPU a run was
# 9.8, 9.7 and 10.5 ms (medians of 4 interleaved).
BATCH_BYTES = 3 << 20
# A run above this many bytes (some 30k lines) pays those costs once already, and is
# scored alone: 100 TREC DL runs of 43 x 1,000 (1.57 MB) peaked at 103 MiB summed,
# against 117 in pairs, for 4-9% more time (interleaved medians: 1.265 s against
# 1.220, 1.248 against 1.165, 1.274 against 1.170), within trec_eval's peak (7 MiB) +
# 100; the join's radix sort (`arrays.small_stable_argsort`) then took 1.126 s.
ALONE_BYTES = 1 << 20
BATCH_RUNS = 64  # and at most this many runs


def scorer(qrels, convention, groups: list, args: argparse.Namespace) -> Callable | None:
    """A function that scores a batch of runs together into the spool and gives each
    run's result as `evaluate`'s per-run `score` does, when each group's convention is
    `foldable`; None otherwise. For flags and qrels that `evaluate._folds` lets through
    only: trec_eval's text of a qrels read whole without subtopics, without -Z or
    --verbose."""
    from irscore.engine.many_runs import foldable
    from irscore.engine.measures.groups import changed

    conventions = [changed(convention, g.changes) for g in groups]
    if not all(foldable(c, g.spec) for c, g in zip(conventions, groups, strict=True)):
        return None

    def score(paths: list[str], sizes: list[int], spool: Spool) -> list[tuple]:
        """Each run's (None, its runid, per group its text's place in the spool and notes),
        given the runs' sizes in bytes (a run read at another size is read alone)."""
        from irscore.engine.many_runs import folded
        from irscore.engine.ranking.input_checks import bom_note, require_records
        from irscore.engine.reading import run_batches, trec

        runs = run_batches.read_together(paths, sizes, args.run_format) or [
            trec.read_run_records(path, args.run_format) for path in paths
        ]
        for run in runs:
            require_records(run.source, "run", run.table.num_rows, len(run.skipped))
        runids = [run.table["tag"][-1].as_py() for run in runs]
        texts: list[list] = [[] for _ in runs]
        for c, g in zip(conventions, groups, strict=True):
            scored = folded(qrels, runs, c, g.spec)
            lines = _topic_lines(scored, c, g, args)
            for k, (got, topic_text) in enumerate(zip(scored, lines, strict=True)):
                summary = chunked.summary_lines(g, got.means, runids[k], args)
                place = spool.put(b"".join([topic_text, *summary]))
                texts[k].append((place, {}, None, {}, got.notes.not_computed, got.notes))
        for run in runs:  # said once every run of the batch is scored
            if run.bom:
                print(f"irscore: note: {bom_note(run.source)}", file=sys.stderr)
        return [(None, runid, text) for runid, text in zip(runids, texts, strict=True)]

    return score


def _topic_lines(scored: list, c, g, args: argparse.Namespace) -> list[bytes]:
    """Each run's per-topic lines, as `chunked.topic_lines` gives them (none without -q;
    under trec_eval 9's -c, none for the qrels topics a run lacks), formatted together."""
    if not args.q:
        return [b"" for _ in scored]
    import numpy as np

    from irscore.engine.output import trec_eval_text

    parts, at = [], 0
    for got in scored:
        rows = np.arange(at, at + len(got.topics))
        topics = got.topics.tolist()
        printed = trec_eval_text.topics_printed(c, topics, got.notes.qrels_topics_without_run)
        if printed is not None:
            rows = rows[[t in printed for t in topics]]
        parts.append(rows)
        at += len(got.topics)
    values = {
        name: np.concatenate([got.values[name] for got in scored]) for name in scored[0].values
    }
    topics = np.concatenate([got.topics for got in scored])
    return trec_eval_text.topic_lines_of_parts(g.named(values), topics, parts)


def batches(paths: list[str], sizes: list[int], workers: int) -> list[tuple[list[str], list[int]]]:
    """Consecutive paths (with their sizes) grouped into batches of `BATCH_BYTES` and
    `BATCH_RUNS` at most (a run above `ALONE_BYTES` is a batch of its own), and at least
    two batches for each of `workers` while there are runs enough, so that no worker
    waits for another's last batch."""
    most = min(BATCH_RUNS, -(-len(paths) // (2 * workers)))
    out: list[tuple[list[str], list[int]]] = []
    total = 0
    for path, size in zip(paths, sizes, strict=True):
        alone = size > ALONE_BYTES
        if alone or not out or total + size > BATCH_BYTES or len(out[-1][0]) >= most:
            out.append(([], []))
            total = 0
        out[-1][0].append(path)
        out[-1][1].append(size)
        total = BATCH_BYTES if alone else total + size  # nothing joins a run alone
    return out
