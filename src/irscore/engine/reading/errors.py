"""The error type of bad input, shared by the readers, the Python API and the CLI.

`InputError` is a ValueError: a qrels or run that cannot be read or scored
(a malformed line, an empty file, inputs without a shared topic, a missing
file); `TrecFormatError`, the readers' kind of it, names the line. The command
line prints its message as `irscore: error: ...` with exit status 2; the API
raises it with the same message. Nothing heavy is imported here, so the CLI can
name it before pandas or Arrow load.
"""

from __future__ import annotations

import os

SHOWN = 80  # characters of a line or value quoted in a message; the rest is `...`


class InputError(ValueError):
    """Qrels or a run that irscore cannot read or score; the message names the input,
    where (line, row, or topic and docno) and what is wrong."""


def shown(text: str, limit: int = SHOWN) -> str:
    """`text` cut to `limit` characters (`...` after), so a message stays one short line."""
    return text if len(text) <= limit else text[:limit] + "..."


def display_name(path: str | os.PathLike) -> str:
    """How messages name an input: `<stdin>` for `-`, the path, or the path quoted as a
    Python string when it holds a control character (a newline would cut the message)."""
    name = os.fspath(path)
    if isinstance(name, bytes):
        name = os.fsdecode(name)
    if name == "-":
        return "<stdin>"
    if any(ord(c) < 32 or ord(c) == 127 for c in name) or not name.isprintable():
        return repr(name)
    return name


class TrecFormatError(InputError):
    """A qrels or run file that does not parse; names file, line and problem (the line
    quoted, cut to `errors.SHOWN` characters)."""

    def __init__(self, path: str | os.PathLike, line_no: int, problem: str, line: str = ""):
        self.path = str(path)
        self.line_no = line_no
        self.problem = problem
        self.line = line
        where = f"{self.path}:{line_no}" if line_no else self.path
        quoted = f": {shown(line)!r}" if line else ""
        super().__init__(f"{where}: {problem}{quoted}")
