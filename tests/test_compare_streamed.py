"""`irscore compare` and `irscore.compare` with many runs read the runs one at a time,
each scored before the next is read (the systems table holds per-topic values, not
runs), and print what they printed when every run was read first: the texts in
tests/data/compare_streamed/ were written by the code that read them all first
(`python tests/test_compare_streamed.py` writes them again).
"""

from __future__ import annotations

import gc
import io
import random
import re
import sys
import warnings
import weakref
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

EXPECTED = Path(__file__).resolve().parent / "data" / "compare_streamed"
RUNS = 6
# The command line's flags, each printed whole (text, tables, the two-run tests).
COMMANDS = {
    "text": [],
    "md_all_pairs": ["--all-pairs", "--format", "md"],
    "latex_baseline": ["--baseline", "r3.run", "--format", "latex"],
    "csv_tukey": ["--test", "tukey", "--format", "csv", "-m", "map", "-m", "P.5"],
    "tsv_wilcoxon_c": ["--test", "wilcoxon", "-c", "--format", "tsv"],
    "json_bh": ["--correction", "bh", "--format", "json", "-J"],
    "two_runs": ["--B", "300"],
}


def inputs(folder: Path) -> tuple[str, list[str]]:
    """Seeded qrels and runs (relative names): grades -2 .. 3 (negative ones too), most
    retrieved documents unjudged, many tied scores; the runs miss some judged topics and
    name a topic without judgments (77); r2 and r5 share a tag (named by their files),
    r4 is not grouped by topic."""
    rng = random.Random(11)
    topics = [str(t) for t in range(1, 16)]
    with open(folder / "qrels", "w") as out:
        for t in topics:
            for d in sorted({rng.randrange(60) for _ in range(12)}):
                out.write(f"{t} 0 d{d} {rng.randrange(-2, 4)}\n")
    paths = []
    for r in range(1, RUNS + 1):
        tag = "shared" if r in (2, 5) else f"sys{r}"
        named = [t for t in topics if rng.random() > 0.1] + ["77"]
        lines = [
            f"{t} Q0 d{d} {i + 1} {rng.randrange(6) / 2} {tag}\n"
            for t in named
            for i, d in enumerate(rng.sample(range(80), 25))
        ]
        if r == 4:
            rng.shuffle(lines)
        (folder / f"r{r}.run").write_text("".join(lines))
        paths.append(f"r{r}.run")
    return "qrels", paths


def outputs(folder: Path) -> dict[str, str]:
    """Every command's stdout and stderr, and the API's systems table, in `folder`."""
    from irscore.cli import main

    qrels, paths = inputs(folder)
    found = {}
    for name, flags in COMMANDS.items():
        runs = paths[:2] if name == "two_runs" else paths
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            status = main(["compare", *flags, qrels, *runs])
        found[name] = f"status {status}\n{out.getvalue()}--- stderr\n{err.getvalue()}"
    found["api_list"] = api_text(qrels, paths, measures=["map", "nDCG@10", "P_5"])
    named = {f"system {i}": path for i, path in enumerate(paths)}
    found["api_named"] = api_text(qrels, named, tests="bootstrap", B=300, baseline="system 2")
    return found


def api_text(qrels: str, runs, **kwargs) -> str:
    """`irscore.compare`'s systems table of many runs as text: its markdown, tests,
    checks and warnings."""
    import irscore

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = irscore.compare(qrels, runs, **kwargs)
    said = "".join(f"{w.category.__name__}: {w.message}\n" for w in caught)
    tests = table.tests.to_csv(sep="\t", index=False, lineterminator="\n")
    checks = "".join(f"{line}\n" for line in table.checks)
    return f"{table.markdown()}--- tests\n{tests}--- checks\n{checks}--- warnings\n{said}"


def test_many_runs_print_what_reading_them_all_first_printed(tmp_path, monkeypatch):
    """Six runs (ties, unjudged and negatively graded documents, topics on one side
    only, a run not grouped by topic, two sharing a tag) under each kind of output:
    the bytes the code that read every run first wrote."""
    monkeypatch.chdir(tmp_path)
    same = versions() == (EXPECTED / "versions.txt").read_text()
    for name, text in outputs(tmp_path).items():
        expected = (EXPECTED / f"{name}.txt").read_text()
        if same:  # byte for byte
            assert text == expected, name
        else:  # other scipy and numpy (the lower-bound CI): the digits they agree on
            assert digits(text) == digits(expected), name


def versions() -> str:
    """The versions of what computes the tests' numbers, as versions.txt records them."""
    import numpy
    import pandas
    import scipy

    return f"numpy {numpy.__version__}, pandas {pandas.__version__}, scipy {scipy.__version__}\n"


def digits(text: str) -> str:
    """`text` with every decimal number to 10 significant digits."""
    return re.sub(r"-?\d+\.\d+(?:e[-+]?\d+)?", lambda m: f"{float(m.group()):.10g}", text)


@pytest.fixture
def held(monkeypatch):
    """The most runs alive at once, counted at each read of a run (the command line's
    and the API's readers spied on): a run read and dropped before the next is read
    counts 1."""
    from irscore.cli import common
    from irscore.engine import arguments

    alive: list[weakref.ref] = []
    most = [0]

    def spied(read):
        def reading(*args, **kwargs):
            gc.collect()
            live = [ref for ref in alive if ref() is not None]
            run = read(*args, **kwargs)
            alive[:] = [*live, weakref.ref(run)]
            most[0] = max(most[0], len(alive))
            return run

        return reading

    monkeypatch.setattr(common, "read_run", spied(common.read_run))
    monkeypatch.setattr(arguments, "run_input", spied(arguments.run_input))
    return most


@pytest.mark.parametrize("form", ["cli", "api_list", "api_named", "evaluate"])
def test_runs_are_not_all_held_at_once(tmp_path, monkeypatch, held, form):
    """Each run is read once its forerunner is scored and dropped: at most one run is
    alive when the next is read, whether from the command line, `irscore.compare` on a
    list or a mapping of runs, or `irscore.evaluate` on a mapping."""
    import irscore
    from irscore.cli import main

    monkeypatch.chdir(tmp_path)
    qrels, paths = inputs(tmp_path)
    with warnings.catch_warnings(), redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        if form == "cli":
            assert main(["compare", "--format", "md", qrels, *paths]) == 0
        elif form == "api_list":
            irscore.compare(qrels, paths)
        elif form == "api_named":
            irscore.compare(qrels, {path: path for path in paths})
        else:
            irscore.evaluate(qrels, {path: path for path in paths}, measures=["map"])
    assert held[0] == 1


if __name__ == "__main__":  # write the expected texts again (from the code being tested)
    import tempfile

    EXPECTED.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        import os

        os.chdir(folder)
        for name, text in outputs(Path(folder)).items():
            (EXPECTED / f"{name}.txt").write_text(text)
    (EXPECTED / "versions.txt").write_text(versions())
    sys.exit(0)
