"""Which measures a call scores under which convention: the names given, read as
trec_eval's (one group, the call's convention) or as a peer's (`peer_names`: one group
per convention the peers imply), and their values relabelled with the names given."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from irscore.engine.measures.requests import MeasureError, MeasureSpec, parse_names, parse_requests

if TYPE_CHECKING:  # the peers' names load where a name is not trec_eval's (~5 ms of start-up)
    from irscore.engine.measures.peer_names import PeerName


@dataclass
class Group:
    """Measures scored under one set of convention changes: their spec, and for peer names
    the renaming of irscore's printed names to the names given (`renames`, None for
    trec_eval names, which keep their own; `narrowed` as `parse_names` gives it)."""

    changes: tuple[tuple[str, Any], ...]
    spec: MeasureSpec
    renames: dict[str, list[str]] | None = None
    narrowed: dict[str, set[str]] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)

    def named(self, values: dict[str, Any]) -> dict[str, Any]:
        """The group's {printed name: value} as asked: narrowed, then renamed."""
        return rename(narrow_values(values, self.narrowed), self.renames)


def plan(
    names: Sequence[str],
    trec_eval_requests: bool = False,
    trec_eval: int = 9,
    judgments: str = "qrels",
) -> list[Group]:
    """The groups scoring `names`, in the order asked: the one resolver of measure names,
    which the command line (-m), the API (`measures=`), the page's measure boxes and
    the workflow's config all call, so that a name is accepted by all or by none.

    A name is trec_eval's (a -m request such as `P.5,10` or `official`, or a name
    as trec_eval prints it, `P_10`), else ir_measures' or ranx's (`peer_names`).
    Names in a row of one kind make one group: trec_eval's under the call's
    convention, printed in trec_eval's order; the peers' under the convention their
    peer implies, printed as given. So the measures come back in the order asked,
    and a row of trec_eval names as trec_eval prints it.

    `trec_eval_requests`: requests given together keep trec_eval's reading (`-m P.5
    -m P.10` prints P_5, as trec_eval does), with `trec_eval` and `judgments` as
    `parse_requests` takes them; a row holding a printed name is read as
    `parse_names` reads it. An unknown name is an error listing close names that
    are accepted (never the name itself).
    """
    rows: list[tuple[bool, list]] = []  # (trec_eval's?, its names or PeerNames)
    for name in names:
        peer = _read(name, trec_eval, judgments)
        trec = peer is None
        if not rows or rows[-1][0] != trec:
            rows.append((trec, []))
        rows[-1][1].append(name if trec else peer)
    if not rows:
        rows = [(True, [] if trec_eval_requests else ["official"])]
    groups: list[Group] = []
    for trec, row in rows:
        if not trec:
            groups += _peer_groups(row)
        elif trec_eval_requests and all(_is_request(n, trec_eval, judgments) for n in row):
            spec, missing = parse_requests(row, trec_eval, judgments)
            groups.append(Group((), spec, missing=missing))
        else:
            spec, missing, narrowed = parse_names(row, trec_eval, judgments)
            groups.append(Group((), spec, narrowed=narrowed, missing=missing))
    return groups


def _read(name: str, trec_eval: int = 9, judgments: str = "qrels") -> PeerName | None:
    """`name` as a peer's name (a PeerName), or None for trec_eval's; MeasureError for a
    name of neither, or trec_eval's with parameters it refuses."""
    try:
        narrows = bool(parse_names([name], trec_eval, judgments)[2])
    except MeasureError as err:
        if not str(err).startswith("unknown measure"):
            raise  # trec_eval's name with bad parameters, or for other judgments
        peer = _peer(name)
        if peer is None:
            raise _unknown(name, err, trec_eval, judgments) from None
        return _from_a_qrels(peer, judgments)
    peer = _peer(name) if narrows else None
    return None if peer is None else _from_a_qrels(peer, judgments)


def _from_a_qrels(peer: PeerName, judgments: str) -> PeerName:
    """The peer's name, whose measures are computed from a qrels (not -R prefs)."""
    if judgments != "qrels":
        raise MeasureError(
            f"{peer.name}: ir_measures and ranx names are computed from a qrels, not from "
            f"{judgments} judgments"
        )
    return peer


def _is_request(name: str, trec_eval: int, judgments: str) -> bool:
    """True for a name trec_eval's -m reads (`P.5,10`, `map`, `official`)."""
    try:
        parse_requests([name], trec_eval, judgments)
    except MeasureError:
        return False
    return True


def accepted(name: str, trec_eval: int = 9, judgments: str = "qrels") -> bool:
    """True when `plan` takes the name."""
    try:
        plan([name], True, trec_eval, judgments)
    except MeasureError:
        return False
    return True


def _peer(name: str) -> PeerName | None:
    """`name` read as an ir_measures or ranx name; None when it is neither."""
    from irscore.engine.measures.peer_names import parse_peer_name

    return parse_peer_name(name)


def _unknown(name: str, err: MeasureError, trec_eval: int, judgments: str) -> MeasureError:
    """The error for a name of no syntax, with the close names of every syntax that `plan`
    accepts: trec_eval's, then, for a name in a peer's shape (`@`, `(`) or with no close
    trec_eval name, the peers'. A close name is offered only if it is accepted, so a
    refused name is never its own correction."""
    import difflib

    from irscore.engine.measures.peer_names import peer_examples
    from irscore.engine.measures.requests import close_names

    trec = [c for c in close_names(name) if accepted(c, trec_eval, judgments)]
    peers = difflib.get_close_matches(name, peer_examples(), n=3, cutoff=0.6)
    peers = [c for c in peers if c != name and accepted(c, trec_eval, judgments)]
    message = f"unknown measure {name!r}"
    if trec:
        message += f"; close names: {', '.join(trec)}"
    if peers and ("@" in name or "(" in name or not trec):
        message += f"; in ir_measures / ranx syntax: {', '.join(peers)}"
        message += " (irscore measures lists every name)"
    return MeasureError(message)


