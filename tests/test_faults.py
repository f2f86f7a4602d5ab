"""Fault injection: every fault ends in the clean run's bytes or in a clear failure.

On the tiny corpus of test_workflow.py (two retrievers), `make results` (the runner
irscore.pipeline.workflow_runner, which the Makefile calls) runs once from clean (the
session's tiny_workflow, shared with other modules; tests/conftest.py); each test copies
that folder, injects one fault (a truncated or edited file, a changed raw
file, a kill, a second run at the same time) and checks that the next run either
gives the clean run's files byte for byte or fails with a message naming the
problem, and never exits 0 with other numbers.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from doc_pages import page
from doc_pages import section as doc_section
from test_report_workflow import tree
from test_workflow import REPO, SNAKEMAKE

from irscore.pipeline import data
from irscore.pipeline.integrity import write_record
from irscore.pipeline.workflow_runner import recover

pytestmark = pytest.mark.workflow
RUNNER = [sys.executable, "-m", "irscore.pipeline.workflow_runner"]


def make_results(
    workdir: Path, raw: Path | None, *args: str, timeout: float = 600
) -> subprocess.CompletedProcess:
    """What `CRANFIELD_DIR=raw make results` runs (no CRANFIELD_DIR when raw is None)."""
    env = {k: v for k, v in os.environ.items() if k != "CRANFIELD_DIR"}
    if raw is not None:
        env["CRANFIELD_DIR"] = str(raw)
    return subprocess.run(
        [*RUNNER, "-d", str(workdir), "--cores", "2", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def plain_snakemake(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    """Snakemake itself, without the runner's recovery (the readers' checks still hold)."""
    env = {k: v for k, v in os.environ.items() if k != "CRANFIELD_DIR"}
    return subprocess.run(
        [str(SNAKEMAKE), "--cores", "2", "-d", str(workdir), *args],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def results(workdir: Path) -> dict[str, bytes]:
    """Every file under results/ but the logs (which hold times)."""
    return {k: v for k, v in tree(workdir / "results").items() if not k.startswith("logs/")}


@pytest.fixture(scope="module")
def clean(tiny_workflow, tmp_path_factory) -> tuple[Path, Path, dict[str, bytes]]:
    """The raw corpus, this module's copy of the folder after a clean `make results` (the
    session's tiny_workflow, tests/conftest.py), and its files."""
    workdir = tiny_workflow.copy(tmp_path_factory.mktemp("faults") / "clean")
    return tiny_workflow.raw, workdir, results(workdir)


@pytest.fixture
def copy(clean, tmp_path) -> Path:
    """A copy of the clean folder (file times kept, Snakemake's records included)."""
    return Path(shutil.copytree(clean[1], tmp_path / "workflow", symlinks=True))


def assert_clean(workdir: Path, clean_files: dict[str, bytes]) -> None:
    found = results(workdir)
    assert sorted(found) == sorted(clean_files)
    differ = sorted(name for name in found if found[name] != clean_files[name])
    assert not differ, f"differ from the clean run: {differ}"


def test_the_runner_is_what_make_results_runs():
    recipe = (REPO / "Makefile").read_text().split("\nresults:", 1)[1].split("\n\n", 1)[0]
    assert "-m irscore.pipeline.workflow_runner --cores $(CORES)" in recipe


def test_the_clean_run_prints_one_line_per_job(clean):
    _, workdir, files = clean
    again = make_results(workdir, None)  # no CRANFIELD_DIR once exported: nothing re-runs
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines() == [
        "Nothing to be done: every result is up to date.",
        "Done: results/summary.md (the full log: results/logs/workflow.log)",
    ]
    log = (workdir / "results" / "logs" / "workflow.log").read_text()
    assert "Nothing to be done" in log
    assert "summary.md" in files and "records/summary.json" in files


