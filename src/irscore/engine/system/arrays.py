"""Arrow arrays as numpy arrays and back, without copying: the readers' columns are
Arrow's, the arithmetic numpy's."""

from __future__ import annotations

from functools import cache

import numpy as np
import pyarrow as pa

_NUMPY_TYPES = {"int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64}
_NUMPY_TYPES |= {"uint64": np.uint64, "double": np.float64}
_COUNTED_ROWS = 1 << 20  # codes counted this many at a time (`counts`)
# Keys up to which passes of numpy's radix sort on 16-bit digits beat timsort
# (`small_stable_argsort`); past them the passes' scattered reads cost more.
_RADIX_ROWS = 1 << 18
RADIX_BITS = 48  # the widest keys those passes sort faster (three passes)


def numpy_view(array: pa.Array) -> np.ndarray:
    """A numeric Arrow array without nulls as a read-only numpy view (pyarrow's own
    `to_numpy` loads pandas, which `irscore evaluate` does not need)."""
    dtype = np.dtype(_NUMPY_TYPES[str(array.type)])
    data = array.buffers()[1]
    if data is None:
        return np.zeros(0, dtype)
    return np.frombuffer(data, dtype, count=len(array), offset=array.offset * dtype.itemsize)


def numpy_view_offsets(strings: pa.Array) -> np.ndarray:
    """The offsets of a string array (len + 1 of them, int32 or int64) as a numpy view."""
    kind = np.int64 if pa.types.is_large_string(strings.type) else np.int32
    buffer = strings.buffers()[1]
    if buffer is None:
        return np.zeros(1, kind)
    return np.frombuffer(buffer, kind, len(strings) + 1, strings.offset * np.dtype(kind).itemsize)


def one_array(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """An Arrow array as one contiguous array (a chunked one's chunks combined; a lone
    chunk as it is: `combine_chunks` copies even one, 4 ms for a Robust04 qrels' docnos)."""
    if not isinstance(values, pa.ChunkedArray):
        return values
    return values.chunk(0) if values.num_chunks == 1 else values.combine_chunks()


def as_arrow(values: np.ndarray) -> pa.Array:
    """A numpy array of numbers as an Arrow array, without a copy (and unlike
    `pa.array`, without loading pandas, which `irscore evaluate` does not need)."""
    values = np.ascontiguousarray(values)
    buffers = [None, pa.py_buffer(values)]
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), buffers)


def counts(codes: np.ndarray, length: int) -> np.ndarray:
    """How often each of `length` codes occurs (`np.bincount`), a slice of rows at a time:
    bincount copies narrow codes to int64 first, 56 MiB for a 7M-line run's topics."""
    total = np.zeros(length, np.int64)
    for start in range(0, len(codes), _COUNTED_ROWS):
        total += np.bincount(codes[start : start + _COUNTED_ROWS], minlength=length)
    return total


def distinct(values: np.ndarray) -> np.ndarray:
    """The sorted distinct values (`np.unique`), found by a sort: np.unique's own hash path
    loads numpy.ma on its first call, ~12 ms of every command that needs none of it."""
    ordered = np.sort(values, axis=None)
    return ordered[np.r_[True, ordered[1:] != ordered[:-1]]] if len(ordered) else ordered


def small_stable_argsort(key: np.ndarray) -> np.ndarray | None:
    """A stable argsort of unsigned keys below 2**48, at most `_RADIX_ROWS` of them, by
    numpy's radix sort (its stable sort of 16-bit integers) on 16 bits at a time, the
    lowest first. A TREC DL run's join keys (51,803 rows of 30 bits, grouped by topic)
    took 1.12 ms against timsort's 2.05; keys in no order within 1,000-row topics, 50,000
    rows: 1.00 ms against 1.59 (30 bits), 1.28 against 1.57 (48 bits); 200,000 rows: 5.0
    against 6.4 and 5.5 against 6.4; 1M rows of 30 bits 38 against 32, and 64 bits lose
    at every size (medians of 30 or more, AMD EPYC of family 25). None for other keys,
    for keys mostly in order already (timsort only merges their stretches), and where
    numpy's quicksort is vectorised (`vectorised_quicksort`: with AVX2, 0.92 ms on those
    TREC DL keys)."""
    if not radix_sortable(len(key)) or key.dtype.kind != "u":
        return None
    bits = int(key.max(initial=0)).bit_length()
    if bits > RADIX_BITS or _mostly_ascending(key):
        return None
    order = np.argsort(key.astype(np.uint16), kind="stable")
    for shift in range(16, bits, 16):
        digit = (key >> np.uint64(shift)).astype(np.uint16)
        order = order[np.argsort(digit[order], kind="stable")]
    return order


