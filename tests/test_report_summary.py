"""The committed results/summary.md is what a clean run of the workflow writes today.

The README's results table is checked against the committed summary
(test_readme.py); this test regenerates the summary on Cranfield in a fresh
directory and fails if the committed file differs, so neither can go stale.
It needs the local Cranfield copy ($CRANFIELD_DIR or ../shared/data/cranfield)
and takes about half a minute.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from test_data import PINS, local_copy
from test_workflow import REPO, SNAKEMAKE, copy_workflow


@pytest.mark.workflow
def test_committed_summary_is_regenerated_byte_for_byte(tmp_path):
    cranfield = local_copy()
    workdir = tmp_path / "workflow"
    copy_workflow(workdir)
    pins = ", ".join(f"{name}: {digest}" for name, digest in PINS.items())
    env = {k: v for k, v in os.environ.items() if k != "CRANFIELD_DIR"}
    done = subprocess.run(
        [
            str(SNAKEMAKE),
            "--cores",
            "2",
            "results/summary.md",
            "--config",
            f"cranfield_dir={cranfield}",
            f"cranfield_sha256={{{pins}}}",
        ],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    fresh = (workdir / "results" / "summary.md").read_text()
    committed = Path(REPO / "results" / "summary.md").read_text()
    assert fresh == committed, (
        "results/summary.md is stale: run `make results` and commit it "
        "(and the README table, which test_readme.py checks against it)"
    )
