"""The evaluation conventions of ../shared/docs/conventions.md as one frozen class.

The defaults are the reference convention (trec_eval 9.0.x, as embedded in
pytrec_eval); every other value changes one named decision so that its effect
can be measured in isolation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

TIE_BREAKS = (
    "docno_desc",
    "docno_asc",
    "docno_numeric",
    "rank",
    "file_order",
    "optimistic",
    "pessimistic",
    "expected",  # an alias of ties=expected (the tie order then does not matter)
)
CHOICES: dict[str, tuple[Any, ...]] = {
    "tie_break": TIE_BREAKS,
    "ties": ("ordered", "expected"),
    "score_precision": ("float32", "float64"),
    "topics": ("run_and_qrels", "all_qrels"),
    "unjudged": ("nonrelevant", "removed"),
    "gain": ("linear", "exponential"),
    "interpolation": ("trec_eval9", "trec_eval10", "textbook"),
    "no_relevant_topics": ("zero", "skip"),
    "grades": ("raw", "cranfield_cleverdon"),
    "duplicates": ("error", "first"),
    "missing_topics": ("mean_only", "evaluated"),
    "mistake": (
        None,
        "ap_over_retrieved",
        "ideal_from_run",
        "topics_from_run",
        "rank_column_trusted",
    ),
}


REFERENCE_TIE_BREAK = "docno_desc"


MAX_GMAX = 1023  # 2.0**1024 overflows a double


class ConventionError(ValueError):
    """A convention with an unknown field or value."""


# A convention's fields, in their order: the signature's and the repr's.
FIELDS = (
    "name",
    "description",
    "tie_break",
    "ties",
    "score_precision",
    "topics",
    "unjudged",
    "rel_level",
    "depth",
    "gain",
    "interpolation",
    "no_relevant_topics",
    "grades",
    "gmax",
    "duplicates",
    "missing_topics",
    "mistake",
)


class Convention:
    """One evaluation convention; the defaults reproduce trec_eval 9.0.x.

    Frozen, compared and hashed by its fields (`FIELDS`), like a frozen dataclass;
    `replace` makes a changed copy. A plain class because `dataclasses` imports
    `inspect`, which the command line's small-file path would pay for at every start."""

    __slots__ = FIELDS

    name: str
    description: str
    tie_break: str
    ties: str
    score_precision: str
    topics: str
    unjudged: str
    rel_level: int
    depth: int | None
    gain: str
    interpolation: str
    no_relevant_topics: str
    grades: str
    gmax: int
    duplicates: str
    missing_topics: str
    mistake: str | None

    def __init__(
        self,
        name: str = "reference",
        description: str = "trec_eval 9.0.x / pytrec_eval",
        tie_break: str = "docno_desc",
        ties: str = "ordered",
        score_precision: str = "float32",
        topics: str = "run_and_qrels",
        unjudged: str = "nonrelevant",
        rel_level: int = 1,
        depth: int | None = None,
        gain: str = "linear",
        interpolation: str = "trec_eval9",
        no_relevant_topics: str = "zero",
        grades: str = "raw",
        gmax: int = 4,
        duplicates: str = "error",
        missing_topics: str = "mean_only",
        mistake: str | None = None,
    ) -> None:
        given = locals()
        for field in FIELDS:
            object.__setattr__(self, field, given[field])
        self._check()

    def _check(self) -> None:
        """Every field one of its choices, and no combination the measures cannot honour."""
        if self.tie_break == "expected":  # the alias: one order, averaged over its ties
            object.__setattr__(self, "tie_break", REFERENCE_TIE_BREAK)
            object.__setattr__(self, "ties", "expected")
        for key, allowed in CHOICES.items():
            value = getattr(self, key)
            if value not in allowed:
                shown = ", ".join(str(a) for a in allowed)
                raise ConventionError(
                    f"convention {self.name!r}: {key} must be one of {shown}; got {value!r}"
                )
        if not isinstance(self.rel_level, int) or isinstance(self.rel_level, bool):
            raise ConventionError(f"convention {self.name!r}: rel_level must be an integer")
        if self.rel_level < 0:  # trec_eval takes one and prints average precision above 1
            raise ConventionError(f"convention {self.name!r}: rel_level must be 0 or more")
        if self.depth is not None and (not isinstance(self.depth, int) or self.depth < 1):
            raise ConventionError(f"convention {self.name!r}: depth must be a positive integer")
        if self.ties == "expected" and self.mistake is not None:
            raise ConventionError(
                f"convention {self.name!r}: ties expected has no closed form "
                f"under the mistake {self.mistake}"
            )
        if self.ties == "expected" and self.depth is not None and self.judged_only:
            raise ConventionError(
                f"convention {self.name!r}: ties expected cannot combine -M and -J "
                "(which documents survive the cut depends on the order)"
            )
        if not isinstance(self.gmax, int) or not 1 <= self.gmax <= MAX_GMAX:
            raise ConventionError(
                f"convention {self.name!r}: gmax must be a positive integer of at most "
                f"{MAX_GMAX} (ERR divides by 2^gmax, a double)"
            )

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a Convention is frozen: use replace({name}=...)")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("a Convention is frozen")

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, field) for field in FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{field}={getattr(self, field)!r}" for field in FIELDS)
        return f"Convention({shown})"

    def __reduce__(self) -> tuple[type, tuple[Any, ...]]:
        return (Convention, self._values())  # pickled for the worker processes

    def replace(self, **changes: Any) -> Convention:
        """A copy with `changes` to its fields, checked as a new convention is."""
        unknown = sorted(set(changes) - set(FIELDS))
        if unknown:
            raise TypeError(f"Convention has no field(s) {', '.join(unknown)}")
        return Convention(**{**dict(zip(FIELDS, self._values(), strict=True)), **changes})

    @classmethod
    def from_changes(cls, name: str, changes: Mapping[str, Any] | None = None) -> Convention:
        """The reference convention with `changes` applied; unknown keys are an error.
        `compat: trec_eval10` stands for its preset's fields (`COMPAT`); fields given
        beside it win."""
        changes = dict(changes or {})
        changes.setdefault("description", describe(changes))
        if "compat" in changes:
            preset = changes.pop("compat")
            if preset not in COMPAT:
                raise ConventionError(
                    f"convention {name!r}: compat must be one of {', '.join(COMPAT)}; "
                    f"got {preset!r}"
                )
            changes = {**COMPAT[preset], **changes}
        known = set(FIELDS)
        unknown = sorted(set(changes) - known)
        if unknown:
            raise ConventionError(
                f"convention {name!r}: unknown field(s) {', '.join(unknown)}; "
                f"known: {', '.join(sorted(known - {'name'}))}"
            )
        return cls().replace(name=name, **changes)

    def changes(self) -> dict[str, Any]:
        """The fields that differ from the reference convention (name and description aside)."""
        reference = Convention()
        return {
            field: getattr(self, field)
            for field in FIELDS
            if field not in ("name", "description")
            and getattr(self, field) != getattr(reference, field)
        }

    @property
    def judged_only(self) -> bool:
        """True for trec_eval's -J: unjudged documents leave the ranking."""
        return self.unjudged == "removed"

    @property
    def complete(self) -> bool:
        """True for trec_eval's -c: every qrels topic is averaged."""
        return self.topics == "all_qrels" and self.mistake != "topics_from_run"


