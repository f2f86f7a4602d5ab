"""Open an input once, whatever it is: a file, `-` for standard input, a named pipe,
process substitution (`<(...)`), or a gzip, bzip2 or xz stream recognised by its
first bytes (not its name). Bytes come out in blocks that end at a line end, so a
reader parses a file in one pass without holding more than a block of its text.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import lzma
import os
import sys
from collections.abc import Iterator
from typing import BinaryIO

BLOCK = 1 << 24  # 16 MiB of text per block: Arrow's threads get 1 MiB pieces; the peak stays low
PIECE = 1 << 20  # what Arrow's parser hands each thread; a block's columns come in such chunks
# The first bytes of each compressed format, its name and how to open it.
MAGIC = {
    b"\x1f\x8b": ("gzip", gzip.open),
    b"BZh": ("bzip2", bz2.open),
    b"\xfd7zXZ\x00": ("xz", lzma.open),
}


def display_name(path: str | os.PathLike) -> str:
    """How messages name an input: its path, or `<stdin>` for `-`."""
    return "<stdin>" if str(path) == "-" else str(path)


@contextlib.contextmanager
def open_input(path: str | os.PathLike) -> Iterator[tuple[BinaryIO, str | None]]:
    """The input's decompressed bytes as a stream, with the compression's name (or None).

    Only the first bytes are peeked at, through the stream's buffer, so pipes
    and FIFOs work and nothing is read twice.
    """
    with contextlib.ExitStack() as stack:
        raw = sys.stdin.buffer if str(path) == "-" else stack.enter_context(open(path, "rb"))
        head = raw.peek(6)[:6] if hasattr(raw, "peek") else b""
        for magic, (name, opener) in MAGIC.items():
            if head.startswith(magic):
                yield stack.enter_context(opener(raw, "rb")), name
                return
        yield raw, None


def blocks(stream: BinaryIO, size: int | None = None) -> Iterator[bytes]:
    """The stream's bytes in blocks of about `size` (default BLOCK) that end just after
    a newline (the last block may end without one); one read of every byte."""
    size = size or BLOCK
    rest = b""
    while True:
        data = stream.read(size)
        if not data:
            break
        data = rest + data if rest else data
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            rest = data
            continue
        rest = data[cut:]
        yield data[:cut] if rest else data
    if rest:
        yield rest
