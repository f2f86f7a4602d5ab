"""A one-node SLURM cluster in a folder of its own, from Debian's packages: for the tests
and for trying the workflow's SLURM profile on one machine (docs/workflow.md).

    sudo python3 workflow/slurm/one_node.py start DIR
    sudo python3 workflow/slurm/one_node.py stop DIR

`start` (as root) installs slurm-wlm and munge with apt-get when they are missing, writes
DIR/slurm.conf for this machine (its CPUs and memory as `slurmd -C` reports them, each
CPU a job's to take; no accounting, no cgroups), links /etc/slurm/slurm.conf to it, makes
a munge key in DIR, starts munged, slurmctld and slurmd with their sockets, pid files,
state, spool and logs in DIR, and returns once the node is idle. `stop` cancels what is
still queued, stops exactly the daemons that `start` recorded in DIR/pids (each checked
to still be that daemon on DIR) and removes the link. Outside DIR, only the installed
packages and, while the cluster runs, the link change.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PACKAGES = ("slurm-wlm", "munge")
DAEMONS = ("munged", "slurmctld", "slurmd")
PARTITION = "main"
# Where SLURM's commands look when SLURM_CONF is not set: inside a job, the plug-in's
# job step drops SLURM_CONF before its `srun` (snakemake-executor-plugin-slurm-jobstep
# 0.6.1), so the cluster's slurm.conf must be found here (a link to DIR/slurm.conf).
DEFAULT_CONF = Path("/etc/slurm/slurm.conf")
# Longer than three times the status plug-in's first wait (40 s by default), so that
# `squeue` still lists a job that ended since its last look (the plug-in falls back to
# sacct below that, and sacct needs the accounting this cluster does not keep).
MIN_JOB_AGE = 300


class ClusterError(Exception):
    """The cluster cannot be started here: the message says why, in one line."""


def missing_programs() -> list[str]:
    """The daemons and client commands of slurm-wlm and munge that are not installed."""
    wanted = (*DAEMONS, "sinfo", "squeue", "sbatch", "scancel", "srun")
    return [name for name in wanted if shutil.which(name) is None]


def install() -> None:
    """apt-get install slurm-wlm and munge, when a program is missing (root only)."""
    if not missing_programs():
        return
    if os.geteuid() != 0:
        raise ClusterError(f"{', '.join(missing_programs())} not installed, and not root")
    if shutil.which("apt-get") is None:
        raise ClusterError(f"{', '.join(missing_programs())} not installed, and no apt-get")
    quiet = {
        "stdout": subprocess.DEVNULL,
        "env": {**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
    }
    subprocess.run(["apt-get", "update", "-qq"], check=True, **quiet)
    subprocess.run(["apt-get", "install", "-y", "-qq", *PACKAGES], check=True, **quiet)
    if missing_programs():
        raise ClusterError(f"{', '.join(missing_programs())} still missing after apt-get")


def free_port() -> int:
    """A TCP port nothing listens on now (so that a site's own SLURM is left alone)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def node_line() -> str:
    """This machine as a SLURM node: its name, CPUs and RealMemory as `slurmd -C` finds
    them, reachable on 127.0.0.1. Without sockets, cores and threads per core, each
    logical CPU is a job's to take (else a job asking for one CPU holds a whole core)."""
    found = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, check=True)
    line = found.stdout.splitlines()[0]
    fields = dict(word.split("=", 1) for word in line.split() if "=" in word)
    if not {"NodeName", "CPUs", "RealMemory"} <= set(fields):
        raise ClusterError(f"slurmd -C printed {line!r}, not a NodeName= line")
    kept = " ".join(f"{key}={fields[key]}" for key in ("NodeName", "CPUs", "RealMemory"))
    return f"{kept} NodeAddr=127.0.0.1 State=UNKNOWN"


