"""`inputs.dictionary_codes`: a DataFrame column's codes, a stretch of equal ids at a time
when the column comes in stretches, the same as Arrow's dictionary encoding of every row."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irscore.engine.reading import inputs


@pytest.fixture
def stretched(monkeypatch):
    """Every column of two rows or more takes the stretches' path."""
    monkeypatch.setattr(inputs, "STRETCHES", 2)


def test_a_grouped_column_by_hand(stretched):
    # 16 rows in 2 stretches (2 x 8 <= 16): the heads q2, q1 are coded 0, 1, in that order
    strings = pa.array(["q2"] * 9 + ["q1"] * 7, pa.large_string())
    codes, dictionary = inputs.dictionary_codes(strings)
    assert codes.tolist() == [0] * 9 + [1] * 7
    assert dictionary.to_pylist() == ["q2", "q1"]
    assert dictionary.type == pa.large_string()


def test_a_topic_that_comes_back_keeps_its_code(stretched):
    # 3 stretches in 24 rows: q2's second stretch has q2's code, not a new one
    strings = pa.array(["q2"] * 8 + ["q1"] * 8 + ["q2"] * 8)
    codes, dictionary = inputs.dictionary_codes(strings)
    assert codes.tolist() == [0] * 8 + [1] * 8 + [0] * 8
    assert dictionary.to_pylist() == ["q2", "q1"]


def test_a_missing_value_is_minus_one(stretched):
    codes, dictionary = inputs.dictionary_codes(pa.array(["a", None, "a", "b"]))
    assert codes.tolist() == [0, -1, 0, 1]
    assert dictionary.to_pylist() == ["a", "b"]


STRETCH = st.tuples(st.sampled_from(["a", "b", "ab", "é", ""]), st.integers(1, 30))


@given(st.lists(STRETCH, max_size=12), st.sampled_from([0, 2, 1 << 16]))
def test_the_same_as_arrows_encoding(stretches, limit):
    """Stretches of random lengths (so both sides of the eighth rule), any threshold."""
    values = [value for value, length in stretches for _ in range(length)]
    strings = pa.array(values, pa.string())
    expected = pc.dictionary_encode(strings)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(inputs, "STRETCHES", limit)
        codes, dictionary = inputs.dictionary_codes(strings)
    assert np.array_equal(codes, expected.indices.to_numpy())
    assert dictionary.equals(expected.dictionary)
