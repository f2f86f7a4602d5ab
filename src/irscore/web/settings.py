"""The page's settings, checked, as the command-line flags they stand for.

Every value a request sends becomes one `--flag=value` argument of an irscore
command, after it is checked here against what that flag takes (a whole
number, one of the convention's choices, a measure name, a list of grades):
a request cannot smuggle in another option, a path or anything but the value.
A bad value is a `SettingError` naming the setting.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from irscore.cli.compare import CORRECTIONS as CORRECTIONS  # its choices, for the page
from irscore.engine.ranking.conventions import CHOICES, COMPAT, Convention

MAX_CUTOFFS = 6
# The convention decisions the page offers, with their command-line flags.
CONVENTION_FLAGS = {
    "tie_break": "--tie-break",
    "ties": "--ties",
    "score_precision": "--score-precision",
    "gain": "--gain",
    "interpolation": "--interpolation",
    "grades": "--grade-mapping",
    "duplicates": "--duplicates",
    "no_relevant_topics": "--no-relevant-topics",
}
GRADES = re.compile(r"\s*(-?[0-9]+|\?)(\s*,\s*(-?[0-9]+|\?))*\s*")
MISSED = re.compile(r"\s*(-?[0-9]+(\s*,\s*-?[0-9]+)*)?\s*")
TOPIC = re.compile(r"[^\s-][^\s]{0,199}")
METHODS = ("team_draft", "balanced")
CLICK_MODELS = ("perfect", "navigational", "informational", "random")


@functools.cache
def correction_default() -> str:
    """`irscore compare`'s default --correction, read from its parser: the page's default
    is the command line's, with no second copy to drift."""
    from irscore.cli import build_parser

    return build_parser().parse_args(["compare", "qrels", "run_a", "run_b"]).correction


class SettingError(ValueError):
    """A setting the page sent that no irscore flag takes."""


def whole(raw: Mapping[str, Any], name: str, default: int, low: int, high: int) -> int:
    """A whole number between low and high; the default when the setting is empty."""
    value = raw.get(name, "")
    if value in ("", None):
        return default
    try:
        number = int(str(value).strip())
    except ValueError:
        raise SettingError(f"{name}: {str(value)[:40]!r} is not a whole number") from None
    if not low <= number <= high:
        raise SettingError(f"{name}: {number} is not between {low} and {high:,}")
    return number


def number(raw: Mapping[str, Any], name: str, default: float, low: float, high: float) -> float:
    """A number strictly between low and high; the default when empty."""
    value = raw.get(name, "")
    if value in ("", None):
        return default
    try:
        result = float(str(value).strip())
    except ValueError:
        raise SettingError(f"{name}: {str(value)[:40]!r} is not a number") from None
    if not low < result < high:
        raise SettingError(f"{name}: {result:g} is not between {low:g} and {high:g}")
    return result


def choice(raw: Mapping[str, Any], name: str, choices: tuple, default: str) -> str:
    """One of `choices`; the default when empty."""
    value = raw.get(name) or default
    if value not in choices:
        raise SettingError(f"{name}: {str(value)[:40]!r} is not one of {', '.join(choices)}")
    return str(value)


def flag(raw: Mapping[str, Any], name: str) -> bool:
    """A switch: on for true, 1, on or yes."""
    return str(raw.get(name, "")).lower() in ("true", "1", "on", "yes")


def cutoffs(raw: Mapping[str, Any]) -> list[int]:
    """The cut-offs k (up to MAX_CUTOFFS whole numbers from 1), in the order given."""
    text = str(raw.get("k", "") or "").strip()
    if not text:
        return []
    items = [item.strip() for item in text.split(",") if item.strip()]
    if len(items) > MAX_CUTOFFS:
        raise SettingError(f"k: at most {MAX_CUTOFFS} cut-offs, got {len(items)}")
    values = []
    for item in items:
        if not item.isdigit() or int(item) < 1 or int(item) > 100_000:
            raise SettingError(f"k: {item[:40]!r} is not a cut-off from 1 to 100,000")
        values.append(int(item))
    return list(dict.fromkeys(values))


def measure(raw: Mapping[str, Any], name: str, default: str) -> str:
    """A measure name as the command line's -m takes it (map, P.10, P_10, nDCG@10): read
    by the one resolver (`groups.plan`), whose message a refused name gets."""
    from irscore.engine.measures import MeasureError
    from irscore.engine.measures.groups import plan

    value = str(raw.get(name) or default).strip()
    try:
        plan([value], trec_eval_requests=True)
    except MeasureError as err:
        raise SettingError(f"{name}: {err}") from None
    return value


def pattern(raw: Mapping[str, Any], name: str, regex: re.Pattern, what: str) -> str:
    """A text that must match `regex` (grades, a topic)."""
    value = str(raw.get(name) or "")
    if not regex.fullmatch(value):
        raise SettingError(f"{name}: {value[:40]!r} is not {what}")
    return value.strip()


def convention_flags(raw: Mapping[str, Any]) -> list[str]:
    """The convention flags of the settings (-c, -J, -M, -l, --gmax and one per decision)."""
    reference = Convention()
    flags = []
    if flag(raw, "c"):
        flags.append("-c")
    if flag(raw, "J"):
        flags.append("-J")
    depth = whole(raw, "M", 0, 0, 10_000_000)
    if depth:
        flags.append(f"-M={depth}")
    flags.append(f"-l={whole(raw, 'rl', 1, 0, 1000)}")
    flags.append(f"--gmax={whole(raw, 'gmax', 4, 1, 100)}")
    for field, option in CONVENTION_FLAGS.items():
        value = choice(raw, field, CHOICES[field], getattr(reference, field))
        if value != getattr(reference, field):
            flags.append(f"{option}={value}")
    compat = raw.get("compat") or ""
    if compat:
        flags.append(f"--compat={choice(raw, 'compat', tuple(COMPAT), '')}")
    return flags


def evaluate_measures(raw: Mapping[str, Any]) -> list[str]:
    """`-m` requests of the Metrics tab: trec_eval's every measure, and the cut-off
    families at each k when cut-offs are given."""
    requests = ["-m=all_trec"]
    ks = cutoffs(raw)
    if ks:
        joined = ",".join(map(str, ks))
        requests += [f"-m={family}.{joined}" for family in ("P", "recall", "ndcg_cut", "err")]
    return requests
