"""`joins._matched`: docnos of 9 to 16 bytes joined as two 64-bit words, without a sort;
a row's `doc` orders only the run rows tied at one float32 score. Worked by hand, then
against the sort's join (`joins.join` without scores) on generated newswire-like rows."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irscore.engine.system import arrays as np_arrays
from irscore.engine.system import joins

NJ = joins.NOT_JUDGED


@pytest.fixture
def unpacked(monkeypatch):
    """No (topic, docno) packs into 64 bits, and ties of any share stay: the short docnos
    of the few rows below take `_matched`."""
    monkeypatch.setattr(joins, "_long_unpacked", lambda *args: True)
    monkeypatch.setattr(joins, "_MOST_TIED", 1.01)


def _arrays(qrels: list[tuple[int, str, int]], run: list[tuple[int, str, float]]) -> tuple:
    """The join's arguments: qrels (topic, docno, grade), run (topic, docno, score)."""
    return (
        np.array([t for t, _, _ in qrels], dtype=np.int64),
        pa.array([d for _, d, _ in qrels], pa.string()),
        np.array([g for _, _, g in qrels], dtype=np.int64),
        np.array([t for t, _, _ in run], dtype=np.int64),
        pa.array([d for _, d, _ in run], pa.string()),
        np.array([s for _, _, s in run], dtype=np.float64),
    )


def test_words_by_hand(unpacked):
    # "FBIS3-10082" is 11 bytes: the first 8 in the high word, then "082" and 5 NULs
    high, low = joins.words(pa.array(["FBIS3-10082", "LA010189-0001AB"]))
    assert int(high[0]) == int.from_bytes(b"FBIS3-10", "big")
    assert int(low[0]) == int.from_bytes(b"082\0\0\0\0\0", "big")
    assert int(low[1]) == int.from_bytes(b"-0001AB\0", "big")  # 15 bytes: 8, then 7
    assert joins.words(pa.array(["FBIS3-10082", "FT921-7"])) is not None  # one of 9+
    # A part of the join may hold only short docnos (the qrels' of a chunk): low word 0.
    high, low = joins.words(pa.array(["D1234567", "AB"]))
    assert int(high[0]) == int.from_bytes(b"D1234567", "big") and low.tolist() == [0, 0]
    assert int(high[1]) == int.from_bytes(b"AB\0\0\0\0\0\0", "big")
    assert joins.words(pa.array(["x" * 17])) is None  # past two words: the sort
    assert joins.words(pa.array(["FBIS3\x00-10082"])) is None  # a NUL: strcmp stops there


def test_words_order_as_strcmp(unpacked):
    # a prefix first (NUL padding is below every byte), then byte by byte
    names = ["FBIS3-1000", "FBIS3-10000", "FBIS3-1001", "FBIS3-100", "FBIS4-1", "FB"]
    high, low = joins.words(pa.array(names))
    by_words = sorted(range(len(names)), key=lambda i: (int(high[i]), int(low[i])))
    assert [names[i] for i in by_words] == sorted(names)


def test_grades_and_tie_ranks_by_hand(unpacked):
    # Topic 0: scores 2.0, 1.0, 1.0, 0.5 -> only the two rows at 1.0 tie; their docnos
    # FT911-00002 < LA0101-0001 in bytes, so FT911 gets 0 and LA0101 1 (width 2).
    # Topic 1: 0.1 and 0.1 + 1e-9 are one float32 (tied); -0.0 and 0.0 tie too.
    qrels = [(0, "LA0101-0001", 2), (0, "FBIS3-0001", 0), (1, "FBIS3-0001", 1)]
    run = [
        (0, "FBIS3-0001", 2.0),
        (0, "LA0101-0001", 1.0),
        (0, "FT911-00002", 1.0),
        (0, "FBIS3-0002", 0.5),
        (1, "FBIS3-0009", 0.1),
        (1, "FBIS3-0001", 0.1 + 1e-9),
        (1, "FBIS3-0005", -0.0),
        (1, "FBIS3-0004", 0.0),
    ]
    joined = joins._matched(*_arrays(qrels, run))
    assert joined.grade.tolist() == [0, 2, NJ, NJ, NJ, 1, NJ, NJ]
    # tied rows' docnos in byte order: FBIS3-0001 0, FBIS3-0004 1, FBIS3-0005 2,
    # FBIS3-0009 3, FT911-00002 4, LA0101-0001 5 (ranks across groups: only order counts)
    assert joined.doc.tolist() == [0, 5, 4, 0, 3, 0, 2, 1]
    assert joined.width == 6
    assert not joined.has_duplicates


def test_a_repeat_goes_to_the_sort_which_finds_it(unpacked):
    run = [(0, "FBIS3-0001", 2.0), (0, "FBIS3-0002", 1.0), (0, "FBIS3-0001", 0.5)]
    arrays = _arrays([(0, "FBIS3-0001", 1)], run)
    assert joins._matched(*arrays) is None
    assert joins.join(*arrays).has_duplicates
    # the same docno under two topics is no repeat
    assert joins._matched(*_arrays([], [(0, "FBIS3-0001", 1.0), (1, "FBIS3-0001", 1.0)]))


