"""`irscore evaluate`: score runs like trec_eval, under any convention."""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from irscore.cli import chunked, folded_runs
from irscore.cli.common import (
    UsageError,
    add_convention_flags,
    add_input_flags,
    checked,
    convention_from_args,
    note_not_computed,
    read_inputs,
    read_run,
    trec_eval_version,
)
from irscore.engine.reading.streams import regular_file_size

if TYPE_CHECKING:
    from concurrent.futures import Future

    from irscore.engine.measures import MeasureSpec
    from irscore.engine.reading.qrels_blocks import QrelsIndex


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The `evaluate` subcommand's arguments."""
    parser = commands.add_parser(
        "evaluate",
        help="score runs like trec_eval, under any convention",
        description="Score one or more TREC runs; --format trec prints trec_eval's layout.",
    )
    parser.add_argument("qrels", nargs="?")  # optional only for -v, as trec_eval's
    parser.add_argument("runs", nargs="*", metavar="run")
    parser.add_argument("-q", action="store_true", help="print per-topic values too")
    parser.add_argument(
        "-v", action="store_true", help="print trec_eval's version line (on stderr) and stop"
    )
    parser.add_argument(
        "-Z", metavar="FILE", help="z-scores against FILE's per-topic means and stddevs"
    )
    parser.add_argument(
        "-N", type=int, default=0, metavar="N", help="documents in the collection (utility)"
    )
    parser.add_argument(
        "-T", default="trec_results", metavar="FORMAT", help="results format: trec_results"
    )
    parser.add_argument(
        "-D", metavar="LEVEL", help="accepted; trec_eval's debug traces are not reproduced"
    )
    parser.add_argument(
        "-R",
        choices=("qrels", "prefs", "qrels_prefs", "qrels_jg"),
        default="qrels",
        help="the judgments' format: qrels, preferences, a qrels read as preferences, "
        "or a qrels of judgment groups",
    )
    parser.add_argument("-n", action="store_true", help="no summary (the `all` lines)")
    parser.add_argument(
        "-m", action="append", metavar="MEASURE", help="trec_eval measure request, e.g. P.5,10"
    )
    parser.add_argument("--format", choices=("trec", "tsv", "json"), default="trec")
    add_convention_flags(parser)
    add_input_flags(parser)
    return parser


# The largest run read beside its qrels (about 1.5M lines): past it, the qrels' reading
# temporaries would add to the run's peak (+37 MiB at 10M lines) for little time.
READ_AHEAD = 64 << 20
# From this size on, a run is read a block of topics at a time (`streamed`), so that its
# peak memory is a block's and its largest topic's, not the file's.
STREAM_FROM = READ_AHEAD