def radix_sortable(rows: int) -> bool:
    """True when `small_stable_argsort` sorts this many keys of `RADIX_BITS` (not mostly
    in order): few enough, on a CPU whose quicksort is not vectorised."""
    return rows <= _RADIX_ROWS and not vectorised_quicksort()


def _mostly_ascending(key: np.ndarray) -> bool:
    """True for keys in order but for one descent in 16 rows or fewer."""
    return np.count_nonzero(key[1:] < key[:-1]) * 16 < len(key)


def sort_kind(topic: np.ndarray, key: np.ndarray | None = None) -> str:
    """numpy's faster sort for keys led by these topic codes. Timsort ("stable") for a
    `key` already in order but for one descent in 16 rows or fewer (a ranked run's
    rows in file order): it only finds and merges the ascending stretches, 4-10x faster
    than even a vectorised quicksort (43 to 3,000 topics x 1,000, AMD EPYC with
    AVX-512; where quicksort was measured "as fast", not slower). Else, where quicksort
    is vectorised (`vectorised_quicksort`), quicksort: 1.4-2.7x faster than timsort on
    rows in no order within each topic (a DataFrame's). Elsewhere, timsort when the rows
    come grouped by topic in blocks of 16 or more, as files have them (it sorts each
    block and merges blocks in a few steps: 1.3-1.9x faster than quicksort, 7x on a
    ranked run), quicksort for rows in no order."""
    if key is not None and _mostly_ascending(key):
        return "stable"
    if vectorised_quicksort():
        return "quicksort"
    return "stable" if np.count_nonzero(topic[1:] != topic[:-1]) * 16 < len(topic) else "quicksort"


# numpy's CPU features with which its argsort of 32- and 64-bit keys runs x86-simd-sort:
# AVX2 (x86-64-v3) or AVX-512 (x86-64-v4), under numpy 2.4's names and older ones.
VECTORISED_SORT_FEATURES = frozenset({"X86_V3", "X86_V4", "AVX2", "AVX512_SKX"})
AVX512_SORT_FEATURES = frozenset({"X86_V4", "AVX512_SKX"})  # its AVX-512 path then
# AMD's family 19h (Zen 3 and 4), where AVX-512's compress to memory, which that path
# stores every vector with, is microcoded (AMD's Zen 4 optimisation guide; OpenJDK turns
# its AVX-512 sort off there)
SLOW_COMPRESS_CPU = ("AuthenticAMD", 25)


@cache
def vectorised_quicksort() -> bool:
    """True when numpy's argsort (quicksort) is vectorised on this CPU, as numpy's own
    configuration says (NPY_DISABLE_CPU_FEATURES taken into account), and fast: on
    `SLOW_COMPRESS_CPU` its AVX-512 path sorted 1M keys grouped by topic in 59 ms,
    timsort in 32 (an AMD EPYC of family 25), so there the grouping rule decides."""
    simd = np.show_config(mode="dicts").get("SIMD Extensions", {})
    features = {*simd.get("baseline", ()), *simd.get("found", ())}
    if AVX512_SORT_FEATURES & features and cpu() == SLOW_COMPRESS_CPU:
        return False
    return bool(VECTORISED_SORT_FEATURES & features)


@cache
def cpu() -> tuple[str, int] | None:
    """(vendor, family) of this machine's first processor, from Linux's /proc/cpuinfo;
    None where there is none or it does not say."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as handle:
            head = handle.read(4096)
    except OSError:
        return None
    first = head.split("\n\n", 1)[0].split("\n")  # the first processor's lines
    fields = {name.strip(): value.strip() for name, _, value in (f.partition(":") for f in first)}
    family = fields.get("cpu family", "")
    if "vendor_id" not in fields or not family.isdigit():
        return None
    return fields["vendor_id"], int(family)