@pytest.mark.parametrize("side", ["run", "qrels and run"])
def test_a_collision_of_mixes_goes_to_the_sort(monkeypatch, unpacked, side):
    """With the high word left out of the mix, docnos that differ only in their first 8
    bytes mix alike: within the run, or a judged docno with a retrieved one."""
    monkeypatch.setattr(joins, "_MIX", (np.uint64(0), *joins._MIX[1:]))
    if side == "run":
        qrels, run = [], [(0, "AAAAAAAA-1", 1.0), (0, "BBBBBBBB-1", 0.5)]
    else:
        qrels, run = [(0, "AAAAAAAA-1", 3)], [(0, "BBBBBBBB-1", 1.0)]
    arrays = _arrays(qrels, run)
    assert joins._matched(*arrays) is None
    assert joins.join(*arrays).grade.tolist() == [NJ] * len(run)


@pytest.mark.parametrize("vectorised", [False, True])
def test_a_collision_in_the_mix_cut_to_48_bits_goes_to_the_sort(monkeypatch, unpacked, vectorised):
    """Where radix passes sort the mix (quicksort not vectorised), it is cut to 48 bits:
    with the mix the low word alone, docnos that differ only in their last byte collide
    there (16 low bits dropped), and the sort joins them; in 64 bits they do not."""
    monkeypatch.setattr(joins, "_MIX", (np.uint64(0), np.uint64(1), np.uint64(0)))
    monkeypatch.setattr(np_arrays, "vectorised_quicksort", lambda: vectorised)
    qrels = [(0, "AAAAAAAABBBBBBB1", 2)]
    run = [(0, "AAAAAAAABBBBBBB2", 1.0), (0, "AAAAAAAABBBBBBB1", 0.5)]
    rows = _arrays(qrels, run)
    assert (joins._matched(*rows) is None) is not vectorised
    assert joins.join(*rows).grade.tolist() == [NJ, 2]


# 9 to 12 bytes, some a prefix of others ("FBIS3-000" of "FBIS3-00001")
DOCNOS = [f"{p}-{n:0{w}d}" for p in ("FBIS3", "FT911", "LA0101") for w in (3, 5) for n in range(12)]


@st.composite
def newswire(draw) -> tuple:
    """Qrels and a run (no repeats) over newswire-like docnos, scores with exact and
    float32-only ties, several topics."""
    rng = draw(st.randoms(use_true_random=False))
    qrels, run = [], []
    for topic in range(draw(st.integers(1, 4))):
        docs = rng.sample(DOCNOS, rng.randint(1, 30))
        for d in rng.sample(DOCNOS, rng.randint(0, 20)):
            qrels.append((topic, d, rng.choice([-1, 0, 1, 2])))
        for d in docs:
            base = rng.choice([1.0, 0.5, 0.25, 0.1, -0.0, 0.0, 3.0 + rng.random()])
            run.append((topic, d, base + rng.choice([0.0, 0.0, 1e-9])))
    rng.shuffle(run)
    return qrels, run


@settings(max_examples=200, deadline=None)
@given(newswire())
def test_the_same_grades_and_tie_order_as_the_sort(rows):
    qrels, run = rows
    arrays = _arrays(qrels, run)
    found = []
    for vectorised in (False, True):  # the mix sorted by radix passes (48 bits), or not
        with pytest.MonkeyPatch.context() as m:
            m.setattr(joins, "_long_unpacked", lambda *args: True)
            m.setattr(joins, "_MOST_TIED", 1.01)
            m.setattr(np_arrays, "vectorised_quicksort", lambda v=vectorised: v)
            found.append(joins._matched(*arrays))
    matched, other = found
    sorted_join = joins.join(*arrays[:5])
    assert matched is not None and other is not None
    assert matched.grade.tolist() == other.grade.tolist()
    assert matched.doc.tolist() == other.doc.tolist()
    assert matched.grade.tolist() == sorted_join.grade.tolist()
    score32 = arrays[5].astype(np.float32) + np.float32(0.0)
    for key in {(t, s) for t, s in zip(arrays[3], score32, strict=True)}:
        rows_of = np.flatnonzero((arrays[3] == key[0]) & (score32 == key[1]))
        by_matched = rows_of[np.argsort(matched.doc[rows_of], kind="stable")]
        by_sort = rows_of[np.argsort(sorted_join.doc[rows_of], kind="stable")]
        assert by_matched.tolist() == by_sort.tolist()
        assert len(set(matched.doc[rows_of])) == len(rows_of) or len(rows_of) == 1


