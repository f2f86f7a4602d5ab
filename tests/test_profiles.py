"""The cluster profile parses and plans the workflow (a dry run: no cluster needed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).parent / "snakemake"


def test_slurm_profile_plans_the_workflow():
    done = subprocess.run(
        [str(SNAKEMAKE), "-n", "--profile", "workflow/profiles/slurm", "--quiet", "rules"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Using profile workflow/profiles/slurm" in done.stdout + done.stderr
