"""`irscore` on the command line: a drop-in trec_eval that can also switch conventions.

Errors (unknown measure or option value, malformed file, duplicate document)
print one line to stderr and exit with status 2, with nothing on stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import replace

import pandas as pd

from irscore import audit, own_runs, stats, trec, trec_eval_text
from irscore.conventions import CHOICES, Convention, ConventionError
from irscore.evaluate import (
    DuplicateDocumentError,
    concat_long,
    evaluate_one,
    long_table,
    prepare,
)
from irscore.measures import MeasureError, parse_requests


class UsageError(ValueError):
    """A command line that asks for something irscore cannot do."""


def _add_convention_flags(parser: argparse.ArgumentParser) -> None:
    """trec_eval's flags plus one flag per convention decision, with the spec's value names."""
    parser.add_argument("-c", action="store_true", help="average over every qrels topic (-c)")
    parser.add_argument("-J", action="store_true", help="remove unjudged documents (-J)")
    parser.add_argument("-M", type=int, metavar="N", help="only the first N documents count")
    parser.add_argument("-l", type=int, metavar="N", default=1, help="relevance level (1)")
    for field in ("tie_break", "score_precision", "gain", "interpolation", "grades", "duplicates"):
        parser.add_argument(
            f"--{field.replace('_', '-')}",
            choices=CHOICES[field],
            default=getattr(Convention(), field),
            help=f"default: {getattr(Convention(), field)}",
        )
    parser.add_argument(
        "--no-relevant-topics",
        choices=CHOICES["no_relevant_topics"],
        default="zero",
        help="topics without a relevant document: score 0 (default) or leave out",
    )
    parser.add_argument("--gmax", type=int, default=4, help="ERR's maximum grade (4)")


def convention_from_args(args: argparse.Namespace) -> Convention:
    """The convention the flags describe; unchanged flags keep the reference values."""
    changes = {
        "topics": "all_qrels" if args.c else "run_and_qrels",
        "unjudged": "removed" if args.J else "nonrelevant",
        "depth": args.M,
        "rel_level": args.l,
        "tie_break": args.tie_break,
        "score_precision": args.score_precision,
        "gain": args.gain,
        "interpolation": args.interpolation,
        "grades": args.grades,
        "duplicates": args.duplicates,
        "no_relevant_topics": args.no_relevant_topics,
        "gmax": args.gmax,
    }
    reference = Convention()
    changes = {k: v for k, v in changes.items() if v != getattr(reference, k)}
    return Convention.from_changes("command line", changes)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="irscore", description="Reproducible retrieval evaluation with explicit conventions."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    ev = commands.add_parser(
        "evaluate",
        help="score runs like trec_eval, under any convention",
        description="Score one or more TREC runs; --format trec prints trec_eval's layout.",
    )
    ev.add_argument("qrels")
    ev.add_argument("runs", nargs="+", metavar="run")
    ev.add_argument("-q", action="store_true", help="print per-topic values too")
    ev.add_argument("-n", action="store_true", help="no summary (the `all` lines)")
    ev.add_argument(
        "-m", action="append", metavar="MEASURE", help="trec_eval measure request, e.g. P.5,10"
    )
    ev.add_argument("--format", choices=("trec", "tsv", "json"), default="trec")
    _add_convention_flags(ev)
    cmp = commands.add_parser(
        "compare",
        help="paired significance tests of run B against run A",
        description="Paired tests per topic of RUN_B against RUN_A, for each measure; "
        "p-values Holm-adjusted across the measures.",
    )
    cmp.add_argument("qrels")
    cmp.add_argument("run_a")
    cmp.add_argument("run_b")
    cmp.add_argument(
        "-m",
        action="append",
        metavar="MEASURE",
        help="trec_eval measure request (default: map, P.10, ndcg_cut.10, recip_rank)",
    )
    cmp.add_argument("--test", choices=(*stats.TESTS, "all"), default="all")
    cmp.add_argument("--B", type=int, default=None, help="resamples (default 100000 / 10000)")
    cmp.add_argument("--seed", type=int, default=0)
    cmp.add_argument("--alpha", type=float, default=0.05)
    cmp.add_argument("--format", choices=("text", "tsv"), default="text")
    _add_convention_flags(cmp)
    aud = commands.add_parser(
        "audit",
        help="what every convention does to your runs: tables, plots, a summary",
        description="Score runs under the whole default convention grid and write the "
        "convention audit, tie-break table, 11-point curves, paired tests and plots.",
    )
    aud.add_argument("qrels")
    aud.add_argument("runs", nargs="+", metavar="run")
    aud.add_argument("--out", default="irscore-audit", help="folder for the outputs")
    aud.add_argument("--B", type=int, default=10_000, help="resamples of the paired tests")
    aud.add_argument("--seed", type=int, default=0)
    aud.add_argument("--alpha", type=float, default=0.05)
    return parser


COMPARE_DEFAULT = ["map", "P.10", "ndcg_cut.10", "recip_rank"]
COUNTS = {"num_q", "num_ret", "num_rel", "num_rel_ret", "gm_map"}


def run_compare(args: argparse.Namespace) -> str:
    """The table of paired tests of `irscore compare`, with the input checks above it."""
    spec, _ = parse_requests(args.m or COMPARE_DEFAULT)
    convention = convention_from_args(args)
    if not 0 < args.alpha < 1:
        raise UsageError(f"--alpha must be between 0 and 1, got {args.alpha}")
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
    tests = stats.TESTS if args.test == "all" else (args.test,)
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


def run_audit(args: argparse.Namespace) -> str:
    """The summary of `irscore audit`; the tables and plots go under --out."""
    if not 0 < args.alpha < 1:
        raise UsageError(f"--alpha must be between 0 and 1, got {args.alpha}")
    return own_runs.audit_files(
        args.qrels, args.runs, args.out, B=args.B, seed=args.seed, alpha=args.alpha
    )


def _run_names(path_a: str, path_b: str) -> list[str]:
    """The runs' tags, or their file names when both carry the same tag."""
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


