"""The workflow through a one-node SLURM cluster (workflow/slurm/one_node.py), run as
docs/workflow.md's "Try it on a one-node SLURM" says: every job a SLURM job (sharded
retrieval included), and the same bytes as the local run of the tiny corpus."""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import yaml
from doc_pages import page, section
from test_workflow import SNAKEMAKE, copy_workflow

REPO = Path(__file__).resolve().parents[1]
ONE_NODE = REPO / "workflow" / "slurm" / "one_node.py"
SHARDS = 2  # bm25's queries in two jobs, sharing one index
PR_SET_CHILD_SUBREAPER = 36


def one_node():
    """workflow/slurm/one_node.py as a module (it lives beside the workflow, not in src/)."""
    spec = importlib.util.spec_from_file_location("one_node", ONE_NODE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def recipe() -> list[str]:
    """The commands of docs/workflow.md's recipe, one per line (continuations joined)."""
    text = section(page("workflow.md"), "### Try it on a one-node SLURM")
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
    lines = "\n".join(blocks).replace("\\\n", " ").splitlines()
    return [line.split("  #")[0].strip() for line in lines if line.strip()]


def command(line: str, folder: Path) -> list[str]:
    """A recipe line as this test runs it: in `folder` instead of /tmp/slurm, the
    virtual environment's programs, and without sudo (the test runs as root)."""
    words = shlex.split(line.replace("/tmp/slurm", str(folder)))
    words = words[1:] if words[0] == "sudo" else words
    if words[0] == ".venv/bin/snakemake":
        words[0] = str(SNAKEMAKE)
    return words


def reaping(on: bool) -> None:
    """Make this process the reaper of its orphaned descendants (or stop being it): the
    daemons that `start` leaves running become its children, so that they are waited for
    once `stop` ended them, where the machine's init does not."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


OWNER = "test-session"  # in a cluster's folder: the pid of the pytest that started it


def stop_left_over(module) -> None:
    """Stop the cluster that an earlier session of these tests left running when it was
    killed (its `finally` never ran), so that `start` does not refuse the next session:
    the one /etc/slurm/slurm.conf links to, when its folder names a pytest that has
    ended. Anyone else's cluster is left alone (and `start` refuses, as it should)."""
    if not module.DEFAULT_CONF.is_symlink():
        return
    folder = module.DEFAULT_CONF.readlink().parent
    try:
        owner = int((folder / OWNER).read_text())
    except (OSError, ValueError):
        return
    if not Path(f"/proc/{owner}").exists():
        module.stop(folder)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """The recipe's one-node cluster, started by its `start` line and stopped by its
    `stop` line however the tests end; each daemon then reaped by its PID."""
    if os.geteuid() != 0:
        pytest.skip("starting SLURM's daemons needs root (.ci/run runs as root)")
    if one_node().missing_programs() and shutil.which("apt-get") is None:
        pytest.skip("slurm-wlm is not installed and there is no apt-get to install it")
    start, stop = (
        next(line for line in recipe() if f"one_node.py {v} " in line) for v in ("start", "stop")
    )
    folder = tmp_path_factory.mktemp("slurm")
    env = {k: v for k, v in os.environ.items() if k != "SLURM_CONF"}
    stop_left_over(one_node())
    (folder / OWNER).write_text(f"{os.getpid()}\n")
    reaping(True)
    try:
        started = subprocess.run(
            command(start, folder), cwd=REPO, env=env, capture_output=True, text=True, timeout=600
        )
        assert started.returncode == 0, started.stdout + started.stderr
        yield folder
    finally:
        pids = json.loads((folder / "pids").read_text()) if (folder / "pids").is_file() else {}
        stopped = subprocess.run(command(stop, folder), cwd=REPO, env=env, timeout=120)
        for pid in pids.values():
            with contextlib.suppress(ChildProcessError):  # reaped already
                os.waitpid(pid, os.WNOHANG)  # ended by `stop`: a zombie until now
        reaping(False)
        assert stopped.returncode == 0
        assert not [pid for pid in pids.values() if Path(f"/proc/{pid}").exists()]
        assert not one_node().DEFAULT_CONF.is_symlink()


def submissions(log: str) -> dict[str, str]:
    """Snakemake's job id -> the SLURM job id it was submitted as (the plug-in's lines)."""
    found = re.findall(r"^Job (\d+) has been submitted with SLURM jobid (\d+) ", log, re.M)
    return dict(found)


def finished(log: str) -> dict[str, str]:
    """Snakemake's job id -> rule, for every job Snakemake ran (on the host or not)."""
    return dict(re.findall(r"^Finished jobid: (\d+) \(Rule: (\w+)\)", log, re.M))


def requests(log: str) -> dict[str, dict[str, str]]:
    """Snakemake's job id -> the resources it printed for that job (its rule's)."""
    found = {}
    for block in re.split(r"^(?=(?:local)?rule \w+:$)", log, flags=re.M):
        job = re.search(r"^\s+jobid: (\d+)$", block, re.M)
        listed = re.search(r"^\s+resources: (.*)$", block, re.M)
        if job and listed:
            found[job[1]] = dict(item.split("=", 1) for item in listed[1].split(", "))
    return found


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.workflow
def test_the_workflow_through_slurm_runs_every_job_there_and_gives_the_local_bytes(
    cluster, tiny_workflow, tmp_path
):
    workdir = tmp_path / "workflow"
    copy_workflow(workdir)
    config = yaml.safe_load((tiny_workflow.workdir / "config.yaml").read_text())
    config["retrievers"]["bm25"]["shards"] = SHARDS
    (workdir / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    run = next(line for line in recipe() if "--profile workflow/profiles/slurm" in line)
    # The plug-in's first look at submitted jobs after 1 s, not 40 (a test's minutes), and
    # the logs of successful jobs kept, to count them.
    quick = ["--slurm-init-seconds-before-status-checks", "1", "--slurm-keep-successful-logs"]
    env = {k: v for k, v in os.environ.items() if k != "SLURM_CONF"}
    done = subprocess.run(
        [*command(run, cluster), *quick],
        cwd=workdir,
        env={**env, "CRANFIELD_DIR": str(tiny_workflow.raw)},
        capture_output=True,
        text=True,
        timeout=900,
    )
    log = done.stdout + done.stderr
    assert done.returncode == 0, log

    # Every job Snakemake ran but `all` (a target without an action) was a SLURM job ...
    jobs, submitted = finished(log), submissions(log)
    assert sorted(set(jobs) - set(submitted)) == [k for k, r in jobs.items() if r == "all"]
    assert set(submitted) <= set(jobs)
    rules = Counter(jobs[job] for job in submitted)
    assert rules["retrieve_shard"] == SHARDS and rules["index"] == 1
    assert rules["merge_shards"] == 1 and rules["retrieve"] == 1  # tfidf, in one job
    assert rules["evaluate"] == 2 and rules["publish_summary"] == 1
    assert len(submitted) == 16  # as docs/workflow.md counts them
    # ... with its log in the plug-in's folder, naming its rule ...
    slurm_ids = {submitted[job]: jobs[job] for job in submitted}
    logs = list((workdir / ".snakemake" / "slurm_logs").rglob("*.log"))
    assert sorted(path.stem for path in logs) == sorted(slurm_ids)
    for path in logs:
        assert f"rule {slurm_ids[path.stem]}:" in path.read_text()
    # ... started by slurmctld (by its main scheduler or its backfill), and ended with exit 0
    ctld = (cluster / "log" / "slurmctld.log").read_text()
    started = re.findall(r"(?:sched: Allocate|_start_job: Started) JobId=(\d+) ", ctld)
    assert sorted(started, key=int) == sorted(slurm_ids, key=int)
    ended = re.findall(r"JobId=(\d+) WEXITSTATUS 0", ctld)
    assert sorted(ended, key=int) == sorted(slurm_ids, key=int)
    # ... and squeue (no accounting here: no sacct) lists each one as completed, having
    # asked for its rule's memory and runtime (minutes) and one CPU (`threads: 1`).
    queue = subprocess.run(
        ["squeue", "-h", "-t", "all", "-o", "%i %T %m %l %C"],
        capture_output=True,
        text=True,
        env=env,
    )
    asked = requests(log)
    assert {asked[job].get("runtime") for job in submitted} == {"30"}  # every rule's
    assert dict(line.split(" ", 1) for line in queue.stdout.splitlines()) == {
        slurm_id: f"COMPLETED {asked[job]['mem_mb']}M {asked[job]['runtime']}:00 1"
        for job, slurm_id in submitted.items()
    }

    # The same bytes as the local run (the session's `make results` on the same corpus and
    # config, unsharded): the summary, every run, evaluation, cross-check, table and plot.
    local, here = tree(tiny_workflow.workdir / "results"), tree(workdir / "results")
    skip = ("logs/", "shards/", "index/", "records/shards/", "records/index/")
    for name in ("summary.md", "runs/bm25.run", "runs/tfidf.run", "eval/bm25.tsv"):
        assert name in local
    shared = {name for name in local if not name.startswith(skip)}
    assert shared == {name for name in here if not name.startswith(skip)}
    differ = sorted(name for name in shared if local[name] != here[name])
    assert differ == ["runs/bm25.manifest.json"]  # which adds the shards, and only them
    manifest = json.loads(here["runs/bm25.manifest.json"])
    assert manifest.pop("shards") == SHARDS
    assert manifest == json.loads(local["runs/bm25.manifest.json"])


def test_the_node_offers_this_machines_cpus_and_memory(cluster):
    """slurmd advertises what the machine has (`slurmd -C`): every CPU, all the memory."""
    shown = subprocess.run(["scontrol", "show", "node"], capture_output=True, text=True)
    fields = dict(re.findall(r"(\w+)=(\S+)", shown.stdout))
    total_kib = int(re.search(r"MemTotal:\s+(\d+) kB", Path("/proc/meminfo").read_text())[1])
    assert int(fields["CPUTot"]) == os.cpu_count()
    assert int(fields["RealMemory"]) == total_kib // 1024  # MiB, as slurmd -C counts them
    assert fields["State"] == "IDLE"


def test_start_refuses_a_machine_with_a_slurm_conf_of_its_own(tmp_path, monkeypatch):
    """A slurm.conf of the machine's, or a link to a running cluster's, is left alone;
    a link that a stopped cluster left behind is replaced."""
    module = one_node()
    conf = tmp_path / "etc" / "slurm.conf"
    monkeypatch.setattr(module, "DEFAULT_CONF", conf)
    conf.parent.mkdir()
    conf.write_text("ClusterName=site\n")
    with pytest.raises(
        module.ClusterError, match=f"^{re.escape(str(conf))} exists: this machine has a SLURM"
    ):
        module.link_default_conf(tmp_path / "mine")
    assert conf.read_text() == "ClusterName=site\n"
    conf.unlink()
    running = tmp_path / "running"
    running.mkdir()
    (running / "pids").write_text("{}\n")
    conf.symlink_to(running / "slurm.conf")
    with pytest.raises(module.ClusterError, match=r"is the slurm\.conf of a running"):
        module.link_default_conf(tmp_path / "mine")
    (running / "pids").unlink()  # stopped: its link is stale
    module.link_default_conf(tmp_path / "mine")
    assert conf.readlink() == tmp_path / "mine" / "slurm.conf"


def test_a_cluster_that_a_killed_session_left_is_stopped_first(tmp_path, monkeypatch):
    """`stop_left_over` stops the daemons of a cluster whose test session has ended, and
    leaves a cluster alone whose session still runs, or that no session started."""
    module = one_node()
    conf = tmp_path / "etc" / "slurm.conf"
    conf.parent.mkdir()
    monkeypatch.setattr(module, "DEFAULT_CONF", conf)
    left = tmp_path / "left"
    left.mkdir()
    conf.symlink_to(left / "slurm.conf")
    # a stand-in daemon: named munged, with the cluster's folder among its arguments
    sleeper = "import time; time.sleep(120)"
    daemon = subprocess.Popen(
        ["bash", "-c", f'exec -a munged {sys.executable} -c "{sleeper}" {left}']
    )
    try:
        deadline = time.monotonic() + 10
        while not module.is_ours(daemon.pid, "munged", left) and time.monotonic() < deadline:
            time.sleep(0.05)
        (left / "pids").write_text(json.dumps({"munged": daemon.pid}) + "\n")
        stop_left_over(module)  # no session named: someone's own cluster
        (left / OWNER).write_text(f"{os.getpid()}\n")
        stop_left_over(module)  # its session runs (this one)
        assert daemon.poll() is None and conf.is_symlink()
        ended = subprocess.Popen(["true"])
        ended.wait()
        (left / OWNER).write_text(f"{ended.pid}\n")
        stop_left_over(module)
        assert daemon.wait(timeout=15) == -signal.SIGTERM
        assert not conf.is_symlink() and not (left / "pids").exists()
    finally:
        daemon.kill()
        daemon.wait()


def declared_requests() -> dict[str, str]:
    """Each rule of workflow/rules/ as docs/workflow.md's table words its request, from
    its `threads` and `resources` (a `use rule ... as` copy has its original's)."""
    found = {}
    for path in sorted((REPO / "workflow" / "rules").glob("*.smk")):
        text = path.read_text()
        for block in re.split(r"^(?=rule |use rule )", text, flags=re.M)[1:]:
            copy = re.match(r"use rule (\w+) as (\w+)", block)
            if copy:
                found[copy[2]] = found[copy[1]]
                continue
            name = re.match(r"rule (\w+):", block)[1]
            numbers = [
                re.search(rf"{key}\D*(\d+)", block) for key in ("threads:", "mem_mb=", "runtime=")
            ]
            if all(numbers):
                threads, mem, runtime = (int(n[1]) for n in numbers)
                found[name] = f"{threads} CPU, {mem} MB, {runtime} min"
    return found


def test_the_docs_table_of_requests_is_the_rules():
    table = section(page("workflow.md"), "### What runs where")
    rows = re.findall(r"^\| (`.*?) \| .*? \| (\d+ CPU, .*?) \|$", table, re.M)
    documented = {name: asked for names, asked in rows for name in re.findall(r"`(\w+)`", names)}
    assert documented == declared_requests()


def test_start_says_in_one_line_why_it_cannot(tmp_path, monkeypatch, capsys):
    module = one_node()
    monkeypatch.setattr(module.os, "geteuid", lambda: 1000)
    for step in ("launch", "link_default_conf"):  # were the refusal gone: nothing started
        monkeypatch.setattr(module, step, lambda *_, step=step: pytest.fail(f"{step} ran"))
    assert module.main(["start", str(tmp_path / "c")]) == 2
    assert capsys.readouterr().err == (
        "one_node.py start: must run as root (slurmd runs each job as its user)\n"
    )
    assert not (tmp_path / "c").exists()
    assert module.main(["begin", str(tmp_path)]) == 2
    assert capsys.readouterr().err == "usage: one_node.py start|stop DIR\n"
