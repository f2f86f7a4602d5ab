"""`irscore` on the command line: a drop-in trec_eval that can also switch conventions.

Errors (unknown measure or option value, malformed file, duplicate document)
print one line to stderr and exit with status 2, with nothing on stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

import pandas as pd

from irscore import trec, trec_eval_text
from irscore.conventions import CHOICES, Convention, ConventionError
from irscore.evaluate import DuplicateDocumentError, evaluate_one, long_table, prepare
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
    return parser


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
        if args.command == "evaluate":
            text = run_evaluate(args)
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
