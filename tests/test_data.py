"""The Cranfield export from a local copy: the facts of SOURCE.md, determinism, checksums."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from irscore.engine.reading.trec import read_qrels
from irscore.pipeline import data
from irscore.pipeline.data import RAW_FILES, SourceFileError, export_cranfield, load_cranfield
from irscore.pipeline.exports import read_docs, read_queries, sha256_file

REPO = Path(__file__).resolve().parents[1]
PINS = yaml.safe_load((REPO / "config.yaml").read_text())["cranfield_sha256"]


def local_copy() -> Path:
    """$CRANFIELD_DIR, else ../shared/data/cranfield beside the repository."""
    candidates = [Path(os.environ["CRANFIELD_DIR"])] if os.environ.get("CRANFIELD_DIR") else []
    candidates.append((REPO / ".." / "shared" / "data" / "cranfield").resolve())
    for candidate in candidates:
        if all((candidate / name).is_file() for name in RAW_FILES):
            return candidate
    pytest.skip(f"no local Cranfield copy: tried {', '.join(map(str, candidates))}")


def export_to(folder: Path, home: Path) -> dict:
    return export_cranfield(
        qrels=folder / "qrels.txt",
        queries=folder / "queries.tsv",
        docs=folder / "docs.jsonl",
        manifest=folder / "manifest.json",
        cranfield_dir=local_copy(),
        sha256=PINS,
        home=home,
    )


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    """One export for the module (ir_datasets binds its home at import: one home per process)."""
    folder = tmp_path_factory.mktemp("data")
    export_to(folder, folder / "ir_datasets_home")
    return folder


@pytest.fixture(scope="module")
def relevant(exported):
    qrels = read_qrels(exported / "qrels.txt")
    return qrels[qrels["grade"] >= 1].groupby("topic").size()


def test_topics_and_relevant_judgments(relevant):
    assert len(relevant) == 225
    assert relevant.sum() == 1612
    assert round(relevant.mean(), 2) == 7.16
    assert relevant.median() == 6
    assert relevant.min() >= 1
    assert (relevant < 10).sum() == 173


def test_perfect_ranking_mean_precision_at_10(relevant):
    assert round((relevant.clip(upper=10) / 10).mean(), 3) == 0.605


def test_grade_counts(exported):
    qrels = read_qrels(exported / "qrels.txt")
    assert qrels["grade"].value_counts().to_dict() == {3: 734, 2: 387, 4: 363, -1: 225, 1: 128}
    first = (exported / "qrels.txt").read_text().splitlines()[0]
    assert first.split() == ["1", "0", "184", "2"]


def test_docs_and_queries(exported):
    docs = read_docs(exported / "docs.jsonl")
    assert list(docs["docno"]) == [str(i) for i in range(1, 1401)]
    first = json.loads((exported / "docs.jsonl").read_text().splitlines()[0])
    assert list(first) == ["author", "bib", "docno", "text", "title"]
    assert first["text"].startswith(first["title"])
    queries = read_queries(exported / "queries.tsv")
    assert list(queries["topic"]) == [str(i) for i in range(1, 226)]
    assert not queries["text"].str.contains("\n").any()
    assert len((exported / "queries.tsv").read_text().splitlines()) == 225


def test_manifest(exported):
    manifest = json.loads((exported / "manifest.json").read_text())
    assert manifest["counts"] == {
        "documents": 1400,
        "grades": {"-1": 225, "1": 128, "2": 387, "3": 734, "4": 363},
        "judgments": 1837,
        "queries": 225,
        "relevant_judgments": 1612,
        "topics": 225,
    }
    assert manifest["source_sha256"] == PINS
    assert manifest["ir_datasets_version"] == "0.6.3"
    for name, digest in manifest["exports_sha256"].items():
        assert sha256_file(exported / name) == digest


def test_seeded_home_holds_writable_copies(exported):
    seeded = exported / "ir_datasets_home" / "cranfield"
    for raw, cached in RAW_FILES.items():
        assert sha256_file(seeded / cached) == PINS[raw]
        assert (seeded / cached).stat().st_mode & stat.S_IWUSR


def test_export_is_byte_identical(exported, tmp_path):
    export_to(tmp_path, exported / "ir_datasets_home")  # same home: same ir_datasets paths
    for name in ("qrels.txt", "queries.tsv", "docs.jsonl", "manifest.json"):
        assert (tmp_path / name).read_bytes() == (exported / name).read_bytes(), name


def test_default_mode_reads_the_usual_ir_datasets_home(exported, tmp_path):
    """Without a local copy ir_datasets uses $IR_DATASETS_HOME; a filled cache means no download."""
    env = {k: v for k, v in os.environ.items() if k != "CRANFIELD_DIR"}
    env["IR_DATASETS_HOME"] = str(exported / "ir_datasets_home")
    names = {
        "qrels": "qrels.txt",
        "queries": "queries.tsv",
        "docs": "docs.jsonl",
        "manifest": "manifest.json",
    }
    paths = json.dumps({key: str(tmp_path / name) for key, name in names.items()})
    code = (
        "import json, sys, irscore.pipeline.data as d; "
        "d.export_cranfield(**json.loads(sys.argv[1]))"
    )
    subprocess.run([sys.executable, "-c", code, paths], env=env, check=True)
    for name in names.values():
        assert (tmp_path / name).read_bytes() == (exported / name).read_bytes(), name


def copy_of_sources(folder: Path) -> Path:
    for name in RAW_FILES:
        shutil.copyfile(local_copy() / name, folder / name)
    return folder


def test_altered_file_is_named_with_both_checksums(tmp_path):
    source = copy_of_sources(tmp_path)
    with open(source / "cran.qry", "a") as stream:
        stream.write("\n")
    with pytest.raises(SourceFileError) as err:
        load_cranfield(source, PINS, tmp_path / "home")
    message = str(err.value)
    assert str(source / "cran.qry") in message
    assert PINS["cran.qry"] in message
    assert sha256_file(source / "cran.qry") in message
    assert not (tmp_path / "home").exists()


def test_missing_file_is_named(tmp_path):
    source = copy_of_sources(tmp_path)
    (source / "cranqrel").unlink()
    with pytest.raises(SourceFileError, match="cranqrel: file is missing, expected sha256") as err:
        load_cranfield(source, PINS, tmp_path / "home")
    assert err.value.actual is None


def test_pins_must_name_the_three_files(tmp_path):
    with pytest.raises(ValueError, match="must pin exactly"):
        load_cranfield(tmp_path, {"cran.qry": PINS["cran.qry"]}, tmp_path / "home")


def test_a_copy_seeded_before_is_read_again_without_a_local_copy(exported, tmp_path):
    """The copy is data, not a path: once seeded, an export needs no CRANFIELD_DIR."""
    env = {k: v for k, v in os.environ.items() if k != "CRANFIELD_DIR"}
    env["IR_DATASETS_HOME"] = str(tmp_path / "empty")  # nothing cached there: no download
    home = exported / "ir_datasets_home"
    code = (
        "import json, sys, irscore.pipeline.data as d; a = json.loads(sys.argv[1]); "
        "d.export_cranfield(**a['paths'], sha256=a['pins'], home=a['home'])"
    )
    names = ("qrels.txt", "queries.tsv", "docs.jsonl", "manifest.json")
    paths = {name.split(".")[0]: str(tmp_path / name) for name in names}
    arguments = json.dumps({"paths": paths, "pins": PINS, "home": str(home)})
    subprocess.run([sys.executable, "-c", code, arguments], env=env, check=True, timeout=120)
    for name in names:
        assert (tmp_path / name).read_bytes() == (exported / name).read_bytes(), name


def test_offline_without_a_copy_fails_at_once_saying_what_to_run(tmp_path, monkeypatch):
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "empty"))
    monkeypatch.delenv("CRANFIELD_DIR", raising=False)
    # port 9 (discard) on this machine: refused at once, as an unreachable host is
    monkeypatch.setattr(data, "DOWNLOAD_HOSTS", (("127.0.0.1", 9), ("127.0.0.1", 9)))
    with pytest.raises(data.DownloadError) as err:
        data.export_cranfield(
            qrels=tmp_path / "q",
            queries=tmp_path / "t",
            docs=tmp_path / "d",
            manifest=tmp_path / "m.json",
            sha256=PINS,
        )
    message = str(err.value)
    assert "\n" not in message and data.DOWNLOAD_URL in message
    assert message.endswith("CRANFIELD_DIR=/path/to/cranfield make results")
    assert not any(tmp_path.glob("[qtdm]*"))


def test_a_cached_copy_needs_no_network(tmp_path, monkeypatch):
    cache = tmp_path / "home" / "cranfield"
    cache.mkdir(parents=True)
    for cached in RAW_FILES.values():
        (cache / cached).write_text("")
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(data, "DOWNLOAD_HOSTS", ())
    data.check_download_reachable()  # no host to try, and none needed


def test_the_local_copy_comes_from_the_environment_first(monkeypatch):
    monkeypatch.setenv("CRANFIELD_DIR", "/from/env")
    assert data.local_copy("/from/config") == "/from/env"
    monkeypatch.setenv("CRANFIELD_DIR", "")
    assert data.local_copy("/from/config") == "/from/config"
    assert data.local_copy(None) is None
