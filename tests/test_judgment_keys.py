"""The qrels reader's check that no document is judged twice for a topic, on docnos
read as plain strings: packed into one 64-bit key with the topic when they fit, hashed
into codes when they do not (long newswire-like docnos), across read blocks."""

import pytest

from irscore.engine import columns, joins, streams, trec

STYLES = {
    "short (packed)": lambda d: f"d{d}",
    "long (coded)": lambda d: f"FBIS4-LA{d:06d}-FT{d:02d}",
    "UTF-8 bytes (packed)": lambda d: f"doc-é{d}",
}


def qrels_text(style, topics=12, docs=40):
    """`topics` x `docs` judgments; topic t judges docno d, every docno judged by every
    topic (so a key without its topic would repeat)."""
    name = STYLES[style]
    return "".join(f"{t} 0 {name(d)} {d % 3}\n" for t in range(topics) for d in range(docs))


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("block", [64, streams.BLOCK])
def test_the_same_docno_under_other_topics_is_no_repeat(style, block, tmp_path, monkeypatch):
    monkeypatch.setattr(streams, "BLOCK", block)
    path = tmp_path / "q"
    path.write_text(qrels_text(style))
    records = trec.read_qrels_records(path)
    assert records.table.num_rows == 12 * 40
    assert records.table["docno"].type == "string"  # never hashed into a dictionary


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("block", [64, streams.BLOCK])
def test_a_docno_judged_twice_names_both_lines(style, block, tmp_path, monkeypatch):
    monkeypatch.setattr(streams, "BLOCK", block)
    lines = qrels_text(style).splitlines(keepends=True)
    # Line 100 (topic 2, its 20th docno: 2 x 40 + 19 + 1) again as line 301, grade changed.
    again = lines[99].rsplit(" ", 1)[0] + " 2\n"
    lines.insert(300, again)
    path = tmp_path / "q"
    path.write_text("".join(lines))
    docno = STYLES[style](19)
    with pytest.raises(trec.TrecFormatError) as info:
        trec.read_qrels_records(path)
    assert info.value.line_no == 301
    assert f"document {docno} is judged twice for topic 2 (first on line 100)" in str(info.value)


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
