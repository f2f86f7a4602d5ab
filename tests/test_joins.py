"""The (topic, docno) join of run rows to qrels: hand-worked, then against a dict join."""

import itertools
from unittest import mock

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irscore.engine.system import arrays, coded_joins, joins

NJ = joins.NOT_JUDGED


def _join(qrels: list[tuple[int, str, int]], run: list[tuple[int, str]]) -> joins.Joined:
    q_topic = np.array([t for t, _, _ in qrels], dtype=np.int64)
    q_docno = pa.array([d for _, d, _ in qrels], pa.string())
    q_grade = np.array([g for _, _, g in qrels], dtype=np.int64)
    r_topic = np.array([t for t, _ in run], dtype=np.int64)
    r_docno = pa.array([d for _, d in run], pa.string())
    return joins.join(q_topic, q_docno, q_grade, r_topic, r_docno)


def test_grades_ranks_and_width_by_hand():
    # Topic 0 has docnos {"b", "a", "c"} in the run and {"a", "z"} judged: byte order
    # a < b < c < z, so ranks a=0, b=1, c=2 (z=3 holds a rank but no run row).
    # Topic 1 has "B" and "a": "B" (0x42) < "a" (0x61), so B=0, a=1.
    joined = _join(
        [(0, "a", 2), (0, "z", 0), (1, "a", -1)],
        [(0, "b"), (0, "a"), (0, "c"), (1, "a"), (1, "B")],
    )
    assert joined.doc.tolist() == [1, 0, 2, 1, 0]
    assert joined.grade.tolist() == [NJ, 2, NJ, -1, NJ]
    assert joined.width == 4  # topic 0's four distinct docnos: ranks 0..3
    assert not joined.has_duplicates


def test_a_repeated_docno_is_found_even_when_judged():
    # "a" twice for topic 0: the qrels row sorts first, then both run rows.
    assert _join([(0, "a", 1)], [(0, "a"), (0, "b"), (0, "a")]).has_duplicates
    # The same docno for two topics is no repeat.
    assert not _join([], [(0, "a"), (1, "a")]).has_duplicates


@pytest.mark.parametrize("threaded", [False, True])
@pytest.mark.parametrize("long_docnos", [False, True])
def test_matches_a_dict_join_on_generated_rows(monkeypatch, threaded, long_docnos):
    """Packed keys (docnos `d0` to `d39`) and Arrow's string sort (each docno 40 more
    bytes: past 64 bits), on one thread and on two."""
    if threaded:  # the two-thread sort, which real inputs reach only from 2**18 rows
        monkeypatch.setattr(joins, "_THREADED", 0)
    tail = "".join(chr(33 + i) for i in range(40)) if long_docnos else ""
    rng = np.random.default_rng(11)
    for _ in range(20):
        topics = int(rng.integers(1, 6))
        run = [(int(t), f"d{int(d)}{tail}") for t, d in rng.integers(0, [topics, 40], (60, 2))]
        run = list(dict.fromkeys(run))  # no repeats: rank comparison below needs sets
        judged = rng.integers(0, [topics, 40], (30, 2))
        judged = {(int(t), f"d{int(d)}{tail}") for t, d in judged}
        qrels = [(t, d, int(rng.integers(-2, 4))) for t, d in sorted(judged)]
        joined = _join(qrels, run)
        grade = {(t, d): g for t, d, g in qrels}
        assert joined.grade.tolist() == [grade.get(key, NJ) for key in run]
        for topic in range(topics):
            names = sorted({d for t, d in run if t == topic} | {d for t, d in judged if t == topic})
            expected = [names.index(d) for t, d in run if t == topic]
            assert [
                int(r) for r, (t, _) in zip(joined.doc, run, strict=True) if t == topic
            ] == expected
        assert not joined.has_duplicates


def test_a_join_on_a_helper_thread_sorts_on_that_thread(monkeypatch):
    """The two-thread sort is for the main thread: a join already on one of `evaluate`'s
    or `from_dicts`' two threads (one half of the work) starts no more threads, which on
    two cores only added copies of the docnos and switches, with the same result."""
    from irscore.engine.system import threads

    monkeypatch.setattr(joins, "_THREADED", 0)  # every join would split its sort
    qrels, run = [(0, "a", 2), (1, "b", 1)], [(0, "b"), (0, "a"), (1, "b"), (1, "c")]
    on_main = _join(qrels, run)
    started = []
    real_pool = threads.pool
    monkeypatch.setattr(threads, "pool", lambda n: started.append(n) or real_pool(n))
    with real_pool(1) as helper:
        on_helper = helper.submit(_join, qrels, run).result()
        assert helper.submit(threads.on_helper).result()
    assert started == []
    assert not threads.on_helper()
    for field in ("doc", "grade"):
        assert getattr(on_helper, field).tolist() == getattr(on_main, field).tolist()
    assert on_helper.width == on_main.width == 2
    assert on_helper.grade.tolist() == [NJ, 2, 1, NJ]


