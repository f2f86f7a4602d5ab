"""One run scored against trec_eval's judgments of any `-R` form: qrels (the engine's
own path), preferences (`prefs`, `qrels_prefs`) or judgment groups (`qrels_jg`); and
-Z's per-topic values as z-scores. `irscore evaluate` calls these; nothing heavy is
imported until a function needs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from irscore.engine.measures import MeasureSpec
    from irscore.engine.ranking.conventions import Convention

# trec_eval's -R: the judgments' format, and the kind of judgments its measures read
JUDGMENT_KINDS = {
    "qrels": "qrels",
    "prefs": "prefs",
    "qrels_prefs": "prefs",
    "qrels_jg": "qrels_jg",
}
# the convention's decisions the preference measures do not read (their ranking is
# form_prefs_counts.c's, their levels the judgments' own)
PREFS_IGNORE = (
    "tie_break",
    "ties",
    "unjudged",
    "rel_level",
    "grades",
    "gain",
    "interpolation",
    "no_relevant_topics",
    "duplicates",
    "mistake",
)


def read_other(form: str, path: str):
    """The judgments of -R prefs, qrels_prefs or qrels_jg, read from `path`."""
    if form == "qrels_jg":
        from irscore.engine.judgment_groups import read_qrels_jg

        return read_qrels_jg(path)
    from irscore.engine.prefs import read_prefs

    return read_prefs(path, qrels=form == "qrels_prefs")


def prefs_ignored(convention: Convention) -> list[str]:
    """The decisions of `convention`, changed from the reference, that the preference
    measures do not read (`PREFS_IGNORE`): the command line notes them."""
    from irscore.engine.ranking.conventions import Convention

    reference = Convention()
    return [f for f in PREFS_IGNORE if getattr(convention, f) != getattr(reference, f)]


def scored(form: str, judgments, run, convention: Convention, spec: MeasureSpec, text: bool):
    """(values, topics, `all` values, -c's topics without results, families not computed,
    and for qrels the `Notes` on how run and qrels meet) of one run against the
    judgments of -R `form`."""
    if form == "qrels":
        from irscore.engine.evaluate import evaluate_records

        values, topics, means, notes = evaluate_records(judgments, run, convention, spec, text=text)
        return values, topics, means, notes.qrels_topics_without_run, notes.not_computed, notes
    if form == "qrels_jg":
        from irscore.engine import judgment_groups

        return *judgment_groups.evaluate(judgments, run, convention, spec), None
    from irscore.engine import prefs

    values, topics, means, without_run = prefs.evaluate(judgments, run, convention, spec)
    return values, topics, means, without_run, [], None


def as_zscores(zscores, values, topics, means, without_run, convention: Convention):
    """-Z: the per-topic values as z-scores and their `all` values (texts unchanged)."""
    import numpy as np

    from irscore.engine.measures.registry import TEXT_FAMILIES, family_of
    from irscore.engine.output import zscores as z

    text = frozenset(m for m in values if family_of(m).name in TEXT_FAMILIES)
    values = z.convert(zscores, values, topics, text)
    counted, missing = np.ones(len(topics), dtype=bool), 0
    if convention.missing_topics == "mean_only":  # trec_eval 9: not in the sum
        counted = ~np.isin(topics, list(without_run))
        missing = int((~counted).sum())
    return values, z.means(values, means, counted, missing, convention.complete)
