"""The committed results/summary.md is what a clean run of the workflow writes today.

The README's results table is checked against the committed summary
(test_readme.py); this test regenerates the summary on Cranfield in a fresh
directory and fails if the committed file differs, so neither can go stale.
It needs the local Cranfield copy ($CRANFIELD_DIR or ../shared/data/cranfield).
The export and the four default runs come from the session's cranfield_runs
(tests/conftest.py, which test_readme_examples.py shares): the same workflow's first
jobs from clean, copied here; this test runs the rest.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_data import PINS, local_copy
from test_workflow import REPO, snakemake


@pytest.mark.workflow
def test_committed_summary_is_regenerated_byte_for_byte(cranfield_runs, tmp_path):
    cranfield = local_copy()
    workdir = cranfield_runs.copy(tmp_path / "workflow")
    snakemake(workdir, Path(cranfield), PINS, "results/records/summary.json")  # publishes it
    fresh = (workdir / "results" / "summary.md").read_text()
    committed = Path(REPO / "results" / "summary.md").read_text()
    assert fresh == committed, (
        "results/summary.md is stale: run `make results` and commit it "
        "(and the README table, which test_readme.py checks against it)"
    )