def _join_codes(qrels: list[tuple[int, int, int]], run: list[tuple[int, int]], width: int):
    q = np.array(qrels, dtype=np.int64).reshape(-1, 3)
    r = np.array(run, dtype=np.int64).reshape(-1, 2)
    return coded_joins.join_codes(q[:, 0], q[:, 1], q[:, 2], r[:, 0], r[:, 1], width)


@pytest.fixture(params=["dense", "hashed"])
def key_table(request, monkeypatch):
    """`join_codes` through a byte a key (`_dense_join`), or the hash lookup and sort."""
    monkeypatch.setattr(coded_joins, "_DENSE_BYTES", 2**40 if request.param == "dense" else 0)
    return request.param


def test_coded_docnos_by_hand(key_table):
    # Docno codes 0..4 shared by all topics. Topic 0 judges doc 3 (grade 2) and doc 1
    # (grade 0); topic 1 judges doc 3 (grade -1). The run's (0, 3) gets 2, its (1, 3)
    # gets -1, its (0, 1) gets 0; (1, 1) and (0, 4) are not judged. Codes stay as given.
    joined = _join_codes(
        [(0, 3, 2), (0, 1, 0), (1, 3, -1)], [(0, 3), (1, 1), (1, 3), (0, 4), (0, 1)], width=5
    )
    assert joined.grade.tolist() == [2, NJ, -1, NJ, 0]
    assert joined.doc.tolist() == [3, 1, 3, 4, 1]
    assert joined.width == 5
    assert not joined.has_duplicates
    # (0, 3) twice is a repeat; doc 3 for topics 0 and 1 is not.
    assert _join_codes([], [(0, 3), (1, 3), (0, 3)], width=5).has_duplicates
    assert _join_codes([], [], width=0).grade.tolist() == []
    # Keys topic * width + doc past 32 bits stay 64-bit: with width 2^31, (2, 5) is
    # 2 * 2^31 + 5 = 2^32 + 5, which 32 bits would wrap to 5, the key of (0, 5).
    assert not _join_codes([], [(0, 5), (2, 5)], width=2**31).has_duplicates
    assert _join_codes([], [(2, 5), (0, 5), (2, 5)], width=2**31).has_duplicates


def test_coded_docnos_of_later_topics_by_hand(key_table):
    # A chunk's topics 7 and 9 (none below 7): keys count from topic 7, (t - 7) * 4 + doc,
    # so (7, 2) -> 2, (9, 2) -> 10, (9, 3) -> 11: 12 keys, not 40. Topic 9 judges doc 2
    # (grade 3) and doc 0 (grade 1); the run's (9, 2) gets 3, its (7, 2) nothing.
    joined = _join_codes([(9, 2, 3), (9, 0, 1)], [(7, 2), (9, 3), (9, 2), (9, 0)], width=4)
    assert joined.grade.tolist() == [NJ, NJ, 3, 1]
    assert not joined.has_duplicates
    assert _join_codes([(9, 2, 3)], [(9, 2), (7, 2), (9, 2)], width=4).has_duplicates
    # judged only in the qrels, never repeated: a qrels key is not a run repeat
    assert not _join_codes([(9, 2, 3), (7, 2, 1)], [(9, 2), (7, 2)], width=4).has_duplicates


def test_coded_docnos_join_as_the_strings_do(key_table):
    """`join_codes` on docnos coded by their byte order gives the grades and repeats of
    `join` on the strings, and docno codes in the same order within each topic."""
    rng = np.random.default_rng(12)
    for _ in range(20):
        topics = int(rng.integers(1, 6))
        run = [(int(t), f"d{int(d)}") for t, d in rng.integers(0, [topics, 40], (60, 2))]
        judged = sorted({(int(t), f"d{int(d)}") for t, d in rng.integers(0, [topics, 40], (30, 2))})
        qrels = [(t, d, int(rng.integers(-2, 4))) for t, d in judged]
        names = sorted({d for _, d in run} | {d for _, d in judged})
        code = {name: i for i, name in enumerate(names)}
        by_codes = _join_codes(
            [(t, code[d], g) for t, d, g in qrels], [(t, code[d]) for t, d in run], len(names)
        )
        by_strings = _join(qrels, run)
        assert by_codes.grade.tolist() == by_strings.grade.tolist()
        assert by_codes.has_duplicates == by_strings.has_duplicates
        for topic in range(topics):
            rows = [i for i, (t, _) in enumerate(run) if t == topic]
            for i in rows:
                for j in rows:
                    assert (by_codes.doc[i] < by_codes.doc[j]) == (
                        by_strings.doc[i] < by_strings.doc[j]
                    )