REFERENCE = Convention()

# Named presets: every decision where that trec_eval differs from the reference (9.0.x).
# trec_eval 10.0 interpolates with lround(r * R), keeps scores as doubles, and evaluates
# a -c topic without results as an empty ranking (a per-topic line each). Its all_trec
# also has rbp, rbp_resid and unj (irscore.engine.measures.registry, `trec_eval=(10,)`).
COMPAT: dict[str, dict[str, Any]] = {
    "trec_eval10": {
        "interpolation": "trec_eval10",
        "score_precision": "float64",
        "missing_topics": "evaluated",
    },
}


def name_under(measure: str, convention: Convention) -> str:
    """The long table's name for `measure` under `convention` (nDCG lines are renamed
    ndcg_exp... when the convention's gain is exponential)."""
    if convention.gain == "exponential" and measure.startswith("ndcg") and "_exp" not in measure:
        return "ndcg_exp" + measure[len("ndcg") :]
    return measure


_FLAGS = {
    ("topics", "all_qrels"): "-c",
    ("unjudged", "removed"): "-J",
}


def describe(changes: Mapping[str, Any]) -> str:
    """A one-line description of a set of changes from the reference, for tables."""
    if not changes:
        return REFERENCE.description
    parts = []
    for key, value in sorted(changes.items()):
        flag = _FLAGS.get((key, value))
        if flag:
            parts.append(flag)
        elif key == "depth":
            parts.append(f"-M {value}")
        elif key == "rel_level":
            parts.append(f"-l {value}")
        elif key == "mistake":
            parts.append(f"mistake: {value}")
        elif key != "description":
            parts.append(f"{key}={value}")
    return ", ".join(parts)


