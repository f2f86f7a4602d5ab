"""What the subcommands share: the convention flags, the one-line errors, the output."""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import sys
from collections.abc import Callable, Iterable
from typing import IO, TYPE_CHECKING, NoReturn

from irscore.engine.ranking.conventions import CHOICES, COMPAT, Convention
from irscore.engine.reading import errors
from irscore.engine.system import extras

if TYPE_CHECKING:
    from pathlib import Path

WRITE_PIECE = 1 << 20  # bytes handed to one write(2)


class UsageError(ValueError):
    """A command line that asks for something irscore cannot do."""


class Parser(argparse.ArgumentParser):
    """argparse's parser with irscore's manners: a usage error is one line and a pointer
    to --help (not the whole usage), and --help and --version are written through
    `write_stdout`, so a closed or broken output is an error there too."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"irscore: error: {message}\nsee {self.prog} --help\n")
        raise SystemExit(2)

    def _print_message(self, message: str, file: IO[str] | None = None) -> None:
        if not message:
            return
        if file is None or file is sys.stdout:
            if write_stdout(message):
                raise SystemExit(2)
            return
        file.write(message)


def add_convention_flags(parser: argparse.ArgumentParser, old_grades: bool = True) -> None:
    """trec_eval's flags plus one flag per convention decision, with the spec's value names.

    The grade mapping is `--grade-mapping` on every command; `old_grades` also takes
    its old spelling, `--grades`, for one release (not where `--grades` is a list).
    """
    parser.add_argument("-c", action="store_true", help="average over every qrels topic (-c)")
    parser.add_argument("-J", action="store_true", help="remove unjudged documents (-J)")
    parser.add_argument("-M", type=int, metavar="N", help="only the first N documents count")
    parser.add_argument(
        "-l", type=relevance_level, metavar="N", default=1, help="relevance level (1)"
    )
    for field in (
        "tie_break",
        "ties",
        "score_precision",
        "gain",
        "interpolation",
        "grades",
        "duplicates",
    ):
        parser.add_argument(
            "--grade-mapping" if field == "grades" else f"--{field.replace('_', '-')}",
            dest=field,
            choices=CHOICES[field],
            default=getattr(Convention(), field),
            help=f"default: {getattr(Convention(), field)}",
        )
    if old_grades:
        old_spelling(
            parser, "--grades", "--grade-mapping", dest="grades", choices=CHOICES["grades"]
        )
    parser.add_argument(
        "--no-relevant-topics",
        choices=CHOICES["no_relevant_topics"],
        default="zero",
        help="topics without a relevant document: score 0 (default) or leave out",
    )
    parser.add_argument("--gmax", type=int, default=4, help="ERR's maximum grade (4)")
    parser.add_argument(
        "--compat",
        choices=tuple(COMPAT),
        help="every decision where that trec_eval differs (trec_eval10: its interpolation, "
        "double scores, per-topic lines for -c topics without results, all_trec's measures)",
    )


class OldSpelling(argparse.Action):
    """A flag's old spelling, taken for one release: its value goes where the new
    spelling's goes, with a note on stderr naming the new one (docs/evaluating.md)."""

    def __init__(self, option_strings: list[str], dest: str, new: str, **kwargs) -> None:
        self.new = new
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(
            f"irscore: note: {option_string} is now {self.new}; the old spelling is taken "
            "until the next release",
            file=sys.stderr,
        )
        setattr(namespace, self.dest, values)


def old_spelling(parser: argparse.ArgumentParser, old: str, new: str, **kwargs) -> None:
    """Take `old` as `new` for one release, out of --help (`OldSpelling`)."""
    parser.add_argument(old, action=OldSpelling, new=new, help=argparse.SUPPRESS, **kwargs)


def relevance_level(text: str) -> int:
    """-l's value: a grade of 0 or more (trec_eval takes a negative one and prints
    average precision above 1)."""
    try:
        level = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number, not {text!r}") from None
    if level < 0:
        raise argparse.ArgumentTypeError(f"a relevance level of 0 or more, not {level}")
    return level


