"""The shape matrix's Python API part: `irscore.evaluate` against pytrec_eval in one process.

1,000 topics x 1,000 documents (evaluate_vs_pytrec_eval.py's generator: exact
and float32-only ties, graded judgments), the docnos first drawn from a pool of
~21k that every topic shares, then all distinct (~1M, the usual case: a run's
documents rarely repeat across topics). For the headline measures and for every
measure both tools compute: `irscore.evaluate` from DataFrames against
`RelevanceEvaluator` on the same data as dicts (building either is not timed),
and `irscore.evaluate` on the two paths against pytrec_eval's parse +
evaluate. Every value is checked to agree within 1e-9 first (these calls are
the warm-up); the times are medians of interleaved repeats. Targets (issue 21
item 3): the DataFrame call at least 3x faster than RelevanceEvaluator on the
small pool, at least 2x with all-distinct docnos.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from api_vs_pytrec_eval import EVERY, HEADLINE, inputs, parse_dicts, pytrec_from_dicts
from evaluate_vs_pytrec_eval import agreement, generate

import irscore

POOLS = (("pool of ~21k docnos", False, 3.0), ("all-distinct docnos", True, 2.0))
MEASURE_SETS = (
    ("headline", HEADLINE, {"map", "P.10", "ndcg_cut.10", "recip_rank"}),
    (f"every shared ({len(EVERY)} requests)", EVERY, set(EVERY)),
)
HEADER = (
    "| docnos | measures | DataFrames s | RelevanceEvaluator on dicts s | speed-up | target "
    "| paths s | parse + evaluate s | speed-up |\n|---|---|---|---|---|---|---|---|---|"
)


def interleaved_calls(calls: dict[str, Callable[[], object]], repeat: int) -> dict[str, list]:
    """Seconds of each call `repeat` times, in rounds whose first call rotates."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    names = list(calls)
    for i in range(repeat):
        for name in names[i % len(names) :] + names[: i % len(names)]:
            gc.collect()
            start = time.perf_counter()
            calls[name]()
            times[name].append(time.perf_counter() - start)
    return times


def tasks(
    qrels_path: Path, run_path: Path, prepared: tuple, ours: list[str], theirs: set[str]
) -> dict[str, Callable[[], object]]:
    """The four timed calls: irscore and pytrec_eval on the prepared inputs
    (DataFrames, dicts), then each on the two paths."""
    qrels_frame, run_frame, qrels_dict, run_dict = prepared
    paths = (str(qrels_path), {"bench": str(run_path)})
    return {
        "DataFrames": lambda: irscore.evaluate(qrels_frame, run_frame, measures=ours),
        "dicts": lambda: pytrec_from_dicts(qrels_dict, run_dict, theirs),
        "paths": lambda: irscore.evaluate(*paths, measures=ours),
        "parse + evaluate": lambda: pytrec_from_dicts(*parse_dicts(qrels_path, run_path), theirs),
    }


MIN_REPEAT = 7  # calls of a few tenths of a second in one busy process vary by half


def run(folder: Path, quick: bool, repeat: int) -> list[dict]:
    """Check, time and print every (docno pool, measure set); the figures as dicts. The
    calls are repeated at least `MIN_REPEAT` times (a minute or two in all) but with --quick."""
    repeat = repeat if quick else max(repeat, MIN_REPEAT)
    topics, docs = (20, 100) if quick else (1000, 1000)
    print(f"Python API, {topics:,} topics x {docs:,} documents, in one process")
    print(f"(medians of {repeat} interleaved calls after a checked warm-up call)\n")
    print(HEADER, flush=True)
    results = []
    for label, distinct, target in POOLS:
        where = folder / ("api-distinct" if distinct else "api-pool")
        where.mkdir(exist_ok=True)
        qrels_path, run_path = generate(where, topics, docs, 42, distinct)
        prepared = inputs(qrels_path, run_path)
        docnos = prepared[1]["doc_id"].nunique()
        for measures_label, ours, theirs in MEASURE_SETS:
            calls = tasks(qrels_path, run_path, prepared, ours, theirs)
            result = {"docnos": label, "distinct_docnos": docnos, "measures": measures_label}
            for mine, other in (("DataFrames", "dicts"), ("paths", "parse + evaluate")):
                compared, differing = agreement(calls[mine](), calls[other]())
                if differing or not compared:
                    result["differing"] = f"{mine}: {differing} of {compared} values differ"
            if "differing" not in result:
                times = interleaved_calls(calls, repeat)
                result["times"] = times
                wall = {name: statistics.median(seconds) for name, seconds in times.items()}
                result["speedup_frames"] = wall["dicts"] / wall["DataFrames"]
                result["speedup_paths"] = wall["parse + evaluate"] / wall["paths"]
                result["target"] = target
                result["met"] = None if quick else result["speedup_frames"] >= target
            print(row(result), flush=True)
            results.append(result)
    return results


def row(result: dict) -> str:
    """One Markdown row of the API table (the medians of the result's times)."""
    label, measures = result["docnos"], result["measures"]
    if "differing" in result:
        return f"| {label} | {measures} | **{result['differing']}** |"
    wall = {name: statistics.median(seconds) for name, seconds in result["times"].items()}
    met = {True: "met", False: "**not met**", None: "n/a"}[result["met"]]
    cells = [label, measures, f"{wall['DataFrames']:.3f}", f"{wall['dicts']:.3f}"]
    cells += [f"{result['speedup_frames']:.2f}x", f">= {result['target']}x: {met}"]
    cells += [f"{wall['paths']:.3f}", f"{wall['parse + evaluate']:.3f}"]
    cells.append(f"{result['speedup_paths']:.2f}x")
    return "| " + " | ".join(cells) + " |"
