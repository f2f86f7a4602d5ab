"""Another ir_datasets ID as the collection: the checks made from the registry, without
network, and the export, which for `cranfield` equals the Cranfield step's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from doc_pages import page
from doc_pages import section as doc_section

from irscore.pipeline.data import ir_datasets_query_field

REPO = Path(__file__).resolve().parents[1]


def test_the_query_field_defaults_to_text_else_the_topic_title():
    assert ir_datasets_query_field("vaswani") == "text"
    # TREC topics: title, description, narrative; the title is the usual query
    assert ir_datasets_query_field("disks45/nocr/trec-robust-2004") == "title"
    assert ir_datasets_query_field("disks45/nocr/trec-robust-2004", "description") == "description"


@pytest.mark.parametrize(
    ("dataset_id", "field", "problem"),
    [
        ("cranfeld", None, "'cranfeld' is not a dataset ir_datasets"),
        ("cranfeld", None, "close: cranfield"),
        ("antique", None, "'antique' has no queries, qrels"),
        ("vaswani", "body", "'vaswani' queries have no field 'body'; they have text"),
    ],
)
def test_a_bad_id_or_field_is_named(dataset_id, field, problem):
    with pytest.raises(ValueError) as error:
        ir_datasets_query_field(dataset_id, field)
    assert problem in str(error.value)


def test_cranfield_by_its_id_gives_the_cranfield_steps_exports(cranfield, tmp_path):
    """export_ir_datasets("cranfield") from a home seeded with the local copy: the same
    bytes as export_cranfield (docs: every string field; queries: text; qrels)."""
    raw = os.environ.get("CRANFIELD_DIR") or str(REPO.parent / "shared" / "data" / "cranfield")
    code = (
        "import sys; from irscore.pipeline.data import seed_home, export_ir_datasets; "
        "f = sys.argv[1]; "
        "export_ir_datasets('cranfield', None, qrels=f + '/qrels.txt', queries=f + "
        "'/queries.tsv', docs=f + '/docs.jsonl', manifest=f + '/manifest.json')"
    )
    home = tmp_path / "home"
    subprocess.run(
        [
            sys.executable,
            "-c",
            f"from irscore.pipeline.data import seed_home; seed_home({raw!r}, {str(home)!r})",
        ],
        check=True,
        timeout=60,
    )
    env = {**os.environ, "IR_DATASETS_HOME": str(home)}
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], check=True, timeout=120, env=env)
    for name in ("docs.jsonl", "queries.tsv", "qrels.txt"):
        assert (tmp_path / name).read_bytes() == (cranfield / name).read_bytes(), name
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["dataset"] == "cranfield" and manifest["source_sha256"] == {}
    assert manifest["counts"] == json.loads((cranfield / "manifest.json").read_text())["counts"]


def test_the_readme_example_id_and_field_are_known():
    section = doc_section(page("workflow.md"), "## Your own collection in the workflow")
    block = section.split("```yaml\n")[2].split("```")[0]
    dataset = yaml.safe_load(block)["dataset"]
    assert ir_datasets_query_field(dataset["ir_datasets"], dataset["query_field"]) == "title"
