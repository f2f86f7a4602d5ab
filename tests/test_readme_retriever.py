"""docs/workflow.md's "Adding a retriever" and "Removing a retriever", followed word for
word in a copy of the project.

The model file and the config entry are taken from the page itself; the copy's
`src/` is put first on PYTHONPATH, so the new file is the package's. After the tiny
workflow has run once, a dry run must plan the new run's retrieval and scores and the
report, and nothing of the other runs; then the real run must give the new run a row
in the headline table and leave the other runs' files untouched. Removing it again
(its entry and its file, then what `make results` runs) must leave none of its files
under results/ and the headline table as it was.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from doc_pages import page, section
from test_workflow import REPO, SNAKEMAKE, copy_workflow, write_corpus

SECTION = section(page("workflow.md"), "### Adding a retriever")
REMOVING = section(page("workflow.md"), "### Removing a retriever")


def readme_steps() -> tuple[str, str, dict]:
    """The file the section says to write, its code, and the config entry to add."""
    path = re.search(r"write `(src/irscore/pipeline/retrievers/\w+\.py)`", SECTION).group(1)
    code = re.search(r"```python\n(.*?)```", SECTION, re.S).group(1)
    entry = yaml.safe_load(re.search(r"```yaml\n(.*?)```", SECTION, re.S).group(1))
    return path, code, entry["retrievers"]


def run(workdir: Path, raw: Path, pins: dict[str, str], *args: str) -> str:
    """Snakemake in the copy, with the copy's package first on the path."""
    pinned = ", ".join(f"{name}: {digest}" for name, digest in pins.items())
    env = {k: v for k, v in os.environ.items() if k != "CRANFIELD_DIR"}
    env["PYTHONPATH"] = str(workdir / "src")
    config = ["--config", f"cranfield_dir={raw}", f"cranfield_sha256={{{pinned}}}"]
    done = subprocess.run(
        [str(SNAKEMAKE), "--cores", "2", *args, *config],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def planned(dry_run: str) -> set[tuple[str, str]]:
    """(rule, wildcards) of every job a dry run lists."""
    jobs = re.findall(r"^(?:local)?rule (\w+):\n((?:    .*\n)*)", dry_run, re.M)
    return {
        (rule, next(iter(re.findall(r"^    wildcards: (.*)$", body, re.M)), ""))
        for rule, body in jobs
    }


@pytest.mark.workflow
def test_adding_a_retriever_as_the_readme_says(tmp_path):
    path, code, entries = readme_steps()
    (name,) = entries
    assert entries[name]["model"] == Path(path).stem == name  # file name = model = run
    workdir = tmp_path / "workflow"
    copy_workflow(workdir)
    shutil.copytree(REPO / "src", workdir / "src", ignore=shutil.ignore_patterns("*.egg-info"))
    config = yaml.safe_load((workdir / "config.yaml").read_text())
    config["retrievers"] = {run: config["retrievers"][run] for run in ("tfidf", "bm25")}
    config["plots"].update(example={"run": "bm25", "topic": "2"}, pairs=[["tfidf", "bm25"]])
    config["published"] = None
    config["runs"] = {}
    config["compare"]["pairs"] = [["tfidf", "bm25"]]
    config["interleaving"]["pairs"] = [["tfidf", "bm25"]]
    (workdir / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    pins = write_corpus(tmp_path / "raw")
    run(workdir, tmp_path / "raw", pins)
    before = {p: p.stat().st_mtime_ns for p in (workdir / "results").rglob("*.tsv")}

    # The README's two steps: the model's file, and its run at the end of `retrievers:`.
    (workdir / path).write_text(code)
    config["retrievers"].update(entries)
    (workdir / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))

    jobs = planned(run(workdir, tmp_path / "raw", pins, "-n"))
    report_rules = {  # the report's jobs, the systems table's among them, read every run
        rule
        for smk in ("report.smk", "workbench.smk")
        for rule in re.findall(r"^rule (\w+):", (REPO / "workflow/rules" / smk).read_text(), re.M)
    }
    assert {("retrieve", f"run={name}"), ("evaluate", f"run={name}")} <= jobs
    mine = re.compile(rf"(^|, )run={name}(,|$)")
    others = {(rule, wildcards) for rule, wildcards in jobs if not mine.search(wildcards)}
    assert all(rule in report_rules | {"all"} and not wildcards for rule, wildcards in others), (
        f"adding {name} re-runs other runs' jobs: {sorted(others)}"
    )
    assert ("topic_figures", "") not in jobs  # its runs and their colours did not change

    before_adding = (workdir / "results" / "tables" / "reference.md").read_text()
    run(workdir, tmp_path / "raw", pins)
    headline = (workdir / "results" / "tables" / "reference.md").read_text()
    assert f"| {name} |" in headline
    for other in ("tfidf", "bm25"):
        for kind in ("eval", "crosscheck"):
            table = workdir / "results" / kind / f"{other}.tsv"
            assert table.stat().st_mtime_ns == before[table], f"{table} was rewritten"

    # Removing it: the entry and the file go, then what `make results` runs.
    assert "run `make results`" in " ".join(REMOVING.split())
    del config["retrievers"][name]
    (workdir / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    (workdir / path).unlink()
    said = runner(workdir, tmp_path / "raw", pins)
    files = " ".join(REMOVING.split())
    message = re.search(
        r"`(removed the \d+ files of \w+, a run config.yaml no longer lists)`", files
    )
    assert message[1] in said
    left = sorted(str(p) for p in (workdir / "results").rglob(f"*{name}*"))
    assert not left, f"files of the removed run left behind: {left}"
    assert (workdir / "results" / "tables" / "reference.md").read_text() == before_adding


def runner(workdir: Path, raw: Path, pins: dict[str, str]) -> str:
    """What `make results` runs (irscore.pipeline.workflow_runner), in the copy; its output."""
    pinned = ", ".join(f"{name}: {digest}" for name, digest in pins.items())
    env = {k: v for k, v in os.environ.items() if k != "CRANFIELD_DIR"}
    env["PYTHONPATH"] = str(workdir / "src")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "irscore.pipeline.workflow_runner",
            "-d",
            str(workdir),
            "--cores",
            "2",
            "--config",
            f"cranfield_dir={raw}",
            f"cranfield_sha256={{{pinned}}}",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout
