"""`irscore compare`: paired significance tests of run B against run A."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from irscore.cli.common import add_convention_flags, check_alpha, convention_from_args

DEFAULT_MEASURES = ["map", "P.10", "ndcg_cut.10", "recip_rank"]
# irscore.stats.TESTS, spelled out so that the parser does not load scipy (a test checks).
TESTS = ("t", "wilcoxon", "randomization", "bootstrap")
COUNTS = {"num_q", "num_ret", "num_rel", "num_rel_ret", "gm_map"}


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The `compare` subcommand's arguments."""
    parser = commands.add_parser(
        "compare",
        help="paired significance tests of run B against run A",
        description="Paired tests per topic of RUN_B against RUN_A, for each measure; "
        "p-values Holm-adjusted across the measures.",
    )
    parser.add_argument("qrels")
    parser.add_argument("run_a")
    parser.add_argument("run_b")
    parser.add_argument(
        "-m",
        action="append",
        metavar="MEASURE",
        help="trec_eval measure request (default: map, P.10, ndcg_cut.10, recip_rank)",
    )
    parser.add_argument("--test", choices=(*TESTS, "all"), default="all")
    parser.add_argument("--B", type=int, default=None, help="resamples (default 100000 / 10000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--format", choices=("text", "tsv"), default="text")
    add_convention_flags(parser)
    return parser


def run(args: argparse.Namespace) -> str:
    """The table of paired tests of `irscore compare`, with the input checks above it."""
    from dataclasses import replace

    from irscore import audit, trec
    from irscore.evaluate import concat_long, evaluate_one, long_table, prepare
    from irscore.measures import parse_requests

    spec, _ = parse_requests(args.m or DEFAULT_MEASURES)
    convention = convention_from_args(args)
    check_alpha(args.alpha)
    qrels = trec.read_qrels(args.qrels)
    names = _run_names(args.run_a, args.run_b)
    tables, checks = [], []
    for path, name in zip((args.run_a, args.run_b), names, strict=True):
        prepared = prepare(qrels, trec.read_run(path))
        values, topics, means, notes = evaluate_one(prepared, convention, spec)
        tables.append(long_table(name, convention, values, topics, means))
        checks += _notes_lines(name, notes)
    table = concat_long(tables)
    measures = [m for m in dict.fromkeys(table["measure"]) if m not in COUNTS]
    tests = TESTS if args.test == "all" else (args.test,)
    reference_named = replace(convention, name="reference")
    table["convention"] = "reference"
    result = audit.paired_comparisons(
        table, [tuple(names)], measures, [reference_named], tests, args.B, args.seed, args.alpha
    )
    if args.format == "tsv":
        return result.to_csv(
            sep="\t", index=False, float_format=trec.float_text, lineterminator="\n"
        )
    shown = result.drop(columns=["convention", "run_a", "run_b"])
    header = f"A = {names[0]} ({args.run_a}); B = {names[1]} ({args.run_b}); "
    header += f"convention: {convention.description}; p adjusted (Holm) across the table\n"
    text = "checks:\n" + "".join(f"  {line}\n" for line in checks or ["none"]) + header
    return text + shown.to_string(index=False, float_format=lambda v: f"{v:.4g}") + "\n"


def _run_names(path_a: str, path_b: str) -> list[str]:
    """The runs' tags, or their file names when both carry the same tag."""
    from irscore import trec

    tags = [str(trec.read_run(p)["tag"].iloc[0]) for p in (path_a, path_b)]
    return tags if tags[0] != tags[1] else [path_a, path_b]


def _notes_lines(name: str, notes) -> list[str]:
    """Input problems a comparison must not absorb silently."""
    lines = []
    if notes.run_topics_without_qrels:
        lines.append(
            f"{name}: topics without judgments, skipped: {_few(notes.run_topics_without_qrels)}"
        )
    if notes.qrels_topics_without_run:
        lines.append(f"{name}: judged topics the run lacks: {_few(notes.qrels_topics_without_run)}")
    if notes.duplicates_dropped:
        lines.append(f"{name}: {notes.duplicates_dropped} duplicate documents dropped")
    return lines


def _few(items: Sequence[str], shown: int = 10) -> str:
    more = f" and {len(items) - shown} more" if len(items) > shown else ""
    return ", ".join(items[:shown]) + more
