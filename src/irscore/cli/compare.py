"""`irscore compare`: paired significance tests between runs, and the table papers print."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from irscore.cli.common import (
    UsageError,
    add_convention_flags,
    add_input_flags,
    check_alpha,
    convention_from_args,
    matplotlib_config_dir,
    note_not_computed,
    read_inputs,
)
from irscore.engine.output.naming import run_names
from irscore.engine.system import extras

# irscore.analysis.stats.TESTS and CORRECTIONS, spelled out so that the parser does not load
# scipy (a test checks they agree).
TESTS = ("t", "wilcoxon", "randomization", "bootstrap")
CORRECTIONS = ("holm", "bonferroni", "bh", "none")
TABLE_FORMATS = ("md", "latex", "csv")
WIDTH = 100  # text output wraps here unless --wide


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The `compare` subcommand's arguments."""
    parser = commands.add_parser(
        "compare",
        help="paired significance tests between runs; the many-systems table",
        description="Paired tests per topic of each run against a baseline (the first run, "
        "or --baseline), or of every pair (--all-pairs), for each measure; p-values "
        "adjusted (--correction) over those of one test: every measure and pair it tests, "
        "each test on its own. Two runs: the tests in detail "
        "(--format text|tsv|json). More, or --format md|latex|csv: the table papers print, "
        "one row per system, significance marks against the baseline.",
    )
    parser.add_argument("qrels")
    parser.add_argument("runs", nargs="+", metavar="run", help="two or more runs")
    parser.add_argument(
        "-m",
        action="append",
        metavar="MEASURE",
        help="trec_eval measure request (default: map, P.10, ndcg_cut.10, recip_rank)",
    )
    parser.add_argument("--baseline", help="the run (name or path) others are tested against")
    parser.add_argument("--all-pairs", action="store_true", help="test every pair of runs")
    parser.add_argument(
        "--test",
        choices=(*TESTS, "all", "tukey"),
        default="all",
        help="all: every test (table: t); tukey: Tukey's HSD over all the runs (table only)",
    )
    parser.add_argument(
        "--correction",
        choices=CORRECTIONS,
        default="holm",
        help="over the p-values of one test: every measure (and pair) it tests; "
        "each test is corrected on its own (default holm)",
    )
    parser.add_argument("--B", type=int, default=None, help="resamples (default 100000 / 10000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--format", choices=("text", "tsv", "json", *TABLE_FORMATS), default="text")
    parser.add_argument("--wide", action="store_true", help="text: every column, unwrapped")
    parser.add_argument(
        "--plot",
        metavar="FILE",
        help="two runs: the randomisation and bootstrap "
        "distributions of the first measure's mean difference (.png/.svg)",
    )
    add_convention_flags(parser)
    add_input_flags(parser)
    return parser


