"""`irscore interleave`: would simulated users prefer run B online?"""

from __future__ import annotations

import argparse

from irscore.cli.common import UsageError, check_alpha, matplotlib_config_dir
from irscore.engine.output.naming import run_names
from irscore.engine.system import extras

# irscore.workbench.interleave's METHODS and CLICK_MODELS, spelled out so that the parser does
# not load numpy and scipy (a test checks they agree).
METHODS = ("team_draft", "balanced")
CLICK_MODELS = ("perfect", "navigational", "informational", "random")


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The `interleave` subcommand's arguments."""
    parser = commands.add_parser(
        "interleave",
        help="interleave two runs for simulated users: wins, ties, a sign test",
        description="Team-draft (or balanced) interleaving of RUN_A and RUN_B with a cascade "
        "click model driven by the judgments (Hofmann, Whiteson & de Rijke 2011). Each "
        "impression picks a topic both runs answer; the run whose documents get more "
        "clicks wins it. Same seed, same output.",
    )
    parser.add_argument("qrels")
    parser.add_argument("run_a")
    parser.add_argument("run_b")
    parser.add_argument("--method", choices=METHODS, default="team_draft")
    parser.add_argument("--click-model", choices=CLICK_MODELS, default="perfect")
    parser.add_argument("--impressions", type=int, default=10_000)
    parser.add_argument("--length", type=int, default=10, help="documents shown (10)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument(
        "--grade-mapping",
        choices=("raw", "cranfield_cleverdon"),
        default="raw",
        help="how qrels grades become the click model's 0, 1, 2+ (default raw)",
    )
    parser.add_argument("--log", metavar="FILE", help="every impression, one line each (TSV)")
    parser.add_argument("--plot", metavar="FILE", help="B's share as impressions accumulate")
    return parser


def run(args: argparse.Namespace) -> str:
    """The verdict; the log and the figure go to their files."""
    extras.require("stats", "irscore interleave")
    from irscore.engine.ranking.input_checks import read_checked
    from irscore.engine.reading import trec
    from irscore.workbench import interleave

    check_alpha(args.alpha)
    if args.plot and not args.plot.lower().endswith((".png", ".svg")):
        raise UsageError(f"--plot {args.plot}: the file name must end in .png or .svg")
    qrels = read_checked(args.qrels, "qrels")
    run_a, run_b = read_checked(args.run_a, "run"), read_checked(args.run_b, "run")
    outcome = interleave.simulate(
        qrels,
        run_a,
        run_b,
        model=args.click_model,
        impressions=args.impressions,
        length=args.length,
        seed=args.seed,
        method=args.method,
        grades=args.grade_mapping,
    )
    tags = [str(run["tag"].iloc[0]) for run in (run_a, run_b)]
    names = tuple(run_names([args.run_a, args.run_b], tags))
    if args.log:
        trec.write_lines_atomically(args.log, [interleave.log_lines(outcome)])
    if args.plot:
        matplotlib_config_dir()
        from irscore.report.workbench_plots import save_interleave_figure

        save_interleave_figure(outcome, args.click_model, *names, args.plot)
    head = f"{args.method} interleaving, {args.click_model} clicks, seed {args.seed}\n"
    return head + interleave.summary(outcome, *names, alpha=args.alpha)
