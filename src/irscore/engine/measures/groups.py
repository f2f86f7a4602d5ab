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


def plan(
    names: Sequence[str],
    trec_eval_requests: bool = False,
    trec_eval: int = 9,
    judgments: str = "qrels",
) -> list[Group]:
    """The groups scoring `names`: the trec_eval names first (one group, the convention as
    given), then the peer names, one group per convention their peers imply.

    `trec_eval_requests`: the trec_eval names are -m requests (`P.5,10`), as
    `irscore evaluate -m` reads them (`trec_eval` and `judgments` as
    `parse_requests` takes them); otherwise printed names too (`P_10`). An unknown
    name is an error listing the close ones of every syntax.
    """
    trec, peers = [], []
    for name in names:
        try:
            narrows = _trec_eval_name(name, trec_eval_requests, trec_eval, judgments)
        except MeasureError as err:
            if not str(err).startswith("unknown measure"):
                raise  # trec_eval's name with bad parameters, or for other judgments
            peer = _peer(name)
            if peer is None:
                raise _unknown(name, err) from None
            peers.append(peer)
            continue
        peer = _peer(name) if narrows else None
        if peer is None:
            trec.append(name)
        else:
            peers.append(peer)
    groups = []
    if trec or not peers:
        if trec_eval_requests:
            spec, missing = parse_requests(trec, trec_eval, judgments)
            groups.append(Group((), spec, missing=missing))
        else:
            spec, missing, narrowed = parse_names(trec or ["official"])
            groups.append(Group((), spec, narrowed=narrowed, missing=missing))
    return groups + _peer_groups(peers)


def _peer(name: str) -> PeerName | None:
    """`name` read as an ir_measures or ranx name; None when it is neither."""
    from irscore.engine.measures.peer_names import parse_peer_name

    return parse_peer_name(name)


def _trec_eval_name(name: str, requests: bool, trec_eval: int, judgments: str) -> bool:
    """Read `name` as trec_eval's (MeasureError if it is not); True when it only narrows a
    family to a name the family may not print (`ndcg_burges`, read as ndcg's), which a
    peer's reading then takes before."""
    if requests:
        parse_requests([name], trec_eval, judgments)
        return False
    return bool(parse_names([name])[2])


def _unknown(name: str, err: MeasureError) -> MeasureError:
    """The error for a name of no syntax: trec_eval's (its close names), then, for a name
    in a peer's shape (`@`, `(`) or with no close trec_eval name, the peers' close names."""
    import difflib

    from irscore.engine.measures.peer_names import peer_examples

    peer_shaped = "@" in name or "(" in name or "close names" not in str(err)
    close = difflib.get_close_matches(name, peer_examples(), n=3, cutoff=0.6)
    if not peer_shaped or not close:
        return err
    return MeasureError(
        f"{err}; in ir_measures / ranx syntax: {', '.join(close)} "
        "(irscore measures lists every name)"
    )


def config_groups(config: dict[str, Any]) -> list[Group]:
    """The groups of the config's `measures: names:` (ir_measures and ranx names, scored
    beside the families under each convention, each under its peer's); a trec_eval name
    there is an error, as its place is `families:` and the cut-offs."""
    names = list(config.get("names") or [])
    groups = plan(names) if names else []
    trec = [g for g in groups if g.renames is None]
    if trec:
        raise MeasureError(
            "measures: names: lists ir_measures and ranx names; trec_eval's go under "
            "families: and their cut-offs"
        )
    return groups


def _peer_groups(peers: Sequence[PeerName]) -> list[Group]:
    """Peer names grouped by their convention; a family asked for with two parameter texts
    that do not merge (two gain maps, two values of p) opens another group."""
    requests: list[tuple[tuple, dict[str, list[str] | str | None], dict[str, list[str]]]] = []
    for peer in peers:
        for changes, params, renames in requests:
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
    import difflib

    measure = table["measure"].astype(str)
    keep = measure == measure  # every row, until a narrowed family drops some
    for family, wanted in families.items():
        in_family = measure.str.startswith(family + "_")
        absent = sorted(wanted - set(measure[in_family]))
        if absent:
            close = difflib.get_close_matches(absent[0], sorted(set(measure)), n=5, cutoff=0.6)
            hint = f"; close names: {', '.join(close)}" if close else ""
            raise MeasureError(f"unknown measure {absent[0]!r}{hint}")
        keep &= ~in_family | measure.isin(wanted)
    return table[keep.to_numpy()].reset_index(drop=True)
