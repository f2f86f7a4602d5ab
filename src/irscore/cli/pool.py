"""`irscore pool`: a pooled test collection, synthetic or from real runs."""

from __future__ import annotations

import argparse

from irscore.cli.common import UsageError, old_spelling


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The `pool` subcommand's arguments."""
    parser = commands.add_parser(
        "pool",
        help="a pooled collection: synthetic (--out DIR) or from runs (--from-runs)",
        description="With --out DIR: draw the workbench's synthetic collection (queries from "
        "401, systems bm25 and bm25+rerank, judged to the pool depth plus a few relevant "
        "documents neither found) and write qrels.txt, truth.txt, the runs and pool.md, "
        "which compares the measures on the pool with the full-judgment truth. With "
        "--from-runs RUN... --depth K OUT: write the depth-K pool of real runs to OUT "
        "(`topic docno` lines; with --qrels, the qrels lines of the pooled documents).",
    )
    parser.add_argument("target", nargs="?", metavar="OUT", help="pool file (--from-runs)")
    parser.add_argument("--out", metavar="DIR", help="folder for the synthetic collection")
    parser.add_argument("--from-runs", nargs="+", metavar="RUN")
    parser.add_argument("--qrels", help="judgments to take the pool's grades from")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--queries", type=int, default=25)
    parser.add_argument("--per-run", type=int, default=20, help="documents per run (20)")
    parser.add_argument("--depth", type=int, default=10, help="pool depth (10)")
    parser.add_argument("--levels", type=int, default=3, help="grade levels 0..N-1 (3)")
    old_spelling(parser, "--grades", "--levels", dest="levels", type=int)
    parser.add_argument("--missed", type=int, default=2, help="relevant docs added per query")
    parser.add_argument("--documents", type=int, default=1000, help="collection size (1000)")
    return parser


def run(args: argparse.Namespace) -> str:
    """pool.md for a synthetic collection; a count line for a pool of runs."""
    from pathlib import Path

    from irscore.engine.ranking.input_checks import read_checked
    from irscore.engine.reading import trec
    from irscore.workbench import pool

    if args.from_runs:
        if args.out or not args.target:
            raise UsageError("--from-runs RUN... --depth K takes one OUT file and no --out")
        paths = args.from_runs
        runs = (read_checked(path, "run") for path in paths)  # read one at a time
        pooled = pool.pool_of_runs(runs, args.depth)
        if args.qrels:
            judged, unjudged = pool.judge(pooled, read_checked(args.qrels, "qrels"))
            trec.write_qrels(args.target, judged)
            return (
                f"{len(pooled)} documents in the depth-{args.depth} pool of "
                f"{len(paths)} runs over {pooled['topic'].nunique()} topics; {len(judged)} "
                f"judged in {args.qrels} written to {args.target}; {unjudged} without a "
                "judgment left out\n"
            )
        pool.write_pool(args.target, pooled)
        return (
            f"{len(pooled)} documents to judge in the depth-{args.depth} pool of "
            f"{len(paths)} runs over {pooled['topic'].nunique()} topics, in {args.target}\n"
        )
    if not args.out or args.target:
        raise UsageError("give --out DIR (synthetic collection) or --from-runs RUN... OUT")
    collection = pool.synthetic(
        queries=args.queries,
        per_run=args.per_run,
        depth=args.depth,
        grades=args.levels,
        documents=args.documents,
        missed=args.missed,
        seed=args.seed,
    )
    pool.write(collection, args.out)
    return (Path(args.out) / "pool.md").read_text(encoding="utf-8")