def run(args: argparse.Namespace) -> str | Iterator[bytes]:
    """The output of `irscore evaluate`: every value is computed before anything is
    printed; trec_eval's text comes as blocks of bytes, formatted as they are written."""
    if args.v:
        print(TREC_EVAL_VERSION[trec_eval_version(args)], file=sys.stderr)
        return ""
    _check_trec_eval_flags(args)
    if args.M is not None and args.M < 1:
        raise UsageError(f"-M takes a positive number of documents, got {args.M}")
    plain = _plain_text(args)  # small plain files: scored before numpy is imported
    if plain is not None:
        return iter([plain])

    from irscore.engine.system.allocator import arrow_gives_back_freed_memory, one_arena

    one_arena()  # before the reading threads start
    arrow_gives_back_freed_memory()
    ahead = _read_ahead(args)  # read while the measures' modules load and the flags are read
    # The scoring's modules: loaded while the inputs are read, and before workers fork.
    import irscore.engine.evaluate  # noqa: F401
    from irscore.cli import workers
    from irscore.engine import judgments
    from irscore.engine.measures.groups import changed
    from irscore.engine.output import trec_eval_text
    from irscore.engine.output.naming import run_heads, run_names
    from irscore.engine.ranking.input_checks import overlap
    from irscore.engine.reading.errors import display_name

    kind = judgments.JUDGMENT_KINDS[args.R]
    groups = _groups(args, kind)
    text = args.format == "trec"
    convention = convention_from_args(args)
    zscores = None
    if args.Z is not None:
        from irscore.engine.output.zscores import read_zscores

        zscores = read_zscores(args.Z)
    if args.R == "qrels":
        qrels = _qrels_index(args, ahead)  # read back by topic, never held whole
        if qrels is None:
            qrels = _whole_qrels(args, ahead, groups)
    else:
        qrels = _other_judgments(args, convention)

    def score(path: str, spool: workers.Spool | None) -> tuple:
        """One run read and scored: (its description under --verbose, its runid, and per
        group of measures the values, under its convention and named as asked, with
        their trec_eval text). A worker (given the `spool`) formats the text, writes it
        there and returns its place instead of the values (both cores format; the
        parent only writes); in this process the text is formatted as it is written."""
        nonlocal qrels
        run = None
        if _streams(args, path, qrels, ahead):  # a block of topics at a time
            run = _streamed_run(qrels, path, convention, groups, args, spool)
            if isinstance(run, tuple):
                return run
        if _indexed(qrels):  # this run is read whole: so are the qrels
            qrels = _whole_qrels(args, ahead, groups)
        if run is None:
            run = checked(ahead.pop("run").result(), "run") if ahead else read_run(args, path)
        runid = run.table["tag"][-1].as_py() if run.table.num_rows else ""
        described = run.describe() if args.verbose else None
        scored = []
        for g in groups:
            c = changed(convention, g.changes)
            if text and zscores is None and args.R == "qrels":  # chunk by chunk, to a spool
                lines, notes = chunked.text(qrels, run, c, g, args, runid, spool is None)
                if spool is not None:
                    lines = spool.put(b"".join(lines))
                scored.append((lines, {}, None, {}, notes.not_computed, notes))
                continue
            values, topics, means, without_run, not_done, notes = judgments.scored(
                args.R, qrels, run, c, g.spec, text
            )
            values, means = g.named(values), g.named(means)
            if zscores is not None:
                values, means = judgments.as_zscores(zscores, values, topics, means, without_run, c)
            lines = None
            if text:
                lines = trec_eval_text.lines(
                    values,
                    topics,
                    means,
                    runid if "runid" in g.spec.families else None,
                    per_topic=args.q,
                    summary=not args.n,
                    printed_topics=trec_eval_text.topics_printed(c, topics, without_run),
                    zscores=zscores is not None,
                )
                if spool is not None:
                    lines, values, means = spool.put(b"".join(lines)), {}, {}
            scored.append((lines, values, topics, means, not_done, notes))
        return described, runid, scored

    batch = folded_runs.scorer(qrels, convention, groups, args) if _folds(args, qrels) else None
    out: list[Iterable[bytes]] = []
    # the workers' texts, held on disk (page cache) until every run is scored; an
    # unlinked file, closed once read back (or on an error), so nothing is left behind
    spool = workers.spool_for(args.runs)
    places: list[tuple[int, int] | bytes] = []  # each text's place in the spool, in order
    if spool is not None:
        out.append(spool.read_back(places))
    results = []
    texts: list[list] = []  # each run's texts (or their places in the spool)
    runids: list[str] = []
    not_computed: list[str] = []
    try:
        for path, (described, runid, scored) in zip(
            args.runs, workers.scored(score, args.runs, spool, batch), strict=True
        ):
            runids.append(runid)
            texts.append([])
            if described:
                print(f"irscore: {described}", file=sys.stderr)
            for g, (lines, values, topics, means, not_done, notes) in zip(
                groups, scored, strict=True
            ):
                not_computed += not_done
                if notes is not None and g is groups[0]:  # qrels: irscore.evaluate's checks
                    for warning in overlap(display_name(path), qrels.source, notes):
                        print(f"irscore: warning: {warning}", file=sys.stderr)
                elif notes is None and len(topics) == 0:
                    raise UsageError(
                        f"{path}: no topic has both results and judgments in {args.qrels}"
                    )
                if lines is None:  # the run named below, once every tag is known
                    results.append((len(runids) - 1, values, topics, means))
                else:
                    texts[-1].append(lines)
    except BaseException:
        if spool is not None:
            spool.close()
        raise
    if spool is not None and args.format != "trec":  # values came back, no text
        spool.close()
    missing = list(dict.fromkeys(m for g in groups for m in g.missing))
    if missing and args.format == "trec":
        print(f"irscore: note: not computed yet: {', '.join(missing)}", file=sys.stderr)
    note_not_computed(not_computed, convention)
    if args.format == "trec":
        own_first = "runid" in groups[0].spec.families and not args.q and not args.n
        heads = run_heads(args.runs, runids, own_first)
        for head, run_texts in zip(heads, texts, strict=True):
            if spool is not None:  # a worker's places in the spool, the heading among them
                places += ([head] if head else []) + run_texts
            else:
                out += ([[head]] if head else []) + run_texts
        return itertools.chain.from_iterable(out)
    names = run_names(args.runs, runids)  # tags; the files where tags repeat
    from irscore.engine.output.long_table import as_text

    named = [(names[i], *rest) for i, *rest in results]
    return as_text(named, convention, per_topic=args.q, form=args.format)