def slurm_conf(folder: Path, node: str) -> str:
    """The text of slurm.conf: one node, one partition, every file under `folder`."""
    host = node.split()[0].removeprefix("NodeName=")
    return "\n".join(
        [
            "ClusterName=irscore",
            f"SlurmctldHost={host}(127.0.0.1)",
            f"SlurmctldPort={free_port()}",
            f"SlurmdPort={free_port()}",
            "SlurmUser=root",
            "SlurmdUser=root",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={folder / 'munge' / 'munge.socket'}",
            f"StateSaveLocation={folder / 'state'}",
            f"SlurmdSpoolDir={folder / 'spool'}",
            f"SlurmctldPidFile={folder / 'run' / 'slurmctld.pid'}",
            f"SlurmdPidFile={folder / 'run' / 'slurmd.pid'}",
            f"SlurmctldLogFile={folder / 'log' / 'slurmctld.log'}",
            f"SlurmdLogFile={folder / 'log' / 'slurmd.log'}",
            "SlurmctldDebug=info",
            "SlurmdDebug=info",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "JobCompType=jobcomp/none",
            "MpiDefault=none",
            "SchedulerType=sched/backfill",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_CPU_Memory",
            "ReturnToService=2",
            f"MinJobAge={MIN_JOB_AGE}",
            node,
            f"PartitionName={PARTITION} Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
            "",
        ]
    )


def environment(folder: Path) -> dict[str, str]:
    """os.environ with SLURM_CONF naming this cluster's slurm.conf (for sinfo, sbatch, ...)."""
    return {**os.environ, "SLURM_CONF": str(folder / "slurm.conf")}


def record(folder: Path, name: str, pid: int) -> None:
    """Add a started daemon to DIR/pids, before anything else can fail."""
    path = folder / "pids"
    pids = json.loads(path.read_text()) if path.is_file() else {}
    pids[name] = pid
    path.write_text(json.dumps(pids) + "\n")


def launch(folder: Path, name: str, command: list[str]) -> subprocess.Popen:
    """Start one daemon in the foreground of a session of its own, its output in DIR/log."""
    with open(folder / "log" / f"{name}.out", "ab") as out:
        daemon = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env=environment(folder),
        )
    record(folder, name, daemon.pid)
    return daemon


def node_state(folder: Path) -> str:
    """The node's state as sinfo prints it (idle, down, ...), or what went wrong."""
    done = subprocess.run(
        ["sinfo", "-h", "-N", "-o", "%T"], capture_output=True, text=True, env=environment(folder)
    )
    return done.stdout.strip() or done.stderr.strip()


def wait_idle(folder: Path, daemons: list[subprocess.Popen], seconds: float = 60) -> None:
    """Return once sinfo shows the node idle; refuse when a daemon ends or time runs out."""
    deadline = time.monotonic() + seconds
    state = ""
    while time.monotonic() < deadline:
        for name, daemon in zip(DAEMONS, daemons, strict=False):
            if daemon.poll() is not None:
                raise ClusterError(f"{name} ended (exit {daemon.returncode}); see {folder}/log")
        state = node_state(folder)
        if state == "idle":
            return
        time.sleep(0.5)
    raise ClusterError(f"the node is not idle after {seconds:.0f} s ({state}); see {folder}/log")


def start(folder: Path) -> list[subprocess.Popen]:
    """Install when needed, configure and start the three daemons; the node is idle after."""
    if os.geteuid() != 0:
        raise ClusterError("must run as root (slurmd runs each job as its user)")
    install()
    folder = folder.resolve()
    if (folder / "pids").is_file():
        raise ClusterError(f"{folder} has a cluster started already: stop it first")
    for sub in ("munge", "state", "spool", "log", "run"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    (folder / "munge").chmod(0o755)  # its socket: for the clients of every user
    key = folder / "munge" / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o600)
    node = node_line()
    (folder / "slurm.conf").write_text(slurm_conf(folder, node))
    munge = folder / "munge"
    daemons = []
    try:
        link_default_conf(folder)
        command = ["munged", "--foreground", "--force", f"--socket={munge / 'munge.socket'}"]
        command += [f"--key-file={key}", f"--pid-file={munge / 'munged.pid'}"]
        command += [f"--log-file={folder / 'log' / 'munged.log'}"]
        command += [f"--seed-file={munge / 'munged.seed'}"]
        daemons.append(launch(folder, "munged", command))
        wait_for(munge / "munge.socket", daemons[0])
        conf = str(folder / "slurm.conf")
        daemons.append(launch(folder, "slurmctld", ["slurmctld", "-D", "-i", "-f", conf]))
        host = node.split()[0].removeprefix("NodeName=")
        daemons.append(launch(folder, "slurmd", ["slurmd", "-D", "-f", conf, "-N", host]))
        wait_idle(folder, daemons)
    except BaseException:
        stop(folder, daemons)
        raise
    return daemons