def test_packed_keys_order_as_strcmp_by_hand():
    # Bytes "1" (49) to "a" (97): digits are the distance from "1" plus one, so "1" -> 1,
    # "9" -> 9, "a" -> 49, and NUL padding is 0: base 97 - 49 + 2 = 50, width 2.
    # "1" -> 1*50 + 0 = 50, "19" -> 1*50 + 9 = 59, "9" -> 9*50 = 450, "a" -> 49*50 = 2450;
    # topic 1 adds 1 * 50^2 = 2500. So "1" < "19" < "9" < "a", as strcmp.
    key = joins.packed(np.array([0, 0, 0, 0, 1]), pa.array(["9", "19", "1", "a", "1"]))
    assert key.tolist() == [450, 59, 50, 2450, 2550]
    # "!" (33) to "~" (126) is base 95, and 95^10 > 2^64: the bytes present, "!" -> 1 and
    # "~" -> 2, give base 3 instead. "!~!~!~!~!~" -> 1,2,1,2,... in base 3 = 36905;
    # "~" -> 2 * 3^9 = 39366.
    key = joins.packed(np.array([0, 0]), pa.array(["!~" * 5, "~"]))
    assert key.tolist() == [36905, 39366]
    # A NUL byte, or more than 64 bits of (topic, docno), leaves the strings to Arrow.
    assert joins.packed(np.array([0]), pa.array(["a\x00"])) is None
    long = "".join(chr(33 + i) for i in range(90))  # 91 digits a place, 90 places
    assert joins.packed(np.array([0]), pa.array([long])) is None


def test_the_bytes_present_are_all_counted_after_the_sample(monkeypatch):
    # 32 places: base 4 fits (4^32 = 2^64), base 5 does not. The first docno's 32 bytes
    # (the sample) hold "!" and "~" (base 3); the second adds "a", "b" and "c" (base 6).
    monkeypatch.setattr(joins, "_SAMPLED_BYTES", 32)
    docnos = pa.array(["!~" * 16, "abc" + "!" * 29])
    assert joins.packed(np.array([0, 0]), docnos) is None
    monkeypatch.setattr(joins, "_SAMPLED_BYTES", 64)  # the whole text: refused at once
    assert joins.packed(np.array([0, 0]), docnos) is None


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 4), st.text("ab9Z_-\u00e9", max_size=6)),
        min_size=1,
        max_size=60,
    ),
    st.booleans(),
    st.integers(1, 9),
)
def test_packed_sort_equals_the_string_sort(rows, long_docnos, pack_rows):
    """Both sorts give the same stable order, topic starts and pair starts, whatever the
    docnos' alphabet, lengths, prefixes and repeats (a repeat is a run of equal keys), and
    however many rows are packed at a time, from an array that starts mid-buffer."""
    topic = np.array([t for t, _ in rows], dtype=np.int32)
    tail = "".join(chr(33 + i) for i in range(40)) if long_docnos else ""  # past 64 bits
    docno = pa.array(["skipped", *(d + tail for _, d in rows)], pa.string()).slice(1)
    with mock.patch.object(joins, "_PACK_ROWS", pack_rows):
        packed = joins._sorted(topic, docno)
    strings = joins._sorted_strings(topic, docno)
    for ours, theirs in zip(packed, strings, strict=True):
        assert ours.tolist() == theirs.tolist()


def test_sorted_is_stable_whether_rows_are_grouped_by_topic_or_not():
    """`_sorted` picks timsort for rows grouped by topic and quicksort (made stable after)
    for rows in no order, or quicksort for both where it is vectorised: either way the
    stable order of (topic, docno), equal pairs (a judged document's qrels row and run
    row) in row order."""
    rng = np.random.default_rng(5)
    topics, per_topic = 20, 100
    topic = np.repeat(np.arange(topics), per_topic).astype(np.int32)
    names = [f"d{int(d)}" for d in rng.integers(0, 30, len(topic))]  # many equal pairs
    for rows, vectorised in itertools.product(
        (np.arange(len(topic)), rng.permutation(len(topic))), (False, True)
    ):
        t, docno = topic[rows], pa.array([names[i] for i in rows])
        with mock.patch.object(arrays, "vectorised_quicksort", lambda v=vectorised: v):
            order, topic_start, new = joins._sorted(t, docno)
        expected = sorted(range(len(t)), key=lambda i: (t[i], docno[i].as_py(), i))
        assert order.tolist() == expected
        pairs = [(t[i], docno[i].as_py()) for i in expected]
        assert new.tolist() == [i == 0 or pairs[i] != pairs[i - 1] for i in range(len(pairs))]
        assert topic_start.tolist() == [
            i == 0 or pairs[i][0] != pairs[i - 1][0] for i in range(len(pairs))
        ]
