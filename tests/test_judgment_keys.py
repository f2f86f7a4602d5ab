"""The qrels reader's check that no document is judged twice for a topic, on docnos
read as plain strings: packed into one 64-bit key with the topic when they fit, hashed
into codes when they do not (long newswire-like docnos), across read blocks."""

import random

import pyarrow as pa
import pytest

from irscore.engine.reading import columns, streams, trec
from irscore.engine.system import joins, string_arrays

STYLES = {
    "short (packed)": lambda d: f"d{d}",
    "long (coded)": lambda d: f"FBIS4-LA{d:06d}-FT{d:02d}",
    "UTF-8 bytes (packed)": lambda d: f"doc-é{d}",
}


def qrels_text(style, order="sorted", topics=12, docs=40):
    """`topics` x `docs` judgments; topic t judges docno d, every docno judged by every
    topic (so a key without its topic would repeat). `order`: each topic's docnos in byte
    order (as TREC's qrels are sorted), shuffled within each topic, or every line shuffled."""
    name = STYLES[style]
    lines = [[f"{t} 0 {name(d)} {d % 3}\n" for d in range(docs)] for t in range(topics)]
    rng = random.Random(7)
    if order == "sorted":
        lines = [sorted(topic, key=lambda line: line.split()[2].encode()) for topic in lines]
    elif order == "shuffled within topics":
        lines = [rng.sample(topic, len(topic)) for topic in lines]
    flat = [line for topic in lines for line in topic]
    return "".join(rng.sample(flat, len(flat)) if order == "shuffled" else flat)


ORDERS = ["sorted", "shuffled within topics", "shuffled"]
INCREASING_WORDS = columns._increasing_words  # as it is, before a fixture turns it off


@pytest.fixture(autouse=True, params=["numpy", "two words", "Arrow's kernels"])
def strings_by(request, monkeypatch):
    """Small inputs compare and code docnos in numpy (`string_arrays`), large ones as two
    64-bit words each (docnos of at most 16 bytes) or with Arrow's kernels: each, on the
    same files."""
    if request.param != "numpy":
        monkeypatch.setattr(string_arrays, "MOST_STRINGS", 0)
    if request.param == "Arrow's kernels":
        monkeypatch.setattr(columns, "_increasing_words", lambda docno: None)
    return request.param


def test_increasing_words_by_hand():
    # "FBIS3-1" < "FBIS3-10" (a prefix first); equal is not increasing; "1" < "9";
    # "FBIS3-9" < "LA..."; 14 bytes: the high words "LA0101-0" tie, the low ones decide:
    # "001-AB" > "001-A" (not increasing), then "001-A" < "001-B".
    docnos = ["FBIS3-1", "FBIS3-10", "FBIS3-10", "FBIS3-9", "LA0101-0001-AB", "LA0101-0001-A"]
    docnos.append("LA0101-0001-B")
    found = INCREASING_WORDS(pa.array(docnos))
    assert found.tolist() == [True, False, True, True, False, True]
    assert INCREASING_WORDS(pa.array(["x" * 17, "y"])) is None  # past two words


@pytest.mark.parametrize("compared", [1, 2, 3, 1 << 20])
def test_increasing_words_a_slice_at_a_time(compared, monkeypatch):
    # slices of 1 to 3 neighbours and one of all: the same answer as the kernel's
    monkeypatch.setattr(columns, "_COMPARED", compared)
    docnos = pa.array(["FBIS3-1", "FBIS3-10", "FBIS3-10", "FBIS3-9", "LA0101-0001-AB", "A"])
    expected = [True, False, True, True, False]  # "A" < "LA..."
    assert INCREASING_WORDS(docnos).tolist() == expected
    assert INCREASING_WORDS(pa.array(["a"])).tolist() == []


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("block", [64, streams.BLOCK])
def test_the_same_docno_under_other_topics_is_no_repeat(style, order, block, tmp_path, monkeypatch):
    monkeypatch.setattr(streams, "BLOCK", block)
    path = tmp_path / "q"
    path.write_text(qrels_text(style, order))
    records = trec.read_qrels_records(path)
    assert records.table.num_rows == 12 * 40
    assert records.table["docno"].type == "string"  # never hashed into a dictionary
    assert columns._in_order(records.table) == (order == "sorted")


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("block", [64, streams.BLOCK])
def test_a_docno_judged_twice_names_both_lines(style, order, block, tmp_path, monkeypatch):
    monkeypatch.setattr(streams, "BLOCK", block)
    lines = qrels_text(style, order).splitlines(keepends=True)
    # Line 100 again as line 301, its grade changed.
    topic, _, docno, _ = lines[99].split()
    lines.insert(300, f"{topic} 0 {docno} 7\n")
    path = tmp_path / "q"
    path.write_text("".join(lines))
    with pytest.raises(trec.TrecFormatError) as info:
        trec.read_qrels_records(path)
    assert info.value.line_no == 301
    assert f"document {docno} is judged twice for topic {topic} (first on line 100)" in str(
        info.value
    )


@pytest.mark.parametrize("style", STYLES)
def test_a_repeat_next_to_its_first_in_a_sorted_file_is_found(style, tmp_path):
    """Neighbours equal, not increasing: the sorted file's shortcut does not apply."""
    lines = qrels_text(style).splitlines(keepends=True)
    topic, _, docno, _ = lines[44].split()  # topic 1's 5th docno in byte order
    lines.insert(45, f"{topic} 0 {docno} 2\n")
    path = tmp_path / "q"
    path.write_text("".join(lines))
    with pytest.raises(trec.TrecFormatError, match=r"q:46: .* \(first on line 45\)"):
        trec.read_qrels_records(path)


def test_which_docnos_pack():
    """Both paths of the key are taken. 'd0'..'d39' pack: 12 topics x base 54 (bytes '0'
    to 'd' by their distance from '0', plus the pad) ** 3 places. So does 'doc-é39':
    12 x (0xC3 - '-' + 2 = 152) ** 7 < 2 ** 64. The 20-byte docnos do not: by distance,
    12 x ('T' - '-' + 2 = 41) ** 20, by rank, 12 x (18 bytes used + 1) ** 20, both past
    2 ** 64."""
    import numpy as np
    import pyarrow as pa

    topic = np.zeros(40, dtype=np.int32)
    topic[-1] = 11
    short = pa.array([STYLES["short (packed)"](d) for d in range(40)])
    long = pa.array([STYLES["long (coded)"](d) for d in range(40)])
    assert joins.packed(topic, short) is not None
    assert (
        joins.packed(topic, pa.array([STYLES["UTF-8 bytes (packed)"](d) for d in range(40)]))
        is not None
    )
    assert joins.packed(topic, long) is None
    assert columns._first_repeat(np.array([5, 3, 9, 3, 5])) == (3, 1)  # row 3 repeats row 1
    assert columns._first_repeat(np.array([5, 3, 9])) is None
