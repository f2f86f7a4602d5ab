"""A local collection folder (docs.jsonl, queries.tsv, qrels): checks and reading."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from doc_pages import page
from doc_pages import section as doc_section

from irscore.pipeline.data import SourceFileError, export_local, load_local
from irscore.pipeline.exports import read_docs, sha256_file

COLLECTION = Path(__file__).resolve().parent / "data" / "collection"
NAMES = ("docs.jsonl", "queries.tsv", "qrels")


def folder_with(tmp_path: Path, docs: str) -> tuple[Path, dict[str, str]]:
    """The tiny collection with its docs.jsonl replaced by `docs`, and the pins of its files."""
    folder = tmp_path / "collection"
    shutil.copytree(COLLECTION, folder)
    (folder / "docs.jsonl").write_text(docs, encoding="utf-8")
    return folder, {name: sha256_file(folder / name) for name in NAMES}


def test_the_export_keeps_every_document_field_and_the_judgments(tmp_path):
    pins = {name: sha256_file(COLLECTION / name) for name in NAMES}
    out = {name: tmp_path / name for name in ("docs.jsonl", "queries.tsv", "qrels.txt")}
    manifest = export_local(
        COLLECTION,
        pins,
        docs=out["docs.jsonl"],
        queries=out["queries.tsv"],
        qrels=out["qrels.txt"],
        manifest=tmp_path / "manifest.json",
    )
    docs = read_docs(out["docs.jsonl"])
    assert len(docs) == 12 and docs.docno.iloc[0] == "d01"
    assert docs.title.iloc[0] == "Flow over a wing" and docs.title.iloc[11] == ""
    assert out["qrels.txt"].read_text().splitlines()[:2] == ["1 0 d01 2", "1 0 d05 1"]
    # grades: 0 x3 (d11, d06, d07); 1 x5 (d05, d12, d10, d04, d09); 2 x4 (d01, d03, d06, d08)
    assert manifest["counts"]["grades"] == {"0": 3, "1": 5, "2": 4}
    assert manifest["counts"]["topics"] == 4 and manifest["counts"]["queries"] == 4
    assert manifest["ir_datasets_version"] is None


@pytest.mark.parametrize(
    ("docs", "problem"),
    [
        (
            '{"doc_id": "a", "text": "x"}\n{"doc_id": "a", "text": "y"}\n',
            ":2: doc_id 'a' appears twice",
        ),
        ('{"doc_id": "a", "text": 3}\n', ":1: field 'text' is not a string: 3"),
        ('{"id": "a", "text": "x"}\n', ":1: expected an object with a string doc_id"),
        ('{"doc_id": "a b", "text": "x"}\n', ":1: doc_id 'a b' is empty or holds a space"),
        ('{"doc_id": "a", "docno": "b"}\n', ":1: `docno` is reserved"),
        ('{"doc_id": "a"}\nnot json\n', ":2: not a JSON object"),
        ("", "docs.jsonl: no documents"),
    ],
)
def test_a_bad_docs_line_is_named(tmp_path, docs, problem):
    folder, pins = folder_with(tmp_path, docs)
    with pytest.raises(ValueError) as error:
        load_local(folder, pins)
    assert problem in str(error.value)
    assert str(folder / "docs.jsonl") in str(error.value)


def test_missing_files_are_all_named_and_a_changed_one_by_its_hashes(tmp_path):
    folder, pins = folder_with(tmp_path, (COLLECTION / "docs.jsonl").read_text())
    (folder / "qrels").unlink()
    (folder / "queries.tsv").unlink()
    with pytest.raises(ValueError, match=r"has no queries\.tsv, qrels"):
        load_local(folder, pins)
    folder, pins = folder_with(tmp_path / "again", json.dumps({"doc_id": "z"}) + "\n")
    expected = pins["docs.jsonl"]
    with pytest.raises(SourceFileError) as error:
        load_local(folder, {**pins, "docs.jsonl": "f" * 64})
    assert f"sha256 is {expected}, expected sha256 {'f' * 64}" in str(error.value)
    assert "dataset.sha256" in str(error.value)


def test_the_readme_pins_are_the_example_collections():
    section = doc_section(page("workflow.md"), "## Your own collection in the workflow")
    block = section.split("```yaml\n")[1].split("```")[0]
    pins = yaml.safe_load(block)["dataset"]["sha256"]
    assert pins == {name: sha256_file(COLLECTION / name) for name in NAMES}
