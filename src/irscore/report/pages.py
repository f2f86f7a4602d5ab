"""Standalone HTML pages of the report: what the Snakemake report shows inside itself.

The report displays HTML (and images) in the page; any other file it can only
download. So every table and every Markdown document of the report is also
written as one HTML page, which carries its other formats (Markdown, CSV,
LaTeX, ...) as download links with the files inside (data URIs): the report
stays one self-contained file and each entry reads in place. `markdown_body`
turns the Markdown irscore writes (headings, paragraphs, lists, pipe tables,
`code`, **bold**, *emphasis*) into HTML; it knows no other Markdown.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from irscore.engine.reading import trec

MIME = {
    ".md": "text/markdown",
    ".csv": "text/csv",
    ".tsv": "text/tab-separated-values",
    ".tex": "application/x-tex",
}
FORMAT_NAMES = {".md": "Markdown", ".csv": "CSV", ".tsv": "TSV", ".tex": "LaTeX"}
# Wide tables fit a report window of 1400 pixels: cells wrap at spaces and after
# underscores (table_html), and the widest tables are cut in two.
STYLE = (
    "body{font-family:'DejaVu Sans',sans-serif;font-size:14px;line-height:1.4;margin:1em;"
    "color:#1e293b}"
    "h1{font-size:1.4em;margin:0 0 0.5em}h2{font-size:1.2em;margin:1.4em 0 0.4em}"
    "h3{font-size:1.05em;margin:1.2em 0 0.3em}p,li{max-width:60em}"
    "table{border-collapse:collapse;font-size:13px;margin:0.5em 0 1em}"
    "th,td{padding:0.2em 0.5em;border-bottom:1px solid #ccc;vertical-align:top}"
    "th{vertical-align:bottom;overflow-wrap:break-word}"
    ".num{text-align:right}.text{text-align:left}"
    "caption{text-align:left;font-weight:bold;padding-bottom:0.5em}"
    "code{font-size:0.92em;background:#f1f5f9;padding:0 0.2em;border-radius:3px}"
    ".downloads{font-size:13px;color:#475569;margin:0 0 1em}"
    ".downloads a{margin-left:0.6em;color:#047857}"
)


def _inline(text: str) -> str:
    """One line of Markdown text as HTML: `code` first (nothing inside it is formatting),
    then **bold** and *emphasis*; everything else escaped."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick is a character
        parts[-2:] = ["`".join(parts[-2:])]
    out = []
    for index, part in enumerate(parts):
        escaped = html.escape(part, quote=False)
        if index % 2:
            out.append(f"<code>{escaped}</code>")
            continue
        escaped = re.sub(r"\*\*(\S(?:.*?\S)?)\*\*", r"<strong>\1</strong>", escaped)
        out.append(re.sub(r"(?<!\w)\*(\S(?:.*?\S)?)\*(?!\w)", r"<em>\1</em>", escaped))
    return "".join(out)


def breakable(cell_html: str) -> str:
    """A cell that may also break after an underscore (docno_numeric, lab_bm25_word)."""
    return cell_html.replace("_", "_<wbr>")


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


class Split(NamedTuple):
    """Where a table too wide for a window is cut in two: before the first header (past
    the first column) that starts with `before`; the `moved` columns go with the second
    part. Each part starts with the table's first column."""

    before: str
    moved: tuple[str, ...] = ()

    def parts(self, header: Sequence[str]) -> list[list[int]] | None:
        """The column indices of each part, or None: no header starts with `before`."""
        cut = next((i for i, h in enumerate(header) if i > 1 and h.startswith(self.before)), None)
        if cut is None:
            return None
        moved = {i for i, h in enumerate(header) if h in self.moved}
        first = [i for i in range(1, cut) if i not in moved]
        return [[0, *first], [0, *sorted(moved), *range(cut, len(header))]]


def table_html(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    numeric: Sequence[bool],
    caption: str = "",
    splits: Sequence[Split] = (),
) -> str:
    """A table from cells given as HTML: the header, the body rows; numeric columns are
    right-aligned. Cut in two tables as the first of `splits` that applies says."""
    parts = next(filter(None, (split.parts(header) for split in splits)), None)
    if parts is not None:
        return "".join(
            table_html(
                [header[i] for i in part],
                [[row[i] for i in part] for row in rows],
                [numeric[i] for i in part],
                "(continued)" if number and caption else caption,
            )
            for number, part in enumerate(parts)
        )

    def row(tag: str, cells: Sequence[str]) -> str:
        return (
            "<tr>"
            + "".join(
                f'<{tag} class="{"num" if right else "text"}">{breakable(cell)}</{tag}>'
                for cell, right in zip(cells, numeric, strict=True)
            )
            + "</tr>\n"
        )

    head = f"<caption>{html.escape(caption)}</caption>\n" if caption else ""
    body = "".join(row("td", cells) for cells in rows)
    return (
        f"<table>\n{head}<thead>\n{row('th', header)}</thead>\n<tbody>\n{body}</tbody>\n</table>\n"
    )


