"""Arrow string arrays worked on in numpy: their lengths, their distinct values and a
dictionary's decoding, as a zero-padded matrix of bytes, one row a string.

What a small input needs of Arrow's kernels, without them: importing
`pyarrow._compute` registers every kernel, ~11 MiB of resident memory and ~9 ms
that a 40k-line evaluation would otherwise spend on a handful of labels. Each
function returns None when its matrix would pass `MATRIX_BYTES`, a string holds a
NUL byte (numpy's bytes compare ignores trailing NULs) or there are more strings
than `MOST_STRINGS`; the caller then uses the kernel.
Strings order as trec_eval's strcmp: bytewise, a prefix first.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from irscore.engine.system.arrays import numpy_view_offsets

MATRIX_BYTES = 1 << 24  # the largest matrix built here (16 MiB); beyond, Arrow's kernels
# The most strings handled here: numpy sorts them for their distinct values and copies
# them through a matrix, where Arrow's kernels hash and copy them directly, several times
# faster from some ten thousand strings on.
MOST_STRINGS = 1 << 14


def lengths(strings: pa.Array) -> np.ndarray:
    """The byte length of each string."""
    return np.diff(numpy_view_offsets(strings)).astype(np.int64)


def text_bytes(strings: pa.Array) -> int:
    """The bytes of text the strings hold together."""
    offsets = numpy_view_offsets(strings)
    return int(offsets[-1] - offsets[0])


def matrix(strings: pa.Array) -> np.ndarray | None:
    """The strings as a rows x (longest length) uint8 matrix, NUL-padded; None when it
    would pass `MATRIX_BYTES` or a string holds a NUL."""
    offsets = numpy_view_offsets(strings).astype(np.int64)
    size = np.diff(offsets)
    width = int(size.max()) if len(size) else 0
    if len(size) * width > MATRIX_BYTES:
        return None
    data = strings.buffers()[2]
    text = np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8)
    text = text[offsets[0] : offsets[-1]]
    if len(text) and not text.all():
        return None
    out = np.zeros((len(size), width), dtype=np.uint8)
    out[np.arange(width) < size[:, None]] = text  # row-major: each row's bytes in turn
    return out


def from_matrix(rows: np.ndarray, size: np.ndarray) -> pa.Array:
    """The string array whose i-th string is the first `size[i]` bytes of `rows[i]`."""
    text = rows[np.arange(rows.shape[1]) < size[:, None]]
    large = len(text) >= 2**31 - 1
    offsets = np.zeros(len(size) + 1, dtype=np.int64 if large else np.int32)
    np.cumsum(size, out=offsets[1:])
    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(np.ascontiguousarray(text))]
    return pa.Array.from_buffers(pa.large_string() if large else pa.string(), len(size), buffers)


def _keys(rows: np.ndarray) -> np.ndarray:
    """Each row as one numpy bytes value, which compare as the strings do (no NULs)."""
    width = max(rows.shape[1], 1)
    padded = rows if rows.shape[1] else np.zeros((len(rows), 1), np.uint8)
    return np.ascontiguousarray(padded).view(f"S{width}").ravel()


def sorted_distinct(strings: pa.Array) -> tuple[np.ndarray, pa.Array] | None:
    """(each string's code, the distinct strings in byte order), or None (see module)."""
    rows = matrix(strings) if len(strings) <= MOST_STRINGS else None
    if rows is None:
        return None
    _, first, codes = np.unique(_keys(rows), return_index=True, return_inverse=True)
    return codes.ravel().astype(np.int64), from_matrix(rows[first], lengths(strings)[first])


def first_seen_distinct(strings: pa.Array) -> tuple[np.ndarray, pa.Array] | None:
    """(each string's code, the distinct strings in the order first seen), as Arrow's
    dictionary encoding gives them; or None (see module)."""
    rows = matrix(strings) if len(strings) <= MOST_STRINGS else None
    if rows is None:
        return None
    _, first, codes = np.unique(_keys(rows), return_index=True, return_inverse=True)
    by_first = np.argsort(first, kind="stable")
    code_of = np.empty(len(first), dtype=np.int64)
    code_of[by_first] = np.arange(len(first))
    kept = first[by_first]
    return code_of[codes.ravel()], from_matrix(rows[kept], lengths(strings)[kept])


def increasing(strings: pa.Array) -> np.ndarray | None:
    """For each string after the first, whether it is greater than the one before it;
    or None (see module)."""
    rows = matrix(strings) if len(strings) <= MOST_STRINGS else None
    if rows is None:
        return None
    keys = _keys(rows)
    return keys[1:] > keys[:-1]


def decoded(dictionary: pa.Array, codes: np.ndarray) -> pa.Array | None:
    """The strings `dictionary[codes]`, or None (see module)."""
    if len(codes) > MOST_STRINGS or len(dictionary) > MOST_STRINGS:
        return None
    size = lengths(dictionary)
    if len(codes) * (int(size.max()) if len(size) else 0) > MATRIX_BYTES:
        return None
    rows = matrix(dictionary)
    if rows is None:
        return None
    return from_matrix(rows[codes], size[codes])
