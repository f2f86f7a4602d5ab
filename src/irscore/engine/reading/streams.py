"""Open an input once, whatever it is: a file, `-` for standard input, a named pipe,
process substitution (`<(...)`), or a gzip, bzip2 or xz stream recognised by its
first bytes (not its name). Bytes come out in blocks that end at a line end, so a
reader parses a file in one pass without holding more than a block of its text.
A line longer than `max_line()` bytes (1 MiB unless IRSCORE_MAX_LINE says) stops
the read at once, so endless or newline-free input costs a block of memory.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import stat
import sys
from collections.abc import Callable, Iterator
from typing import BinaryIO

from irscore.engine.reading import errors

BLOCK = 1 << 24  # 16 MiB of text per block: Arrow's threads get 1 MiB pieces; the peak stays low
PIECE = 1 << 20  # what Arrow's parser hands each thread; a block's columns come in such chunks
# The first bytes of each compressed format, its name and the module that opens it
# (imported when a stream needs it).
MAGIC = {
    b"\x1f\x8b": ("gzip", "gzip"),
    b"BZh": ("bzip2", "bz2"),
    b"\xfd7zXZ\x00": ("xz", "lzma"),
}


MAX_LINE = 1 << 20  # the longest line read, in bytes (IRSCORE_MAX_LINE changes it)
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


class LineTooLong(Exception):
    """A line longer than the limit; `newlines` counts the line ends before it in the
    bytes not yet handed out (the reader adds the lines it has seen)."""

    def __init__(self, newlines: int, limit: int):
        super().__init__(f"line longer than {limit_text(limit)}")
        self.newlines, self.limit = newlines, limit


def max_line() -> int:
    """The longest line a reader accepts, in bytes: IRSCORE_MAX_LINE (a number of bytes,
    or with a K, M or G suffix for KiB, MiB, GiB), else 1 MiB."""
    text = os.environ.get("IRSCORE_MAX_LINE", "").strip().upper()
    text = text.removesuffix("IB") if text.endswith("IB") else text.removesuffix("B")
    if not text:
        return MAX_LINE
    unit = text[-1] if text[-1] in "KMG" else ""
    number = text[: len(text) - len(unit)]
    if not number.isdigit() or int(number) < 1:
        raise errors.InputError(
            f"IRSCORE_MAX_LINE must be a positive number of bytes (or with K, M or G), "
            f"got {os.environ['IRSCORE_MAX_LINE']!r}"
        )
    return int(number) * _UNITS[unit]


def limit_text(limit: int) -> str:
    """A line-length limit in words: `1 MiB (1048576 bytes)`."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if limit >= size and limit % size == 0:
            return f"{limit // size} {unit} ({limit} bytes)"
    return f"{limit} bytes"


def display_name(path: str | os.PathLike) -> str:
    """How messages name an input: its path, `<stdin>` for `-` (`errors.display_name`)."""
    return errors.display_name(path)


@contextlib.contextmanager
def open_input(path: str | os.PathLike) -> Iterator[tuple[BinaryIO, str | None]]:
    """The input's decompressed bytes as a stream, with the compression's name (or None).

    Only the first bytes are peeked at, through the stream's buffer, so pipes
    and FIFOs work and nothing is read twice.
    """
    with contextlib.ExitStack() as stack:
        raw = sys.stdin.buffer if str(path) == "-" else stack.enter_context(open(path, "rb"))
        head = raw.peek(6)[:6] if hasattr(raw, "peek") else b""
        for magic, (name, module) in MAGIC.items():
            if head.startswith(magic):
                opener = importlib.import_module(module).open
                yield stack.enter_context(opener(raw, "rb")), name
                return
        yield raw, None


class Window:
    """Bytes `start` up to `stop` (None: the end) of an uncompressed file's stream, read as
    a stream of their own: two processes each read one part of a large run."""

    def __init__(self, stream: BinaryIO, start: int, stop: int | None):
        stream.seek(start)
        self.stream, self.left = stream, None if stop is None else stop - start

    def read(self, size: int) -> bytes:
        """At most `size` bytes, none past `stop`."""
        if self.left is None:
            return self.stream.read(size)
        data = self.stream.read(min(size, self.left))
        self.left -= len(data)
        return data

    def fileno(self) -> int:
        """The file's descriptor."""
        return self.stream.fileno()

    def back(self, count: int) -> None:
        """Go back `count` bytes, to read them again."""
        self.stream.seek(-count, os.SEEK_CUR)
        if self.left is not None:
            self.left += count


