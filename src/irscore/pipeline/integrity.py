"""Records of what each workflow step wrote (lines, sha256, a run's topics), checked
wherever the file is read.

A step records its outputs in a small JSON file under results/records/; every step that
reads them checks them against it first (and the exports against results/data/
manifest.json), so a file truncated, edited or half-written after its step ran stops the
workflow with a message naming the file, the recorded and the found value, instead of
giving plausible numbers.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from irscore.engine.output.naming import few, topic_order
from irscore.engine.reading.trec import atomic_output, write_json_atomically

# The data step's manifest: it pins each export's sha256 by file name (exports_sha256).
DATA_MANIFEST = "manifest.json"
REGENERATE = "`make results` regenerates it"


# A path or several (a Snakemake input names one file or a list).
Paths = str | os.PathLike | Iterable[str | os.PathLike]


class IntegrityError(ValueError):
    """A file that differs from the record written when its step made it."""


def file_record(path: str | os.PathLike, *, topics: bool = False) -> dict[str, Any]:
    """Lines and sha256 of a file; with `topics`, the sorted first fields (a run's topics)."""
    digest = hashlib.sha256()
    lines = 0
    seen: set[bytes] = set()
    with open(path, "rb") as stream:
        if topics:
            for line in stream:
                digest.update(line)
                lines += 1
                fields = line.split(None, 1)
                if fields:
                    seen.add(fields[0])
        else:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
                lines += block.count(b"\n")
    record: dict[str, Any] = {"lines": lines, "sha256": digest.hexdigest()}
    if topics:
        record["topics"] = sorted(topic.decode("utf-8") for topic in seen)
    return record


def write_record(
    record: str | os.PathLike, paths: Iterable[str | os.PathLike], runs: Iterable[str] = ()
) -> dict[str, Any]:
    """Record each of `paths` (those in `runs` with their topics) in `record`, keyed by the
    path as the rule names it; deterministic bytes."""
    run_paths = {str(path) for path in runs}
    files = {str(p): file_record(p, topics=str(p) in run_paths) for p in [*paths, *run_paths]}
    content = {"files": dict(sorted(files.items()))}
    write_json_atomically(record, content)
    return content


def recorded(records: Iterable[str | os.PathLike]) -> dict[str, tuple[dict[str, Any], str]]:
    """path -> (its record, the record file) from records and data manifests."""
    expected: dict[str, tuple[dict[str, Any], str]] = {}
    for source in map(str, records):
        try:
            content = json.loads(Path(source).read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise IntegrityError(f"{source}: cannot read the record: {err}; {REGENERATE}") from None
        if Path(source).name == DATA_MANIFEST:
            folder = Path(source).parent
            for name, sha256 in content.get("exports_sha256", {}).items():
                expected[str(folder / name)] = ({"sha256": sha256}, source)
        else:
            for path, record in content.get("files", {}).items():
                expected[path] = (record, source)
    return expected


def problem(path: str | os.PathLike, record: Mapping[str, Any]) -> str | None:
    """How the file differs from its record (None: it matches)."""
    if not Path(path).is_file():
        return "the file is missing"
    found = file_record(path, topics="topics" in record)
    if "lines" in record and found["lines"] != record["lines"]:
        return f"{found['lines']} lines, recorded {record['lines']}"
    if found["sha256"] != record["sha256"]:
        return f"sha256 {found['sha256']}, recorded {record['sha256']}"
    return None


def verify_inputs(inputs: Paths, records: Paths) -> int:
    """Check every input that a record covers (before it is read); raise IntegrityError
    naming the first that differs. Returns how many inputs were checked."""
    expected = recorded(_listed(records))
    checked = 0
    for path in dict.fromkeys(map(str, _listed(inputs))):
        if path not in expected:
            continue
        record, source = expected[path]
        found = problem(path, record)
        if found:
            raise IntegrityError(
                f"{path}: {found} in {source}: the file changed after the step that wrote "
                f"it; {REGENERATE}"
            )
        checked += 1
    return checked


def damaged(records: Iterable[str | os.PathLike]) -> list[tuple[str, str, str]]:
    """(path, problem, record file) for each recorded file that exists and differs."""
    found = []
    for path, (record, source) in recorded(records).items():
        if Path(path).is_file():
            difference = problem(path, record)
            if difference:
                found.append((path, difference, source))
    return found


def publish(staging: str | os.PathLike, target: str | os.PathLike, record: str) -> None:
    """Replace `target` by a copy of `staging` in one rename, then record it: a reader
    sees the old file or the new one, never a part."""
    if not Path(target).is_file() or Path(target).read_bytes() != Path(staging).read_bytes():
        with atomic_output(target) as tmp:
            shutil.copyfile(staging, tmp)
    write_record(record, [target])


def topic_coverage(qrels: str | os.PathLike, run: str | os.PathLike) -> str | None:
    """How a run's topics differ from the topics the qrels judge (None: the same), e.g.
    "covers 3 of the 225 judged topics; 222 missing: 4, 5, 6 and 219 more; 1 not judged: 999"."""
    judged = set(file_record(qrels, topics=True)["topics"])
    ranked = set(file_record(run, topics=True)["topics"])
    if ranked == judged:
        return None
    parts = [f"covers {len(ranked & judged)} of the {len(judged)} judged topics"]
    for label, topics in (("missing", judged - ranked), ("not judged", ranked - judged)):
        if topics:
            parts.append(f"{len(topics)} {label}: {few(topic_order(topics))}")
    return "; ".join(parts)


def _listed(paths: Paths) -> list[str | os.PathLike]:
    return [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
