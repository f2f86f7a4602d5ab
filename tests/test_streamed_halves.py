"""A large run grouped by topic is read in two parts on both cores (`irscore.cli.streamed`
`_in_halves`): this process scores the blocks before a topic's first line near the
middle (`topic_blocks.halfway`), a forked child the rest, and this process takes in the
child's spool. The text is one pass's, and anything the child cannot do (a bad line,
a topic that comes back, a failure) is done here again, so errors are one pass's too.
"""

from __future__ import annotations

import gzip
import io
import os
import signal
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from test_halves import signalled_once_forked
from test_streamed import every_run_streamed, qrels_lines, run_lines, whole, written

from irscore.cli import main
from irscore.engine.reading import topic_blocks
from irscore.engine.system import forked

pytestmark = pytest.mark.skipif(not forked.possible(), reason="needs os.fork and two cores")


@pytest.fixture
def halves(monkeypatch, tmp_path):
    """`irscore evaluate` in this process, every run streamed in blocks of ~1,000 bytes:
    run(flags, qrels, run, halves=True) -> (status, stdout, stderr), with `.children`
    (per call of `forked.on_two_cores` in the last run: whether the child's part came
    back) and `.temporary` (the temporary folder, to be left empty)."""
    temporary = every_run_streamed(monkeypatch, tmp_path, 1000)
    children: list[bool] = []
    on_two_cores = forked.on_two_cores

    def counted(work, parts):
        done = on_two_cores(work, parts)
        children.append(done is not None)
        return done

    monkeypatch.setattr(forked, "on_two_cores", counted)
    halfway = topic_blocks.halfway

    def run(flags: list[str], qrels: Path, run_path: Path, halves: bool = True):
        children.clear()
        monkeypatch.setattr(topic_blocks, "halfway", halfway if halves else lambda path, fmt: None)
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            status = main(["evaluate", *flags, str(qrels), str(run_path)])
        return status, out.getvalue(), err.getvalue()

    run.children, run.temporary = children, temporary
    return run


FLAG_SETS = (["-q", "-c", "-m", "all_trec"], ["-c", "-m", "official"], ["-q", "-m", "P.5"])


def test_both_parts_give_the_bytes_of_one_pass(halves, tmp_path):
    """60 topics (grouped, in numeric order: not strcmp's), many ties: the child scores
    the topics from about the 31st on, and the text, the `all` lines (sums in topic
    order) and -c's two judged topics no run names are one pass's."""
    qrels = written(tmp_path / "q", qrels_lines(60, 40))
    run = written(tmp_path / "r", run_lines(60, 40))
    for flags in FLAG_SETS:
        status, out, err = halves(flags, qrels, run)
        assert status == 0, err
        assert halves.children == [True]  # the child's part came back and was taken in
        assert out == whole(flags, qrels, run)
    assert halves(["-c", "-m", "num_q"], qrels, run)[1] == "num_q                 \tall\t62\n"
    assert list(halves.temporary.iterdir()) == []


def test_the_runid_is_the_last_lines_tag_from_the_childs_part(halves, tmp_path):
    """trec_eval's runid is the tag of the run's last line: the child read it."""
    qrels = written(tmp_path / "q", qrels_lines(20, 20))
    lines = run_lines(20, 20)
    lines[-1] = lines[-1].replace(" tag\n", " last\n")
    run = written(tmp_path / "r", lines)
    status, out, err = halves(["-m", "runid", "-m", "P.5"], qrels, run)
    assert status == 0, err
    assert halves.children == [True]
    assert out.splitlines()[0] == "runid                 \tall\tlast"


@pytest.mark.parametrize("where", ["first part", "second part", "both parts"])
def test_a_bad_line_is_one_passs_error(halves, tmp_path, where):
    """A bad score in the child's part is raised here as one pass raises it (the same
    line, counted from the file's start, past a comment and blank lines in that part);
    with another in the first part, that one, as one pass finds it first."""
    qrels = written(tmp_path / "q", qrels_lines(40, 20))
    lines = run_lines(40, 20)
    lines[600:600] = ["# a comment in the second part\n", "\n"]
    if where != "first part":
        fields = lines[700].split()
        fields[4] = "high"
        lines[700] = " ".join(fields) + "\n"
    if where != "second part":
        fields = lines[100].split()
        fields[4] = "low"
        lines[100] = " ".join(fields) + "\n"
    run = written(tmp_path / "r", lines)
    alone = halves(["-m", "map"], qrels, run, halves=False)
    status, out, err = halves(["-m", "map"], qrels, run)
    assert (status, out, err) == alone
    assert status == 2 and out == ""
    line = 701 if where == "second part" else 101
    assert f":{line}:" in err or f"line {line}" in err, err
    assert list(halves.temporary.iterdir()) == []


def test_a_topic_in_both_parts_is_read_again_through_the_spill(halves, tmp_path):
    """Topic 3 again at the end (the run is not grouped by topic): each part is grouped
    on its own, but one pass finds the topic twice; the run is then read through the
    spill, to the bytes of the whole run."""
    qrels = written(tmp_path / "q", qrels_lines(40, 20))
    lines = run_lines(40, 20)
    lines += [line.replace("x", "y", 1) for line in lines[40:60]]  # topic 3's documents again
    run = written(tmp_path / "r", lines)
    for flags in FLAG_SETS:
        status, out, err = halves(flags, qrels, run)
        assert status == 0, err
        assert halves.children == [True]
        assert out == whole(flags, qrels, run)
    assert list(halves.temporary.iterdir()) == []