def config_groups(config: dict[str, Any]) -> list[Group]:
    """The groups of the config's `measures: names:`, any name `plan` reads, scored beside
    the families under each convention (a peer's under its peer's); what the workflow's
    long table cannot hold (text, other judgments than a qrels) is an error."""
    from irscore.engine.measures.requests import check_workflow_families

    names = list(config.get("names") or [])
    groups = plan(names) if names else []
    for g in groups:
        check_workflow_families(g.spec.families)
    return groups


def _peer_groups(peers: Sequence[PeerName]) -> list[Group]:
    """Peer names in a row grouped by their convention, in the order given: a name joins
    the group before it when its convention is the same and its parameters merge (two
    gain maps, two values of p do not), else opens another group."""
    requests: list[tuple[tuple, dict[str, list[str] | str | None], dict[str, list[str]]]] = []
    for peer in peers:
        for changes, params, renames in requests[-1:]:
            if changes == peer.changes and _merge(params, peer):
                renames.setdefault(peer.printed, []).append(peer.name)
                break
        else:
            params: dict[str, Any] = {}
            _merge(params, peer)
            requests.append((peer.changes, params, {peer.printed: [peer.name]}))
    groups = []
    for changes, params, renames in requests:
        texts = [_request_text(family, value) for family, value in params.items()]
        spec, _ = parse_requests(texts)
        groups.append(Group(changes, spec, renames))
    return groups


def _merge(params: dict[str, Any], peer: PeerName) -> bool:
    """Add the peer's family and parameters to a group's; False when they clash."""
    family, text = peer.family, peer.params
    if family not in params:
        params[family] = [text] if _merges(family) else text
        return True
    if _merges(family):
        params[family].append(text)
        return True
    return params[family] == text


def _merges(family: str) -> bool:
    """Whether two parameter texts of the family merge: cut-offs do (`P.5` and `P.10` are
    `P.5,10`); any other two texts are two requests."""
    from irscore.engine.measures.registry import PARAMETRISED

    return family in PARAMETRISED and PARAMETRISED[family].kind == "cutoffs"


def _request_text(family: str, value: Any) -> str:
    if isinstance(value, list):
        return f"{family}.{','.join(dict.fromkeys(value))}"
    return family if value is None else f"{family}.{value}"


def rename(values: dict[str, Any], renames: dict[str, list[str]] | None) -> dict[str, Any]:
    """A group's {printed name: value} under the names given, in the order given; the
    measures of merged cut-offs that were not asked for are left out."""
    if renames is None:
        return values
    out = {}
    for printed, names in renames.items():
        if printed in values:
            for name in names:
                out[name] = values[printed]
    return out


def narrow_values(values: dict[str, Any], families: dict[str, set[str]]) -> dict[str, Any]:
    """{printed name: value} without the measures of narrowed families that were not asked
    for by name (`narrowed` for a dict); an absent name is an error."""
    if not families or not values:
        return values
    out = dict(values)
    for family, wanted in families.items():
        in_family = {m for m in values if m.startswith(family + "_")}
        absent = sorted(wanted - in_family)
        if absent:
            raise _absent(absent[0], list(values))
        for m in in_family - wanted:
            del out[m]
    return out


def _absent(name: str, printed: list[str]) -> MeasureError:
    """The error for a narrowed name its family does not print, with those it does."""
    import difflib

    close = difflib.get_close_matches(name, sorted(set(printed)), n=5, cutoff=0.6)
    hint = f"; close names: {', '.join(close)}" if close else ""
    return MeasureError(f"unknown measure {name!r}{hint}")


def changed(convention: Any, changes: tuple[tuple[str, Any], ...]) -> Any:
    """The convention with a group's changes (its name kept: the rows are the user's)."""
    return convention.replace(**dict(changes)) if changes else convention


def rename_table(table: Any, renames: dict[str, list[str]] | None) -> Any:
    """A long table's rows under the names given (`rename` for a pandas long table): a
    row for each name of its measure, each topic's rows in the order the names were given."""
    if renames is None:
        return table
    import numpy as np
    import pandas as pd

    order = {name: i for i, name in enumerate(n for names in renames.values() for n in names)}
    measure = table["measure"].astype(str).to_numpy()
    counts = np.array([len(renames.get(m, ())) for m in measure], dtype=np.int64)
    rows = np.repeat(np.arange(len(table)), counts)
    names = [name for m in measure for name in renames.get(m, ())]
    topic_block, _ = pd.factorize(table["topic"].to_numpy()[rows])
    key = topic_block * len(order) + np.array([order[n] for n in names], dtype=np.int64)
    by_key = np.argsort(key, kind="stable")
    out = table.iloc[rows[by_key]].reset_index(drop=True)
    out["measure"] = pd.Categorical(np.array(names, dtype=object)[by_key], categories=list(order))
    return out


def narrowed(table: Any, families: dict[str, set[str]]) -> Any:
    """A long table without the measures of narrowed families that were not asked for by
    name (`iprec_at_recall_0.50` keeps that one of its family); an absent name is an error."""
    if not families:
        return table
    measure = table["measure"].astype(str)
    keep = measure == measure  # every row, until a narrowed family drops some
    for family, wanted in families.items():
        in_family = measure.str.startswith(family + "_")
        absent = sorted(wanted - set(measure[in_family]))
        if absent:
            raise _absent(absent[0], list(measure))
        keep &= ~in_family | measure.isin(wanted)
    return table[keep.to_numpy()].reset_index(drop=True)
