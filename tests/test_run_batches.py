"""Several small TREC runs parsed as one (`run_batches.read_together`, on the workers of
`irscore evaluate` with many runs) give each file the records it gets read alone; any
file the joined parse cannot serve exactly sends the whole batch back to the per-file
reader (None), which names a bad line's file and line."""

from __future__ import annotations

import gzip
import os

import pytest
from cli_calls import called

from irscore.engine.reading import run_batches, trec

GOOD = [
    "1 Q0 d1 1 0.5 a\n1 Q0 d2 2 0.25 a\n2 Q0 d1 1 3 a\n",
    "2 Q0 d7 1 1e-3 b\n3 Q0 d1 1 -2 b\n",
    "1 Q0 x 3.0 7 c\n",  # a rank written as a whole float
]


def _together(paths: list[str]) -> list[trec.Records] | None:
    """`read_together` of the files at their sizes now, as `irscore evaluate` gives them."""
    return run_batches.read_together(paths, [os.path.getsize(path) for path in paths])


def _files(folder, texts: list[str | bytes]) -> list[str]:
    """Each text in a file of its own, in order."""
    paths = []
    for i, text in enumerate(texts):
        path = folder / f"run{i}"
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
        paths.append(str(path))
    return paths


@pytest.mark.parametrize("group_bytes", [1 << 20, 50], ids=["one-parse", "two-parses"])
def test_each_file_gets_the_records_it_gets_alone(tmp_path, monkeypatch, group_bytes):
    """Files parsed in one group, or in groups whose tables are combined (topics and tags
    coded anew across them)."""
    monkeypatch.setattr(run_batches, "GROUP_BYTES", group_bytes)
    paths = _files(tmp_path, GOOD)
    sizes = [os.path.getsize(path) for path in paths]
    groups = run_batches._groups(paths, sizes)
    assert [len(g) for g, _ in groups] == ([3] if group_bytes > 100 else [1, 2])
    together = _together(paths)
    assert together is not None
    for path, got in zip(paths, together, strict=True):
        alone = trec.read_run_records(path)
        assert got.table.to_pydict() == alone.table.to_pydict()
        assert got.table.schema.names == alone.table.schema.names
        assert (got.source, got.layout, got.bom) == (alone.source, alone.layout, alone.bom)
        assert len(got.skipped) == len(alone.skipped) == 0
    assert [r.table.num_rows for r in together] == [3, 2, 1]  # split by each file's lines


@pytest.mark.parametrize(
    "odd",
    [
        "1 Q0 d1 1 0.5 a\n1 Q0 d2 2 high a\n",  # a score that is no number
        "1 Q0 d1 1 0.5 a\n1 Q0 d2 2 0.4\n",  # a field short
        "1 Q0 d1 1 0.5 a\n1 Q0 d2 2 0.4 a extra\n",  # trec_eval's ignored extra field
        "1 Q0 d1 1 0.5 a\n# a comment\n",
        "1 Q0 d1 1 0.5 a\n\n1 Q0 d2 2 0.4 a\n",  # a blank line
        "1 Q0 d1 1 0.5 a",  # no line end at the end
        "\ufeff1 Q0 d1 1 0.5 a\n",  # a byte order mark
        "qid Q0 docno rank score tag\n1 Q0 d1 1 0.5 a\n",  # a header
        "1\tQ0\td1\t1\t0.5\ta\n",  # tabs, beside the other files' spaces
        "1,d1,0.5\n",  # CSV
        '{"1": {"d1": 0.5}}\n',  # JSON
        gzip.compress(b"1 Q0 d1 1 0.5 a\n", mtime=0),
        "1 Q0 d1 1.5 0.5 a\n",  # a rank that is no whole number (read, not refused)
        "1 Q0 d\x01 1 0.5 a\n",  # a control character
        "",
    ],
    ids=str.split(
        "malformed short extra comment blank unended bom header tabs csv json gzip "
        "fractional-rank control empty"
    ),
)
def test_a_file_the_joined_parse_cannot_serve_sends_the_batch_back(tmp_path, odd):
    paths = _files(tmp_path, [GOOD[0], odd, GOOD[1]])
    assert _together(paths) is None
    assert _together([paths[0], paths[2]]) is not None


def test_a_file_not_of_the_size_given_sends_the_batch_back(tmp_path):
    """The sizes are those `irscore evaluate` found when it made the batch: a file that
    has grown since (given a whole line short: its first line alone would parse) or
    shrunk (given a byte long) is read alone, as it is now."""
    paths = _files(tmp_path, GOOD)
    sizes = [os.path.getsize(path) for path in paths]
    assert run_batches.read_together(paths, sizes) is not None
    last = len(GOOD[1].splitlines(keepends=True)[-1])  # "3 Q0 d1 1 -2 b\n": 15 bytes
    for wrong in (sizes[1] - last, sizes[1] + 1):
        assert run_batches.read_together(paths, [sizes[0], wrong, sizes[2]]) is None


def test_files_of_another_layout_are_read_alone(tmp_path):
    """Lists (`topic docno`) have their ranks and tags made up per file (file order
    within a topic, the file's name): a joined parse would number across files."""
    paths = _files(tmp_path, ["1 d1\n1 d2\n", "1 d3\n"])
    assert trec.read_run_records(paths[1]).table["rank"].to_pylist() == [1]
    assert _together(paths) is None


def test_files_parsed_one_a_group_are_left_to_the_per_file_reader(tmp_path, monkeypatch):
    """Runs as large as a group gain nothing from being read together."""
    monkeypatch.setattr(run_batches, "GROUP_BYTES", 10)
    assert _together(_files(tmp_path, GOOD)) is None


def test_a_line_too_long_for_the_reader_sends_the_batch_back(tmp_path, monkeypatch):
    monkeypatch.setenv("IRSCORE_MAX_LINE", "64")
    paths = _files(tmp_path, [GOOD[0], f"1 Q0 {'d' * 40} 1 0.5 a\n"])
    assert _together(paths) is None
    assert _together([paths[0], paths[0]]) is not None


def test_a_bad_line_in_a_batch_is_reported_as_alone(tmp_path, monkeypatch):
    """The joined parse fails on run 3's line 2; the batch is read file by file, and the
    one error names that file and line, as `irscore evaluate` on it alone does."""
    monkeypatch.setenv("IRSCORE_PLAIN_BYTES", "0")  # the engine, on two forked workers
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 1\n2 0 d1 0\n3 0 d1 2\n")
    runs = _files(tmp_path, [*GOOD, "1 Q0 d1 1 0.5 z\n1 Q0 d2 2 nan? z\n", *GOOD])
    assert _together(runs) is None
    status, out, said = called("evaluate", "-q", "-m", "all_trec", str(qrels), *runs)
    alone = called("evaluate", "-q", "-m", "all_trec", str(qrels), runs[3])
    assert (status, out) == (2, "")
    assert alone[0] == 2 and f"{runs[3]}:2: score 'nan?' is not a" in alone[2]
    assert said.endswith(alone[2]) and said.count("error") == 1
