"""The Arrow compute kernels this package calls, by name, without `pyarrow.compute`.

Importing `pyarrow.compute` builds a Python wrapper, signature and docstring for each
of Arrow's ~290 kernels: about 40 ms and a third of pyarrow's start-up, paid by every
`irscore evaluate` for the dozen kernels it needs. `call_function` is the public entry
that those wrappers call; the same C++ kernels run, so results are identical.
"""

from __future__ import annotations

from types import ModuleType

import pyarrow as pa


def _kernels() -> ModuleType:
    """`pyarrow._compute`, imported at the first kernel call: its import registers every
    Arrow kernel (~11 MiB of resident memory, ~9 ms), which a small evaluation, its
    labels handled by `irscore.engine.system.string_arrays`, does without."""
    import pyarrow._compute as kernels

    return kernels


def cast(values: pa.Array | pa.ChunkedArray, target: pa.DataType) -> pa.Array | pa.ChunkedArray:
    """`values` as `target`, refusing lossy conversions (pyarrow's safe cast)."""
    k = _kernels()
    return k.call_function("cast", [values], k.CastOptions.safe(target))


def take(values: pa.Array | pa.ChunkedArray, indices: pa.Array) -> pa.Array | pa.ChunkedArray:
    """The elements of `values` at `indices`, bounds-checked."""
    k = _kernels()
    return k.call_function("take", [values, indices], k.TakeOptions(boundscheck=True))


def dictionary_encode(values: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """`values` as dictionary codes over their distinct values in first-seen order."""
    k = _kernels()
    return k.call_function("dictionary_encode", [values])


def unique(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """The distinct values in first-seen order."""
    k = _kernels()
    return k.call_function("unique", [values])


def binary_length(values: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """The byte length of each string."""
    k = _kernels()
    return k.call_function("binary_length", [values])


def min_value(values: pa.Array | pa.ChunkedArray) -> pa.Scalar:
    """The smallest value (nulls skipped)."""
    k = _kernels()
    return k.call_function("min", [values], k.ScalarAggregateOptions())


def sum_value(values: pa.Array | pa.ChunkedArray) -> pa.Scalar:
    """The sum (nulls skipped; null for no values)."""
    k = _kernels()
    return k.call_function("sum", [values], k.ScalarAggregateOptions())


def any_true(values: pa.Array | pa.ChunkedArray) -> bool:
    """Whether any value is true."""
    k = _kernels()
    return bool(k.call_function("any", [values], k.ScalarAggregateOptions()).as_py())


def equal(values: pa.Array | pa.ChunkedArray, other: object) -> pa.Array | pa.ChunkedArray:
    """Element-wise `values == other`."""
    k = _kernels()
    return k.call_function("equal", [values, other])


def not_equal(values: pa.Array, other: pa.Array) -> pa.Array:
    """Element-wise `values != other`."""
    k = _kernels()
    return k.call_function("not_equal", [values, other])


def less(values: pa.Array, other: pa.Array) -> pa.Array:
    """Element-wise `values < other` (strings: byte by byte, a prefix first)."""
    k = _kernels()
    return k.call_function("less", [values, other])


def or_(left: pa.Array, right: pa.Array) -> pa.Array:
    """Element-wise logical or (null where either is null)."""
    k = _kernels()
    return k.call_function("or", [left, right])


def fill_null(values: pa.Array, fill: object) -> pa.Array:
    """`values` with nulls replaced by `fill`."""
    k = _kernels()
    return k.call_function("coalesce", [values, fill])


def matches(strings: pa.Array | pa.ChunkedArray, pattern: str) -> pa.Array | pa.ChunkedArray:
    """Whether each string contains a match of the RE2 regular expression `pattern`."""
    k = _kernels()
    return k.call_function("match_substring_regex", [strings], k.MatchSubstringOptions(pattern))


def all_start_with(strings: pa.Array, prefix: str) -> bool:
    """Whether every string starts with `prefix`."""
    k = _kernels()
    starts = k.call_function("starts_with", [strings], k.MatchSubstringOptions(prefix))
    return bool(k.call_function("all", [starts], k.ScalarAggregateOptions()).as_py())


def sort_indices(values: pa.Array) -> pa.Array:
    """The indices that sort `values` ascending (stable)."""
    k = _kernels()
    return k.call_function("array_sort_indices", [values], k.ArraySortOptions())


def sort_table_indices(table: pa.Table, sort_keys: list[tuple[str, str]]) -> pa.Array:
    """The row indices that sort `table` by `sort_keys` ((column, "ascending"|"descending"))."""
    k = _kernels()
    return k.call_function("sort_indices", [table], k.SortOptions(sort_keys))
