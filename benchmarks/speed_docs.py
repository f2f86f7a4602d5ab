"""Write the shape matrix's figures into README.md and docs/speed.md.

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
PAGES = (ROOT / "README.md", ROOT / "docs" / "speed.md")
SETTLED = ", the shared libraries' cached pages dropped first as docs/speed.md explains"
BLOCK = re.compile(r"(<!-- shapes:start -->\n).*?(<!-- shapes:end -->)", re.DOTALL)


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


def written(page: str, block: str) -> str:
    """`page` with its marked block replaced by `block` (the markers must be there)."""
    if not BLOCK.search(page):
        raise SystemExit("no <!-- shapes:start --> ... <!-- shapes:end --> block")
    return BLOCK.sub(lambda m: m.group(1) + block + m.group(2), page)


def main(argv: list[str]) -> None:
    figures = json.loads(Path(argv[0]).read_text())
    block = rendered(figures)
    for page in PAGES:
        page.write_text(written(page.read_text(), block))
        print(f"wrote {page.relative_to(ROOT)}")


if __name__ == "__main__":
    main(sys.argv[1:])
