"""Writes the generated measure-name tables: docs/measure-names.md's table of every peer
name (from irscore.engine.measures.name_families), then the README's short table (from
that page). Run after changing a name family; tests/test_readme_measure_names.py checks
both are current.

    .venv/bin/python scripts/measure_names.py
"""

from __future__ import annotations

from pathlib import Path

from irscore.engine.output.catalogue import names_table, readme_table

REPO = Path(__file__).resolve().parents[1]


def replaced(text: str, marker: str, block: str) -> str:
    """`text` with the lines between `<!-- marker:start -->` and `<!-- marker:end -->`
    replaced by `block`."""
    start, end = f"<!-- {marker}:start -->\n", f"<!-- {marker}:end -->"
    head, _, rest = text.partition(start)
    _, _, tail = rest.partition(end)
    if not rest or end not in rest:
        raise SystemExit(f"no {marker} markers")
    return head + start + block + end + tail


def main() -> None:
    page_path, readme_path = REPO / "docs" / "measure-names.md", REPO / "README.md"
    page = replaced(page_path.read_text(encoding="utf-8"), "names", names_table())
    page_path.write_text(page, encoding="utf-8")
    readme = replaced(readme_path.read_text(encoding="utf-8"), "names", readme_table(page))
    readme_path.write_text(readme, encoding="utf-8")


if __name__ == "__main__":
    main()
