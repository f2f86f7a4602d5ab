"""The shape matrix: irscore, trec_eval 9.0.8 and pytrec_eval on the shapes people evaluate.

Generates seeded inputs in the shapes of real collections (shape_inputs.py)
into a temporary folder. For each shape it first checks that `irscore
evaluate` prints trec_eval's bytes for `-q -m all_trec` and for `-c -m
official` (for several runs: the concatenation of one trec_eval per run), then
times the three tools as whole processes on `-q -m all_trec` (pytrec_eval:
parse in Python + RelevanceEvaluator on `all_trec`, in one process), medians
of interleaved repeats, peak resident memory from the child's rusage. Each row
says whether the targets of issue 21 (speed: irscore / trec_eval wall; memory:
against trec_eval's peak) are met. Then the Python API part (shapes_api.py).
The output is a Markdown table; --out writes every figure as JSON.

    .venv/bin/python benchmarks/shapes.py [--quick] [--only marco100,dl,...] [--repeat 3]
        [--trec-eval PATH] [--out results.json] [--no-api]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import v2_ratio
from measuring import (
    IRSCORE,
    TREC_EVAL_DEFAULT,
    Samples,
    ToolFailed,
    compile_irscore,
    difference,
    interleaved,
    pytrec_command,
    settle_libraries,
)

if TYPE_CHECKING:
    from shape_inputs import Inputs

CHECKS = (["-q", "-m", "all_trec"], ["-c", "-m", "official"])
TIMED = ["-q", "-m", "all_trec"]


@dataclass(frozen=True)
class Memory:
    """A memory target (issue 21 item 4): the most irscore's peak may be, from trec_eval's."""

    label: str
    limit: Callable[[float], float]


PLUS_100 = Memory("<= te + 100 MiB", lambda te: te + 100)  # below 1M lines
TIMES_06 = Memory("<= 0.6x te", lambda te: 0.6 * te)  # at 7M lines and more
# Issue 48: inputs bounded by Python's start-up stay where they are, without a compiled
# extension or a resident process (issue 21 had 3x and 0.9x).
SMALL = 3.5  # TREC DL and BEIR
ROBUST04 = 1.3
FLAT_600 = Memory("<= 600 MiB", lambda te: 600)  # issue 48: streamed by topic, or runs one by one


@dataclass(frozen=True)
class Shape:
    """One row of the matrix: how to build its inputs (full size or --quick), its
    speed target (irscore / trec_eval wall, issue 21 item 3) and memory target."""

    name: str
    label: str
    build: Callable[[Path, bool], Inputs]
    speed: float
    memory: Memory | None


def _generators() -> ModuleType:
    """shape_inputs, imported when the first input is built: it loads numpy and
    pyarrow, and `settle_libraries` cannot drop pages that this process maps."""
    import shape_inputs

    return shape_inputs


def _synthetic(topics: int) -> Callable[[Path, bool], Inputs]:
    """evaluate_vs_trec_eval.py's input of `topics` x 1,000 (a tenth with --quick)."""

    def build(folder: Path, quick: bool) -> Inputs:
        from evaluate_vs_trec_eval import generate

        n = max(topics // 100, 1) if quick else topics
        qrels, run = folder / f"qrels.{n * 1000}.plain", folder / f"run.{n * 1000}.plain"
        if not (qrels.exists() and run.exists()):  # kept in --folder: 30M lines take minutes
            qrels, run = generate(folder, n, "plain", False)
        return _generators().Inputs(qrels, [run], n * 1000)

    return build


def _unsorted(topics: int) -> Callable[[Path, bool], Inputs]:
    """`_synthetic`'s input with its run's lines shuffled (seeded): no topic's lines
    are together, so a reader that streams by topic must spill."""

    def build(folder: Path, quick: bool) -> Inputs:
        inputs = _synthetic(topics)(folder, quick)
        shuffled = inputs.runs[0].with_suffix(".shuffled")
        if not shuffled.exists():
            shuffle_lines(inputs.runs[0], shuffled)
        return _generators().Inputs(inputs.qrels, [shuffled], inputs.lines)

    return build


def shuffle_lines(source: Path, target: Path, seed: int = 41) -> None:
    """Write `source`'s lines to `target` in a seeded random order (one pass of numpy
    over the bytes: the line starts, permuted, gathered a slice at a time)."""
    import numpy as np

    data = np.fromfile(source, np.uint8)
    ends = np.flatnonzero(data == 10) + 1
    starts = np.r_[0, ends[:-1]]
    order = np.random.default_rng(seed).permutation(len(ends))
    with open(target, "wb") as out:
        for first in range(0, len(order), 1 << 20):
            rows = order[first : first + (1 << 20)]
            lengths = ends[rows] - starts[rows]
            at = np.repeat(starts[rows] - np.r_[0, np.cumsum(lengths)[:-1]], lengths)
            out.write(data[at + np.arange(int(lengths.sum()))].tobytes())


def _marco(top: int, v2: bool = False) -> Callable[[Path, bool], Inputs]:
    """MS MARCO passage dev, its top-100 or top-1,000 run (both written at once); `v2`:
    the same with MS MARCO v2's long docnos."""
    name = "marco_v2" if v2 else "marco"

    def build(folder: Path, quick: bool) -> Inputs:
        if not (folder / f"{name}.top{top}.run").exists():
            _generators().marco(folder, 70 if quick else 6980, v2=v2)
        qrels, run = folder / f"{name}.qrels", folder / f"{name}.top{top}.run"
        return _generators().Inputs(qrels, [run], (70 if quick else 6980) * top)

    return build


SHAPES = [
    # Speed: 698k lines is 2k short of the 700k band (0.5x), so Robust04's (0.9x).
    # Memory: 6.98M lines is the '7M'; 1M and 2M lines have no target;
    # the 100 runs are read one at a time, each of 43k lines.
    Shape("marco100", "MS MARCO passage dev, top 100", _marco(100), 0.9, PLUS_100),
    Shape("marco1000", "MS MARCO passage dev, top 1,000", _marco(1000), 0.4, TIMES_06),
    # issue 48 item 5: at most 1.15x marco1000's irscore time (`v2_ratio`)
    Shape(
        "marco1000v2",
        "MS MARCO passage dev, top 1,000, v2 docnos (msmarco_passage_03_1009)",
        _marco(1000, v2=True),
        0.4,
        TIMES_06,
    ),
    Shape(
        "dl",
        "TREC DL 2019 (43 x 1,000, graded 0-3)",
        lambda f, q: _generators().trec_dl(f, 1, 5 if q else 43),
        SMALL,
        PLUS_100,
    ),
    Shape(
        "robust04",
        "Robust04 (249 x 1,000, newswire docnos)",
        lambda f, q: _generators().robust04(f, 10 if q else 249),
        ROBUST04,
        PLUS_100,
    ),
    Shape(
        "beir",
        "BEIR-style (string qids, unsorted lines)",
        lambda f, q: _generators().beir(f, 40 if q else 300),
        SMALL,
        PLUS_100,
    ),
    Shape(
        "one_document",
        "100,000 queries x 1 document",
        lambda f, q: _generators().one_document(f, 1000 if q else 100_000),
        0.1,
        PLUS_100,
    ),
    Shape(
        "one_topic",
        "one topic of 2M documents",
        lambda f, q: _generators().one_topic(f, 20_000 if q else 2_000_000),
        0.5,
        None,
    ),
    Shape("synthetic1m", "synthetic 1,000 x 1,000", _synthetic(1000), 0.5, None),
    Shape(
        "synthetic10m", "synthetic 10,000 x 1,000 (10M lines)", _synthetic(10_000), 0.5, TIMES_06
    ),
    Shape("synthetic3m", "synthetic 3,000 x 1,000 (3M lines)", _synthetic(3000), 0.5, None),
    Shape(
        "synthetic30m",
        "synthetic 30,000 x 1,000 (30M lines)",
        _synthetic(30_000),
        0.4,
        FLAT_600,
    ),
    Shape(
        "unsorted10m",
        "synthetic 10,000 x 1,000, lines shuffled (10M)",
        _unsorted(10_000),
        0.5,
        FLAT_600,
    ),
    Shape(
        "dl100runs",
        "100 TREC DL runs, one call vs a trec_eval loop",
        lambda f, q: _generators().trec_dl(f, 5 if q else 100, 5 if q else 43),
        0.3,
        PLUS_100,
    ),
    Shape(
        "dl1000runs",
        "1,000 TREC DL runs of 43 x 200, one call vs a trec_eval loop",
        lambda f, q: _generators().trec_dl(f, 10 if q else 1000, 5 if q else 43, depth=200),
        0.3,
        FLAT_600,  # issue 48 item 3: a thousand runs within item 1's bound
    ),
]


# What `irscore evaluate` pays before it reads a byte, step by step (OpenBLAS held to
# one thread, as the command line holds it): on small plain files (`plain_evaluate`),
# Python and the second step; on the others, Python and the last two.
_BLAS = "import os; os.environ.setdefault('OPENBLAS_NUM_THREADS', '1'); "
FLOOR = {
    "Python": [sys.executable, "-c", "pass"],
    "+ the small-file path's modules (no numpy)": [
        sys.executable,
        "-c",
        "import irscore.cli.evaluate, irscore.engine.small.plain_evaluate",
    ],
    "+ numpy and pyarrow": [sys.executable, "-c", _BLAS + "import numpy, pyarrow, pyarrow.csv"],
    "+ irscore's modules": [
        sys.executable,
        "-c",
        _BLAS
        + "import irscore.cli.evaluate, irscore.engine.evaluate, irscore.engine.reading.trec, "
        "irscore.engine.output.trec_eval_text, irscore.engine.measures.groups",
    ],
}


FLOOR_SHAPE = "dl"  # whose rounds the floor is timed in: the shape it explains, same load


def floor(samples: dict[str, Samples], shape: str | None) -> dict:
    """The start-up floor from `FLOOR`'s samples: each step's walls, median and largest
    peak, and the shape whose rounds they were timed in (None: on their own)."""
    steps = {
        step: {"walls": s.walls, "wall": s.wall, "peak": s.peak} for step, s in samples.items()
    }
    return {"shape": shape, "steps": steps}


def floor_line(floor: dict) -> str:
    """The start-up floor as one sentence."""
    steps = floor["steps"]
    cells = [f"{step} {f['wall']:.3f} s, {f['peak']:.0f} MiB" for step, f in steps.items()]
    times = min(len(f["walls"]) for f in steps.values())
    where = f"timed in the rounds of `{floor['shape']}`" if floor["shape"] else "timed alone"
    where += f", medians of {times}"
    return f"Start-up before any input is read ({where}): " + "; ".join(cells) + "."


def trec_eval_command(
    trec_eval: str, flags: list[str], inputs: Inputs, heads: bool = False
) -> list[str]:
    """trec_eval on every run of `inputs`: itself for one run, a shell loop for more.
    `heads`: each run's block starts with `trec_eval -m runid`'s line, as irscore's
    blocks do for several runs under -q (their own runid line closes them)."""
    if len(inputs.runs) == 1:
        return [trec_eval, *flags, str(inputs.qrels), str(inputs.runs[0])]
    head = '"$te" -m runid "$q" "$r" && ' if heads and "-q" in flags else ""
    loop = 'te=$1; q=$2; shift 2; for r in "$@"; do ' + head + '"$te" ' + " ".join(flags)
    loop += ' "$q" "$r" || exit 1; done'
    return ["sh", "-c", loop, "sh", trec_eval, str(inputs.qrels), *map(str, inputs.runs)]


def irscore_command(flags: list[str], inputs: Inputs) -> list[str]:
    """One `irscore evaluate` over every run of `inputs`."""
    return [*IRSCORE, *flags, str(inputs.qrels), *map(str, inputs.runs)]


def printed(command: list[str], out: Path) -> str | None:
    """Run a command with its output into `out`; None, or why it failed."""
    with open(out, "wb") as handle:
        done = subprocess.run(command, stdout=handle, stderr=subprocess.PIPE)
    if done.returncode == 0:
        return None
    tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
    return f"exit {done.returncode}: {tail[0][:200]}"


def identity(trec_eval: str, inputs: Inputs, folder: Path) -> dict[str, str]:
    """For each checked flag set: 'identical', 'DIFFERENT: ...' or who crashed."""
    verdicts = {}
    for flags in CHECKS:
        ours, theirs = folder / "irscore.out", folder / "trec_eval.out"
        crashed = printed(irscore_command(flags, inputs), ours)
        failed = printed(trec_eval_command(trec_eval, flags, inputs, heads=True), theirs)
        if crashed:
            verdict = f"irscore crashed ({crashed})"
        elif failed:
            verdict = f"trec_eval failed ({failed})"
        else:
            differs = difference(ours.read_bytes(), theirs.read_bytes())
            verdict = "identical" if differs is None else f"DIFFERENT: {differs}"
        verdicts[" ".join(flags)] = verdict
        ours.unlink()
        theirs.unlink()
    return verdicts


def measured(tools: dict[str, list[str]], repeat: int) -> tuple[dict[str, Samples], dict]:
    """Interleaved samples of every tool that runs; a failing tool is left out and
    its failure returned."""
    failures: dict[str, str] = {}
    while tools:
        try:
            return interleaved(tools, repeat), failures
        except ToolFailed as failed:
            failures[failed.tool] = str(failed)
            tools = {name: c for name, c in tools.items() if name != failed.tool}
    return {}, failures


def evaluate_shape(shape: Shape, inputs: Inputs, trec_eval: str | None, args, folder) -> dict:
    """Check and time one shape; the row's figures as a dict."""
    result: dict = {"shape": shape.name, "label": shape.label, "lines": inputs.lines}
    result["runs"] = len(inputs.runs)
    result["identity"] = identity(trec_eval, inputs, folder) if trec_eval else {}
    tools = {"irscore": irscore_command(TIMED, inputs)}
    if trec_eval:
        tools["trec_eval"] = trec_eval_command(trec_eval, TIMED, inputs)
    if inputs.lines <= args.pytrec_max_lines:
        tools["pytrec_eval"] = pytrec_command(inputs.qrels, inputs.runs, ["all_trec"])
    if shape.name == FLOOR_SHAPE:
        tools.update(FLOOR)
    samples, result["failures"] = measured(tools, args.repeat)
    if shape.name == FLOOR_SHAPE:
        result["floor"] = floor({step: samples.pop(step) for step in FLOOR}, shape.name)
    result["tools"] = {
        name: {"walls": s.walls, "peaks": s.peaks, "wall": s.wall, "peak": s.peak}
        for name, s in samples.items()
    }
    ours, theirs = samples.get("irscore"), samples.get("trec_eval")
    result["speed_target"] = shape.speed
    memory = shape.memory
    result["memory_target"] = memory.label if memory else None
    if ours and theirs:
        paired = [a / b for a, b in zip(ours.walls, theirs.walls, strict=True)]
        result["ratio"] = ours.wall / theirs.wall
        result["ratio_range"] = [min(paired), max(paired)]
        result["speed_met"] = None if args.quick else result["ratio"] <= shape.speed
        if memory:
            result["memory_target_mib"] = memory.limit(theirs.peak)
            result["memory_met"] = None if args.quick else ours.peak <= memory.limit(theirs.peak)
    return result


def verdict(met: bool | None) -> str:
    """A target cell's word."""
    return {True: "met", False: "**not met**", None: "n/a"}[met]


def row(result: dict) -> str:
    """One Markdown row of the matrix."""
    tools = result["tools"]

    def wall(name: str) -> str:
        if name in result["failures"]:
            return "**crash**"
        return f"{tools[name]['wall']:.2f}" if name in tools else "-"

    def peak(name: str) -> str:
        return f"{tools[name]['peak']:.0f}" if name in tools else "-"

    checks = [result["identity"].get(" ".join(flags), "not checked") for flags in CHECKS]
    checks = [c if c == "identical" else f"**{c}**" for c in checks]
    ratio = "-"
    if "ratio" in result:
        low, high = result["ratio_range"]
        ratio = f"{result['ratio']:.2f}x ({low:.2f}-{high:.2f})"
    speed = f"<= {result['speed_target']}x: {verdict(result.get('speed_met'))}"
    memory = "-"
    if result.get("memory_target"):
        memory = f"{result['memory_target']}: {verdict(result.get('memory_met'))}"
    cells = [result["label"], f"{result['lines']:,}", *checks, wall("irscore")]
    cells += [wall("trec_eval"), wall("pytrec_eval"), ratio, speed]
    cells += [" : ".join(peak(t) for t in ("irscore", "trec_eval", "pytrec_eval")), memory]
    return "| " + " | ".join(cells) + " |"


HEADER = (
    "| shape | lines | `-q -m all_trec` | `-c -m official` | irscore s | trec_eval s "
    "| pytrec_eval s | irscore / trec_eval (paired range) | speed target "
    "| peak MiB irscore : trec_eval : pytrec_eval | memory target |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|"
)


def selected(only: str | None) -> list[Shape]:
    """The shapes named by --only (all by default); an unknown name is an error."""
    if not only:
        return SHAPES
    names = only.split(",")
    known = {shape.name: shape for shape in SHAPES}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise SystemExit(f"--only: unknown shape(s) {unknown}; known: {', '.join(known)}")
    return [known[name] for name in names]


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trec-eval", default=TREC_EVAL_DEFAULT, help="'' for none")
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke test")
    parser.add_argument("--only", help="comma-separated shape names: " + ",".join(
        shape.name for shape in SHAPES))  # fmt: skip
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, help="write every figure here as JSON")
    parser.add_argument("--folder", type=Path, help="keep the inputs here (default: temporary)")
    parser.add_argument("--no-api", action="store_true", help="skip the Python API part")
    parser.add_argument("--pytrec-max-lines", type=int, default=10**9)
    args = parser.parse_args(argv)
    trec_eval = args.trec_eval if args.trec_eval and Path(args.trec_eval).exists() else None
    shapes = selected(args.only)
    compile_irscore()
    settled, kept = settle_libraries(*(trec_eval or "",))
    results = []
    with tempfile.TemporaryDirectory() as temporary:
        folder = args.folder or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        print(f"trec_eval: {trec_eval or 'none'}; timed: -q -m all_trec, whole processes,")
        print(f"medians of {args.repeat} interleaved repeats{' (--quick sizes)' * args.quick};")
        print(
            f"{settled} shared libraries first dropped from the page cache (settle_libraries);"
            f" {len(kept)} mapped by the benchmark itself and kept\n"
        )
        print(HEADER, flush=True)
        built = {}
        for shape in shapes:
            built[shape.name] = inputs = shape.build(folder, args.quick)
            results.append(evaluate_shape(shape, inputs, trec_eval, args, folder))
            print(row(results[-1]), flush=True)
        steps = next((result.pop("floor") for result in results if "floor" in result), None)
        if steps is None:  # its shape was not measured: on its own
            steps = floor(interleaved(FLOOR, args.repeat), None)
        print("\n" + floor_line(steps), flush=True)
        v2 = None
        if v2_ratio.timed_rows(results) is not None:  # issue 48 item 5, in interleaved pairs
            commands = [irscore_command(TIMED, built[shape]) for shape in v2_ratio.SHAPES]
            v2 = v2_ratio.figures(results, v2_ratio.paired(*commands, 2 * args.repeat))
            print(v2_ratio.line(v2), flush=True)
        api = []
        if not args.no_api:
            import shapes_api

            print()
            api = shapes_api.run(folder, args.quick, args.repeat)
    if args.out:
        how = {"repeat": args.repeat, "quick": args.quick, "trec_eval": trec_eval}
        how["settled_libraries"] = settled
        how["kept_libraries"] = kept
        how["when"] = time.strftime("%Y-%m-%d", time.gmtime())
        how["cores"] = os.cpu_count()
        how["commit"] = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
        figures = {"measured": how, "shapes": results, "floor": steps, "api": api}
        if v2 is not None:
            figures["v2"] = v2
        args.out.write_text(json.dumps(figures, indent=1) + "\n")
    return results


if __name__ == "__main__":
    main()
