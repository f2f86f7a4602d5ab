"""`irscore explain`: one ranking's numbers, rank by rank, with each formula filled in."""

from __future__ import annotations

import argparse

from irscore.cli.common import (
    UsageError,
    add_convention_flags,
    convention_from_args,
    matplotlib_config_dir,
)


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The `explain` subcommand's arguments."""
    parser = commands.add_parser(
        "explain",
        help="why a number is what it is: one ranking, rank by rank",
        description="Explain one ranking: from grades (--grades 3,2,3,0,1,2 --missed 3,2 -k 6) "
        "or from a qrels, a run and a topic (QRELS RUN --topic 15). Prints a table per rank "
        "(P@i, recall@i, AP terms, gains, discounts, DCG and the ideal's, nDCG@i, ERR) and "
        "every final value with its formula; ties and their range of values.",
    )
    parser.add_argument("qrels", nargs="?")
    parser.add_argument("run_file", nargs="?", metavar="run")
    parser.add_argument("--topic", help="the topic to explain (with QRELS RUN)")
    parser.add_argument(
        "--grades", dest="grade_list", help="grades in rank order, ? for unjudged: 3,2,?,0"
    )
    parser.add_argument("--missed", default="", help="grades of relevant documents not ranked")
    parser.add_argument("--scores", help="scores in rank order (equal scores make ties)")
    parser.add_argument("-k", type=int, help="cut-off (default: every grade, or 10)")
    parser.add_argument("--format", choices=("md", "tsv", "json"), default="md")
    parser.add_argument("--wide", action="store_true", help="one table of every column")
    parser.add_argument("--plot", metavar="FILE", help="how each measure accumulates (.png/.svg)")
    add_convention_flags(parser, old_grades=False)  # --grades: the ranking's
    return parser


def run(args: argparse.Namespace) -> str:
    """The explanation as Markdown, TSV or JSON; the figure to --plot."""
    import json

    from irscore.engine.ranking.input_checks import read_checked
    from irscore.workbench import explain

    convention = convention_from_args(args)
    if args.grade_list is not None:
        if args.qrels or args.run_file or args.topic:
            raise UsageError("give either --grades or QRELS RUN --topic, not both")
        grades = explain.parse_grades(args.grade_list, "--grades")
        missed = explain.parse_grades(args.missed, "--missed") if args.missed else []
        scores = _scores(args.scores) if args.scores else None
        qrels, ranked = explain.from_grades(grades, missed, scores)
        topic, k = "1", len(grades) if args.k is None else args.k
    else:
        if not (args.qrels and args.run_file and args.topic):
            raise UsageError("give --grades, or QRELS RUN and --topic")
        if args.scores or args.missed:
            raise UsageError("--scores and --missed go with --grades")
        qrels, ranked = read_checked(args.qrels, "qrels"), read_checked(args.run_file, "run")
        topic, k = args.topic, 10 if args.k is None else args.k
    e = explain.explain(qrels, ranked, topic, convention, k)
    if args.plot:
        matplotlib_config_dir()
        from irscore.report.workbench_plots import save_explain_figure

        save_explain_figure(e, args.plot)
    if args.format == "json":
        return json.dumps(explain.records(e), indent=1) + "\n"
    if args.format == "tsv":
        return explain.tsv(e)
    return explain.markdown(e, wide=args.wide)


def _scores(text: str) -> list[float]:
    try:
        return [float(v) for v in text.split(",")]
    except ValueError:
        raise UsageError(f"--scores: {text!r} is not a list of numbers") from None
