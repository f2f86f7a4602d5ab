"""irscore vs pytrec_eval on a seeded TREC-style collection: parse, evaluate, whole process.

Generates TOPICS x DOCS run lines with graded judgments, exact ties and
float32-only ties, writes them as TREC files, and measures in one run, side by
side, three things that are easy to conflate:

- parse: the two files into each tool's input (irscore's readers; pytrec_eval's
  own parse_qrel/parse_run), inside a fresh process, imports excluded;
- evaluate: that input to per-topic values of the same measures, inside the
  process, imports excluded;
- whole process: what a user waits for, imports and start-up included: a fresh
  `python -m irscore evaluate -m ...` printing the means, against a fresh Python
  process that imports pytrec_eval, parses with its functions, evaluates and
  prints the same means. Wall clock and peak RSS come from /usr/bin/time.

Then irscore's whole default convention grid (config.yaml) on one parse, and
whether every per-topic value agrees with pytrec_eval within 1e-9.

    .venv/bin/python benchmarks/evaluate_vs_pytrec_eval.py [--topics 1000 --docs 1000]
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytrec_eval
import yaml

from irscore.engine.evaluate import evaluate
from irscore.engine.measures import MeasureSpec
from irscore.engine.ranking.conventions import Convention, conventions_from_config
from irscore.engine.reading import trec
from irscore.pipeline.crosscheck import pytrec_measures

SPEC = MeasureSpec()
REQUESTS = sorted(pytrec_measures(SPEC))  # the measures both tools compute, as -m requests
CONFIG = Path(__file__).resolve().parents[1] / "config.yaml"
GRID = conventions_from_config(yaml.safe_load(CONFIG.read_text())["conventions"])
# pytrec_eval as a user's script runs it: import, parse, evaluate, print the means.
PYTREC_SCRIPT = """
import sys
import pytrec_eval
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
qrels = {t: q for t, q in qrels.items() if max(q.values()) >= 0}  # trec_eval 9 crashes on these
results = pytrec_eval.RelevanceEvaluator(qrels, set(sys.argv[3:])).evaluate(run)
names = sorted(next(iter(results.values())))
for name in names:
    values = [topic[name] for topic in results.values()]
    mean = pytrec_eval.compute_aggregated_measure(name, values)
    print(f"{name:<22}\\tall\\t{mean:.4f}")
"""


def generate(
    folder: Path, topics: int, docs: int, seed: int, distinct: bool = False
) -> tuple[Path, Path]:
    """Write a seeded run (with ties) and graded qrels; return their paths. Docnos
    come from a pool of 21 x docs shared by every topic, or with `distinct` are
    all different (each topic draws from its own pool)."""
    rng = np.random.default_rng(seed)
    topic = np.repeat(np.arange(1, topics + 1), docs).astype(str)
    doc = rng.integers(0, 20 * docs, size=(topics, docs))
    doc = np.sort(doc, axis=1)  # unique per topic after the next line
    doc = doc + np.arange(docs)  # strictly increasing, so no duplicate docno in a topic
    if distinct:
        doc += 21 * docs * np.arange(topics)[:, None]
    score = np.round(rng.gamma(2.0, 2.0, size=(topics, docs)), 2)  # many exact ties
    score[:, ::7] += 1e-9  # float32-equal, float64-different
    rank = np.argsort(np.argsort(-score, axis=1), axis=1) + 1
    run = pd.DataFrame(
        {
            "topic": topic,
            "docno": np.char.add("D", doc.reshape(-1).astype(str)),
            "rank": rank.reshape(-1),
            "score": score.reshape(-1),
            "tag": "bench",
        }
    )
    run_path = folder / "bench.run"
    trec.write_run(run_path, run)
    judged = rng.random(topics * docs) < 0.1
    grades = rng.choice([-1, 0, 0, 1, 2, 3], size=int(judged.sum()))
    qrels = pd.DataFrame(
        {"topic": topic[judged], "docno": run["docno"].to_numpy()[judged], "grade": grades}
    )
    qrels_path = folder / "bench.qrels"
    trec.write_qrels(qrels_path, qrels)
    return qrels_path, run_path


def irscore_parse(qrels_path: Path, run_path: Path):
    return trec.read_qrels(qrels_path), trec.read_run(run_path)


def pytrec_parse(qrels_path: Path, run_path: Path):
    with open(qrels_path) as qrels_file, open(run_path) as run_file:
        return pytrec_eval.parse_qrel(qrels_file), pytrec_eval.parse_run(run_file)


def irscore_evaluate(parsed) -> pd.DataFrame:
    qrels, run = parsed
    return evaluate(qrels, run, [Convention()], SPEC)


def pytrec_evaluate(parsed) -> dict:
    qrels, run = parsed
    comparable = {t: q for t, q in qrels.items() if max(q.values()) >= 0}
    return pytrec_eval.RelevanceEvaluator(comparable, set(REQUESTS)).evaluate(run)


def grid_evaluate(parsed) -> pd.DataFrame:
    qrels, run = parsed
    return evaluate(qrels, run, GRID, SPEC)


# (untimed setup, timed step) per in-process task; setup output feeds the step
TASKS = {
    "irscore parse": (lambda q, r: (q, r), lambda args: irscore_parse(*args)),
    "pytrec_eval parse": (lambda q, r: (q, r), lambda args: pytrec_parse(*args)),
    "irscore evaluate": (irscore_parse, irscore_evaluate),
    "pytrec_eval evaluate": (pytrec_parse, pytrec_evaluate),
    "irscore evaluate, grid": (irscore_parse, grid_evaluate),
}


def _child(task: str, qrels_path: Path, run_path: Path, keep: bool, out) -> None:
    """Set a task up, then time its step once, in this fresh process."""
    setup, step = TASKS[task]
    prepared = setup(qrels_path, run_path)
    gc.collect()
    start = time.perf_counter()
    result = step(prepared)
    out.put((time.perf_counter() - start, result if keep else None))


def in_process(task: str, qrels_path: Path, run_path: Path, keep: bool = False):
    """(seconds, result if `keep`) of one task, in a fresh spawned process."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=_child, args=(task, qrels_path, run_path, keep, queue))
    process.start()
    outcome = queue.get()
    process.join()
    return outcome