def link_default_conf(folder: Path) -> None:
    """Make /etc/slurm/slurm.conf a link to DIR/slurm.conf; refuse if a slurm.conf is
    there already, unless it is a link a stopped cluster of this script left behind."""
    if DEFAULT_CONF.is_symlink():
        target = DEFAULT_CONF.readlink()
        if (target.parent / "pids").is_file() and target.parent != folder:
            raise ClusterError(f"{DEFAULT_CONF} is the slurm.conf of a running {target.parent}")
        DEFAULT_CONF.unlink()
    elif DEFAULT_CONF.exists():
        raise ClusterError(f"{DEFAULT_CONF} exists: this machine has a SLURM configured")
    DEFAULT_CONF.parent.mkdir(parents=True, exist_ok=True)
    DEFAULT_CONF.symlink_to(folder / "slurm.conf")


def wait_for(path: Path, daemon: subprocess.Popen, seconds: float = 20) -> None:
    """Return once `path` exists (munged's socket); refuse if the daemon ends first."""
    deadline = time.monotonic() + seconds
    while not path.exists():
        if daemon.poll() is not None or time.monotonic() > deadline:
            raise ClusterError(f"munged did not make {path}; see {path.parent.parent}/log")
        time.sleep(0.1)


def cancel_jobs(folder: Path, seconds: float = 30) -> None:
    """Cancel every job still queued or running, and wait until none is left."""
    env = environment(folder)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        done = subprocess.run(
            ["squeue", "-h", "-t", "all", "-o", "%i %T"], capture_output=True, text=True, env=env
        )
        live = [
            line.split()[0]
            for line in done.stdout.splitlines()
            if line.split()[1] in {"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED"}
        ]
        if done.returncode != 0 or not live:
            return
        subprocess.run(["scancel", *live], capture_output=True, env=env)
        time.sleep(0.5)


def is_ours(pid: int, name: str, folder: Path) -> bool:
    """Whether process `pid` is still the daemon `name` started on `folder`."""
    try:
        words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return Path(words[0].decode()).name == name and any(str(folder).encode() in w for w in words)


def stop(folder: Path, daemons: list[subprocess.Popen] | None = None) -> None:
    """Cancel the cluster's jobs, then stop the daemons DIR/pids names, last started first:
    SIGTERM, then SIGKILL after 10 s. Children of this process are waited for (reaped)."""
    folder = folder.resolve()
    path = folder / "pids"
    pids = json.loads(path.read_text()) if path.is_file() else {}
    if is_ours(pids.get("slurmctld", 0), "slurmctld", folder):
        cancel_jobs(folder)
    children = {daemon.pid: daemon for daemon in daemons or []}
    for name in reversed(DAEMONS):
        pid = pids.get(name)
        if pid is None or not is_ours(pid, name, folder):
            continue
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while is_running(pid, children.get(pid)) and time.monotonic() < deadline:
            time.sleep(0.1)
        if is_running(pid, children.get(pid)):
            os.kill(pid, signal.SIGKILL)
            while is_running(pid, children.get(pid)):
                time.sleep(0.1)
    path.unlink(missing_ok=True)
    if DEFAULT_CONF.is_symlink() and DEFAULT_CONF.readlink() == folder / "slurm.conf":
        DEFAULT_CONF.unlink()


def is_running(pid: int, child: subprocess.Popen | None) -> bool:
    """Whether `pid` still runs (a child of ours is reaped once it ended; a zombie has ended)."""
    if child is not None:
        return child.poll() is None
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return False


@contextmanager
def one_node_cluster(folder: Path) -> Iterator[Path]:
    """A started cluster for the length of a `with` (its folder); its daemons stopped
    and reaped however the block ends."""
    daemons = start(folder)
    try:
        yield folder.resolve()
    finally:
        stop(folder, daemons)
        for daemon in daemons:
            daemon.wait(timeout=10)


def main(argv: list[str]) -> int:
    """`start DIR` or `stop DIR`; one line on stderr and exit 2 when it cannot."""
    if len(argv) != 2 or argv[0] not in {"start", "stop"}:
        print("usage: one_node.py start|stop DIR", file=sys.stderr)
        return 2
    folder = Path(argv[1])
    try:
        if argv[0] == "start":
            start(folder)
            print(f"{DEFAULT_CONF} -> {folder.resolve() / 'slurm.conf'}: the node is idle")
        else:
            stop(folder)
    except (ClusterError, subprocess.CalledProcessError, OSError) as err:
        print(f"one_node.py {argv[0]}: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
