"""Reading inputs once, from anywhere, in the workbench's formats.

Standard input, FIFOs, process substitution, compressed files recognised by
their bytes, comment lines on the fast path, line numbers across blocks, the
non-UTF-8 message, CSV/TSV/list layouts and their detection, and the messages
that name a line (duplicates, ambiguity).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import re
import subprocess
import sys
import threading
from unittest import mock

import pytest
from cli_calls import called as run_cli

from irscore.engine.reading import streams, trec
from irscore.engine.reading.trec import TrecFormatError, copy_checked_run, read_qrels, read_run

RUN = "1 Q0 a 1 0.9 t\n1 Q0 b 2 0.5 t\n2 Q0 c 1 0.7 t\n"
QRELS = "1 0 a 0\n1 0 b 1\n2 0 c 1\n"


def rows(frame) -> list[tuple]:
    return [tuple(row) for row in frame.astype(object).itertuples(index=False)]


EXPECTED_RUN = [("1", "a", 1, 0.9, "t"), ("1", "b", 2, 0.5, "t"), ("2", "c", 1, 0.7, "t")]


def test_dash_reads_standard_input(monkeypatch):
    stdin = io.TextIOWrapper(io.BufferedReader(io.BytesIO(RUN.encode())))
    monkeypatch.setattr(sys, "stdin", stdin)
    run = read_run("-")
    assert rows(run) == EXPECTED_RUN
    assert run.attrs["source"] == "<stdin>"


def test_dash_on_the_command_line(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    done = subprocess.run(
        [sys.executable, "-m", "irscore", "evaluate", "-m", "P.1", str(tmp_path / "q"), "-"],
        input=RUN,
        capture_output=True,
        text=True,
    )
    # topic 1: a (grade 0) first, P@1 = 0; topic 2: c relevant, P@1 = 1; mean 1/2
    assert done.stdout == "P_1                   \tall\t0.5000\n", done.stderr


def _fifo(tmp_path, data: bytes):
    """A named pipe that a thread fills with `data` once a reader opens it."""
    path = tmp_path / "fifo"
    os.mkfifo(path)

    def fill():
        with open(path, "wb") as pipe:
            pipe.write(data)

    writer = threading.Thread(target=fill, daemon=True)
    writer.start()
    return path, writer


def test_fifo_is_read_once(tmp_path):
    path, writer = _fifo(tmp_path, RUN.encode())
    assert rows(read_run(path)) == EXPECTED_RUN
    writer.join(5)


def test_bad_line_in_a_fifo_names_its_line_without_hanging(tmp_path):
    path, writer = _fifo(tmp_path, b"# c\n1 Q0 a 1 0.9 t\n1  Q0 b 2 high t\n")
    with pytest.raises(TrecFormatError) as info:
        read_run(path)
    assert info.value.line_no == 3 and "score 'high'" in info.value.problem
    writer.join(5)


def test_process_substitution(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    script = (
        f"{sys.executable} -m irscore evaluate -m P.1 {tmp_path / 'q'} <(cat {tmp_path / 'r'}) "
        f"<(gzip -c {tmp_path / 'r'})"
    )
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    # two runs of one tag: each block named by its file, as several runs are
    block = r"runid                 \tall\t/dev/fd/\d+\nP_1                   \tall\t0\.5000\n"
    assert re.fullmatch(block * 2, done.stdout), done.stdout


@pytest.mark.parametrize(
    ("compress", "name"),
    [(gzip.compress, "run.txt"), (bz2.compress, "run.gz"), (lzma.compress, "run")],
    ids=["gzip", "bzip2", "xz"],
)
def test_compressed_by_content_not_name(tmp_path, compress, name):
    path = tmp_path / name
    path.write_bytes(compress(RUN.encode()))
    assert rows(read_run(path)) == EXPECTED_RUN
    plain = tmp_path / "plain.gz"  # a misleading name on a plain file
    plain.write_text(RUN)
    assert rows(read_run(plain)) == EXPECTED_RUN


def test_truncated_gzip_is_one_line_not_a_dump(tmp_path):
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(RUN.encode() * 50)[:40])
    status, out, err = run_cli("evaluate", str(path), str(path))
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "not a valid gzip stream" in err and "\\x" not in err


def test_errors_inside_compressed_files_name_the_line(tmp_path):
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(b"1 Q0 a 1 0.9 t\n1 Q0 b 2 x t\n"))
    with pytest.raises(TrecFormatError) as info:
        read_run(path)
    assert (info.value.path, info.value.line_no) == (str(path), 2)


@pytest.mark.parametrize(
    ("data", "line_no", "offset", "column"),
    [
        (b"1 0 a 1\n1 0 b\xff 1\n", 2, 13, 6),  # 8 bytes of line 1, then `1 0 b`
        (b"\xc3\n", 1, 0, 1),  # a truncated sequence, in the line that fixes the format
        (b"# caf\xe9\n1 0 a 1\n", 1, 5, 6),  # Latin-1 in a comment
    ],
)
def test_non_utf8_names_line_byte_and_offset(tmp_path, data, line_no, offset, column):
    path = tmp_path / "q"
    path.write_bytes(data)
    with pytest.raises(TrecFormatError) as info:
        read_qrels(path)
    bad = data[offset : offset + 1].hex()
    assert info.value.line_no == line_no
    assert f"byte 0x{bad} at byte offset {offset} (column {column})" in info.value.problem


def test_binary_input_is_not_dumped(tmp_path):
    path = tmp_path / "q"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40)
    status, _, err = run_cli("evaluate", str(path), str(path))
    assert status == 2 and err.count("\n") == 1 and len(err) < 400


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_line_numbers_across_blocks(tmp_path, monkeypatch, newline):
    """Blocks of 40 bytes: comments, blank lines and records straddle block ends. The
    fast path counts a block's lines as records, comments and blank lines."""
    lines = ["# head", "", *(f"{t} Q0 d{i} {i} {1 - i / 100} t" for t in (1, 2) for i in range(9))]
    lines[7] = "# in the middle"
    lines.insert(12, "")
    text = newline.join(lines) + newline
    path = tmp_path / "r"
    path.write_bytes(text.encode())
    whole = read_run(path)
    monkeypatch.setattr(streams, "BLOCK", 40)
    split = read_run(path)
    assert rows(split) == rows(whole)
    records = trec.read_run_records(path)
    data_lines = [n for n, line in enumerate(lines, 1) if line and not line.startswith("#")]
    assert [records.line_of(row) for row in range(records.table.num_rows)] == data_lines
    bad = tmp_path / "bad"
    bad.write_bytes(text.replace("2 Q0 d5 5", "2 Q0 d5 five").encode())
    with pytest.raises(TrecFormatError) as info:  # the rank, for tie-break rank
        trec.read_run_records(bad).check_ranks()
    assert info.value.line_no == lines.index("2 Q0 d5 5 0.95 t") + 1