def test_a_topic_that_comes_back_in_the_childs_part_is_read_through_the_spill(halves, tmp_path):
    """The child's part is not grouped: it fails, this process reads that part itself,
    finds the topic again and the run is read through the spill."""
    qrels = written(tmp_path / "q", qrels_lines(40, 20))
    lines = run_lines(40, 20)
    lines[700:700] = [line.replace("x", "y", 1) for line in lines[760:770]]  # topic 39 early
    one_pass_after_the_child_failed(halves, qrels, written(tmp_path / "r", lines))


@pytest.mark.parametrize("grouped", [True, False], ids=["grouped", "a topic in both parts"])
def test_a_child_that_fails_leaves_its_part_to_this_process(halves, tmp_path, monkeypatch, grouped):
    """Whatever ends the child (here an exception where it starts its part), this
    process reads that part itself, to the same bytes; a topic found again there, from
    the first part, sends the run through the spill."""
    from irscore.engine.reading import run_parts

    def fails(*args, **kwargs):
        raise RuntimeError("the child fails")

    monkeypatch.setattr(run_parts.RunParts, "from_byte", fails)
    qrels = written(tmp_path / "q", qrels_lines(60, 40))
    lines = run_lines(60, 40)
    if not grouped:
        lines += [line.replace("x", "y", 1) for line in lines[80:120]]  # topic 3 again
    one_pass_after_the_child_failed(halves, qrels, written(tmp_path / "r", lines))


def one_pass_after_the_child_failed(halves, qrels: Path, run: Path) -> None:
    """The run's text under -q -c all_trec is the whole run's, the child having failed."""
    flags = ["-q", "-c", "-m", "all_trec"]
    status, out, err = halves(flags, qrels, run)
    assert status == 0, err
    assert halves.children == [False]
    assert out == whole(flags, qrels, run)


def test_where_a_run_can_be_cut(tmp_path):
    """`halfway`: a topic's first line past the middle of a plain TREC file, with the
    first line's layout; None for a compressed run, a CSV or TSV one, a run that starts
    with a comment or a byte order mark, one topic past the middle, or a comment or a
    blank line where the cut is looked for."""
    lines = run_lines(11, 50)  # the middle inside topic 6's lines (250 to 299)
    plain = written(tmp_path / "plain", lines)
    text = plain.read_bytes()
    at, layout = topic_blocks.halfway(plain, "auto")
    assert layout.name == "trec" and not layout.header
    assert at > len(text) // 2 and text[at - 1 : at] == b"\n"
    before, after = text[:at].splitlines()[-1], text[at:].splitlines()[0]
    assert before.split()[0] != after.split()[0]  # a topic starts there
    assert text[len(text) // 2 : at].count(b"\n") <= 50  # within one topic of the middle
    assert topic_blocks.halfway(plain, "trec") == (at, layout)
    (tmp_path / "gz").write_bytes(gzip.compress(text))
    odd = {
        "gz": tmp_path / "gz",
        "csv with a header": written(
            tmp_path / "csv",
            ["qid,docid,rank,score\n"]
            + [",".join(line.split()[0:4:2] + line.split()[3:5]) + "\n" for line in lines],
        ),
        "tsv": written(tmp_path / "tsv", ["\t".join(line.split()[0:5:2]) + "\n" for line in lines]),
        "comment first": written(tmp_path / "comment", ["# run\n", *lines]),
        "byte order mark": written(tmp_path / "bom", ["\ufeff" + lines[0], *lines[1:]]),
        "one topic": written(tmp_path / "one", [f"7 {line.split(' ', 1)[1]}" for line in lines]),
        "comment at the middle": written(
            tmp_path / "middle", [*lines[:285], "# here\n", *lines[285:]]
        ),
        "blank at the middle": written(tmp_path / "blank", [*lines[:287], "\n", *lines[287:]]),
    }
    for name, path in odd.items():
        assert topic_blocks.halfway(path, "auto") is None, name
    assert topic_blocks.halfway(tmp_path / "missing", "auto") is None


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux's /proc")
@pytest.mark.parametrize(
    ("signum", "line"),
    [
        (signal.SIGINT, b"irscore: interrupted\n"),
        (signal.SIGTERM, b"irscore: terminated (SIGTERM)\n"),
    ],
    ids=["INT", "TERM"],
)
def test_a_signal_while_both_parts_score(tmp_path, signum, line):
    """Ctrl-C (to the process group, as a terminal sends it) or SIGTERM (to the command)
    once the child scores its part of a 70 MB run: one line, status 128 + the signal,
    no child left, nothing left in the temporary folder."""
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("".join(f"{t} 0 d{t}x7 1\n" for t in range(2000)))
    with open(run, "w") as out:
        for t in range(2000):  # 2,000 topics x 1,000: above `STREAM_FROM`
            out.write("".join(f"{t} Q0 d{t}x{i} {i + 1} {1000 - i}.5 x\n" for i in range(1000)))
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    group = signum == signal.SIGINT  # Ctrl-C from a terminal, SIGTERM from kill
    done = signalled_once_forked(qrels, run, env, signum, group, settle=0.2)
    assert done == (128 + signum, b"", line)
    assert list(scratch.iterdir()) == []


def test_without_sendfile_between_files_the_childs_spool_is_copied_here(
    halves, tmp_path, monkeypatch
):
    """Where the kernel copies no file to a file (macOS' sendfile wants a socket), the
    child's lines and values are copied through this process: the same bytes."""
    import errno

    def refused(*args):
        raise OSError(errno.ENOTSOCK, "Socket operation on non-socket")

    monkeypatch.setattr(os, "sendfile", refused)
    qrels = written(tmp_path / "q", qrels_lines(60, 40))
    run = written(tmp_path / "r", run_lines(60, 40))
    flags = ["-q", "-c", "-m", "all_trec"]
    status, out, err = halves(flags, qrels, run)
    assert status == 0, err
    assert halves.children == [True]
    assert out == whole(flags, qrels, run)
