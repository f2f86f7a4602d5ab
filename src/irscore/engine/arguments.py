"""What the Python API's arguments mean: conventions from names, Convention objects or
mappings; measure names as groups scored under one convention each; qrels and runs
from paths, DataFrames or dicts, checked as the command line checks them. The API
(`irscore.api`) calls these; they import nothing heavy until called.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from irscore.engine.ranking.conventions import DEFAULT_GRID, Convention, ConventionError

if TYPE_CHECKING:
    import pandas as pd

    from irscore.engine.measures.groups import Group
    from irscore.engine.reading.inputs import QrelsInput, RunInput
    from irscore.engine.reading.trec import Records

    ConventionInput = str | Convention | Mapping[str, Any]


def conventions(convention: ConventionInput | Sequence[ConventionInput]) -> list[Convention]:
    """Conventions from names (the spec's grid), `Convention`s or mappings of changed fields.

    A mapping's `name` key names it (default: its description, such as `-J`);
    names must differ, since they label the long table's rows.

    >>> [c.name for c in conventions(["reference", {"unjudged": "removed"}])]
    ['reference', '-J']
    """
    items = [convention] if isinstance(convention, str | Convention | Mapping) else convention
    grid = [one_convention(item) for item in items]
    names = [c.name for c in grid]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ConventionError(f"conventions named twice: {', '.join(repeated)}")
    if not grid:
        raise ConventionError("no convention given")
    return grid


def one_convention(item: ConventionInput) -> Convention:
    """One convention from a name, a Convention or a mapping of changed fields."""
    if isinstance(item, Convention):
        return item
    if isinstance(item, str):
        if item not in DEFAULT_GRID:
            import difflib

            close = difflib.get_close_matches(item, DEFAULT_GRID, n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise ConventionError(
                f"unknown convention {item!r}{hint} (known: {', '.join(DEFAULT_GRID)})"
            )
        return Convention.from_changes(item, DEFAULT_GRID[item])
    if isinstance(item, Mapping):
        changes = dict(item)
        name = changes.pop("name", None)
        probe = Convention.from_changes("convention", changes)
        return Convention.from_changes(name or probe.description, changes)
    raise ConventionError(f"a convention is a name, a Convention or a mapping, got {type(item)}")


def measure_groups(measures: str | Sequence[str] | None) -> list[Group]:
    """The measures as groups scored under one convention each (`irscore.measures.
    groups.plan`): trec_eval names, then ir_measures and ranx names by the convention
    their peer follows; the text measures (relstring) left out with a warning.

    >>> [sorted(g.spec.families) for g in measure_groups(["P_5", "ndcg_cut.10", "RR@10"])]
    [['P', 'ndcg_cut'], ['recip_rank_cut']]
    """
    from irscore.engine.measures.groups import plan
    from irscore.engine.measures.registry import TEXT_FAMILIES

    names = [measures] if isinstance(measures, str) else list(measures or ["official"])
    groups = plan(names)
    for g in groups:
        if g.missing:
            warnings.warn(f"not computed yet: {', '.join(g.missing)}", stacklevel=3)
        text = sorted(g.spec.families & TEXT_FAMILIES)
        if text:
            warnings.warn(
                f"{', '.join(text)} is text, which a long table cannot hold; not computed "
                "(irscore evaluate -q prints it)",
                stacklevel=3,
            )
            g.spec = g.spec.with_families(g.spec.families - set(text))
    return groups


def changed_grid(grid: Sequence[Convention], group: Group) -> list[Convention]:
    """The conventions under a group's changes (each keeps its name)."""
    from irscore.engine.measures.groups import changed

    return [changed(c, group.changes) for c in grid]


def renamed(table: pd.DataFrame, group: Group) -> pd.DataFrame:
    """A group's long table with its measures as they were named (trec_eval names
    narrowed to those asked for, peer names as given)."""
    from irscore.engine.measures.groups import rename_table

    attrs = dict(table.attrs)
    out = rename_table(narrow(table, group.narrowed), group.renames)
    out.attrs.update(attrs)
    return out


def warn_not_computed(families: Sequence[str], convention: str = " this convention") -> None:
    """Say which requested families the convention has no form for (absent, not zero)."""
    if families:
        warnings.warn(f"no form under{convention}: {', '.join(families)}", stacklevel=3)


def narrow(table: pd.DataFrame, narrowed: Mapping[str, set[str]]) -> pd.DataFrame:
    """Drop the measures of narrowed families that were not asked for by name."""
    from irscore.engine.measures.groups import narrowed as narrow

    return narrow(table, narrowed)


def qrels_input(qrels: QrelsInput, records: bool = False) -> pd.DataFrame | Records:
    """The qrels as the readers give them; a file as `trec.Records` when `records` (the
    evaluation takes them as they are, without a pandas frame)."""
    from irscore.engine.reading import trec
    from irscore.engine.reading.inputs import IRDS_PREFIX, qrels_frame

    if records and isinstance(qrels, str | os.PathLike) and not str(qrels).startswith(IRDS_PREFIX):
        return checked(trec.read_qrels_records(qrels), "qrels")
    return checked(qrels_frame(qrels), "qrels")


def runs_input(
    runs: RunInput | Mapping[str, RunInput], records: bool = False
) -> dict[str, pd.DataFrame | Records]:
    """name -> run frame (a file's as `trec.Records` when `records`); one run is named by
    its tag (a file's, or `run`)."""
    if is_named_runs(runs):
        return {str(name): run_input(run, str(name), records) for name, run in runs.items()}
    run = run_input(runs, "run", records)
    tags = tags_of(run)
    return {tags[0] if tags else "run": run}


def run_input(run: RunInput, name: str, records: bool) -> pd.DataFrame | Records:
    from irscore.engine.reading import trec
    from irscore.engine.reading.inputs import run_frame

    if records and isinstance(run, str | os.PathLike):
        return checked(trec.read_run_records(run), "run")
    return checked(run_frame(run, name), "run")


def checked(table: pd.DataFrame | Records, role: str) -> pd.DataFrame | Records:
    """The input, refused when it holds no record (as the command line refuses it), with a
    warning when a file's byte order mark was skipped."""
    from irscore.engine.ranking.input_checks import bom_note, require_records
    from irscore.engine.reading import trec

    if isinstance(table, trec.Records):
        rows, skipped, bom = table.table.num_rows, table.skipped, table.bom
    else:  # a frame; read from a file, it has the lines without a record
        rows, skipped, bom = len(table), table.attrs.get("skipped"), table.attrs.get("bom")
    require_records(source_of(table), role, rows, None if skipped is None else len(skipped))
    if bom:
        warnings.warn(bom_note(source_of(table)), stacklevel=4)
    return table


def source_of(table: pd.DataFrame | Records, default: str = "run") -> str:
    """How messages name an input: a file's name, else what the frame was made from."""
    from irscore.engine.reading import trec

    if isinstance(table, trec.Records):
        return table.source
    return str(table.attrs.get("source", default))


def tags_of(run: pd.DataFrame | Records) -> list[str]:
    """The tag of a run's first line, if it has one."""
    import pandas as pd

    if isinstance(run, pd.DataFrame):
        return [str(run["tag"].iloc[0])] if len(run) else []
    return [str(run.table["tag"][0].as_py())] if run.table.num_rows else []


def is_named_runs(runs: Any) -> bool:
    """True for a mapping name -> run: every value a run or empty (an empty run, refused
    by name later), at least one a run; a dict run's values are {docno: score}."""
    if not isinstance(runs, Mapping):
        return False
    values = runs.values()  # a dict run's first topic ends the first test
    return all((isinstance(v, Mapping) and not v) or is_run(v) for v in values) and any(
        is_run(v) for v in values
    )


def is_run(value: Any) -> bool:
    """True for a run (a path, a DataFrame, a non-empty dict of dicts), False for the
    `{docno: score}` of one topic of a dict run."""
    import pandas as pd

    if isinstance(value, str | os.PathLike | pd.DataFrame):
        return True
    return (
        isinstance(value, Mapping)
        and bool(value)
        and all(isinstance(v, Mapping) for v in value.values())
    )


def runs_named_by_tag(runs: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Runs renamed by their tags when the tags tell them apart (as the CLI names them)."""
    tags = [(tags_of(run) or [name])[0] for name, run in runs.items()]
    if len(set(tags)) == len(tags):
        return dict(zip(tags, runs.values(), strict=True))
    return dict(runs)
