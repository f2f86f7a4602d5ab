"""The Python API against pytrec_eval, in one process, on the 1M-line benchmark collection.

The collection of `evaluate_vs_pytrec_eval.py` (1000 topics x 1000 documents,
exact and float32-only ties, graded judgments). Two comparisons, side by side:

- in memory: `irscore.evaluate` from DataFrames (ir_measures' columns) against
  `pytrec_eval.RelevanceEvaluator(...).evaluate(...)` from the equivalent
  dicts; building the DataFrames and the dicts is not timed for either. The
  ids are pandas' default strings (Arrow-backed since pandas 3), then Python
  objects (`astype(object)`, as older pandas made them);
- from files: `irscore.evaluate` on the two paths against pytrec_eval's usual
  use, parsing the files into dicts and evaluating them.

Each figure is the best of --repeat calls, after one untimed warm-up call of
each (so imports are not counted), for two measure sets: the four headline
measures and every measure both tools compute. Every irscore value is checked
against pytrec_eval's (1e-9) before any time is printed.

    .venv/bin/python benchmarks/api_vs_pytrec_eval.py [--topics 1000 --docs 1000]
"""

from __future__ import annotations

import argparse
import gc
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytrec_eval
from evaluate_vs_pytrec_eval import agreement, generate

import irscore
from irscore.engine.measures import MeasureSpec
from irscore.engine.reading import trec
from irscore.pipeline.crosscheck import as_dicts, pytrec_measures

HEADLINE = ["map", "P_10", "ndcg_cut_10", "recip_rank"]
EVERY = sorted(pytrec_measures(MeasureSpec()))  # pytrec_eval's requests, `P.5,10,...`


def best(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    """The best wall-clock time of `repeat` calls after one warm-up, and the last result."""
    result = fn()
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def parse_dicts(qrels_path: Path, run_path: Path) -> tuple[dict, dict]:
    """pytrec_eval as people use it: the files read line by line into nested dicts."""
    qrels: dict[str, dict[str, int]] = {}
    with open(qrels_path) as handle:
        for line in handle:
            topic, _, docno, grade = line.split()
            qrels.setdefault(topic, {})[docno] = int(grade)
    run: dict[str, dict[str, float]] = {}
    with open(run_path) as handle:
        for line in handle:
            topic, _, docno, _, score, _ = line.split()
            run.setdefault(topic, {})[docno] = float(score)
    return qrels, run


def pytrec_from_dicts(qrels: dict, run: dict, requests: set[str]) -> dict:
    """pytrec_eval on dicts; topics whose every grade is negative are left out, as the
    cross-check does (pytrec_eval would count them as judged topics without relevance)."""
    comparable = {t: q for t, q in qrels.items() if max(q.values()) >= 0}
    return pytrec_eval.RelevanceEvaluator(comparable, requests).evaluate(run)


def inputs(qrels_path: Path, run_path: Path) -> tuple[pd.DataFrame, pd.DataFrame, dict, dict]:
    """The two files as DataFrames in ir_measures' columns (topics whose every grade
    is negative left out, as pytrec_from_dicts does) and as pytrec_eval's dicts."""
    qrels_table, run_table = trec.read_qrels(qrels_path), trec.read_run(run_path)
    qrels_frame = pd.DataFrame(
        {
            "query_id": qrels_table["topic"].astype(str),
            "doc_id": qrels_table["docno"].astype(str),
            "relevance": qrels_table["grade"],
        }
    )
    comparable = qrels_frame.groupby("query_id")["relevance"].transform("max") >= 0
    qrels_frame = qrels_frame[comparable.to_numpy()].reset_index(drop=True)
    run_frame = pd.DataFrame(
        {
            "query_id": run_table["topic"].astype(str),
            "doc_id": run_table["docno"].astype(str),
            "score": run_table["score"],
        }
    )
    return qrels_frame, run_frame, *as_dicts(qrels_table, run_table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=1000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        qrels_path, run_path = generate(Path(folder), args.topics, args.docs, args.seed)
        qrels_frame, run_frame, qrels_dict, run_dict = inputs(qrels_path, run_path)
        ids = {"query_id": object, "doc_id": object}
        frames = {
            "DataFrames vs dicts": (qrels_frame, run_frame),
            "  (object ids) vs dicts": (qrels_frame.astype(ids), run_frame.astype(ids)),
        }
        print(f"collection: {args.topics} topics x {args.docs} docs = {len(run_frame):,} lines")
        print(f"{'':34s} {'irscore (s)':>11s} {'pytrec_eval (s)':>15s} {'ratio':>7s}")
        for label, ours_measures, theirs_requests in (
            ("headline measures", HEADLINE, {"map", "P.10", "ndcg_cut.10", "recip_rank"}),
            (f"every shared measure ({len(EVERY)} req.)", EVERY, set(EVERY)),
        ):
            memory_theirs, theirs = best(
                lambda r=theirs_requests: pytrec_from_dicts(qrels_dict, run_dict, r), args.repeat
            )
            memory_ours = {}
            for kind, (q, r) in frames.items():
                memory_ours[kind], table = best(
                    lambda m=ours_measures, q=q, r=r: irscore.evaluate(q, r, measures=m),
                    args.repeat,
                )
                compared, differing = agreement(table, theirs)
                if differing or not compared:
                    raise SystemExit(f"{label}, {kind}: {differing} of {compared} values differ")
            files_ours, table = best(
                lambda m=ours_measures: irscore.evaluate(
                    str(qrels_path), {"bench": str(run_path)}, measures=m
                ),
                args.repeat,
            )
            files_theirs, theirs = best(
                lambda r=theirs_requests: pytrec_from_dicts(*parse_dicts(qrels_path, run_path), r),
                args.repeat,
            )
            compared, differing = agreement(table, theirs)
            if differing or not compared:
                raise SystemExit(f"{label}, files: {differing} of {compared} values differ")
            print(f"{label}")
            for kind, ours, other in (
                *((f"  {kind}", ours, memory_theirs) for kind, ours in memory_ours.items()),
                ("  paths vs parse + evaluate", files_ours, files_theirs),
            ):
                print(f"{kind:34s} {ours:11.3f} {other:15.3f} {other / ours:6.2f}x")
        print(f"values agree within 1e-9 (last check: {compared:,} values)")


if __name__ == "__main__":
    main()
