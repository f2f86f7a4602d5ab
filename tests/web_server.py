"""`irscore serve` started for a test module: on a free port, stopped at the end."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

IRSCORE = Path(sys.executable).parent / "irscore"


@contextlib.contextmanager
def serving(*args: str) -> Iterator[tuple[str, subprocess.Popen]]:
    """The address of a server started with `args` (and --port 0), and its process."""
    process = subprocess.Popen(
        [str(IRSCORE), "serve", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = process.stdout.readline()
        if not line.startswith("irscore serve: http://"):
            process.kill()
            raise RuntimeError(f"irscore serve did not start: {line}{process.stderr.read()}")
        url = line.split()[2]
        urllib.request.urlopen(url, timeout=30).read()  # listening
        yield url, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
