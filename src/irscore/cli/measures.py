"""`irscore measures`: every measure name irscore accepts, its parameters, where it
comes from and the convention it implies."""

from __future__ import annotations

import argparse


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The `measures` subcommand's arguments."""
    parser = commands.add_parser(
        "measures",
        help="every measure name: trec_eval's, irscore's, ir_measures' and ranx's",
        description="List every name family irscore accepts with -m and in the Python API: "
        "its parameters, its provenance (trec_eval 9/10, irscore, ir_measures or ranx "
        "with the implementation the peer uses) and the convention the name implies "
        "(a trec_eval name: the convention of the call).",
    )
    parser.add_argument("--format", choices=("text", "tsv"), default="text")
    return parser


def run(args: argparse.Namespace) -> str:
    """The table of names."""
    from irscore.engine.output import catalogue

    if args.format == "text":
        return catalogue.text()
    lines = ["\t".join(catalogue.COLUMNS)]
    lines += ["\t".join(str(row[c]) for c in catalogue.COLUMNS) for row in catalogue.rows()]
    return "\n".join(lines) + "\n"