def test_the_clean_run_counts_the_jobs_that_run(tiny_workflow):
    """[1/N] .. [N/N], then Done: the target rule `all`, which runs nothing, is not one."""
    lines = tiny_workflow.output.splitlines()
    counted = [re.match(r"\[ *(\d+)/(\d+)\] \w+", line) for line in lines[:-1]]
    assert all(counted), lines
    assert [int(match[1]) for match in counted] == list(range(1, len(counted) + 1))
    assert {int(match[2]) for match in counted} == {len(counted)}
    assert lines[-1] == "Done: results/summary.md (the full log: results/logs/workflow.log)"


def test_runs_over_fewer_topics_are_flagged_not_ranked_silently(clean):
    _, workdir, files = clean
    # query 3 of the tiny corpus is a stopword only: the retrievers' runs lack topic 3
    log = (workdir / "results" / "logs" / "evaluate" / "bm25.log").read_text()
    assert (
        "WARNING irscore: results/runs/bm25.run covers 2 of the 3 judged topics; "
        "1 missing: 3: not comparable with runs over the judged topics"
    ) in log
    summary = files["summary.md"].decode()
    assert "| run | P@10 |" in summary and "| topics |" in summary
    assert "| bm25 |" in summary and "| 2 of 3 |" in summary  # and the ideal run: 3 of 3
    assert "| 3 of 3 |" in summary and "**Not comparable:**" in summary


def cut(path: Path, keep, keep_mtime: bool) -> tuple[int, int]:
    """Keep the lines of `path` for which keep(number, line) holds (with its old mtime if
    asked); returns the line counts before and after."""
    stat = path.stat()
    lines = path.read_text().splitlines(keepends=True)
    kept = [line for number, line in enumerate(lines) if keep(number, line)]
    assert 0 < len(kept) < len(lines)
    path.write_text("".join(kept))
    if keep_mtime:  # as if never touched: Snakemake alone would see nothing to do
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    return len(lines), len(kept)


def test_truncated_runs_and_an_eval_table_missing_topic_rows_are_redone(clean, copy):
    """Three faults at once, one `make results`: each named, and the clean run's bytes."""
    raw, _, files = clean
    results = copy / "results"
    # every other line of bm25's run, tfidf's lines of topic 2, the ideal run's topic 1 rows
    bm25 = cut(results / "runs" / "bm25.run", lambda n, line: n % 2 == 0, keep_mtime=True)
    tfidf = cut(results / "runs" / "tfidf.run", lambda n, line: line[:2] != "2 ", False)
    ideal = cut(results / "eval" / "ideal.tsv", lambda n, row: row.split("\t")[2] != "1", True)
    done = make_results(copy, raw)
    assert done.returncode == 0, done.stdout + done.stderr
    said = done.stdout.splitlines()
    assert said[:3] == [
        f"results/eval/ideal.tsv: {ideal[1]} lines, recorded {ideal[0]} in "
        "results/records/eval/ideal.json: its step runs again",
        f"results/runs/bm25.run: {bm25[1]} lines, recorded {bm25[0]} in "
        "results/records/runs/bm25.json: its step runs again",
        f"results/runs/tfidf.run: {tfidf[1]} lines, recorded {tfidf[0]} in "
        "results/records/runs/tfidf.json: its step runs again",
    ]
    assert_clean(copy, files)


def test_without_the_runner_a_truncated_run_stops_the_evaluation(clean, copy):
    run = copy / "results" / "runs" / "bm25.run"
    lines = run.read_text().splitlines(keepends=True)
    run.write_text("".join(lines[:-1]))
    summary = (copy / "results" / "summary.md").read_bytes()
    done = plain_snakemake(copy)
    assert done.returncode != 0
    log = (copy / "results" / "logs" / "evaluate" / "bm25.log").read_text()
    expected = f"results/runs/bm25.run: {len(lines) - 1} lines, recorded {len(lines)} in "
    assert expected + "results/records/runs/bm25.json" in log
    assert (copy / "results" / "summary.md").read_bytes() == summary


