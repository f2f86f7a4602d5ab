"""Write the shape matrix's figures into docs/speed.md, and their summary into README.md.

    python benchmarks/speed_docs.py benchmarks/shapes.json

The JSON is `shapes.py --out`'s, committed beside this script, so that every figure
the README and docs/speed.md quote comes from one measured run (and
tests/test_speed_docs.py checks that they still do). A `--quick` run is refused:
its sizes say nothing about speed.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import shapes
import shapes_api

ROOT = Path(__file__).resolve().parent.parent
README, PAGE = ROOT / "README.md", ROOT / "docs" / "speed.md"
SETTLED = ", the shared libraries' cached pages dropped first as docs/speed.md explains"


def rendered(figures: dict) -> str:
    """The Markdown between the markers: how it was measured, the matrix, the API table."""
    how = figures["measured"]
    if how["quick"]:
        raise SystemExit("a --quick run's sizes say nothing about speed: run the full matrix")
    lines = [
        f"Measured {how['when']} at commit {how['commit']} on {how['cores']} cores by "
        f"`benchmarks/shapes.py --repeat {how['repeat']}` (trec_eval 9.0.8; medians of "
        f"{how['repeat']} interleaved runs, the "
        "paired range in brackets; peak memory the largest of the repeats"
        f"{SETTLED if how.get('settled_libraries') else ''}); the figures are in "
        "`benchmarks/shapes.json`.",
        "",
        shapes.HEADER,
        *(shapes.row(result) for result in figures["shapes"]),
    ]
    if figures.get("floor"):
        lines += ["", shapes.floor_line(figures["floor"])]
    if figures["api"]:
        times = [t for result in figures["api"] for t in result.get("times", {}).values()]
        calls = min(map(len, times), default=0)
        what = "Python API, 1,000 topics x 1,000 documents, in one process"
        lines += ["", f"{what} (medians of {calls} interleaved calls):", ""]
        lines += [shapes_api.HEADER, *(shapes_api.row(result) for result in figures["api"])]
    return "\n".join(lines) + "\n"


def summary(figures: dict) -> str:
    """The README's few lines: how many shapes gave trec_eval's bytes, the range of the
    time ratios, the targets met, the API's speed-up; the rest is docs/speed.md's."""
    how, shapes_run = figures["measured"], figures["shapes"]
    if how["quick"]:
        raise SystemExit("a --quick run's sizes say nothing about speed: run the full matrix")
    same = sum(all(v == "identical" for v in s["identity"].values()) for s in shapes_run)
    ratios = sorted(s["ratio"] for s in shapes_run if "ratio" in s)
    faster = sum(ratio < 1 for ratio in ratios)
    memory = [s for s in shapes_run if s.get("memory_target")]
    speedups = sorted(result["speedup_frames"] for result in figures["api"])
    lines = [
        f"Measured {how['when']} at commit {how['commit']} on {how['cores']} cores against "
        f"trec_eval 9.0.8 and pytrec_eval, on {len(shapes_run)} input shapes of "
        f"{min(s['lines'] for s in shapes_run):,} to {max(s['lines'] for s in shapes_run):,} "
        "lines:",
        f"irscore printed trec_eval's bytes on {same} of {len(shapes_run)}; it took "
        f"{ratios[0]:.2f}x to {ratios[-1]:.2f}x trec_eval's time (less on {faster} of "
        f"{len(ratios)}), meeting {sum(bool(s.get('speed_met')) for s in shapes_run)} of "
        f"{len(shapes_run)} speed targets and {sum(bool(s['memory_met']) for s in memory)} of "
        f"{len(memory)} memory targets.",
    ]
    if speedups:
        lines.append(
            f"From Python, `irscore.evaluate` on DataFrames was {speedups[0]:.1f}x to "
            f"{speedups[-1]:.1f}x as fast as pytrec_eval on dicts (1,000 topics x 1,000 "
            "documents)."
        )
    return "\n".join(lines) + "\n"


def written(page: str, block: str, name: str = "shapes") -> str:
    """`page` with its block marked `name` replaced by `block` (the markers must be there)."""
    marked = re.compile(rf"(<!-- {name}:start -->\n).*?(<!-- {name}:end -->)", re.DOTALL)
    if not marked.search(page):
        raise SystemExit(f"no <!-- {name}:start --> ... <!-- {name}:end --> block")
    return marked.sub(lambda m: m.group(1) + block + m.group(2), page)


def main(argv: list[str]) -> None:
    figures = json.loads(Path(argv[0]).read_text())
    PAGE.write_text(written(PAGE.read_text(), rendered(figures)))
    README.write_text(written(README.read_text(), summary(figures), "speed"))
    print(f"wrote {PAGE.relative_to(ROOT)} and {README.relative_to(ROOT)}")


if __name__ == "__main__":
    main(sys.argv[1:])