def conventions_from_config(entries: Mapping[str, Mapping[str, Any] | None]) -> list[Convention]:
    """Conventions from config (`name: {field: value}`), in config order."""
    return [Convention.from_changes(name, changes) for name, changes in entries.items()]


# The grid `irscore audit` applies to anyone's files: the reference, each
# single-decision variant of the spec, and the four known mistakes. The
# workflow's config.yaml lists the same grid plus Cranfield's grade mapping.
DEFAULT_GRID: dict[str, dict[str, Any]] = {
    "reference": {},
    "tie_docno_asc": {"tie_break": "docno_asc"},
    "tie_docno_numeric": {"tie_break": "docno_numeric"},
    "tie_rank": {"tie_break": "rank"},
    "tie_file_order": {"tie_break": "file_order"},
    "tie_optimistic": {"tie_break": "optimistic"},
    "tie_pessimistic": {"tie_break": "pessimistic"},
    "tie_expected": {"tie_break": "expected"},
    "float64": {"score_precision": "float64"},
    "all_qrels": {"topics": "all_qrels"},
    "judged_only": {"unjudged": "removed"},
    "rel_level_2": {"rel_level": 2},
    "depth_100": {"depth": 100},
    "gain_exponential": {"gain": "exponential"},
    "interp_trec_eval10": {"interpolation": "trec_eval10"},
    "interp_textbook": {"interpolation": "textbook"},
    "skip_no_relevant": {"no_relevant_topics": "skip"},
    "mistake_ap_over_retrieved": {"mistake": "ap_over_retrieved"},
    "mistake_ideal_from_run": {"mistake": "ideal_from_run"},
    "mistake_topics_from_run": {"topics": "all_qrels", "mistake": "topics_from_run"},
    "mistake_rank_column_trusted": {"mistake": "rank_column_trusted"},
}


def single_change_conventions(
    conventions: Mapping[str, Mapping[str, Any] | None], field: str
) -> dict[Any, str]:
    """{value of `field`: convention name} for the reference and each configured convention
    that changes `field` and nothing else (the first in config order per value), listed in
    the order of the field's choices (the reference value first)."""
    found: dict[Any, str] = {}
    for convention in conventions_from_config(conventions):
        changes, value = convention.changes(), getattr(convention, field)
        if field == "tie_break" and changes == {"ties": "expected"}:  # its alias
            changes, value = {field: "expected"}, "expected"
        if not changes or set(changes) == {field}:
            found.setdefault(value, convention.name)
    return {value: found[value] for value in CHOICES[field] if value in found}