def test_a_small_plain_file_is_read_in_one_block_of_its_size(monkeypatch, tmp_path):
    """A read asks for what an uncompressed regular file can hold (its size and a byte),
    not a whole BLOCK; a compressed stream, a pipe or a file as large as a block gets
    BLOCK. Either way the lines come out the same."""
    path = tmp_path / "r"
    path.write_bytes(b"1 Q0 d1 1 0.5 t\n" * 3)  # 16 bytes a line: 48 in all
    with open(path, "rb") as stream:
        assert streams.block_size(stream, None) == 49
        assert streams.block_size(stream, "gzip") == streams.BLOCK
    assert streams.block_size(io.BytesIO(b"x"), None) == streams.BLOCK
    read, write = os.pipe()
    with os.fdopen(read, "rb") as pipe, os.fdopen(write, "wb"):
        assert streams.block_size(pipe, None) == streams.BLOCK
    monkeypatch.setattr(streams, "BLOCK", 32)  # smaller than the file: the block
    with open(path, "rb") as stream:
        assert streams.block_size(stream, None) == 32
    assert read_run(path)["docno"].tolist() == ["d1"] * 3


def test_string_chunks_are_concatenated_a_chunk_at_a_time():
    """`combine`'s strings: a chunk that starts mid-buffer (a slice) and an empty one
    join the others in order, and the list of chunks is emptied as they are copied."""
    import pyarrow as pa

    from irscore.engine.reading import columns

    chunks = [pa.array(["ab", "c"]), pa.array(["x", "yz", "w"]).slice(1), pa.array([], pa.string())]
    joined = columns._concat_strings(chunks)
    assert joined.to_pylist() == ["ab", "c", "yz", "w"] and joined.type == pa.string()
    assert chunks == []


