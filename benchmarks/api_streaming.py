"""Two checkouts of irscore side by side (issue 48 items 2 and 3): peak memory (summed
over the process group) and wall time of `irscore.evaluate` on a large run file, and of
`irscore compare` on many runs, interleaved, with each pair's output checked equal.

    .venv/bin/python benchmarks/api_streaming.py BEFORE/src AFTER/src \\
        --evaluate QRELS RUN --compare QRELS RUN... [--repeat 3]

Each checkout's `src` goes first on PYTHONPATH (a `git archive` of a commit will do).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measuring import timed

# `irscore.evaluate` on paths, the table written out (to compare the two checkouts').
EVALUATE = """
import sys, irscore
table = irscore.evaluate(sys.argv[1], sys.argv[2], measures="official")
table.to_csv(sys.argv[3], sep="\\t", index=False)
"""


def commands(src: str, args: argparse.Namespace, out: Path) -> dict[str, list[str]]:
    """Each measured command of one checkout, its output written under `out`."""
    found = {}
    if args.evaluate:
        qrels, run = args.evaluate
        found["evaluate"] = [sys.executable, "-c", EVALUATE, qrels, run, str(out / "evaluate")]
    if args.compare:  # the command's stdout to a file (the shell replaced by Python)
        found["compare"] = [
            "sh",
            "-c",
            f'exec "$0" "$@" > {out / "compare"}',
            sys.executable,
            "-m",
            "irscore",
            "compare",
            "--format",
            "md",
            *args.compare,
        ]
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--evaluate", nargs=2, metavar=("QRELS", "RUN"))
    parser.add_argument("--compare", nargs="+", metavar="FILE", help="the qrels, then the runs")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="api-streaming-") as folder:
        sides = {}
        for side in ("before", "after"):
            out = Path(folder) / side
            out.mkdir()
            sides[side] = (getattr(args, side), commands(getattr(args, side), args, out), out)
        for name in sides["before"][1]:
            walls: dict[str, list[float]] = {"before": [], "after": []}
            peaks: dict[str, list[float]] = {"before": [], "after": []}
            for _ in range(args.repeat):  # interleaved: before, after, before, after, ...
                for side, (src, found, _) in sides.items():
                    os.environ["PYTHONPATH"] = src
                    wall, peak = timed(found[name])
                    walls[side].append(wall)
                    peaks[side].append(peak)
            digests = {
                side: hashlib.sha256((out / name).read_bytes()).hexdigest()[:16]
                for side, (_, _, out) in sides.items()
            }
            same = "same output" if len(set(digests.values())) == 1 else f"DIFFER {digests}"
            b, a = (statistics.median(walls[s]) for s in ("before", "after"))
            pb, pa = (max(peaks[s]) for s in ("before", "after"))
            print(
                f"{name}: wall median {b:.2f} s -> {a:.2f} s ({a / b:.2f}x); "
                f"peak {pb:.0f} -> {pa:.0f} MiB ({pa / pb:.2f}x); {same}; "
                f"walls {walls}; peaks {peaks}"
            )


if __name__ == "__main__":
    main()
