"""The command line: trec_eval-style errors, and `compare` against scipy on Cranfield runs."""

from __future__ import annotations

import importlib.metadata
import io
import os
import shutil
import subprocess
import sys
from contextlib import redirect_stdout

import pandas as pd
import pytest
import scipy.stats
from cli_calls import called as run_cli

from irscore.engine.reading.trec import write_run
from irscore.pipeline.analyzers import Analyzer
from irscore.pipeline.exports import read_docs, read_queries
from irscore.pipeline.retrieve import retrieve


@pytest.fixture(scope="module")
def runs(cranfield, tmp_path_factory):
    """TF-IDF and BM25 runs on Cranfield, made with the workflow's default analyzer."""
    folder = tmp_path_factory.mktemp("runs")
    docs, queries = read_docs(cranfield / "docs.jsonl"), read_queries(cranfield / "queries.tsv")
    analyzer = Analyzer(stopwords="english", stemmer="porter")
    paths = {}
    for model in ("tfidf", "bm25"):
        paths[model] = folder / f"{model}.run"
        write_run(paths[model], retrieve(docs, queries, analyzer, model, tag=model))
    return paths


def per_topic(qrels, run, measure: str) -> pd.Series:
    status, out, _ = run_cli(
        "evaluate", "-q", "--format", "tsv", "-m", measure, str(qrels), str(run)
    )
    assert status == 0
    table = pd.read_csv(io.StringIO(out), sep="\t", dtype={"topic": str})
    rows = table[(table["topic"] != "all") & (table["measure"] == measure.replace(".", "_"))]
    return rows.set_index("topic")["value"]


@pytest.mark.parametrize("measure", ["map", "P.10", "ndcg_cut.10"])
def test_compare_matches_scipy_on_cranfield(cranfield, runs, measure):
    qrels = cranfield / "qrels.txt"
    status, out, _ = run_cli(
        "compare",
        "-m",
        measure,
        "--test",
        "all",
        "--B",
        "2000",
        "--format",
        "tsv",
        str(qrels),
        str(runs["tfidf"]),
        str(runs["bm25"]),
    )
    assert status == 0
    result = pd.read_csv(io.StringIO(out), sep="\t").set_index("test")
    a = per_topic(qrels, runs["tfidf"], measure)
    b = per_topic(qrels, runs["bm25"], measure)[a.index]
    assert result.loc["t", "p"] == pytest.approx(scipy.stats.ttest_rel(b, a).pvalue, abs=1e-12)
    assert result.loc["wilcoxon", "p"] == pytest.approx(
        scipy.stats.wilcoxon(b - a).pvalue, abs=1e-12
    )
    assert result.loc["t", "diff"] == pytest.approx((b - a).mean(), abs=1e-15)
    assert result.loc["t", "n"] == 225


def test_malformed_run_is_one_line_with_file_and_line(tmp_path):
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 a 1\n")
    run.write_text("1 Q0 a 1 0.5 t\n1 Q0 b 2 high t\n")
    status, out, err = run_cli("evaluate", str(qrels), str(run))
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and f"{run}:2:" in err and "'high'" in err


def test_duplicate_document_and_unknown_measure_exit_2(tmp_path):
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 a 1\n")
    run.write_text("1 Q0 a 1 0.5 t\n1 Q0 a 2 0.4 t\n")
    status, out, err = run_cli("evaluate", str(qrels), str(run))
    assert status == 2 and out == "" and "document a" in err and "topic 1" in err
    status, out, err = run_cli(
        "evaluate", "--duplicates", "first", "-m", "P.1", str(qrels), str(run)
    )
    assert status == 0 and out == "P_1                   \tall\t1.0000\n"
    status, out, err = run_cli("evaluate", "-m", "P@1O", str(qrels), str(run))
    assert status == 2 and out == "" and "unknown measure" in err


def test_an_error_in_a_later_chunk_of_topics_prints_nothing(tmp_path, monkeypatch):
    """Scored one topic a chunk, topics 1 and 2 are written to the spool before topic 3's
    repeated document stops the command: nothing reaches standard output, and the
    error names the repeat's line (6, first on line 5)."""
    import tempfile

    from irscore.engine import evaluate

    monkeypatch.setattr(evaluate, "CHUNK_TOPICS", 1)
    spooled, temporary_file = [], tempfile.TemporaryFile

    def recorded(*args, **kwargs):
        spool = temporary_file(*args, **kwargs)
        write = spool.write
        spool.write = lambda block: spooled.append(bytes(block)) or write(block)
        return spool

    monkeypatch.setattr(tempfile, "TemporaryFile", recorded)
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 a 1\n2 0 c 1\n3 0 e 1\n")
    lines = ["1 Q0 a 1 2 r", "1 Q0 b 2 1 r", "2 Q0 c 1 2 r", "2 Q0 d 2 1 r", "3 Q0 e 1 2 r"]
    run.write_text("\n".join([*lines, "3 Q0 e 2 1 r"]) + "\n")
    status, out, err = run_cli("evaluate", "-q", "-m", "map", str(qrels), str(run))
    assert status == 2 and out == ""
    assert f"{run}:6: document e appears more than once for topic 3 (first on line 5)" in err
    assert [block.split(b"\t")[1] for block in spooled] == [b"1", b"2"]  # one topic a chunk
    run.write_text("\n".join(lines) + "\n")  # without the repeat: every topic, in order
    status, out, err = run_cli("evaluate", "-q", "-m", "map", str(qrels), str(run))
    assert status == 0
    assert [line.split("\t")[1] for line in out.splitlines()] == ["1", "2", "3", "all"]


def test_python_dash_m_irscore(tmp_path):
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    run.write_text("1 Q0 b 1 0.9 t\n1 Q0 a 2 0.5 t\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "irscore",
            "evaluate",
            "-m",
            "map",
            "-m",
            "recip_rank",
            str(qrels),
            str(run),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    # a is the only relevant document, at rank 2: AP = (1/2)/1, RR = 1/2
    assert (
        done.stdout == "map                   \tall\t0.5000\nrecip_rank            \tall\t0.5000\n"
    )


def _irscore(*argv: str, env: dict[str, str] | None = None, stdout=subprocess.PIPE):
    """`python -m irscore ARGV` in a fresh process, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "irscore", *argv],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_version_is_the_installed_distribution():
    done = _irscore("--version")
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == f"irscore {importlib.metadata.version('irscore')}\n"


def test_command_line_loads_no_heavy_library():
    """Parsing the command line (what --help and --version need) imports neither pandas,
    numpy, scipy, matplotlib nor pytrec_eval; each subcommand loads them when it runs."""
    heavy = ["pandas", "numpy", "scipy", "matplotlib", "pytrec_eval", "pyarrow"]
    code = (
        "import sys, irscore.cli; irscore.cli.build_parser(); "
        f"print([m for m in {heavy!r} if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == "[]\n", done.stderr


def test_compare_spells_the_tests_of_stats():
    from irscore.analysis import stats
    from irscore.cli import compare

    assert compare.TESTS == stats.TESTS


def test_a_subcommand_parsed_alone_is_the_one_of_the_whole_command_line():
    """`main` builds only the named subcommand's parser: its help, defaults and run are
    those of the full parser's."""
    from irscore.cli import COMMANDS, build_parser

    def parsed(only: str | None, argv: list[str]) -> tuple[str, dict]:
        out = io.StringIO()
        with redirect_stdout(out):
            try:
                return "", vars(build_parser(only).parse_args(argv))
            except SystemExit:
                return out.getvalue(), {}

    for name in COMMANDS:
        alone, whole = parsed(name, [name, "--help"]), parsed(None, [name, "--help"])
        assert alone == whole and f"usage: irscore {name}" in alone[0]
    argv = ["evaluate", "-q", "-m", "P.5", "q.txt", "r.run"]
    alone, whole = parsed("evaluate", argv)[1], parsed(None, argv)[1]
    assert alone.pop("parser").prog == whole.pop("parser").prog == "irscore evaluate"
    assert alone == whole and alone["run"].__module__ == "irscore.cli.evaluate"


def test_each_subcommand_has_help():
    from irscore.cli import COMMANDS

    for name in COMMANDS:
        done = _irscore(name, "--help")
        assert done.returncode == 0 and f"usage: irscore {name}" in done.stdout


# A full disk, a closed stdout, an early reader, Ctrl-C: tests/test_input_faults.py


def test_audit_is_quiet_when_home_is_not_writable(tmp_path):
    """matplotlib warns on stderr when it cannot cache under HOME; irscore gives it a folder."""
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    run.write_text("1 Q0 b 1 0.9 t\n1 Q0 a 2 0.5 t\n2 Q0 c 1 0.5 t\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MPL", "XDG_"))}
    env["HOME"] = "/dev/null"  # not a folder: nothing can be created under it, even by root
    done = _irscore(
        "audit", "--B", "50", "--out", str(tmp_path / "out"), str(qrels), str(run), env=env
    )
    assert done.returncode == 0 and done.stderr == ""
    assert (tmp_path / "out" / "plots").is_dir()


