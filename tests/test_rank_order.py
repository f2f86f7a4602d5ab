"""The reference order's one sort (`rank._packed_order`): the same permutation whichever
of numpy's sorts `arrays.sort_kind` picks for the rows' state (grouped by topic or not)
and the CPU (quicksort vectorised or not)."""

from __future__ import annotations

import os
import subprocess
import sys
from unittest import mock

import numpy as np

from irscore.engine.ranking import rank
from irscore.engine.system import arrays


def test_packed_order_by_hand():
    # topic 0 holds rows 0 and 1 (scores 1.0 and 2.0: row 1 first), topic 1 row 2; rows
    # 3 and 4 tie at 3.0 in topic 1 and go by tie ascending (row 4's 0, then row 3's 1).
    topic = np.array([0, 0, 1, 1, 1])
    score = np.array([1.0, 2.0, 5.0, 3.0, 3.0])
    tie = np.array([0, 1, 0, 1, 0])
    assert rank._packed_order(topic, score, tie).tolist() == [1, 0, 2, 4, 3]


def test_packed_order_puts_negative_zero_and_infinite_scores_where_floats_go():
    # one topic; descending: inf (row 5), 2.0 (row 3), 1.5 (row 6), then 0.0 and -0.0 tied
    # (-0.0 is 0.0 first; tie 1 before 2: row 2, then row 1), -1.0 (row 0), -inf (row 4)
    topic = np.zeros(7, dtype=np.int64)
    score = np.array([-1.0, 0.0, -0.0, 2.0, -np.inf, np.inf, 1.5])
    tie = np.array([0, 2, 1, 0, 0, 0, 0])
    assert rank._packed_order(topic, score, tie).tolist() == [5, 3, 6, 2, 1, 0, 4]
    # one float32 step apart: the larger first (every bit of the score counts)
    above = float(np.nextafter(np.float32(1.0), np.float32(2.0)))  # 1 + 2**-23
    stepped = np.array([1.0, above, -above, -1.0])
    assert rank._packed_order(topic[:4], stepped, tie[:4] * 0).tolist() == [1, 0, 3, 2]


def test_sort_kind_follows_the_rows_grouping_and_never_changes_the_order(monkeypatch):
    rng = np.random.default_rng(3)
    topics, per_topic = 40, 500
    topic = np.repeat(np.arange(topics), per_topic)
    score = -np.sort(-rng.normal(size=(topics, per_topic)), axis=1).ravel()  # ranked run
    score[rng.choice(len(score), 200, replace=False)] += 0.5  # a few lines out of place
    tie = rng.permutation(len(score))  # distinct docno codes: one permutation is right
    shuffled = rng.permutation(len(score))
    for vectorised in (False, True):
        monkeypatch.setattr(arrays, "vectorised_quicksort", lambda v=vectorised: v)
        for rows in (np.arange(len(score)), shuffled):
            t, s, d = topic[rows], score[rows], tie[rows]
            expected = np.lexsort((d, -s.astype(np.float32).astype(np.float64), t))
            assert rank._packed_order(t, s, d).tolist() == expected.tolist()
    # where quicksort is vectorised it is the sort, whatever the rows' order
    assert arrays.sort_kind(topic) == arrays.sort_kind(topic[shuffled]) == "quicksort"
    monkeypatch.setattr(arrays, "vectorised_quicksort", lambda: False)
    # rows in topic blocks of 500 (40 changes in 20,000): stable; shuffled: quicksort
    assert arrays.sort_kind(topic) == "stable"
    assert arrays.sort_kind(topic[shuffled]) == "quicksort"
    # blocks of 16 rows are the shortest counted as grouped: 1,249 changes in 20,000 rows
    # (1,249 * 16 = 19,984 < 20,000); blocks of 15: 999 changes in 15,000 (15,984 > 15,000)
    assert arrays.sort_kind(np.repeat(np.arange(1250), 16)) == "stable"
    assert arrays.sort_kind(np.repeat(np.arange(1000), 15)) == "quicksort"