def test_without_the_runner_a_damaged_eval_table_fails_every_report_job(clean, copy):
    table = copy / "results" / "eval" / "tfidf.tsv"
    rows = table.read_text().splitlines(keepends=True)
    table.write_text("".join(row for row in rows if row.split("\t")[2] != "1"))
    summary = (copy / "results" / "summary.md").read_bytes()
    done = plain_snakemake(copy, "--keep-going")
    assert done.returncode != 0
    for job in ("figures", "topic_figures", "systems_table", "interleaving"):
        log = (copy / "results" / "logs" / f"{job}.log").read_text()
        assert "results/eval/tfidf.tsv: " in log and "results/records/eval/tfidf.json" in log
    # the tables job needs the systems table and the interleaving verdicts: it never starts
    assert "results/eval/tfidf.tsv: " not in (copy / "results" / "logs" / "tables.log").read_text()
    assert (copy / "results" / "summary.md").read_bytes() == summary


def test_a_changed_export_is_redone_and_a_changed_raw_file_stops_the_run(clean, copy):
    raw, _, files = clean
    docs = copy / "results" / "data" / "docs.jsonl"
    docs.write_bytes(docs.read_bytes().replace(b"wing", b"wInG", 1))  # one byte flipped
    done = make_results(copy, raw)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("results/data/docs.jsonl: sha256 ")
    assert_clean(copy, files)

    changed = copy / "raw-changed"
    shutil.copytree(raw, changed)
    qrels = changed / "cranqrel"
    qrels.write_bytes(qrels.read_bytes().replace(b"2 3 1", b"2 3 2"))
    summary = (copy / "results" / "summary.md").read_bytes()
    done = make_results(copy, changed)
    assert done.returncode != 0
    assert done.stdout == ""
    assert done.stderr.splitlines()[0].startswith(f"{qrels}: sha256 is ")
    assert "(pinned in config cranfield_sha256)" in done.stderr
    assert (copy / "results" / "summary.md").read_bytes() == summary


def test_without_the_runner_a_changed_export_stops_its_readers(clean, copy):
    docs = copy / "results" / "data" / "docs.jsonl"
    docs.write_bytes(docs.read_bytes().replace(b"wing", b"wInG", 1))
    done = plain_snakemake(copy)
    assert done.returncode != 0
    log = (copy / "results" / "logs" / "retrieve" / "bm25.log").read_text()
    assert "results/data/docs.jsonl: sha256 " in log and "results/data/manifest.json" in log


def test_the_copy_is_data_not_a_path(clean, copy, tmp_path):
    raw, _, _ = clean
    elsewhere = Path(shutil.copytree(raw, tmp_path / "elsewhere"))
    for local in (elsewhere, f"{raw}/", None):
        done = make_results(copy, local, "-n")
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Nothing to be done" in done.stdout, local


