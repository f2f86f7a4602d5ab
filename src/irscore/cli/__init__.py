"""`irscore` on the command line: a drop-in trec_eval that can also switch conventions.

Each subcommand is one module of this package, named in `COMMANDS`; it adds its
parser and imports what it needs (pandas, scipy, matplotlib) only when it runs,
so `irscore --help` and `irscore --version` start at once. Errors (unknown
measure or option value, malformed or empty input, duplicate document, an
output that cannot be written whole) print one line to stderr and exit with
status 2, with nothing on stdout (an option error adds `see ... --help`);
memory running out is one such line too. Ctrl-C, SIGTERM and SIGHUP print one line
and exit with status 128 + the signal's number (130, 143, 129).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from irscore import __version__
from irscore.cli import common, endings

# No command computes with BLAS, and OpenBLAS starts a thread per core when numpy
# loads (about 70 ms of every start on two cores); a user's own setting is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# Arrow's jemalloc (the pool `irscore evaluate` uses) purges freed pages at once in
# every arena, the main thread's included: `pyarrow.jemalloc_set_decay_ms` reaches only
# arenas made after it, so the main arena kept ~70 MiB of a 7M-line run's freed blocks
# resident. Read when jemalloc starts, which is after this (pyarrow is not loaded yet).
os.environ.setdefault("JE_ARROW_MALLOC_CONF", "dirty_decay_ms:0,muzzy_decay_ms:0")
# Arrow's built-in default pool (every command's, but for what `evaluate` reads with
# jemalloc; and where Arrow allocates when given no pool): glibc's heap, not mimalloc,
# which kept what the commands freed, and mapped a 1 GiB arena in each of `evaluate`'s
# workers for a run's tag (a dictionary scalar). Peaks, medians of 3 to 5 interleaved
# calls, none slower: compare, 100 TREC DL runs 190 MiB -> 144, two MS MARCO top-100
# runs 424 -> 301; evaluate, 100 TREC DL runs 122 -> 117, Robust04 121 -> 117.
os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")

# One line per subcommand: the module irscore.cli.NAME with `add_parser` and `run`.
COMMANDS = ("evaluate", "compare", "audit", "measures", "explain", "interleave", "pool", "serve")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line: every subcommand's parser, each bound to its `run`; with
    `only`, that subcommand's alone (building all eight is ~10 ms of every start)."""
    parser = common.Parser(
        prog="irscore", description="Reproducible retrieval evaluation with explicit conventions."
    )
    parser.add_argument("--version", action="version", version=f"irscore {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=common.Parser)
    for name in COMMANDS if only is None else (only,):
        module = importlib.import_module(f"irscore.cli.{name}")
        command = module.add_parser(commands)
        command.set_defaults(run=module.run, parser=command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; 0 on success, 2 on bad input or an output that cannot be written."""
    argv = sys.argv[1:] if argv is None else list(argv)
    named = argv[0] if argv and argv[0] in COMMANDS else None  # else: the whole --help
    args, extra = build_parser(named).parse_known_args(argv)
    if extra:  # said by the subcommand's parser, which points to its own --help
        args.parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return common.execute(args.run, args)


def entry() -> NoReturn:
    """The `irscore` command: `main`, its output flushed, then an exit that skips the
    interpreter's teardown (freeing a large run's arrays one by one, which the
    system does at once). Ctrl-C, SIGTERM, SIGHUP and memory running out are one
    line each (`endings`); an unexpected error still ends with its traceback."""
    endings.catch_termination()
    try:
        code = main()
    except SystemExit as done:  # argparse: --help, --version, a usage error (int codes)
        code = done.code or 0
    except BaseException as stopped:
        ending = endings.ending(stopped)
        if ending is None:
            raise
        endings.hold_termination()  # a second signal cannot cut the line short
        common.silence_stdout()
        line, code = ending
        print(line, file=sys.stderr)
    if sys.getprofile() or sys.gettrace():  # a profiler or coverage reports at exit
        sys.exit(code)
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except OSError:
        code = code or 2
    if sys.stderr is not None:
        sys.stderr.flush()
    os._exit(code)