def _streams(args: argparse.Namespace, path: str, qrels, ahead: dict) -> bool:
    """True when a run is read a block of topics at a time (`streamed`): `_trec_text`'s
    flags, a qrels without subtopics, and a run larger than `STREAM_FROM` bytes or whose
    size is unknown (a pipe)."""
    return _run_streams(args, path, ahead) and _without_subtopics(qrels)


def _folds(args: argparse.Namespace, qrels) -> bool:
    """True when several runs may be scored a batch at a time (`folded_runs`, which also
    asks for conventions it serves): `_trec_text`'s flags and a qrels read whole without
    subtopics."""
    return (
        len(args.runs) > 1
        and _trec_text(args)
        and not _indexed(qrels)
        and _without_subtopics(qrels)
    )


def _trec_text(args: argparse.Namespace) -> bool:
    """True for trec_eval's text (--format trec) of a qrels (-R qrels) without -Z or
    --verbose: what the streamed and the folded paths print."""
    return args.format == "trec" and args.R == "qrels" and args.Z is None and not args.verbose


def _without_subtopics(qrels) -> bool:
    """True for a qrels without subtopics (an indexed qrels has none)."""
    return _indexed(qrels) or "subtopic" not in qrels.table.column_names


def _indexed(qrels) -> bool:
    """True for qrels held as where each topic's lines are (`qrels_blocks`)."""
    from irscore.engine.reading.qrels_blocks import QrelsIndex

    return isinstance(qrels, QrelsIndex)


def _run_streams(args: argparse.Namespace, path: str, ahead: dict) -> bool:
    """`_streams` but for the qrels' part."""
    size = regular_file_size(path) if path != "-" else None
    return not ahead and (size is None or size > STREAM_FROM) and _trec_text(args)


def _qrels_index(args: argparse.Namespace, ahead: dict) -> QrelsIndex | None:
    """The qrels as where each topic's lines are (`qrels_blocks`), read back a block of
    topics at a time, when every run is read so and the qrels are a plain regular file
    grouped by topic; else None (they are read whole)."""
    if regular_file_size(args.qrels) is None or not all(
        _run_streams(args, path, ahead) for path in args.runs
    ):
        return None
    from irscore.engine.reading import qrels_blocks

    index = qrels_blocks.indexed(args.qrels, args.qrels_format)
    if index is not None and index.bom:
        from irscore.engine.ranking.input_checks import bom_note

        print(f"irscore: note: {bom_note(index.source)}", file=sys.stderr)
    return index


def _whole_qrels(args: argparse.Namespace, ahead: dict, groups: list):
    """The qrels read whole (as the measures asked for read a second column that varies)."""
    from irscore.engine.ranking.subtopics import for_request

    qrels, _ = read_inputs(args, args.qrels, [], ahead.pop("qrels").result if ahead else None)
    qrels, said = for_request(qrels, set().union(*(g.spec.families for g in groups)))
    if said:
        print(f"irscore: note: {said}", file=sys.stderr)
    return qrels


def _streamed_run(qrels, path: str, convention, groups: list, args, spool):
    """`score`'s result for a run read a block of topics at a time, each group of
    measures reading it again (a pipe: one group only); for a run in JSON or Parquet,
    its records (read whole); None for a pipe under several groups (read whole)."""
    from irscore.cli import streamed
    from irscore.engine.measures.groups import changed
    from irscore.engine.reading import run_parts

    if len(groups) > 1 and regular_file_size(path) is None:
        return None
    scored, runid = [], ""
    for g in groups:
        c = changed(convention, g.changes)
        try:
            lines, notes, runid = streamed.run_text(qrels, path, c, g, args, alone=spool is None)
        except run_parts.Structured as structured:
            return checked(structured.records, "run")
        if spool is not None:
            lines = spool.put(b"".join(lines))
        scored.append((lines, {}, None, {}, notes.not_computed, notes))
    return None, runid, scored


def _read_ahead(args: argparse.Namespace) -> dict[str, Future]:
    """The qrels and a lone run, read on two threads from now on (Arrow's parsing and
    numpy's checks let go of the GIL), when both are regular files (a read of a pipe
    would not wake for Ctrl-C, `threads`) and the run at most `READ_AHEAD` bytes. Their
    errors are raised when they are asked for: the flags' first, then the qrels', then
    the run's. {} for anything else."""
    if args.R != "qrels" or len(args.runs) != 1 or regular_file_size(args.qrels) is None:
        return {}
    size = regular_file_size(args.runs[0])
    if size is None or size > min(READ_AHEAD, STREAM_FROM):  # streamed: not read whole
        return {}
    from irscore.engine.reading import trec
    from irscore.engine.system import threads

    pool = threads.pool(2)
    ahead = {
        "qrels": pool.submit(trec.read_qrels_records, args.qrels, args.qrels_format),
        "run": pool.submit(trec.read_run_records, args.runs[0], args.run_format),
    }
    pool.shutdown(wait=False)
    return ahead


