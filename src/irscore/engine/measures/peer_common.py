"""What every reader of a peer's measure name shares: the PeerName it returns, the
conventions the peers' implementations follow (read from their source), and the checks
of a name's parameters. The readers: `irm_names` (ir_measures), `ranx_names` (ranx)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from irscore.engine.measures.requests import MeasureError

# ir_measures averages over every qrels topic: a topic the run lacks scores the measure's
# default (0); its pytrec_eval provider is trec_eval 9 (float32 scores, docno descending)
IRM = (("topics", "all_qrels"),)
# its msmarco (RR@k) and judged (Judged@k) providers sort by (-score, docno) in Python
IRM_SORTED = (*IRM, ("score_precision", "float64"), ("tie_break", "docno_asc"))
# gdeval.pl (ERR@k, nDCG(dcg=exp-log2)@k) compares Perl numbers: doubles, docno descending
IRM_GDEVAL = (*IRM, ("score_precision", "float64"))
# cwl_eval, pyndeval, compat and accuracy sort by score with Python's stable sort
# (ir_measures' RunConverter): ties in the run's order
IRM_CWL = (*IRM, ("score_precision", "float64"), ("tie_break", "file_order"))
# ranx with make_comparable=True: every qrels topic, float64 scores; its tie order is
# numba's unstable sort, which no convention reproduces (irscore keeps docno descending)
RANX = (("topics", "all_qrels"), ("score_precision", "float64"))


class PeerNameError(MeasureError):
    """A name in a peer's syntax with a parameter irscore cannot reproduce."""


@dataclass(frozen=True)
class PeerName:
    """One measure named the way a peer names it: the name printed (`name`), the irscore
    family computing it with its -m parameter text (`params`, None for its defaults),
    irscore's printed name of that one measure, and the convention decisions of the
    peer's implementation (`changes`)."""

    name: str
    family: str
    params: str | None
    printed: str
    changes: tuple[tuple[str, Any], ...]
    peer: str


def peer(name, family, params, printed, changes, who="ir_measures") -> PeerName:
    """The PeerName, its convention changes sorted (one group per distinct set)."""
    return PeerName(name, family, params, printed, tuple(sorted(set(changes))), who)


def irm_params(name: str, text: str) -> dict[str, Any]:
    """`rel=2,p=0.8,gains={0:0,1:1}` as a dict: whole numbers, decimals, a gain map,
    True/False, or a word, quoted as ir_measures writes it (dcg='exp-log2') or not."""
    params: dict[str, Any] = {}
    for item in re.findall(r"[^,{}]+=\{[^}]*\}|[^,]+", text):
        key, sep, value = (part.strip() for part in item.partition("="))
        if not sep or key in params:
            raise PeerNameError(f"{name!r}: {item!r} is not one NAME=VALUE parameter")
        params[key] = _irm_value(name, key, value)
    return params


def _irm_value(name: str, key: str, value: str) -> Any:
    if value.startswith("{"):
        pairs = [pair.partition(":") for pair in value[1:-1].split(",") if pair.strip()]
        if not pairs or any(not sep for _, sep, _ in pairs):
            raise PeerNameError(f"{name!r}: {key} must be a map like {{0:0,1:1,2:3}}")
        try:
            return {int(level): int(gain) for level, _, gain in pairs}
        except ValueError:
            raise PeerNameError(f"{name!r}: {key} maps whole grades to whole gains") from None
    if value in ("True", "False"):
        return value == "True"
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]  # ir_measures quotes words: dcg='exp-log2
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def take(name: str, params: dict[str, Any], allowed: dict[str, Any]) -> dict[str, Any]:
    """The parameters with their defaults; one irscore does not reproduce is an error."""
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        takes = ", ".join(allowed) or "none"
        raise PeerNameError(
            f"measure {name!r}: irscore does not reproduce {', '.join(unknown)} "
            f"(its parameters here: {takes})"
        )
    return {**allowed, **params}


def whole(name: str, key: str, value: Any, least: int = 0) -> int:
    """A parameter that must be a whole number of `least` or more."""
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise PeerNameError(f"measure {name!r}: {key} must be a whole number of {least} or more")
    return value


def number(name: str, key: str, value: Any, low: float, high: float | None) -> float:
    """A parameter that must be a number above `low` (and below `high`, if given)."""
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not ok or not low < value or (high is not None and not value < high):
        limits = f"between {low:g} and {high:g}" if high is not None else f"above {low:g}"
        raise PeerNameError(f"measure {name!r}: {key} must be a number {limits}")
    return float(value)


def rel(name: str, value: Any) -> tuple[tuple[str, Any], ...]:
    """The convention change of a `rel` parameter (none for the default, 1)."""
    value = whole(name, "rel", value)
    return () if value == 1 else (("rel_level", value),)


def judged_only(name: str, value: Any) -> tuple[tuple[str, Any], ...]:
    if not isinstance(value, bool):
        raise PeerNameError(f"measure {name!r}: judged_only must be True or False")
    return (("unjudged", "removed"),) if value else ()


def need_k(name: str, k: int | None) -> int:
    if k is None:
        raise PeerNameError(f"measure {name!r} needs a cut-off: {name}@10")
    if k < 1:
        raise PeerNameError(f"measure {name!r}: the cut-off must be 1 or more")
    return k


def no_k(name: str, k: Any) -> None:
    if k is not None:
        raise PeerNameError(f"measure {name!r} takes no cut-off")