def whole_process(command: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB) of one fresh process, from /usr/bin/time."""
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%e %M", *command],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=True,
    )
    seconds, kib = done.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(kib) / 1024


def agreement(ours: pd.DataFrame, theirs: dict) -> tuple[int, int]:
    """(values compared, values differing by more than 1e-9)."""
    mine = ours[ours["topic"] != "all"].set_index(["topic", "measure"])["value"]
    compared = differing = 0
    for topic, values in theirs.items():
        for name, value in values.items():
            if name in ("gm_map", "gm_bpref"):  # log scale per topic in pytrec_eval
                continue
            compared += 1
            mine_value = mine.get((topic, name), np.nan)
            if not (abs(mine_value - value) <= 1e-9 or (np.isnan(mine_value) and np.isnan(value))):
                differing += 1
    return compared, differing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=1000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        qrels_path, run_path = generate(folder, args.topics, args.docs, args.seed)
        (folder / "pytrec_eval_script.py").write_text(PYTREC_SCRIPT)
        lines = args.topics * args.docs
        print(f"collection: {args.topics} topics x {args.docs} documents = {lines:,} run lines")
        print(f"measures: {len(REQUESTS)} -m requests ({', '.join(REQUESTS)})")
        print(f"best of {args.repeat} rounds, each round every task in turn; seconds")
        keep = {"irscore evaluate", "pytrec_eval evaluate"}
        ours_cmd = [sys.executable, "-m", "irscore", "evaluate"]
        ours_cmd += [flag for request in REQUESTS for flag in ("-m", request)]
        ours_cmd += [str(qrels_path), str(run_path)]
        theirs_cmd = [sys.executable, str(folder / "pytrec_eval_script.py")]
        theirs_cmd += [str(qrels_path), str(run_path), *REQUESTS]
        commands = {"irscore whole": ours_cmd, "pytrec_eval whole": theirs_cmd}
        # interleaved rounds, so that both tools meet the same machine load
        rounds: dict[str, list] = {name: [] for name in [*TASKS, *commands]}
        results: dict[str, object] = {}
        for _ in range(args.repeat):
            for task in TASKS:
                seconds, result = in_process(task, qrels_path, run_path, task in keep)
                rounds[task].append(seconds)
                results[task] = result
            for name, command in commands.items():
                rounds[name].append(whole_process(command))
        timed = {task: min(rounds[task]) for task in TASKS}
        ours_whole, theirs_whole = min(rounds["irscore whole"]), min(rounds["pytrec_eval whole"])

        print(f"{'':40s} {'irscore':>9s} {'pytrec_eval':>12s} {'pytrec_eval / irscore':>22s}")
        for stage in ("parse", "evaluate"):
            ours = timed[f"irscore {stage}"]
            theirs = timed[f"pytrec_eval {stage}"]
            label = f"{stage} (in process, imports excluded)"
            print(f"{label:40s} {ours:9.3f} {theirs:12.3f} {theirs / ours:21.2f}x")
        label = "whole process (imports included)"
        ratio = theirs_whole[0] / ours_whole[0]
        print(f"{label:40s} {ours_whole[0]:9.3f} {theirs_whole[0]:12.3f} {ratio:21.2f}x")
        print(f"{'whole process, peak RSS MiB':40s} {ours_whole[1]:9.0f} {theirs_whole[1]:12.0f}")
        one, everything = timed["irscore evaluate"], timed["irscore evaluate, grid"]
        print(
            f"irscore evaluate, default grid ({len(GRID)} conventions): {everything:.3f} s, "
            f"{everything / one:.2f}x one convention"
        )
        compared, differing = agreement(
            results["irscore evaluate"], results["pytrec_eval evaluate"]
        )
        print(f"values compared: {compared:,}; differing by more than 1e-9: {differing}")


if __name__ == "__main__":
    main()