@pytest.mark.parametrize("piece", [1, 2, 3, 1 << 20])
def test_line_ends_are_counted_in_every_piece(monkeypatch, piece):
    """`line_ends` counts a block a piece at a time: "a\\n\\nbc\\r\\nd\\n" holds 4 line ends
    (bytes 1, 2, 6 and 8), whether pieces of 1, 2 or 3 bytes split them or one holds all."""
    from irscore.engine.reading import columns

    monkeypatch.setattr(streams, "PIECE", piece)
    assert columns.line_ends(b"a\n\nbc\r\nd\n") == 4
    assert columns.line_ends(b"no line end") == 0
    assert columns.line_ends(b"") == 0


@pytest.mark.parametrize("sep", [" ", "\t"])
def test_an_empty_q0_field_is_an_error_though_q0_is_not_converted(tmp_path, sep):
    """The fast path leaves Q0 unconverted; a doubled delimiter (an empty Q0 between
    topic and docno) must still reach the careful reader, which names the line."""
    lines = [f"1{sep}Q0{sep}d{i}{sep}{i}{sep}0.5{sep}t" for i in range(1, 5)]
    lines[2] = f"1{sep}{sep}d3{sep}3{sep}0.5{sep}t"
    path = tmp_path / "r"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TrecFormatError) as info:
        read_run(path)
    assert info.value.line_no == 3
    assert info.value.problem == "expected 6 columns, found 5"


def test_comment_lines_stay_on_the_fast_path(tmp_path):
    path = tmp_path / "r"
    path.write_text("# run of 2024\n" + RUN.replace("\n2 ", "\n# topic 2\n2 ", 1))
    with mock.patch.object(trec, "slow_columns", wraps=trec.slow_columns) as slow:
        assert rows(read_run(path)) == EXPECTED_RUN
    assert slow.call_count == 0


