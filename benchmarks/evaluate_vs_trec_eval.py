"""Whole-process `irscore evaluate` vs trec_eval 9.0.8 vs pytrec_eval, side by side.

Generates seeded TREC inputs (1000 documents per topic from a collection of a
million, scores with ties, 200 graded judgments per topic) at 10k, 1M and 10M
run lines, plus MS MARCO v2-style docnos (`msmarco_doc_00_4736`) and a run with
a comment line before every topic. Each tool runs as its own process on the
same files with the same measures, repeats interleaved; the table gives median
wall time, the ratios and peak resident memory (from the child's rusage), with
the start-up of each process included, as a user waits for it. Last, it checks
that `irscore evaluate -q -m all_trec` prints what trec_eval prints, byte for
byte, on the 1M and 10M inputs. irscore's modules are compiled to bytecode
first, as pip installs a package (under PYTHONDONTWRITEBYTECODE every process
would otherwise compile them at start: about 30 ms).

    .venv/bin/python benchmarks/evaluate_vs_trec_eval.py [--quick] [--trec-eval PATH]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
from measuring import (
    IRSCORE,
    TREC_EVAL_DEFAULT,
    ToolFailed,
    compile_irscore,
    difference,
    interleaved,
    pytrec_command,
)

MEASURES = ["map", "P", "recall", "ndcg", "ndcg_cut", "Rprec", "recip_rank", "bpref"]
COLLECTION = 1_000_000
DOCS_PER_TOPIC = 1000
JUDGED = 200  # per topic: 120 retrieved, 80 not


def docnames(ids: np.ndarray, style: str) -> np.ndarray:
    """Docnos for integer ids: `D123` or MS MARCO v2's `msmarco_doc_NN_OFFSET`."""
    if style == "plain":
        return np.char.add("D", ids.astype(str))
    shard = np.char.zfill((ids % 60).astype(str), 2)
    offset = (ids // 60 * 48271 + 17).astype(str)  # distinct for distinct ids
    return np.char.add(np.char.add(np.char.add("msmarco_doc_", shard), "_"), offset)


def generate(folder: Path, topics: int, style: str, comments: bool, seed: int = 7) -> tuple:
    """Write one run and its qrels (seeded); return their paths."""
    suffix = f"{topics * DOCS_PER_TOPIC}.{style}"
    run_path = folder / f"run.{suffix}{'.comments' if comments else ''}"
    qrels_path = folder / f"qrels.{suffix}"
    rng = np.random.default_rng(seed)
    with open(run_path, "w") as run, open(qrels_path, "w") as qrels:
        for first in range(1, topics + 1, 100):
            n = min(100, topics + 1 - first)
            ids = np.sort(rng.integers(0, COLLECTION - DOCS_PER_TOPIC, (n, DOCS_PER_TOPIC)), 1)
            ids += np.arange(DOCS_PER_TOPIC)  # distinct within a topic
            score = np.round(rng.gamma(2.0, 2.0, (n, DOCS_PER_TOPIC)), 3)  # many ties
            order = np.argsort(-score, axis=1, kind="stable")
            ids, score = np.take_along_axis(ids, order, 1), np.take_along_axis(score, order, 1)
            names = docnames(ids.reshape(-1), style)
            for i in range(n):
                topic = first + i
                rows = slice(i * DOCS_PER_TOPIC, (i + 1) * DOCS_PER_TOPIC)
                ranks = np.arange(1, DOCS_PER_TOPIC + 1).astype(str)
                lines = np.char.add(np.char.add(f"{topic} Q0 ", names[rows]), " ")
                lines = np.char.add(
                    np.char.add(np.char.add(lines, ranks), " "), score[i].astype(str)
                )
                if comments:
                    run.write(f"# topic {topic}: {DOCS_PER_TOPIC} documents\n")
                run.write(" bench\n".join(lines.tolist()) + " bench\n")
                retrieved = rng.choice(DOCS_PER_TOPIC, 120, replace=False)
                other = COLLECTION + rng.choice(COLLECTION, JUDGED - 120, replace=False)
                judged = np.concatenate((names[rows][retrieved], docnames(other, style)))
                grades = rng.choice([0, 0, 0, 1, 2, 3], JUDGED).astype(str)
                qrels.write(
                    "".join(f"{topic} 0 {d} {g}\n" for d, g in zip(judged, grades, strict=True))
                )
    return qrels_path, run_path


def commands(trec_eval: str | None, qrels: Path, run: Path, pytrec: bool) -> dict:
    """The command of each tool for one input."""
    flags = [f"-m{m}" for m in MEASURES]
    tools = {"irscore": [*IRSCORE, *flags, str(qrels), str(run)]}
    if trec_eval:
        tools["trec_eval"] = [trec_eval, *flags, str(qrels), str(run)]
    if pytrec:
        tools["pytrec_eval"] = pytrec_command(qrels, [run], MEASURES)
    return tools


def same_output(trec_eval: str, qrels: Path, run: Path) -> str:
    """'identical', or which measures' lines differ between irscore and trec_eval
    under `-q -m all_trec`."""
    ours, theirs = (
        subprocess.run(
            [*tool, "-q", "-m", "all_trec", str(qrels), str(run)], capture_output=True, check=True
        ).stdout
        for tool in (IRSCORE, [trec_eval])
    )
    differs = difference(ours, theirs)
    if differs is None:
        return f"byte-identical ({len(theirs.splitlines()):,} lines)"
    return f"DIFFERENT: {differs}"


def cases(folder: Path, quick: bool) -> list[tuple[str, str, Path, Path, int]]:
    """(label, kind, qrels, run, run lines) of every input: plain docnos at each size,
    then MS MARCO docnos and comment lines at the middle size."""
    sizes = [10, 100] if quick else [10, 1000, 10000]  # topics
    middle = sizes[1]
    out = []
    for topics in sizes:
        lines = topics * DOCS_PER_TOPIC
        qrels, run = generate(folder, topics, "plain", False)
        out.append((f"{lines:,} lines", "plain", qrels, run, lines))
        if topics == middle:
            marco = generate(folder, topics, "msmarco", False)
            out.append((f"{lines:,} lines, MS MARCO docnos", "msmarco", *marco, lines))
            commented = generate(folder, topics, "plain", True)[1]
            out.append((f"{lines:,} lines, comment lines", "comments", qrels, commented, lines))
    return out


def measure(tools: dict[str, list[str]], repeat: int) -> tuple[dict, dict]:
    """Median wall seconds and largest peak MiB of each tool, repeats interleaved."""
    try:
        samples = interleaved(tools, repeat)
    except ToolFailed as failed:
        raise SystemExit(str(failed)) from None
    return (
        {tool: s.wall for tool, s in samples.items()},
        {tool: s.peak for tool, s in samples.items()},
    )


def row(label: str, median: dict, peak: dict) -> str:
    """One line of the table."""
    te, py, ir = median.get("trec_eval"), median.get("pytrec_eval"), median["irscore"]
    cells = [f"{label:34s}", f"{ir:8.2f}", f"{te:8.2f}" if te else f"{'-':>8s}"]
    cells.append(f"{py:8.2f}" if py else f"{'-':>8s}")
    cells += [
        f"{ir / te:7.2f}x" if te else f"{'-':>8s}",
        f"{ir / py:7.2f}x" if py else f"{'-':>8s}",
    ]
    memory = [
        f"{peak[t]:.0f}" if t in peak else "-" for t in ("irscore", "trec_eval", "pytrec_eval")
    ]
    return " ".join(cells) + "  " + " : ".join(memory)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trec-eval", default=shutil.which("trec_eval") or TREC_EVAL_DEFAULT)
    parser.add_argument("--quick", action="store_true", help="10k and 100k lines only")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--folder", help="keep the generated inputs here (default: a temp dir)")
    parser.add_argument("--no-pytrec-10m", action="store_true", help="skip pytrec_eval at 10M")
    args = parser.parse_args()
    trec_eval = args.trec_eval if Path(args.trec_eval).exists() else None
    compile_irscore()
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(args.folder or temporary)
        folder.mkdir(parents=True, exist_ok=True)
        inputs = cases(folder, args.quick)
        print(f"measures: {' '.join(MEASURES)}; medians of {args.repeat} interleaved repeats")
        print(f"trec_eval: {trec_eval}; pytrec_eval: parse in Python + evaluate")
        print(
            f"{'input':34s} {'irscore':>8s} {'trec_eval':>8s} {'pytrec':>8s} {'ir/te':>8s} "
            f"{'ir/py':>8s}  peak MiB ir : te : py"
        )
        plain = {}
        for label, kind, qrels, run, lines in inputs:
            pytrec = not (args.no_pytrec_10m and lines >= 10_000_000)
            peer = None if kind == "comments" else trec_eval  # trec_eval refuses `#` lines
            median, peak = measure(commands(peer, qrels, run, pytrec), args.repeat)
            print(row(label, median, peak), flush=True)
            if kind == "plain":
                plain[lines] = (median["irscore"], peak["irscore"])
                continue
            wall, memory = plain[lines]
            print(
                f"{'':34s} irscore / plain docnos: {median['irscore'] / wall:.2f}x wall, "
                f"{peak['irscore'] / memory:.2f}x peak memory"
            )
        for label, kind, qrels, run, lines in inputs:
            if trec_eval and lines >= 100_000 and kind == "plain":
                print(f"-q -m all_trec, {label}: {same_output(trec_eval, qrels, run)}")


if __name__ == "__main__":
    main()