def _few(items: list[str], shown: int = 10) -> str:
    more = f" and {len(items) - shown} more" if len(items) > shown else ""
    return ", ".join(items[:shown]) + more


def run_evaluate(args: argparse.Namespace) -> str:
    """The whole output of `irscore evaluate`, computed before anything is printed."""
    spec, missing = parse_requests(args.m or [])
    if args.M is not None and args.M < 1:
        raise UsageError(f"-M takes a positive number of documents, got {args.M}")
    convention = convention_from_args(args)
    qrels = trec.read_qrels(args.qrels)
    out: list[str] = []
    tables = []
    for path in args.runs:
        run = trec.read_run(path)
        prepared = prepare(qrels, run)
        values, topics, means, notes = evaluate_one(prepared, convention, spec)
        if len(topics) == 0:
            raise UsageError(f"{path}: no topic has both results and judgments in {args.qrels}")
        runid = str(run["tag"].iloc[-1])
        table = long_table(runid, convention, values, topics, means)
        tables.append(table)
        if args.format == "trec":
            in_run = set(topics) - set(notes.qrels_topics_without_run)
            out.extend(
                trec_eval_text.lines(
                    table,
                    runid if "runid" in spec.families else None,
                    per_topic=args.q,
                    summary=not args.n,
                    printed_topics=in_run,
                )
            )
    if missing and args.format == "trec":
        print(f"irscore: note: not computed yet: {', '.join(missing)}", file=sys.stderr)
    if args.format == "trec":
        return "".join(line + "\n" for line in out)
    combined = pd.concat(tables, ignore_index=True)
    if not args.q:
        combined = combined[combined["topic"] == "all"]
    if args.format == "tsv":
        return combined.to_csv(
            sep="\t", index=False, float_format=trec.float_text, lineterminator="\n"
        )
    return json.dumps(combined.to_dict(orient="records"), indent=1) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        commands = {"evaluate": run_evaluate, "compare": run_compare, "audit": run_audit}
        text = commands[args.command](args)
    except (
        trec.TrecFormatError,
        DuplicateDocumentError,
        ConventionError,
        MeasureError,
        UsageError,
        OSError,
    ) as err:
        message = str(err).splitlines()[0] if str(err) else type(err).__name__
        print(f"irscore: error: {message}", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
