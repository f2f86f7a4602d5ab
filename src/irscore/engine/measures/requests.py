"""Which measures to compute: trec_eval's -m requests and the config's `measures:` entry."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from irscore.engine.measures.interpolation import level_name
from irscore.engine.measures.precision import rprec_mult_name
from irscore.engine.measures.registry import (
    ALL_FAMILIES,
    ALL_TREC,
    CUTOFF_FAMILIES,
    DEFAULT_CUTOFFS,
    FAMILIES,
    IMPLEMENTED,
    JUDGMENTS,
    NICKNAMES,
    PARAMETRISED,
    SUBTOPIC_FAMILIES,
    TEXT_FAMILIES,
    TREC_FAMILIES,
    printed_family,
)

_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


class MeasureError(ValueError):
    """A measure request that irscore does not know or cannot compute."""


class MeasureSpec:
    """Which measure families to compute, and the parameters of those that take some
    (`MeasureSpec(P=(5, 10), families=...)`; the registry's defaults otherwise).

    `spec.P`, `spec.Rprec_mult`, ... read a family's parameters. `utility` and
    `set_F` hold trec_eval's parameter text (`-m utility.1,-1,0,0`), None for
    its defaults: trec_eval names the measure `utility_1,-1,0,0` when the
    parameters are given and plain `utility` when they are not.
    """

    __slots__ = ("_params", "collection_size", "families")

    def __init__(
        self, families: Iterable[str] | None = None, collection_size: int = 0, **params: Any
    ):
        unknown = sorted(set(params) - set(PARAMETRISED))
        if unknown:
            raise TypeError(f"MeasureSpec: no parameters for {', '.join(unknown)}")
        self.families = frozenset(TREC_FAMILIES if families is None else families)
        self.collection_size = collection_size  # trec_eval's -N (utility's d weight)
        self._params = tuple(sorted(params.items()))

    def param(self, family: str) -> Any:
        """The parameters of `family` (None for a family that takes none)."""
        if family not in PARAMETRISED:
            return None
        return dict(self._params).get(family, PARAMETRISED[family].default)

    def __getattr__(self, name: str) -> Any:
        if name in PARAMETRISED:
            return self.param(name)
        raise AttributeError(name)

    def with_families(self, families: Iterable[str]) -> MeasureSpec:
        """The same parameters for other families."""
        return MeasureSpec(families, self.collection_size, **dict(self._params))

    def with_collection_size(self, size: int) -> MeasureSpec:
        """The same request with the collection's size (trec_eval's -N)."""
        return MeasureSpec(self.families, size, **dict(self._params))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MeasureSpec):
            return NotImplemented
        mine = (self.families, self.collection_size, self._params)
        return mine == (other.families, other.collection_size, other._params)

    def __hash__(self) -> int:
        return hash((self.families, self.collection_size, self._params))

    def __repr__(self) -> str:
        params = "".join(f", {name}={value!r}" for name, value in self._params)
        return f"MeasureSpec(families={sorted(self.families)!r}{params})"


def spec_from_config(config: Mapping[str, Any]) -> MeasureSpec:
    """A MeasureSpec from config: `families` (default: all irscore computes), cut-offs
    and parameters (`Rprec_mult: [0.5, 1.0]`, `utility: [1, -1, 0, 0]`, `set_F: 0.5`).
    `names` (any names `groups.plan` reads, scored beside: `groups.config_groups`) is
    checked there, not part of this spec."""
    config = dict(config)
    config.pop("names", None)
    families = frozenset(config.pop("families", ALL_FAMILIES))
    check_workflow_families(families | set(config))
    unknown = sorted(set(config) - set(PARAMETRISED))
    if unknown:
        raise MeasureError(f"measures: unknown key(s) {', '.join(unknown)}")
    bad = sorted(families - IMPLEMENTED)
    if bad:
        raise MeasureError(f"measures: unknown or unimplemented famil(ies) {', '.join(bad)}")
    params = {key: _parse_params(key, _param_text(value)) for key, value in config.items()}
    return MeasureSpec(families=families, **params)


def check_workflow_families(families: Iterable[str]) -> None:
    """Refuse what the workflow's long table cannot score: text (relstring), and the
    measures of other judgments than a qrels (preferences, judgment groups, subtopics)."""
    families = set(families)
    text = sorted(families & TEXT_FAMILIES)
    if text:
        raise MeasureError(
            f"measures: {', '.join(text)} is text, which a long table cannot hold "
            f"(irscore evaluate -q -m {text[0]} prints it)"
        )
    other = sorted(families - JUDGMENTS["qrels"], key=list(FAMILIES).index)
    if other:
        need = FAMILIES[other[0]].judgments if other[0] in FAMILIES else None
        if need == "subtopics":
            raise MeasureError(
                f"measures: {', '.join(other)} are diversity measures, computed from a "
                "subtopic qrels by irscore evaluate and the Python API, not by the workflow"
            )
        if need is not None:
            raise MeasureError(
                f"measures: {', '.join(other)} are computed from {need} judgments, not a "
                f"qrels (irscore evaluate -R {'prefs' if need == 'prefs' else need})"
            )


def _param_text(value: Any) -> str:
    """A config value (a list of numbers, a mapping, a number or a text) as trec_eval's
    parameter text (`{p: 0.8}` -> `p=0.8`)."""
    if isinstance(value, Mapping):
        return ",".join(f"{name}={number}" for name, number in value.items())
    if isinstance(value, list | tuple):
        return ",".join(map(str, value))
    return str(value)


def parse_requests(
    requests: Sequence[str], trec_eval: int = 9, judgments: str = "qrels"
) -> tuple[MeasureSpec, list[str]]:
    """trec_eval's -m requests (`map`, `P.5,10`, `all_trec`, ...) as a MeasureSpec;
    `all_trec` means the measures of that major version of trec_eval (9 or 10).
    `judgments` is trec_eval's -R: the measures computed from other judgments (the
    preference measures from a qrels, map from prefs) are an error, as in trec_eval.

    Returns the spec and the requested families irscore does not compute yet
    (from a nickname such as all_trec), so the caller can say so; naming one
    of those explicitly is an error, like an unknown name. A family requested
    twice with parameters takes the first ones, as trec_eval does (`-m P.5 -m
    P.10` prints P_5).
    """
    families: set[str] = set()
    params: dict[str, Any] = {}
    missing: list[str] = []
    for request in requests or ["official"]:
        name, _, text = request.partition(".")
        if name in NICKNAMES:
            group = ALL_TREC[trec_eval] if name == "all_trec" else NICKNAMES[name]
            families |= {m for m in group if m in IMPLEMENTED}
            missing += [m for m in group if m not in IMPLEMENTED and m not in missing]
            continue
        if name not in IMPLEMENTED:
            if name not in FAMILIES:
                raise MeasureError(_unknown(name, request))
            raise MeasureError(f"measure not implemented: {name!r} (in -m {request!r})")
        families.add(name)
        if not text and name in PARAMETRISED and PARAMETRISED[name].kind == "cut_gains":
            raise MeasureError(
                f"{name} takes a gain map and cut-offs: -m {name}.LEVEL=GAIN,...@CUTOFFS "
                f"({name}.0=0,1=1,2=3@5,10)"
            )
        if text:
            if name not in PARAMETRISED:
                raise MeasureError(f"measure {name} takes no parameters (in -m {request})")
            params.setdefault(name, _parse_params(name, text))
    computed = JUDGMENTS[judgments] | (SUBTOPIC_FAMILIES if judgments == "qrels" else set())
    other = sorted(families - computed, key=list(FAMILIES).index)
    if other:
        need = FAMILIES[other[0]].judgments
        flag = "-R prefs or -R qrels_prefs" if need == "prefs" else f"-R {need}"
        if need == "subtopics":
            flag = "a qrels (-R qrels), whose second column names subtopics"
        raise MeasureError(
            f"{', '.join(other)} cannot be computed from -R {judgments} judgments "
            f"({other[0]} needs {flag})"
        )
    return MeasureSpec(families=frozenset(families), **params), missing


def parse_names(
    names: Sequence[str], trec_eval: int = 9, judgments: str = "qrels"
) -> tuple[MeasureSpec, list[str], dict[str, set[str]]]:
    """Measures named as trec_eval prints them (`P_10`, `iprec_at_recall_0.50`) or as
    -m requests them (`P.5,10`, `map`, `official`), as one MeasureSpec.

    A printed name with a cut-off is its family's request with that cut-off
    (`P_5` and `P_10` make `P.5,10`); a bare family beside a request of its
    cut-offs asks for those alone (`P` and `P.5` make `P.5`); any other printed name asks for its
    whole family, narrowed afterwards to the names given: the third value maps
    such a family to them. The second is what `parse_requests` returns (given
    `trec_eval` and `judgments`). An unknown name is an error listing the close ones;
    so is a name its family does not print (`P_10x`, `iprec_at_recall_0.55`).
    """
    requests: dict[str, list[str]] = {}  # request -> the cut-offs asked for
    whole: set[str] = set()
    narrowed: dict[str, set[str]] = {}
    # `P` beside `P.5` is P_5 alone, as trec_eval (and so pytrec_eval) reads the two
    cut = {n.partition(".")[0] for n in names if "." in n} & set(CUTOFF_FAMILIES)
    for name in names:
        head, dot, text = name.partition(".")
        if name in NICKNAMES or head in IMPLEMENTED:
            whole.add(head)
            if head in CUTOFF_FAMILIES:  # `P`: its defaults; `P.5,10`: those
                default = () if head in cut else map(str, MeasureSpec().param(head))
                given = text.split(",") if dot else default
                requests.setdefault(head, []).extend(given)
            else:
                requests.setdefault(name, [])
            continue
        printed = printed_family(name)
        family = None if printed is None else printed.name
        if family not in IMPLEMENTED:
            raise MeasureError(_unknown(name))
        cutoff = name[len(family) + 1 :]
        if family in CUTOFF_FAMILIES and cutoff.isdigit():
            requests.setdefault(family, []).append(cutoff)
        elif name not in _default_names(family):
            raise MeasureError(_unknown(name))
        else:
            requests.setdefault(family, [])
            narrowed.setdefault(family, set()).add(name)
    texts = [
        f"{request}.{','.join(dict.fromkeys(cutoffs))}" if cutoffs else request
        for request, cutoffs in requests.items()
    ]
    spec, missing = parse_requests(texts, trec_eval, judgments)
    return spec, missing, {f: keep for f, keep in narrowed.items() if f not in whole}


def _default_names(family: str) -> set[str]:
    """The names a family of recall levels or multiples of R prints under its defaults
    (`iprec_at_recall_0.50`), as trec_eval names them (`%s_%3.2f`, cut short)."""
    params = PARAMETRISED.get(family)
    if params is None or params.kind not in ("levels", "multiples"):
        return set()
    return {f"{family}_{value:3.2f}"[: len(family) + 9] for value in params.default}


def _unknown(name: str, request: str | None = None) -> str:
    """The error for a measure name trec_eval's readers do not know (`groups.plan` adds
    the close names it accepts); a -m `request` is quoted whole (`RBP(p=0.8)`, not the
    part before its dot)."""
    return f"unknown measure {(request or name)!r}"


def close_names(name: str) -> list[str]:
    """trec_eval's names close to `name` (or to a request's family): families, nicknames
    and printed names at the default cut-offs, never `name` itself."""
    import difflib  # only for a name that is not known

    known = sorted(IMPLEMENTED | set(NICKNAMES)) + [
        f"{family}_{k}" for family in CUTOFF_FAMILIES for k in DEFAULT_CUTOFFS
    ]
    head = name.partition(".")[0]  # a request's family (`ndcg_cutt.10`)
    close = difflib.get_close_matches(head, known, n=6, cutoff=0.6) if head != name else []
    close += difflib.get_close_matches(name, known, n=6, cutoff=0.6)
    return [c for c in dict.fromkeys(close) if c != name][:5]


def _parse_params(name: str, text: str) -> Any:
    """The MeasureSpec value of `-m name.text` (or of a config entry, as text)."""
    kind = PARAMETRISED[name]
    if kind.kind == "cutoffs":
        return _parse_cutoffs(name, text)
    if kind.kind in ("multiples", "levels"):
        return _parse_multiples(name, text, kind.kind)
    if kind.kind == "named":
        return _parse_named(name, text, kind.names)
    if kind.kind == "gains":
        return _parse_gains(name, text)
    if kind.kind == "cut_gains":
        gains, at, cutoffs = text.rpartition("@")
        if not at:
            raise MeasureError(f"parameters of {name} are LEVEL=GAIN,...@CUTOFFS: {text!r}")
        ks = ",".join(map(str, _parse_cutoffs(name, cutoffs)))
        return f"{_parse_gains(name, gains)}@{ks}"
    values = _parse_floats(name, text)
    if kind.count is not None and len(values) != kind.count:
        raise MeasureError(f"{name} takes {kind.count} number(s), got {text!r}")
    return text  # the text: trec_eval names the measure after it


def _parse_floats(name: str, text: str) -> tuple[float, ...]:
    """Decimal numbers split by commas (`.25` too); trec_eval's atof would read a word as 0."""
    items = text.split(",")
    if not all(_NUMBER.fullmatch(item) for item in items):
        raise MeasureError(f"parameters of {name} must be numbers: {text!r}")
    values = tuple(float(v) for v in items)
    if not all(np.isfinite(values)):
        raise MeasureError(f"parameters of {name} must be finite numbers: {text!r}")
    return values


