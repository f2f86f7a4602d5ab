"""`irscore` on the command line: a drop-in trec_eval that can also switch conventions.

Each subcommand is one module of this package, named in `COMMANDS`; it adds its
parser and imports what it needs (pandas, scipy, matplotlib) only when it runs,
so `irscore --help` and `irscore --version` start at once. Errors (unknown
measure or option value, malformed file, duplicate document, unwritable
output) print one line to stderr and exit with status 2, with nothing on stdout.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from irscore import __version__
from irscore.cli import common

# No command computes with BLAS, and OpenBLAS starts a thread per core when numpy
# loads (about 70 ms of every start on two cores); a user's own setting is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# One line per subcommand: the module irscore.cli.NAME with `add_parser` and `run`.
COMMANDS = ("evaluate", "compare", "audit", "explain", "interleave", "pool")


def build_parser() -> argparse.ArgumentParser:
    """The whole command line: every subcommand's parser, each bound to its `run`."""
    parser = argparse.ArgumentParser(
        prog="irscore", description="Reproducible retrieval evaluation with explicit conventions."
    )
    parser.add_argument("--version", action="version", version=f"irscore {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        module = importlib.import_module(f"irscore.cli.{name}")
        module.add_parser(commands).set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; 0 on success, 2 on bad input or an output that cannot be written."""
    args = build_parser().parse_args(argv)
    return common.execute(args.run, args)


def entry() -> NoReturn:
    """The `irscore` command: `main`, its output flushed, then an exit that skips the
    interpreter's teardown (freeing a large run's arrays one by one, which the
    system does at once). An unexpected error still ends with its traceback."""
    try:
        code = main()
    except SystemExit as done:  # argparse: --help, --version, a usage error (int codes)
        code = done.code or 0
    if sys.getprofile() or sys.gettrace():  # a profiler or coverage reports at exit
        sys.exit(code)
    try:
        sys.stdout.flush()
    except OSError:
        code = code or 2
    sys.stderr.flush()
    os._exit(code)
