"""From pytrec_eval-style dicts: `irscore.evaluate` against pytrec_eval and ranx, in one process.

The nested dicts pytrec_eval's and ranx's users hold (qrels `{qid: {docno:
grade}}`, run `{qid: {docno: score}}`), 1,000 topics x 1,000 documents with
every docno distinct (evaluate_vs_pytrec_eval.py's generator: exact and
float32-only ties, grades -1 to 3), four measures. Each call goes from the
dicts to the values: `irscore.evaluate(qrels, run)`,
`pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)`, and ranx's
`evaluate(Qrels.from_dict(qrels), Run.from_dict(run), metrics)`. irscore's
values are checked against pytrec_eval's (1e-9) in the warm-up calls, which
also compile ranx's numba code; the times are medians of interleaved calls.
Target (issue 48 item 4): irscore at least 1.5x as fast as each.

    .venv/bin/python benchmarks/dicts.py [--repeat 7] [--out benchmarks/dicts.json]
    .venv/bin/python benchmarks/dicts.py --docs benchmarks/dicts.json  # docs/speed.md's block
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "speed.md"
OURS = ["map", "P_10", "ndcg_cut_10", "recip_rank"]
PYTREC = {"map", "P.10", "ndcg_cut.10", "recip_rank"}
RANX = ["map", "precision@10", "ndcg@10", "mrr"]
TARGET = 1.5
TOOLS = ("irscore", "pytrec_eval", "ranx")


def dicts(topics: int, docs: int, seed: int) -> tuple[dict, dict]:
    """The generator's files read into pytrec_eval's nested dicts (qids and docnos str)."""
    from api_vs_pytrec_eval import parse_dicts
    from evaluate_vs_pytrec_eval import generate

    with tempfile.TemporaryDirectory() as folder:
        return parse_dicts(*generate(Path(folder), topics, docs, seed, True))


def calls(qrels: dict, run: dict) -> dict:
    """Each tool from the dicts to its values."""
    import pytrec_eval
    import ranx

    import irscore

    return {
        "irscore": lambda: irscore.evaluate(qrels, run, measures=OURS),
        "pytrec_eval": lambda: pytrec_eval.RelevanceEvaluator(qrels, PYTREC).evaluate(run),
        "ranx": lambda: ranx.evaluate(ranx.Qrels.from_dict(qrels), ranx.Run.from_dict(run), RANX),
    }


def checked(ours, theirs: dict) -> int:
    """How many values irscore and pytrec_eval agree on (an error where any differs);
    pytrec_eval leaves out topics whose every grade is negative, as trec_eval's
    reference convention does not, so only the topics both score are compared."""
    names = dict(zip(OURS, ("map", "P_10", "ndcg_cut_10", "recip_rank"), strict=True))
    per_topic = ours[ours["topic"] != "all"]
    compared = 0
    for topic, measure, value in zip(
        per_topic["topic"], per_topic["measure"], per_topic["value"], strict=True
    ):
        if topic in theirs:
            other = theirs[topic][names[measure]]
            if abs(value - other) > 1e-9:
                raise SystemExit(f"topic {topic} {measure}: irscore {value}, pytrec_eval {other}")
            compared += 1
    if not compared:
        raise SystemExit("no value compared")
    return compared


def measured(topics: int, docs: int, repeat: int) -> dict:
    """The figures: each tool's times (interleaved, the first tool rotating) after a
    checked warm-up call of each."""
    import gc

    qrels, run = dicts(topics, docs, 42)
    timed = calls(qrels, run)
    warm = {name: call() for name, call in timed.items()}
    compared = checked(warm["irscore"], warm["pytrec_eval"])
    times: dict[str, list[float]] = {name: [] for name in timed}
    for i in range(repeat):
        for name in TOOLS[i % 3 :] + TOOLS[: i % 3]:
            gc.collect()
            start = time.perf_counter()
            timed[name]()
            times[name].append(time.perf_counter() - start)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=ROOT).stdout.strip()  # fmt: skip
    how = {"when": time.strftime("%Y-%m-%d", time.gmtime()), "commit": commit}
    how |= {"cores": os.cpu_count(), "repeat": repeat, "topics": topics, "docs": docs}
    return {"measured": how, "compared": compared, "times": times}


def rendered(figures: dict) -> str:
    """docs/speed.md's block: how it was measured and the one-row table."""
    how, times = figures["measured"], figures["times"]
    wall = {name: statistics.median(times[name]) for name in TOOLS}
    lines = [
        f"Measured {how['when']} at commit {how['commit']} on {how['cores']} cores by "
        f"`benchmarks/dicts.py --repeat {how['repeat']}` ({how['topics']:,} topics x "
        f"{how['docs']:,} documents, every docno distinct, 4 measures; medians of "
        f"{how['repeat']} interleaved calls after a warm-up call whose "
        f"{figures['compared']:,} values irscore and pytrec_eval agree on); the figures "
        "are in `benchmarks/dicts.json`.",
        "",
        "| irscore s | pytrec_eval s | ranx s | pytrec_eval / irscore | ranx / irscore | target |",
        "|---|---|---|---|---|---|",
    ]
    ratios = [wall["pytrec_eval"] / wall["irscore"], wall["ranx"] / wall["irscore"]]
    met = "met" if min(ratios) >= TARGET else "**not met**"
    cells = [f"{wall[name]:.3f}" for name in TOOLS] + [f"{r:.2f}x" for r in ratios]
    lines.append("| " + " | ".join([*cells, f">= {TARGET}x each: {met}"]) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--topics", type=int, default=1000)
    parser.add_argument("--docs-per-topic", type=int, default=1000)
    parser.add_argument("--out", type=Path, help="write the figures here as JSON")
    parser.add_argument("--docs", type=Path, help="write docs/speed.md's block from this JSON")
    args = parser.parse_args(argv)
    if args.docs:
        from speed_docs import written

        block = rendered(json.loads(args.docs.read_text()))
        PAGE.write_text(written(PAGE.read_text(), block, "dicts"))
        print(f"wrote {PAGE.relative_to(ROOT)}")
        return
    figures = measured(args.topics, args.docs_per_topic, args.repeat)
    print(rendered(figures), end="")
    if args.out:
        args.out.write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
