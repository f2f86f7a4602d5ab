"""irscore.engine.system.string_arrays: labels' lengths, distinct values and decoding in numpy,
worked out by hand, then against Arrow's own kernels on generated strings."""

from __future__ import annotations

import subprocess
import sys
from unittest import mock

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

from irscore.engine.system import string_arrays as sa


def test_by_hand():
    # "b" is dropped by the slice: the arrays start mid-buffer, as a block's labels can.
    strings = pa.array(["b", "", "a", "ab", "b", "é", "a"])[1:]
    assert sa.lengths(strings).tolist() == [0, 1, 2, 1, 2, 1]  # é is two bytes in UTF-8
    assert sa.text_bytes(strings) == 0 + 1 + 2 + 1 + 2 + 1
    # Byte order, a prefix first: "" < "a" < "ab" < "b" < "é" (0xC3 0xA9 after 0x62).
    codes, distinct = sa.sorted_distinct(strings)
    assert distinct.to_pylist() == ["", "a", "ab", "b", "é"]
    assert codes.tolist() == [0, 1, 2, 3, 4, 1]
    # First seen: "", "a", "ab", "b", "é", and the last "a" is code 1 again.
    codes, distinct = sa.first_seen_distinct(pa.array(["b", "a", "b", "c"]))
    assert distinct.to_pylist() == ["b", "a", "c"] and codes.tolist() == [0, 1, 0, 2]
    assert sa.decoded(pa.array(["x", "yy", ""]), np.array([1, 0, 2, 1])).to_pylist() == [
        "yy",
        "x",
        "",
        "yy",
    ]
    # Neighbours: "a" < "ab" (a prefix first), "ab" > "" no, "" < "b", "b" == "b" no.
    assert sa.increasing(pa.array(["a", "ab", "", "b", "b"])).tolist() == [
        True,
        False,
        True,
        False,
    ]


def test_nul_bytes_and_large_matrices_are_left_to_the_kernels():
    # numpy's bytes compare "a" and "a\0" equal: such strings are not handled here.
    assert sa.matrix(pa.array(["a", "a\x00"])) is None
    assert sa.sorted_distinct(pa.array(["a", "a\x00"])) is None
    assert sa.increasing(pa.array(["a", "a\x00"])) is None
    with mock.patch.object(sa, "MATRIX_BYTES", 5):  # 3 strings x 2 bytes = 6 > 5
        assert sa.first_seen_distinct(pa.array(["ab", "c", "d"])) is None
        assert sa.decoded(pa.array(["ab"]), np.array([0, 0, 0])) is None
        assert sa.first_seen_distinct(pa.array(["a", "c", "d"])) is not None  # 3 x 1
    with mock.patch.object(sa, "MOST_STRINGS", 2):  # 3 strings: Arrow's kernels are faster
        assert sa.sorted_distinct(pa.array(["a", "c", "d"])) is None
        assert sa.decoded(pa.array(["a", "c"]), np.array([0, 1, 1])) is None
        assert sa.decoded(pa.array(["a", "c"]), np.array([0, 1])) is not None


TEXT = st.text(alphabet=st.sampled_from(["a", "b", "Z", "0", "-", "é", "\u4e2d"]), max_size=6)


@settings(max_examples=150, deadline=None)
@given(st.lists(TEXT, max_size=40), st.integers(0, 3))
def test_what_arrows_kernels_give(values, start):
    strings = pa.array(["pad"] * start + values, pa.string())[start:]  # mid-buffer
    assert sa.lengths(strings).tolist() == pc.binary_length(strings).to_pylist()
    codes, distinct = sa.first_seen_distinct(strings)
    encoded = pc.dictionary_encode(strings)
    assert distinct.equals(encoded.dictionary)
    assert codes.tolist() == encoded.indices.to_pylist()
    codes, distinct = sa.sorted_distinct(strings)
    in_order = pc.array_sort_indices(encoded.dictionary)
    assert distinct.equals(encoded.dictionary.take(in_order))
    assert distinct.take(pa.array(codes)).equals(strings)
    picks = np.arange(len(values))[::-1] % max(len(distinct), 1)
    if len(distinct):
        assert sa.decoded(distinct, picks).equals(distinct.take(pa.array(picks)))
    if len(strings) > 1:
        greater = pc.greater(strings.slice(1), strings.slice(0, len(strings) - 1))
        assert sa.increasing(strings).tolist() == greater.to_pylist()


def test_a_small_evaluation_never_imports_the_kernels(tmp_path):
    """From small files whose run spans several read blocks (labels to unite), and a
    DataFrame run, `irscore evaluate` leaves `pyarrow._compute` (~11 MiB) unimported."""
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("".join(f"t{t} 0 d{d} {d % 3}\n" for t in range(30) for d in range(20)))
    run.write_text(
        "".join(f"t{t} Q0 d{d} {d + 1} {1 / (d + 1)} tag\n" for t in range(40) for d in range(50))
    )
    code = (
        "import io, sys, contextlib\n"
        "from irscore.cli import main\n"
        "from irscore.engine.reading import streams\n"
        "streams.PIECE = 4096\n"  # ~20 blocks
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        f"    main(['evaluate', '-q', '-m', 'all_trec', {str(qrels)!r}, {str(run)!r}])\n"
        "print(out.getvalue().count('\\n') > 1000, 'pyarrow._compute' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout == "True False\n", done.stderr


def test_the_kernels_and_numpy_give_the_same_evaluation(tmp_path):
    """With every string refused here (MOST_STRINGS 0) every label goes through Arrow's
    kernels: the output is the same bytes."""
    from irscore.cli import main

    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("".join(f"t{t % 7} 0 d{d} {d % 3}\n" for t in range(7) for d in range(30)))
    run.write_text("".join(f"t{t} Q0 d{d} 1 {d % 5} tag\n" for t in range(9) for d in range(40)))
    outputs = []
    for most in (0, sa.MOST_STRINGS):
        with mock.patch.object(sa, "MOST_STRINGS", most):
            out = tmp_path / f"out{most}"
            with open(out, "w") as stream, mock.patch.object(sys, "stdout", stream):
                assert main(["evaluate", "-q", "-m", "all_trec", str(qrels), str(run)]) == 0
            outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1] and len(outputs[0]) > 1000
