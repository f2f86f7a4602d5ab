"""`irscore audit`: what every convention does to your runs: tables, plots, a summary."""

from __future__ import annotations

import argparse

from irscore.cli.common import check_alpha, matplotlib_config_dir
from irscore.cli.compare import TESTS
from irscore.engine.system import extras


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The `audit` subcommand's arguments."""
    parser = commands.add_parser(
        "audit",
        help="what every convention does to your runs: tables, plots, a summary",
        description="Score runs under the whole default convention grid and write the "
        "convention audit, tie-break table, 11-point curves, paired tests and plots.",
    )
    parser.add_argument("qrels")
    parser.add_argument("runs", nargs="+", metavar="run")
    parser.add_argument(
        "--out",
        metavar="DIR",
        help="folder for the tables and plots (default: a new temporary folder; the last "
        "line says where)",
    )
    parser.add_argument(
        "--test",
        choices=(*TESTS, "all"),
        default="t",
        help="the paired test between every two runs (all: every test); "
        "--B and --seed set the resampling tests",
    )
    parser.add_argument("--B", type=int, default=10_000, help="resamples of the paired tests")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument(
        "-m",
        action="append",
        metavar="MEASURE",
        help="a measure audited beside the headline ones: trec_eval's printed name (P_7) "
        "or ir_measures' / ranx's (nDCG@10, mrr@10; see irscore measures)",
    )
    return parser


def run(args: argparse.Namespace) -> str:
    """The summary of `irscore audit`; the tables and plots go under --out, else under a
    new temporary folder (kept), which the summary's last line names."""
    check_alpha(args.alpha)
    extras.require("stats", "irscore audit")
    matplotlib_config_dir()
    from irscore.report.own_runs import audit_files

    tests = TESTS if args.test == "all" else (args.test,)
    return audit_files(
        args.qrels,
        args.runs,
        args.out,
        B=args.B,
        seed=args.seed,
        alpha=args.alpha,
        tests=tests,
        measures=args.m or (),
    )