def run(args: argparse.Namespace) -> str:
    """The detailed tests or the systems table, with the input checks above the text."""
    import json

    extras.require("stats", "irscore compare")
    from irscore.analysis import systems_table
    from irscore.analysis.comparison import DEFAULT_MEASURES, paired, run_values, scored_values
    from irscore.engine.measures.groups import plan
    from irscore.engine.reading import trec

    if len(args.runs) < 2:
        raise UsageError("compare needs at least two runs")
    if args.plot and not args.plot.lower().endswith((".png", ".svg")):
        raise UsageError(f"--plot {args.plot}: the file name must end in .png or .svg")
    if args.baseline and args.all_pairs:
        raise UsageError("--baseline and --all-pairs exclude each other")
    groups = plan(args.m or DEFAULT_MEASURES, trec_eval_requests=True)
    convention = convention_from_args(args)
    check_alpha(args.alpha)
    if args.B is not None and args.B < 1:
        raise UsageError(f"--B takes a positive number of resamples, got {args.B}")
    qrels, reading = read_inputs(args, args.qrels, args.runs)
    tags, values = [], []
    for run in reading:  # one run at a time: read, scored, dropped (its values kept)
        tags.append(str(run.table["tag"][0]) if len(run.table) else "")
        values.append(run_values(qrels, run, groups, convention))
        del run
    names = run_names(args.runs, tags)
    scored = scored_values(list(zip(names, values, strict=True)), groups, convention)
    table, checks, measures = scored.table, scored.checks, scored.measures
    note_not_computed(scored.not_computed, convention)
    baseline = None if args.all_pairs else _baseline(args.baseline, args.runs, names)
    detailed = len(names) == 2 and not args.all_pairs and args.format not in TABLE_FORMATS
    tests = TESTS if args.test == "all" else (args.test,)
    if detailed and args.test == "tukey":
        raise UsageError(
            "--test tukey tests many systems at once: the systems table (three runs or more, "
            "or --format md|latex|csv)"
        )
    if detailed:
        pair = (baseline, next(n for n in names if n != baseline))
        result = paired(
            table, pair, measures, convention, tests, args.B, args.seed, args.alpha, args.correction
        )
        if args.plot:
            matplotlib_config_dir()
            from irscore.report import compare_plots

            compare_plots.save(table, pair, measures[0], args.B, args.seed, args.alpha, args.plot)
        if args.format == "tsv":
            return result.to_csv(
                sep="\t", index=False, float_format=trec.float_text, lineterminator="\n"
            )
        if args.format == "json":
            return json.dumps(result.to_dict(orient="records"), indent=1) + "\n"
        paths = dict(zip(names, args.runs, strict=True))
        return _checks(checks) + _detailed_text(result, pair, paths, convention, args)
    if args.plot:
        raise UsageError("--plot draws the distributions of one pair: give two runs")
    systems = systems_table.build(
        table,
        names,
        measures,
        baseline,
        test=tests[0],
        correction=args.correction,
        alpha=args.alpha,
        B=args.B,
        seed=args.seed,
        convention=convention.replace(name="reference"),
    )
    systems.tests["convention"] = convention.name
    if args.format == "tsv":
        return systems.tests.to_csv(
            sep="\t", index=False, float_format=trec.float_text, lineterminator="\n"
        )
    if args.format == "json":
        return json.dumps(systems.tests.to_dict(orient="records"), indent=1) + "\n"
    if args.format in TABLE_FORMATS:
        return systems_table.RENDER[args.format](systems)
    legend = "".join(
        f"  {name} = {path}\n" for name, path in zip(names, args.runs, strict=True) if name != path
    )
    head = f"convention: {convention.name} ({convention.description})\n"
    return (
        _checks(checks)
        + (f"runs:\n{legend}" if legend else "")
        + head
        + (systems_table.markdown(systems))
    )


def _baseline(chosen: str | None, paths: Sequence[str], names: Sequence[str]) -> str:
    """The baseline's name: --baseline as a name or a path, else the first run."""
    if chosen is None:
        return names[0]
    if chosen in names:
        return chosen
    if chosen in paths and list(paths).count(chosen) == 1:
        return names[list(paths).index(chosen)]
    raise UsageError(f"--baseline {chosen}: not one of the runs ({', '.join(names)})")


def _checks(lines: list[str]) -> str:
    return "checks:\n" + "".join(f"  {line}\n" for line in lines or ["none"])


def _detailed_text(result, pair, paths, convention, args) -> str:
    """The tests in a table that fits WIDTH columns (--wide: every column)."""
    from irscore.analysis.audit import correction_scope

    a, b = pair
    head = "".join(
        _wrap(line) + "\n"
        for line in (
            f"A = {a} ({paths[a]})",
            f"B = {b} ({paths[b]})",
            f"convention: {convention.name} ({convention.description})",
            f"p adjusted: {correction_scope(args.correction, result)}; alpha {args.alpha:g}",
        )
    )
    if args.wide:
        shown = result.drop(columns=["convention", "run_a", "run_b"])
        return head + shown.to_string(index=False, float_format=lambda v: f"{v:.4g}") + "\n"
    compact = result[
        ["measure", "test", "n", "mean_a", "mean_b", "diff", "effect_size", "p", "p_adjusted"]
    ].copy()
    compact.columns = ["measure", "test", "n", "A", "B", "B - A", "d", "p", "p adj"]
    compact["CI of B - A"] = [
        "" if lo != lo else f"[{lo:.4f}, {hi:.4f}]"  # NaN: the test gives no interval
        for lo, hi in zip(result["ci_low"], result["ci_high"], strict=True)
    ]
    compact["sig"] = ["*" if s else "" for s in result["significant"]]
    text = compact.to_string(index=False, float_format=lambda v: f"{v:.4g}") + "\n"
    notes = [
        f"  {m} ({t}): {n}"
        for m, t, n in zip(result["measure"], result["test"], result["notes"], strict=True)
        if n
    ]
    footer = "* significant after the correction; d: Cohen's d_z of B - A\n"
    if notes:
        footer += "notes:\n" + "\n".join(_wrap(line) for line in notes) + "\n"
    return head + text + footer


def _wrap(line: str) -> str:
    import textwrap

    return textwrap.fill(line, WIDTH, subsequent_indent="    ")
