"""irscore vs pytrec_eval on a seeded TREC-style collection, measured in one run.

Generates TOPICS x DOCS run lines with graded judgments, exact ties and
float32-only ties, writes them as TREC files, then times each tool from the
files to per-topic values (parsing included) and reports peak memory, side
by side, and whether every value agrees within 1e-9; then the whole default
convention grid of config.yaml on one parse. Each tool runs in a fresh
process, so peak resident memory is measured, C allocations included.

    .venv/bin/python benchmarks/evaluate_vs_pytrec_eval.py [--topics 1000 --docs 1000]
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytrec_eval
import yaml

from irscore import trec
from irscore.conventions import Convention, conventions_from_config
from irscore.crosscheck import pytrec_measures
from irscore.evaluate import evaluate
from irscore.measures import MeasureSpec

SPEC = MeasureSpec()
CONFIG = Path(__file__).resolve().parents[1] / "config.yaml"
GRID = conventions_from_config(yaml.safe_load(CONFIG.read_text())["conventions"])


def generate(folder: Path, topics: int, docs: int, seed: int) -> tuple[Path, Path]:
    """Write a seeded run (with ties) and graded qrels; return their paths."""
    rng = np.random.default_rng(seed)
    topic = np.repeat(np.arange(1, topics + 1), docs).astype(str)
    doc = rng.integers(0, 20 * docs, size=(topics, docs))
    doc = np.sort(doc, axis=1)  # unique per topic after the next line
    doc = doc + np.arange(docs)  # strictly increasing, so no duplicate docno in a topic
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


def _high_water_kib() -> int:
    """This process's peak resident memory (VmHWM; unlike ru_maxrss, not inherited over exec)."""
    status = Path("/proc/self/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("VmHWM:")).split()[1])


def _child(task: str, qrels_path: Path, run_path: Path, repeat: int, out) -> None:
    """Run one task `repeat` times in a fresh process; report best time, peak RSS growth, result."""
    baseline = _high_water_kib()
    fn = TASKS[task]
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = fn(qrels_path, run_path)
        times.append(time.perf_counter() - start)
    peak = _high_water_kib()
    out.put((min(times), (peak - baseline) / 1024, result))


def measure(task: str, qrels_path: Path, run_path: Path, repeat: int):
    """(best seconds, peak resident MiB above the idle process, result) of a task."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=_child, args=(task, qrels_path, run_path, repeat, queue))
    process.start()
    outcome = queue.get()
    process.join()
    return outcome


def irscore_reference(qrels_path: Path, run_path: Path) -> pd.DataFrame:
    return evaluate(trec.read_qrels(qrels_path), trec.read_run(run_path), [Convention()], SPEC)


def pytrec(qrels_path: Path, run_path: Path) -> dict:
    """pytrec_eval as people use it: parse the files into dicts, then evaluate."""
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
    comparable = {t: q for t, q in qrels.items() if max(q.values()) >= 0}
    evaluator = pytrec_eval.RelevanceEvaluator(comparable, pytrec_measures(SPEC))
    return evaluator.evaluate(run)


def grid(qrels_path: Path, run_path: Path) -> pd.DataFrame:
    """irscore: one parse, then every convention of the default config.yaml."""
    return evaluate(trec.read_qrels(qrels_path), trec.read_run(run_path), GRID, SPEC)


TASKS = {"pytrec_eval": pytrec, "irscore": irscore_reference, "grid": grid}
LABELS = {
    "pytrec_eval": "pytrec_eval (parse + evaluate)",
    "irscore": "irscore, reference convention",
    "grid": f"irscore, default grid ({len(GRID)} conventions)",
}


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
    with tempfile.TemporaryDirectory() as folder:
        qrels_path, run_path = generate(Path(folder), args.topics, args.docs, args.seed)
        lines = args.topics * args.docs
        print(f"collection: {args.topics} topics x {args.docs} documents = {lines:,} run lines")
        results = {task: measure(task, qrels_path, run_path, args.repeat) for task in TASKS}
        base = results["pytrec_eval"][0]
        print(f"{'':44s} {'time (s)':>9s} {'pytrec_eval / it':>17s} {'peak RSS MiB':>13s}")
        for task, (seconds, peak, _) in results.items():
            print(f"{LABELS[task]:44s} {seconds:9.3f} {base / seconds:16.2f}x {peak:13.1f}")
        one, everything = results["irscore"][0], results["grid"][0]
        print(f"grid / one convention: {everything / one:.2f}x for {len(GRID)} conventions")
        ours, theirs = results["irscore"][2], results["pytrec_eval"][2]
        compared, differing = agreement(ours, theirs)
        print(f"values compared: {compared:,}; differing by more than 1e-9: {differing}")


if __name__ == "__main__":
    main()