def _parse_named(name: str, text: str, names: tuple[str, ...]) -> str:
    """`p=0.8`-style parameters (trec_eval 10's): each name once, each value a number."""
    pairs = [item.partition("=") for item in text.split(",")]
    given = [key for key, _, _ in pairs]
    if any(key not in names or not sep for key, sep, _ in pairs) or len(set(given)) != len(given):
        known = ", ".join(f"{key}=NUMBER" for key in names)
        raise MeasureError(f"parameters of {name} are {known}: {text!r}")
    _parse_floats(name, ",".join(value for _, _, value in pairs))
    return text


def _parse_multiples(name: str, text: str, kind: str) -> tuple[float, ...]:
    """Rprec_mult's multiples of R or iprec_at_recall's recall levels, sorted like
    trec_eval's float cut-offs; equal printed names refused (trec_eval prints both)."""
    values = tuple(sorted(_parse_floats(name, text)))
    namer = rprec_mult_name if kind == "multiples" else level_name
    names = [namer(v) for v in values]
    if len(set(names)) != len(names):
        what = "multiples" if kind == "multiples" else "recall levels"
        raise MeasureError(f"{what} of {name} must print distinct names: {text!r}")
    return values


def _parse_gains(name: str, text: str) -> str:
    """`level=gain` pairs (m_ndcg.c's): whole levels >= 0, each once, numbers as gains."""
    from irscore.engine.measures.gain_maps import parse_gains

    try:
        parse_gains(text)
    except ValueError as err:
        raise MeasureError(f"parameters of {name} are LEVEL=GAIN pairs: {err}") from None
    return text


def _parse_cutoffs(name: str, text: str) -> tuple[int, ...]:
    """Positive distinct cut-offs, sorted ascending as trec_eval sorts them; a decimal is
    cut to its whole part (`23.4` is 23), as trec_eval's atol reads it."""
    items = text.split(",")
    if not all(_DECIMAL.fullmatch(item) for item in items):  # atol reads 1e3 as 1
        raise MeasureError(f"cut-offs of {name} must be positive numbers: {text!r}")
    values = tuple(int(float(v)) for v in items)
    if any(v < 1 for v in values) or len(set(values)) != len(values):
        raise MeasureError(
            f"cut-offs of {name} must be positive and distinct (decimals are cut to their "
            f"whole part, as trec_eval does): {text!r}"
        )
    return tuple(sorted(values))
