"""irscore's diversity measures against NIST's ndeval binary, on generated collections.

ndeval.c is not part of the repository; pyndeval's source distribution carries it:

    pip download pyndeval==0.0.8 --no-binary :all: --no-deps -d /tmp/pyndeval-src
    tar xzf /tmp/pyndeval-src/pyndeval-0.0.8.tar.gz -C /tmp/pyndeval-src
    gcc -O2 -o /tmp/ndeval /tmp/pyndeval-src/pyndeval-0.0.8/src/ndeval.c -lm
    .venv/bin/python benchmarks/diversity_vs_ndeval.py /tmp/ndeval

Each of ndeval's three orders is compared with the irscore convention that
ranks the same way, per topic and for the mean (ndeval's `amean`), on the
measures both compute; ndeval prints 6 decimals, so the differences should be
at most 5e-7.
"""

from __future__ import annotations

import csv
import io
import random
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import irscore

# ndeval's flags -> the irscore convention ranking as they do
ORDERS = {
    "(rank column)": ([], {"mistake": "rank_column_trusted"}),
    "-traditional": (["-traditional"], {"score_precision": "float64"}),
    "-traditional -c": (
        ["-traditional", "-c"],
        {"score_precision": "float64", "topics": "all_qrels"},
    ),
}
NAMES = {
    "alpha_ndcg": "alpha-nDCG@{}",
    "err_ia": "ERR-IA@{}",
    "p_ia": "P-IA@{}",
    "strec": "strec@{}",
}


def collection(seed: int) -> tuple[str, str]:
    """A subtopic qrels and a run (numeric topics and subtopics, as ndeval reads them)."""
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(rng.randint(5, 40))]
    qrels, run = [], []
    for topic in range(1, rng.randint(3, 8)):
        subtopics = range(1, rng.randint(2, 7))
        for doc in rng.sample(docs, rng.randint(1, len(docs))):
            for s in rng.sample(list(subtopics), rng.randint(1, len(subtopics))):
                qrels.append(f"{topic} {s} {doc} {rng.choice([0, 0, 1, 2])}\n")
        if rng.random() < 0.85:  # a judged topic without results now and then
            for rank, doc in enumerate(rng.sample(docs, rng.randint(1, len(docs))), 1):
                run.append(f"{topic} Q0 {doc} {rank} {rng.choice([0.5, 1, 1.5, 2, 3])} run\n")
    return "".join(qrels), "".join(run) or "1 Q0 d0 1 1 run\n"


def main(ndeval: str, seeds: int = 30) -> None:
    folder = Path(tempfile.mkdtemp(prefix="irscore-ndeval-"))
    for label, (flags, convention) in ORDERS.items():
        worst, compared = 0.0, 0
        for seed in range(seeds):
            qrels, run = collection(seed)
            (folder / "q").write_text(qrels)
            (folder / "r").write_text(run)
            printed = subprocess.run(
                [ndeval, *flags, str(folder / "q"), str(folder / "r")],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            theirs = {row["topic"]: row for row in csv.DictReader(io.StringIO(printed))}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # topics without results, and such
                table = irscore.evaluate(
                    folder / "q", folder / "r", [*NAMES, "nrbp"], convention=convention
                )
            for topic, measure, value in zip(
                table["topic"], table["measure"], table["value"], strict=True
            ):
                row = theirs.get("amean" if topic == "all" else topic)
                if row is None:
                    continue
                family, _, k = measure.rpartition("_")
                name = "NRBP" if measure == "nrbp" else NAMES[family].format(k)
                worst = max(worst, abs(float(row[name]) - value))
                compared += 1
        print(f"ndeval {label}: {compared} values, largest difference {worst:.1e}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "ndeval")
