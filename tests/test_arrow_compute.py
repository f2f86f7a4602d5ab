"""irscore.engine.system.arrow_compute calls Arrow's kernels by name: each gives what
pyarrow.compute's own wrapper gives, on values with nulls, repeats and empty strings."""

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from irscore.engine.system import arrow_compute as ac

STRINGS = pa.array(["b", "", "a", None, "b", "a b"])
NUMBERS = pa.array([3, None, 1, 3, -2], pa.int64())


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (lambda: ac.cast(NUMBERS, pa.int8()), lambda: pc.cast(NUMBERS, pa.int8())),
        (lambda: ac.take(STRINGS, pa.array([5, 0, 0])), lambda: pc.take(STRINGS, [5, 0, 0])),
        (lambda: ac.dictionary_encode(STRINGS), lambda: pc.dictionary_encode(STRINGS)),
        (lambda: ac.unique(STRINGS), lambda: pc.unique(STRINGS)),
        (lambda: ac.binary_length(STRINGS), lambda: pc.binary_length(STRINGS)),
        (lambda: ac.min_value(NUMBERS), lambda: pc.min(NUMBERS)),
        (lambda: ac.sum_value(NUMBERS), lambda: pc.sum(NUMBERS)),
        (lambda: ac.equal(STRINGS, "a"), lambda: pc.equal(STRINGS, "a")),
        (
            lambda: ac.not_equal(NUMBERS, NUMBERS[::-1]),
            lambda: pc.not_equal(NUMBERS, NUMBERS[::-1]),
        ),
        (
            lambda: ac.or_(ac.equal(STRINGS, "a"), ac.equal(STRINGS, "")),
            lambda: pc.or_(pc.equal(STRINGS, "a"), pc.equal(STRINGS, "")),
        ),
        (lambda: ac.fill_null(NUMBERS, -1), lambda: pc.fill_null(NUMBERS, -1)),
        (lambda: ac.matches(STRINGS, r"\s"), lambda: pc.match_substring_regex(STRINGS, r"\s")),
        (lambda: ac.sort_indices(STRINGS), lambda: pc.sort_indices(STRINGS)),
        (
            lambda: ac.sort_table_indices(
                pa.table({"n": NUMBERS, "s": STRINGS[:5]}),
                [("n", "ascending"), ("s", "descending")],
            ),
            lambda: pc.sort_indices(
                pa.table({"n": NUMBERS, "s": STRINGS[:5]}),
                sort_keys=[("n", "ascending"), ("s", "descending")],
            ),
        ),
    ],
)
def test_each_kernel_gives_what_pyarrow_compute_gives(ours, theirs):
    assert ours().equals(theirs())


def test_any_true_and_a_refused_lossy_cast():
    assert ac.any_true(ac.equal(STRINGS, "a b")) is True
    assert ac.any_true(ac.equal(STRINGS, "zz")) is False
    with pytest.raises(pa.ArrowInvalid):
        ac.cast(pa.array([300]), pa.int8())  # safe: out of range is an error, not a wrap
