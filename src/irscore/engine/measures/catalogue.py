"""Every measure name irscore accepts, by family: what `irscore measures` prints and
`irscore.measures()` returns (the syntax, the parameters, where the name comes from,
and the convention it implies)."""

from __future__ import annotations

from typing import Any

from irscore.engine.conventions import describe
from irscore.engine.measures.peer_names import NAME_FAMILIES
from irscore.engine.measures.registry import FAMILIES, Family

COLUMNS = ("name", "measure", "parameters", "provenance", "convention")
_PARAMETERS = {
    "cutoffs": "cut-offs k",
    "multiples": "multiples of R",
    "levels": "recall levels",
    "numbers": "numbers",
    "named": "p=NUMBER",
    "gains": "LEVEL=GAIN,...",
    "cut_gains": "LEVEL=GAIN,...@k",
}


def _parameters(family: Family) -> str:
    """A family's -m parameters and their default."""
    if family.params is None:
        return ""
    text = _PARAMETERS[family.params.kind]
    default = family.params.default
    if isinstance(default, tuple):
        return f"{text} (default {','.join(f'{v:g}' for v in default)})"
    return text


def _provenance(family: Family) -> str:
    if family.trec_eval:
        return "trec_eval " + "/".join(map(str, family.trec_eval))
    return f"irscore (as {family.peer})" if family.peer else "irscore"


def rows() -> list[dict[str, Any]]:
    """One row per name family: trec_eval's and irscore's in print order, then the peers'."""
    out = []
    for name, family in FAMILIES.items():
        if family.compute is None:
            continue
        syntax = f"{name}.PARAMS, {name}_k" if family.params else name
        if family.params is not None and family.params.kind != "cutoffs":
            syntax = f"{name}.PARAMS"
        out.append(
            {
                "name": syntax,
                "measure": name,
                "parameters": _parameters(family),
                "provenance": _provenance(family),
                "convention": "the call's",
            }
        )
    for peer in NAME_FAMILIES:
        out.append(
            {
                "name": peer.syntax,
                "measure": peer.measure,
                "parameters": peer.parameters,
                "provenance": peer.peer
                if peer.provider == peer.peer
                else f"{peer.peer} ({peer.provider})",
                "convention": describe(dict(peer.changes)) if peer.changes else "the call's",
            }
        )
    return out


def text() -> str:
    """The rows as an aligned text table."""
    table = [dict(zip(COLUMNS, COLUMNS, strict=True)), *rows()]
    widths = {c: max(len(str(r[c])) for r in table) for c in COLUMNS}
    lines = ["  ".join(str(r[c]).ljust(widths[c]) for c in COLUMNS).rstrip() for r in table]
    return "\n".join(lines) + "\n"