def regular_file_size(path: str | os.PathLike) -> int | None:
    """The size of a regular file; None for anything else (`-`, a pipe, a FIFO, a
    device, a path that cannot be read: that one's error comes when it is read)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_size if stat.S_ISREG(info.st_mode) else None


def block_size(stream: BinaryIO, compression: str | None) -> int:
    """BLOCK, or for an uncompressed regular file smaller than that, its size and a byte
    (what is left to read is no more): a read of n bytes allocates n first, 0.5 ms for
    16 MiB against 0.13 ms for a 1.5 MB run, paid by every small file."""
    if compression is not None:
        return BLOCK
    try:
        status = os.fstat(stream.fileno())
    except (OSError, AttributeError, ValueError):  # no descriptor (a test's BytesIO)
        return BLOCK
    return min(BLOCK, status.st_size + 1) if stat.S_ISREG(status.st_mode) else BLOCK


def blocks(stream: BinaryIO, size: int | None = None, limit: int | None = None) -> Iterator[bytes]:
    """The stream's bytes in blocks of about `size` (default BLOCK) that end just after
    a newline (the last block may end without one); one read of every byte, but for the
    unfinished last line of a block of a regular file, read again with the next. A line
    longer than `limit` bytes (default `max_line()`) raises LineTooLong."""
    size, limit = size or BLOCK, limit or max_line()
    read = _waking_reader(stream) if _is_pipe(stream) else lambda stream, size: stream.read(size)
    back = _back(stream)
    rest = b""
    while True:
        data = read(stream, size)
        if not data:
            break
        data = rest + data if rest else data
        cut = data.rfind(b"\n") + 1
        if back is not None and 0 < cut < len(data):  # the last line read again, whole
            back(len(data) - cut)
            data = data[:cut]
        rest = data[cut:]
        if cut:
            block = data[:cut] if rest else data
            _check_lines(block, limit)
            yield block
        if len(rest) > limit:  # no line end in sight: stop before holding more
            raise LineTooLong(0, limit)
    if rest:
        yield rest


def _back(stream: BinaryIO) -> Callable[[int], None] | None:
    """How to go back some bytes in an uncompressed regular file (or a `Window` of one),
    so that a block's unfinished last line is read again with the next block rather than
    kept and joined to it (a copy of every block: 25 ms of a 190 MB part of a run); None
    for anything else (a pipe, a decompressor, bytes in memory)."""
    if isinstance(stream, Window):
        return stream.back
    if not isinstance(stream, io.BufferedReader):
        return None
    try:
        if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
            return None
    except (OSError, ValueError):
        return None
    return lambda count: stream.seek(-count, os.SEEK_CUR)


def _is_pipe(stream: BinaryIO) -> bool:
    """True for a pipe or FIFO read as it is (not through a decompressor)."""
    try:
        return stat.S_ISFIFO(os.fstat(stream.fileno()).st_mode) and hasattr(stream, "read1")
    except (OSError, AttributeError, ValueError):
        return False


def _waking_reader(stream: BinaryIO) -> Callable[[BinaryIO, int], bytes]:
    """A read of up to `size` bytes of a pipe, fewer only at its end, that waits for data
    a quarter second at a time: a termination signal the kernel hands to another thread
    (Arrow's) leaves a blocked read asleep, so this thread looks up between waits and its
    handler runs (SIGTERM ends a command that waits on a pipe). The first read takes
    what `open_input`'s peek left in the buffer, which the pipe no longer signals."""
    import select

    buffered = True

    def read(stream: BinaryIO, size: int) -> bytes:
        nonlocal buffered
        pieces, got = [], 0
        while got < size:
            while not buffered and not select.select([stream], [], [], 0.25)[0]:
                pass
            buffered = False
            data = stream.read1(size - got)
            if not data:
                break
            pieces.append(data)
            got += len(data)
        return b"".join(pieces)

    return read


def _check_lines(block: bytes, limit: int) -> None:
    """Raise LineTooLong for the first line of `block` (which ends with a newline) longer
    than `limit`. A line that long covers a whole window of limit / 2 bytes, so one
    search for a newline per window finds every candidate: cheap on any block."""
    half = max(limit // 2, 1)
    start = 0
    while start < len(block):
        if block.find(b"\n", start, start + half) >= 0:
            start += half
            continue
        line_start = block.rfind(b"\n", 0, start) + 1
        line_end = block.find(b"\n", start)
        if line_end - line_start > limit:
            raise LineTooLong(block.count(b"\n", 0, line_start), limit)
        start = line_end + 1
