"""Issue 48 item 5 in the shape matrix (benchmarks/shapes.py): MS MARCO v2's long docnos
(`msmarco_passage_03_1009`) at most 1.15x irscore's time on the same run with numeric
docnos: irscore on marco1000v2 and marco1000 in interleaved pairs, and from the rows."""

from __future__ import annotations

import statistics

import measuring

V2_TARGET = 1.15  # issue 48 item 5: marco1000v2's irscore time over marco1000's
SHAPES = ("marco1000", "marco1000v2")


def paired(numeric: list[str], v2: list[str], repeat: int) -> list[float]:
    """irscore's wall on marco1000v2 over its wall on marco1000 (`numeric` and `v2`: the
    two commands), pair by pair: a pair's two calls run one after the other, which goes
    first alternating, so both meet the same load (the rows' medians are timed minutes
    apart, and this shared host's speed drifts by more than the target's margin)."""
    samples = measuring.interleaved(dict(zip(SHAPES, (numeric, v2), strict=True)), repeat)
    walls = [samples[shape].walls for shape in SHAPES]
    return [late / first for first, late in zip(*walls, strict=True)]


def timed_rows(results: list[dict]) -> tuple[dict, dict] | None:
    """The marco1000 and marco1000v2 rows when both ran and timed irscore; else None."""
    rows = {result["shape"]: result for result in results}
    if not set(SHAPES) <= rows.keys():
        return None
    numeric, v2 = (rows[shape] for shape in SHAPES)
    if "irscore" not in numeric["tools"] or "irscore" not in v2["tools"]:
        return None
    return numeric, v2


def figures(results: list[dict], pairs: list[float] | None = None) -> dict | None:
    """Issue 48 item 5: the median of the interleaved `pairs` (`paired`), or without them
    irscore's median wall on marco1000v2 over its median on marco1000; the rows' ratio
    (`rows_ratio`), and the same of the rows' irscore / trec_eval ratios (trec_eval
    reads the same two inputs, so load that changes between the rows cancels); None
    unless both rows ran."""
    both = timed_rows(results)
    if both is None:
        return None
    numeric, v2 = both
    rows_ratio = v2["tools"]["irscore"]["wall"] / numeric["tools"]["irscore"]["wall"]
    ratio = statistics.median(pairs) if pairs else rows_ratio
    out = {"v2_ratio": ratio, "target": V2_TARGET, "met": ratio <= V2_TARGET}
    out["rows_ratio"] = rows_ratio
    if pairs:
        out["pairs"] = pairs
    if "ratio" in numeric and "ratio" in v2:
        out["v2_ratio_of_trec_eval_ratios"] = v2["ratio"] / numeric["ratio"]
        out["trec_eval_v2_ratio"] = (
            v2["tools"]["trec_eval"]["wall"] / numeric["tools"]["trec_eval"]["wall"]
        )
    return out


def line(figures: dict) -> str:
    """The v2_ratio's line under the table."""
    pairs = figures.get("pairs")
    how = f"median of {len(pairs)} interleaved pairs" if pairs else "the rows' medians"
    line = (
        f"v2_ratio (irscore on marco1000v2 / marco1000, {how}): {figures['v2_ratio']:.3f}x, "
        f"target <= {figures['target']}x: {'met' if figures['met'] else '**not met**'}"
    )
    if pairs:
        low, high = min(pairs), max(pairs)
        line += f" (pairs {low:.3f}-{high:.3f}x; the rows' medians: {figures['rows_ratio']:.3f}x)"
    if "v2_ratio_of_trec_eval_ratios" in figures:
        line += (
            f"; of the rows' irscore / trec_eval ratios: "
            f"{figures['v2_ratio_of_trec_eval_ratios']:.3f}x "
            f"(trec_eval's own: {figures['trec_eval_v2_ratio']:.3f}x)"
        )
    return line