def test_duplicate_document_names_its_line_and_the_flag(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text("# c\n1 Q0 a 1 0.9 t\n\n1 Q0 b 2 0.5 t\n1 Q0 a 3 0.4 t\n")
    status, out, err = run_cli("evaluate", str(tmp_path / "q"), str(tmp_path / "r"))
    assert status == 2 and out == ""
    assert err == (
        f"irscore: error: {tmp_path / 'r'}:5: document a appears more than once for topic 1 "
        "(first on line 2); --duplicates first keeps the first one\n"
    )


# ---------------------------------------------------------------------------------------
# the workbench's formats


def _read(tmp_path, reader, text, name="f", **kw):
    path = tmp_path / name
    path.write_text(text)
    return reader(path, **kw)


@pytest.mark.parametrize(
    "text",
    [
        "1,a,0\n1,b,1\n2,c,1\n",  # CSV without a header
        "qid,docno,grade\n1,a,0\n1,b,1\n2,c,1\n",
        "docno,query,rel\na,1,0\nb,1,1\nc,2,1\n",  # columns in any order, other names
        "qid\tdoc\tlabel\n1\ta\t0\n1\tb\t1\n2\tc\t1\n",  # TSV with a header
        "1\ta\t0\n1\tb\t1\n2\tc\t1\n",  # TSV without
        "# judged by hand\nQID, DOCNO, GRADE\n1, a, 0\n1,b ,1\n\n2,c,1\n",  # spaces, comment
    ],
)
def test_qrels_csv_and_tsv(tmp_path, text):
    qrels = _read(tmp_path, read_qrels, text)
    assert rows(qrels) == [("1", "a", 0), ("1", "b", 1), ("2", "c", 1)]


@pytest.mark.parametrize(
    "text",
    [
        "1,a,0.9\n1,b,0.5\n2,c,0.7\n",
        "qid,docno,score\n1,a,0.9\n1,b,0.5\n2,c,0.7\n",
        "query\tdoc\tscore\n1\ta\t0.9\n1\tb\t0.5\n2\tc\t0.7\n",
        "1\ta\t0.9\n1\tb\t0.5\n2\tc\t0.7\n",
    ],
)
def test_run_csv_and_tsv_with_scores(tmp_path, text):
    run = _read(tmp_path, read_run, text, "bm25.csv")
    # no rank column: each topic's rows numbered in file order; the tag is the file's name
    assert rows(run) == [
        ("1", "a", 1, 0.9, "bm25"),
        ("1", "b", 2, 0.5, "bm25"),
        ("2", "c", 1, 0.7, "bm25"),
    ]


def test_run_with_a_rank_column_instead_of_scores(tmp_path):
    run = _read(tmp_path, read_run, "qid,docno,rank\n1,b,2\n1,a,1\n2,c,1\n")
    # lower ranks first: score = -rank, so a (rank 1) outscores b (rank 2)
    assert rows(run) == [
        ("1", "b", 2, -2.0, "f"),
        ("1", "a", 1, -1.0, "f"),
        ("2", "c", 1, -1.0, "f"),
    ]


@pytest.mark.parametrize(
    "text", ["1 a\n1 b\n2 c\n", "qid docno\n1 a\n1 b\n2 c\n", "1,a\n1,b\n2,c\n"]
)
def test_bare_list_keeps_its_order(tmp_path, text):
    run = _read(tmp_path, read_run, text, "mine.txt")
    assert rows(run) == [
        ("1", "a", 1, -1.0, "mine"),
        ("1", "b", 2, -2.0, "mine"),
        ("2", "c", 1, -1.0, "mine"),
    ]


def test_every_format_scores_like_the_trec_run(tmp_path):
    """The same ranking as TREC, CSV, TSV with ranks, and a list: the same trec_eval lines."""
    (tmp_path / "q").write_text(QRELS)
    texts = {
        "trec": RUN,
        "csv": "1,a,0.9\n1,b,0.5\n2,c,0.7\n",
        "tsv": "qid\tdocno\trank\n1\ta\t1\n1\tb\t2\n2\tc\t1\n",
        "list": "1 a\n1 b\n2 c\n",
    }
    outputs = set()
    for name, text in texts.items():
        (tmp_path / name).write_text(text)
        status, out, err = run_cli(
            "evaluate", "-m", "map", "-m", "P.1", str(tmp_path / "q"), str(tmp_path / name)
        )
        assert status == 0, err
        outputs.add(out)
    # topic 1: b relevant at rank 2, AP = 1/2; topic 2: AP = 1; MAP = 3/4; P@1 = (0 + 1) / 2
    assert outputs == {"map                   \tall\t0.7500\nP_1                   \tall\t0.5000\n"}


def test_verbose_states_the_detected_format(tmp_path):
    (tmp_path / "q.csv").write_text("qid,docno,grade\n1,a,0\n1,b,1\n2,c,1\n")
    (tmp_path / "r.gz").write_bytes(gzip.compress(RUN.encode()))
    status, _, err = run_cli(
        "evaluate", "--verbose", "-m", "P.1", str(tmp_path / "q.csv"), str(tmp_path / "r.gz")
    )
    assert status == 0
    csv = "CSV with a header (columns: topic, docno, grade)"
    assert err == (
        f"irscore: {tmp_path / 'q.csv'}: {csv}, 3 records\n"
        f"irscore: {tmp_path / 'r.gz'}: TREC format, gzip-compressed, 3 records\n"
    )


def test_ambiguous_file_says_how_to_force_it(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    # a comma and a space: CSV `1 | doc one` or a list `1,doc | one`?
    (tmp_path / "r").write_text("1,doc one\n1,a\n")
    status, _, err = run_cli("evaluate", str(tmp_path / "q"), str(tmp_path / "r"))
    assert status == 2 and f"{tmp_path / 'r'}:1:" in err and "--run-format" in err
    forced = read_run(tmp_path / "r", fmt="csv")
    assert forced["docno"].tolist() == ["doc one", "a"]


@pytest.mark.parametrize(
    ("reader", "text", "problem"),
    [
        (read_qrels, "qid,docno\n1,a\n", "lacks grade"),
        (read_run, "qid,docno,score,grade\n1,a,1,2\n", "has grade"),
        (read_run, "qid,qid,docno\n1,1,a\n", "names a column twice"),
    ],
)
def test_bad_headers_when_the_format_is_named(tmp_path, reader, text, problem):
    with pytest.raises(TrecFormatError) as info:
        _read(tmp_path, reader, text, fmt="csv")
    assert info.value.line_no == 1 and problem in info.value.problem


@pytest.mark.parametrize(
    ("text", "line_no", "problem"),
    [
        ("1,a,0.9\n1,b\n", 2, "expected 3 columns, found 2"),
        ("1,a,0.9\n1,b,high\n", 2, "score 'high'"),
        ("1,a,0.9\n1,,0.5\n", 2, "a field is empty"),
        ("qid,docno,rank\n1,a,1\n1,b,2.5\n", 3, "rank '2.5'"),
    ],
)
def test_csv_errors_name_the_line(tmp_path, text, line_no, problem):
    with pytest.raises(TrecFormatError) as info:
        _read(tmp_path, read_run, text)
    assert info.value.line_no == line_no and problem in info.value.problem


def test_external_run_in_csv_is_copied_as_trec(tmp_path):
    source = tmp_path / "theirs.csv.gz"
    source.write_bytes(gzip.compress(b"qid,docno,score\n1,a,0.9\n1,b,0.5\n"))
    copy_checked_run(source, tmp_path / "theirs.run")
    assert (tmp_path / "theirs.run").read_text() == "1 Q0 a 1 0.9 theirs\n1 Q0 b 2 0.5 theirs\n"


@pytest.mark.parametrize(("block", "piece"), [(1 << 24, 1 << 20), (4096, 4096), (600, 256)])
def test_chunks_with_dictionaries_of_different_sizes_combine(tmp_path, monkeypatch, block, piece):
    """Arrow hands each piece of a block its own dictionary of topics: a piece with
    few topics (int8 codes) beside one with hundreds (int16) once crashed the reader
    (`Array chunks must all be same type`), as on MS MARCO dev's 6,980 queries x 100.
    Ranks are narrowed per column too: one piece's ranks over 2^31 keep float64 for all."""
    lines = [f"{t} Q0 {t * 1000 + i} {i} {1 - i / 10} t" for t in range(700) for i in range(1, 4)]
    lines.append(f"700 Q0 5 {2**31 + 7} 0.5 t")
    path = tmp_path / "r"
    path.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(streams, "BLOCK", block)
    monkeypatch.setattr(streams, "PIECE", piece)
    run = read_run(path)
    assert len(run) == len(lines)
    assert run["topic"].astype(str).tolist()[-4:] == ["699", "699", "699", "700"]
    assert run["docno"].astype(str).tolist()[:2] == ["1", "2"]
    assert run["rank"].tolist()[-1] == 2**31 + 7


def test_small_inputs_read_as_runs_are(tmp_path):
    """Preferences, judgment groups and z-scores are read through `trec.data_lines`:
    compressed or not, a byte order mark skipped, blank and `#` lines skipped with their
    numbers kept, and a line that is not UTF-8 is an error naming it."""
    import gzip

    text = "\ufeff1 a b\n\n# note\n2 c d\r\n"
    plain, packed, bad = tmp_path / "plain", tmp_path / "packed.gz", tmp_path / "bad"
    plain.write_text(text, encoding="utf-8")
    packed.write_bytes(gzip.compress(text.encode()))
    expected = [(1, "1 a b", ["1", "a", "b"]), (4, "2 c d", ["2", "c", "d"])]
    assert list(trec.data_lines(plain)) == expected
    assert list(trec.data_lines(packed)) == expected
    bad.write_bytes(b"1 a b\n2 \xff d\n")
    with pytest.raises(TrecFormatError) as info:
        list(trec.data_lines(bad))
    assert info.value.line_no == 2
    assert "byte offset 8" in str(info.value)


@pytest.mark.parametrize(
    ("data", "ascii_only"),
    [
        (b"", True),
        (b"1 Q0 d1 1 2.5 run\n", True),
        (b"1 Q0 d\x7f 1 2.5 run\n", True),  # DEL: the last ASCII byte
        (b"1 Q0 d\xc3\xa9 1 2.5 run\n", False),  # UTF-8's two bytes of an accented e
        (b"1 Q0 d1 1 2.5 run\n" * 1000 + b"\x80", False),  # the last byte alone
    ],
)
def test_a_block_of_ascii_bytes_skips_arrows_utf8_check(data, ascii_only):
    from irscore.engine.reading.columns import is_ascii

    assert is_ascii(data) is ascii_only