def add_input_flags(parser: argparse.ArgumentParser) -> None:
    """How to read the qrels and runs: their formats (detected unless named) and --verbose."""
    from irscore.engine.reading.formats import QRELS_FORMATS, RUN_FORMATS

    parser.add_argument(
        "--qrels-format",
        choices=QRELS_FORMATS,
        default="auto",
        help="TREC, or CSV/TSV qid,docno,grade (default: detected from the first line)",
    )
    parser.add_argument(
        "--run-format",
        choices=RUN_FORMATS,
        default="auto",
        help="TREC, CSV/TSV qid,docno,score (or a header naming rank), or a bare "
        "`qid docno` list in ranked order (default: detected from the first line)",
    )
    parser.add_argument(
        "--verbose", action="store_true", help="say how each input was read, on stderr"
    )


def read_inputs(
    args: argparse.Namespace,
    qrels_path: str,
    run_paths: list[str],
    read_qrels: Callable[[], object] | None = None,
):
    """The qrels as `trec.Records` (from `read_qrels()` when given: read already), and
    the runs as Records read one at a time, as they are asked for (so one run is in
    memory at once); each described under --verbose."""
    from irscore.engine.reading import trec

    def described(records):
        if args.verbose:
            print(f"irscore: {records.describe()}", file=sys.stderr)
        return records

    records = read_qrels() if read_qrels else trec.read_qrels_records(qrels_path, args.qrels_format)
    qrels = described(checked(records, "qrels"))
    return qrels, (described(read_run(args, p)) for p in run_paths)


def read_run(args: argparse.Namespace, path: str):
    """One run as `trec.Records`, in the format the flags name."""
    from irscore.engine.reading import trec

    return checked(trec.read_run_records(path, args.run_format), "run")


def checked(records, role: str):
    """The records, refused when the file holds none (`input_checks.require_records`),
    with a note on stderr when a byte order mark was skipped."""
    from irscore.engine.ranking.input_checks import bom_note, require_records

    require_records(records.source, role, records.table.num_rows, len(records.skipped))
    if records.bom:
        print(f"irscore: note: {bom_note(records.source)}", file=sys.stderr)
    return records