def test_which_docnos_take_it():
    """Newswire docnos: 16 bytes from 17 byte values (18**16 > 2**64); 9-byte `D` and 8
    digits pack (bytes 0 to D: base 22, and 22**9 x 1,000 topic codes < 2**64)."""
    news = ["FR940104-0-00001", "FBIS3-10082", "LA010189-0001", "FT911-3254"]
    rows = [(0, d, 1.0 + i) for i, d in enumerate(news)]
    assert joins._matched(*_arrays([(0, "FBIS4-22", 1)], rows)) is not None
    digits = [(t, f"D{t}{i:07d}", 1.0 + i) for t in range(2) for i in range(4)]
    qrels = [(999, "D99900000", 1)]  # 1,000 topic codes
    assert joins._matched(*_arrays(qrels, digits)) is None


def test_long_unpacked_by_hand():
    news = pa.array(["FR940104-0-00001", "FBIS3-10082", "LA010189-0001", "FT911-3254"])
    assert joins._long_unpacked((news, pa.array(["FBIS4-22"])), 1)  # 18**16 > 2**64
    # 9 bytes from 0 to D: by their distance, base 22, and 22**9 x 1,000 < 2**64
    assert not joins._long_unpacked((pa.array(["D12345678"]),), 1000)
    # 16 bytes of ! and ~: by distance base 95 (too wide), but 2 bytes: 3**16 < 2**64
    assert not joins._long_unpacked((pa.array(["!~" * 8]),), 1)
    assert not joins._long_unpacked((pa.array(["FBIS3-1"]), pa.array(["LA01"])), 1)  # <= 8
    assert not joins._long_unpacked((pa.array(["FR940104-0-00001X"]),), 1)  # 17 bytes
    assert not joins._long_unpacked((pa.array(["FR940104-0\x00-0001"]),), 1)  # a NUL


def test_long_unpacked_looks_past_its_sample(monkeypatch):
    # The sample (the first 16 bytes) holds ! and ~ only: 3**16 keys fit, so it is not
    # enough; all 18 bytes give 19**16 = 2.9e20 > 2**64 = 1.8e19: not packed.
    monkeypatch.setattr(joins, "_SAMPLED_BYTES", 16)
    assert joins._long_unpacked((pa.array(["!~" * 8, "ABCDEFGHIJKLMNOP"]),), 1)
    # 16 distinct letters in the sample alone: 17**16 = 4.9e19 > 2**64, decided at once
    assert joins._long_unpacked((pa.array(["ABCDEFGHIJKLMNOP", "!~" * 8]),), 1)


def test_a_run_that_mostly_ties_goes_to_the_sort(unpacked, monkeypatch):
    # 2 of 8 rows tied: a quarter -> the sort; 2 of 9 -> here (0.22 < 0.25)
    monkeypatch.setattr(joins, "_MOST_TIED", 0.25)
    tied = [(0, f"FBIS3-000{i}", 1.0 if i < 2 else 2.0 + i) for i in range(8)]
    assert joins._matched(*_arrays([], tied)) is None
    fewer = [(0, f"FBIS3-000{i}", 1.0 if i < 2 else 2.0 + i) for i in range(9)]
    assert joins._matched(*_arrays([], fewer)) is not None


def _tied_by_hand(topic: list[int], score: list[float]) -> list[int]:
    """The rows that share (topic, float32 score) with another row, -0.0 as 0.0 and NaN
    with NaN (their bits), in row order."""
    keys = [
        (t, np.float32(s).tobytes() if s == s and s != 0 else repr(s).lstrip("-"))
        for t, s in zip(topic, score, strict=True)
    ]
    return [i for i, key in enumerate(keys) if keys.count(key) > 1]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 3),
            st.sampled_from(
                [2.0, 1.0, 1.0 + 1e-9, 0.5, 0.0, -0.0, -1.0, float("inf"), float("nan")]
            ),
        ),
        max_size=40,
    ),
    st.sampled_from(["as drawn", "ranked", "ranked, a topic split"]),
)
def test_tied_rows_match_a_count_by_hand(rows, order):
    """Ties found by the ranked rows' one pass (`_ranked`) or by the sort are the same."""
    if order != "as drawn":
        rows = sorted(rows, key=lambda r: (r[0], -r[1] if r[1] == r[1] else 0))
    if order == "ranked, a topic split" and rows:
        rows = rows[len(rows) // 2 :] + rows[: len(rows) // 2]
    topic = [t for t, _ in rows]
    score = [s for _, s in rows]
    tied = joins._tied_rows(np.array(topic, dtype=np.int64), np.array(score, dtype=np.float64))
    assert tied.tolist() == _tied_by_hand(topic, score)


def test_ranked_rows_by_hand():
    # topic 0's scores 3, 2, 2 never rise; topic 1 follows: ranked
    assert joins._ranked(np.array([0, 0, 0, 1]), np.array([3, 2, 2, 9], dtype=np.float32))
    # a score rises within topic 0
    assert not joins._ranked(np.array([0, 0]), np.array([1, 2], dtype=np.float32))
    # topic 0 comes back after topic 1
    assert not joins._ranked(np.array([0, 1, 0]), np.array([3, 2, 1], dtype=np.float32))
    # NaN compares to nothing
    assert not joins._ranked(np.array([0, 0]), np.array([np.nan, 1], dtype=np.float32))
