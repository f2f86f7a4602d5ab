"""Issue 48 item 5 in the shape matrix (benchmarks/shapes.py): MS MARCO v2's long docnos
(`msmarco_passage_03_1009`) at most 1.15x irscore's time on the same run with numeric
docnos, from the rows marco1000v2 and marco1000."""

from __future__ import annotations

V2_TARGET = 1.15  # issue 48 item 5: marco1000v2's irscore time over marco1000's


def figures(results: list[dict]) -> dict | None:
    """irscore's median wall on marco1000v2 over its median on marco1000 (issue 48 item 5),
    and the same of the rows' irscore / trec_eval ratios (trec_eval reads the same two
    inputs, so load that changes between the rows cancels); None unless both rows ran."""
    rows = {result["shape"]: result for result in results}
    if not {"marco1000", "marco1000v2"} <= rows.keys():
        return None
    numeric, v2 = rows["marco1000"], rows["marco1000v2"]
    if "irscore" not in numeric["tools"] or "irscore" not in v2["tools"]:
        return None
    ratio = v2["tools"]["irscore"]["wall"] / numeric["tools"]["irscore"]["wall"]
    out = {"v2_ratio": ratio, "target": V2_TARGET, "met": ratio <= V2_TARGET}
    if "ratio" in numeric and "ratio" in v2:
        out["v2_ratio_of_trec_eval_ratios"] = v2["ratio"] / numeric["ratio"]
        out["trec_eval_v2_ratio"] = (
            v2["tools"]["trec_eval"]["wall"] / numeric["tools"]["trec_eval"]["wall"]
        )
    return out


def line(figures: dict) -> str:
    """The v2_ratio's line under the table."""
    line = (
        f"v2_ratio (irscore on marco1000v2 / marco1000, medians): {figures['v2_ratio']:.3f}x, "
        f"target <= {figures['target']}x: {'met' if figures['met'] else '**not met**'}"
    )
    if "v2_ratio_of_trec_eval_ratios" in figures:
        line += (
            f"; of the rows' irscore / trec_eval ratios: "
            f"{figures['v2_ratio_of_trec_eval_ratios']:.3f}x "
            f"(trec_eval's own: {figures['trec_eval_v2_ratio']:.3f}x)"
        )
    return line