def convention_from_args(args: argparse.Namespace) -> Convention:
    """The convention the flags describe; unchanged flags keep the reference values."""
    changes = {
        "topics": "all_qrels" if args.c else "run_and_qrels",
        "unjudged": "removed" if args.J else "nonrelevant",
        "depth": args.M,
        "rel_level": args.l,
        "tie_break": args.tie_break,
        "ties": args.ties,
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
    if args.compat:
        changes = {"compat": args.compat, **changes}
    return Convention.from_changes(convention_name(changes), changes)


def trec_eval_version(args: argparse.Namespace) -> int:
    """The trec_eval whose all_trec -m means: 10 under --compat trec_eval10, else 9."""
    return 10 if args.compat == "trec_eval10" else 9


def convention_name(changes: dict) -> str:
    """The canonical name of a set of changes (`reference`, `judged_only`, ... as in the
    default grid), or the list of changed fields when the grid has no such convention."""
    from irscore.engine.ranking.conventions import DEFAULT_GRID, describe

    for name, grid_changes in DEFAULT_GRID.items():
        if grid_changes == changes:
            return name
    return describe(changes)


def note_not_computed(families: Iterable[str], convention: Convention) -> None:
    """Say on stderr which requested families the convention has no form for (they are
    absent from the output, never silently)."""
    from irscore.engine.measures.registry import why_not_computed

    for family in dict.fromkeys(families):
        reason = why_not_computed(family, convention.ties)
        print(f"irscore: note: {family} {reason}; not computed", file=sys.stderr)


def check_alpha(alpha: float) -> None:
    """A significance level must lie strictly between 0 and 1."""
    if not 0 < alpha < 1:
        raise UsageError(f"--alpha must be between 0 and 1, got {alpha}")


def user_errors() -> tuple[type[Exception], ...]:
    """The exceptions that mean bad input, not a bug: each becomes one line and exit 2.

    Imported here, when an error is being handled, so that start-up stays light
    (by then the command has loaded these modules anyway).
    """
    from irscore.engine.measures import MeasureError
    from irscore.engine.ranking.conventions import ConventionError
    from irscore.engine.ranking.rank import DuplicateDocumentError
    from irscore.engine.reading.trec import TrecFormatError

    known = [errors.InputError, TrecFormatError, DuplicateDocumentError, ConventionError]
    known += [MeasureError, UsageError]
    # The workbench commands' and -R prefs' errors: a module not loaded cannot have raised it.
    for module, name in WORKBENCH_ERRORS:
        if module in sys.modules:
            known.append(getattr(sys.modules[module], name))
    return tuple(known)


WORKBENCH_ERRORS = (
    ("irscore.engine.prefs", "PrefsError"),
    ("irscore.workbench.explain", "ExplainError"),
    ("irscore.workbench.interleave", "InterleaveError"),
    ("irscore.workbench.pool", "PoolError"),
)


def execute(
    run: Callable[[argparse.Namespace], str | Iterable[bytes]], args: argparse.Namespace
) -> int:
    """Compute the command's whole output, then write it; a user error is one line, exit 2."""
    try:
        text = run(args)
    except (OSError, ValueError) as err:
        if not isinstance(err, (OSError, *user_errors())):
            raise
        message = str(err).splitlines()[0] if str(err) else type(err).__name__
        print(f"irscore: error: {message}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as err:  # an optional extra's module: say which extra
        extra = extras.extra_of(err.name)
        if extra is None:
            raise
        said = str(err) if isinstance(err, extras.MissingExtra) else None
        said = said or extras.message(f"irscore {args.command}", extra, err.name)
        print(f"irscore: error: {said}", file=sys.stderr)
        return 2
    return write_stdout(text)


def write_stdout(text: str | Iterable[bytes]) -> int:
    """Write `text` (a string, or blocks of bytes) whole to standard output; 0, or 2
    after one line on stderr when it cannot be (a closed or broken pipe, a reader gone
    early, a full disk)."""
    try:
        write_all(text)
    except OSError as err:
        silence_stdout()
        reason = err.strerror or str(err) or type(err).__name__
        print(f"irscore: error: cannot write the output: {reason}", file=sys.stderr)
        return 2
    return 0


def write_all(text: str | Iterable[bytes]) -> None:
    """Write `text` to standard output and check every byte arrived, or raise OSError.

    The bytes go to the descriptor with os.write until all are taken: Python's
    unbuffered stdout (PYTHONUNBUFFERED, `python -u`) drops what one write(2) to a
    pipe does not take, without an error. A stdout without a descriptor (a test's
    StringIO) is written as it is.
    """
    stream = sys.stdout
    if stream is None:  # started with stdout closed (`>&-`)
        raise OSError(errno.EBADF, "standard output is closed")
    blocks = [text] if isinstance(text, str) else text
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        for block in blocks:
            stream.write(block if isinstance(block, str) else bytes(block).decode())
        stream.flush()
        return
    stream.flush()  # anything printed before goes first
    encoding, errors_ = stream.encoding or "utf-8", stream.errors or "strict"
    for block in blocks:
        data = memoryview(block.encode(encoding, errors_) if isinstance(block, str) else block)
        data = data if data.format == "B" and data.ndim == 1 else data.cast("B")
        while data:
            written = os.write(fd, data[:WRITE_PIECE])
            data = data[written:]


def silence_stdout() -> None:
    """Point the stdout descriptor at /dev/null, so Python's flush at exit fails no more."""
    # A stdout without a descriptor (a test's StringIO, or none) has nothing to silence.
    with contextlib.suppress(AttributeError, OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def matplotlib_config_dir() -> None:
    """Give matplotlib a writable cache folder before it loads, so an unwritable HOME
    costs no warning on stderr; left alone when MPLCONFIGDIR is set or HOME works.
    Without the report extra (matplotlib), MissingExtra: before any work is done."""
    extras.require("report", "drawing plots")
    if "MPLCONFIGDIR" in os.environ:
        return
    from pathlib import Path  # here: the small-file path of `evaluate` never needs it

    home = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "matplotlib"
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "matplotlib"
    if all(_writable(folder) for folder in (home, cache)):
        return
    import tempfile

    folder = Path(tempfile.gettempdir()) / f"irscore-matplotlib-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    os.environ["MPLCONFIGDIR"] = str(folder)


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK)