def test_vectorised_quicksort_reads_numpys_cpu_features():
    # numpy's dispatch names: AVX2 (x86-64-v3) or AVX-512 (x86-64-v4) vectorise it
    config = {"SIMD Extensions": {"baseline": ["X86_V2"], "found": ["X86_V3"]}}
    plain = {"SIMD Extensions": {"baseline": ["NEON", "ASIMD"], "found": ["ASIMDHP"]}}
    for given, expected in ((config, True), (plain, False), ({}, False)):
        arrays.vectorised_quicksort.cache_clear()
        with mock.patch.object(np, "show_config", lambda mode, g=given: g):
            assert arrays.vectorised_quicksort() is expected
    arrays.vectorised_quicksort.cache_clear()
    if arrays.vectorised_quicksort():  # this CPU has them: numpy told to ignore them
        features = "X86_V3 X86_V4 AVX512_ICL AVX512_SPR AVX2 AVX512F AVX512_SKX"
        code = "from irscore.engine.system import arrays; print(arrays.vectorised_quicksort())"
        done = subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "NPY_DISABLE_CPU_FEATURES": features},
            capture_output=True,
            text=True,
            check=True,
        )
        assert done.stdout == "False\n"


def test_a_key_nearly_in_order_is_sorted_by_timsort_wherever_quicksort_is_vectorised(
    monkeypatch,
):
    monkeypatch.setattr(arrays, "vectorised_quicksort", lambda: True)
    topic = np.repeat(np.arange(4), 16)
    key = np.arange(64, dtype=np.uint64)
    # 64 rows: 3 descents (3 * 16 = 48 < 64) is nearly in order; 4 (64) is not
    for descents, kind in ((3, "stable"), (4, "quicksort")):
        nearly = key.copy()
        for at in range(descents):
            nearly[[10 * at + 1, 10 * at + 2]] = nearly[[10 * at + 2, 10 * at + 1]]
        assert np.count_nonzero(nearly[1:] < nearly[:-1]) == descents
        assert arrays.sort_kind(topic, nearly) == kind
    assert arrays.sort_kind(topic) == "quicksort"  # no key: the topics' rule
    # a ranked run's reference key in file order: timsort, and the lexsort's order
    rng = np.random.default_rng(5)
    score = -np.sort(-rng.normal(size=(4, 16)), axis=1).ravel()
    tie = rng.permutation(64)
    spied = []
    real = np.argsort
    monkeypatch.setattr(
        np, "argsort", lambda a, kind=None: spied.append(kind) or real(a, kind=kind)
    )
    expected = np.lexsort((tie, -score.astype(np.float32).astype(np.float64), topic))
    assert rank._packed_order(topic, score, tie).tolist() == expected.tolist()
    assert spied == ["stable"]


def test_avx512_sort_on_amds_family_25_is_not_counted_as_fast(monkeypatch):
    avx512 = {"SIMD Extensions": {"baseline": ["X86_V2"], "found": ["X86_V3", "X86_V4"]}}
    avx2 = {"SIMD Extensions": {"baseline": ["X86_V2"], "found": ["X86_V3"]}}
    cases = [
        (avx512, ("AuthenticAMD", 25), False),  # Zen 4: the microcoded compress
        (avx2, ("AuthenticAMD", 25), True),  # Zen 3, or AVX-512 turned off: AVX2's path
        (avx512, ("AuthenticAMD", 26), True),  # Zen 5
        (avx512, ("GenuineIntel", 6), True),
        (avx512, None, True),  # no /proc/cpuinfo
    ]
    for config, cpu, expected in cases:
        arrays.vectorised_quicksort.cache_clear()
        monkeypatch.setattr(np, "show_config", lambda mode, c=config: c)
        monkeypatch.setattr(arrays, "cpu", lambda c=cpu: c)
        assert arrays.vectorised_quicksort() is expected
    arrays.vectorised_quicksort.cache_clear()


def test_cpu_reads_the_first_processor_of_proc_cpuinfo():
    two = (
        "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n"
        "flags\t\t: fpu avx512f\n\nprocessor\t: 1\nvendor_id\t: Other\ncpu family\t: 2"
    )
    for text, expected in (
        (two, ("AuthenticAMD", 25)),
        ("processor\t: 0\nvendor_id\t: ARM\n", None),  # no family: not said
        ("", None),
    ):
        arrays.cpu.cache_clear()
        with mock.patch("builtins.open", mock.mock_open(read_data=text)):
            assert arrays.cpu() == expected
    arrays.cpu.cache_clear()
    with mock.patch("builtins.open", side_effect=OSError("no such file")):
        assert arrays.cpu() is None
    arrays.cpu.cache_clear()