def _markdown_table(lines: Sequence[str], splits: Sequence[Split]) -> str:
    header, rule, *rows = (_cells(line) for line in lines)
    if len(rule) != len(header) or not all(c and set(c) <= set("-:") for c in rule):
        raise ValueError(f"not a Markdown table (its second line is not a rule): {lines[1]!r}")
    return table_html(
        [_inline(cell) for cell in header],
        [[_inline(cell) for cell in cells] for cells in rows],
        [cell.endswith(":") for cell in rule],
        splits=splits,
    )


def markdown_body(text: str, splits: Sequence[Split] = ()) -> str:
    """The Markdown irscore writes, as HTML (the body of a page); a wide table is cut in
    two as `table_html` says."""
    out: list[str] = []
    lines = text.splitlines()
    at = 0
    while at < len(lines):
        line = lines[at]
        if not line.strip():
            at += 1
        elif match := re.match(r"(#{1,6}) (.*)", line):
            level = len(match[1])
            out.append(f"<h{level}>{_inline(match[2].strip())}</h{level}>\n")
            at += 1
        elif line.startswith("|"):
            end = at
            while end < len(lines) and lines[end].startswith("|"):
                end += 1
            out.append(_markdown_table(lines[at:end], splits))
            at = end
        elif line.startswith("- "):
            items: list[str] = []
            while at < len(lines) and (lines[at].startswith("- ") or lines[at].startswith("  ")):
                if lines[at].startswith("- "):
                    items.append(lines[at][2:].strip())
                else:
                    items[-1] += " " + lines[at].strip()
                at += 1
            out.append("<ul>\n" + "".join(f"<li>{_inline(i)}</li>\n" for i in items) + "</ul>\n")
        else:
            paragraph = []
            while at < len(lines) and lines[at].strip() and not _starts_block(lines[at]):
                paragraph.append(lines[at].strip())
                at += 1
            out.append(f"<p>{_inline(' '.join(paragraph))}</p>\n")
    return "".join(out)


def _starts_block(line: str) -> bool:
    return bool(re.match(r"#{1,6} ", line)) or line.startswith(("|", "- "))


def downloads_html(files: Sequence[tuple[str, str]]) -> str:
    """Download links holding each (file name, text): the formats the page does not show."""
    if not files:
        return ""
    links = []
    for name, text in files:
        suffix = Path(name).suffix
        data = base64.b64encode(text.encode("utf-8")).decode("ascii")
        uri = f"data:{MIME.get(suffix, 'text/plain')};charset=utf-8;base64,{data}"
        label = FORMAT_NAMES.get(suffix, suffix.lstrip("."))
        links.append(
            f'<a download="{html.escape(name)}" href="{uri}">{label} ({html.escape(name)})</a>'
        )
    return f'<p class="downloads">Download:{"".join(links)}</p>\n'


def page(title: str, body: str, files: Sequence[tuple[str, str]] = ()) -> str:
    """A standalone HTML page: the body, after links to download `files` (name, text)."""
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        f"{downloads_html(files)}{body}</body>\n</html>\n"
    )


def markdown_page(
    text: str, files: Sequence[tuple[str, str]] = (), splits: Sequence[Split] = ()
) -> str:
    """A Markdown document as a page, titled by its first heading."""
    headings = (
        line.lstrip("#").strip().replace("`", "")
        for line in text.splitlines()
        if line.startswith("#")
    )
    title = next(headings, "")
    return page(title, markdown_body(text, splits), files)


def write_markdown_page(
    html_path: str, markdown_path: str, others: Sequence[str] = (), splits: Sequence[Split] = ()
) -> None:
    """The Markdown file as an HTML page, with it and the `others` files as downloads; wide
    tables cut as `table_html` says."""
    files = [(Path(p).name, Path(p).read_text(encoding="utf-8")) for p in (markdown_path, *others)]
    trec.write_lines_atomically(html_path, [markdown_page(files[0][1], files, splits)])
