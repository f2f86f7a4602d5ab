"""The README shows the headline table of results/summary.md, never a stale copy; the
claims of the README and of docs/ are the summary's and the workflow's; the README
stays short and links every page of docs/."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml
from doc_pages import everything, page, pages
from test_workflow import SNAKEMAKE, copy_workflow

REPO = Path(__file__).resolve().parents[1]


def _table(text: str) -> list[str]:
    """The Markdown table that starts with the headline header row."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| run | P@10 |"))
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return lines[start:end]


def test_readme_headline_table_is_the_summarys():
    readme = (REPO / "README.md").read_text()
    block = re.search(r"<!-- headline:start -->\n(.*?)<!-- headline:end -->", readme, re.S)
    assert block, "README lost its headline markers"
    summary = (REPO / "results" / "summary.md").read_text()
    assert _table(block.group(1)) == _table(summary)


def test_the_testing_page_counts_the_mutations_of_the_mutation_check(monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))  # as when run as a script
    spec = importlib.util.spec_from_file_location("mutations", REPO / "benchmarks" / "mutations.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "mutations", module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    testing = " ".join(page("testing.md").split())
    assert f"benchmarks/mutations.py` applies {len(module.MUTATIONS)} deliberate bugs" in testing


README = (REPO / "README.md").read_text()
CONVENTIONS = page("conventions.md")
SUMMARY = (REPO / "results" / "summary.md").read_text()
NUMBERS = {"six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}


def _rows(text: str, header: str) -> dict[str, dict[str, str]]:
    """The Markdown table whose header row starts with `header`, as {first cell: row}."""
    lines = _table_at(text, header)
    names = [cell.strip() for cell in lines[0].strip("|").split("|")]
    rows = {}
    for line in lines[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[cells[0]] = dict(zip(names, cells, strict=True))
    return rows


def _table_at(text: str, header: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return lines[start:end]


def test_every_make_command_of_the_readme_creates_the_venv(tmp_path):
    block = re.search(r"```sh\n(make .*?)```", README, re.S).group(1)
    targets = re.findall(r"^make (\w+)", block, re.M)
    assert targets == ["results", "test", "report"]
    said = re.search(r"Each of the (\w+) creates `.venv`", README)
    assert said and {"two": 2, "three": 3, "four": 4}[said.group(1)] == len(targets)
    for name in ("Makefile", "pyproject.toml", "requirements.lock"):
        shutil.copy(REPO / name, tmp_path / name)
    for target in targets:
        plan = subprocess.run(
            ["make", "-n", target], cwd=tmp_path, capture_output=True, text=True, check=True
        ).stdout
        assert "-m venv .venv" in plan, f"make {target} does not create .venv"


def test_readme_dataset_counts_are_the_summarys():
    facts = {name: row["value"] for name, row in _rows(SUMMARY, "| fact | value |").items()}
    topics, relevant = facts["topics"], facts["relevant judgments"]
    assert f"Cranfield ({topics} topics, {relevant} relevant judgments)" in README
    fewer = facts["topics with fewer than 10 relevant"]
    ceiling = facts["P@10 of a perfect ranking"]
    assert f"scores P@10 = {ceiling} on\nCranfield: {fewer} of the {topics} topics" in README


def test_readme_states_the_grades_of_the_ndcg_columns():
    """The headline is the reference convention, whose grades are the raw ones; the variant
    the README points to maps Cleverdon's 1..4 to gains 4..1 and has its row in the summary."""
    import numpy as np

    from irscore.engine.ranking.conventions import Convention
    from irscore.engine.ranking.rank import map_grades

    said = " ".join(README.split())
    assert Convention().grades == "raw" and "take Cranfield's raw grades as gains" in said
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    assert config["conventions"]["grades_cleverdon"] == {"grades": "cranfield_cleverdon"}
    assert "the `cranfield_cleverdon` variant (gain = 5 - g) is the `grades_cleverdon` row" in said
    assert re.search(r"^\| grades_cleverdon \| grades=cranfield_cleverdon \|", SUMMARY, re.M)
    assert "(1 = complete answer .. 4 = minimum interest" in said
    assert map_grades(np.array([1, 2, 3, 4]), "cranfield_cleverdon").tolist() == [4, 3, 2, 1]


def test_readme_tie_and_minus_j_claims_are_the_summarys():
    ties = _rows(SUMMARY, "| run | MAP docno_desc |")["bim"]
    low, high = ties["MAP pessimistic"], ties["MAP optimistic"]
    spread = float(high) - float(low)
    assert f"moves BIM's MAP by {spread:.3f} ({low} .. {high}); {ties['changed docno_asc']} of" in (
        CONVENTIONS
    )
    # -J: the MAP and P@10 sections of the convention audit in the summary
    runs = ["bim", "tfidf", "bm25", "ql"]
    header = "| convention | what changes |"
    sections = {
        title: _rows(part, header)
        for title, part in re.findall(r"### (\S+) \(`\w+`\)\n\n(.*?)(?=\n### |\Z)", SUMMARY, re.S)
    }

    def mean(section: str, convention: str, run: str) -> float:
        return float(sections[section][convention][run].split()[0])

    before = mean("MAP", "reference", "bim")
    after = mean("MAP", "judged_only", "bim")
    assert f"BIM's MAP jumps from {before:.2f} to {after:.2f}" in CONVENTIONS

    def order(convention: str) -> str:
        return " > ".join(sorted(runs, key=lambda run: -mean("P@10", convention, run)))

    assert order("judged_only").endswith(order("reference").split(" > ")[0])  # best -> worst
    said = f"({order('reference')} becomes\n{order('judged_only')}:"
    assert " ".join(said.split()) in " ".join(CONVENTIONS.split())


def test_readme_counts_the_reports_categories():
    from irscore.report import layout

    config = yaml.safe_load((REPO / "config.yaml").read_text())
    artefacts = {
        **layout.workflow_tables(config["conventions"], published=True),
        **layout.run_figures(config["conventions"]),
        **layout.topic_figures(config["plots"]["pairs"]),
        **layout.systems(config["systems"]["baseline"]),
        **layout.interleaving(config["interleaving"]["pairs"]),
    }
    categories = sorted({a.category for a in artefacts.values() if a.category})
    said = re.search(r"the (\w+) result categories", page("workflow.md")).group(1)
    assert NUMBERS[said] == len(categories)
    start_page = (REPO / "workflow" / "report" / "workflow.rst").read_text()
    for category in categories:
        number, title = category.split(". ", 1)
        assert f"{number}. **{title}**" in start_page, f"workflow.rst does not list {category}"


def test_readme_counts_runs_conventions_and_jobs(tmp_path):
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    runs = len(config["retrievers"]) + len(config.get("runs") or {})
    workdir = tmp_path / "workflow"
    copy_workflow(workdir)
    plan = subprocess.run(
        [
            str(SNAKEMAKE),
            "-n",
            "--cores",
            "1",
            "-d",
            str(workdir),
            "-s",
            str(workdir / "Snakefile"),
        ],
        cwd=workdir,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    # the jobs `make results` counts: all but the target rule `all`, which runs nothing
    jobs = int(re.search(r"^total\s+(\d+)", plan, re.M).group(1))
    jobs -= int(re.search(r"^all\s+(\d+)", plan, re.M).group(1))
    stated = f"({runs} runs, {len(config['conventions'])} conventions, {jobs} jobs;"
    assert stated in README


def _block_after(readme: str, command: str) -> list[str]:
    """The lines of the README's code block that starts with `$ COMMAND`, after it."""
    lines = readme.splitlines()
    start = next(i for i, line in enumerate(lines) if line == f"$ {command}")
    end = next(i for i in range(start, len(lines)) if lines[i] == "```")
    return lines[start + 1 : end]


def test_readme_workbench_examples_are_what_the_commands_print(tmp_path):
    import io
    from contextlib import redirect_stdout

    from irscore.cli import main

    readme = page("workbench.md")
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["explain", "--grades", "3,2,3,0,1,2", "--missed", "3,2", "-k", "6"]) == 0
    shown = _block_after(readme, ".venv/bin/irscore explain --grades 3,2,3,0,1,2 --missed 3,2 -k 6")
    assert shown[0] == "..." and all(line in out.getvalue().splitlines() for line in shown[1:])
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["pool", "--out", str(tmp_path / "pool"), "--seed", "1"]) == 0
    shown = _block_after(readme, ".venv/bin/irscore pool --out results/pool --seed 1")
    assert shown == out.getvalue().splitlines()


# Where the documented commands and examples write: flags and arguments naming a path.
WRITES = re.compile(r"(?:--out[ =]|--plot[ =]|--screenshot=|\bout=\")([^\s\"]+)")


def documented_outputs(text: str) -> list[str]:
    """The paths the sh and pycon examples of `text` write (placeholders such as DIR
    aside)."""
    blocks = re.findall(r"```(?:sh|pycon)\n(.*?)```", text, re.S)
    found = [path for block in blocks for path in WRITES.findall(block)]
    return [path for path in found if not path.isupper()]


def test_what_the_documented_examples_write_is_ignored_by_git(tmp_path):
    """Following the examples in a clone leaves `git status` clean: each path they write
    is ignored (results/ is, but for the committed summary). Git reads the project's
    .gitignore in a repository of its own, so the check needs no clone."""
    written = documented_outputs(everything())
    assert {"results/my-audit", "results/pool", "results/report.png"} <= set(written), written
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    shutil.copy(REPO / ".gitignore", tmp_path / ".gitignore")
    for path in written:
        ignored = subprocess.run(
            ["git", "check-ignore", "--no-index", "-q", path], cwd=tmp_path, capture_output=True
        )
        assert ignored.returncode == 0, f"the docs write {path}, which .gitignore does not cover"


def test_the_readme_is_short_and_links_every_page_of_docs():
    """What a newcomer needs first fits 150 lines of at most 200 characters (the wide
    tables and the measurement histories are docs/'s); each task's page is one click away."""
    assert len(README.splitlines()) <= 150
    wide = [n for n, line in enumerate(README.splitlines(), 1) if len(line) > 200]
    assert wide == [], f"README lines over 200 characters: {wide}"
    linked = set(re.findall(r"\]\((docs/[\w.-]+\.md)(?:#[\w-]+)?\)", README))
    on_disk = {str(path.relative_to(REPO)) for path in pages()[1:]}
    assert on_disk <= linked, f"pages the README does not link: {sorted(on_disk - linked)}"
    tasks = ("evaluating", "conventions", "python-api", "workflow", "workbench", "speed")
    for name in (*tasks, "troubleshooting", "trec_eval", "install", "testing"):
        assert f"docs/{name}.md" in on_disk


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_link_of_the_docs_leads_somewhere():
    """Each relative link of the README and of docs/ into the project names a file that
    exists, and each #anchor a heading of that file (the spec in ../shared/ is beside a
    clone, not in it)."""
    for path in pages():
        text = path.read_text(encoding="utf-8")
        for target, anchor in re.findall(r"\]\(([^)#\s:]*)(?:#([\w-]+))?\)", text):
            linked = (path.parent / target).resolve() if target else path
            if not linked.is_relative_to(REPO):
                continue
            assert linked.exists(), f"{path.name}: a link to {target}, which does not exist"
            if anchor and linked.suffix == ".md":
                headings = re.findall(r"^#+ (.*)$", linked.read_text(encoding="utf-8"), re.M)
                assert anchor in map(_anchor, headings), f"{path.name}: no heading #{anchor}"