def test_summary_changes_only_when_every_report_job_succeeded(clean, copy):
    raw = clean[0]
    summary = copy / "results" / "summary.md"
    before = summary.read_bytes()
    config = yaml.safe_load((copy / "config.yaml").read_text())
    del config["headline"]["MRR"]  # a change to the summary's headline table
    (copy / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    figures = copy / "scripts" / "figures.py"
    script = figures.read_text()
    figures.write_text('raise RuntimeError("injected failure")\n' + script)
    env_dir = ["--config", f"cranfield_dir={raw}"]
    done = plain_snakemake(copy, "--keep-going", *env_dir)
    assert done.returncode != 0
    staged = (copy / "results" / "staging" / "summary.md").read_bytes()
    assert staged != before and b"| MRR |" not in staged  # the tables job succeeded
    assert summary.read_bytes() == before  # but the summary waits for every report job

    figures.write_text(script)
    done = make_results(copy, raw)
    assert done.returncode == 0, done.stdout + done.stderr
    assert summary.read_bytes() == staged


def test_a_summary_edited_by_hand_is_regenerated(clean, copy):
    raw, _, files = clean
    summary = copy / "results" / "summary.md"
    summary.write_text("edited\n")
    done = make_results(copy, raw)
    assert done.returncode == 0, done.stdout + done.stderr
    assert_clean(copy, files)


def start(workdir: Path, raw: Path) -> subprocess.Popen:
    """`make results` from clean in its own process group, as a terminal would start it."""
    shutil.rmtree(workdir / "results")
    env = {k: v for k, v in os.environ.items() if k != "CRANFIELD_DIR"}
    env["CRANFIELD_DIR"] = str(raw)
    return subprocess.Popen(
        [*RUNNER, "-d", str(workdir), "--cores", "2"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def wait_for(process: subprocess.Popen, text: str) -> None:
    """Read the process's output until a line contains `text`."""
    for line in process.stdout:
        if text in line:
            return
    raise AssertionError(f"the run ended before {text!r}: {process.wait()}")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
def test_a_killed_run_is_finished_by_the_next(clean, copy, sig):
    raw, _, files = clean
    process = start(copy, raw)
    wait_for(process, "] export_data")
    for _ in range(2):  # a second `make results` meanwhile: told so, every time
        second = make_results(copy, raw, timeout=60)
        assert second.returncode == 2 and second.stdout == ""
        assert second.stderr == (
            f"make results: another `make results` (pid {process.pid}) is running in "
            f"{copy}; wait for it to end, then run `make results` again\n"
        )
    wait_for(process, "] retrieve")  # the first run is written, the others are under way
    os.killpg(process.pid, sig)  # what Ctrl-C in a terminal, or kill -9, reaches
    err = process.communicate(timeout=120)[1]
    assert process.returncode != 0
    if sig == signal.SIGINT:
        assert err.splitlines()[-1] == (
            "Interrupted: run `make results` again to finish (what was cut short is redone)."
        )
    done = make_results(copy, raw)
    assert done.returncode == 0, done.stdout + done.stderr
    assert_clean(copy, files)
    assert not list((copy / "results").rglob("*.tmp"))


def test_a_snakemake_running_here_is_never_unlocked(clean, copy):
    raw, _, _ = clean
    other = subprocess.Popen(
        [str(SNAKEMAKE), "--cores", "1", "--forceall", "-d", str(copy)],
        cwd=copy,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "CRANFIELD_DIR": str(raw)},
    )
    try:
        deadline = time.monotonic() + 60
        while not list((copy / ".snakemake" / "locks").glob("*")):
            assert time.monotonic() < deadline and other.poll() is None
            time.sleep(0.2)
        done = make_results(copy, raw, timeout=60)
        assert done.returncode == 2
        assert done.stderr == (
            f"make results: Snakemake (pid {other.pid}) is running in {copy}; "
            "wait for it to end, then run `make results` again\n"
        )
        assert list((copy / ".snakemake" / "locks").glob("*"))
    finally:
        other.kill()
        other.wait()


def test_offline_without_a_copy_fails_in_one_paragraph(clean, copy, tmp_path):
    try:
        data.check_download_reachable()
        pytest.skip("this machine reaches Cranfield's download host")
    except data.DownloadError:
        pass
    shutil.rmtree(copy / "results")
    env = {k: v for k, v in os.environ.items() if k != "CRANFIELD_DIR"}
    env["IR_DATASETS_HOME"] = str(tmp_path / "empty")
    done = subprocess.run(
        [*RUNNER, "-d", str(copy), "--cores", "2"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    message = done.stderr.splitlines()
    assert message[0].startswith("failed: export_data: Cranfield could not be downloaded: ")
    assert message[0].endswith(
        "CRANFIELD_DIR=/path/to/cranfield make results (log: results/logs/export_data.log)"
    )
    assert message[1:] == ["The full log: results/logs/workflow.log"]


def test_the_readme_names_only_commands_and_messages_that_exist():
    section = doc_section(page("workflow.md"), "## If something goes wrong")
    targets = set(re.findall(r"^([\w.-]+):", (REPO / "Makefile").read_text(), re.M))
    spans = [a or b for a, b in re.findall(r"``(.+?)``|`([^`]+)`", section)]
    commands = [span for span in spans if re.match(r"(CRANFIELD_DIR=\S+ )?make \w+$", span)]
    assert (
        "make results" in commands and "CRANFIELD_DIR=/path/to/cranfield make results" in commands
    )
    for command in commands:
        target = command.split("make ", 1)[1]
        assert target in targets, f"README: `{command}`: no Makefile target {target!r}"
    runner = (REPO / "src" / "irscore" / "pipeline" / "workflow_runner.py").read_text()
    for message in (
        "cleared the lock that an interrupted run left",
        "temporary file(s) of interrupted jobs",
        "its step runs again",
        "Interrupted: {AGAIN} to finish (what was cut short is redone).",
        "another `make results` (pid {holder}) is running in",
    ):
        assert message in runner
        assert message.replace("{AGAIN}", "run `make results` again").split(" (pid")[0] in section


def test_recover_clears_what_a_killed_run_leaves(tmp_path, monkeypatch):
    """What kill -9 leaves, without running a workflow: a Snakemake lock, a temporary
    file of atomic_output, a result that differs from its record."""
    monkeypatch.chdir(tmp_path)
    locks = tmp_path / ".snakemake" / "locks"
    locks.mkdir(parents=True)
    (locks / "0.input.lock").write_text("results/runs/bm25.run\n")
    runs = tmp_path / "results" / "runs"
    runs.mkdir(parents=True)
    (runs / ".bm25.run.k3j9x.tmp").write_text("1 Q0 d1 1 1.0 bm25\n")
    (runs / "bm25.run").write_text("1 Q0 d1 1 1.0 bm25\n2 Q0 d1 1 1.0 bm25\n")
    write_record("results/records/runs/bm25.json", [], runs=["results/runs/bm25.run"])
    (runs / "bm25.run").write_text("1 Q0 d1 1 1.0 bm25\n")  # one of its two lines left
    assert list(recover()) == [
        "cleared the lock that an interrupted run left",
        "removed 1 temporary file(s) of interrupted jobs",
        "results/runs/bm25.run: 1 lines, recorded 2 in results/records/runs/bm25.json: "
        "its step runs again",
    ]
    assert not list(locks.iterdir()) and not list(runs.glob("*.tmp"))
    assert not (tmp_path / "results" / "records" / "runs" / "bm25.json").exists()
    assert (runs / "bm25.run").is_file()  # kept: its step rewrites it
    assert list(recover()) == []  # nothing left to do


def test_recover_removes_the_files_of_a_run_taken_out_of_the_config(tmp_path, monkeypatch):
    """A retriever removed from config.yaml (docs/workflow.md, "Removing a retriever")
    leaves nothing behind under results/: its run, scores, records and logs go; the
    configured runs and the workflow's own ideal run stay."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.yaml").write_text("retrievers:\n  bm25: {model: bm25}\nruns:\n  mine:\n")
    kept = ["runs/bm25.run", "runs/mine.run", "runs/ideal.run", "eval/bm25.tsv"]
    gone = [
        "runs/lm_jm.run",
        "runs/lm_jm.manifest.json",
        "eval/lm_jm.tsv",
        "crosscheck/lm_jm.tsv",
        "records/runs/lm_jm.json",
        "records/eval/lm_jm.json",
        "logs/retrieve/lm_jm.log",
        "logs/evaluate/lm_jm.log",
    ]
    for name in kept + gone:
        path = tmp_path / "results" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
    assert list(recover()) == ["removed the 8 files of lm_jm, a run config.yaml no longer lists"]
    results = tmp_path / "results"
    left = sorted(str(p.relative_to(results)) for p in results.rglob("*") if p.is_file())
    assert left == sorted(kept)
    assert list(recover()) == []