def test_audit_without_out_writes_under_a_new_temporary_folder_and_says_where(tmp_path):
    """Nothing lands in the current folder (in a clone, `git status` stays clean); the last
    line names the folder; a bad input leaves no folder behind."""
    qrels, run, here, temporary = (tmp_path / n for n in ("q", "r", "here", "tmp"))
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    run.write_text("1 Q0 b 1 0.9 t\n1 Q0 a 2 0.5 t\n2 Q0 c 1 0.5 t\n")
    here.mkdir()
    temporary.mkdir()
    env = {**os.environ, "TMPDIR": str(temporary)}
    argv = [sys.executable, "-m", "irscore", "audit", "--B", "50", str(qrels), str(run)]
    done = subprocess.run(argv, cwd=here, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert list(here.iterdir()) == []
    (folder,) = temporary.iterdir()
    assert folder.name.startswith("irscore-audit-")
    assert done.stdout.splitlines()[-1] == f"written under {folder}/"
    assert (folder / "audit" / "conventions.md").is_file()
    shutil.rmtree(folder)
    failed = subprocess.run(
        [*argv[:-1], str(tmp_path / "missing.run")], cwd=here, env=env, capture_output=True
    )
    assert failed.returncode != 0
    assert list(here.iterdir()) == [] and list(temporary.iterdir()) == []


def test_evaluate_in_trec_format_loads_no_pandas(tmp_path):
    """The drop-in trec_eval path reads, scores and prints without pandas (0.2 s of
    start-up); measures that need it (ERR, interpolated precision) load it themselves."""
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    run.write_text("1 Q0 b 1 0.9 t\n1 Q0 a 2 0.5 t\n")
    code = (
        "import io, sys, contextlib; from irscore.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    main(['evaluate', '-q', '-m', 'map', '-m', 'P.1', '-m', 'ndcg_cut.10', "
        f"{str(qrels)!r}, {str(run)!r}])\n"
        "print(out.getvalue().count('\\n'), 'pandas' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    # 3 lines for topic 1 and 3 for all: map = P@2 at a = 1/2, P@1 = 0, ndcg = 1/log2(3)
    assert done.stdout == "6 False\n", done.stderr


@pytest.mark.parametrize(
    "flags", [["-q", "-m", "all_trec"], ["-c", "-m", "official"], ["-J", "-q", "-l", "2"]]
)
def test_evaluate_from_files_skips_the_costly_imports(tmp_path, flags):
    """From files, `evaluate` runs Arrow's kernels through irscore.engine.system.arrow_compute:
    neither pyarrow.compute (its ~290 wrappers cost ~40 ms) nor pandas is imported; for small
    inputs not even the kernels (~11 MiB), and for trec_eval's names neither the peers'
    names nor difflib's suggestions; nor numpy.ma, which np.unique's first call loads
    (~12 ms). The engine's path: small files would otherwise take the plain one."""
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 a 1\n1 0 b 2\n2 0 c 1\n")
    run.write_text("1 Q0 b 1 0.9 t\n1 Q0 a 2 0.9 t\n1 Q0 x 3 0.1 t\n")
    code = (
        "import io, sys, contextlib; from irscore.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        f"    main(['evaluate', *{flags!r}, {str(qrels)!r}, {str(run)!r}])\n"
        "costly = ('pandas', 'pyarrow.compute', 'pyarrow._compute', 'difflib',\n"
        "          'irscore.engine.measures.peer_names', 'numpy.ma')\n"
        "costly = [m for m in costly if m in sys.modules]\n"
        "print(bool(out.getvalue()), costly)"
    )
    env = {**os.environ, "IRSCORE_PLAIN_BYTES": "0"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.stdout == "True []\n", done.stderr


def test_the_fast_exit_flushes_every_line_and_keeps_the_codes(tmp_path):
    """`python -m irscore` ends with os._exit after flushing: a long output through a
    buffered pipe arrives whole (3,000 topics x 1 measure + the `all` line), and so do
    --help's lines; usage errors keep exit 2."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("".join(f"t{i} 0 a 1\n" for i in range(3000)))
    run.write_text("".join(f"t{i} Q0 a 1 0.5 x\n" for i in range(3000)))
    done = _irscore("evaluate", "-q", "-m", "P.1", str(qrels), str(run), env=env)
    assert done.returncode == 0 and done.stdout.count("\n") == 3001
    assert done.stdout.endswith("P_1                   \tall\t1.0000\n")
    helped = _irscore("evaluate", "--help", env=env)
    assert helped.returncode == 0 and helped.stdout.startswith("usage: irscore evaluate")
    assert _irscore("evaluate", str(qrels), env=env).returncode == 2  # argparse: no run