# The plain path's parsed inputs, left for the exit to free (`irscore.cli.entry` skips
# the interpreter's teardown): freeing them one object at a time costs 5-9 ms.
_PARSED: list = []


def _plain_text(args: argparse.Namespace) -> bytes | None:
    """The text `irscore.engine.small.plain_evaluate` makes, its warnings printed, when it
    serves these flags and files (qrels judgments, trec_eval's layout, no -Z or -J,
    official or all_trec); None otherwise."""
    import os

    from irscore.engine.small import plain_evaluate

    served = (
        args.R == "qrels"
        and args.format == "trec"
        and args.Z is None
        and args.D is None
        and not (args.verbose or args.J or args.compat)
        and args.qrels_format in ("auto", "trec")
        and args.run_format in ("auto", "trec")
        and "IRSCORE_MAX_LINE" not in os.environ
    )
    families = plain_evaluate.families_of(args.m, args.q) if served else None
    if families is None:
        return None
    _PARSED.clear()  # a previous call's, in a process that runs several (tests)
    done = plain_evaluate.trec_eval_text(
        args.qrels,
        args.runs,
        convention_from_args(args),
        families,
        args.q,
        not args.n,
        args.N,
        kept=_PARSED,
    )
    if done is None:
        return None
    text, warnings = done
    for warning in warnings:
        print(f"irscore: warning: {warning}", file=sys.stderr)
    return text


def _groups(args: argparse.Namespace, kind: str) -> list:
    """The -m requests as groups of measures (`groups.plan`), in the order asked; the
    ir_measures and ranx names only from a qrels."""
    from irscore.engine.measures.groups import plan

    groups = plan(args.m or [], True, trec_eval_version(args), kind)
    for g in groups:
        g.spec = g.spec.with_collection_size(args.N)
        if args.format == "trec" and not args.q:
            g.spec = _without_text(g.spec, args.m or [])
    return groups


# What trec_eval -v prints, as the binaries built from the v9.0.8 and v10.0 tags print it
# (their Makefiles' VERSIONID: 9.0.8's still says 9.0.7).
TREC_EVAL_VERSION = {9: "trec_eval version 9.0.7", 10: "trec_eval version 10.0-rc3"}


def _check_trec_eval_flags(args: argparse.Namespace) -> None:
    """The files are needed without -v; -T names trec_eval's one results format; -D's
    traces are not reproduced (said on stderr); -Z prints trec_eval's layout only."""
    if args.qrels is None or not args.runs:
        raise UsageError("the qrels file and at least one run are required")
    if args.T != "trec_results":
        raise UsageError(f"-T {args.T}: the one results format is trec_results")
    if args.D is not None and "." in args.D:  # trec_eval: debug that one topic only
        raise UsageError(
            f"-D {args.D}: trec_eval's one-topic debugging is not reproduced "
            "(give a run with only that topic)"
        )
    if args.D is not None:
        print(
            "irscore: note: -D accepted; trec_eval's debug traces are not reproduced",
            file=sys.stderr,
        )
    if args.Z is not None and args.format != "trec":
        raise UsageError("-Z prints trec_eval's layout only (--format trec)")
    if args.N < 0:
        raise UsageError(f"-N takes the number of documents in the collection, got {args.N}")


def _other_judgments(args: argparse.Namespace, convention):
    """-R prefs, qrels_prefs or qrels_jg: those judgments; for prefs, a note naming the
    convention's decisions they do not read."""
    from irscore.engine import judgments

    read = judgments.read_other(args.R, args.qrels)
    if args.R != "qrels_jg" and (ignored := judgments.prefs_ignored(convention)):
        print(
            f"irscore: note: the preference measures do not read {', '.join(ignored)} "
            "(their order is trec_eval's prefs order, their levels the judgments')",
            file=sys.stderr,
        )
    return read


def _without_text(spec: MeasureSpec, requests: list[str]) -> MeasureSpec:
    """The spec without its text measures, which trec_eval prints only per topic (-q):
    not computed for nothing, and a note when one was asked for by name (all_trec's
    relstring is trec_eval's own silence)."""
    from irscore.engine.measures.registry import TEXT_FAMILIES

    text = spec.families & TEXT_FAMILIES
    named = {request.partition(".")[0] for request in requests}
    for family in sorted(text & named):
        print(f"irscore: note: {family} is printed per topic only (-q)", file=sys.stderr)
    return spec.with_families(spec.families - text) if text else spec
