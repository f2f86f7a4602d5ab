"""The documentation as the tests read it: the README and the pages of docs/.

The README keeps what a newcomer needs first and links each page of docs/; the
tests that check a claim read it where it is now (`page`, `section`), and those
that run every example read all of them (`everything`).
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DOCS = REPO / "docs"


def pages() -> list[Path]:
    """The README, then every page of docs/ in name order."""
    return [README, *sorted(DOCS.glob("*.md"))]


def page(name: str) -> str:
    """The text of docs/NAME (or of the README, for "README.md")."""
    return (README if name == "README.md" else DOCS / name).read_text(encoding="utf-8")


def everything() -> str:
    """The README and every page of docs/, one after the other."""
    return "\n".join(path.read_text(encoding="utf-8") for path in pages())


def section(text: str, heading: str) -> str:
    """The text under a heading (`## Title` or `### Title`, given with its hashes), up to
    the next heading of the same or a higher level."""
    level = len(heading.split(" ")[0])
    start = text.index(f"\n{heading}\n") + len(heading) + 2
    ends = re.compile(rf"^#{{1,{level}}} ", re.M)
    found = ends.search(text, start)
    return text[start : found.start() if found else len(text)]
