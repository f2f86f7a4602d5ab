"""A streamed run's blocks hold about as many lines whatever their length
(`topic_blocks.block_bytes`): a run of long docnos (MS MARCO v2's, 55-byte lines) gets
more bytes a block than one of short lines, so its blocks are not more numerous."""

from __future__ import annotations

import gzip
import os

import pytest

from irscore.engine.reading import topic_blocks

LINE = topic_blocks.LINE  # 36 bytes


def lines_of(size: int, count: int) -> bytes:
    """`count` run lines of `size` bytes each, the newline included."""
    head = b"1 Q0 "
    tail = b" 1 2.5 r\n"
    docno = b"d" * (size - len(head) - len(tail))
    return (head + docno + tail) * count


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        (18, 1000),  # shorter than LINE: the block as given
        (36, 1000),  # LINE itself: 36 / 36 = 1
        (72, 2000),  # twice LINE: 1000 * 72 / 36
        (54, 1500),  # 1000 * 54 / 36
        (360, 4000),  # ten times LINE: at most LONGEST (4) blocks
    ],
)
def test_block_grows_with_the_mean_line_by_hand(tmp_path, size, expected):
    path = tmp_path / "run"
    path.write_bytes(lines_of(size, 50))
    assert topic_blocks.block_bytes(path, 1000) == expected


def test_the_mean_is_of_whole_lines_in_the_head(tmp_path, monkeypatch):
    """Past `_HEAD` bytes nothing is read: a run whose first lines are short and later
    ones long keeps the block; a cut line at the head's end does not count (100 lines
    of 72 bytes in a 1,000-byte head: 13 whole lines, 936 bytes, a mean of 72)."""
    path = tmp_path / "run"
    path.write_bytes(lines_of(18, topic_blocks._HEAD // 18 + 1) + lines_of(360, 100))
    assert topic_blocks.block_bytes(path, 1000) == 1000
    path.write_bytes(lines_of(72, 100))
    monkeypatch.setattr(topic_blocks, "_HEAD", 1000)
    assert topic_blocks.block_bytes(path, 1000) == 2000


def test_a_compressed_run_is_measured_decompressed(tmp_path):
    """A gzip file's bytes are not its lines: the decompressed head is measured."""
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(lines_of(72, 500)))
    assert topic_blocks.block_bytes(path, 1000) == 2000


def test_what_cannot_be_read_twice_or_at_all_keeps_the_block(tmp_path):
    """Standard input, a FIFO (reading it would lose its lines), a missing file and an
    empty one: the block as given, and the reader says what is wrong."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert topic_blocks.block_bytes("-", 1000) == 1000
    assert topic_blocks.block_bytes(fifo, 1000) == 1000
    assert topic_blocks.block_bytes(tmp_path / "missing", 1000) == 1000
    (tmp_path / "empty").write_bytes(b"")
    assert topic_blocks.block_bytes(tmp_path / "empty", 1000) == 1000
