"""Mutation check: do the tests fail when the code is wrong? Prints killed/survived per bug.

Each mutation replaces one exact piece of text in one source file with a
deliberate bug (a flag ignored, a comparison forced true, an off-by-one). The
git-tracked files are copied once into a temporary directory (the working
tree is never touched); each mutation is applied to that copy alone, the tests
named for it run there (PYTHONPATH at the copy's src/, stopping at the first
failure), and the file is restored. A mutation is

- killed:   the tests fail (what we want);
- survived: the tests pass (a test is missing, or the mutation is equivalent);
- stale:    its text no longer occurs exactly once in the file (the code moved:
            update the mutation; never counted as killed);
- error:    pytest could not run the tests (exit status other than 0 or 1).

The unmutated copy is tested first, so a failing suite cannot pass for kills.

    .venv/bin/python benchmarks/mutations.py [--only NAME ...] [--list]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from reproducibility import copy_tree  # the same tracked-files copy the reproducibility run uses

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Mutation:
    """One deliberate bug: replace `old` by `new` in `path`, then run `tests`."""

    name: str
    area: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]


CLI = ("tests/test_cli_flags.py",)
CROSSCHECK = ("tests/test_crosscheck.py", "tests/test_pytrec_property.py")
MEASURES = ("tests/test_measures_hand.py", "tests/test_cli_flags.py")
CONVENTIONS = ("tests/test_conventions_hand.py", "tests/test_cli_flags.py")
READERS = ("tests/test_trec_reader.py",)
STATS = ("tests/test_stats.py",)
API = ("tests/test_joins.py", "tests/test_api.py")
COMMON = "src/irscore/cli/common.py"
EVALUATE = "src/irscore/engine/evaluate.py"
PEER_NAMES = "src/irscore/engine/measures/peer_common.py"
PEERS = ("tests/test_peer_names.py", "tests/test_peer_values.py")
RANK = "src/irscore/engine/ranking/rank.py"

MUTATIONS = [
    # the command line drops a flag on the floor
    Mutation(
        "cli ignores -J",
        "cli",
        COMMON,
        '"unjudged": "removed" if args.J else "nonrelevant",',
        '"unjudged": "nonrelevant",',
        CLI,
    ),
    Mutation(
        "cli ignores -c",
        "cli",
        COMMON,
        '"topics": "all_qrels" if args.c else "run_and_qrels",',
        '"topics": "run_and_qrels",',
        CLI,
    ),
    Mutation("cli ignores -M", "cli", COMMON, '"depth": args.M,', '"depth": None,', CLI),
    Mutation("cli ignores -l", "cli", COMMON, '"rel_level": args.l,', '"rel_level": 1,', CLI),
    Mutation(
        "cli ignores --tie-break",
        "cli",
        COMMON,
        '"tie_break": args.tie_break,',
        '"tie_break": "docno_desc",',
        CLI,
    ),
    Mutation("cli ignores --gmax", "cli", COMMON, '"gmax": args.gmax,', '"gmax": 4,', CLI),
    Mutation(
        "cli ignores --score-precision",
        "cli",
        COMMON,
        '"score_precision": args.score_precision,',
        '"score_precision": "float32",',
        CLI,
    ),
    Mutation(
        "cli ignores --grade-mapping",
        "cli",
        COMMON,
        '"grades": args.grades,',
        '"grades": "raw",',
        CLI,
    ),
    Mutation("cli ignores --ties", "cli", COMMON, '"ties": args.ties,', '"ties": "ordered",', CLI),
    Mutation("cli ignores --compat", "cli", COMMON, "if args.compat:", "if False:", CLI),
    Mutation(
        "cli ignores -q",
        "cli",
        "src/irscore/cli/evaluate.py",
        "per_topic=args.q,",
        "per_topic=False,",
        CLI,
    ),
    Mutation(
        "compare ignores --correction",
        "cli",
        "src/irscore/cli/compare.py",
        "correction=args.correction,",
        'correction="holm",',
        CLI,
    ),
    # the pytrec_eval cross-check cannot fail
    Mutation(
        "cross-check always agrees",
        "cross-check",
        "src/irscore/pipeline/crosscheck.py",
        'table["agrees"] = (table["difference"] <= TOLERANCE) | both_nan',
        'table["agrees"] = True',
        CROSSCHECK,
    ),
    Mutation(
        "cross-check never raises",
        "cross-check",
        "src/irscore/pipeline/crosscheck.py",
        "    if len(bad):\n",
        "    if False:\n",
        CROSSCHECK,
    ),
    Mutation(
        "cross-check tolerance 1e-3",
        "cross-check",
        "src/irscore/pipeline/crosscheck.py",
        "TOLERANCE = 1e-9",
        "TOLERANCE = 1e-3",
        CROSSCHECK,
    ),
    Mutation(
        "cross-check compares nothing",
        "cross-check",
        "src/irscore/pipeline/crosscheck.py",
        "    return requests\n",
        "    return set()\n",
        CROSSCHECK,
    ),
    # measures
    Mutation(
        "AP over relevant retrieved",
        "measures",
        "src/irscore/engine/measures/ap.py",
        "    return safe_divide(total, r.num_rel)\n\n\n@per_ranking\ndef ap_running",
        "    return safe_divide(total, r.num_rel_ret)\n\n\n@per_ranking\ndef ap_running",
        MEASURES,
    ),
    Mutation(
        "P@k over documents retrieved",
        "measures",
        "src/irscore/engine/measures/precision.py",
        'f"P_{k}": at_cutoff(r, r.cumrel, k) / k',
        'f"P_{k}": at_cutoff(r, r.cumrel, k) / np.maximum(np.minimum(k, r.lengths), 1)',
        MEASURES,
    ),
    Mutation(
        "recip_rank off by one",
        "measures",
        "src/irscore/engine/measures/precision.py",
        "out[topics] = 1.0 / r.rank[rel_rows[first]]",
        "out[topics] = 1.0 / (r.rank[rel_rows[first]] + 1)",
        MEASURES,
    ),
    Mutation(
        "nDCG discount log2(rank + 2)",
        "measures",
        "src/irscore/engine/measures/dcg.py",
        "values[rows] = gains_of(r.grade[rows], gain) / np.log2(r.rank[rows] + 1.0)",
        "values[rows] = gains_of(r.grade[rows], gain) / np.log2(r.rank[rows] + 2.0)",
        MEASURES,
    ),
    Mutation(
        "interpolation: + 1.0, not + 0.9",
        "measures",
        "src/irscore/engine/measures/interpolation.py",
        "np.trunc(product + 0.9)",
        "np.trunc(product + 1.0)",
        MEASURES,
    ),
    # conventions
    Mutation(
        "reference ties by docno ascending",
        "conventions",
        RANK,
        "        tie = p.doc_width - 1 - p.run_doc[rows]\n",
        "        tie = p.run_doc[rows]\n",
        CONVENTIONS,
    ),
    Mutation(
        "-J keeps negative grades",
        "conventions",
        RANK,
        "counted = counted[(r_grade[counted] != NOT_JUDGED) & (r_grade[counted] >= 0)]",
        "counted = counted[r_grade[counted] != NOT_JUDGED]",
        CONVENTIONS,
    ),
    Mutation(
        "negative grades count as judged",
        "conventions",
        RANK,
        "    judged = (grade != NOT_JUDGED) & (grade >= 0)\n",
        "    judged = grade != NOT_JUDGED\n",
        CONVENTIONS,
    ),
    Mutation(
        "duplicates: keep the last",
        "conventions",
        RANK,
        "    _, first = np.unique(key, return_index=True)\n",
        "    _, last = np.unique(key[::-1], return_index=True)\n    first = len(key) - 1 - last\n",
        CONVENTIONS,
    ),
    Mutation(
        "no-relevant topics never skipped",
        "conventions",
        EVALUATE,
        'if c.no_relevant_topics == "skip":  # per-topic values',
        "if False:  # per-topic values",
        CONVENTIONS,
    ),
    Mutation(
        "Cleverdon grades: 6 - g",
        "conventions",
        RANK,
        "out[between] = 5 - grades[between]",
        "out[between] = 6 - grades[between]",
        CONVENTIONS,
    ),
    # readers
    Mutation(
        "comment lines read as data",
        "readers",
        "src/irscore/engine/reading/careful_reader.py",
        ' or fields[0].lstrip(" \\t\\f\\v").startswith("#"):',
        ":",
        READERS,
    ),
    Mutation(
        "extra columns ignored",
        "readers",
        "src/irscore/engine/reading/careful_reader.py",
        "        if len(fields) != width:\n",
        "        fields = fields[:width]\n        if len(fields) < width:\n",
        READERS,
    ),
    Mutation(
        "non-finite score accepted",
        "readers",
        "src/irscore/engine/reading/careful_reader.py",
        "    if not math.isfinite(float(value)):\n",
        "    if False:\n",
        READERS,
    ),
    # statistics
    Mutation(
        "Holm not monotone",
        "statistics",
        "src/irscore/analysis/corrections.py",
        "np.maximum.accumulate(factors * p[order])",
        "factors * p[order]",
        STATS,
    ),
    Mutation(
        "Wilcoxon permutation: > for >=",
        "statistics",
        "src/irscore/analysis/stats.py",
        "np.count_nonzero(null >= r_plus))",
        "np.count_nonzero(null > r_plus))",
        STATS,
    ),
    Mutation(
        "t-test with n degrees of freedom",
        "statistics",
        "src/irscore/analysis/stats.py",
        "    df = float(n - 1)\n",
        "    df = float(n)\n",
        STATS,
    ),
    Mutation(
        "bootstrap p = c / B",
        "statistics",
        "src/irscore/analysis/stats.py",
        "p=(count + 1) / (B + 1),",
        "p=count / B,",
        STATS,
    ),
    Mutation(
        "exact randomisation p = (c+1)/(N+1)",
        "statistics",
        "src/irscore/analysis/stats.py",
        "        p = count / patterns\n",
        "        p = (count + 1) / (patterns + 1)\n",
        STATS,
    ),
    Mutation(
        "coded join skips qrels row 0",
        "engine",
        "src/irscore/engine/system/joins.py",
        "    hit = found >= 0\n",
        "    hit = found >= 1\n",
        API,
    ),
    Mutation(
        "coded join never sees a repeat",
        "engine",
        "src/irscore/engine/system/joins.py",
        "    repeated = bool((r_key[1:] == r_key[:-1]).any())\n",
        "    repeated = False\n",
        API,
    ),
    Mutation(
        "two halves: the first half's means",
        "engine",
        EVALUATE,
        "return values, topics, means_of(parts, c), notes",
        "return values, topics, means_of(parts[:1], c), notes",
        ("tests/test_grid_sharing.py",),
    ),
    Mutation(
        "ids: ASCII spaces only",
        "api",
        "src/irscore/engine/reading/inputs.py",
        "pc.match_substring_regex(shown, _SPACE)",
        'pc.match_substring_regex(shown, " ")',
        API,
    ),
    # a peer's name read under the wrong convention, or its measure miscounted
    Mutation(
        "RR@k breaks ties as trec_eval, not msmarco",
        "measures",
        PEER_NAMES,
        'IRM_SORTED = (*IRM, ("score_precision", "float64"), ("tie_break", "docno_asc"))',
        'IRM_SORTED = (*IRM, ("score_precision", "float64"))',
        PEERS,
    ),
    Mutation(
        "ranx names averaged over the run's topics",
        "measures",
        PEER_NAMES,
        'RANX = (("topics", "all_qrels"), ("score_precision", "float64"))',
        'RANX = (("score_precision", "float64"),)',
        PEERS,
    ),
    Mutation(
        "Judged@k always over k",
        "measures",
        "src/irscore/engine/measures/counts.py",
        "safe_divide(at_cutoff(r, running, k), np.minimum(k, r.lengths))",
        "at_cutoff(r, running, k) / k",
        PEERS,
    ),
    Mutation(
        "plain halves both the first half",
        "measures",
        "src/irscore/engine/small/plain_evaluate.py",
        "return topics[:cut] if part == 0 else topics[cut:]",
        "return topics[:cut]",
        ("tests/test_plain_evaluate.py",),
    ),
    Mutation(
        "forked result waited for before read",
        "cli",
        "src/irscore/engine/system/forked.py",
        "            first = work(parts[0])\n",
        "            first = work(parts[0])\n            os.waitpid(pid, 0)\n",
        ("tests/test_forked.py",),
    ),
    Mutation(
        "spool read back out of order",
        "cli",
        "src/irscore/cli/workers.py",
        "            for at, size in places:",
        "            for at, size in sorted(places, reverse=True):",
        ("tests/test_cli_workers.py",),
    ),
    Mutation(
        "halves: child's values last first",
        "cli",
        "src/irscore/cli/halves.py",
        "        for record in done[1]:",
        "        for record in reversed(done[1]):",
        ("tests/test_halves.py",),
    ),
    Mutation(
        "halves: failed child's half unscored",
        "cli",
        "src/irscore/cli/halves.py",
        "            here(makers[half:])",
        "            here(makers[half:0])",
        ("tests/test_halves.py",),
    ),
    Mutation(
        "forked: error waits for the child",
        "cli",
        "src/irscore/engine/system/forked.py",
        "        os.kill(pid, signal.SIGKILL)",
        "        signal.SIGKILL",
        ("tests/test_forked.py",),
    ),
]


def run_tests(workdir: Path, tests: tuple[str, ...], timeout: int) -> tuple[int, float]:
    """(pytest's exit status, seconds) of `tests` in the copy, stopping at the first failure."""
    env = {**os.environ, "PYTHONPATH": str(workdir / "src"), "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    start = time.perf_counter()
    try:
        done = subprocess.run(
            command, cwd=workdir, env=env, capture_output=True, text=True, timeout=timeout
        )
        status = done.returncode
    except subprocess.TimeoutExpired:
        status = -1
    return status, time.perf_counter() - start


def apply(workdir: Path, mutation: Mutation, timeout: int) -> tuple[str, float]:
    """The outcome of one mutation on the copy, which is restored afterwards."""
    path = workdir / mutation.path
    if not path.is_file():
        return "stale", 0.0
    original = path.read_text(encoding="utf-8")
    if original.count(mutation.old) != 1:
        return "stale", 0.0
    path.write_text(original.replace(mutation.old, mutation.new), encoding="utf-8")
    try:
        status, seconds = run_tests(workdir, mutation.tests, timeout)
    finally:
        path.write_text(original, encoding="utf-8")
    outcome = {0: "survived", 1: "killed", -1: "timeout"}.get(status, f"error ({status})")
    return outcome, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="run only these mutations (by name)")
    parser.add_argument("--list", action="store_true", help="list the mutations and stop")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per mutation")
    args = parser.parse_args()
    chosen = [m for m in MUTATIONS if not args.only or m.name in args.only]
    if args.list:
        for m in chosen:
            print(f"{m.name:36s} {m.area:12s} {m.path}")
        return
    with tempfile.TemporaryDirectory(prefix="irscore-mutations-") as scratch:
        workdir = Path(scratch)
        copy_tree(workdir)
        baseline = tuple(sorted({test for m in chosen for test in m.tests}))
        status, seconds = run_tests(workdir, baseline, args.timeout)
        if status != 0:
            sys.exit(f"the unmutated tests fail (pytest status {status}): fix them first")
        print(f"unmutated: {len(baseline)} test files pass ({seconds:.0f} s)", flush=True)
        print(f"{'mutation':36s} {'area':12s} {'outcome':10s} {'seconds':>7s}  file", flush=True)
        outcomes = []
        for m in chosen:
            outcome, seconds = apply(workdir, m, args.timeout)
            outcomes.append(outcome)
            print(f"{m.name:36s} {m.area:12s} {outcome:10s} {seconds:7.0f}  {m.path}", flush=True)
    counts = {o: outcomes.count(o) for o in dict.fromkeys(outcomes)}
    print(", ".join(f"{n} {o}" for o, n in counts.items()) + f" of {len(outcomes)}")
    sys.exit(0 if set(outcomes) == {"killed"} else 1)


if __name__ == "__main__":
    main()
