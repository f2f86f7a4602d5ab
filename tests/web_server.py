"""`irscore serve` started for a test module (on a free port, stopped at the end), and
requests to it as a browser or an attacker makes them."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

IRSCORE = Path(sys.executable).parent / "irscore"


@contextlib.contextmanager
def serving(
    *args: str, tmp: Path | None = None, **env: str
) -> Iterator[tuple[str, subprocess.Popen]]:
    """The address of a server started with `args` (and --port 0), and its process;
    `tmp`: its TMPDIR, `env`: more variables of its environment."""
    env |= {"TMPDIR": str(tmp)} if tmp else {}
    process = subprocess.Popen(
        [str(IRSCORE), "serve", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
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


def request(
    url: str,
    path: str,
    body: object = None,
    host: str | None = None,
    method: str | None = None,
    raw: bytes | Iterable[bytes] | None = None,
    **extra: str,
) -> tuple[int, http.client.HTTPResponse, Any]:
    """(status, response, JSON or text) of one request: GET, or POST with `body` as
    JSON or `raw` as it is (an iterable is sent in chunks); `method` another method,
    `host` replaces the Host header, `extra` adds headers (content_type="text/plain" is
    Content-Type: text/plain)."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    data = raw if raw is not None else None if body is None else json.dumps(body).encode()
    headers = {"Host": host or parts.netloc, "Content-Type": "application/json"}
    headers |= {name.replace("_", "-").title(): value for name, value in extra.items()}
    chunked = data is not None and not isinstance(data, bytes)
    method = method or ("GET" if data is None else "POST")
    connection.request(method, path, body=data, headers=headers, encode_chunked=chunked)
    response = connection.getresponse()
    text = response.read().decode()
    kind = response.getheader("content-type", "")
    return response.status, response, json.loads(text) if "json" in kind else text


def job(url: str, kind: str, body: dict) -> dict:
    """Submit a job and wait for its result."""
    status, _, started = request(url, f"/api/jobs/{kind}", body)
    assert status == 200, started
    return done(url, started["id"])


def done(url: str, key: str, seconds: float = 120) -> dict:
    """The state of job `key` once it is done."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        _, _, state = request(url, f"/api/jobs/{key}")
        if state["state"] == "done":
            return state
        time.sleep(0.05)
    raise AssertionError(f"job {key} not done after {seconds:g} s: {state}")
